//! The scale section's database builder (`benches/sweep/scale_build.rs`) on small inputs:
//! the keys sort in numeric order, the values are what the reader expects, and a database
//! built by ingesting the file holds exactly those entries.

#[path = "../benches/sweep/scale_build.rs"]
mod scale_build;

use scale_build::{build_sst, ingest_into, scale_key, scale_options, scale_value};

#[test]
fn keys_sort_in_numeric_order_and_values_are_exact_functions_of_the_key() {
    let keys: Vec<[u8; 12]> = [0u64, 9, 10, 99, 100, 12_345_678_901]
        .map(scale_key)
        .to_vec();
    assert!(keys.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(&scale_key(42), b"k00000000042");
    let (mut a, mut b) = (Vec::new(), Vec::new());
    scale_value(7, 100, &mut a);
    scale_value(7, 100, &mut b);
    assert_eq!(a.len(), 100);
    assert_eq!(a, b);
    scale_value(8, 100, &mut b);
    assert_ne!(a, b);
    // Incompressible enough that no two 8-byte words of a value repeat.
    scale_value(3, 4096, &mut a);
    let mut words: Vec<&[u8]> = a.chunks(8).collect();
    words.sort();
    words.dedup();
    assert_eq!(words.len(), 512);
}

#[test]
fn an_ingested_file_holds_every_key_with_its_value() {
    let dir = tempfile::tempdir().unwrap();
    let sst = build_sst(&dir.path().join("data.sst"), 1_000, 300).unwrap();
    let (first, second) = (dir.path().join("one"), dir.path().join("two"));
    ingest_into(&sst, &first).unwrap();
    ingest_into(&sst, &second).unwrap();
    assert!(sst.exists(), "the file stays for the next database");
    for path in [&first, &second] {
        let db = pinrocks::Db::open(&scale_options(), path).unwrap();
        let mut expected = Vec::new();
        let mut count = 0u64;
        for entry in db.reader().scan(.., |k, v| (k.to_vec(), v.to_vec())) {
            let (key, value) = entry.unwrap();
            assert_eq!(key, scale_key(count));
            scale_value(count, 300, &mut expected);
            assert_eq!(value, expected);
            count += 1;
        }
        assert_eq!(count, 1_000);
        assert_eq!(db.get(&scale_key(1_000)).unwrap(), None);
    }
}

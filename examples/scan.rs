//! Scans: Rust ranges over keys, both directions, by prefix; the std-iterator form whose
//! last item is the error that stopped the scan; the lending cursor for full control.
//!
//! `cargo run --release --example scan`

use pinrocks::{Db, Options};

fn main() -> pinrocks::Result<()> {
    let dir = tempfile::tempdir().expect("temporary directory");
    let mut options = Options::new();
    options.create_if_missing(true);
    let db = Db::open(&options, dir.path())?;
    for (user, day, clicks) in [
        ("ada", 1, 3),
        ("ada", 2, 5),
        ("alan", 1, 7),
        ("grace", 3, 1),
    ] {
        let key = format!("clicks/{user}/{day:02}");
        db.put(key.as_bytes(), &(clicks as u32).to_be_bytes())?;
    }
    let reader = db.reader();
    let clicks = |v: &[u8]| u32::from_be_bytes(v.try_into().expect("4 bytes"));

    // Every key of one prefix, summed in place. `?` on the sum surfaces a failed scan.
    let ada: u32 = reader
        .prefix_iter(b"clicks/ada/")
        .forward(|_, v| clicks(v))
        .sum::<pinrocks::Result<u32>>()?;
    assert_eq!(ada, 8);

    // A half-open range of keys, newest first, as owned strings.
    let keys: Vec<String> = reader
        .scan_rev(b"clicks/a".as_slice()..b"clicks/b", |k, _| {
            String::from_utf8_lossy(k).into_owned()
        })
        .collect::<pinrocks::Result<_>>()?;
    assert_eq!(keys, ["clicks/alan/01", "clicks/ada/02", "clicks/ada/01"]);

    // The lending cursor: seek anywhere, step both ways, borrow each entry in place.
    let mut it = reader.range(..);
    it.seek(b"clicks/b");
    while let Some((key, value)) = it.entry() {
        println!("{} = {}", String::from_utf8_lossy(key), clicks(value));
        it.next();
    }
    it.status()?; // the cursor's end may be an error: ask
    Ok(())
}

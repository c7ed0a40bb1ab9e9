//! Range scans and the std-iterator adapter: every kind of Rust range, both directions, by
//! prefix, typed through `Table`, and a scan that fails part-way ending with its error.

use std::collections::BTreeMap;
use std::ops::Bound;

use crate::common::{create_options, open_db};
use pinrocks::codec::{BigEndian, Utf8};
use pinrocks::read::KeyRange;
use pinrocks::{Db, Error, ErrorKind, Table};

/// Keys 0x00..0x40 in steps of 4, each as one byte, with values that name them.
fn filled() -> (tempfile::TempDir, Db, BTreeMap<Vec<u8>, Vec<u8>>) {
    let (dir, db) = open_db(&[]);
    let mut model = BTreeMap::new();
    for k in (0u8..0x40).step_by(4) {
        let value = format!("value of {k}").into_bytes();
        db.put(&[k], &value).unwrap();
        model.insert(vec![k], value);
    }
    (dir, db, model)
}

fn owned(k: &[u8], v: &[u8]) -> (Vec<u8>, Vec<u8>) {
    (k.to_vec(), v.to_vec())
}

/// The scan of `range` both ways, compared with the model's range, entry by entry.
fn check_range(
    db: &Db,
    model: &BTreeMap<Vec<u8>, Vec<u8>>,
    range: impl KeyRange + Clone,
    bounds: (Bound<Vec<u8>>, Bound<Vec<u8>>),
) {
    let expected: Vec<_> = model
        .range(bounds)
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let forward: Vec<_> = db
        .reader()
        .scan(range.clone(), owned)
        .collect::<pinrocks::Result<_>>()
        .unwrap();
    assert_eq!(forward, expected);
    let mut backward: Vec<_> = db
        .reader()
        .scan_rev(range.clone(), owned)
        .collect::<pinrocks::Result<_>>()
        .unwrap();
    backward.reverse();
    assert_eq!(backward, expected);
    // The lending cursor sees the same first and last entries.
    let mut it = db.reader().range(range);
    assert_eq!(
        it.entry().map(|(k, v)| owned(k, v)),
        expected.first().cloned()
    );
    it.seek_to_last();
    assert_eq!(
        it.entry().map(|(k, v)| owned(k, v)),
        expected.last().cloned()
    );
}

#[test]
fn every_kind_of_range_scans_exactly_its_keys_both_ways() {
    use Bound::{Excluded, Included, Unbounded};
    let (_dir, db, model) = filled();
    let (a, b) = ([8u8], [20u8]); // present keys
    let (c, d) = ([9u8], [21u8]); // absent keys
    check_range(&db, &model, .., (Unbounded, Unbounded));
    check_range(
        &db,
        &model,
        a..b,
        (Included(a.to_vec()), Excluded(b.to_vec())),
    );
    check_range(
        &db,
        &model,
        a..=b,
        (Included(a.to_vec()), Included(b.to_vec())),
    );
    check_range(
        &db,
        &model,
        c..d,
        (Included(c.to_vec()), Excluded(d.to_vec())),
    );
    check_range(
        &db,
        &model,
        c..=d,
        (Included(c.to_vec()), Included(d.to_vec())),
    );
    check_range(&db, &model, a.., (Included(a.to_vec()), Unbounded));
    check_range(&db, &model, ..b, (Unbounded, Excluded(b.to_vec())));
    check_range(&db, &model, ..=b, (Unbounded, Included(b.to_vec())));
    check_range(
        &db,
        &model,
        (Excluded(a), Included(b)),
        (Excluded(a.to_vec()), Included(b.to_vec())),
    );
    // Empty ranges: between two keys, and past the end.
    check_range(
        &db,
        &model,
        c..[10u8],
        (Included(c.to_vec()), Excluded(vec![10])),
    );
    check_range(&db, &model, [0xF0u8].., (Included(vec![0xF0]), Unbounded));
    // Byte-string literals and slices work as bounds as they are.
    let n = db.reader().scan(b"\x08"..b"\x10", |_, _| ()).count();
    assert_eq!(n, 2);
    let start: &[u8] = &a;
    assert_eq!(db.reader().scan(start.., |_, _| ()).count(), 14);
}

#[test]
fn prefix_iteration_starts_and_ends_at_the_prefix_both_ways() {
    let (_dir, db) = open_db(&[]);
    for k in [&b"a1"[..], b"a2", b"b", b"a", b"ab\xff"] {
        db.put(k, k).unwrap();
    }
    let mut it = db.reader().prefix_iter(b"a");
    assert_eq!(it.key(), Some(&b"a"[..]));
    it.seek_to_last();
    assert_eq!(it.key(), Some(&b"ab\xff"[..]));
    it.next();
    assert_eq!(it.key(), None, "b is outside the prefix");
    let mut it = db.reader().prefix_iter(b"a1");
    it.seek_to_last();
    assert_eq!(it.key(), Some(&b"a1"[..]), "a2 sorts after the prefix");
    it.prev();
    assert_eq!(it.key(), None, "a sorts before the prefix");
    // A prefix of 0xFF bytes has no successor: it runs to the end.
    db.put(b"\xff\xff1", b"x").unwrap();
    let mut it = db.reader().prefix_iter(b"\xff\xff");
    it.seek_to_last();
    assert_eq!(it.key(), Some(&b"\xff\xff1"[..]));
}

#[test]
fn scans_of_a_table_take_typed_ranges() {
    let (_dir, db) = open_db(&["names"]);
    let names: Table<BigEndian<u32>, Utf8> = Table::new(db.cf("names").unwrap());
    for (id, name) in [
        (1, "Ada"),
        (2, "Alan"),
        (3, "Grace"),
        (10, "Edsger"),
        (300, "Barbara"),
    ] {
        names.put(&id, name).unwrap();
    }
    let collect = |it: pinrocks::Result<Vec<(u32, String)>>| it.unwrap();
    let scanned = collect(
        names
            .scan(&2..&10, |id, name: &str| (id, name.to_owned()))
            .unwrap()
            .collect(),
    );
    assert_eq!(scanned, [(2, "Alan".to_owned()), (3, "Grace".to_owned())]);
    let scanned = collect(
        names
            .scan_rev(&3.., |id, name: &str| (id, name.to_owned()))
            .unwrap()
            .collect(),
    );
    assert_eq!(
        scanned,
        [
            (300, "Barbara".to_owned()),
            (10, "Edsger".to_owned()),
            (3, "Grace".to_owned())
        ]
    );
    let ids: Vec<u32> = names
        .scan(.., |id, _| id)
        .unwrap()
        .collect::<pinrocks::Result<_>>()
        .unwrap();
    assert_eq!(ids, [1, 2, 3, 10, 300]);
    let ids: Vec<u32> = names
        .scan(..=&3, |id, _| id)
        .unwrap()
        .collect::<pinrocks::Result<_>>()
        .unwrap();
    assert_eq!(ids, [1, 2, 3]);
    let mut it = names.range(&4..&301).unwrap();
    assert_eq!(it.entry().unwrap().unwrap(), (10, "Edsger"));
    it.seek_to_last();
    assert_eq!(it.entry().unwrap().unwrap(), (300, "Barbara"));
}

#[test]
fn a_decode_error_is_the_last_item_of_a_typed_scan() {
    let (_dir, db) = open_db(&[]);
    let cf = db.default_cf();
    let table: Table<BigEndian<u32>, BigEndian<u32>> = Table::new(cf.clone());
    table.put(&1, &10).unwrap();
    table.put(&2, &20).unwrap();
    cf.writer().put(&3u32.to_be_bytes(), b"bad").unwrap(); // 3 bytes, not 4
    table.put(&4, &40).unwrap();
    let items: Vec<_> = table.scan(.., |k, v| (k, v)).unwrap().collect();
    assert_eq!(items.len(), 3, "{items:?}");
    assert_eq!(items[0].as_ref().unwrap(), &(1, 10));
    assert_eq!(items[1].as_ref().unwrap(), &(2, 20));
    match &items[2] {
        Err(Error::Decode { codec, key, .. }) => {
            assert_eq!(*codec, "BigEndian<u32>");
            assert_eq!(key, &3u32.to_be_bytes());
        }
        other => panic!("expected a decode error, got {other:?}"),
    }
}

/// Flips one byte in the middle of the data blocks of every SST file under `dir`.
fn corrupt_one_block(dir: &std::path::Path) {
    let mut corrupted = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "sst") {
            let mut bytes = std::fs::read(&path).unwrap();
            // Data blocks come first; the index, filter and footer are at the end.
            let at = bytes.len() / 4;
            bytes[at] ^= 0x5A;
            std::fs::write(&path, bytes).unwrap();
            corrupted += 1;
        }
    }
    assert_eq!(corrupted, 1);
}

#[test]
fn a_scan_that_hits_corruption_ends_with_the_error_both_ways() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = create_options();
    options.compression(pinrocks::options::Compression::None);
    let value = |i: u32| vec![(i % 200) as u8 + 1; 1000];
    {
        let db = Db::open(&options, dir.path()).unwrap();
        for i in 0u32..400 {
            db.put(&i.to_be_bytes(), &value(i)).unwrap();
        }
        db.flush().unwrap();
    }
    corrupt_one_block(dir.path());
    let db = Db::open(&options, dir.path()).unwrap();
    let mut checked = pinrocks::ReadOptions::new();
    checked.verify_checksums(true).fill_cache(false);
    let reader = db.reader().options(&checked);
    let key = |k: &[u8]| u32::from_be_bytes(k.try_into().unwrap());

    for backward in [false, true] {
        let entry = |k: &[u8], v: &[u8]| (key(k), v.to_vec());
        let mut items: Vec<_> = if backward {
            reader.scan_rev(.., entry).collect()
        } else {
            reader.scan(.., entry).collect()
        };
        let last = items.pop().expect("some items");
        match last {
            Err(e) => assert_eq!(e.kind(), Some(ErrorKind::Corruption), "{e}"),
            Ok(entry) => panic!("the scan ended at {} without its error", entry.0),
        }
        assert!(
            !items.is_empty() && items.len() < 399,
            "{} entries",
            items.len()
        );
        // Every entry before the error is exact and in order.
        for (n, item) in items.iter().enumerate() {
            let (k, v) = item.as_ref().unwrap();
            let expected = if backward { 399 - n as u32 } else { n as u32 };
            assert_eq!(*k, expected);
            assert_eq!(v, &value(expected));
        }
    }
    // A fused iterator: nothing after the error.
    let mut scan = reader.scan(.., |_, _| ());
    assert!(scan.by_ref().any(|item| item.is_err()));
    assert!(scan.next().is_none());
}

//! Comparators: a custom key order seen through forward and reverse scans, seeks and range
//! bounds (a model under random keys), delete ranges checked in that order, a comparator of
//! another name refused at open, and a panicking comparator stopping the process with a
//! message.

use std::cmp::Ordering;
use std::ops::Bound;

use pinrocks::callbacks::Comparator;
use pinrocks::codec::LittleEndian;
use pinrocks::{Db, Error, Options, WriteBatch};
use proptest::prelude::*;

fn open_ordered(comparator: &Comparator) -> (tempfile::TempDir, Db) {
    let dir = tempfile::tempdir().unwrap();
    let mut options = crate::common::create_options();
    options.comparator(comparator);
    let db = Db::open(&options, dir.path()).unwrap();
    (dir, db)
}

fn keys(db: &Db, range: impl pinrocks::read::KeyRange) -> Vec<Vec<u8>> {
    db.reader()
        .scan(range, |k, _| k.to_vec())
        .collect::<pinrocks::Result<_>>()
        .unwrap()
}

#[test]
fn reverse_bytewise_orders_scans_seeks_and_ranges() {
    let (_dir, db) = open_ordered(&Comparator::reverse_bytewise());
    for k in [&b"a"[..], b"b", b"c", b"d"] {
        db.put(k, k).unwrap();
    }
    assert_eq!(keys(&db, ..), [b"d", b"c", b"b", b"a"]);
    // A range is in the column family's order: from "c" down to "a".
    assert_eq!(keys(&db, &b"c"[..]..&b"a"[..]), [b"c", b"b"]);
    assert_eq!(keys(&db, &b"c"[..]..=&b"a"[..]), [b"c", b"b", b"a"]);
    let backward: Vec<Vec<u8>> = db
        .reader()
        .scan_rev(&b"c"[..]..=&b"a"[..], |k, _| k.to_vec())
        .collect::<pinrocks::Result<_>>()
        .unwrap();
    assert_eq!(backward, [b"a", b"b", b"c"]);
    let mut it = db.reader().iter();
    it.seek(b"bb"); // first key at or after "bb" in reverse order: "b"
    assert_eq!(it.key(), Some(&b"b"[..]));
    it.seek_for_prev(b"bb"); // last key at or before "bb": "c"
    assert_eq!(it.key(), Some(&b"c"[..]));
    // Excluded bounds are found by the comparator's equality.
    let excluded = (Bound::Excluded(&b"d"[..]), Bound::Excluded(&b"a"[..]));
    assert_eq!(keys(&db, excluded), [b"c", b"b"]);
    // The same after a flush and compaction (the order of SST files).
    db.default_cf().flush().unwrap();
    db.compact_range(None, None).unwrap();
    assert_eq!(keys(&db, ..), [b"d", b"c", b"b", b"a"]);
}

#[test]
fn delete_ranges_are_checked_in_the_family_order() {
    let (_dir, db) = open_ordered(&Comparator::reverse_bytewise());
    for k in [&b"a"[..], b"b", b"c", b"d"] {
        db.put(k, k).unwrap();
    }
    // Bytewise inverted, but in order here: removes "c" and "b".
    db.delete_range(b"c", b"a").unwrap();
    assert_eq!(keys(&db, ..), [b"d", b"a"]);
    // Inverted here: refused before RocksDB sees it, the database still writable.
    assert!(matches!(
        db.delete_range(b"a", b"d"),
        Err(Error::InvertedRange { .. })
    ));
    let mut batch = WriteBatch::new();
    batch.writer().delete_range(b"a", b"d").unwrap();
    assert!(matches!(db.write(&batch), Err(Error::InvertedRange { .. })));
    let mut batch = WriteBatch::new();
    batch.writer().delete_range(b"d", b"a").unwrap();
    db.write(&batch).unwrap();
    assert_eq!(keys(&db, ..), [b"a"]);
    // A named family with the order: checked as the range is added.
    let mut options = Options::new();
    options.comparator(&Comparator::reverse_bytewise());
    let cf = db.create_cf("rev", &options).unwrap();
    let mut batch = WriteBatch::new();
    batch.writer().cf(&cf).delete_range(b"d", b"a").unwrap();
    db.write(&batch).unwrap();
    batch.writer().cf(&cf).delete_range(b"a", b"d").unwrap();
    assert!(matches!(db.write(&batch), Err(Error::InvertedRange { .. })));
    db.put(b"z", b"still writable").unwrap();
}

#[test]
fn typed_order_sorts_little_endian_numbers_numerically() {
    let (_dir, db) = open_ordered(&Comparator::typed::<LittleEndian<u32>>("u32le"));
    for n in [70_000u32, 3, 256, 1, 65_536] {
        db.put(&n.to_le_bytes(), b"").unwrap();
    }
    db.put(b"odd", b"").unwrap(); // not a u32: after every number
    let numbers: Vec<Vec<u8>> = [1u32, 3, 256, 65_536, 70_000]
        .iter()
        .map(|n| n.to_le_bytes().to_vec())
        .chain([b"odd".to_vec()])
        .collect();
    assert_eq!(keys(&db, ..), numbers);
    assert_eq!(
        keys(&db, 3u32.to_le_bytes()..65_536u32.to_le_bytes()),
        [3u32.to_le_bytes(), 256u32.to_le_bytes()]
    );
    // Reversed, under its own name.
    let (_dir, db) =
        open_ordered(&Comparator::typed::<LittleEndian<u32>>("u32le").reversed("u32le-desc"));
    for n in [2u32, 1, 300] {
        db.put(&n.to_le_bytes(), b"").unwrap();
    }
    assert_eq!(
        keys(&db, ..),
        [300u32.to_le_bytes(), 2u32.to_le_bytes(), 1u32.to_le_bytes()]
    );
}

#[test]
fn opening_with_another_comparator_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = crate::common::create_options();
    options.comparator(&Comparator::reverse_bytewise());
    let db = Db::open(&options, dir.path()).unwrap();
    db.put(b"k", b"v").unwrap();
    drop(db);
    match Db::open(&crate::common::create_options(), dir.path()) {
        Err(Error::ComparatorMismatch { configured, stored }) => {
            assert_eq!(configured, "leveldb.BytewiseComparator");
            assert_eq!(stored, "rocksdb.ReverseBytewiseComparator");
        }
        other => panic!("{:?}", other.map(|_| ())),
    }
    let mut other = Options::new();
    other.comparator(&Comparator::new("mine", |a, b| a.cmp(b)));
    match Db::open(&other, dir.path()) {
        Err(Error::ComparatorMismatch { configured, .. }) => assert_eq!(configured, "mine"),
        other => panic!("{:?}", other.map(|_| ())),
    }
    // The right one still opens it, with the data as it was.
    let db = Db::open(&options, dir.path()).unwrap();
    assert_eq!(db.get(b"k").unwrap(), Some(b"v".to_vec()));
}

#[test]
fn the_sst_writer_checks_order_with_the_comparator() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = crate::common::create_options();
    options.comparator(&Comparator::reverse_bytewise());
    let db = Db::open(&options, dir.path().join("db")).unwrap();
    let file = dir.path().join("load.sst");
    let mut sst = pinrocks::admin::SstFileWriter::create(&options, &file).unwrap();
    sst.put(b"z", b"1").unwrap();
    sst.put(b"m", b"2").unwrap();
    assert!(matches!(sst.put(b"q", b"3"), Err(Error::KeyOrder { .. })));
    sst.finish().unwrap();
    db.default_cf()
        .ingest(&[&file], &pinrocks::admin::IngestOptions::new())
        .unwrap();
    assert_eq!(keys(&db, ..), [b"z", b"m"]);
}

/// The child: opens a database whose comparator panics once keys are compared.
#[test]
#[ignore = "run by a_panicking_comparator_aborts_with_a_message in a child process"]
fn panicking_comparator_child() {
    let Ok(dir) = std::env::var("PINROCKS_COMPARATOR_DIR") else {
        return;
    };
    let mut options = crate::common::create_options();
    options.comparator(&Comparator::new("explosive", |a, b| {
        if a == b"boom" || b == b"boom" {
            panic!("cannot compare boom");
        }
        a.cmp(b)
    }));
    let db = Db::open(&options, &dir).unwrap();
    db.put(b"a", b"").unwrap();
    db.put(b"boom", b"").unwrap();
    db.put(b"c", b"").unwrap();
    db.default_cf().flush().unwrap();
    println!("not reached");
}

#[test]
fn a_panicking_comparator_aborts_with_a_message() {
    let dir = tempfile::tempdir().unwrap();
    crate::common::aborts_in_child(
        module_path!(),
        "panicking_comparator_child",
        "PINROCKS_COMPARATOR_DIR",
        dir.path(),
        "pinrocks: comparator \"explosive\" panicked (cannot compare boom)",
    );
}

/// Keys decoded as a pair (bucket: first byte ascending, rest descending).
fn pair_order(a: &[u8], b: &[u8]) -> Ordering {
    match (a.split_first(), b.split_first()) {
        (Some((x, xs)), Some((y, ys))) => x.cmp(y).then_with(|| ys.cmp(xs)),
        _ => a.cmp(b),
    }
}

proptest! {
    #![proptest_config(crate::common::proptest_config(48))]

    /// Forward and reverse scans, ranges and seeks agree with a model sorted by the same
    /// order, before and after a flush and compaction.
    #[test]
    fn scans_ranges_and_seeks_follow_the_order(
        written in proptest::collection::btree_set(proptest::collection::vec(0u8..4, 0..4), 0..40),
        lo in proptest::collection::vec(0u8..4, 0..4),
        hi in proptest::collection::vec(0u8..4, 0..4),
        target in proptest::collection::vec(0u8..4, 0..4),
    ) {
        let (_dir, db) = open_ordered(&Comparator::new("pair", pair_order));
        for k in &written {
            db.put(k, k).unwrap();
        }
        let mut model: Vec<Vec<u8>> = written.iter().cloned().collect();
        model.sort_by(|a, b| pair_order(a, b));
        for compacted in [false, true] {
            if compacted {
                db.default_cf().flush().unwrap();
                db.compact_range(None, None).unwrap();
            }
            prop_assert_eq!(keys(&db, ..), model.clone());
            let rev: Vec<Vec<u8>> = db.reader().scan_rev(.., |k, _| k.to_vec()).collect::<pinrocks::Result<_>>().unwrap();
            prop_assert_eq!(rev, model.iter().rev().cloned().collect::<Vec<_>>());
            let in_range: Vec<Vec<u8>> = model.iter()
                .filter(|k| pair_order(k, &lo).is_ge() && pair_order(k, &hi).is_lt())
                .cloned().collect();
            prop_assert_eq!(keys(&db, lo.clone()..hi.clone()), in_range.clone());
            let rev_range: Vec<Vec<u8>> = db.reader().scan_rev(lo.clone()..hi.clone(), |k, _| k.to_vec()).collect::<pinrocks::Result<_>>().unwrap();
            prop_assert_eq!(rev_range, in_range.iter().rev().cloned().collect::<Vec<_>>());
            let mut it = db.reader().iter();
            it.seek(&target);
            prop_assert_eq!(it.key().map(<[u8]>::to_vec), model.iter().find(|k| pair_order(k, &target).is_ge()).cloned());
            it.seek_for_prev(&target);
            prop_assert_eq!(it.key().map(<[u8]>::to_vec), model.iter().rev().find(|k| pair_order(k, &target).is_le()).cloned());
        }
    }
}

#[test]
fn the_comparator_lives_until_every_database_using_it_has_closed() {
    let marker = std::sync::Arc::new(());
    let held = marker.clone();
    let dir = tempfile::tempdir().unwrap();
    let db = {
        let comparator = Comparator::new("held", move |a, b| {
            let _ = &held;
            a.cmp(b)
        });
        let mut options = crate::common::create_options();
        options.comparator(&comparator);
        let db = Db::open(&options, dir.path()).unwrap();
        let cf = db.create_cf("also", &options).unwrap();
        cf.writer().put(b"b", b"").unwrap();
        drop(cf);
        db
    };
    // Options and comparator are gone; the database still sorts with it.
    db.put(b"b", b"").unwrap();
    db.put(b"a", b"").unwrap();
    db.default_cf().flush().unwrap();
    assert_eq!(keys(&db, ..), [b"a", b"b"]);
    assert!(std::sync::Arc::strong_count(&marker) > 1);
    db.drop_cf("also").unwrap();
    drop(db);
    assert_eq!(std::sync::Arc::strong_count(&marker), 1);
}

#[test]
fn prefix_iteration_works_in_reverse_bytewise_order() {
    let (_dir, db) = open_ordered(&Comparator::reverse_bytewise());
    for k in [&b"aa1"[..], b"aa2", b"ab1", b"a"] {
        db.put(k, k).unwrap();
    }
    let forward: Vec<Vec<u8>> = db
        .reader()
        .prefix_iter(b"aa")
        .forward(|k, _| k.to_vec())
        .collect::<pinrocks::Result<_>>()
        .unwrap();
    assert_eq!(forward, [&b"aa2"[..], b"aa1"]);
    let mut it = db.reader().prefix_iter(b"aa");
    it.seek_to_last();
    let backward: Vec<Vec<u8>> = it
        .backward(|k, _| k.to_vec())
        .collect::<pinrocks::Result<_>>()
        .unwrap();
    assert_eq!(backward, [&b"aa1"[..], b"aa2"]);
}

/// An OPTIONS file naming RocksDB's reverse order with u64 timestamps is refused by
/// `StoredOptions::load`: pinrocks would check ranges bytewise in that family and pass an
/// inverted one, which RocksDB refuses only after the WAL took it (the database stops).
/// The plain reverse order is adopted.
#[test]
fn a_stored_reverse_order_with_timestamps_is_refused() {
    use pinrocks::options::{Cache, StoredOptions};
    let dir = tempfile::tempdir().unwrap();
    let mut options = crate::common::create_options();
    options.comparator(&Comparator::reverse_bytewise());
    drop(Db::open(&options, dir.path()).unwrap());
    let cache = Cache::lru(1 << 20);
    assert!(StoredOptions::load(dir.path(), &cache).is_ok());
    let file = crate::common::newest_options_file(dir.path());
    let text = std::fs::read_to_string(&file).unwrap();
    let named = "comparator=rocksdb.ReverseBytewiseComparator\n";
    assert!(text.contains(named), "{text}");
    let stamped = text.replace(
        named,
        "comparator=rocksdb.ReverseBytewiseComparator.u64ts\n",
    );
    std::fs::write(&file, stamped).unwrap();
    match StoredOptions::load(dir.path(), &cache) {
        Err(Error::InvalidInput { what, detail }) => {
            assert_eq!(what, "StoredOptions::load");
            assert!(detail.contains("u64ts"), "{detail}");
        }
        Err(other) => panic!("{other}"),
        Ok(_) => panic!("loaded"),
    }
}

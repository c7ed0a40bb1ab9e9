//! Every read tier returns exactly the bytes written: in the memtable, after a flush and
//! after a compaction, on the default and on a named column family, with default and with
//! given read options.

use crate::common::{every_tier, open_db, patterned, settle, STAGES};
use bytes::BytesMut;
use pinrocks::{ColumnFamily, CopyResult, Db, ReadOptions, Reader};

/// Reads `key` through all four paths and checks each against `expected`.
fn assert_all_tiers(reader: Reader<'_>, key: &[u8], expected: Option<&[u8]>, context: &str) {
    // Vec, pinned, guard, Bytes, buffer, growing buffer, multi-get and scan agree with each
    // other (`every_tier`), and with the value written.
    assert_eq!(
        every_tier(reader, key).as_deref(),
        expected,
        "every tier, {context}"
    );

    // The buffer tier writes the value, and nothing past it.
    let mut buf = vec![0xEEu8; expected.map_or(0, <[u8]>::len) + 3];
    let result = reader.get_into(key, &mut buf).unwrap();
    match expected {
        Some(value) => {
            assert_eq!(
                result,
                CopyResult::Copied(value.len()),
                "buffer tier, {context}"
            );
            assert_eq!(&buf[..value.len()], value, "buffer tier bytes, {context}");
            assert_eq!(
                &buf[value.len()..],
                &[0xEE; 3],
                "bytes past the value, {context}"
            );
        }
        None => assert_eq!(result, CopyResult::NotFound, "buffer tier, {context}"),
    }
}

fn values() -> Vec<(Vec<u8>, Vec<u8>)> {
    [0usize, 1, 8, 100, 4096, 70_000, 1 << 20]
        .iter()
        .enumerate()
        .map(|(i, &len)| (format!("key-{i:02}").into_bytes(), patterned(len, i as u8)))
        .collect()
}

fn check_cf(db: &Db, cf: &ColumnFamily<'_>) {
    let values = values();
    for stage in STAGES {
        for (key, value) in &values {
            cf.writer().put(key, value).unwrap();
        }
        settle(&[cf], stage);
        let mut no_cache = ReadOptions::new();
        no_cache.fill_cache(false).verify_checksums(true);
        for (key, value) in &values {
            let context = format!("{} {stage:?} {}", cf.name(), value.len());
            assert_all_tiers(cf.reader(), key, Some(value), &context);
            assert_all_tiers(cf.reader().options(&no_cache), key, Some(value), &context);
            // The same family chosen on a database-wide reader.
            assert_all_tiers(db.reader().cf(cf), key, Some(value), &context);
        }
        assert_all_tiers(cf.reader(), b"absent", None, &format!("{stage:?} missing"));
        for (key, _) in &values {
            cf.writer().delete(key).unwrap();
        }
        for (key, _) in &values {
            assert_all_tiers(cf.reader(), key, None, &format!("{stage:?} deleted"));
        }
    }
}

#[test]
fn default_column_family_every_stage() {
    let (_dir, db) = open_db(&[]);
    check_cf(&db, &db.default_cf());
}

#[test]
fn named_column_family_every_stage() {
    let (_dir, db) = open_db(&["users"]);
    let users = db.cf("users").unwrap();
    check_cf(&db, &users);
}

#[test]
fn column_families_are_separate_key_spaces() {
    let (_dir, db) = open_db(&["a", "b"]);
    let (a, b) = (db.cf("a").unwrap(), db.cf("b").unwrap());
    db.put(b"k", b"default").unwrap();
    a.writer().put(b"k", b"in a").unwrap();
    b.writer().put(b"k", b"in b").unwrap();
    for stage in STAGES {
        for cf in [&db.default_cf(), &a, &b] {
            settle(&[cf], stage);
        }
        assert_all_tiers(db.reader(), b"k", Some(b"default"), "default");
        assert_all_tiers(a.reader(), b"k", Some(b"in a"), "a");
        assert_all_tiers(b.reader(), b"k", Some(b"in b"), "b");
    }
}

#[test]
fn not_enough_capacity_reports_exact_size_and_leaves_buffer_untouched() {
    let (_dir, db) = open_db(&[]);
    let value = patterned(1000, 7);
    db.put(b"k", &value).unwrap();
    for stage in STAGES {
        settle(&[&db.default_cf()], stage);
        for capacity in [0usize, 1, 999] {
            let mut buf = vec![0xA5u8; capacity];
            let result = db.get_into(b"k", &mut buf).unwrap();
            assert_eq!(result, CopyResult::NotEnoughCapacity { required: 1000 });
            assert!(
                buf.iter().all(|&b| b == 0xA5),
                "{stage:?}: buffer of {capacity} was written"
            );
        }
        let mut exact = vec![0u8; 1000];
        assert_eq!(
            db.get_into(b"k", &mut exact).unwrap(),
            CopyResult::Copied(1000)
        );
        assert_eq!(exact, value);
    }
}

#[test]
fn growing_buffer_reuses_capacity_and_replaces_contents() {
    let (_dir, db) = open_db(&[]);
    db.put(b"big", &patterned(5000, 1)).unwrap();
    db.put(b"small", b"tiny").unwrap();
    let mut buf = BytesMut::from(&b"stale contents"[..]);
    assert!(db.reader().get_into_bytes(b"big", &mut buf).unwrap());
    assert_eq!(&buf[..], &patterned(5000, 1)[..]);
    let capacity = buf.capacity();
    assert!(capacity >= 5000);
    assert!(db.reader().get_into_bytes(b"small", &mut buf).unwrap());
    assert_eq!(&buf[..], b"tiny");
    assert_eq!(
        buf.capacity(),
        capacity,
        "a fitting value must not reallocate"
    );
    assert!(!db.reader().get_into_bytes(b"absent", &mut buf).unwrap());
    assert!(buf.is_empty());
}

#[test]
fn empty_key_zero_length_value_and_nul_bytes() {
    let (_dir, db) = open_db(&[]);
    let cases: [(&[u8], &[u8]); 4] = [
        (b"", b"value of the empty key"),
        (b"empty value", b""),
        (b"\0", b"\0\0\0"),
        (b"a\0b\0", b"x\0y\0z"),
    ];
    for (key, value) in cases {
        db.put(key, value).unwrap();
    }
    for stage in STAGES {
        settle(&[&db.default_cf()], stage);
        for (key, value) in cases {
            assert_all_tiers(db.reader(), key, Some(value), &format!("{stage:?} {key:?}"));
        }
        // The key "a" is not the key "a\0b\0": NUL bytes are part of keys.
        assert_all_tiers(db.reader(), b"a", None, "prefix before NUL");
    }
    // A zero-length value fits an empty buffer.
    assert_eq!(
        db.get_into(b"empty value", &mut []).unwrap(),
        CopyResult::Copied(0)
    );
}

#[test]
fn snapshot_reads_see_the_past() {
    let (_dir, db) = open_db(&[]);
    db.put(b"k", b"before").unwrap();
    let snapshot = db.snapshot();
    db.put(b"k", b"after").unwrap();
    db.put(b"new", b"x").unwrap();
    let mut at_snapshot = ReadOptions::new();
    at_snapshot.snapshot(&snapshot);
    drop(snapshot); // the read options keep it alive
    for stage in STAGES {
        settle(&[&db.default_cf()], stage);
        assert_all_tiers(
            db.reader().options(&at_snapshot),
            b"k",
            Some(b"before"),
            "snapshot",
        );
        assert_all_tiers(
            db.reader().options(&at_snapshot),
            b"new",
            None,
            "snapshot new",
        );
        assert_all_tiers(db.reader(), b"k", Some(b"after"), "latest");
    }
}

#[test]
fn write_batch_is_atomic_across_column_families() {
    let (_dir, db) = open_db(&["other"]);
    let other = db.cf("other").unwrap();
    db.put(b"gone", b"1").unwrap();
    for k in [b"r1", b"r2", b"r3"] {
        other.writer().put(k, b"range").unwrap();
    }
    let mut batch = pinrocks::WriteBatch::new();
    batch.writer().put(b"a", b"default a").unwrap();
    batch.writer().cf(&other).put(b"a", b"other a").unwrap();
    batch.writer().delete(b"gone").unwrap();
    batch
        .writer()
        .cf(&other)
        .delete_range(b"r1", b"r3")
        .unwrap();
    assert_eq!(batch.len(), 4);
    db.write(&batch).unwrap();
    assert_eq!(db.get(b"a").unwrap().as_deref(), Some(&b"default a"[..]));
    assert_eq!(
        other.reader().get(b"a").unwrap().as_deref(),
        Some(&b"other a"[..])
    );
    assert_eq!(db.get(b"gone").unwrap(), None);
    assert_eq!(other.reader().get(b"r1").unwrap(), None);
    assert_eq!(other.reader().get(b"r2").unwrap(), None);
    assert_eq!(
        other.reader().get(b"r3").unwrap().as_deref(),
        Some(&b"range"[..])
    );
    batch.clear();
    assert!(batch.is_empty());
}

#[test]
fn delete_range_removes_half_open_interval() {
    let (_dir, db) = open_db(&[]);
    for i in 0u8..10 {
        db.put(&[i], &[i; 3]).unwrap();
    }
    db.flush().unwrap();
    db.delete_range(&[3], &[7]).unwrap();
    for stage in STAGES {
        settle(&[&db.default_cf()], stage);
        for i in 0u8..10 {
            let expected = if (3..7).contains(&i) {
                None
            } else {
                Some(vec![i; 3])
            };
            assert_eq!(db.get(&[i]).unwrap(), expected, "{stage:?} key {i}");
        }
    }
}

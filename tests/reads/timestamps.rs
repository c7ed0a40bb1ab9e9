//! User-defined timestamps: versions written at timestamps and read as of each through every
//! tier, from the memtable, SST files and after compaction; the value's timestamp; range
//! deletes and merges at a timestamp; batches and their bytes; the typed error for a missing
//! or unwanted timestamp wherever a read or write can go; the `rocksdb` crate's timestamps.
//! (History cursors and `full_history_ts_low`: `timestamp_history.rs`.)

use pinrocks::options::TransactionDbOptions;
use pinrocks::{Db, Error, Options, ReadOptions, WriteBatch};

use crate::common::{append, create_options, every_tier, settle, STAGES};
pub(crate) fn versioned() -> Options {
    let mut options = create_options();
    options.u64_timestamps().merge_operator(&append());
    options
}

pub(crate) fn at(ts: u64) -> ReadOptions {
    let mut options = ReadOptions::new();
    options.timestamp(ts);
    options
}

pub(crate) fn mismatch<T: std::fmt::Debug>(
    result: pinrocks::Result<T>,
    expected: usize,
    given: usize,
) {
    match result {
        Err(Error::TimestampMismatch {
            expected: e,
            given: g,
            ..
        }) if (e, g) == (expected, given) => {}
        other => panic!("expected TimestampMismatch {{ {expected}, {given} }}, got {other:?}"),
    }
}

/// What `key` holds as of each timestamp from 0 to 60: put at 10, 20 and 30, deleted at 40,
/// put again at 50.
fn expected(ts: u64) -> Option<&'static [u8]> {
    match ts {
        0..=9 => None,
        10..=19 => Some(b"ten"),
        20..=29 => Some(b"twenty"),
        30..=39 => Some(b"thirty"),
        40..=49 => None,
        _ => Some(b"fifty"),
    }
}

#[test]
fn versions_read_as_of_every_timestamp_through_every_tier() {
    for stage in STAGES {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(&create_options(), dir.path()).unwrap();
        let cf = db.create_cf("versions", &versioned()).unwrap();
        cf.writer().at(10).put(b"k", b"ten").unwrap();
        cf.writer().at(20).put(b"k", b"twenty").unwrap();
        cf.writer().at(30).put(b"k", b"thirty").unwrap();
        cf.writer().at(40).delete(b"k").unwrap();
        cf.writer().at(50).put(b"k", b"fifty").unwrap();
        cf.writer().at(5).put(b"other", b"early").unwrap();
        settle(&[&cf], stage);
        for ts in 0..=60 {
            let options = at(ts);
            let reader = cf.reader().options(&options);
            let want = expected(ts).map(<[u8]>::to_vec);
            assert_eq!(every_tier(reader, b"k"), want, "{stage:?} at {ts}");
            let written = [10, 20, 30, 50].into_iter().filter(|&w| w <= ts).max();
            let seen = reader
                .get_with_timestamp(b"k", |v, w| (v.to_vec(), w))
                .unwrap();
            match (&want, written) {
                (Some(value), Some(w)) if !(40..50).contains(&ts) => {
                    assert_eq!(seen, Some((value.clone(), w)), "{stage:?} at {ts}")
                }
                _ => assert_eq!(seen, None, "{stage:?} at {ts}"),
            }
            // A cursor sees each key's newest version at `ts`, with its timestamp.
            let mut cursor = reader.iter();
            cursor.seek_to_first();
            let mut scanned = Vec::new();
            while let Some((key, value)) = cursor.entry() {
                scanned.push((key.to_vec(), value.to_vec(), cursor.timestamp().unwrap()));
                assert_eq!(cursor.version(), None, "not a history read");
                cursor.next();
            }
            cursor.status().unwrap();
            let mut want_scan = Vec::new();
            if let (Some(value), Some(w)) = (expected(ts), written) {
                want_scan.push((b"k".to_vec(), value.to_vec(), w));
            }
            if ts >= 5 {
                want_scan.push((b"other".to_vec(), b"early".to_vec(), 5));
            }
            assert_eq!(scanned, want_scan, "{stage:?} at {ts}");
        }
    }
}

#[test]
fn range_deletes_and_merges_take_effect_at_their_timestamp() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(&create_options(), dir.path()).unwrap();
    let cf = db.create_cf("versions", &versioned()).unwrap();
    for key in [b"a", b"b", b"c"] {
        cf.writer().at(10).put(key, b"v").unwrap();
    }
    cf.writer().at(20).delete_range(b"a", b"c").unwrap();
    cf.writer().at(30).merge(b"c", b"w").unwrap();
    for stage in STAGES {
        settle(&[&cf], stage);
        let scan = |ts| {
            let options = at(ts);
            let entries: Vec<(Vec<u8>, Vec<u8>)> = cf
                .reader()
                .options(&options)
                .scan(.., |k, v| (k.to_vec(), v.to_vec()))
                .collect::<pinrocks::Result<_>>()
                .unwrap();
            entries
        };
        let v = |k: &[u8], v: &[u8]| (k.to_vec(), v.to_vec());
        assert_eq!(
            scan(19),
            [v(b"a", b"v"), v(b"b", b"v"), v(b"c", b"v")],
            "{stage:?}"
        );
        assert_eq!(scan(20), [v(b"c", b"v")], "{stage:?}");
        assert_eq!(scan(30), [v(b"c", b"vw")], "{stage:?}");
    }
    // An inverted range is refused as on any family.
    assert!(matches!(
        cf.writer().at(40).delete_range(b"z", b"a"),
        Err(Error::InvertedRange { .. })
    ));
}

#[test]
fn a_batch_writes_at_timestamps_and_from_its_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(&create_options(), dir.path()).unwrap();
    let cf = db.create_cf("versions", &versioned()).unwrap();
    let mut batch = WriteBatch::new();
    batch.writer().cf(&cf).at(7).put(b"a", b"seven").unwrap();
    batch.writer().cf(&cf).at(8).put(b"b", b"eight").unwrap();
    batch.writer().cf(&cf).at(9).delete(b"a").unwrap();
    batch.writer().put(b"plain", b"default family").unwrap();
    let bytes = batch.as_bytes().to_vec();
    db.write(&batch).unwrap();
    let read = |ts| {
        let options = at(ts);
        let r = cf.reader().options(&options);
        (r.get(b"a").unwrap(), r.get(b"b").unwrap())
    };
    assert_eq!(read(7), (Some(b"seven".to_vec()), None));
    assert_eq!(read(8), (Some(b"seven".to_vec()), Some(b"eight".to_vec())));
    assert_eq!(read(9), (None, Some(b"eight".to_vec())));
    assert_eq!(
        db.get(b"plain").unwrap().as_deref(),
        Some(&b"default family"[..])
    );

    // The same batch from its bytes, into another database with the same families: the
    // timestamps travel inside the keys, as RocksDB stores them.
    let other_dir = tempfile::tempdir().unwrap();
    let other = Db::open(&create_options(), other_dir.path()).unwrap();
    let other_cf = other.create_cf("versions", &versioned()).unwrap();
    other
        .write(&WriteBatch::from_bytes(&other, &bytes).unwrap())
        .unwrap();
    let options = at(8);
    let r = other_cf.reader().options(&options);
    assert_eq!(
        r.get_with_timestamp(b"a", |v, ts| (v.to_vec(), ts))
            .unwrap(),
        Some((b"seven".to_vec(), 7))
    );
    assert_eq!(r.get(b"b").unwrap().as_deref(), Some(&b"eight"[..]));
    assert_eq!(
        other.get(b"plain").unwrap().as_deref(),
        Some(&b"default family"[..])
    );
}

#[test]
fn a_timestamp_missing_or_unwanted_is_a_typed_error_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(&create_options(), dir.path()).unwrap();
    let cf = db.create_cf("versions", &versioned()).unwrap();
    cf.writer().at(1).put(b"k", b"v").unwrap();

    // Reads without a timestamp, every tier and a cursor.
    let r = cf.reader();
    mismatch(r.get(b"k"), 8, 0);
    mismatch(r.get_pinned(b"k", |v| v.len()), 8, 0);
    mismatch(r.get_into(b"k", &mut [0u8; 4]), 8, 0);
    mismatch(r.get_into_bytes(b"k", &mut bytes::BytesMut::new()), 8, 0);
    mismatch(r.pin(b"k").map(|p| p.map(|p| p.to_vec())), 8, 0);
    mismatch(r.get_bytes(b"k"), 8, 0);
    mismatch(r.multi_get_pinned(&[b"k"], |_, _| {}), 8, 0);
    mismatch(r.get_entity(b"k", |c| c.len()), 8, 0);
    mismatch(r.get_with_timestamp(b"k", |_, ts| ts), 8, 0);
    let mut cursor = r.iter();
    cursor.seek_to_first();
    assert_eq!(cursor.key(), None);
    mismatch(cursor.status(), 8, 0);
    let scanned: Vec<_> = r.scan(.., |k, _| k.to_vec()).collect();
    assert_eq!(scanned.len(), 1);
    mismatch(scanned.into_iter().next().unwrap(), 8, 0);
    // A history start without a timestamp to end at.
    let mut start_only = ReadOptions::new();
    start_only.iter_start_timestamp(0);
    let mut cursor = cf.reader().options(&start_only).iter();
    cursor.seek_to_first();
    mismatch(cursor.status(), 8, 0);

    // Reads of a family without timestamps, with one.
    db.put(b"k", b"plain").unwrap();
    let options = at(5);
    mismatch(db.reader().options(&options).get(b"k"), 0, 8);
    mismatch(db.reader().options(&options).iter().status(), 0, 8);
    mismatch(db.reader().options(&start_only).iter().status(), 0, 8);

    // Writes: none to the family with timestamps, one to the family without.
    mismatch(cf.writer().put(b"k", b"v"), 8, 0);
    mismatch(cf.writer().delete(b"k"), 8, 0);
    mismatch(cf.writer().merge(b"k", b"v"), 8, 0);
    mismatch(cf.writer().delete_range(b"a", b"b"), 8, 0);
    mismatch(db.writer().at(3).put(b"k", b"v"), 0, 8);
    mismatch(cf.writer().put_entity(b"k", &[("", "v")]), 8, 0);
    assert!(matches!(
        cf.writer().at(3).put_entity(b"k", &[("", "v")]),
        Err(Error::InvalidInput { .. })
    ));
    let mut batch = WriteBatch::new();
    mismatch(batch.writer().cf(&cf).put(b"k", b"v"), 8, 0);
    assert!(matches!(
        batch.writer().at(3).put(b"k", b"v"),
        Err(Error::InvalidInput { .. })
    ));
    assert_eq!(batch.len(), 0);
    let options = at(u64::MAX);
    assert_eq!(
        cf.reader().options(&options).get(b"k").unwrap().as_deref(),
        Some(&b"v"[..])
    );
    assert_eq!(db.get(b"k").unwrap().as_deref(), Some(&b"plain"[..]));
}

#[test]
fn a_default_family_with_timestamps_refuses_a_batch_without_its_handle() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(&versioned(), dir.path()).unwrap();
    db.writer().at(1).put(b"k", b"v").unwrap();
    let mut batch = WriteBatch::new();
    batch.writer().put(b"k", b"no timestamp").unwrap();
    mismatch(db.write(&batch), 8, 0);
    let default = db.cf("default").unwrap();
    let mut batch = WriteBatch::new();
    batch.writer().cf(&default).at(2).put(b"k", b"two").unwrap();
    db.write(&batch).unwrap();
    let options = at(2);
    assert_eq!(
        db.reader().options(&options).get(b"k").unwrap().as_deref(),
        Some(&b"two"[..])
    );
    let options = at(1);
    assert_eq!(
        db.reader().options(&options).get(b"k").unwrap().as_deref(),
        Some(&b"v"[..])
    );
}

#[test]
fn transactions_and_indexed_batches_refuse_families_with_timestamps() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open_transaction_db(
        &versioned(),
        &TransactionDbOptions::new(),
        dir.path(),
        std::iter::empty(),
    )
    .unwrap();
    mismatch(db.put(b"k", b"v"), 8, 0);
    assert!(matches!(
        db.writer().at(1).put(b"k", b"v"),
        Err(Error::WrongKind { .. })
    ));
    let mut txn = db
        .transaction(
            &pinrocks::WriteOptions::new(),
            &pinrocks::options::TransactionOptions::new(),
        )
        .unwrap();
    assert!(matches!(
        txn.writer().at(1).put(b"k", b"v"),
        Err(Error::InvalidInput { .. })
    ));
    let options = at(1);
    assert!(matches!(
        txn.reader().options(&options).get(b"k"),
        Err(Error::InvalidInput { .. })
    ));
    assert!(matches!(
        txn.reader().options(&options).iter().status(),
        Err(Error::InvalidInput { .. })
    ));
    let mut batch = db.indexed_batch().unwrap();
    assert!(matches!(
        batch.writer().at(1).put(b"k", b"v"),
        Err(Error::InvalidInput { .. })
    ));
    assert!(matches!(
        batch.reader().options(&options).get(b"k"),
        Err(Error::InvalidInput { .. })
    ));
}

/// The `rocksdb` crate's comparator with timestamps, ordered and named as RocksDB's
/// built-in u64 one: bytewise on the key, then newest timestamp first.
fn peer_family() -> rocksdb::ColumnFamilyDescriptor {
    fn strip(key: &[u8], has_ts: bool) -> &[u8] {
        if has_ts {
            &key[..key.len() - 8]
        } else {
            key
        }
    }
    fn ts(bytes: &[u8]) -> u64 {
        u64::from_le_bytes(bytes[bytes.len() - 8..].try_into().unwrap())
    }
    let mut options = rocksdb::Options::default();
    options.set_comparator_with_ts(
        "leveldb.BytewiseComparator.u64ts",
        8,
        Box::new(|a, b| {
            strip(a, true)
                .cmp(strip(b, true))
                .then_with(|| ts(b).cmp(&ts(a)))
        }),
        Box::new(|a, b| ts(a).cmp(&ts(b))),
        Box::new(|a, a_ts, b, b_ts| strip(a, a_ts).cmp(strip(b, b_ts))),
    );
    rocksdb::ColumnFamilyDescriptor::new("versions", options)
}

fn open_peer(dir: &std::path::Path) -> rocksdb::DB {
    let mut options = rocksdb::Options::default();
    options.create_if_missing(true);
    options.create_missing_column_families(true);
    rocksdb::DB::open_cf_descriptors(&options, dir, [peer_family()]).unwrap()
}

#[test]
fn timestamps_written_by_the_rocksdb_crate_are_read_by_pinrocks_and_back() {
    let dir = tempfile::tempdir().unwrap();
    let ts = |t: u64| t.to_le_bytes();
    {
        let db = open_peer(dir.path());
        let cf = db.cf_handle("versions").unwrap();
        db.put_cf_with_ts(&cf, b"k", ts(10), b"ten").unwrap();
        db.put_cf_with_ts(&cf, b"k", ts(20), b"twenty").unwrap();
        db.delete_cf_with_ts(&cf, b"k", ts(30)).unwrap();
        db.flush_cf(&cf).unwrap();
        db.put_cf_with_ts(&cf, b"j", ts(15), b"jay").unwrap();
    }
    {
        let options = versioned();
        let db = Db::open_with(&create_options(), dir.path(), [("versions", &options)]).unwrap();
        let cf = db.cf("versions").unwrap();
        for (t, want) in [
            (5, None),
            (10, Some(&b"ten"[..])),
            (25, Some(b"twenty")),
            (35, None),
        ] {
            let options = at(t);
            assert_eq!(
                every_tier(cf.reader().options(&options), b"k").as_deref(),
                want,
                "at {t}"
            );
        }
        let options = at(35);
        let r = cf.reader().options(&options);
        assert_eq!(
            r.get_with_timestamp(b"j", |v, t| (v.to_vec(), t)).unwrap(),
            Some((b"jay".to_vec(), 15))
        );
        cf.writer().at(40).put(b"k", b"forty").unwrap();
        cf.writer().at(41).delete(b"j").unwrap();
    }
    let db = open_peer(dir.path());
    let cf = db.cf_handle("versions").unwrap();
    let read = |t: u64, key: &[u8]| {
        let mut ro = rocksdb::ReadOptions::default();
        ro.set_timestamp(ts(t));
        db.get_cf_opt(&cf, key, &ro).unwrap()
    };
    assert_eq!(read(40, b"k").as_deref(), Some(&b"forty"[..]));
    assert_eq!(read(39, b"k"), None);
    assert_eq!(read(40, b"j").as_deref(), Some(&b"jay"[..]));
    assert_eq!(read(41, b"j"), None);
    assert_eq!(read(20, b"k").as_deref(), Some(&b"twenty"[..]));
}

#[test]
fn ttl_and_transaction_databases_refuse_timestamped_batches() {
    let options = at(1);
    {
        let dir = tempfile::tempdir().unwrap();
        let ttl = std::time::Duration::from_secs(3600);
        let db = Db::open_with_ttl(&versioned(), dir.path(), ttl).unwrap();
        let default = db.cf("default").unwrap();
        let mut batch = WriteBatch::new();
        batch.writer().cf(&default).at(1).put(b"k", b"v").unwrap();
        assert!(matches!(db.write(&batch), Err(Error::WrongKind { .. })));
        assert!(matches!(
            db.writer().at(1).put(b"k", b"v"),
            Err(Error::WrongKind { .. })
        ));
        let read = db.reader().options(&options).get(b"k");
        assert!(matches!(read, Err(Error::WrongKind { .. })));
    }

    let dir = tempfile::tempdir().unwrap();
    let db =
        Db::open_optimistic_transaction_db(&versioned(), dir.path(), std::iter::empty()).unwrap();
    let default = db.cf("default").unwrap();
    let mut batch = WriteBatch::new();
    batch.writer().cf(&default).at(1).put(b"k", b"v").unwrap();
    assert!(matches!(db.write(&batch), Err(Error::WrongKind { .. })));
    // Reads of the database itself still work at a timestamp (nothing was written).
    assert_eq!(db.reader().options(&options).get(b"k").unwrap(), None);
}

//! The other kinds of database: TTL databases (values read without their timestamps through
//! every tier, expiry at compaction, per-family TTLs, the wrong kind of open refused) and
//! secondary instances (seeing the primary's writes after a catch-up and not before).

use std::time::Duration;

use crate::common::every_tier;
use pinrocks::admin::{IngestOptions, SstFileWriter};
use pinrocks::callbacks::MergeOperator;
use pinrocks::codec::BigEndian;
use pinrocks::{Db, Error, ErrorKind};

#[test]
fn a_ttl_database_reads_values_without_timestamps_and_expires_them_at_compaction() {
    let dir = tempfile::tempdir().unwrap();
    let options = crate::common::create_options();
    let db = Db::open_with_ttls(
        &options,
        dir.path(),
        [
            ("default", &options, Duration::from_secs(1)),
            ("forever", &options, Duration::ZERO),
        ],
    )
    .unwrap();
    let forever = db.cf("forever").unwrap();
    let value = crate::common::patterned(5000, 3);
    db.put(b"short", &value).unwrap();
    forever.writer().put(b"long", &value).unwrap();
    let mut batch = pinrocks::WriteBatch::new();
    batch.writer().put(b"batched", b"b").unwrap();
    db.write(&batch).unwrap();
    for stage in crate::common::STAGES {
        crate::common::settle(&[&db.default_cf(), &forever], stage);
        assert_eq!(
            every_tier(db.reader(), b"short"),
            Some(value.clone()),
            "{stage:?}"
        );
        assert_eq!(
            every_tier(db.reader(), b"batched"),
            Some(b"b".to_vec()),
            "{stage:?}"
        );
        assert_eq!(
            every_tier(forever.reader(), b"long"),
            Some(value.clone()),
            "{stage:?}"
        );
    }
    // Expired entries stay readable until a compaction removes them.
    std::thread::sleep(Duration::from_millis(2100));
    db.put(b"fresh", b"f").unwrap();
    assert_eq!(db.get(b"short").unwrap(), Some(value.clone()));
    db.compact_range(None, None).unwrap();
    forever.compact_range(None, None).unwrap();
    assert_eq!(every_tier(db.reader(), b"short"), None);
    assert_eq!(every_tier(db.reader(), b"batched"), None);
    assert_eq!(every_tier(db.reader(), b"fresh"), Some(b"f".to_vec()));
    assert_eq!(every_tier(forever.reader(), b"long"), Some(value));
}

#[test]
fn a_ttl_database_merges_and_creates_families_with_their_own_ttl() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = crate::common::create_options();
    options.merge_operator(&MergeOperator::fold::<BigEndian<u64>>("add", |a, b| a + b));
    let db = Db::open_with_ttl(&options, dir.path(), Duration::from_secs(3600)).unwrap();
    db.merge(b"n", &2u64.to_be_bytes()).unwrap();
    db.merge(b"n", &3u64.to_be_bytes()).unwrap();
    assert_eq!(
        every_tier(db.reader(), b"n"),
        Some(5u64.to_be_bytes().to_vec())
    );
    db.flush().unwrap();
    db.compact_range(None, None).unwrap();
    assert_eq!(
        every_tier(db.reader(), b"n"),
        Some(5u64.to_be_bytes().to_vec())
    );
    let cf = db
        .create_cf_with_ttl("hourly", &options, Duration::from_secs(3600))
        .unwrap();
    cf.writer().put(b"k", b"v").unwrap();
    assert_eq!(every_tier(cf.reader(), b"k"), Some(b"v".to_vec()));
    drop(cf);
    drop(db);
    // Reopened with a TTL: every family, values intact.
    let db = Db::open_with_ttl(&options, dir.path(), Duration::from_secs(3600)).unwrap();
    assert_eq!(
        every_tier(db.cf("hourly").unwrap().reader(), b"k"),
        Some(b"v".to_vec())
    );
}

#[test]
fn the_wrong_kind_of_open_is_refused_and_opens_nothing() {
    let ttl_dir = tempfile::tempdir().unwrap();
    let options = crate::common::create_options();
    let db = Db::open_with_ttl(&options, ttl_dir.path(), Duration::from_secs(60)).unwrap();
    db.put(b"k", b"v").unwrap();
    drop(db);
    for open in [
        Db::open(&options, ttl_dir.path()),
        Db::open_read_only(&options, ttl_dir.path()),
    ] {
        assert!(
            matches!(
                open,
                Err(Error::TtlMismatch {
                    stored_with_ttl: true
                })
            ),
            "{:?}",
            open.map(|_| ())
        );
    }
    let plain_dir = tempfile::tempdir().unwrap();
    let db = Db::open(&options, plain_dir.path()).unwrap();
    db.put(b"k", b"v").unwrap();
    drop(db);
    let open = Db::open_with_ttl(&options, plain_dir.path(), Duration::from_secs(60));
    assert!(
        matches!(
            open,
            Err(Error::TtlMismatch {
                stored_with_ttl: false
            })
        ),
        "{:?}",
        open.map(|_| ())
    );
    // Both still open as what they are.
    let db = Db::open_with_ttl(&options, ttl_dir.path(), Duration::from_secs(60)).unwrap();
    assert_eq!(db.get(b"k").unwrap(), Some(b"v".to_vec()));
    assert_eq!(
        Db::open(&options, plain_dir.path())
            .unwrap()
            .get(b"k")
            .unwrap(),
        Some(b"v".to_vec())
    );
}

#[test]
fn files_without_timestamps_are_not_ingested_into_a_ttl_database() {
    let dir = tempfile::tempdir().unwrap();
    let options = crate::common::create_options();
    let db = Db::open_with_ttl(&options, dir.path().join("db"), Duration::from_secs(60)).unwrap();
    let file = dir.path().join("f.sst");
    let mut sst = SstFileWriter::create(&options, &file).unwrap();
    sst.put(b"k", b"v").unwrap();
    sst.finish().unwrap();
    let err = db.ingest(&[&file], &IngestOptions::new()).unwrap_err();
    assert!(
        matches!(err, Error::InvalidInput { what: "ingest", .. }),
        "{err}"
    );
    assert_eq!(db.get(b"k").unwrap(), None);
}

#[test]
fn a_secondary_sees_the_primary_after_catching_up_and_not_before() {
    let dir = tempfile::tempdir().unwrap();
    let primary_path = dir.path().join("primary");
    let mut options = crate::common::create_options();
    options.max_open_files(-1);
    let primary = Db::open_cf(&options, &primary_path, ["events"]).unwrap();
    primary.put(b"a", b"1").unwrap();
    primary.flush().unwrap();
    let secondary =
        Db::open_as_secondary(&options, &primary_path, dir.path().join("secondary")).unwrap();
    assert_eq!(secondary.cf_names(), ["default", "events"]);
    assert_eq!(every_tier(secondary.reader(), b"a"), Some(b"1".to_vec()));
    // New writes: in the WAL only, and flushed to a new file.
    primary.put(b"b", b"2").unwrap();
    primary
        .cf("events")
        .unwrap()
        .writer()
        .put(b"e", b"3")
        .unwrap();
    primary.put(b"a", b"1'").unwrap();
    primary.flush().unwrap();
    primary.put(b"c", b"4").unwrap();
    assert_eq!(every_tier(secondary.reader(), b"b"), None);
    assert_eq!(every_tier(secondary.reader(), b"a"), Some(b"1".to_vec()));
    secondary.try_catch_up_with_primary().unwrap();
    assert_eq!(every_tier(secondary.reader(), b"a"), Some(b"1'".to_vec()));
    assert_eq!(every_tier(secondary.reader(), b"b"), Some(b"2".to_vec()));
    assert_eq!(every_tier(secondary.reader(), b"c"), Some(b"4".to_vec()));
    let events = secondary.cf("events").unwrap();
    assert_eq!(every_tier(events.reader(), b"e"), Some(b"3".to_vec()));
    // Read-only: every change refused before RocksDB sees it.
    assert!(matches!(
        secondary.put(b"x", b"y"),
        Err(Error::ReadOnly { operation: "put" })
    ));
    assert!(matches!(
        secondary.create_cf("new", &options),
        Err(Error::ReadOnly { .. })
    ));
    // A compaction on the primary (files replaced) is followed too.
    primary.compact_range(None, None).unwrap();
    secondary.try_catch_up_with_primary().unwrap();
    assert_eq!(every_tier(secondary.reader(), b"b"), Some(b"2".to_vec()));
}

#[test]
fn a_secondary_needs_a_primary_and_catching_up_needs_a_secondary() {
    let dir = tempfile::tempdir().unwrap();
    let options = crate::common::create_options();
    let err = Db::open_as_secondary(&options, dir.path().join("absent"), dir.path().join("s"))
        .unwrap_err();
    assert!(matches!(err, Error::RocksDb { .. }), "{err}");
    let (_dir, db) = crate::common::open_db(&[]);
    let err = db.try_catch_up_with_primary().unwrap_err();
    assert_eq!(err.kind(), Some(ErrorKind::NotSupported), "{err}");
}

#[test]
fn a_ttl_database_with_a_compaction_filter_is_recognised_and_subsecond_ttls_expire() {
    let dir = tempfile::tempdir().unwrap();
    {
        // The rocksdb crate sets a compaction filter (not a factory): DBWithTTL wraps it.
        let mut options = rocksdb::Options::default();
        options.create_if_missing(true);
        options.set_compaction_filter("keep", |_, _, _| rocksdb::CompactionDecision::Keep);
        let db = rocksdb::DB::open_with_ttl(&options, dir.path(), Duration::from_secs(60)).unwrap();
        db.put(b"k", b"v").unwrap();
    }
    let options = crate::common::create_options();
    assert!(matches!(
        Db::open(&options, dir.path()),
        Err(Error::TtlMismatch {
            stored_with_ttl: true
        })
    ));
    let db = Db::open_with_ttl(&options, dir.path(), Duration::from_millis(500)).unwrap();
    assert_eq!(every_tier(db.reader(), b"k"), Some(b"v".to_vec()));
    db.put(b"short", b"lived").unwrap();
    std::thread::sleep(Duration::from_millis(2100));
    db.compact_range(None, None).unwrap();
    // Half a second is one second, not RocksDB's zero (forever).
    assert_eq!(every_tier(db.reader(), b"short"), None);
}

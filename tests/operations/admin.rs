//! Column family lifecycle, properties, reopening and option round trips.

use crate::common::{create_options, open_db, patterned};
use pinrocks::options::Compression;
use pinrocks::{Db, Error, Options, WriteOptions};

#[test]
fn create_drop_and_look_up_column_families() {
    let (dir, db) = open_db(&[]);
    assert_eq!(db.cf_names(), ["default"]);
    let logs = db.create_cf("logs", &Options::new()).unwrap();
    logs.writer().put(b"line", b"1").unwrap();
    assert_eq!(logs.name(), "logs");
    assert!(db.create_cf("logs", &Options::new()).is_err());
    assert_eq!(db.cf_names(), ["default", "logs"]);
    drop(logs);
    drop(db);

    // `open` finds the existing column families by itself.
    let db = Db::open(&create_options(), dir.path()).unwrap();
    assert_eq!(db.cf_names(), ["default", "logs"]);
    let logs = db.cf("logs").unwrap();
    assert_eq!(
        logs.reader().get(b"line").unwrap().as_deref(),
        Some(&b"1"[..])
    );
    drop(logs);
    db.drop_cf("logs").unwrap();
    assert_eq!(db.cf_names(), ["default"]);
    drop(db);
    assert_eq!(
        Db::list_column_families(&Options::new(), dir.path()).unwrap(),
        ["default"]
    );
}

#[test]
fn a_dropped_column_family_handle_stays_usable_until_released() {
    let (_dir, db) = open_db(&["tmp"]);
    let tmp = db.cf("tmp").unwrap();
    tmp.writer().put(b"k", b"v").unwrap();
    db.drop_cf("tmp").unwrap();
    assert!(db.cf("tmp").is_err());
    // RocksDB keeps a dropped family's data readable through handles still held.
    assert_eq!(tmp.reader().get(b"k").unwrap().as_deref(), Some(&b"v"[..]));
}

#[test]
fn properties_count_keys_and_files() {
    let (_dir, db) = open_db(&[]);
    for i in 0u32..500 {
        db.put(&i.to_be_bytes(), &patterned(64, i as u8)).unwrap();
    }
    let level0_files = || db.property("rocksdb.num-files-at-level0").unwrap();
    assert_eq!(level0_files().as_deref(), Some("0"));
    assert_eq!(
        db.property_int("rocksdb.estimate-num-keys").unwrap(),
        Some(500)
    );
    db.flush().unwrap();
    assert_eq!(level0_files().as_deref(), Some("1"));
    assert_eq!(
        db.property_int("rocksdb.estimate-num-keys").unwrap(),
        Some(500)
    );
    db.compact_range(None, None).unwrap();
    assert_eq!(level0_files().as_deref(), Some("0"));
    // Dynamic level sizing (RocksDB's default) compacts straight into the last level.
    assert_eq!(
        db.property("rocksdb.num-files-at-level6")
            .unwrap()
            .as_deref(),
        Some("1")
    );
    // A string-only property has no integer form; an unknown one has neither.
    assert_eq!(
        db.property_int("rocksdb.num-files-at-level0").unwrap(),
        None
    );
    assert_eq!(db.property("rocksdb.no-such-property").unwrap(), None);
    let stats = db.property("rocksdb.stats").unwrap().unwrap();
    assert!(stats.contains("Compaction Stats"), "{stats}");
}

#[test]
fn data_survives_reopen_with_tuned_options() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = create_options();
    options
        .compression(Compression::Lz4)
        .block_cache_size(8 << 20)
        .bloom_filter(10.0)
        .block_size(16 << 10)
        .write_buffer_size(4 << 20)
        .max_open_files(64)
        .max_background_jobs(2)
        .increase_parallelism(2);
    let value = patterned(10_000, 3);
    {
        let db = Db::open(&options, dir.path()).unwrap();
        let mut durable = WriteOptions::new();
        durable.sync(true);
        db.writer().options(&durable).put(b"k", &value).unwrap();
        db.flush().unwrap();
    }
    for compression in [Compression::Zstd, Compression::Snappy, Compression::None] {
        options.compression(compression);
        let db = Db::open(&options, dir.path()).unwrap();
        assert_eq!(
            db.get(b"k").unwrap().as_deref(),
            Some(&value[..]),
            "{compression:?}"
        );
        db.put(format!("{compression:?}").as_bytes(), &value)
            .unwrap();
        db.flush().unwrap();
        db.compact_range(None, None).unwrap();
        assert_eq!(
            db.get(format!("{compression:?}").as_bytes())
                .unwrap()
                .as_deref(),
            Some(&value[..])
        );
    }
}

#[test]
fn db_is_send_and_sync() {
    // Every public type: tests/soundness/soundness.rs, `send_and_sync_of_every_public_type`.
    let (_dir, db) = open_db(&[]);
    std::thread::scope(|s| {
        for t in 0u8..4 {
            let db = &db;
            s.spawn(move || {
                for i in 0u8..50 {
                    db.put(&[t, i], &[t ^ i; 9]).unwrap();
                }
            });
        }
    });
    for t in 0u8..4 {
        for i in 0u8..50 {
            assert_eq!(db.get(&[t, i]).unwrap(), Some(vec![t ^ i; 9]));
        }
    }
}

#[test]
#[should_panic(expected = "column family \"other\" belongs to another database")]
fn a_column_family_of_another_database_is_refused() {
    let (_dir_a, a) = open_db(&[]);
    let (_dir_b, b) = open_db(&["other"]);
    let other = b.cf("other").unwrap();
    let _ = a.reader().cf(&other).get(b"k");
}

#[test]
#[should_panic(expected = "belongs to another database")]
fn writing_to_a_column_family_of_another_database_is_refused() {
    let (_dir_a, a) = open_db(&[]);
    let (_dir_b, b) = open_db(&[]);
    let _ = a.writer().cf(&b.default_cf()).put(b"k", b"v");
}

#[test]
fn a_batch_naming_another_databases_column_family_is_refused_whole() {
    let (_dir_a, a) = open_db(&["x"]);
    let (_dir_b, b) = open_db(&["x"]);
    let mut batch = pinrocks::WriteBatch::new();
    batch.writer().put(b"k", b"v").unwrap();
    batch
        .writer()
        .cf(&b.cf("x").unwrap())
        .put(b"k", b"v")
        .unwrap();
    let err = a.write(&batch).unwrap_err();
    assert!(
        matches!(err, pinrocks::Error::ForeignColumnFamily { ref name } if name == "x"),
        "{err}"
    );
    assert_eq!(a.get(b"k").unwrap(), None);
    b.write(&batch).unwrap();
    assert_eq!(
        b.cf("x").unwrap().reader().get(b"k").unwrap().as_deref(),
        Some(&b"v"[..])
    );
    batch
        .writer()
        .cf(&a.cf("x").unwrap())
        .put(b"k2", b"v")
        .unwrap();
    assert!(
        b.write(&batch).is_err() && a.write(&batch).is_err(),
        "mixes both databases"
    );
}

/// `Db::close` reports RocksDB's close and releases the lock, for every kind of database;
/// a database still held by a value read from it stays open until that value drops.
#[test]
fn close_reports_and_releases_every_kind_of_database() {
    use std::time::Duration;
    let dir = tempfile::tempdir().unwrap();
    let options = create_options();
    let db = Db::open(&options, dir.path()).unwrap();
    db.put(b"k", b"v").unwrap();
    db.close().unwrap();
    let read_only = Db::open_read_only(&options, dir.path()).unwrap();
    assert_eq!(read_only.get(b"k").unwrap().as_deref(), Some(&b"v"[..]));
    read_only.close().unwrap();

    // Held by an owned value and a snapshot: not closed, still locked, readable.
    let db = Db::open(&options, dir.path()).unwrap();
    let value = db.reader().get_bytes(b"k").unwrap().unwrap();
    let snapshot = db.snapshot();
    let err = db.close().unwrap_err();
    assert!(matches!(err, Error::DatabaseInUse { holders: 2 }), "{err}");
    assert!(
        Db::open(&options, dir.path()).is_err(),
        "still open, so still locked"
    );
    assert_eq!(&value[..], b"v");
    drop(snapshot);
    drop(value); // the last holder closes it
    let txn_db = Db::open_transaction_db(
        &options,
        &pinrocks::options::TransactionDbOptions::new(),
        dir.path(),
        [],
    )
    .unwrap();
    let mut txn = txn_db.begin().unwrap();
    txn.writer().put(b"t", b"1").unwrap();
    txn.commit().unwrap();
    txn_db.close().unwrap();
    let optimistic = Db::open_optimistic_transaction_db(&options, dir.path(), []).unwrap();
    assert_eq!(optimistic.get(b"t").unwrap().as_deref(), Some(&b"1"[..]));
    optimistic.close().unwrap();

    let ttl_dir = tempfile::tempdir().unwrap();
    let ttl = Db::open_with_ttl(&options, ttl_dir.path(), Duration::from_secs(60)).unwrap();
    ttl.put(b"k", b"v").unwrap();
    ttl.close().unwrap();
    let ttl = Db::open_with_ttl(&options, ttl_dir.path(), Duration::from_secs(60)).unwrap();
    assert_eq!(ttl.get(b"k").unwrap().as_deref(), Some(&b"v"[..]));
    ttl.close().unwrap();
}

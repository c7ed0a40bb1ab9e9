//! Data in and out: bulk loads through SST files, checkpoints under writers, backups that
//! survive damage to the live database and notice damage to themselves.
//!
//! Long because: each way data gets in or out (SST ingest, checkpoints, backups, the WAL, live
//! files) with its damage cases, sharing setup.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::common::{create_options, open_db, patterned};
use pinrocks::admin::{BackupEngine, IngestOptions, SstFileWriter};
use pinrocks::codec::{BigEndian, Raw};
use pinrocks::{CopyResult, Db, Error, ErrorKind, Options};

fn value(i: u32) -> Vec<u8> {
    patterned(16 + (i % 200) as usize, i as u8)
}

/// Loads keys `0..n` through `files` SST files and checks every one through every tier.
fn bulk_load(n: u32, files: u32) {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(&create_options(), dir.path().join("db")).unwrap();
    let mut paths = Vec::new();
    let per_file = n / files;
    for f in 0..files {
        let path = dir.path().join(format!("load-{f}.sst"));
        let mut sst = SstFileWriter::create(&Options::new(), &path).unwrap();
        for i in f * per_file..(f + 1) * per_file {
            sst.put_typed::<BigEndian<u32>, Raw>(&i, &value(i)).unwrap();
        }
        assert_eq!(sst.entries(), u64::from(per_file));
        paths.push(sst.finish().unwrap());
    }
    db.ingest(&paths, &IngestOptions::new()).unwrap();

    let reader = db.reader();
    let mut buf = vec![0u8; 256];
    let mut keys = Vec::new();
    for i in 0..n {
        let key = i.to_be_bytes();
        let expected = value(i);
        assert_eq!(reader.get(&key).unwrap().as_deref(), Some(&expected[..]));
        assert_eq!(
            reader.get_into(&key, &mut buf).unwrap(),
            CopyResult::Copied(expected.len())
        );
        assert_eq!(&buf[..expected.len()], &expected[..]);
        assert_eq!(
            reader.get_pinned(&key, |v| v == &expected[..]).unwrap(),
            Some(true)
        );
        assert_eq!(reader.pin(&key).unwrap().as_deref(), Some(&expected[..]));
        assert_eq!(
            reader.get_bytes(&key).unwrap().as_deref(),
            Some(&expected[..])
        );
        keys.push(key);
    }
    for batch in keys.chunks(32) {
        reader
            .multi_get_pinned(batch, |j, v| {
                let i = u32::from_be_bytes(batch[j]);
                assert_eq!(v, Some(&value(i)[..]));
            })
            .unwrap();
    }
    let mut next = 0u32;
    for entry in reader.scan(.., |k, v| {
        (u32::from_be_bytes(k.try_into().unwrap()), v.to_vec())
    }) {
        let (k, v) = entry.unwrap();
        assert_eq!((k, &v), (next, &value(next)));
        next += 1;
    }
    assert_eq!(next, n);
}

#[test]
fn bulk_load_through_sst_files_reads_back_exactly_through_every_tier() {
    bulk_load(5_000, 4);
}

/// The proof at scale, run by hand (about a minute): `cargo test --release --test
/// data_in_out -- --ignored`.
#[test]
#[ignore = "a million keys: run by hand"]
fn bulk_load_of_a_million_keys() {
    bulk_load(1_000_000, 10);
}

#[test]
fn keys_out_of_order_are_a_typed_error_and_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.sst");
    let mut sst = SstFileWriter::create(&Options::new(), &path).unwrap();
    sst.put(b"b", b"1").unwrap();
    for bad in [&b"a"[..], b"b"] {
        match sst.put(bad, b"x") {
            Err(Error::KeyOrder { previous, key }) => {
                assert_eq!((previous.as_slice(), key.as_slice()), (&b"b"[..], bad));
            }
            other => panic!("expected KeyOrder, got {other:?}"),
        }
    }
    assert!(matches!(sst.delete(b"a"), Err(Error::KeyOrder { .. })));
    sst.put(b"c", b"3").unwrap();
    assert_eq!(sst.entries(), 2);
    sst.finish().unwrap();
    let (_db_dir, db) = open_db(&[]);
    db.ingest(&[&path], &IngestOptions::new()).unwrap();
    let all: Vec<_> = db
        .reader()
        .scan(.., |k, v| (k.to_vec(), v.to_vec()))
        .collect::<pinrocks::Result<_>>()
        .unwrap();
    assert_eq!(
        all,
        [
            (b"b".to_vec(), b"1".to_vec()),
            (b"c".to_vec(), b"3".to_vec())
        ]
    );
}

#[test]
fn an_overlapping_ingest_without_a_global_seqno_fails_and_changes_nothing() {
    let (dir, db) = open_db(&["other"]);
    db.put(b"m", b"old").unwrap();
    db.flush().unwrap();
    let path = dir.path().join("overlap.sst");
    let mut sst = SstFileWriter::create(&Options::new(), &path).unwrap();
    sst.put(b"a", b"new").unwrap();
    sst.put(b"m", b"new").unwrap();
    sst.put(b"z", b"new").unwrap();
    sst.finish().unwrap();
    let mut strict = IngestOptions::new();
    strict.allow_global_seqno(false);
    let err = db.ingest(&[&path], &strict).unwrap_err();
    assert_eq!(err.kind(), Some(ErrorKind::InvalidArgument), "{err}");
    assert_eq!(db.get(b"m").unwrap().as_deref(), Some(&b"old"[..]));
    assert_eq!(db.get(b"a").unwrap(), None);
    // With the default options the same file goes in, newer than what was there.
    db.ingest(&[&path], &IngestOptions::new()).unwrap();
    assert_eq!(db.get(b"m").unwrap().as_deref(), Some(&b"new"[..]));

    // Refused like a write: a dropped family, a read-only open.
    let other = db.cf("other").unwrap();
    db.drop_cf("other").unwrap();
    let err = other.ingest(&[&path], &IngestOptions::new()).unwrap_err();
    assert!(matches!(err, Error::ColumnFamilyDropped { .. }), "{err}");
    drop(other);
    let ro = Db::open_read_only(&Options::new(), db.path()).unwrap();
    let err = ro.ingest(&[&path], &IngestOptions::new()).unwrap_err();
    assert!(
        matches!(
            err,
            Error::ReadOnly {
                operation: "ingest"
            }
        ),
        "{err}"
    );
}

#[test]
fn a_checkpoint_under_writers_holds_a_consistent_prefix_of_the_writes() {
    let (dir, db) = open_db(&[]);
    let acked = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let copy = dir.path().join("checkpoint");
    let (before, after) = std::thread::scope(|s| {
        s.spawn(|| {
            let mut i = 0u64;
            while !stop.load(Ordering::Relaxed) {
                db.put(&i.to_be_bytes(), &i.to_le_bytes()).unwrap();
                i += 1;
                acked.store(i, Ordering::Release);
            }
        });
        while acked.load(Ordering::Acquire) < 500 {
            std::thread::yield_now();
        }
        let before = acked.load(Ordering::Acquire);
        db.checkpoint(&copy).unwrap();
        let after = acked.load(Ordering::Acquire);
        while acked.load(Ordering::Acquire) < after + 100 {
            std::thread::yield_now();
        }
        stop.store(true, Ordering::Relaxed);
        (before, after)
    });
    let snapshot = Db::open(&Options::new(), &copy).unwrap();
    let keys: Vec<u64> = snapshot
        .reader()
        .scan(.., |k, v| {
            let i = u64::from_be_bytes(k.try_into().unwrap());
            assert_eq!(v, i.to_le_bytes());
            i
        })
        .collect::<pinrocks::Result<_>>()
        .unwrap();
    // A prefix: 0..n with no gap, holding every write acknowledged before the checkpoint
    // began and none acknowledged after it ended... plus at most the one in flight.
    let n = keys.len() as u64;
    assert!(keys.iter().copied().eq(0..n), "the copy has a gap");
    assert!(
        before <= n && n <= after + 1,
        "{before} <= {n} <= {after} + 1"
    );
    // The copy is independent of the live database.
    snapshot.put(b"only in the copy", b"1").unwrap();
    assert_eq!(db.get(b"only in the copy").unwrap(), None);
}

/// Flips bytes in the middle of every `.sst` file under `dir` (recursively).
fn damage_sst_files(dir: &std::path::Path) -> usize {
    let mut damaged = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            damaged += damage_sst_files(&path);
        } else if path.extension().is_some_and(|e| e == "sst") {
            crate::common::flip_byte(&path, 1, 3);
            damaged += 1;
        }
    }
    damaged
}

#[test]
fn a_backup_restores_every_value_after_the_live_database_is_damaged() {
    let dir = tempfile::tempdir().unwrap();
    let live = dir.path().join("live");
    let mut options = create_options();
    options.compression(pinrocks::options::Compression::None);
    let backups = BackupEngine::open(&options, dir.path().join("backups")).unwrap();
    {
        let db = Db::open(&options, &live).unwrap();
        for i in 0u32..2_000 {
            db.put(&i.to_be_bytes(), &value(i)).unwrap();
        }
        backups.create_backup(&db, true).unwrap();
        db.put(b"after the first backup", b"x").unwrap();
        backups.create_backup(&db, false).unwrap(); // with the WAL, not flushed
        let seq = db.latest_sequence_number();
        assert_eq!(seq, 2_001);
    }
    let list = backups.backups().unwrap();
    assert_eq!(list.iter().map(|b| b.id).collect::<Vec<_>>(), [1, 2]);
    assert!(list
        .iter()
        .all(|b| b.size > 0 && b.files > 0 && b.timestamp > 1_700_000_000));
    backups.verify(1).unwrap();
    backups.verify(2).unwrap();

    // Damage the live database: flip bytes in its SST files, delete one of them.
    assert!(damage_sst_files(&live) >= 1);
    let sst = std::fs::read_dir(&live)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "sst"))
        .unwrap();
    std::fs::remove_file(sst).unwrap();
    // The damage shows: the open fails, or a checked scan does.
    match Db::open(&options, &live) {
        Err(_) => {}
        Ok(db) => {
            let mut checked = pinrocks::ReadOptions::new();
            checked.verify_checksums(true);
            let noticed = db
                .reader()
                .options(&checked)
                .scan(.., |_, _| ())
                .any(|r| r.is_err());
            assert!(noticed, "the damage went unnoticed");
        }
    }

    backups.restore_latest(&live).unwrap();
    let db = Db::open(&options, &live).unwrap();
    for i in 0u32..2_000 {
        assert_eq!(db.get(&i.to_be_bytes()).unwrap(), Some(value(i)), "key {i}");
    }
    assert_eq!(
        db.get(b"after the first backup").unwrap().as_deref(),
        Some(&b"x"[..])
    );
    drop(db);
    backups.restore(1, dir.path().join("first")).unwrap();
    let first = Db::open(&options, dir.path().join("first")).unwrap();
    assert_eq!(first.get(b"after the first backup").unwrap(), None);
    assert_eq!(first.get(&7u32.to_be_bytes()).unwrap(), Some(value(7)));
}

#[test]
fn a_damaged_backup_fails_verify_and_old_backups_can_be_purged() {
    let dir = tempfile::tempdir().unwrap();
    let backups = BackupEngine::open(&Options::new(), dir.path().join("backups")).unwrap();
    let (_db_dir, db) = open_db(&[]);
    for round in 0u32..3 {
        db.put(&round.to_be_bytes(), &value(round)).unwrap();
        backups.create_backup(&db, true).unwrap();
    }
    backups.purge_old_backups(1).unwrap();
    assert_eq!(backup_ids(&backups), [3]);
    assert!(
        backups.verify(1).is_err(),
        "a purged backup cannot be verified"
    );
    backups.verify(3).unwrap();
    assert!(damage_sst_files(&dir.path().join("backups")) >= 1);
    let err = backups.verify(3).unwrap_err();
    assert_eq!(err.kind(), Some(ErrorKind::Corruption), "{err}");
}

#[test]
fn a_batch_lists_its_records_with_their_column_families() {
    let (_dir, db) = open_db(&["users"]);
    let users = db.cf("users").unwrap();
    assert_eq!((db.default_cf().id(), users.id()), (0, 1));
    let mut batch = pinrocks::WriteBatch::new();
    batch.writer().put(b"k", b"v").unwrap();
    batch.writer().cf(&users).put(b"ada", b"Lovelace").unwrap();
    batch.writer().cf(&users).delete(b"alan").unwrap();
    batch.writer().delete_range(b"a", b"c").unwrap();
    let mut records = Vec::new();
    batch.for_each(|r| records.push(format!("{r:?}"))).unwrap();
    assert_eq!(
        records,
        [
            "Put { cf: 0, key: [107], value: [118] }",
            "Put { cf: 1, key: [97, 100, 97], value: [76, 111, 118, 101, 108, 97, 99, 101] }",
            "Delete { cf: 1, key: [97, 108, 97, 110] }",
            "DeleteRange { cf: 0, start: [97], end: [99] }",
        ]
    );
    // A panic in the callback stops the iteration and reaches the caller.
    let mut calls = 0;
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        batch.for_each(|_| {
            calls += 1;
            panic!("stop");
        })
    }));
    assert!(outcome.is_err());
    assert_eq!(calls, 1);
    db.write(&batch).unwrap();
    assert_eq!(
        users.reader().get(b"ada").unwrap().as_deref(),
        Some(&b"Lovelace"[..])
    );
}

/// Every write of a database replayed from its log into an empty one, family by family:
/// the two hold the same bytes.
#[test]
fn replaying_the_log_into_an_empty_database_reproduces_it() {
    let (_src_dir, src) = open_db(&["users"]);
    let users = src.cf("users").unwrap();
    for i in 0u32..300 {
        src.put(&i.to_be_bytes(), &value(i)).unwrap();
        if i % 7 == 0 {
            users.writer().put(&i.to_le_bytes(), &value(i + 1)).unwrap();
        }
        if i % 11 == 0 {
            src.delete(&(i / 2).to_be_bytes()).unwrap();
        }
    }
    let mut batch = pinrocks::WriteBatch::new();
    batch.writer().cf(&users).put(b"batched", b"yes").unwrap();
    batch
        .writer()
        .delete_range(&10u32.to_be_bytes(), &20u32.to_be_bytes())
        .unwrap();
    src.write(&batch).unwrap();

    let (_dst_dir, dst) = open_db(&["users"]);
    let families = [src.default_cf(), users.clone()];
    let mut expected_sequence = 1;
    for logged in src.updates_since(1).unwrap() {
        let logged = logged.unwrap();
        assert_eq!(logged.sequence(), expected_sequence);
        expected_sequence += logged.len() as u64;
        let mut replay = pinrocks::WriteBatch::new();
        let target = |cf: u32| {
            let name = families.iter().find(|f| f.id() == cf).unwrap().name();
            dst.cf(name).unwrap()
        };
        let mut result: Result<(), String> = Ok(());
        logged
            .for_each(|record| {
                let applied = match record {
                    pinrocks::write::BatchRecord::Put { cf, key, value } => {
                        replay.writer().cf(&target(cf)).put(key, value).map(|_| ())
                    }
                    pinrocks::write::BatchRecord::Delete { cf, key } => {
                        replay.writer().cf(&target(cf)).delete(key).map(|_| ())
                    }
                    pinrocks::write::BatchRecord::DeleteRange { cf, start, end } => replay
                        .writer()
                        .cf(&target(cf))
                        .delete_range(start, end)
                        .map(|_| ()),
                    other => panic!("unexpected record {other:?}"),
                };
                if let Err(e) = applied {
                    result = Err(e.to_string());
                }
            })
            .unwrap();
        result.unwrap();
        dst.write(&replay).unwrap();
    }
    assert_eq!(expected_sequence - 1, src.latest_sequence_number());
    for name in ["default", "users"] {
        let scan = |db: &Db| -> Vec<(Vec<u8>, Vec<u8>)> {
            db.cf(name)
                .unwrap()
                .reader()
                .scan(.., |k, v| (k.to_vec(), v.to_vec()))
                .collect::<pinrocks::Result<_>>()
                .unwrap()
        };
        let original = scan(&src);
        assert!(!original.is_empty(), "{name}");
        assert_eq!(scan(&dst), original, "family {name}");
    }
}

#[test]
fn metadata_lists_files_levels_sizes_and_keys_exactly() {
    let (_dir, db) = open_db(&["meta"]);
    let cf = db.cf("meta").unwrap();
    assert!(!cf.key_may_exist(b"k0500"), "nothing written yet");
    for i in 0..1000u32 {
        cf.writer()
            .put(format!("k{i:04}").as_bytes(), &value(i))
            .unwrap();
    }
    assert!(cf.key_may_exist(b"k0500"), "in the memtable");
    let in_memory = cf.approximate_sizes(&[(b"k0000", b"k9999")], true).unwrap();
    assert!(in_memory[0] > 0);
    cf.flush().unwrap();
    for i in 1000..2000u32 {
        cf.writer()
            .put(format!("k{i:04}").as_bytes(), &value(i))
            .unwrap();
    }
    cf.flush().unwrap();
    db.wait_for_compact(true).unwrap();
    db.flush_wal(true).unwrap();

    let files: Vec<_> = db
        .live_files()
        .unwrap()
        .into_iter()
        .filter(|f| f.column_family == "meta")
        .collect();
    assert_eq!(files.len(), 2, "{files:?}");
    let mut ranges: Vec<_> = files
        .iter()
        .map(|f| {
            (
                f.smallest_key.clone(),
                f.largest_key.clone(),
                f.entries,
                f.deletions,
            )
        })
        .collect();
    ranges.sort();
    assert_eq!(
        ranges,
        [
            (b"k0000".to_vec(), b"k0999".to_vec(), 1000, 0),
            (b"k1000".to_vec(), b"k1999".to_vec(), 1000, 0)
        ]
    );
    let meta = cf.metadata().unwrap();
    assert_eq!((meta.name.as_str(), meta.file_count), ("meta", 2));
    assert_eq!(meta.levels[0].level, 0);
    assert_eq!(meta.levels[0].files.len(), 2);
    assert_eq!(
        meta.size,
        meta.levels.iter().map(|l| l.size).sum::<u64>(),
        "level sizes add up"
    );
    assert_eq!(meta.size, files.iter().map(|f| f.size).sum::<u64>());
    let sizes = cf
        .approximate_sizes(&[(&b"k0000"[..], &b"k1000"[..]), (b"x", b"y")], false)
        .unwrap();
    assert!(sizes[0] > 0 && sizes[1] == 0, "{sizes:?}");

    // Compacted to the bottom level, the files of a range can be deleted whole.
    cf.compact_range(None, None).unwrap();
    let meta = cf.metadata().unwrap();
    let bottom = meta
        .levels
        .iter()
        .rev()
        .find(|l| !l.files.is_empty())
        .unwrap();
    assert!(bottom.level > 0);
    assert_eq!(bottom.files[0].smallest_key, b"k0000");
    cf.delete_files_in_range(b"k0000", b"k9999").unwrap();
    assert_eq!(cf.reader().get(b"k0500").unwrap(), None);
    assert_eq!(cf.metadata().unwrap().file_count, 0);
    // Unflushed writes in the WAL: a read-only open refuses to flush them (RocksDB would
    // wait for ever for a flush it never schedules).
    cf.writer().put(b"unflushed", b"1").unwrap();
    let ro = Db::open_read_only(&Options::new(), db.path()).unwrap();
    assert!(matches!(
        ro.wait_for_compact(true),
        Err(Error::ReadOnly {
            operation: "wait_for_compact"
        })
    ));
    ro.wait_for_compact(false).unwrap();
    let err = ro
        .cf("meta")
        .unwrap()
        .delete_files_in_range(b"a", b"z")
        .unwrap_err();
    assert!(matches!(err, Error::ReadOnly { .. }), "{err}");
}

#[test]
fn a_long_backup_reports_progress_and_can_be_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = create_options();
    options.compression(pinrocks::options::Compression::None);
    let db = Db::open(&options, dir.path().join("db")).unwrap();
    for i in 0u32..3_000 {
        db.put(&i.to_be_bytes(), &patterned(4096, i as u8)).unwrap(); // 12 MB
    }
    db.flush().unwrap();
    let backups = BackupEngine::open(&options, dir.path().join("backups")).unwrap();

    let err = backups
        .create_backup_with_progress(&db, false, |_| false)
        .unwrap_err();
    assert_eq!(err.kind(), Some(ErrorKind::Incomplete), "{err}");
    assert!(
        backups.backups().unwrap().is_empty(),
        "a stopped backup keeps nothing"
    );
    // A stop is for good on this engine (RocksDB's StopBackup is one-way), and a restore
    // through it would empty its target and fail: refused before it starts.
    assert!(matches!(
        backups.create_backup(&db, false),
        Err(Error::BackupEngineStopped)
    ));
    let target = dir.path().join("target");
    std::fs::create_dir(&target).unwrap();
    std::fs::write(target.join("keep.txt"), b"precious").unwrap();
    assert!(matches!(
        backups.restore_latest(&target),
        Err(Error::BackupEngineStopped)
    ));
    assert!(matches!(backups.verify(1), Err(Error::BackupEngineStopped)));
    assert_eq!(std::fs::read(target.join("keep.txt")).unwrap(), b"precious");
    drop(backups);

    let backups = BackupEngine::open(&options, dir.path().join("backups")).unwrap();
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        backups.create_backup_with_progress(&db, false, |_| panic!("no more"))
    }));
    assert!(outcome.is_err(), "the panic reaches the caller");
    assert!(backups.backups().unwrap().is_empty());
    drop(backups);

    let backups = BackupEngine::open(&options, dir.path().join("backups")).unwrap();

    let mut calls = 0;
    let id = backups
        .create_backup_with_progress(&db, false, |n| {
            calls = n;
            true
        })
        .unwrap();
    assert!(calls >= 2, "{calls} progress calls for 12 MB");
    assert_eq!(backup_ids(&backups), [id]);
    backups.verify(id).unwrap();
}

/// Ingested behind, older data fills in what the database lacks and loses where it has a
/// value: the way to load history under live writes.
#[test]
fn an_ingest_behind_existing_keys_keeps_their_values() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = create_options();
    options.allow_ingest_behind(true);
    let db = Db::open(&options, dir.path().join("db")).unwrap();
    db.put(b"b", b"live").unwrap();
    db.flush().unwrap();
    let path = dir.path().join("history.sst");
    let mut sst = SstFileWriter::create(&options, &path).unwrap();
    sst.put(b"a", b"history").unwrap();
    sst.put(b"b", b"history").unwrap();
    sst.finish().unwrap();
    let mut behind = IngestOptions::new();
    behind.ingest_behind(true);
    db.ingest(&[&path], &behind).unwrap();
    assert_eq!(db.get(b"a").unwrap().as_deref(), Some(&b"history"[..]));
    assert_eq!(db.get(b"b").unwrap().as_deref(), Some(&b"live"[..]));
    // Without the option at creation, RocksDB refuses, and nothing changes.
    let (other_dir, other) = open_db(&[]);
    other.put(b"b", b"live").unwrap();
    let err = other.ingest(&[&path], &behind).unwrap_err();
    assert_eq!(err.kind(), Some(ErrorKind::InvalidArgument), "{err}");
    assert_eq!(other.get(b"a").unwrap(), None);
    drop(other_dir);
}

/// The ids of the engine's backups, oldest first.
fn backup_ids(backups: &BackupEngine) -> Vec<u32> {
    backups.backups().unwrap().iter().map(|b| b.id).collect()
}

//! Maintenance: single deletes and log data through every target, manual compactions with
//! options and of chosen files, flushes of several families, background work paused (and a
//! `no_slowdown` write refused under the stall that follows), file deletions held, destroy
//! and repair.

use std::path::Path;

use pinrocks::admin::{Bottommost, CompactOptions, FlushOptions};
use pinrocks::write::BatchRecord;
use pinrocks::{Db, Error, ErrorKind, Options, WriteBatch, WriteOptions};

use crate::common::{create_options, open_db, patterned};

/// The SST files of the database at `path`, by name.
fn sst_files(path: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(path)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".sst"))
        .collect();
    names.sort();
    names
}

#[test]
fn single_delete_removes_a_key_written_once_through_every_target() {
    let (_dir, db) = open_db(&[]);
    for key in [&b"db"[..], b"batch", b"txn", b"indexed"] {
        db.put(key, b"once").unwrap();
    }
    db.flush().unwrap(); // the puts in an SST file, the single deletes in the memtable
    db.writer().single_delete(b"db").unwrap();
    let mut batch = WriteBatch::new();
    batch.writer().single_delete(b"batch").unwrap();
    db.write(&batch).unwrap();
    let mut indexed = db.indexed_batch().unwrap();
    indexed.writer().single_delete(b"indexed").unwrap();
    assert_eq!(indexed.reader().get(b"indexed").unwrap(), None);
    indexed.write().unwrap();
    for key in [&b"db"[..], b"batch", b"indexed"] {
        assert_eq!(db.get(key).unwrap(), None, "{key:?}");
    }
    // The tombstone and the put vanish together in compaction; a later put is seen.
    db.compact_range(None, None).unwrap();
    assert_eq!(db.get(b"db").unwrap(), None);
    assert_eq!(db.get(b"txn").unwrap(), Some(b"once".to_vec()));
    db.put(b"db", b"again").unwrap();
    assert_eq!(db.get(b"db").unwrap(), Some(b"again".to_vec()));
}

#[test]
fn single_delete_through_a_transaction() {
    let dir = tempfile::tempdir().unwrap();
    let txn_options = pinrocks::options::TransactionDbOptions::new();
    let db = Db::open_transaction_db(&create_options(), &txn_options, dir.path(), []).unwrap();
    db.put(b"k", b"once").unwrap();
    let mut txn = db.begin().unwrap();
    txn.writer().single_delete(b"k").unwrap();
    assert_eq!(txn.reader().get(b"k").unwrap(), None);
    assert_eq!(db.get(b"k").unwrap(), Some(b"once".to_vec()));
    txn.commit().unwrap();
    assert_eq!(db.get(b"k").unwrap(), None);
}

#[test]
fn log_data_reaches_the_wal_and_no_read() {
    let (_dir, db) = open_db(&[]);
    let mut batch = WriteBatch::new();
    batch.writer().put(b"k", b"v").unwrap();
    batch.writer().put_log_data(b"audit: k set").unwrap();
    db.write(&batch).unwrap();
    let mut logged = Vec::new();
    for update in db.updates_since(1).unwrap() {
        update
            .unwrap()
            .for_each(|record| {
                logged.push(match record {
                    BatchRecord::Put { key, value, .. } => (b'P', key.to_vec(), value.to_vec()),
                    BatchRecord::LogData(blob) => (b'L', blob.to_vec(), Vec::new()),
                    other => panic!("{other:?}"),
                })
            })
            .unwrap();
    }
    assert_eq!(
        logged,
        [
            (b'P', b"k".to_vec(), b"v".to_vec()),
            (b'L', b"audit: k set".to_vec(), Vec::new())
        ]
    );
    let keys: Vec<Vec<u8>> = db
        .reader()
        .scan(.., |k, _| k.to_vec())
        .collect::<pinrocks::Result<_>>()
        .unwrap();
    assert_eq!(keys, [b"k".to_vec()]);
}

#[test]
fn a_compaction_to_a_target_level_and_of_chosen_files() {
    // No automatic compaction: it would move the files on (down to the last level) while
    // the test looks at them.
    let mut options = create_options();
    options.disable_auto_compactions(true);
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(&options, dir.path()).unwrap();
    for round in 0..2u8 {
        db.put(&[b'a' + round], &patterned(100, round)).unwrap();
        db.flush().unwrap();
    }
    let files = db.live_files().unwrap();
    assert_eq!(files.iter().map(|f| f.level).collect::<Vec<_>>(), [0, 0]);
    let names: Vec<&str> = files.iter().map(|f| f.name.as_str()).collect();
    let written = db.default_cf().compact_files(&names, 2).unwrap();
    assert_eq!(written.len(), 1, "{written:?}");
    let files = db.live_files().unwrap();
    assert_eq!(files.len(), 1);
    assert_eq!(files[0].level, 2);
    assert!(
        written[0].ends_with(&files[0].name),
        "{written:?} {files:?}"
    );
    // Compacting files that are gone is refused, not ignored.
    assert!(db.default_cf().compact_files(&names, 2).is_err());

    let mut to_one = CompactOptions::new();
    to_one.target_level(1).bottommost(Bottommost::Force);
    db.compact_range_with(None, None, &to_one).unwrap();
    let files = db.live_files().unwrap();
    assert_eq!(files.iter().map(|f| f.level).collect::<Vec<_>>(), [1]);
    assert_eq!(sst_files(dir.path()).len(), 1);
    assert_eq!(db.get(b"a").unwrap(), Some(patterned(100, 0)));
    assert_eq!(db.get(b"b").unwrap(), Some(patterned(100, 1)));
}

#[test]
fn one_flush_of_several_families() {
    let mut options = create_options();
    options.atomic_flush(true);
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open_cf(&options, dir.path(), ["one", "two"]).unwrap();
    let (one, two) = (db.cf("one").unwrap(), db.cf("two").unwrap());
    one.writer().put(b"k", b"1").unwrap();
    two.writer().put(b"k", b"2").unwrap();
    db.flush_families(&[&one, &two], &FlushOptions::new())
        .unwrap();
    let mut families: Vec<String> = db
        .live_files()
        .unwrap()
        .into_iter()
        .map(|f| f.column_family)
        .collect();
    families.sort();
    assert_eq!(families, ["one", "two"]);
    let mut no_wait = FlushOptions::new();
    no_wait.wait(false).allow_write_stall(true);
    db.put(b"d", b"0").unwrap();
    db.flush_with(&no_wait).unwrap();
    db.flush().unwrap(); // waits for whatever is left
    assert!(db
        .live_files()
        .unwrap()
        .iter()
        .any(|f| f.column_family == "default"));
}

#[test]
fn a_family_named_twice_is_flushed_once_and_none_is_nothing() {
    let mut options = create_options();
    options.atomic_flush(true);
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open_cf(&options, dir.path(), ["one"]).unwrap();
    let one = db.cf("one").unwrap();
    one.writer().put(b"k", b"1").unwrap();
    db.put(b"d", b"0").unwrap();
    db.flush_families(&[&one, &one], &FlushOptions::new())
        .unwrap();
    db.flush_families(&[], &FlushOptions::new()).unwrap();
    let families: Vec<String> = db
        .live_files()
        .unwrap()
        .into_iter()
        .map(|f| f.column_family)
        .collect();
    assert_eq!(families, ["one"]);
}

#[test]
fn a_database_dropped_or_closed_while_paused_still_closes() {
    let dir = tempfile::tempdir().unwrap();
    let mut unlogged = WriteOptions::new();
    unlogged.disable_wal(true);
    for close in [true, false] {
        let db = Db::open(&create_options(), dir.path()).unwrap();
        // Unlogged data makes the close flush and wait for the flush.
        db.writer().options(&unlogged).put(b"k", b"v").unwrap();
        db.pause_background_work().unwrap();
        db.pause_background_work().unwrap();
        if close {
            db.close().unwrap();
        } else {
            drop(db);
        }
    }
    let db = Db::open(&create_options(), dir.path()).unwrap();
    assert_eq!(db.get(b"k").unwrap(), Some(b"v".to_vec()));
}

#[test]
fn a_single_delete_in_a_batch_for_a_ttl_database_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open_with_ttl(
        &create_options(),
        dir.path(),
        std::time::Duration::from_secs(3600),
    )
    .unwrap();
    db.put(b"k", b"v").unwrap();
    let mut batch = WriteBatch::new();
    batch.writer().single_delete(b"k").unwrap();
    let err = db.write(&batch).unwrap_err();
    assert!(matches!(err, Error::InvalidInput { .. }), "{err:?}");
    assert_eq!(db.get(b"k").unwrap(), Some(b"v".to_vec()));
    // A single delete straight to the database is not rewritten by the TTL layer.
    db.writer().single_delete(b"k").unwrap();
    assert_eq!(db.get(b"k").unwrap(), None);
}

#[test]
#[should_panic(expected = "belongs to another database")]
fn flushing_a_family_of_another_database_panics() {
    let (_a, one) = open_db(&["x"]);
    let (_b, other) = open_db(&[]);
    let x = one.cf("x").unwrap();
    let _ = other.flush_families(&[&x], &FlushOptions::new());
}

#[test]
fn paused_background_work_stalls_writes_and_no_slowdown_refuses_them() {
    let mut options = create_options();
    options
        .write_buffer_size(64 << 10)
        .max_write_buffer_number(2)
        .level0_stop_writes_trigger(100);
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(&options, dir.path()).unwrap();
    db.pause_background_work().unwrap();
    let mut shed = WriteOptions::new();
    shed.no_slowdown(true);
    let value = patterned(1024, 7);
    let mut refused = None;
    for i in 0..4096u32 {
        let key = i.to_be_bytes();
        match db.writer().options(&shed).put(&key, &value) {
            Ok(()) => {}
            Err(e) => {
                refused = Some((i, e));
                break;
            }
        }
    }
    let (i, e) = refused.expect("no stall within 4 MiB of writes");
    assert_eq!(e.kind(), Some(ErrorKind::WouldStall), "{e}");
    assert_eq!(
        db.get(&i.to_be_bytes()).unwrap(),
        None,
        "a refused write wrote"
    );
    db.continue_background_work().unwrap();
    // A write that may wait goes through once flushes run again.
    db.put(&i.to_be_bytes(), &value).unwrap();
    assert_eq!(db.get(&i.to_be_bytes()).unwrap(), Some(value));
    db.close().unwrap();
}

#[test]
fn cancelled_background_work_refuses_flushes_and_the_database_still_closes() {
    let (_dir, db) = open_db(&[]);
    db.put(b"k", b"v").unwrap();
    db.cancel_background_work(true).unwrap();
    let err = db.flush().unwrap_err();
    assert_eq!(err.kind(), Some(ErrorKind::ShutdownInProgress), "{err}");
    assert_eq!(db.get(b"k").unwrap(), Some(b"v".to_vec()));
    db.close().unwrap();
}

#[test]
fn held_file_deletions_keep_obsolete_files_until_enabled() {
    let mut options = create_options();
    options.disable_auto_compactions(true);
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(&options, dir.path()).unwrap();
    for round in 0..2u8 {
        db.put(b"k", &[round]).unwrap();
        db.flush().unwrap();
    }
    let before = sst_files(dir.path());
    assert_eq!(before.len(), 2);
    db.disable_file_deletions().unwrap();
    // Rewritten into one file (not moved down whole, which leaves no file obsolete).
    let mut rewrite = CompactOptions::new();
    rewrite.bottommost(Bottommost::Force);
    db.compact_range_with(None, None, &rewrite).unwrap();
    let held = sst_files(dir.path());
    assert!(before.iter().all(|f| held.contains(f)), "{held:?}");
    assert_eq!(held.len(), 3);
    db.enable_file_deletions().unwrap();
    let after = sst_files(dir.path());
    assert_eq!(after.len(), 1);
    assert!(!before.contains(&after[0]));
    assert_eq!(db.get(b"k").unwrap(), Some(vec![1]));
}

#[test]
fn snapshots_name_their_sequence_number() {
    let (_dir, db) = open_db(&[]);
    db.put(b"a", b"1").unwrap();
    let first = db.snapshot();
    db.put(b"b", b"2").unwrap();
    db.put(b"c", b"3").unwrap();
    let third = db.snapshot();
    assert_eq!(first.sequence_number(), 1);
    assert_eq!(third.sequence_number(), 3);
    assert_eq!(db.latest_sequence_number(), 3);
}

#[test]
fn destroy_removes_every_file_and_is_refused_while_open() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    let db = Db::open(&create_options(), &path).unwrap();
    db.put(b"k", b"v").unwrap();
    db.flush().unwrap();
    match Db::destroy(&Options::new(), &path) {
        Err(Error::DatabaseOpenThere { .. }) => {}
        other => panic!("{other:?}"),
    }
    assert_eq!(db.get(b"k").unwrap(), Some(b"v".to_vec()));
    db.close().unwrap();
    assert!(!sst_files(&path).is_empty());
    Db::destroy(&Options::new(), &path).unwrap();
    let left: Vec<_> = std::fs::read_dir(&path)
        .map(|d| d.map(|e| e.unwrap().file_name()).collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "{left:?}");
    assert!(
        Db::open(&Options::new(), &path).is_err(),
        "nothing left to open"
    );
}

#[test]
fn repair_brings_back_a_database_whose_manifest_was_deleted() {
    let dir = tempfile::tempdir().unwrap();
    {
        let db = Db::open(&create_options(), dir.path()).unwrap();
        db.put(b"flushed", &patterned(500, 3)).unwrap();
        db.flush().unwrap();
        db.put(b"logged", &patterned(50, 4)).unwrap(); // only in the WAL
        db.close().unwrap();
    }
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let entry = entry.unwrap();
        if entry.file_name().to_string_lossy().starts_with("MANIFEST-") {
            std::fs::remove_file(entry.path()).unwrap();
        }
    }
    assert!(Db::open(&Options::new(), dir.path()).is_err());
    Db::repair(&Options::new(), dir.path()).unwrap();
    let db = Db::open(&Options::new(), dir.path()).unwrap();
    assert_eq!(db.get(b"flushed").unwrap(), Some(patterned(500, 3)));
    assert_eq!(db.get(b"logged").unwrap(), Some(patterned(50, 4)));
}

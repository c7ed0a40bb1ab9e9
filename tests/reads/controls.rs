//! Read controls through every tier: a cache-only read of a value on disk answers "not in
//! cache", a deadline in the past times a file read out, `refresh` sees later writes.

use std::time::{Duration, UNIX_EPOCH};

use pinrocks::read::ReadTier;
use pinrocks::{Db, ErrorKind, ReadOptions, Result};

use crate::common::{create_options, patterned};

/// A database whose `b"disk"` is flushed and whose block cache is cold (reopened), and
/// whose `b"mem"` is in the memtable.
fn cold_database() -> (tempfile::TempDir, Db) {
    let dir = tempfile::tempdir().unwrap();
    {
        let db = Db::open(&create_options(), dir.path()).unwrap();
        db.put(b"disk", &patterned(300, 1)).unwrap();
        db.flush().unwrap();
        db.close().unwrap();
    }
    let db = Db::open(&create_options(), dir.path()).unwrap();
    db.put(b"mem", &patterned(200, 2)).unwrap();
    (dir, db)
}

/// The error kind every tier gets for `key` with `options`, or a panic naming the tier that
/// did not fail.
fn every_tier_fails(db: &Db, options: &ReadOptions, key: &[u8]) -> ErrorKind {
    let reader = db.reader().options(options);
    let mut kinds = Vec::new();
    let mut note = |tier: &str, outcome: Result<bool>| match outcome {
        Err(e) => kinds.push(e.kind().unwrap_or_else(|| panic!("{tier}: {e}"))),
        Ok(found) => panic!("{tier} did not fail (found: {found})"),
    };
    note("get", reader.get(key).map(|v| v.is_some()));
    let mut buf = [0u8; 512];
    note("get_into", reader.get_into(key, &mut buf).map(|_| true));
    note(
        "get_pinned",
        reader.get_pinned(key, |v| v.len()).map(|v| v.is_some()),
    );
    note("pin", reader.pin(key).map(|v| v.is_some()));
    note("get_bytes", reader.get_bytes(key).map(|v| v.is_some()));
    note(
        "multi_get_pinned",
        reader.multi_get_pinned(&[key], |_, _| ()).map(|()| true),
    );
    let mut cursor = reader.iter();
    cursor.seek(key);
    note("cursor", cursor.status().map(|()| cursor.key().is_some()));
    let first = kinds[0];
    assert!(kinds.iter().all(|&k| k == first), "{kinds:?}");
    first
}

#[test]
fn a_cache_only_read_of_a_value_on_disk_is_not_in_cache_then_found_once_cached() {
    let (_dir, db) = cold_database();
    let mut cache_only = ReadOptions::new();
    cache_only.read_tier(ReadTier::BlockCache);
    assert_eq!(
        every_tier_fails(&db, &cache_only, b"disk"),
        ErrorKind::NotInCache
    );
    // A batch through a transaction or an indexed batch reads the database the same way.
    let batch = db.indexed_batch().unwrap();
    let through_batch = batch.reader().options(&cache_only);
    let err = through_batch
        .multi_get_pinned(&[b"disk"], |_, _| ())
        .unwrap_err();
    assert_eq!(err.kind(), Some(ErrorKind::NotInCache));
    // The memtable is memory: answered, bytes exact.
    let reader = db.reader().options(&cache_only);
    assert_eq!(reader.get(b"mem").unwrap(), Some(patterned(200, 2)));
    // A read that may do I/O brings the block into the cache; then memory answers.
    assert_eq!(db.get(b"disk").unwrap(), Some(patterned(300, 1)));
    assert_eq!(reader.get(b"disk").unwrap(), Some(patterned(300, 1)));
    let pinned = reader.pin(b"disk").unwrap().unwrap();
    assert_eq!(&pinned[..], &patterned(300, 1)[..]);
}

#[test]
fn a_cache_only_batch_through_a_transaction_is_not_in_cache() {
    let dir = tempfile::tempdir().unwrap();
    let options = create_options();
    let txn_options = pinrocks::options::TransactionDbOptions::new();
    {
        let db = Db::open_transaction_db(&options, &txn_options, dir.path(), []).unwrap();
        db.put(b"disk", &patterned(300, 1)).unwrap();
        db.flush().unwrap();
        db.close().unwrap();
    }
    let db = Db::open_transaction_db(&options, &txn_options, dir.path(), []).unwrap();
    let mut cache_only = ReadOptions::new();
    cache_only.read_tier(ReadTier::BlockCache);
    let mut txn = db.begin().unwrap();
    txn.writer().put(b"own", b"mine").unwrap();
    let reader = txn.reader().options(&cache_only);
    let err = reader.multi_get_pinned(&[b"disk"], |_, _| ()).unwrap_err();
    assert_eq!(err.kind(), Some(ErrorKind::NotInCache));
    assert_eq!(
        reader.get(b"disk").unwrap_err().kind(),
        Some(ErrorKind::NotInCache)
    );
    // Its own write is in memory.
    let mut got = Vec::new();
    reader
        .multi_get_pinned(&[b"own"], |_, v| got.extend_from_slice(v.unwrap()))
        .unwrap();
    assert_eq!(got, b"mine");
}

#[test]
fn a_deadline_in_the_past_times_out_every_tier_that_reads_a_file() {
    let (_dir, db) = cold_database();
    let mut late = ReadOptions::new();
    late.deadline(UNIX_EPOCH + Duration::from_secs(1));
    assert_eq!(every_tier_fails(&db, &late, b"disk"), ErrorKind::TimedOut);
    // Nothing was read, so nothing was cached: a read without the deadline reads the file.
    assert_eq!(db.get(b"disk").unwrap(), Some(patterned(300, 1)));
}

#[test]
fn a_deadline_ahead_and_an_io_timeout_let_reads_through() {
    let (_dir, db) = cold_database();
    let mut timely = ReadOptions::new();
    timely
        .deadline(std::time::SystemTime::now() + Duration::from_secs(3600))
        .io_timeout(Duration::from_secs(60))
        .readahead_size(1 << 20)
        .async_io(true);
    let reader = db.reader().options(&timely);
    assert_eq!(reader.get(b"disk").unwrap(), Some(patterned(300, 1)));
    let keys: Vec<Vec<u8>> = reader
        .scan(.., |k, _| k.to_vec())
        .collect::<Result<_>>()
        .unwrap();
    assert_eq!(keys, [b"disk".to_vec(), b"mem".to_vec()]);
}

#[test]
fn refresh_sees_later_writes_and_refresh_to_reads_at_the_snapshot() {
    let (_dir, db) = crate::common::open_db(&[]);
    db.put(b"a", b"1").unwrap();
    let before = db.snapshot();
    let mut it = db.reader().iter();
    db.put(b"b", b"2").unwrap();
    db.delete(b"a").unwrap();
    let keys = |it: &mut pinrocks::Cursor<'_>| {
        it.seek_to_first();
        let mut seen = Vec::new();
        while let Some((k, v)) = it.entry() {
            seen.push((k.to_vec(), v.to_vec()));
            it.next();
        }
        it.status().unwrap();
        seen
    };
    assert_eq!(keys(&mut it), [(b"a".to_vec(), b"1".to_vec())]);
    it.refresh().unwrap();
    assert_eq!(keys(&mut it), [(b"b".to_vec(), b"2".to_vec())]);
    it.refresh_to(&before).unwrap();
    drop(before); // the cursor keeps the snapshot alive
    assert_eq!(keys(&mut it), [(b"a".to_vec(), b"1".to_vec())]);
    it.refresh().unwrap();
    assert_eq!(keys(&mut it), [(b"b".to_vec(), b"2".to_vec())]);
}

#[test]
#[should_panic(expected = "a snapshot of another database")]
fn refresh_to_a_snapshot_of_another_database_panics() {
    let (_a, one) = crate::common::open_db(&[]);
    let (_b, other) = crate::common::open_db(&[]);
    let snapshot = other.snapshot();
    let mut it = one.reader().iter();
    let _ = it.refresh_to(&snapshot);
}

#[test]
fn ignore_range_deletions_reads_keys_a_range_deleted() {
    let (_dir, db) = crate::common::open_db(&[]);
    db.put(b"k", b"v").unwrap();
    db.delete_range(b"a", b"z").unwrap();
    assert_eq!(db.get(b"k").unwrap(), None);
    let mut blind = ReadOptions::new();
    blind.ignore_range_deletions(true);
    assert_eq!(
        db.reader().options(&blind).get(b"k").unwrap(),
        Some(b"v".to_vec())
    );
}

#[test]
fn a_tailing_cursor_sees_writes_made_after_it() {
    let (_dir, db) = crate::common::open_db(&[]);
    db.put(b"a", b"1").unwrap();
    let mut tailing = ReadOptions::new();
    tailing.tailing(true);
    let reader = db.reader().options(&tailing);
    let mut it = reader.iter();
    it.seek_to_first();
    assert_eq!(it.entry(), Some((&b"a"[..], &b"1"[..])));
    db.put(b"b", b"2").unwrap();
    it.seek(b"b");
    assert_eq!(it.entry(), Some((&b"b"[..], &b"2"[..])));
}

#[test]
fn max_skippable_internal_keys_stops_a_move_over_many_deletions() {
    let (_dir, db) = crate::common::open_db(&[]);
    db.put(b"a", b"first").unwrap();
    for i in 0..100u32 {
        let key = format!("b{i:03}");
        db.put(key.as_bytes(), b"x").unwrap();
        db.delete(key.as_bytes()).unwrap();
    }
    db.put(b"c", b"last").unwrap();
    db.flush().unwrap();
    let mut bounded = ReadOptions::new();
    bounded.max_skippable_internal_keys(10);
    let reader = db.reader().options(&bounded);
    let mut it = reader.iter();
    it.seek_to_first();
    assert_eq!(it.entry(), Some((&b"a"[..], &b"first"[..])));
    it.next();
    assert_eq!(it.key(), None);
    assert_eq!(it.status().unwrap_err().kind(), Some(ErrorKind::Incomplete));
    // Unbounded, the same move arrives.
    let mut it = db.reader().iter();
    it.seek(b"b");
    assert_eq!(it.entry(), Some((&b"c"[..], &b"last"[..])));
}

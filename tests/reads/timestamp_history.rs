//! History of a family with timestamps: cursors over every version (`iter_start_timestamp`),
//! forward only; `full_history_ts_low` trimming reads and compaction, kept across reopen; and
//! what RocksDB itself does to merges under range deletes and a trimmed history.

use pinrocks::read::{KeyVersion, VersionKind};
use pinrocks::{Db, Error};

use crate::common::{create_options, settle, STAGES};
use crate::timestamps::{at, mismatch, versioned};

#[test]
fn a_history_cursor_lists_every_version_newest_first() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(&create_options(), dir.path()).unwrap();
    let cf = db.create_cf("versions", &versioned()).unwrap();
    cf.writer().at(10).put(b"a", b"1").unwrap();
    cf.writer().at(20).merge(b"a", b"2").unwrap();
    cf.writer().at(30).delete(b"a").unwrap();
    cf.writer().at(15).put(b"b", b"x").unwrap();
    for stage in STAGES {
        settle(&[&cf], stage);
        let mut history = at(25);
        history.iter_start_timestamp(0);
        let mut cursor = cf.reader().options(&history).iter();
        cursor.seek_to_first();
        let mut seen = Vec::new();
        while let Some(KeyVersion { timestamp, kind }) = cursor.version() {
            let (key, value) = cursor.entry().unwrap();
            seen.push((key.to_vec(), value.to_vec(), timestamp, kind));
            assert_eq!(cursor.timestamp(), Some(timestamp));
            cursor.next();
        }
        cursor.status().unwrap();
        // At 25: the delete at 30 is not yet seen; the merge reads merged with the put
        // before it, which it then stands for (RocksDB moves past what it merged).
        assert_eq!(
            seen,
            [
                (b"a".to_vec(), b"12".to_vec(), 20, VersionKind::Merge),
                (b"b".to_vec(), b"x".to_vec(), 15, VersionKind::Value),
            ],
            "{stage:?}"
        );
        // From 12 on, to the end: the delete, newest first; the put at 10 is before it.
        let mut recent = at(u64::MAX);
        recent.iter_start_timestamp(12);
        let kinds: Vec<_> = cf
            .reader()
            .options(&recent)
            .scan(.., |k, _| k.to_vec())
            .collect::<pinrocks::Result<_>>()
            .unwrap();
        assert_eq!(
            kinds,
            [b"a".to_vec(), b"a".to_vec(), b"b".to_vec()],
            "{stage:?}"
        );
        let mut cursor = cf.reader().options(&recent).iter();
        cursor.seek_to_first();
        assert_eq!(cursor.version().unwrap().kind, VersionKind::Deletion);
        assert_eq!(cursor.version().unwrap().timestamp, 30);
        assert_eq!(cursor.value(), Some(&b""[..]));
    }
}

#[test]
fn full_history_ts_low_trims_reads_and_history_and_persists() {
    let dir = tempfile::tempdir().unwrap();
    let names = ["versions"];
    {
        let db = Db::open(&create_options(), dir.path()).unwrap();
        let cf = db.create_cf("versions", &versioned()).unwrap();
        assert_eq!(cf.full_history_ts_low().unwrap(), None);
        for ts in [10, 20, 30] {
            cf.writer()
                .at(ts)
                .put(b"k", format!("v{ts}").as_bytes())
                .unwrap();
        }
        cf.increase_full_history_ts_low(25).unwrap();
        assert_eq!(cf.full_history_ts_low().unwrap(), Some(25));
        // Below it: refused, once RocksDB's view of the family has it (after a flush);
        // at and after it: as before.
        cf.flush().unwrap();
        let options = at(24);
        let r = cf.reader().options(&options);
        let refused = |result: pinrocks::Result<()>| match result {
            Err(Error::RocksDb {
                kind: pinrocks::ErrorKind::InvalidArgument,
                message,
            }) => {
                assert!(message.contains("full_history_ts_low"), "{message}")
            }
            other => panic!("{other:?}"),
        };
        refused(r.get(b"k").map(drop));
        refused(r.get_pinned(b"k", |v| v.len()).map(drop));
        refused(r.multi_get_pinned(&[b"k"], |_, _| {}));
        refused(r.iter().status());
        let options = at(25);
        assert_eq!(
            cf.reader().options(&options).get(b"k").unwrap().as_deref(),
            Some(&b"v20"[..])
        );
        // Lower is refused; the same again is not.
        assert!(cf.increase_full_history_ts_low(5).is_err());
        cf.increase_full_history_ts_low(25).unwrap();
        // Compaction collapses the versions below it into the newest of them.
        cf.flush().unwrap();
        cf.compact_range(None, None).unwrap();
        let mut history = at(u64::MAX);
        history.iter_start_timestamp(0);
        let versions: Vec<_> = {
            let mut cursor = cf.reader().options(&history).iter();
            cursor.seek_to_first();
            let mut v = Vec::new();
            while let Some(version) = cursor.version() {
                v.push((version.timestamp, cursor.value().unwrap().to_vec()));
                cursor.next();
            }
            cursor.status().unwrap();
            v
        };
        assert_eq!(versions, [(30, b"v30".to_vec()), (20, b"v20".to_vec())]);
        // A family without timestamps has no history bound.
        mismatch(db.cf("default").unwrap().full_history_ts_low(), 0, 8);
        mismatch(
            db.cf("default").unwrap().increase_full_history_ts_low(1),
            0,
            8,
        );
    }
    // Without the comparator the database does not open (RocksDB would read the
    // timestamps as parts of the keys); with it, the bound is kept.
    let plain = create_options();
    match Db::open_cf(&plain, dir.path(), names) {
        Err(Error::RocksDb {
            kind: pinrocks::ErrorKind::InvalidArgument,
            message,
        }) => assert!(
            message.contains("disable user-defined timestamps"),
            "{message}"
        ),
        other => panic!("{:?}", other.map(|_| ())),
    }
    {
        // The OPTIONS file names the comparator, and RocksDB finds it by that name.
        let stored = pinrocks::options::StoredOptions::load(
            dir.path(),
            &pinrocks::options::Cache::lru(1 << 20),
        )
        .unwrap();
        let db = Db::open_with_stored_options(&stored, dir.path()).unwrap();
        let options = at(u64::MAX);
        let cf = db.cf("versions").unwrap();
        assert_eq!(
            cf.reader().options(&options).get(b"k").unwrap().as_deref(),
            Some(&b"v30"[..])
        );
        mismatch(cf.reader().get(b"k"), 8, 0);
    }
    let options = versioned();
    let db = Db::open_with(&create_options(), dir.path(), [("versions", &options)]).unwrap();
    let cf = db.cf("versions").unwrap();
    assert_eq!(cf.full_history_ts_low().unwrap(), Some(25));
    let options = at(u64::MAX);
    assert_eq!(
        cf.reader().options(&options).get(b"k").unwrap().as_deref(),
        Some(&b"v30"[..])
    );
}

/// RocksDB's own behaviour, kept in view: a merge above `full_history_ts_low` absorbs the
/// newest version below it when flushed (`MergeHelper` collapses history below the bound),
/// so a read between the bound and the merge, which the bound still allows, then sees
/// nothing. A put in its place keeps that version.
#[test]
fn a_merge_above_the_history_bound_absorbs_the_version_below_it() {
    for merge in [true, false] {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(&create_options(), dir.path()).unwrap();
        let cf = db.create_cf("versions", &versioned()).unwrap();
        cf.writer().at(2).put(b"a", b"P").unwrap();
        cf.increase_full_history_ts_low(3).unwrap();
        match merge {
            true => cf.writer().at(6).merge(b"a", b"M").unwrap(),
            false => cf.writer().at(6).put(b"a", b"PM").unwrap(),
        }
        let read = |ts| {
            let options = at(ts);
            cf.reader()
                .options(&options)
                .get_with_timestamp(b"a", |v, t| (v.to_vec(), t))
                .unwrap()
        };
        assert_eq!(read(4), Some((b"P".to_vec(), 2)));
        cf.flush().unwrap();
        let below = if merge {
            None
        } else {
            Some((b"P".to_vec(), 2))
        };
        assert_eq!(read(3), below, "merge: {merge}");
        assert_eq!(read(4), below, "merge: {merge}");
        assert_eq!(read(6), Some((b"PM".to_vec(), 6)), "merge: {merge}");
    }
}

/// RocksDB's own behaviour, kept in view: a flush drops the merge operands a newer range
/// tombstone covers, though no `full_history_ts_low` allows it, so reads as of a timestamp
/// before the tombstone lose them. A put in their place is kept.
#[test]
fn a_range_tombstone_drops_the_merges_it_covers_at_the_flush() {
    for merge in [true, false] {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(&create_options(), dir.path()).unwrap();
        let cf = db.create_cf("versions", &versioned()).unwrap();
        match merge {
            true => cf.writer().at(2).merge(b"b", b"m").unwrap(),
            false => cf.writer().at(2).put(b"b", b"m").unwrap(),
        }
        cf.writer().at(5).delete_range(b"a", b"c").unwrap();
        let read = |ts| {
            let options = at(ts);
            cf.reader().options(&options).get(b"b").unwrap()
        };
        assert_eq!((read(4), read(5)), (Some(b"m".to_vec()), None));
        cf.flush().unwrap();
        let before = (!merge).then(|| b"m".to_vec());
        assert_eq!((read(4), read(5)), (before, None), "merge: {merge}");
    }
}

#[test]
fn a_history_cursor_moves_forward_only_and_skips_every_version_of_an_excluded_start() {
    use std::ops::Bound::{Excluded, Unbounded};
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(&create_options(), dir.path()).unwrap();
    let cf = db.create_cf("versions", &versioned()).unwrap();
    cf.writer().at(10).put(b"a", b"a10").unwrap();
    cf.writer().at(20).put(b"a", b"a20").unwrap();
    cf.writer().at(10).put(b"b", b"b10").unwrap();
    cf.writer().at(5).put(b"c", b"c5").unwrap();
    let mut history = at(u64::MAX);
    history.iter_start_timestamp(10);
    let r = cf.reader().options(&history);
    let after_a: Vec<_> = r
        .scan((Excluded(&b"a"[..]), Unbounded), |k, v| {
            (k.to_vec(), v.to_vec())
        })
        .collect::<pinrocks::Result<_>>()
        .unwrap();
    assert_eq!(after_a, [(b"b".to_vec(), b"b10".to_vec())]); // c's only version is before 10
    let all: Vec<_> = r
        .scan(.., |k, v| (k.to_vec(), v.to_vec()))
        .collect::<pinrocks::Result<_>>()
        .unwrap();
    assert_eq!(all.len(), 3, "{all:?}");
    // Backward: refused, for good, whichever way the cursor moves back.
    let reversed: Vec<_> = r.scan_rev(.., |k, _| k.to_vec()).collect();
    assert_eq!(reversed.len(), 1);
    assert!(matches!(reversed[0], Err(Error::InvalidInput { .. })));
    let mut cursor = r.iter();
    cursor.seek_to_first();
    assert!(cursor.entry().is_some());
    cursor.prev();
    assert_eq!(cursor.entry(), None);
    cursor.seek_to_first();
    assert_eq!((cursor.entry(), cursor.version()), (None, None));
    assert!(matches!(cursor.status(), Err(Error::InvalidInput { .. })));
    let mut cursor = r.iter();
    cursor.seek_for_prev(b"b");
    assert!(cursor.status().is_err());
    assert!(matches!(cursor.refresh(), Err(Error::InvalidInput { .. })));
    // A read refused before, for its timestamps, keeps that reason whatever the moves.
    let mut refused = cf.reader().iter(); // no timestamp
    refused.prev();
    refused.seek_to_first();
    mismatch(refused.status(), 8, 0);
    mismatch(refused.refresh(), 8, 0);
    // Without a history start, backward is as any cursor's.
    let options = at(u64::MAX);
    let keys: Vec<_> = cf
        .reader()
        .options(&options)
        .scan_rev(.., |k, _| k.to_vec())
        .collect::<pinrocks::Result<_>>()
        .unwrap();
    assert_eq!(keys, [b"c".to_vec(), b"b".to_vec(), b"a".to_vec()]);
    // A family with timestamps has no "now" to probe: may exist, never a false "no".
    assert!(cf.key_may_exist(b"a"));
    assert!(cf.key_may_exist(b"absent"));
}

//! Faults (feature `fault-injection`): power losses that drop what was not synced, injected
//! write errors, a full disk; what the database keeps, what it reports, and how it recovers.
#![cfg(feature = "fault-injection")]

use std::collections::BTreeMap;

use pinrocks::options::{FaultFs, FaultKind, StopError};
use pinrocks::{Db, Error, ErrorKind, ErrorSeverity, Options, WriteBatch, WriteOptions};
use proptest::prelude::*;

use crate::common::{create_options, proptest_config};

fn on(fs: &FaultFs) -> Options {
    let mut options = create_options();
    options.fault_fs(fs);
    options
}

fn synced() -> WriteOptions {
    let mut options = WriteOptions::new();
    options.sync(true);
    options
}

fn contents(db: &Db) -> BTreeMap<Vec<u8>, Vec<u8>> {
    db.reader()
        .scan(.., |k, v| (k.to_vec(), v.to_vec()))
        .collect::<pinrocks::Result<_>>()
        .unwrap()
}

#[test]
fn a_power_loss_keeps_every_synced_write_and_a_prefix_of_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let fs = FaultFs::new().unwrap();
    let options = on(&fs);
    let key = |i: u32| format!("k{i:04}").into_bytes();
    {
        let db = Db::open(&options, dir.path()).unwrap();
        for i in 0..300 {
            let mut writer = db.writer();
            let sync = synced();
            if i == 199 {
                writer = writer.options(&sync); // syncs the WAL, and all before it
            }
            writer.put(&key(i), &i.to_le_bytes()).unwrap();
        }
        fs.stop(StopError::PowerLoss);
    }
    fs.restart_after_power_loss().unwrap();
    let db = Db::open(&options, dir.path()).unwrap();
    let kept = contents(&db);
    for i in 0..200 {
        assert_eq!(
            kept.get(&key(i)).map(Vec::as_slice),
            Some(&i.to_le_bytes()[..]),
            "synced {i}"
        );
    }
    // After the sync: some prefix, in write order (the WAL is one ordered file).
    let after: Vec<u32> = (200..300).filter(|i| kept.contains_key(&key(*i))).collect();
    assert_eq!(after, (200..200 + after.len() as u32).collect::<Vec<_>>());
    assert_eq!(kept.len(), 200 + after.len());
    assert!(
        after.len() < 100,
        "nothing after the sync was lost: no power loss happened"
    );
}

/// The negative control: without a sync nothing is promised, and the file system does lose
/// it (so the checks above are not vacuous).
#[test]
fn a_power_loss_loses_what_was_never_synced() {
    let dir = tempfile::tempdir().unwrap();
    let fs = FaultFs::new().unwrap();
    let options = on(&fs);
    {
        let db = Db::open(&options, dir.path()).unwrap();
        for i in 0..100u32 {
            db.put(&i.to_be_bytes(), b"unsynced").unwrap();
        }
        fs.stop(StopError::PowerLoss);
    }
    fs.restart_after_power_loss().unwrap();
    let db = Db::open(&options, dir.path()).unwrap();
    assert!(
        contents(&db).len() < 100,
        "an unsynced WAL survived a power loss"
    );
}

/// What a failed WAL write does, as RocksDB grades it: a retryable error stops writes
/// (`Hard`) until RocksDB's own recovery (or `resume`) clears it; any other is `Fatal`:
/// `resume` refuses, and only a reopen (nothing acknowledged lost) writes again.
#[test]
fn an_injected_wal_error_fails_the_write_and_stops_writes_as_rocksdb_grades_it() {
    for retryable in [true, false] {
        let dir = tempfile::tempdir().unwrap();
        let fs = FaultFs::new().unwrap();
        let db = Db::open(&on(&fs), dir.path()).unwrap();
        db.writer().options(&synced()).put(b"before", b"1").unwrap();
        fs.inject_errors(FaultKind::Write, 1, retryable, false, 7);
        let failed = db.writer().options(&synced()).put(b"during", b"2");
        fs.inject_errors(FaultKind::Write, 0, false, false, 7);
        assert!(fs.take_injected_count(FaultKind::Write) >= 1);
        match failed {
            Err(Error::RocksDb {
                kind: ErrorKind::IoError,
                message,
            }) => {
                assert!(message.contains("injected"), "{message}")
            }
            other => panic!("{other:?}"),
        }
        let stopped = db.background_error().unwrap().expect("writes stopped");
        let want = if retryable {
            ErrorSeverity::Hard
        } else {
            ErrorSeverity::Fatal
        };
        assert_eq!(stopped.severity, want);
        if retryable {
            resume_within_seconds(&db);
            db.put(b"after", b"3").unwrap();
            assert_eq!(db.get(b"after").unwrap().as_deref(), Some(&b"3"[..]));
        } else {
            assert!(db.resume().is_err());
            assert!(db.put(b"blocked", b"3").is_err());
            drop(db);
            let db = Db::open(&on(&fs), dir.path()).unwrap();
            db.put(b"after", b"3").unwrap();
            assert_eq!(db.get(b"during").unwrap(), None);
        }
    }
}

/// Resumes `db`, waiting out RocksDB's own recovery if it is under way (`Busy`).
fn resume_within_seconds(db: &Db) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        match db.resume() {
            Ok(()) => return,
            Err(Error::RocksDb {
                kind: ErrorKind::Busy,
                ..
            }) if std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(20))
            }
            Err(e) => panic!("resume: {e:?}"),
        }
    }
}

#[test]
fn a_full_disk_stops_writes_with_no_space_until_it_has_room() {
    let dir = tempfile::tempdir().unwrap();
    let fs = FaultFs::new().unwrap();
    let db = Db::open(&on(&fs), dir.path()).unwrap();
    db.put(b"before", b"1").unwrap();
    fs.stop(StopError::NoSpace);
    match db.writer().options(&synced()).put(b"during", b"2") {
        Err(Error::RocksDb {
            kind: ErrorKind::NoSpace,
            ..
        }) => {}
        other => panic!("{other:?}"),
    }
    assert!(db.background_error().unwrap().is_some());
    fs.restart_intact().unwrap();
    resume_within_seconds(&db);
    assert!(db.background_error().unwrap().is_none());
    db.writer().options(&synced()).put(b"after", b"3").unwrap();
    db.flush().unwrap();
    assert_eq!(contents(&db).len(), 2);
}

#[test]
fn close_reports_an_injected_failure() {
    let dir = tempfile::tempdir().unwrap();
    let fs = FaultFs::new().unwrap();
    let db = Db::open(&on(&fs), dir.path()).unwrap();
    db.put(b"k", b"v").unwrap();
    fs.stop(StopError::IoError);
    match db.close() {
        Err(Error::RocksDb { .. }) => {}
        other => panic!("close on a stopped disk: {other:?}"),
    }
    fs.restart_intact().unwrap();
    // Read back from the file system's memory: nothing was synced, the close failed.
    let db = Db::open(&on(&fs), dir.path()).unwrap();
    assert_eq!(db.get(b"k").unwrap().as_deref(), Some(&b"v"[..]));
}

/// Which state of `states` (one per write, `[0]` before the first) `recovered` is, among those
/// after the last synced write: `None` is a violation (a synced write lost, a batch torn,
/// something never written, or a hole in the unsynced tail).
fn kept_prefix(states: &[State], last_synced: usize, recovered: &State) -> Option<usize> {
    (last_synced..states.len()).find(|&k| states[k] == *recovered)
}

/// The negative control of the crash check: claim unsynced writes as synced, and the check
/// finds them lost after a power loss.
#[test]
fn the_crash_check_catches_writes_claimed_synced_that_were_not() {
    let dir = tempfile::tempdir().unwrap();
    let fs = FaultFs::new().unwrap();
    let options = on(&fs);
    let mut states = vec![State::new()];
    {
        let db = Db::open(&options, dir.path()).unwrap();
        for k in 0..20u8 {
            db.put(&[k], &[k]).unwrap(); // not synced
            let mut next = states.last().unwrap().clone();
            apply(&mut next, &Write::Put(k, k));
            states.push(next);
        }
        fs.stop(StopError::PowerLoss);
    }
    fs.restart_after_power_loss().unwrap();
    let recovered = contents(&Db::open(&options, dir.path()).unwrap());
    let claimed = states.len() - 1; // the lie: "all synced"
    assert_eq!(kept_prefix(&states, claimed, &recovered), None);
    assert!(kept_prefix(&states, 0, &recovered).is_some()); // the truth holds
}

/// One write of the workload: a put, a delete, or a batch of both, synced or not.
#[derive(Debug, Clone)]
enum Write {
    Put(u8, u8),
    Delete(u8),
    Batch(Vec<(u8, Option<u8>)>),
}

fn write() -> impl Strategy<Value = (Write, bool)> {
    let op = prop_oneof![
        4 => (0u8..16, any::<u8>()).prop_map(|(k, v)| Write::Put(k, v)),
        1 => (0u8..16).prop_map(Write::Delete),
        2 => proptest::collection::vec((0u8..16, proptest::option::of(any::<u8>())), 1..6)
            .prop_map(Write::Batch),
    ];
    (op, proptest::bool::weighted(0.2))
}

type State = BTreeMap<Vec<u8>, Vec<u8>>;

fn apply(state: &mut State, write: &Write) {
    let mut one = |k: u8, v: Option<u8>| match v {
        Some(v) => state.insert(vec![k], vec![v]),
        None => state.remove(&vec![k]),
    };
    match write {
        Write::Put(k, v) => drop(one(*k, Some(*v))),
        Write::Delete(k) => drop(one(*k, None)),
        Write::Batch(ops) => ops.iter().for_each(|(k, v)| drop(one(*k, *v))),
    }
}

proptest! {
    #![proptest_config(proptest_config(12))]

    /// Cycles of writes, each acknowledged, some synced; a power loss at the end of each
    /// cycle; after the reopen the database must be the model after some prefix of the
    /// writes that contains every synced one: nothing synced lost, no batch torn, nothing
    /// that was never written, the unsynced tail lost only from its end.
    #[test]
    fn power_losses_keep_a_prefix_that_holds_every_synced_write(
        cycles in proptest::collection::vec(proptest::collection::vec(write(), 1..30), 1..6),
        flushes in proptest::collection::vec(any::<bool>(), 6),
        partial in proptest::collection::vec(proptest::option::of(any::<u32>()), 6),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let fs = FaultFs::new().unwrap();
        let options = on(&fs);
        let mut state = State::new();
        for (cycle, writes) in cycles.iter().enumerate() {
            // States after each write of the cycle; [0] is the state recovered before it.
            let mut states = vec![state.clone()];
            let mut last_synced = 0;
            {
                let db = Db::open(&options, dir.path()).unwrap();
                prop_assert_eq!(&contents(&db), &state);
                let sync = synced();
                for (i, (write, sync_it)) in writes.iter().enumerate() {
                    let mut writer = db.writer();
                    if *sync_it {
                        writer = writer.options(&sync);
                        last_synced = i + 1;
                    }
                    match write {
                        Write::Put(k, v) => writer.put(&[*k], &[*v]).unwrap(),
                        Write::Delete(k) => writer.delete(&[*k]).unwrap(),
                        Write::Batch(ops) => {
                            let mut batch = WriteBatch::new();
                            for (k, v) in ops {
                                match v {
                                    Some(v) => batch.writer().put(&[*k], &[*v]).unwrap(),
                                    None => batch.writer().delete(&[*k]).unwrap(),
                                }
                            }
                            writer.write(&batch).unwrap();
                        }
                    }
                    let mut next = states.last().unwrap().clone();
                    apply(&mut next, write);
                    states.push(next);
                    if flushes[cycle % flushes.len()] && i == writes.len() / 2 {
                        db.flush().unwrap(); // an SST, synced, in the middle
                        last_synced = i + 1;
                    }
                }
                fs.stop(StopError::PowerLoss);
            }
            // All of the unsynced data lost, or a random part of each file's (a torn WAL
            // record, which recovery must stop at).
            match partial[cycle % partial.len()] {
                Some(seed) => fs.restart_after_partial_power_loss(seed).unwrap(),
                None => fs.restart_after_power_loss().unwrap(),
            }
            let db = Db::open(&options, dir.path()).unwrap();
            let recovered = contents(&db);
            let kept = kept_prefix(&states, last_synced, &recovered);
            if std::env::var_os("PINROCKS_FAULT_STATS").is_some() {
                eprintln!(
                    "fault-stats cycle writes={} synced={} kept={:?} partial={}",
                    writes.len(),
                    last_synced,
                    kept,
                    partial[cycle % partial.len()].is_some()
                );
            }
            prop_assert!(
                kept.is_some(),
                "cycle {}: recovered {:?} is no state from write {} on", cycle, recovered, last_synced
            );
            state = recovered;
        }
    }
}

/// What keeps a copy of the options keeps their file system alive: an SST writer (whose
/// `finish` asks the `Env` for the host name) and a backup engine (which keeps the `Env` for
/// its directories), used after the options and every other handle of the `FaultFs` dropped
/// (under memcheck too).
#[test]
fn an_sst_writer_and_a_backup_engine_keep_the_file_system_alive() {
    let dir = tempfile::tempdir().unwrap();
    let backups = tempfile::tempdir().unwrap();
    let (mut writer, engine) = {
        let fs = FaultFs::new().unwrap();
        let options = on(&fs);
        let writer =
            pinrocks::admin::SstFileWriter::create(&options, dir.path().join("a.sst")).unwrap();
        let engine = pinrocks::admin::BackupEngine::open(&options, backups.path()).unwrap();
        (writer, engine)
    };
    writer.put(b"a", b"1").unwrap();
    writer.finish().unwrap();
    let db = Db::open(&create_options(), dir.path().join("db")).unwrap();
    db.put(b"k", b"v").unwrap();
    let id = engine.create_backup(&db, true).unwrap();
    engine.verify(id).unwrap();
    assert_eq!(engine.backups().unwrap().len(), 1);
}

/// A flush that meets a failing disk (an I/O error that is neither retryable nor data
/// loss): the flush reports it and RocksDB grades it `Fatal`, so writes stop and `resume`
/// refuses even once the disk is back; a reopen recovers every acknowledged write from the
/// WAL, and writes go on.
#[test]
fn a_failed_flush_stops_writes_until_reopened_and_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let fs = FaultFs::new().unwrap();
    let db = Db::open(&on(&fs), dir.path()).unwrap();
    for i in 0..50u32 {
        db.writer()
            .options(&synced())
            .put(&i.to_be_bytes(), b"v")
            .unwrap();
    }
    fs.stop(StopError::IoError);
    match db.flush() {
        Err(Error::RocksDb {
            kind: ErrorKind::IoError,
            ..
        }) => {}
        other => panic!("flush on a failing disk: {other:?}"),
    }
    let stopped = db.background_error().unwrap().expect("writes stopped");
    assert_eq!(stopped.severity, ErrorSeverity::Fatal, "{stopped:?}");
    fs.restart_intact().unwrap();
    assert!(db.resume().is_err());
    assert!(db.put(b"refused", b"v").is_err());
    drop(db);
    let db = Db::open(&on(&fs), dir.path()).unwrap();
    assert_eq!(contents(&db).len(), 50);
    db.put(b"after", b"v").unwrap();
    db.flush().unwrap();
    assert_eq!(contents(&db).len(), 51);
}

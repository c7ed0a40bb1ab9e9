//! RocksDB 11.8.1's recovery from a background error can wait for ever (feature
//! `fault-injection`; 11.12.0's does not, and there the tests expect no hang): a family whose flush was asked for while the error stopped flushes
//! keeps that request queued; the recovery queues none of its own for the family (one
//! request per family: `RetryFlushesForErrorRecovery`), and the queued request is dropped
//! as no recovery flush (`BackgroundFlush`). The family's memtable is never flushed, and
//! the recovery waits for it in `WaitForFlushMemTables` until the database shuts down.
//! pinrocks marks the shutdown before the close of a database in which a flush or
//! compaction failed, so a close ends such a recovery; a manual `resume` that waits for
//! ever is ended by `cancel_background_work`.
#![cfg(feature = "fault-injection")]

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use pinrocks::options::{FaultFs, FaultKind};
use pinrocks::{ColumnFamily, Db, Error, ErrorKind, Options, WriteOptions};

use tempfile::TempDir;

use crate::background_faults::io_error_injected;
use crate::common::create_options;
use crate::crash_workload::Rng;

const IMMUTABLE: &str = "rocksdb.num-immutable-mem-table";

fn on(fs: &FaultFs, resume_count: u32, interval: Duration) -> Options {
    let mut options = create_options();
    options
        .fault_fs(fs)
        .create_missing_column_families(true)
        .max_bgerror_resume_count(resume_count)
        .bgerror_resume_retry_interval(interval);
    options
}

/// Every background write fails (`retryable`: RocksDB's own recovery retries it), or none.
fn faults(fs: &FaultFs, on: bool, retryable: bool) {
    fs.inject_background_errors(FaultKind::Write, u32::from(on), retryable, false, 7);
}

/// A database with families "default" and "b" on a new fault-injecting file system whose
/// sleeps are capped at 1 ms, RocksDB's own recovery as given.
fn open_two_families(resume_count: u32, interval: Duration) -> (TempDir, FaultFs, Db) {
    let dir = tempfile::tempdir().unwrap();
    let fs = FaultFs::new().unwrap();
    fs.cap_sleeps(Some(Duration::from_millis(1)));
    let db = Db::open_cf(
        &on(&fs, resume_count, interval),
        dir.path(),
        ["default", "b"],
    )
    .unwrap();
    (dir, fs, db)
}

/// Writes one key to each family, fails the default family's flush (a soft background
/// error that stops flushes), then asks for `b`'s flush: refused with the same error, its
/// request left queued.
fn a_flush_queued_behind_a_background_error(
    fs: &FaultFs,
    db: &Db,
    b: &ColumnFamily<'_>,
    retryable: bool,
) {
    db.writer().put(b"a", b"in default").unwrap();
    db.writer().cf(b).put(b"b", b"in b").unwrap();
    faults(fs, true, retryable);
    io_error_injected(db.flush());
}

fn holds_both(dir: &std::path::Path) {
    let db = Db::open_cf(&create_options(), dir, ["default", "b"]).unwrap();
    let b = db.cf("b").unwrap();
    assert_eq!(
        db.reader().get(b"a").unwrap().as_deref(),
        Some(&b"in default"[..])
    );
    assert_eq!(
        db.reader().cf(&b).get(b"b").unwrap().as_deref(),
        Some(&b"in b"[..])
    );
}

/// RocksDB's own recovery left waiting for ever: the close ends it (without pinrocks'
/// shutdown mark first, `DB::Close` joins the recovery thread for ever).
#[test]
fn a_close_ends_a_recovery_that_waits_for_a_dropped_flush() {
    a_recovery_waiting_for_a_dropped_flush_ends_at(Ending::Drop);
}

/// The same, closed with `Db::close`: the close reports, and nothing touches the closed
/// database after it (RocksDB's logger is gone: a second shutdown mark would write to it).
#[test]
fn db_close_ends_a_recovery_that_waits_for_a_dropped_flush() {
    a_recovery_waiting_for_a_dropped_flush_ends_at(Ending::Close);
}

#[derive(PartialEq)]
enum Ending {
    Drop,
    Close,
}

/// Tries to form the hang (timing decides: under valgrind's slowdown a flush thread can
/// pick up and drop b's request before the second attempt, which then flushes b itself).
/// `None` when b was flushed; `Some` with the recovery waiting for ever.
fn a_recovery_waiting_for_a_dropped_flush() -> Option<(TempDir, FaultFs, Db)> {
    let (dir, fs, db) = open_two_families(1000, Duration::from_millis(300));
    let b = db.cf("b").unwrap();
    a_flush_queued_behind_a_background_error(&fs, &db, &b, true);
    // The first automatic attempt fails (its flush meets the fault) and waits 300 ms.
    std::thread::sleep(Duration::from_millis(100));
    db.pause_background_work().unwrap();
    assert!(
        b.flush().is_err(),
        "b's flush is refused while flushes are stopped"
    );
    faults(&fs, false, false);
    // The second attempt queues the default family's flush, skips b's (queued), and waits
    // on the pause; the continue runs b's request (dropped) and the default family's.
    std::thread::sleep(Duration::from_millis(600));
    db.continue_background_work().unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while db.property_int(IMMUTABLE).unwrap() != Some(0) {
        assert!(
            Instant::now() < deadline,
            "the default family was never flushed"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(Duration::from_millis(200));
    let waiting = b.property_int(IMMUTABLE).unwrap();
    if waiting == Some(0) {
        eprintln!("b was flushed: no hang formed this try");
        drop(b);
        drop(db);
        holds_both(dir.path());
        return None;
    }
    assert_eq!(waiting, Some(1), "b's memtable waits unflushed");
    match db.resume() {
        Err(Error::RocksDb {
            kind: ErrorKind::Busy,
            ..
        }) => {}
        other => panic!("RocksDB's recovery still runs: {other:?}"),
    }
    drop(b);
    Some((dir, fs, db))
}

fn a_recovery_waiting_for_a_dropped_flush_ends_at(ending: Ending) {
    let tries = 5;
    let formed = (0..tries).find_map(|_| a_recovery_waiting_for_a_dropped_flush());
    if cfg!(rocksdb_11_12) {
        // RocksDB 11.12.0 flushes b: no recovery waits for ever, nothing for a close to end.
        assert!(formed.is_none(), "RocksDB 11.12.0 formed 11.8.1's hang");
        return;
    }
    let (dir, _fs, db) =
        formed.unwrap_or_else(|| panic!("b was flushed in each of {tries} tries: no hang formed"));
    let closed = Arc::new(AtomicU64::new(0));
    let watched = closed.clone();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_secs(30));
        if watched.load(Ordering::Relaxed) == 0 {
            eprintln!("the close still waits for RocksDB's recovery after 30 s");
            std::process::abort();
        }
    });
    if ending == Ending::Close {
        db.close().unwrap();
    } else {
        drop(db);
    }
    closed.store(1, Ordering::Relaxed);
    holds_both(dir.path());
}

/// A manual `resume` that waits for its flushes for ever ends at a
/// `cancel_background_work` from another thread, with `ShutdownInProgress`; the database
/// then closes and reopens whole. (The wait here is a pause's; RocksDB's own hang above
/// can meet a manual resume too, seen once in the crash test, not yet repeated.)
#[test]
fn cancel_ends_a_resume_that_waits_for_its_flushes() {
    let (dir, fs, db) = open_two_families(0, Duration::from_millis(1));
    let b = db.cf("b").unwrap();
    a_flush_queued_behind_a_background_error(&fs, &db, &b, true);
    faults(&fs, false, false);
    db.pause_background_work().unwrap();
    let resumed = std::thread::scope(|scope| {
        let resuming = scope.spawn(|| db.resume());
        std::thread::sleep(Duration::from_millis(500));
        assert!(!resuming.is_finished(), "resume waits for its flush");
        assert_eq!(db.property_int(IMMUTABLE).unwrap(), Some(1));
        db.cancel_background_work(false).unwrap();
        resuming.join().unwrap()
    });
    match resumed {
        Err(Error::RocksDb {
            kind: ErrorKind::ShutdownInProgress,
            ..
        }) => {}
        other => panic!("the cancel ends the resume: {other:?}"),
    }
    drop(b);
    drop(db);
    holds_both(dir.path());
}

/// Flush faults, refused flushes, resumes and closes in a loop, for as long as
/// `PINROCKS_RECOVERY_STRESS_SECONDS` says (60 s): every close must end. Found the hang
/// above within a minute before the shutdown mark; a watchdog aborts after 30 s without
/// progress. Run by `scripts/soak.sh`.
#[test]
#[ignore = "a long stress loop, for scripts/soak.sh"]
fn recovery_stress_closes_every_database() {
    let seconds = std::env::var("PINROCKS_RECOVERY_STRESS_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    let progress = Arc::new(AtomicU64::new(0));
    let watched = progress.clone();
    std::thread::spawn(move || {
        let mut last = (0, Instant::now());
        loop {
            std::thread::sleep(Duration::from_secs(1));
            let now = watched.load(Ordering::Relaxed);
            if now != last.0 {
                last = (now, Instant::now());
            } else if last.1.elapsed() > Duration::from_secs(30) {
                eprintln!("recovery stress: no progress for 30 s at step {now}");
                std::process::abort();
            }
        }
    });
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let mut rng = Rng::Seeded(
        std::env::var("PINROCKS_RECOVERY_STRESS_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(1),
    );
    let mut nowal = WriteOptions::new();
    nowal.disable_wal(true);
    let mut databases = 0u64;
    while Instant::now() < deadline {
        databases += 1;
        let (_dir, fs, db) = open_two_families(rng.below(3) as u32, Duration::from_millis(1));
        let b = db.cf("b").unwrap();
        for _ in 0..30 {
            progress.fetch_add(1, Ordering::Relaxed);
            let k = [rng.below(16) as u8];
            // Refusals are expected here; only a wait that never ends is a finding.
            let _ = match rng.below(10) {
                0 | 1 => db.writer().put(&k, b"v"),
                2 => db.writer().options(&nowal).put(&k, b"w"),
                3 => db.writer().cf(&b).put(&k, b"c"),
                4 | 5 => db.flush(),
                6 => b.flush(),
                7 => {
                    let seed = rng.below(1 << 31) as u32;
                    fs.inject_background_errors(
                        FaultKind::Write,
                        1 + rng.below(3) as u32,
                        true,
                        false,
                        seed,
                    );
                    Ok(())
                }
                8 => {
                    faults(&fs, false, false);
                    // Manual resumes only with RocksDB's own recovery off: with it on, a
                    // resume can meet the hang above (ended only by a cancel).
                    Ok(())
                }
                _ => db.compact_range(None, None),
            };
        }
        if rng.below(2) == 0 {
            faults(&fs, false, false);
        }
        drop(b);
        drop(db);
        progress.fetch_add(1, Ordering::Relaxed);
    }
    eprintln!("recovery stress: {databases} databases opened, written, failed and closed");
}

//! RocksDB's info log in Rust: lines reach the `log` crate under their target with their
//! levels mapped, or a closure with RocksDB's levels; no LOG file is written; a burst of
//! flushes loses no line; a panicking or re-entering closure leaves the database working.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use crate::common::create_options;
use pinrocks::callbacks::{InfoLog, LogLevel};
use pinrocks::{Db, Error};

/// The records the test logger saw: target, level, message.
static SEEN: Mutex<Vec<(String, log::Level, String)>> = Mutex::new(Vec::new());

struct TestLogger;

impl log::Log for TestLogger {
    fn enabled(&self, _: &log::Metadata<'_>) -> bool {
        true
    }
    fn log(&self, record: &log::Record<'_>) {
        SEEN.lock().unwrap().push((
            record.target().to_owned(),
            record.level(),
            record.args().to_string(),
        ));
    }
    fn flush(&self) {}
}

fn install_test_logger() {
    static INSTALLED: OnceLock<()> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        log::set_logger(&TestLogger).unwrap();
        log::set_max_level(log::LevelFilter::Trace);
    });
}

fn seen_for(target: &str) -> Vec<(log::Level, String)> {
    SEEN.lock()
        .unwrap()
        .iter()
        .filter(|(t, ..)| t == target)
        .map(|(_, level, message)| (*level, message.clone()))
        .collect()
}

#[test]
fn lines_reach_log_under_their_target_and_no_log_file_is_written() {
    install_test_logger();
    let target = "pinrocks-test::info-log::to-log";
    let dir = tempfile::tempdir().unwrap();
    let mut options = create_options();
    options.info_log(&InfoLog::to_log(target), LogLevel::Info);
    let db = Db::open(&options, dir.path()).unwrap();
    db.put(b"k", b"v").unwrap();
    db.flush().unwrap();
    drop(db);
    assert!(!dir.path().join("LOG").exists(), "no LOG file");
    let lines = seen_for(target);
    // The header RocksDB writes at open, as info.
    assert!(
        lines
            .iter()
            .any(|(level, m)| *level == log::Level::Info && m.contains(&version_line())),
        "{lines:?}"
    );
    assert!(lines
        .iter()
        .any(|(_, m)| m.contains("\"event\": \"flush_started\"")));
    assert!(lines.iter().all(|(level, _)| *level <= log::Level::Info));
}

/// The first line of RocksDB's header: the version linked.
fn version_line() -> String {
    format!("RocksDB version: {}", pinrocks::ROCKSDB_VERSION)
}

/// A closure sees RocksDB's own levels; below the level set, only the header (which
/// RocksDB writes whatever the level) arrives.
#[test]
fn a_closure_sees_rocksdbs_levels_and_the_level_filters() {
    let lines: Arc<Mutex<Vec<(LogLevel, String)>>> = Arc::default();
    let sink = {
        let lines = Arc::clone(&lines);
        InfoLog::new(move |level, line| lines.lock().unwrap().push((level, line.to_owned())))
    };
    let dir = tempfile::tempdir().unwrap();
    let mut options = create_options();
    options.info_log(&sink, LogLevel::Warn);
    let db = Db::open(&options, dir.path()).unwrap();
    db.put(b"k", b"v").unwrap();
    db.flush().unwrap();
    drop(db);
    let lines = lines.lock().unwrap();
    assert!(lines
        .iter()
        .any(|(level, m)| *level == LogLevel::Header && m.contains(&version_line())));
    assert!(
        lines
            .iter()
            .all(|(level, _)| matches!(level, LogLevel::Header | LogLevel::Warn | LogLevel::Error)),
        "{:?}",
        lines
            .iter()
            .filter(|(l, _)| *l == LogLevel::Info)
            .take(3)
            .collect::<Vec<_>>()
    );
    assert!(!lines.iter().any(|(_, m)| m.contains("flush_started")));
}

/// 40 flushes, each logged by RocksDB's background flush threads while this thread writes:
/// exactly 40 flush-started and 40 flush-finished event lines arrive (the line is delivered
/// synchronously, on the thread that logs; nothing is buffered).
#[test]
fn a_burst_of_flushes_loses_no_line() {
    let started = Arc::new(AtomicUsize::new(0));
    let finished = Arc::new(AtomicUsize::new(0));
    let sink = {
        let (started, finished) = (Arc::clone(&started), Arc::clone(&finished));
        InfoLog::new(move |_, line| {
            if line.contains("\"event\": \"flush_started\"") {
                started.fetch_add(1, Ordering::Relaxed);
            }
            if line.contains("\"event\": \"flush_finished\"") {
                finished.fetch_add(1, Ordering::Relaxed);
            }
        })
    };
    let dir = tempfile::tempdir().unwrap();
    let mut options = create_options();
    options.info_log(&sink, LogLevel::Info);
    let db = Db::open(&options, dir.path()).unwrap();
    for i in 0..40u32 {
        db.put(&i.to_be_bytes(), &[7; 100]).unwrap();
        db.flush().unwrap();
    }
    drop(db);
    assert_eq!(started.load(Ordering::Relaxed), 40);
    assert_eq!(finished.load(Ordering::Relaxed), 40);
}

/// A closure that panics (on each flush's event lines), or reads its database, leaves the
/// database working: the panicking lines are dropped, the read is refused with a typed
/// error.
#[test]
fn a_panicking_or_reentering_closure_leaves_the_database_working() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = create_options();
    let panics = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&panics);
    options.info_log(
        &InfoLog::new(move |_, line| {
            if line.contains("\"event\": \"flush_") {
                counted.fetch_add(1, Ordering::Relaxed);
                std::panic::resume_unwind(Box::new("a logger that panics"));
            }
        }),
        LogLevel::Info,
    );
    let db = Db::open(&options, dir.path()).unwrap();
    for i in 0..10u32 {
        db.put(&i.to_be_bytes(), b"v").unwrap();
        db.flush().unwrap();
    }
    assert_eq!(
        db.get(&3u32.to_be_bytes()).unwrap().as_deref(),
        Some(&b"v"[..])
    );
    drop(db);
    assert_eq!(
        panics.load(Ordering::Relaxed),
        20,
        "each flush's two event lines panicked"
    );

    // A weak reference: the closure lives in the database's options.
    let slot: Arc<OnceLock<Weak<Db>>> = Arc::default();
    let refused = Arc::new(AtomicUsize::new(0));
    let sink = {
        let (slot, refused) = (Arc::clone(&slot), Arc::clone(&refused));
        InfoLog::new(move |_, _| {
            if let Some(db) = slot.get().and_then(Weak::upgrade) {
                if let Err(Error::InsideCallback { callback, .. }) = db.get(b"k") {
                    if callback == "info log" {
                        refused.fetch_add(1, Ordering::Relaxed);
                    }
                }
                // A property takes the database mutex, which RocksDB may hold here.
                if let Err(Error::InsideCallback { .. }) =
                    db.property_int("rocksdb.num-immutable-mem-table")
                {
                    refused.fetch_add(1000, Ordering::Relaxed);
                }
            }
        })
    };
    let dir = tempfile::tempdir().unwrap();
    let mut options = create_options();
    options.info_log(&sink, LogLevel::Info);
    let db = Arc::new(Db::open(&options, dir.path()).unwrap());
    slot.set(Arc::downgrade(&db)).ok().unwrap();
    db.put(b"k", b"v").unwrap();
    db.flush().unwrap();
    // Each line's read and property were both refused: 1 + 1,000 per line.
    let refused = refused.load(Ordering::Relaxed);
    assert!(
        refused > 0 && refused.is_multiple_of(1001),
        "the closure ran and was refused: {refused}"
    );
    assert_eq!(db.get(b"k").unwrap().as_deref(), Some(&b"v"[..]));
}

//! A service watching its database: a listener counts flushes, compactions, stalls and
//! background errors; RocksDB's info log goes to the `log` crate (here a few lines of
//! logger to stderr; in a service, `env_logger` or `tracing`'s bridge); and once a second,
//! while a writer runs, one summary line with the counts and a few typed properties.
//!
//! `cargo run --release --example service_monitor [seconds]` (3 by default)

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use pinrocks::callbacks::{
    BackgroundErrorInfo, CompactionInfo, EventListener, FlushInfo, InfoLog, LogLevel,
    StallCondition, StallInfo,
};
use pinrocks::{properties, Db, Options};

/// What the service counts, from RocksDB's threads: atomics, nothing that waits.
#[derive(Default)]
struct Counts {
    flushes: AtomicU64,
    flushed_bytes: AtomicU64,
    compactions: AtomicU64,
    stalls: AtomicU64,
    errors: AtomicU64,
}

impl EventListener for Counts {
    fn on_flush_completed(&self, info: &FlushInfo<'_>) {
        self.flushes.fetch_add(1, Ordering::Relaxed);
        // The file is borrowed for the call: look at it now, keep nothing.
        let size = std::fs::metadata(info.file_path).map_or(0, |m| m.len());
        self.flushed_bytes.fetch_add(size, Ordering::Relaxed);
    }
    fn on_compaction_completed(&self, info: &CompactionInfo<'_>) {
        if info.status.is_ok() {
            self.compactions.fetch_add(1, Ordering::Relaxed);
        }
    }
    fn on_stall_conditions_changed(&self, info: &StallInfo<'_>) {
        if info.current != StallCondition::Normal {
            self.stalls.fetch_add(1, Ordering::Relaxed);
        }
    }
    fn on_background_error(&self, info: &BackgroundErrorInfo<'_>) {
        self.errors.fetch_add(1, Ordering::Relaxed);
        log::error!(target: "service", "{} failed: {}", info.reason, info.error);
    }
}

/// The smallest `log` logger: warnings and errors to stderr (RocksDB's info lines are
/// counted, not printed, to keep the example's output to its summary).
struct Stderr {
    rocksdb_lines: AtomicU64,
}

impl log::Log for Stderr {
    fn enabled(&self, _: &log::Metadata<'_>) -> bool {
        true
    }
    fn log(&self, record: &log::Record<'_>) {
        if record.target() == "rocksdb" {
            self.rocksdb_lines.fetch_add(1, Ordering::Relaxed);
        }
        if record.level() <= log::Level::Warn {
            eprintln!("{} {}: {}", record.level(), record.target(), record.args());
        }
    }
    fn flush(&self) {}
}

static LOGGER: Stderr = Stderr {
    rocksdb_lines: AtomicU64::new(0),
};

fn main() -> pinrocks::Result<()> {
    let seconds: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(3);
    log::set_logger(&LOGGER).expect("one logger");
    log::set_max_level(log::LevelFilter::Info);

    let counts = Arc::new(Counts::default());
    let dir = tempfile::tempdir().expect("temporary directory");
    let mut options = Options::new();
    options
        .create_if_missing(true)
        .write_buffer_size(1 << 20)
        // RocksDB's log, to the `log` crate under target "rocksdb": no LOG file.
        .info_log(&InfoLog::to_log("rocksdb"), LogLevel::Info)
        .add_event_listener(counts.clone());
    let db = Db::open(&options, dir.path())?;

    let stop = AtomicBool::new(false);
    let written = AtomicU64::new(0);
    std::thread::scope(|s| -> pinrocks::Result<()> {
        let writer = s.spawn(|| -> pinrocks::Result<()> {
            let value = vec![7u8; 400];
            let mut i = 0u64;
            while !stop.load(Ordering::Relaxed) {
                db.put(&i.to_be_bytes(), &value)?;
                i += 1;
                written.store(i, Ordering::Relaxed);
            }
            Ok(())
        });
        let start = Instant::now();
        for second in 1..=seconds {
            std::thread::sleep(
                (start + Duration::from_secs(second)).saturating_duration_since(Instant::now()),
            );
            let memtables = db.get_property(&properties::NUM_IMMUTABLE_MEM_TABLE)?;
            let level0 = db.get_property(&properties::num_files_at_level(0))?;
            let stopped = db.background_error()?;
            println!(
                "{second}s: {} writes, {} flushes ({} KiB), {} compactions, {} stalls, \
                 {} errors{}, {} immutable memtables, {} L0 files, {} RocksDB log lines",
                written.load(Ordering::Relaxed),
                counts.flushes.load(Ordering::Relaxed),
                counts.flushed_bytes.load(Ordering::Relaxed) >> 10,
                counts.compactions.load(Ordering::Relaxed),
                counts.stalls.load(Ordering::Relaxed),
                counts.errors.load(Ordering::Relaxed),
                stopped.map_or(String::new(), |e| format!(" (writes stopped: {})", e.error)),
                memtables.unwrap_or(0),
                level0.as_deref().unwrap_or("?"),
                LOGGER.rocksdb_lines.load(Ordering::Relaxed),
            );
        }
        stop.store(true, Ordering::Relaxed);
        writer.join().expect("the writer does not panic")
    })?;
    assert!(
        counts.flushes.load(Ordering::Relaxed) > 0,
        "a second of writes flushes"
    );
    Ok(())
}

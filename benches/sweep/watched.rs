//! What watching costs: the same reads and writes on two databases, one with an event
//! listener (every event counted) and RocksDB's info log delivered to Rust at `Info`, one
//! with neither. Timed paired and interleaved (`paired.rs`). Small write buffers on both,
//! so the writes flush (and compact) during the run and the events fire.
//!
//! `sweep watched [--quick]`: a markdown table.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use pinrocks::callbacks::{
    BackgroundErrorInfo, CompactionInfo, EventListener, FlushInfo, InfoLog, IngestionInfo,
    LogLevel, MemtableInfo, RecoveryInfo, StallInfo, TableFileInfo,
};
use pinrocks::{Db, Options};

use crate::paired::{self, Ratio, Read};
use crate::tiers;

/// Counts every event (it overrides all, and wants all: `Events::ALL`, the default).
#[derive(Default)]
struct Counting(AtomicU64);

impl Counting {
    fn tick(&self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

impl EventListener for Counting {
    fn on_flush_begin(&self, _: &FlushInfo<'_>) {
        self.tick()
    }
    fn on_flush_completed(&self, _: &FlushInfo<'_>) {
        self.tick()
    }
    fn on_compaction_begin(&self, _: &CompactionInfo<'_>) {
        self.tick()
    }
    fn on_compaction_completed(&self, _: &CompactionInfo<'_>) {
        self.tick()
    }
    fn on_memtable_sealed(&self, _: &MemtableInfo<'_>) {
        self.tick()
    }
    fn on_table_file_created(&self, _: &TableFileInfo<'_>) {
        self.tick()
    }
    fn on_table_file_deleted(&self, _: &TableFileInfo<'_>) {
        self.tick()
    }
    fn on_stall_conditions_changed(&self, _: &StallInfo<'_>) {
        self.tick()
    }
    fn on_external_file_ingested(&self, _: &IngestionInfo<'_>) {
        self.tick()
    }
    fn on_background_error(&self, _: &BackgroundErrorInfo<'_>) {
        self.tick()
    }
    fn on_error_recovery_begin(&self, _: &RecoveryInfo<'_>) {
        self.tick()
    }
    fn on_error_recovery_end(&self, _: Option<&pinrocks::Error>) {
        self.tick()
    }
    fn on_column_family_handle_deleted(&self, _: &str) {
        self.tick()
    }
}

fn options(watch: Option<(&Arc<Counting>, &InfoLog)>) -> Options {
    let mut options = tiers::pinrocks_options();
    options.write_buffer_size(4 << 20);
    if let Some((listener, log)) = watch {
        options
            .add_event_listener(listener.clone())
            .info_log(log, LogLevel::Info);
    }
    options
}

pub fn main(quick: bool) {
    let (rounds, slice) = if quick {
        (2, Duration::from_millis(1))
    } else {
        (40, Duration::from_millis(10))
    };
    let events = Arc::new(Counting::default());
    let lines = Arc::new(AtomicU64::new(0));
    let log = {
        let lines = lines.clone();
        InfoLog::new(move |_, _| {
            lines.fetch_add(1, Ordering::Relaxed);
        })
    };
    println!("| operation | size | watched | plain | watched vs plain |");
    println!("|---|---|---:|---:|---|");
    for size in crate::progress::steps("watched", [8usize, 4096].into_iter()) {
        let count = if quick { 64 } else { tiers::key_count(size) };
        let keys = tiers::random_keys(count);
        let (watched_dir, plain_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let watched = Db::open(&options(Some((&events, &log))), watched_dir.path()).unwrap();
        let plain = Db::open(&options(None), plain_dir.path()).unwrap();
        for db in [&watched, &plain] {
            for i in 0..count {
                db.put(&tiers::key(i), &tiers::value(i, size)).unwrap();
            }
            tiers::settle_pinrocks(db, count);
        }
        let (w, p) = (watched.reader(), plain.reader());
        let mut watched_read = |k: &[u8]| w.get_pinned(k, |v| v.len() as u64).unwrap().unwrap();
        let mut plain_read = |k: &[u8]| p.get_pinned(k, |v| v.len() as u64).unwrap().unwrap();
        let mut ways: [Read<'_>; 2] = [&mut watched_read, &mut plain_read];
        let (r, _) = paired::run(&mut ways, &keys, rounds, slice);
        row("pinned read", size, &r);

        let value = tiers::value(1, size);
        let mut watched_put = |k: &[u8]| {
            watched.put(k, &value).unwrap();
            size as u64
        };
        let mut plain_put = |k: &[u8]| {
            plain.put(k, &value).unwrap();
            size as u64
        };
        let mut ways: [Read<'_>; 2] = [&mut watched_put, &mut plain_put];
        let (r, _) = paired::run(&mut ways, &keys, rounds, slice);
        row("put", size, &r);
    }
    println!(
        "\n{} rounds of {} ms per database, interleaved, in a balanced order; the watched \
         one told {} events and {} log lines during the run; \"watched vs plain\": how many \
         times faster the watched one is (below 1: slower), median of per-round ratios [95% \
         bootstrap interval] (first half / second half); `~`: the interval includes 1.",
        rounds.next_multiple_of(paired::cycle(2)),
        slice.as_millis(),
        events.0.load(Ordering::Relaxed),
        lines.load(Ordering::Relaxed),
    );
}

fn row(operation: &str, size: usize, r: &paired::Rounds) {
    let ns = |i: usize| paired::median(&mut r.ns[i].clone());
    println!(
        "| {operation} | {size} B | {:.0} ns | {:.0} ns | {} |",
        ns(0),
        ns(1),
        Ratio::of(&r.ns[1], &r.ns[0]).cell(),
    );
}

//! The numbers a service watches: typed properties (integers, text, maps; per family and
//! summed over families), the memtables' share of a range, the statistics level, and the
//! background error that stops writes, reported, suppressed, and cleared by `resume`.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use crate::common::{create_options, patterned};
use pinrocks::admin::Property;
use pinrocks::callbacks::{BackgroundErrorInfo, EventListener, RecoveryInfo};
use pinrocks::options::{Histogram, SstFileManager, StatsLevel, Ticker};
use pinrocks::{properties, Db, Error, ErrorKind, ErrorSeverity};

/// Integer, text and map properties by typed name, per family and summed over two.
#[test]
fn typed_properties_read_as_their_type_per_family_and_summed() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(&create_options(), dir.path()).unwrap();
    let other = db.create_cf("other", &create_options()).unwrap();
    for i in 0..3u8 {
        db.put(&[i], b"default").unwrap();
    }
    for i in 0..5u8 {
        other.writer().put(&[i], b"other").unwrap();
    }
    let entries = &properties::NUM_ENTRIES_ACTIVE_MEM_TABLE;
    assert_eq!(db.get_property(entries).unwrap(), Some(3));
    assert_eq!(other.get_property(entries).unwrap(), Some(5));
    assert_eq!(db.aggregated_property(entries).unwrap(), Some(8));

    db.flush().unwrap();
    assert_eq!(db.get_property(entries).unwrap(), Some(0));
    assert_eq!(db.aggregated_property(entries).unwrap(), Some(5));
    let level0 = properties::num_files_at_level(0);
    assert_eq!(level0.name(), "rocksdb.num-files-at-level0");
    assert_eq!(db.get_property(&level0).unwrap().as_deref(), Some("1"));
    assert_eq!(other.get_property(&level0).unwrap().as_deref(), Some("0"));

    let stats = db.get_property(&properties::CF_STATS_MAP).unwrap().unwrap();
    // Level statistics as doubles ("compaction.L<n>.<stat>"): the flushed file.
    assert_eq!(
        stats.get("compaction.L0.NumFiles").map(String::as_str),
        Some("1.000000")
    );
    let table = db
        .get_property(&properties::AGGREGATED_TABLE_PROPERTIES_MAP)
        .unwrap()
        .unwrap();
    assert_eq!(table.get("num_entries").map(String::as_str), Some("3"));
    let text = db.get_property(&properties::LEVEL_STATS).unwrap().unwrap();
    assert!(text.contains("Level Files Size(MB)"), "{text}");

    // Names RocksDB does not know, and a map asked of a text-only property: none.
    assert_eq!(
        db.get_property(&Property::int("rocksdb.no-such")).unwrap(),
        None
    );
    assert_eq!(
        db.get_property(&Property::map("rocksdb.sstables")).unwrap(),
        None
    );
}

/// What the memtables hold of a range, until a flush empties them.
#[test]
fn memtable_stats_count_a_range_until_it_is_flushed() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(&create_options(), dir.path()).unwrap();
    let cf = db.default_cf();
    for i in 0..100u32 {
        db.put(&i.to_be_bytes(), &patterned(100, i as u8)).unwrap();
    }
    let all = cf
        .approximate_memtable_stats(0u32.to_be_bytes(), 100u32.to_be_bytes())
        .unwrap();
    assert!((1..=100).contains(&all.entries), "{all:?}");
    assert!(all.bytes >= all.entries * 100, "{all:?}");
    let none = cf
        .approximate_memtable_stats(200u32.to_be_bytes(), 300u32.to_be_bytes())
        .unwrap();
    assert_eq!((none.entries, none.bytes), (0, 0));
    db.flush().unwrap();
    let flushed = cf
        .approximate_memtable_stats(0u32.to_be_bytes(), 100u32.to_be_bytes())
        .unwrap();
    assert_eq!((flushed.entries, flushed.bytes), (0, 0));
}

/// Tickers and histograms at three levels: nothing, tickers only, both.
#[test]
fn the_statistics_level_decides_what_is_counted() {
    let counted = |level: StatsLevel| {
        let dir = tempfile::tempdir().unwrap();
        let mut options = create_options();
        options.statistics_level(level);
        let db = Db::open(&options, dir.path()).unwrap();
        for i in 0..10u8 {
            db.put(&[i], b"v").unwrap();
            assert_eq!(db.get(&[i]).unwrap().as_deref(), Some(&b"v"[..]));
        }
        let statistics = db.statistics().unwrap();
        (
            statistics.ticker(Ticker::NumberKeysRead),
            statistics.histogram(Histogram::BytesPerRead).count,
        )
    };
    assert_eq!(counted(StatsLevel::DisableAll), (0, 0));
    assert_eq!(counted(StatsLevel::ExceptHistogramOrTimers), (10, 0));
    assert_eq!(counted(StatsLevel::ExceptTimers), (10, 10));
}

/// A background error seen: what failed, its kind, its severity.
type Seen = (&'static str, Option<ErrorKind>, Option<ErrorSeverity>);

/// What a listener saw and chose.
#[derive(Default)]
struct Watcher {
    suppress: bool,
    errors: Mutex<Vec<Seen>>,
    recoveries_stopped: AtomicUsize,
    ends: Mutex<Vec<Option<ErrorKind>>>,
}

impl EventListener for Watcher {
    fn on_background_error(&self, info: &BackgroundErrorInfo<'_>) {
        let seen = (info.reason, info.error.kind(), info.severity);
        self.errors.lock().unwrap().push(seen);
        if self.suppress {
            info.suppress();
        }
    }
    fn on_error_recovery_begin(&self, info: &RecoveryInfo<'_>) {
        info.disable_auto_recovery();
        self.recoveries_stopped.fetch_add(1, Ordering::Relaxed);
    }
    fn on_error_recovery_end(&self, error: Option<&Error>) {
        self.ends.lock().unwrap().push(error.and_then(Error::kind));
    }
}

/// A database whose SST files already fill the space limit, and the result of the flush
/// that goes over it: RocksDB writes the file, then sets a background error (`NoSpace`,
/// "Max allowed space was reached"), which the waiting flush returns unless a listener
/// suppressed it.
fn full(
    watcher: &Arc<Watcher>,
    dir: &std::path::Path,
) -> (Db, SstFileManager, pinrocks::Result<()>) {
    let files = SstFileManager::new();
    let mut options = create_options();
    options
        .sst_file_manager(&files)
        .add_event_listener(watcher.clone());
    let db = Db::open(&options, dir).unwrap();
    db.put(b"first", &patterned(4000, 1)).unwrap();
    db.flush().unwrap();
    files.set_max_allowed_space_usage(files.total_size());
    db.put(b"second", &patterned(4000, 2)).unwrap();
    assert_eq!(db.background_error().unwrap().map(|e| e.severity), None);
    let flushed = db.flush();
    (db, files, flushed)
}

/// A flush that hits the space limit stops writes with a hard error: `background_error`
/// says so (and the listener saw it, and stopped RocksDB's own recovery), writes fail with
/// it; once the limit is raised, `resume` clears it and writes go on.
#[test]
fn background_error_says_writes_are_stopped_until_resume_clears_it() {
    let watcher = Arc::new(Watcher::default());
    let dir = tempfile::tempdir().unwrap();
    let (db, files, flushed) = full(&watcher, dir.path());
    assert_eq!(flushed.unwrap_err().kind(), Some(ErrorKind::NoSpace));
    assert_eq!(
        watcher.errors.lock().unwrap().as_slice(),
        [("flush", Some(ErrorKind::NoSpace), Some(ErrorSeverity::Hard))]
    );
    assert_eq!(watcher.recoveries_stopped.load(Ordering::Relaxed), 1);
    let stopped = db.background_error().unwrap().expect("writes are stopped");
    assert_eq!(stopped.severity, ErrorSeverity::Hard);
    assert_eq!(stopped.error.kind(), Some(ErrorKind::NoSpace));
    assert_eq!(
        db.put(b"third", b"3").unwrap_err().kind(),
        Some(ErrorKind::NoSpace)
    );
    // Nothing recovers on its own: the listener stopped that.
    std::thread::sleep(std::time::Duration::from_millis(200));
    assert!(db.background_error().unwrap().is_some());
    assert!(watcher.ends.lock().unwrap().is_empty());

    files.set_max_allowed_space_usage(0);
    db.resume().unwrap();
    assert!(db.background_error().unwrap().is_none());
    assert_eq!(watcher.ends.lock().unwrap().as_slice(), [None]);
    db.put(b"third", b"3").unwrap();
    assert_eq!(db.get(b"second").unwrap(), Some(patterned(4000, 2)));
    assert_eq!(db.get(b"third").unwrap().as_deref(), Some(&b"3"[..]));
}

/// A listener that suppresses the error: the flush that went over the limit succeeds,
/// writes are not stopped, and once there is room the next flush succeeds too.
#[test]
fn a_suppressed_background_error_does_not_stop_writes() {
    let watcher = Arc::new(Watcher {
        suppress: true,
        ..Watcher::default()
    });
    let dir = tempfile::tempdir().unwrap();
    let (db, files, flushed) = full(&watcher, dir.path());
    flushed.unwrap();
    assert_eq!(watcher.errors.lock().unwrap().len(), 1);
    assert_eq!(watcher.recoveries_stopped.load(Ordering::Relaxed), 0);
    assert!(db.background_error().unwrap().is_none());
    db.put(b"third", b"3").unwrap();
    files.set_max_allowed_space_usage(0);
    db.flush().unwrap();
    assert_eq!(db.get(b"second").unwrap(), Some(patterned(4000, 2)));
    assert_eq!(db.get(b"third").unwrap().as_deref(), Some(&b"3"[..]));
}

/// Where a refused write would become a background error of its own (pipelined writes),
/// `background_error` is not asked: a typed error, and writes unharmed.
#[test]
fn background_error_is_not_probed_with_pipelined_writes() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = create_options();
    options
        .set_by_name(&[("enable_pipelined_write", "true")])
        .unwrap();
    let db = Db::open(&options, dir.path()).unwrap();
    let refused = db.background_error().unwrap_err();
    assert_eq!(refused.kind(), Some(ErrorKind::NotSupported), "{refused}");
    db.put(b"k", b"v").unwrap();
    assert_eq!(db.get(b"k").unwrap().as_deref(), Some(&b"v"[..]));
}

//! Budgets shared across databases, by behaviour: a memtable budget flushes two databases
//! that neither would flush alone, an SST space limit stops writes with `NoSpace` until it
//! is raised and the database resumed, the row cache counts its hits, and every handle
//! may be dropped before the databases that use it.

use pinrocks::options::{Cache, Env, SstFileManager, ThreadPool, WriteBufferManager};
use pinrocks::{Db, ErrorKind, Options};

use crate::common::{create_options, patterned};

/// Options with a memtable far larger than what the tests write: no flush of its own.
fn big_memtable() -> Options {
    let mut options = create_options();
    options.write_buffer_size(64 << 20);
    options
}

/// Writes 2 MiB in 1 KiB values, alternating between `a` and `b`, then waits for the
/// flushes that scheduled (none of its own: `wait_for_compact(false)`).
fn fill_both(a: &Db, b: &Db) {
    let value = patterned(1024, 5);
    for i in 0..2048u32 {
        let db = if i % 2 == 0 { a } else { b };
        db.put(&i.to_be_bytes(), &value).unwrap();
    }
    a.wait_for_compact(false).unwrap();
    b.wait_for_compact(false).unwrap();
}

fn sst_count(db: &Db) -> usize {
    db.live_files().unwrap().len()
}

#[test]
fn a_shared_memtable_budget_flushes_databases_neither_would_flush_alone() {
    let dir = tempfile::tempdir().unwrap();
    // Control: the same writes without the budget flush nothing.
    {
        let options = big_memtable();
        let a = Db::open(&options, dir.path().join("ca")).unwrap();
        let b = Db::open(&options, dir.path().join("cb")).unwrap();
        fill_both(&a, &b);
        assert_eq!(sst_count(&a) + sst_count(&b), 0);
    }
    let budget = WriteBufferManager::new(256 << 10, false);
    let mut options = big_memtable();
    options.write_buffer_manager(&budget);
    let a = Db::open(&options, dir.path().join("a")).unwrap();
    let b = Db::open(&options, dir.path().join("b")).unwrap();
    drop(options);
    assert_eq!(budget.buffer_size(), 256 << 10);
    assert!(budget.set_buffer_size(0).is_err());
    assert!(WriteBufferManager::new(0, false)
        .set_buffer_size(1 << 20)
        .is_err());
    budget.set_buffer_size(256 << 10).unwrap();
    fill_both(&a, &b);
    a.flush_wal(false).unwrap();
    assert!(
        sst_count(&a) + sst_count(&b) > 0,
        "the budget flushed nothing"
    );
    assert!(budget.memory_usage() > 0);
    // Every value is still there, byte for byte.
    for i in [0u32, 1, 2046, 2047] {
        let db = if i % 2 == 0 { &a } else { &b };
        assert_eq!(db.get(&i.to_be_bytes()).unwrap(), Some(patterned(1024, 5)));
    }
    // The handle may go first: the databases hold the manager.
    drop(budget);
    a.put(b"after", b"drop").unwrap();
    assert_eq!(a.get(b"after").unwrap(), Some(b"drop".to_vec()));
}

#[test]
fn a_budget_charged_to_a_cache_shows_in_its_usage() {
    let cache = Cache::lru(16 << 20);
    let budget = WriteBufferManager::with_cache(8 << 20, &cache, false);
    let mut options = big_memtable();
    options.write_buffer_manager(&budget);
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(&options, dir.path()).unwrap();
    let before = cache.usage();
    for i in 0..1024u32 {
        db.put(&i.to_be_bytes(), &patterned(1024, 1)).unwrap();
    }
    // RocksDB reserves memtable memory in the cache in dummy entries of 256 KiB.
    assert!(
        cache.usage() >= before + (256 << 10),
        "{before} -> {}",
        cache.usage()
    );
}

#[test]
fn an_sst_space_limit_stops_writes_with_no_space_until_raised_and_resumed() {
    let files = SstFileManager::new();
    let mut options = create_options();
    options.sst_file_manager(&files);
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(&options, dir.path()).unwrap();
    drop(options);
    db.put(b"first", &patterned(4000, 1)).unwrap();
    db.flush().unwrap();
    let tracked: u64 = db.live_files().unwrap().iter().map(|f| f.size).sum();
    assert_eq!(files.total_size(), tracked);
    assert!(!files.is_max_allowed_space_reached());

    files.set_max_allowed_space_usage(tracked); // full: the next flush goes over
    db.put(b"second", &patterned(4000, 2)).unwrap();
    let err = db.flush().unwrap_err();
    assert_eq!(err.kind(), Some(ErrorKind::NoSpace), "{err}");
    let err = db.put(b"third", b"3").unwrap_err();
    assert_eq!(err.kind(), Some(ErrorKind::NoSpace), "{err}");
    assert_eq!(db.get(b"third").unwrap(), None);

    // No limit. RocksDB starts its own recovery for a no-space error (the manager polls for space):
    // `resume` is `Busy` while that runs, `Ok` once writes are let in again.
    files.set_max_allowed_space_usage(0);
    let start = std::time::Instant::now();
    loop {
        match db.resume() {
            Ok(()) => break,
            Err(e) if e.kind() == Some(ErrorKind::Busy) => {
                assert!(start.elapsed().as_secs() < 120, "no recovery: {e}");
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            Err(e) => panic!("{e}"),
        }
    }
    db.put(b"third", b"3").unwrap();
    db.flush().unwrap();
    assert_eq!(db.get(b"first").unwrap(), Some(patterned(4000, 1)));
    assert_eq!(db.get(b"second").unwrap(), Some(patterned(4000, 2)));
    assert_eq!(db.get(b"third").unwrap(), Some(b"3".to_vec()));
    drop(files); // the database holds the manager
    db.compact_range(None, None).unwrap();
    assert_eq!(db.get(b"second").unwrap(), Some(patterned(4000, 2)));
}

#[test]
fn the_row_cache_counts_its_hits() {
    let rows = Cache::lru(1 << 20);
    let mut options = create_options();
    options.enable_statistics().row_cache(&rows);
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(&options, dir.path()).unwrap();
    drop((options, rows));
    db.put(b"k", &patterned(300, 9)).unwrap();
    db.flush().unwrap();
    let stats = db.statistics().expect("statistics enabled");
    for _ in 0..3 {
        assert_eq!(db.get(b"k").unwrap(), Some(patterned(300, 9)));
        let pinned = db.reader().pin(b"k").unwrap().unwrap();
        assert_eq!(&pinned[..], &patterned(300, 9)[..]);
    }
    assert_eq!(stats.ticker_by_name("rocksdb.row.cache.miss"), Some(1));
    assert_eq!(stats.ticker_by_name("rocksdb.row.cache.hit"), Some(5));
}

#[test]
fn the_default_environment_pools_take_their_size() {
    let before = Env::background_threads(ThreadPool::Bottom);
    Env::set_background_threads(ThreadPool::Bottom, before + 1).unwrap();
    assert_eq!(Env::background_threads(ThreadPool::Bottom), before + 1);
    Env::set_background_threads(ThreadPool::Bottom, before).unwrap();
    assert_eq!(Env::background_threads(ThreadPool::Bottom), before);
}

/// Shared handles, used from any thread like `Cache` (their reasons are in
/// src/options/budgets.rs), and the maintenance options, plain values.
#[test]
fn the_budget_handles_cross_threads() {
    fn send_sync<T: Send + Sync + Clone>() {}
    send_sync::<WriteBufferManager>();
    send_sync::<SstFileManager>();
    send_sync::<pinrocks::admin::CompactOptions>();
    send_sync::<pinrocks::admin::FlushOptions>();
    let budget = WriteBufferManager::new(1 << 20, false);
    let other = budget.clone();
    let size = std::thread::spawn(move || other.buffer_size())
        .join()
        .unwrap();
    assert_eq!(size, 1 << 20);
}

/// The nice value of each thread of this process named `name` (`/proc/self/task`).
fn nice_of_threads(name: &str) -> Vec<i64> {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(|task| {
            let task = task.ok()?.path();
            let comm = std::fs::read_to_string(task.join("comm")).ok()?;
            (comm.trim() == name).then_some(())?;
            let stat = std::fs::read_to_string(task.join("stat")).ok()?;
            // After the name's closing parenthesis: state is field 3, nice field 19.
            let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
            fields.get(19 - 3)?.parse().ok()
        })
        .collect()
}

/// Lowering a pool's CPU priority is process-wide and one way: run in a child process. The
/// flush thread takes nice 19 as it runs the next flush.
#[test]
fn a_pool_s_threads_take_the_lower_cpu_priority() {
    let dir = tempfile::tempdir().unwrap();
    let (ok, out, err) = crate::common::run_child(
        &crate::common::test_path(module_path!(), "lowered_flush_threads_in_a_child"),
        "PINROCKS_LOWERED_DIR",
        dir.path(),
    );
    assert!(ok, "{out}\n{err}");
    assert!(out.contains("lowered: [19]"), "{out}");
}

#[test]
#[ignore = "run in a child process by a_pool_s_threads_take_the_lower_cpu_priority"]
fn lowered_flush_threads_in_a_child() {
    let dir = std::path::PathBuf::from(std::env::var_os("PINROCKS_LOWERED_DIR").unwrap());
    Env::set_background_threads(ThreadPool::High, 1).unwrap();
    let db = Db::open(&create_options(), &dir).unwrap();
    db.put(b"k", b"v").unwrap();
    db.flush().unwrap();
    assert_eq!(nice_of_threads("rocksdb:high"), [0]);
    Env::lower_cpu_priority(ThreadPool::High, pinrocks::options::CpuPriority::Low).unwrap();
    Env::lower_io_priority(ThreadPool::High).unwrap();
    db.put(b"k", b"w").unwrap();
    db.flush().unwrap();
    println!("lowered: {:?}", nice_of_threads("rocksdb:high"));
    assert_eq!(db.get(b"k").unwrap().as_deref(), Some(&b"w"[..]));
}

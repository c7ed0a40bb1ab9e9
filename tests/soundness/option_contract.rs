//! Every option is a contract, whatever path sets it: the twelve safe programs of the
//! fourth soundness pass, each now an `Err` before RocksDB sees the value (or harmless).
//!
//! Long because each case stands whole, as a user would write it: the twelve of the
//! issue, the reviews' findings, one Env per helper, and the option fuzzer's seeded run.

use std::sync::mpsc;
use std::time::Duration;

use pinrocks::options::{
    Env, MemEnv, PlainTableOptions, PrefixExtractor, SstFileManager, ThreadPool,
    WriteBufferManager, MAX_POOL_THREADS,
};
use pinrocks::{Db, Error, Options};

use crate::common::{create_options, newest_options_file};

/// The option an `OptionRejected` names, or a panic with what came instead.
fn rejected_name<T>(result: pinrocks::Result<T>) -> String {
    match result {
        Err(Error::OptionRejected { options, .. }) => options[0].0.clone(),
        Err(other) => panic!("expected OptionRejected, got {other}"),
        Ok(_) => panic!("expected OptionRejected, got Ok"),
    }
}

/// A flag whose `true` is refused by name, by string and, set through the raw C API behind
/// pinrocks' back by `set`, at the open (which reads what RocksDB will use), before anything
/// is written.
fn true_is_refused_on_every_path(
    name: &str,
    set: unsafe extern "C" fn(*mut pinrocks::ffi::rocksdb_options_t, std::ffi::c_uchar),
) {
    let mut options = create_options();
    assert_eq!(rejected_name(options.set_by_name(&[(name, "true")])), name);
    assert_eq!(
        rejected_name(options.set_from_string(&format!("{name}=true"))),
        name
    );
    assert_eq!(
        options.get_by_name(name).unwrap().as_deref(),
        Some("false"),
        "a refused set changes nothing"
    );
    // SAFETY: live options used by this thread alone; `set` sets a plain flag.
    unsafe { set(options.as_raw(), 1) };
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(rejected_name(Db::open(&options, dir.path())), name);
    assert!(
        !dir.path().join("CURRENT").exists(),
        "nothing was written before the refusal"
    );
}

/// Class 1 (cases 1 and 3): in-place updates would rewrite a memtable value under a pin
/// and make every snapshot NULL: refused on every path.
#[test]
fn in_place_updates_are_refused_on_every_path() {
    true_is_refused_on_every_path(
        "inplace_update_support",
        pinrocks::ffi::rocksdb_options_set_inplace_update_support,
    );
}

/// A review's finding: `disallow_memtable_writes`, which RocksDB checks only for a write
/// naming its family by handle (a batch's put to the default family names it by id: the
/// WAL takes it, the memtable refuses it, and the database stops taking writes), refused on
/// every path.
#[test]
fn memtable_writes_are_never_disallowed() {
    true_is_refused_on_every_path(
        "disallow_memtable_writes",
        pinrocks::ffi::rocksdb_options_set_disallow_memtable_writes,
    );
}

/// Class 1 (case 2): no lock vector for in-place updates.
#[test]
fn in_place_update_locks_are_bounded() {
    let mut options = Options::new();
    assert_eq!(
        rejected_name(options.set_by_name(&[("inplace_update_num_locks", "0")])),
        "inplace_update_num_locks"
    );
}

/// Class 1 (case 4): a plain table set by name without a prefix extractor.
#[test]
fn plain_table_by_name_needs_a_prefix_extractor() {
    let mut options = create_options();
    assert_eq!(
        rejected_name(options.set_by_name(&[("table_factory", "PlainTable")])),
        "prefix_extractor"
    );
    // With one, by name too, it opens, flushes and reads back.
    options
        .set_by_name(&[
            ("prefix_extractor", "rocksdb.FixedPrefix.2"),
            ("table_factory", "PlainTable"),
        ])
        .unwrap();
    assert_eq!(
        options.get_by_name("table_factory").unwrap().as_deref(),
        Some("PlainTable")
    );
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(&options, dir.path()).unwrap();
    db.put(b"ab1", b"value").unwrap();
    db.flush().unwrap();
    assert_eq!(db.get(b"ab1").unwrap().as_deref(), Some(&b"value"[..]));
}

/// Class 1 (case 5): a name that is a deprecated database option and a live column
/// family option reaches the one in force.
#[test]
fn a_name_set_is_in_force() {
    let mut options = create_options();
    options
        .set_by_name(&[("experimental_mempurge_threshold", "1.0")])
        .unwrap();
    let value = options
        .get_by_name("experimental_mempurge_threshold")
        .unwrap()
        .expect("serialized");
    assert_eq!(value.parse::<f64>().unwrap(), 1.0);
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(&options, dir.path()).unwrap();
    drop(db);
    let stored =
        pinrocks::options::StoredOptions::load(dir.path(), &pinrocks::options::Cache::lru(1 << 20))
            .unwrap();
    let in_file = stored
        .column_family("default")
        .unwrap()
        .get_by_name("experimental_mempurge_threshold")
        .unwrap()
        .unwrap();
    assert_eq!(
        in_file.parse::<f64>().unwrap(),
        1.0,
        "the database ran with it"
    );
}

/// Class 2 (case 6): a hash index sized beyond memory on the flush thread.
#[test]
fn plain_table_hash_ratio_is_bounded() {
    let mut options = create_options();
    options
        .prefix_extractor(PrefixExtractor::Fixed(2))
        .plain_table(&PlainTableOptions {
            hash_table_ratio: 2.5e-10,
            ..PlainTableOptions::default()
        });
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(
        rejected_name(Db::open(&options, dir.path())),
        "hash_table_ratio"
    );
}

/// Class 2 (case 7): a terabyte prefetch buffer on the compaction thread, typed or by name.
#[test]
fn blob_readahead_is_bounded() {
    let mut options = create_options();
    options
        .enable_blob_files(true)
        .enable_blob_garbage_collection(true)
        .blob_compaction_readahead_size(1 << 40);
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(
        rejected_name(Db::open(&options, dir.path())),
        "blob_compaction_readahead_size"
    );
    let mut by_name = Options::new();
    assert_eq!(
        rejected_name(by_name.set_by_name(&[("blob_compaction_readahead_size", "1099511627776")])),
        "blob_compaction_readahead_size"
    );
    let db = Db::open(&create_options(), dir.path()).unwrap();
    assert_eq!(
        rejected_name(db.set_options(&[("blob_compaction_readahead_size", "1T")])),
        "blob_compaction_readahead_size"
    );
}

/// The option fuzzer's crash (fuzz/seeds/options/arena-block-2-gib): `arena_block_size` is
/// a `size_t` RocksDB parses with `stoull`, so -2147483648 became 2 GiB blocks, one per
/// memtable at its first write, which threw `std::bad_alloc` under fuzz.sh's address-space
/// limit once earlier inputs had grown the thread pools. Refused on every path now.
#[test]
fn arena_blocks_are_bounded() {
    let crash = "experimental_mempurge_threshold=2147483647;\
                 block_based_table_factory={enable_index_compression=0};\
                 arena_block_size=-2147483648;allow_ingest_behind=0";
    let mut options = create_options();
    assert_eq!(
        rejected_name(options.set_from_string(crash)),
        "arena_block_size"
    );
    assert_eq!(
        rejected_name(options.set_by_name(&[("arena_block_size", "1T")])),
        "arena_block_size"
    );
    options
        .set_by_name(&[("arena_block_size", "268435456")])
        .unwrap();
    assert_eq!(
        options.get_by_name("arena_block_size").unwrap().as_deref(),
        Some("268435456")
    );
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(&options, dir.path()).unwrap();
    assert_eq!(
        rejected_name(db.set_options(&[("arena_block_size", "268435457")])),
        "arena_block_size"
    );
    db.set_options(&[("arena_block_size", "65536")]).unwrap();
    db.put(b"k", b"v").unwrap();
    db.flush().unwrap();
    assert_eq!(db.get(b"k").unwrap().as_deref(), Some(&b"v"[..]));
    db.close().unwrap();
}

/// Class 2 (cases 8 and 9): thread pools bounded, and a refused size leaves them as they
/// were.
#[test]
fn thread_pools_are_bounded() {
    let before = Env::background_threads(ThreadPool::Bottom);
    let err = Env::set_background_threads(ThreadPool::Bottom, 1_000_000).unwrap_err();
    assert!(matches!(err, Error::InvalidInput { .. }), "{err}");
    assert_eq!(Env::background_threads(ThreadPool::Bottom), before);
    assert!(Env::set_background_threads(ThreadPool::Bottom, MAX_POOL_THREADS + 1).is_err());

    let low = Env::background_threads(ThreadPool::Low);
    let mut options = create_options();
    options.increase_parallelism(1_000_000);
    assert_eq!(
        Env::background_threads(ThreadPool::Low),
        low,
        "no thread started"
    );
    let dir = tempfile::tempdir().unwrap();
    let err = Db::open(&options, dir.path()).unwrap_err();
    assert!(err.to_string().contains("increase_parallelism"), "{err}");

    let mut options = create_options();
    options.max_background_jobs(1_000_000);
    assert_eq!(
        rejected_name(Db::open(&options, dir.path())),
        "max_background_jobs"
    );
    // What the process can still do: open, write, flush.
    let db = Db::open(&create_options(), dir.path()).unwrap();
    db.put(b"k", b"v").unwrap();
    db.flush().unwrap();
}

/// Class 2 (case 10): a live change of the pools is bounded before RocksDB starts threads,
/// and the database goes on flushing and closes.
#[test]
fn live_background_jobs_are_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(&create_options(), dir.path()).unwrap();
    assert_eq!(
        rejected_name(db.set_db_options(&[("max_background_jobs", "1000000")])),
        "max_background_jobs"
    );
    db.set_db_options(&[("max_background_jobs", "4")]).unwrap();
    db.put(b"k", b"v").unwrap();
    db.flush().unwrap();
    assert_eq!(db.get(b"k").unwrap().as_deref(), Some(&b"v"[..]));
    db.close().unwrap();
}

/// Class 3 (case 11): an in-memory database at the path of a real one may not take an SST
/// file manager of the disk, which would delete the real database's files.
#[test]
fn sst_file_manager_stays_on_its_env() {
    let dir = tempfile::tempdir().unwrap();
    {
        let mut options = create_options();
        options
            .set_by_name(&[("avoid_flush_during_shutdown", "true")])
            .unwrap();
        let db = Db::open(&options, dir.path()).unwrap();
        db.put(b"acknowledged", b"in the WAL").unwrap();
    }
    let env = MemEnv::new().unwrap();
    let mut options = create_options();
    options
        .mem_env(&env)
        .sst_file_manager(&SstFileManager::new());
    let err = Db::open(&options, dir.path()).unwrap_err();
    assert!(err.to_string().contains("SstFileManager"), "{err}");
    // Without the manager it works in memory, and the real database keeps its write.
    let mut options = create_options();
    options.mem_env(&env);
    let memory = Db::open(&options, dir.path()).unwrap();
    memory.put(b"other", b"x").unwrap();
    memory.flush().unwrap();
    drop(memory);
    let real = Db::open(&create_options(), dir.path()).unwrap();
    assert_eq!(
        real.get(b"acknowledged").unwrap().as_deref(),
        Some(&b"in the WAL"[..])
    );
    assert_eq!(real.get(b"other").unwrap(), None);
}

/// Class 4 (case 12): a stalling budget serves one database; shared budgets without stalls
/// never hold a bystander's write.
#[test]
fn shared_budgets_cannot_hang_a_bystander() {
    let dirs: Vec<_> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let stalling = WriteBufferManager::new(1 << 20, true);
    let mut options = create_options();
    options.write_buffer_manager(&stalling);
    let a = Db::open(&options, dirs[0].path()).unwrap();
    let err = Db::open(&options, dirs[1].path()).unwrap_err();
    assert!(err.to_string().contains("allow_stall"), "{err}");
    drop(a);
    // Once the first has closed, another may use it.
    let b = Db::open(&options, dirs[1].path()).unwrap();
    drop(b);

    let shared = WriteBufferManager::new(1 << 20, false);
    let mut options = create_options();
    options.write_buffer_manager(&shared);
    let dbs: Vec<Db> = dirs
        .iter()
        .map(|d| Db::open(&options, d.path()).unwrap())
        .collect();
    assert!(
        shared.set_allow_stall(true).is_err(),
        "stalls refused while three share it"
    );
    // A writes 2 MiB over the 1 MiB budget and sits idle; B and C write on.
    for i in 0..32u32 {
        dbs[0].put(&i.to_be_bytes(), &[7u8; 64 << 10]).unwrap();
    }
    std::thread::scope(|s| {
        let (sent, done) = mpsc::channel();
        for db in &dbs[1..] {
            let sent = sent.clone();
            s.spawn(move || {
                db.put(b"bystander", b"written").unwrap();
                sent.send(()).unwrap();
            });
        }
        for _ in 0..2 {
            done.recv_timeout(Duration::from_secs(60))
                .expect("a bystander's write completes");
        }
    });
    for db in &dbs[1..] {
        assert_eq!(
            db.get(b"bystander").unwrap().as_deref(),
            Some(&b"written"[..])
        );
    }
}

/// `Db::destroy` of an open database says what it is, not a restore's words.
#[test]
fn destroy_of_an_open_database_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(&create_options(), dir.path()).unwrap();
    let err = Db::destroy(&create_options(), dir.path()).unwrap_err();
    assert!(!err.to_string().contains("restore"), "{err}");
    assert!(matches!(err, Error::DatabaseOpenThere { .. }), "{err}");
    drop(db);
}

/// The option fuzzer's short seeded run: hostile values for random names through every
/// path, each input under a watchdog (a hang is a finding), the outcomes counted.
#[test]
fn option_fuzzer_seeded_run() {
    let names = crate::option_fuzz::names();
    // PINROCKS_OPTION_FUZZ_SEED picks another sequence (any nonzero number).
    let mut state = std::env::var("PINROCKS_OPTION_FUZZ_SEED")
        .ok()
        .and_then(|n| n.parse().ok())
        .filter(|&n: &u64| n != 0)
        .unwrap_or(0x9e37_79b9_7f4a_7c15);
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let inputs: usize = std::env::var("PINROCKS_OPTION_FUZZ_INPUTS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(200);
    let only: Option<usize> = std::env::var("PINROCKS_OPTION_FUZZ_ONLY")
        .ok()
        .and_then(|n| n.parse().ok());
    // PINROCKS_OPTION_FUZZ_SECONDS: stop after this long (a soak), whatever is left.
    let until = std::env::var("PINROCKS_OPTION_FUZZ_SECONDS")
        .ok()
        .and_then(|n| n.parse().ok())
        .map(|s| std::time::Instant::now() + Duration::from_secs(s));
    let mut total = crate::option_fuzz::Outcome::default();
    let mut ran = 0;
    for round in 0..inputs {
        if until.is_some_and(|t| std::time::Instant::now() >= t) {
            break;
        }
        ran = round + 1;
        let input: Vec<u8> = (0..1 + 3 * (1 + round % 3)).map(|_| next() as u8).collect();
        if only.is_some_and(|only| only != round) {
            continue;
        }
        if std::env::var_os("PINROCKS_FUZZ_TRACE").is_some() {
            let rss = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
            eprintln!(
                "options fuzz: input {round} {input:?} (statm {})",
                rss.trim()
            );
        }
        let (sent, done) = mpsc::channel();
        let names = names.clone();
        let shown = input.clone();
        std::thread::spawn(move || {
            let _ = sent.send(crate::option_fuzz::run(&input, &names));
        });
        let outcome = done
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("input {round} {shown:?} hung or panicked"));
        total.refused_at_set += outcome.refused_at_set;
        total.refused_at_open += outcome.refused_at_open;
        total.worked += outcome.worked;
        total.failed_with_err += outcome.failed_with_err;
    }
    eprintln!(
        "option fuzzer: {ran} inputs, {} names: {total:?}",
        names.len()
    );
    assert!(
        total.worked > 0,
        "some inputs must reach a working database"
    );
    assert!(
        total.refused_at_set > 0,
        "some hostile values must be refused"
    );
}

/// A string option cannot smuggle another option's value past the check: each value is
/// read on its own, not split out of one serialized string.
#[test]
fn a_string_value_cannot_hide_another_option() {
    let mut options = create_options();
    let result = options.set_by_name(&[
        ("db_host_id", "h;max_background_jobs=2"),
        ("max_background_jobs", "100000"),
    ]);
    assert!(matches!(result, Err(Error::OptionRejected { .. })));
    assert_eq!(
        options
            .get_by_name("max_background_jobs")
            .unwrap()
            .as_deref(),
        Some("2"),
        "nothing of a refused set is kept"
    );
    // Set through the raw C API, past every by-name check, the value is still read alone.
    let host = std::ffi::CString::new("h;max_background_jobs=2").unwrap();
    // SAFETY: live options used by this thread alone; RocksDB copies the string.
    unsafe { pinrocks::ffi::rocksdb_options_set_db_host_id(options.as_raw(), host.as_ptr()) };
    options.max_background_jobs(100_000);
    assert_eq!(
        options
            .get_by_name("max_background_jobs")
            .unwrap()
            .as_deref(),
        Some("100000")
    );
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(
        rejected_name(Db::open(&options, dir.path())),
        "max_background_jobs"
    );
}

/// Panics unless setting `name` to `value` by name is an `OptionRejected`.
fn each_rejected(options: &mut Options, name: &str, value: &str) {
    let result = options.set_by_name(&[(name, value)]);
    assert!(
        matches!(result, Err(Error::OptionRejected { .. })),
        "{name}={value}: {:?}",
        result.map(|_| ())
    );
}

/// Nested names and values meet the same contracts: a table option set inside its
/// factory's value or by a dotted name, typed-only or bounded.
#[test]
fn nested_names_meet_the_table() {
    let mut options = Options::new();
    for (name, value) in [
        ("block_based_table_factory", "{block_cache=1M}"),
        (
            "table_factory.block_cache",
            "{capacity=1048576;high_pri_pool_ratio=nan}",
        ),
        ("table_factory.block_size", "1T"),
        ("compression_opts", "{max_dict_bytes=1T}"),
        ("num_levels", "2147483647"),
    ] {
        each_rejected(&mut options, name, value);
    }
    options
        .set_by_name(&[("block_based_table_factory", "{block_size=16k}")])
        .unwrap();
    assert_eq!(
        options.get_by_name("block_size").unwrap().as_deref(),
        Some("16384")
    );
}

/// A second review of the allowed rows: each value here broke the contract and is refused
/// (RocksDB's sort-list merge operator reads operands past their end and throws on flush
/// threads; a zlib window RocksDB's reader cannot inflate makes corrupt files, also set
/// live; kCompactionStyleNone stalls writes for good; best-efforts recovery leaves the WAL
/// unread; blob direct writes lose their blobs at recovery; WAL tracking breaks the open
/// after a repair; a hash-index ratio of NaN or near 0 overflows a cast; merges made at
/// write time past 4 GiB with their key overrun the memtable). Their neighbours still pass.
#[test]
fn a_second_review_s_values_are_refused() {
    let mut options = create_options();
    for (name, value) in [
        ("merge_operator", "sortlist"),
        ("merge_operator", "{id=MergeSortOperator}"),
        ("merge_operator", "id=sortlist"),
        ("max_successive_merges", "2"),
        ("compression_opts", "{window_bits=-8}"),
        ("compression_opts", "{window_bits=15}"),
        ("compression_opts", "{window_bits=-15}"),
        ("bottommost_compression_opts", "{window_bits=31}"),
        ("blob_compression_opts", "{window_bits=-15}"),
        ("compaction_style", "kCompactionStyleNone"),
        ("best_efforts_recovery", "true"),
        ("enable_blob_direct_write", "true"),
        ("track_and_verify_wals", "true"),
        (
            "block_based_table_factory",
            "{data_block_hash_table_util_ratio=nan}",
        ),
        (
            "block_based_table_factory",
            "{data_block_hash_table_util_ratio=0.000001}",
        ),
    ] {
        each_rejected(&mut options, name, value);
    }
    options
        .set_by_name(&[
            ("merge_operator", "uint64add"),
            ("compression_opts", "{window_bits=-10}"),
            ("compaction_style", "kCompactionStyleUniversal"),
            (
                "block_based_table_factory",
                "{data_block_hash_table_util_ratio=0.5}",
            ),
        ])
        .unwrap();
    let compression = options.get_by_name("compression_opts").unwrap().unwrap();
    assert!(compression.contains("window_bits=-10"), "{compression}");
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(&options, dir.path()).unwrap();
    assert_eq!(
        rejected_name(db.set_options(&[("compression_opts", "{window_bits=-15}")])),
        "compression_opts"
    );
    db.set_options(&[("compression_opts", "{window_bits=-12}")])
        .unwrap();
}

/// With RocksDB's default `enforce_single_del_contracts=true`, a flush that meets a single
/// delete mixed with a delete of its key fails with Corruption and the database stops
/// taking writes. pinrocks' options have false, and only false opens (by name, and set
/// through the raw C API): the same writes flush, and the database goes on.
#[test]
fn a_single_delete_mixed_with_a_delete_does_not_stop_the_database() {
    let mut enforced = create_options();
    // SAFETY: live options used by this thread alone; a plain flag.
    unsafe {
        pinrocks::ffi::rocksdb_options_set_enforce_single_del_contracts(enforced.as_raw(), 1)
    };
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(
        rejected_name(Db::open(&enforced, dir.path())),
        "enforce_single_del_contracts"
    );

    let mut options = create_options();
    assert_eq!(
        options
            .get_by_name("enforce_single_del_contracts")
            .unwrap()
            .as_deref(),
        Some("false")
    );
    assert_eq!(
        rejected_name(options.set_by_name(&[("enforce_single_del_contracts", "true")])),
        "enforce_single_del_contracts"
    );
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(&options, dir.path()).unwrap();
    db.put(b"k", b"v").unwrap();
    db.delete(b"k").unwrap();
    db.writer().single_delete(b"k").unwrap();
    db.flush().unwrap();
    db.put(b"after", b"w").unwrap();
    assert_eq!(db.get(b"after").unwrap().as_deref(), Some(&b"w"[..]));
}

/// A live change is checked against the family's own options: a plain table with the
/// prefix encoding keeps its prefix extractor, and no family changes its table format.
#[test]
fn live_changes_see_the_family_s_options() {
    let mut options = create_options();
    options
        .prefix_extractor(PrefixExtractor::Fixed(1))
        .plain_table(&PlainTableOptions {
            prefix_encoding: true,
            hash_table_ratio: 0.0,
            ..PlainTableOptions::default()
        });
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(&options, dir.path()).unwrap();
    assert_eq!(
        rejected_name(db.set_options(&[("prefix_extractor", "nullptr")])),
        "prefix_extractor"
    );
    assert_eq!(
        rejected_name(db.set_options(&[("table_factory", "BlockBasedTable")])),
        "table_factory"
    );
    db.put(b"ab", b"v").unwrap();
    db.flush().unwrap();
    assert_eq!(db.get(b"ab").unwrap().as_deref(), Some(&b"v"[..]));
    assert_eq!(
        rejected_name(db.set_db_options(&[("delayed_write_rate", "0")])),
        "delayed_write_rate"
    );
}

/// An OPTIONS file is parsed by name too: a hash memtable of 2^61 buckets in one is
/// refused when it is loaded (RocksDB would allocate 8 x 2^61 bytes, wrapped to 0, and
/// write the buckets past it).
#[test]
fn options_files_meet_the_table() {
    let dir = tempfile::tempdir().unwrap();
    drop(Db::open(&create_options(), dir.path()).unwrap());
    let newest = newest_options_file(dir.path());
    let text = std::fs::read_to_string(&newest).unwrap();
    let text = text
        .replace(
            "memtable_factory=SkipListFactory",
            "memtable_factory={id=HashSkipListRepFactory;bucket_count=2305843009213693952}",
        )
        .replace(
            "prefix_extractor=nullptr",
            "prefix_extractor=rocksdb.FixedPrefix.1",
        )
        .replace(
            "allow_concurrent_memtable_write=true",
            "allow_concurrent_memtable_write=false",
        );
    assert!(text.contains("bucket_count=2305843009213693952"));
    std::fs::write(&newest, text).unwrap();
    let err =
        pinrocks::options::StoredOptions::load(dir.path(), &pinrocks::options::Cache::lru(1 << 20))
            .unwrap_err();
    assert!(
        matches!(&err, Error::OptionRejected { options, message, .. }
            if options[0].0 == "memtable_factory" && message.contains("bucket_count")),
        "{err}"
    );
}

/// Class 3, every helper: a database in memory at the path of a real database, closed
/// with its data, makes files through each helper (SST writer and ingest, checkpoint,
/// backup and restore, repair, destroy) on its own file system; the disk is left as it
/// was, and the real database opens with its data.
#[test]
#[cfg(feature = "fault-injection")] // it also runs each helper on a `FaultFs`
fn every_helper_acts_on_the_database_s_env() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("db");
    {
        let db = Db::open(&create_options(), &real).unwrap();
        db.put(b"real", b"on disk").unwrap();
    }
    let listing = |path: &std::path::Path| -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(path)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    let before = listing(dir.path());
    let before_db = listing(&real);
    let mem = MemEnv::new().unwrap();
    let faults = pinrocks::options::FaultFs::in_memory().unwrap();
    type OnEnv = Box<dyn Fn(&mut Options)>;
    let kinds: [(&str, OnEnv); 2] = [
        (
            "MemEnv",
            Box::new(move |o: &mut Options| {
                o.mem_env(&mem);
            }),
        ),
        (
            "FaultFs::in_memory",
            Box::new(move |o: &mut Options| {
                o.fault_fs(&faults);
            }),
        ),
    ];
    for (kind, on) in &kinds {
        let mut options = create_options();
        on(&mut options);
        let db = Db::open(&options, &real).unwrap();
        assert_eq!(
            db.get(b"real").unwrap(),
            None,
            "{kind}: a new database in memory"
        );
        db.put(b"memory", b"only").unwrap();
        let sst = real.join("ingest.sst");
        let mut writer = pinrocks::admin::SstFileWriter::create(&options, &sst).unwrap();
        writer.put(b"ingested", b"too").unwrap();
        writer.finish().unwrap();
        db.ingest(&[&sst], &pinrocks::admin::IngestOptions::new())
            .unwrap();
        db.flush().unwrap();
        db.checkpoint(dir.path().join("checkpoint")).unwrap();
        let backups =
            pinrocks::admin::BackupEngine::open(&options, dir.path().join("backups")).unwrap();
        backups.create_backup(&db, true).unwrap();
        drop(db);
        backups.restore_latest(dir.path().join("restored")).unwrap();
        let restored = Db::open(&options, dir.path().join("restored")).unwrap();
        assert_eq!(
            restored.get(b"ingested").unwrap().as_deref(),
            Some(&b"too"[..]),
            "{kind}: restored in memory"
        );
        drop(restored);
        Db::repair(&options, &real).unwrap();
        Db::destroy(&options, &real).unwrap();
        assert_eq!(
            listing(dir.path()),
            before,
            "{kind}: nothing new on the disk"
        );
        assert_eq!(
            listing(&real),
            before_db,
            "{kind}: the real database's files untouched"
        );
    }
    let db = Db::open(&create_options(), &real).unwrap();
    assert_eq!(db.get(b"real").unwrap().as_deref(), Some(&b"on disk"[..]));
    assert_eq!(db.get(b"memory").unwrap(), None);
}

/// The second review: a factory named by its id (`table_factory.BlockBasedTable.x`) would
/// be changed in place before any check, and is refused with the live family unchanged;
/// RocksDB's own table rules (checked at an open only) hold at a family's creation and on
/// a live change; a hash memtable keeps its extractor; level-0 triggers stay in order.
#[test]
fn the_second_review_s_findings_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(&create_options(), dir.path()).unwrap();
    assert!(db
        .set_options(&[("table_factory.BlockBasedTable.block_size", "1T")])
        .is_err());
    let mut options = Options::new();
    assert!(options
        .set_by_name(&[("table_factory.BlockBasedTable.block_size", "1T")])
        .is_err());
    assert_eq!(
        options.get_by_name("block_size").unwrap().as_deref(),
        Some("4096"),
        "a refused set leaves the options' factory as it was"
    );
    db.put(b"k", b"v").unwrap();
    db.flush().unwrap();
    assert_eq!(db.get(b"k").unwrap().as_deref(), Some(&b"v"[..]));

    let mut table = pinrocks::options::BlockBasedOptions::new();
    table.index_type(pinrocks::options::IndexType::HashSearch);
    let mut hashed = Options::new();
    hashed.block_based_table(&table);
    let err = db.create_cf("hash_index", &hashed).unwrap_err();
    assert!(err.to_string().contains("prefix"), "{err}");
    assert_eq!(
        db.set_options(&[("block_based_table_factory", "{index_type=kHashSearch}")])
            .unwrap_err()
            .kind(),
        Some(pinrocks::ErrorKind::InvalidArgument)
    );
    assert_eq!(
        rejected_name(db.set_options(&[("level0_stop_writes_trigger", "2")])),
        "level0_stop_writes_trigger"
    );

    let mut options = create_options();
    options
        .prefix_extractor(PrefixExtractor::Fixed(2))
        .memtable(pinrocks::options::Memtable::HashSkipList {
            buckets: 1024,
            height: 4,
            branching: 4,
        });
    let hash_dir = tempfile::tempdir().unwrap();
    let hash_db = Db::open(&options, hash_dir.path()).unwrap();
    assert!(hash_db
        .set_options(&[("prefix_extractor", "nullptr")])
        .is_err());
    hash_db.put(b"ab1", b"x").unwrap();
    hash_db.flush().unwrap();
    hash_db.put(b"ab2", b"y").unwrap();
    assert_eq!(hash_db.get(b"ab2").unwrap().as_deref(), Some(&b"y"[..]));
}

/// An OPTIONS file edited by hand: a rate limiter RocksDB never writes, and a level count
/// RocksDB would size vectors by while parsing, are refused before RocksDB parses them.
#[test]
fn hand_edited_options_files_are_checked_before_parsing() {
    for (find, replace, named) in [
        (
            "[DBOptions]",
            "[DBOptions]\n  rate_limiter_bytes_per_sec=1",
            "rate_limiter_bytes_per_sec",
        ),
        ("num_levels=7", "num_levels=500000000", "num_levels"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        drop(Db::open(&create_options(), dir.path()).unwrap());
        let newest = newest_options_file(dir.path());
        let text = std::fs::read_to_string(&newest).unwrap();
        assert!(text.contains(find), "{find}");
        std::fs::write(&newest, text.replacen(find, replace, 1)).unwrap();
        assert_eq!(
            rejected_name(pinrocks::options::StoredOptions::load(
                dir.path(),
                &pinrocks::options::Cache::lru(1 << 20)
            )),
            named
        );
    }
}

/// Found by the option fuzzer: a table factory id RocksDB cannot make leaves the options
/// with no table factory at all; it is refused, and nothing reads through the missing one.
#[test]
fn a_table_factory_that_cannot_be_made_is_refused() {
    let mut options = create_options();
    assert_eq!(
        rejected_name(options.set_from_string("table_factory=rocksdb.FixedPrefix.1")),
        "table_factory"
    );
    assert_eq!(
        options.get_by_name("table_factory").unwrap().as_deref(),
        Some("BlockBasedTable")
    );
}

/// Found by the option fuzzer: `sample_for_compression` is cast to an `int` and used as a
/// divisor on the flush thread: 2^32 divided by zero there (SIGFPE).
#[test]
fn compression_sampling_is_bounded() {
    let mut options = create_options();
    assert_eq!(
        rejected_name(options.set_by_name(&[("sample_for_compression", "4294967296")])),
        "sample_for_compression"
    );
    options
        .set_by_name(&[("sample_for_compression", "3")])
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(&options, dir.path()).unwrap();
    db.put(b"k", &[5u8; 10_000]).unwrap();
    db.flush().unwrap();
    assert_eq!(db.get(b"k").unwrap().as_deref(), Some(&[5u8; 10_000][..]));
}

/// Found by the option fuzzer: `table_properties_collectors=nullptr` put a NULL collector
/// factory in the list every flush calls (SIGSEGV).
#[test]
fn collectors_by_name_are_refused() {
    let mut options = create_options();
    assert_eq!(
        rejected_name(options.set_by_name(&[("table_properties_collectors", "nullptr")])),
        "table_properties_collectors"
    );
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(&options, dir.path()).unwrap();
    db.put(b"k", b"v").unwrap();
    db.flush().unwrap();
    assert_eq!(db.get(b"k").unwrap().as_deref(), Some(&b"v"[..]));
}

/// Found by the option fuzzer (seed 1, input 14626): a live change making a user-defined
/// index factory by an id RocksDB cannot make.
#[test]
fn user_defined_index_factories_by_name_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(&create_options(), dir.path()).unwrap();
    assert!(db
        .set_options(&[
            ("table_factory", "{"),
            (
                "block_based_table_factory",
                "{user_defined_index_factory=kZSTD}"
            ),
        ])
        .is_err());
    assert!(db
        .set_options(&[(
            "block_based_table_factory",
            "{user_defined_index_factory=kZSTD}"
        )])
        .is_err());
    db.put(b"k", b"v").unwrap();
    db.flush().unwrap();
    assert_eq!(db.get(b"k").unwrap().as_deref(), Some(&b"v"[..]));
}

/// Found by the option fuzzer (seed 4, input 40801): RocksDB applies a live change's pairs
/// in its hash map's order, so `block_based_table_factory={..}` then `table_factory={}`
/// (no factory at all) reached RocksDB's validation (SIGSEGV) while the copy checked in the
/// order asked had a factory. Two pairs writing one option are refused, aliases included.
#[test]
fn live_pairs_writing_one_option_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(&create_options(), dir.path()).unwrap();
    db.put(b"k", &[7u8; 5_000]).unwrap();
    let twice: [&[(&str, &str)]; 5] = [
        &[
            ("table_factory", "{}"),
            (
                "block_based_table_factory",
                "{num_file_reads_for_auto_readahead=2.5e-10}",
            ),
        ],
        &[
            ("block_based_table_factory", "{block_size=8192}"),
            ("table_factory", "{}"),
        ],
        &[
            ("table_factory.block_size", "8192"),
            ("plain_table_factory", "{}"),
        ],
        &[
            ("write_buffer_size", "1048576"),
            ("write_buffer_size", "2097152"),
        ],
        &[
            ("memtable_veirfy_per_key_checksum_on_seek", "true"),
            ("memtable_verify_per_key_checksum_on_seek", "false"),
        ],
    ];
    for pairs in twice {
        match db.set_options(pairs) {
            Err(Error::OptionRejected { message, .. }) => {
                assert!(message.contains("in one live change"), "{message}")
            }
            other => panic!("{pairs:?}: expected OptionRejected, got {other:?}"),
        }
    }
    assert_eq!(
        rejected_name(
            db.set_db_options(&[("max_background_jobs", "2"), ("max_background_jobs", "3")])
        ),
        "max_background_jobs"
    );
    // No table factory, alone: refused too (the live family keeps its format).
    assert_eq!(
        rejected_name(db.set_options(&[("table_factory", "{}")])),
        "table_factory"
    );
    // One pair each: taken.
    db.set_options(&[
        ("block_based_table_factory", "{block_size=8192}"),
        ("write_buffer_size", "2097152"),
    ])
    .unwrap();
    db.put(b"j", &[8u8; 5_000]).unwrap();
    db.flush().unwrap();
    assert_eq!(db.get(b"k").unwrap().as_deref(), Some(&[7u8; 5_000][..]));
    assert_eq!(db.get(b"j").unwrap().as_deref(), Some(&[8u8; 5_000][..]));
    let mut options = create_options();
    assert_eq!(
        rejected_name(options.set_by_name(&[("table_factory", "{}")])),
        "table_factory"
    );
}

/// Blob files compressed with zlib take only a level and a strategy zlib's `deflateInit2`
/// takes: RocksDB stores every blob compressed whatever zlib says, so a level of 10 failed
/// every flush with Corruption and stopped writes. Refused by name, at the open (the
/// compression set by its typed setter after the level) and live, whichever of the two is
/// set last; what zlib takes writes blobs that read back.
#[test]
fn zlib_blobs_take_only_what_zlib_takes() {
    let blobs = [
        ("enable_blob_files", "true"),
        ("min_blob_size", "0"),
        ("blob_compression_type", "kZlibCompression"),
    ];
    for (value, field) in [
        ("{level=10}", "level"),
        ("{level=-2}", "level"),
        ("{strategy=5}", "strategy"),
        ("{strategy=-1}", "strategy"),
    ] {
        let mut options = create_options();
        options.set_by_name(&blobs).unwrap();
        assert_eq!(
            rejected_name(options.set_by_name(&[("blob_compression_opts", value)])),
            format!("blob_compression_opts.{field}"),
            "{value}"
        );
    }
    // The level first, then the compression, typed: refused as the database opens.
    let mut options = create_options();
    options
        .set_by_name(&[
            ("enable_blob_files", "true"),
            ("min_blob_size", "0"),
            ("blob_compression_opts", "{level=10}"),
        ])
        .unwrap();
    options.blob_compression(pinrocks::options::Compression::Zlib);
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(
        rejected_name(Db::open(&options, dir.path())),
        "blob_compression_opts.level"
    );
    // Live: the level on zlib blobs, and zlib under a level it does not take.
    options.blob_compression(pinrocks::options::Compression::None);
    let db = Db::open(&options, dir.path()).unwrap();
    assert_eq!(
        rejected_name(db.set_options(&[("blob_compression_type", "kZlibCompression")])),
        "blob_compression_opts.level"
    );
    db.set_options(&[("blob_compression_opts", "{level=9;strategy=4}")])
        .unwrap();
    db.set_options(&[("blob_compression_type", "kZlibCompression")])
        .unwrap();
    assert_eq!(
        rejected_name(db.set_options(&[("blob_compression_opts", "{level=10}")])),
        "blob_compression_opts.level"
    );
    let value = b"a blob compressed by zlib at level 9 ".repeat(8);
    db.put(b"k", &value).unwrap();
    db.flush().unwrap();
    assert_eq!(db.get(b"k").unwrap().as_deref(), Some(&value[..]));
    db.put(b"after", b"1").unwrap();
}

/// Universal compaction whose merge widths let no merge of sorted runs be picked stopped
/// writes at the stop trigger: a minimum above the maximum, or a typed -1 (4294967295).
/// Refused by name, typed at the open, and live; the incremental picker, which reads past the end
/// of its file list, is refused; a FIFO family keeps its write triggers out of reach live.
#[test]
fn compactions_that_could_never_be_picked_are_refused() {
    let universal = || {
        let mut options = create_options();
        options
            .set_by_name(&[("compaction_style", "kCompactionStyleUniversal")])
            .unwrap();
        options
    };
    for value in [
        "{min_merge_width=5;max_merge_width=4}",
        "{max_merge_width=1;min_merge_width=2}",
        "{max_merge_width=0}",
    ] {
        assert_eq!(
            rejected_name(universal().set_by_name(&[("compaction_options_universal", value)])),
            "compaction_options_universal.min_merge_width",
            "{value}"
        );
    }
    universal()
        .set_by_name(&[(
            "compaction_options_universal",
            "{min_merge_width=4;max_merge_width=4}",
        )])
        .unwrap();
    let mut options = create_options();
    options.compaction_style(pinrocks::options::CompactionStyle::Universal(
        pinrocks::options::UniversalOptions {
            min_merge_width: -1,
            ..Default::default()
        },
    ));
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(
        rejected_name(Db::open(&options, dir.path())),
        "compaction_options_universal.min_merge_width"
    );
    let db = Db::open(&universal(), dir.path()).unwrap();
    assert_eq!(
        rejected_name(db.set_options(&[(
            "compaction_options_universal",
            "{min_merge_width=3;max_merge_width=2}"
        )])),
        "compaction_options_universal.min_merge_width"
    );
    db.set_options(&[("compaction_options_universal", "{min_merge_width=3}")])
        .unwrap();
    each_rejected(
        &mut universal(),
        "compaction_options_universal",
        "{incremental=true}",
    );
    drop(db);

    let mut fifo = create_options();
    fifo.set_by_name(&[("compaction_style", "kCompactionStyleFIFO")])
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(&fifo, dir.path()).unwrap();
    for name in [
        "level0_slowdown_writes_trigger",
        "level0_stop_writes_trigger",
    ] {
        assert!(
            matches!(
                db.set_options(&[(name, "24")]),
                Err(Error::OptionRejected { .. })
            ),
            "{name}"
        );
    }
    db.set_options(&[("level0_file_num_compaction_trigger", "8")])
        .unwrap();
    db.put(b"k", b"v").unwrap();
    assert_eq!(db.get(b"k").unwrap().as_deref(), Some(&b"v"[..]));
}

/// A review of the write and blob paths: a blob compression with no acceptable ratio wrote
/// blobs raw that their file called compressed (every read failed as corrupt), a write
/// group past 1 GiB could wrap its merged batch's 32-bit count, and a file-size multiplier
/// below 1 cut a compaction's files after every key. Their neighbours pass.
#[test]
fn a_third_review_s_values_are_refused() {
    let mut options = create_options();
    for (name, value) in [
        ("blob_compression_opts", "{max_compressed_bytes_per_kb=0}"),
        ("blob_compression_opts", "{max_compressed_bytes_per_kb=-1}"),
        ("max_write_batch_group_size_bytes", "18446744073709551615"),
        ("max_write_batch_group_size_bytes", "1073741825"),
        ("target_file_size_multiplier", "0"),
        ("target_file_size_multiplier", "-2"),
    ] {
        each_rejected(&mut options, name, value);
    }
    options
        .set_by_name(&[
            ("blob_compression_opts", "{max_compressed_bytes_per_kb=1}"),
            ("max_write_batch_group_size_bytes", "1073741824"),
            ("target_file_size_multiplier", "1"),
        ])
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(&options, dir.path()).unwrap();
    assert_eq!(
        rejected_name(
            db.set_options(&[("blob_compression_opts", "{max_compressed_bytes_per_kb=0}")])
        ),
        "blob_compression_opts"
    );
}

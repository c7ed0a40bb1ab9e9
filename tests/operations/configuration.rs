//! Every group of settings set through the safe API, shown to reach RocksDB: read back from
//! the OPTIONS file RocksDB writes for the open database, or shown by behaviour (FIFO
//! dropping old files, a rate limiter draining, statistics and perf counters counting,
//! prefix iteration touching fewer blocks). Options written by the `rocksdb` crate load and
//! open a database it made. Bad names and values are typed errors.
//!
//! Long because: one test per group of settings, each read back from the OPTIONS file.

use std::time::Duration;

use crate::common::{every_tier, stored, value};
use pinrocks::options::{
    BlockBasedOptions, Cache, ChecksumType, CompactionStyle, Compression, CompressionOptions,
    DataBlockIndexType, FifoOptions, FilterPolicy, Histogram, IndexType, LruCacheOptions,
    PerfContext, PerfLevel, PerfMetric, PrefixExtractor, RateLimiter, StoredOptions, Ticker,
    UniversalOptions, WalRecoveryMode,
};
use pinrocks::{Db, Error, ErrorKind, ReadOptions};

const TABLE: &str = "TableOptions/BlockBasedTable \"default\"";
const CF: &str = "CFOptions \"default\"";
const DB: &str = "DBOptions";

#[test]
fn block_based_table_options_reach_rocksdb() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::lru(8 << 20);
    let mut table = BlockBasedOptions::new();
    table
        .block_cache(&cache)
        .block_size(16 << 10)
        .block_restart_interval(4)
        .index_block_restart_interval(2)
        .metadata_block_size(8192)
        .filter(FilterPolicy::Ribbon(10.0))
        .cache_index_and_filter_blocks(true)
        .cache_index_and_filter_blocks_with_high_priority(true)
        .pin_l0_filter_and_index_blocks_in_cache(true)
        .pin_top_level_index_and_filter(true)
        .index_type(IndexType::TwoLevelIndexSearch)
        .partition_filters(true)
        .whole_key_filtering(false)
        .data_block_index_type(DataBlockIndexType::BinaryAndHash)
        .data_block_hash_table_util_ratio(0.5)
        .format_version(6)
        .checksum(ChecksumType::XxHash64);
    let mut options = crate::common::create_options();
    options.block_based_table(&table);
    let db = Db::open(&options, dir.path()).unwrap();
    let o = stored(dir.path());
    for (key, expected) in [
        ("block_size", "16384"),
        ("block_restart_interval", "4"),
        ("index_block_restart_interval", "2"),
        ("metadata_block_size", "8192"),
        ("cache_index_and_filter_blocks", "true"),
        ("cache_index_and_filter_blocks_with_high_priority", "true"),
        ("pin_l0_filter_and_index_blocks_in_cache", "true"),
        ("pin_top_level_index_and_filter", "true"),
        ("index_type", "kTwoLevelIndexSearch"),
        ("partition_filters", "true"),
        ("whole_key_filtering", "false"),
        ("data_block_index_type", "kDataBlockBinaryAndHash"),
        ("data_block_hash_table_util_ratio", "0.500000"),
        ("format_version", "6"),
        ("checksum", "kxxHash64"),
    ] {
        assert_eq!(value(&o, TABLE, key), expected, "{key}");
    }
    assert!(
        value(&o, TABLE, "filter_policy").contains("ribbon"),
        "{o:?}"
    );
    // The table's cache is the shared one: reads land in it.
    db.put(b"k", &crate::common::patterned(1000, 1)).unwrap();
    db.flush().unwrap();
    let before = cache.usage();
    assert_eq!(
        every_tier(db.reader(), b"k"),
        Some(crate::common::patterned(1000, 1))
    );
    assert!(cache.usage() > before);
}

#[test]
fn restart_intervals_at_their_extremes_store_and_read_every_value() {
    // 0 (RocksDB raises it to 1, as the OPTIONS file shows) and the largest a setter takes:
    // each table writes, flushes, compacts and reads back every value exactly.
    for (interval, written) in [(0u16, "1"), (1, "1"), (u16::MAX, "65535")] {
        let dir = tempfile::tempdir().unwrap();
        let mut table = BlockBasedOptions::new();
        table
            .block_restart_interval(interval)
            .index_block_restart_interval(interval);
        let mut options = crate::common::create_options();
        options.block_based_table(&table);
        let db = Db::open(&options, dir.path()).unwrap();
        for i in 0..200u32 {
            db.put(&i.to_be_bytes(), &crate::common::patterned(100, i as u8))
                .unwrap();
        }
        db.flush().unwrap();
        db.compact_range(None, None).unwrap();
        for i in 0..200u32 {
            let read = every_tier(db.reader(), &i.to_be_bytes());
            assert_eq!(
                read,
                Some(crate::common::patterned(100, i as u8)),
                "{interval} {i}"
            );
        }
        let o = stored(dir.path());
        assert_eq!(value(&o, TABLE, "block_restart_interval"), written);
        assert_eq!(value(&o, TABLE, "index_block_restart_interval"), written);
    }
}

#[test]
fn a_setting_rocksdb_cannot_honour_fails_the_open_and_creates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut table = BlockBasedOptions::new();
    table.format_version(99);
    let mut options = crate::common::create_options();
    options.block_based_table(&table);
    // RocksDB's own validation of the table options, run by pinrocks before the open (as
    // it is before a family's creation and a live change, where RocksDB skips it).
    let err = Db::open(&options, dir.path()).unwrap_err();
    assert!(
        matches!(&err, Error::OptionRejected { kind: ErrorKind::InvalidArgument, message, .. } if message.contains("format_version")),
        "{err}"
    );
    assert!(!dir.path().join("CURRENT").exists());
}

#[test]
fn compression_per_level_bottommost_and_zstd_dictionaries_reach_rocksdb() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = crate::common::create_options();
    options
        .compression_per_level(&[Compression::None, Compression::Snappy, Compression::Lz4])
        .bottommost_compression(Compression::Zstd)
        .compression_options(&CompressionOptions {
            level: Some(3),
            ..CompressionOptions::default()
        })
        .bottommost_compression_options(&CompressionOptions::zstd_dictionary(16 << 10, 100 << 10));
    let db = Db::open(&options, dir.path()).unwrap();
    let o = stored(dir.path());
    assert_eq!(
        value(&o, CF, "compression_per_level"),
        "kNoCompression:kSnappyCompression:kLZ4Compression"
    );
    assert_eq!(value(&o, CF, "bottommost_compression"), "kZSTD");
    let bottom = value(&o, CF, "bottommost_compression_opts");
    for part in [
        "max_dict_bytes=16384",
        "zstd_max_train_bytes=102400",
        "enabled=true",
    ] {
        assert!(bottom.contains(part), "{part} in {bottom}");
    }
    assert!(
        value(&o, CF, "compression_opts").contains("level=3"),
        "{o:?}"
    );
    // Data compressed with a trained dictionary reads back exactly.
    for i in 0..2000u32 {
        db.put(
            &i.to_be_bytes(),
            format!("record {i} of a small, repetitive kind").as_bytes(),
        )
        .unwrap();
    }
    db.flush().unwrap();
    db.compact_range(None, None).unwrap();
    for i in (0..2000u32).step_by(97) {
        let expected = format!("record {i} of a small, repetitive kind").into_bytes();
        assert_eq!(every_tier(db.reader(), &i.to_be_bytes()), Some(expected));
    }
}

#[test]
fn universal_and_fifo_compaction_reach_rocksdb_and_fifo_drops_the_oldest_files() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = crate::common::create_options();
    options.compaction_style(CompactionStyle::Universal(UniversalOptions {
        size_ratio: 5,
        min_merge_width: 3,
        max_size_amplification_percent: 150,
        ..UniversalOptions::default()
    }));
    drop(Db::open(&options, dir.path()).unwrap());
    let o = stored(dir.path());
    assert_eq!(
        value(&o, CF, "compaction_style"),
        "kCompactionStyleUniversal"
    );
    let universal = value(&o, CF, "compaction_options_universal");
    for part in [
        "size_ratio=5",
        "min_merge_width=3",
        "max_size_amplification_percent=150",
    ] {
        assert!(universal.contains(part), "{part} in {universal}");
    }

    let dir = tempfile::tempdir().unwrap();
    let mut options = crate::common::create_options();
    options
        .compression(Compression::None)
        .compaction_style(CompactionStyle::Fifo(FifoOptions {
            max_table_files_size: 60 << 10,
            allow_compaction: false,
        }));
    let db = Db::open(&options, dir.path()).unwrap();
    assert_eq!(
        value(&stored(dir.path()), CF, "compaction_style"),
        "kCompactionStyleFIFO"
    );
    // Five files of ~20 KiB: FIFO keeps what fits in 60 KiB, the newest (its compactions
    // run as the files are flushed).
    for file in 0..5u8 {
        for i in 0..20u8 {
            db.put(&[file, i], &crate::common::patterned(1000, file))
                .unwrap();
        }
        db.flush().unwrap();
    }
    db.wait_for_compact(false).unwrap();
    let files = db.live_files().unwrap();
    assert!(files.len() <= 3, "{files:?}");
    assert!(
        files.iter().map(|f| f.size).sum::<u64>() <= 60 << 10,
        "{files:?}"
    );
    assert_eq!(db.get(&[0, 0]).unwrap(), None, "the oldest file is gone");
    assert_eq!(
        every_tier(db.reader(), &[4, 19]),
        Some(crate::common::patterned(1000, 4))
    );
}

#[test]
fn wal_knobs_and_subcompactions_reach_rocksdb_and_manual_wal_flush_holds_writes() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = crate::common::create_options();
    options
        .manual_wal_flush(true)
        .wal_bytes_per_sync(1 << 20)
        .max_total_wal_size(64 << 20)
        .wal_recovery_mode(WalRecoveryMode::AbsoluteConsistency)
        .wal_ttl_seconds(3600)
        .wal_size_limit_mb(128)
        .max_subcompactions(4);
    let db = Db::open(&options, dir.path()).unwrap();
    let o = stored(dir.path());
    for (key, expected) in [
        ("manual_wal_flush", "true"),
        ("wal_bytes_per_sync", "1048576"),
        ("max_total_wal_size", "67108864"),
        ("wal_recovery_mode", "kAbsoluteConsistency"),
        ("WAL_ttl_seconds", "3600"),
        ("WAL_size_limit_MB", "128"),
        ("max_subcompactions", "4"),
    ] {
        assert_eq!(value(&o, DB, key), expected, "{key}");
    }
    let wal_bytes = || -> u64 {
        std::fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".log"))
            .map(|e| e.metadata().unwrap().len())
            .sum()
    };
    let before = wal_bytes();
    db.put(b"k", &[7u8; 4096]).unwrap();
    assert_eq!(wal_bytes(), before, "the write waits in RocksDB's buffer");
    db.flush_wal(false).unwrap();
    assert!(wal_bytes() >= before + 4096);
}

#[test]
fn statistics_count_reads_and_reset() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = crate::common::create_options();
    options.enable_statistics();
    let db = Db::open(&options, dir.path()).unwrap();
    let stats = db.statistics().expect("statistics enabled");
    db.put(b"k", b"value").unwrap();
    db.flush().unwrap();
    stats.reset().unwrap();
    assert_eq!(stats.ticker(Ticker::NumberKeysRead), 0);
    db.get_pinned(b"k", |_| ()).unwrap().unwrap(); // from the file
    db.get_pinned(b"k", |_| ()).unwrap().unwrap(); // from the block cache
    assert_eq!(db.get(b"absent").unwrap(), None);
    assert_eq!(stats.ticker(Ticker::NumberKeysRead), 3);
    assert_eq!(stats.ticker(Ticker::BlockCacheDataMiss), 1);
    // The second read, and the absent key's (no filter: its block is read too).
    assert_eq!(stats.ticker(Ticker::BlockCacheDataHit), 2);
    assert_eq!(stats.ticker(Ticker::MemtableMiss), 3);
    assert_eq!(stats.ticker_by_name("rocksdb.number.keys.read"), Some(3));
    assert_eq!(stats.ticker_by_name("no.such.ticker"), None);
    assert_eq!(stats.histogram(Histogram::DbGet).count, 3);
    stats.reset().unwrap();
    assert_eq!(stats.ticker(Ticker::NumberKeysRead), 0);
    assert_eq!(stats.histogram(Histogram::DbGet).count, 0);
    let (_dir, plain) = crate::common::open_db(&[]);
    assert!(plain.statistics().is_none());
}

#[test]
fn a_rate_limiter_limits_flushes() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = crate::common::create_options();
    options
        .rate_limiter(&RateLimiter::new(2 << 20).unwrap())
        .enable_statistics()
        .compression(Compression::None);
    let db = Db::open(&options, dir.path()).unwrap();
    for i in 0..256u32 {
        db.put(&i.to_be_bytes(), &crate::common::patterned(4096, i as u8))
            .unwrap();
    }
    let started = std::time::Instant::now();
    db.flush().unwrap();
    // 1 MiB at 2 MiB/s, refilled every 100 ms: several waits, at least ~0.3 s.
    assert!(
        db.statistics()
            .unwrap()
            .ticker(Ticker::NumberRateLimiterDrains)
            > 0
    );
    assert!(
        started.elapsed() >= Duration::from_millis(250),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn prefix_iteration_uses_the_prefix_extractor_and_touches_fewer_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let mut table = BlockBasedOptions::new();
    table
        .filter(FilterPolicy::Bloom(10.0))
        .whole_key_filtering(false);
    let mut options = crate::common::create_options();
    options
        .prefix_extractor(PrefixExtractor::Fixed(4))
        .memtable_prefix_bloom_ratio(0.1)
        .block_based_table(&table)
        .disable_auto_compactions(true);
    let db = Db::open(&options, dir.path()).unwrap();
    let o = stored(dir.path());
    assert_eq!(value(&o, CF, "prefix_extractor"), "rocksdb.FixedPrefix.4");
    assert_eq!(
        value(&o, CF, "memtable_prefix_bloom_size_ratio"),
        "0.100000"
    );
    // Eight files, each with its own prefix, all spanning the same key range so every file
    // overlaps a seek: only the prefix filter can skip them.
    for file in 0..8u8 {
        for i in 0..50u8 {
            db.put(&[b'p', file, 0, 0, i], &[file, i]).unwrap();
        }
        db.put(&[b'p', 9, 9, 9, file], b"spanning").unwrap();
        db.put(&[b'a', file], b"low").unwrap();
        db.flush().unwrap();
    }
    let mut no_cache = ReadOptions::new();
    no_cache.fill_cache(false);
    let reader = db.reader().options(&no_cache);
    let perf = PerfContext::enable(PerfLevel::EnableCount);
    let touched = |perf: &PerfContext| {
        perf.get(PerfMetric::BlockReadCount) + perf.get(PerfMetric::BlockCacheHitCount)
    };
    perf.reset();
    let by_prefix: Vec<Vec<u8>> = reader
        .prefix_iter(&[b'p', 3, 0, 0])
        .forward(|k, _| k.to_vec())
        .collect::<pinrocks::Result<_>>()
        .unwrap();
    let prefix_blocks = touched(&perf);
    let skipped = perf.get(PerfMetric::BloomSstMissCount);
    perf.reset();
    let mut total_order = ReadOptions::new();
    total_order.fill_cache(false).total_order_seek(true);
    let by_range: Vec<Vec<u8>> = db
        .reader()
        .options(&total_order)
        .scan(&[b'p', 3, 0, 0][..]..&[b'p', 3, 0, 1][..], |k, _| {
            k.to_vec()
        })
        .collect::<pinrocks::Result<_>>()
        .unwrap();
    let range_blocks = touched(&perf);
    let expected: Vec<Vec<u8>> = (0..50u8).map(|i| vec![b'p', 3, 0, 0, i]).collect();
    assert_eq!(by_prefix, expected);
    assert_eq!(by_range, expected);
    assert!(
        skipped >= 7,
        "the prefix filter skipped {skipped} of 8 files"
    );
    assert!(
        prefix_blocks < range_blocks,
        "prefix mode touched {prefix_blocks} blocks, total order {range_blocks}"
    );
    // A prefix of another length reads in total order, still bounded.
    let short: Vec<Vec<u8>> = reader
        .prefix_iter(b"a")
        .forward(|k, _| k.to_vec())
        .collect::<pinrocks::Result<_>>()
        .unwrap();
    assert_eq!(short, (0..8u8).map(|f| vec![b'a', f]).collect::<Vec<_>>());
}

#[test]
fn a_prefix_extractor_does_not_change_what_ranges_and_prefixes_read() {
    for extractor in [
        PrefixExtractor::Fixed(2),
        PrefixExtractor::Capped(2),
        PrefixExtractor::Fixed(4),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let mut options = crate::common::create_options();
        options.prefix_extractor(extractor).bloom_filter(10.0);
        let db = Db::open(&options, dir.path()).unwrap();
        for k in [&b"ac1"[..], b"abcd1", b"abcd2", b"abce"] {
            db.put(k, k).unwrap();
        }
        db.flush().unwrap();
        let keys = |it: Vec<pinrocks::Result<Vec<u8>>>| -> Vec<Vec<u8>> {
            it.into_iter().collect::<pinrocks::Result<_>>().unwrap()
        };
        // Seeks to keys whose prefix no file holds still find the keys after them.
        assert_eq!(
            keys(db.reader().scan(&b"ab"[..].., |k, _| k.to_vec()).collect()),
            [&b"abcd1"[..], b"abcd2", b"abce", b"ac1"],
            "{extractor:?}"
        );
        assert_eq!(
            keys(
                db.reader()
                    .scan_rev(..&b"ad"[..], |k, _| k.to_vec())
                    .collect()
            ),
            [&b"ac1"[..], b"abce", b"abcd2", b"abcd1"],
            "{extractor:?}"
        );
        // Prefix iteration both ways, at the extractor's length and at others.
        for (prefix, expected) in [
            (&b"a"[..], vec![&b"abcd1"[..], b"abcd2", b"abce", b"ac1"]),
            (b"ab", vec![&b"abcd1"[..], b"abcd2", b"abce"]),
            (b"abcd", vec![&b"abcd1"[..], b"abcd2"]),
        ] {
            let forward = keys(
                db.reader()
                    .prefix_iter(prefix)
                    .forward(|k, _| k.to_vec())
                    .collect(),
            );
            assert_eq!(forward, expected, "{extractor:?} {prefix:?}");
            let mut it = db.reader().prefix_iter(prefix);
            it.seek_to_last();
            let mut backward = keys(it.backward(|k, _| k.to_vec()).collect());
            backward.reverse();
            assert_eq!(backward, expected, "{extractor:?} {prefix:?} backward");
        }
    }
}

#[test]
fn a_rate_limit_of_zero_is_refused() {
    assert!(matches!(
        RateLimiter::new(0),
        Err(Error::InvalidInput { .. })
    ));
}

#[test]
fn memory_usage_follows_memtables_and_the_block_cache() {
    let (_dir, db) = crate::common::open_db(&["other"]);
    let empty = db.memory_usage().unwrap();
    for i in 0..1000u32 {
        db.put(&i.to_be_bytes(), &[1u8; 100]).unwrap();
        db.cf("other")
            .unwrap()
            .writer()
            .put(&i.to_be_bytes(), &[2u8; 100])
            .unwrap();
    }
    let written = db.memory_usage().unwrap();
    assert!(
        written.mem_tables_unflushed >= empty.mem_tables_unflushed + 2 * 100_000,
        "{written:?}"
    );
    db.flush().unwrap();
    let flushed = db.memory_usage().unwrap();
    assert!(
        flushed.mem_tables_unflushed < written.mem_tables_unflushed,
        "{flushed:?}"
    );
    assert!(flushed.table_readers > 0, "{flushed:?}");
    db.get(&7u32.to_be_bytes()).unwrap().unwrap();
    let read = db.memory_usage().unwrap();
    assert!(read.block_cache >= 4096, "{read:?}");
    let pinned = db
        .get_pinned(&7u32.to_be_bytes(), |_| {
            db.memory_usage().unwrap().block_cache_pinned
        })
        .unwrap()
        .unwrap();
    assert!(
        pinned > read.block_cache_pinned,
        "{pinned} during, {read:?} before"
    );
}

#[test]
fn options_change_on_a_live_database_and_bad_ones_are_typed_errors() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open_cf(&crate::common::create_options(), dir.path(), ["events"]).unwrap();
    db.set_options(&[
        ("write_buffer_size", "1048576"),
        ("disable_auto_compactions", "true"),
    ])
    .unwrap();
    db.cf("events")
        .unwrap()
        .set_options(&[("level0_file_num_compaction_trigger", "9")])
        .unwrap();
    db.set_db_options(&[("max_background_jobs", "3")]).unwrap();
    let o = stored(dir.path());
    assert_eq!(value(&o, CF, "write_buffer_size"), "1048576");
    assert_eq!(value(&o, CF, "disable_auto_compactions"), "true");
    assert_eq!(
        value(
            &o,
            "CFOptions \"events\"",
            "level0_file_num_compaction_trigger"
        ),
        "9"
    );
    assert_eq!(value(&o, DB, "max_background_jobs"), "3");
    for bad in [
        &[("no_such_option", "1")][..],
        &[("write_buffer_size", "lots")],
        &[
            ("write_buffer_size", "2097152"),
            ("compaction_style", "kCompactionStyleFIFO"),
        ],
    ] {
        match db.set_options(bad) {
            Err(Error::OptionRejected {
                options,
                kind,
                message,
            }) => {
                assert_eq!(options.len(), bad.len());
                assert_eq!(kind, ErrorKind::InvalidArgument, "{message}");
                assert!(!message.is_empty());
            }
            other => panic!("{bad:?}: {other:?}"),
        }
    }
    // Nothing of a refused set was applied.
    assert_eq!(
        value(&stored(dir.path()), CF, "write_buffer_size"),
        "1048576"
    );
    assert!(matches!(
        db.set_db_options(&[("max_background_jobs", "many")]),
        Err(Error::OptionRejected { .. })
    ));
}

#[test]
fn stored_options_reopen_what_pinrocks_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = crate::common::create_options();
    options
        .compression_per_level(&[Compression::None, Compression::Lz4])
        .prefix_extractor(PrefixExtractor::Capped(2))
        .write_buffer_size(3 << 20);
    let db = Db::open_cf(&options, dir.path(), ["logs"]).unwrap();
    db.cf("logs").unwrap().writer().put(b"ab", b"1").unwrap();
    drop(db);
    let stored_options = StoredOptions::load(dir.path(), &Cache::lru(1 << 20)).unwrap();
    let names: Vec<&str> = stored_options
        .column_families
        .iter()
        .map(|(n, _)| n.as_str())
        .collect();
    assert_eq!(names, ["default", "logs"]);
    let other = tempfile::tempdir().unwrap();
    // Opened (created) elsewhere with the loaded options: the same settings are stored.
    let mut create = StoredOptions::load(dir.path(), &Cache::lru(1 << 20)).unwrap();
    create
        .db
        .create_if_missing(true)
        .create_missing_column_families(true);
    drop(Db::open_with_stored_options(&create, other.path()).unwrap());
    let o = stored(other.path());
    assert_eq!(
        value(&o, CF, "compression_per_level"),
        "kNoCompression:kLZ4Compression"
    );
    assert_eq!(value(&o, CF, "prefix_extractor"), "rocksdb.CappedPrefix.2");
    assert_eq!(value(&o, CF, "write_buffer_size"), "3145728");
    let db = Db::open_with_stored_options(&stored_options, dir.path()).unwrap();
    assert_eq!(
        every_tier(db.cf("logs").unwrap().reader(), b"ab"),
        Some(b"1".to_vec())
    );
    let err = StoredOptions::load(dir.path().join("absent"), &Cache::lru(1 << 20)).unwrap_err();
    assert!(matches!(err, Error::RocksDb { .. }), "{err}");
}

#[test]
fn a_database_written_by_the_rocksdb_crate_opens_from_its_options_file_alone() {
    let dir = tempfile::tempdir().unwrap();
    {
        let mut options = rocksdb::Options::default();
        options.create_if_missing(true);
        // RocksDB's reverse bytewise order, under its built-in name.
        options.set_comparator(
            "rocksdb.ReverseBytewiseComparator",
            Box::new(|a: &[u8], b: &[u8]| b.cmp(a)),
        );
        options.set_compression_per_level(&[
            rocksdb::DBCompressionType::None,
            rocksdb::DBCompressionType::Lz4,
            rocksdb::DBCompressionType::Zstd,
        ]);
        options.set_prefix_extractor(rocksdb::SliceTransform::create_fixed_prefix(3));
        let mut table = rocksdb::BlockBasedOptions::default();
        table.set_bloom_filter(10.0, false);
        options.set_block_based_table_factory(&table);
        let db = rocksdb::DB::open(&options, dir.path()).unwrap();
        for k in ["aaa1", "aaa2", "bbb1", "ccc1"] {
            db.put(k, format!("value of {k}")).unwrap();
        }
        db.flush().unwrap();
        db.put("bbb2", "value of bbb2").unwrap();
    }
    let stored_options = StoredOptions::load(dir.path(), &Cache::lru(8 << 20)).unwrap();
    let db = Db::open_with_stored_options(&stored_options, dir.path()).unwrap();
    let keys: Vec<Vec<u8>> = db
        .reader()
        .scan(.., |k, _| k.to_vec())
        .collect::<pinrocks::Result<_>>()
        .unwrap();
    assert_eq!(keys, [&b"ccc1"[..], b"bbb2", b"bbb1", b"aaa2", b"aaa1"]);
    // A range is in that order too, and pinrocks' own bound checks agree.
    let range: Vec<Vec<u8>> = db
        .reader()
        .scan(&b"bbb9"[..]..&b"aaa1"[..], |k, _| k.to_vec())
        .collect::<pinrocks::Result<_>>()
        .unwrap();
    assert_eq!(range, [&b"bbb2"[..], b"bbb1", b"aaa2"]);
    assert_eq!(
        every_tier(db.reader(), b"bbb1"),
        Some(b"value of bbb1".to_vec())
    );
    let o = stored(dir.path());
    assert_eq!(value(&o, CF, "prefix_extractor"), "rocksdb.FixedPrefix.3");
    assert_eq!(
        value(&o, CF, "compression_per_level"),
        "kNoCompression:kLZ4Compression:kZSTD"
    );
    assert_eq!(
        value(&o, CF, "comparator"),
        "rocksdb.ReverseBytewiseComparator"
    );
}

#[test]
fn lru_cache_options_reach_rocksdb_and_bad_ones_are_refused() {
    let cache = Cache::lru_with(&LruCacheOptions {
        capacity: 32 << 20,
        shard_bits: Some(2),
        strict_capacity_limit: true,
        high_pri_pool_ratio: 0.25,
        low_pri_pool_ratio: 0.5,
        ..LruCacheOptions::new(0)
    })
    .unwrap();
    assert_eq!(cache.capacity(), 32 << 20);
    let dir = tempfile::tempdir().unwrap();
    let mut options = crate::common::create_options();
    options.block_cache(&cache);
    let db = Db::open(&options, dir.path()).unwrap();
    // The table factory prints its cache's options into RocksDB's LOG at open.
    let log = std::fs::read_to_string(dir.path().join("LOG")).unwrap();
    for line in [
        "capacity : 33554432",
        "num_shard_bits : 2",
        "strict_capacity_limit : 1",
        "high_pri_pool_ratio: 0.250",
        "low_pri_pool_ratio: 0.500",
    ] {
        assert!(log.contains(line), "{line} not in the LOG");
    }
    db.put(b"k", b"v").unwrap();
    db.flush().unwrap();
    assert_eq!(every_tier(db.reader(), b"k"), Some(b"v".to_vec()));
    for bad in [
        LruCacheOptions {
            high_pri_pool_ratio: 1.5,
            ..LruCacheOptions::new(1 << 20)
        },
        LruCacheOptions {
            shard_bits: Some(20),
            ..LruCacheOptions::new(1 << 20)
        },
        LruCacheOptions {
            high_pri_pool_ratio: f64::NAN,
            ..LruCacheOptions::new(1 << 20)
        },
        LruCacheOptions {
            low_pri_pool_ratio: -0.1,
            ..LruCacheOptions::new(1 << 20)
        },
        LruCacheOptions {
            low_pri_pool_ratio: f64::NAN,
            ..LruCacheOptions::new(1 << 20)
        },
        // The two pools together are more than the cache.
        LruCacheOptions {
            low_pri_pool_ratio: 0.6,
            ..LruCacheOptions::new(1 << 20)
        },
    ] {
        let err = Cache::lru_with(&bad).unwrap_err();
        assert!(matches!(err, Error::InvalidInput { .. }), "{err}");
    }
}

/// Options set by RocksDB's own names (pairs and the option string) reach RocksDB: each read
/// back from the OPTIONS file it writes, database, column family and table options alike.
#[test]
fn options_set_by_name_and_by_string_reach_rocksdb() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = crate::common::create_options();
    options
        .set_by_name(&[
            ("max_open_files", "512"),
            ("num_levels", "5"),
            ("level_compaction_dynamic_level_bytes", "false"),
            ("compression", "kLZ4Compression"),
        ])
        .unwrap()
        .set_from_string(
            "max_background_jobs=3;block_based_table_factory={block_size=16384;\
             filter_policy=bloomfilter:10:false};target_file_size_multiplier=3",
        )
        .unwrap();
    drop(Db::open(&options, dir.path()).unwrap());
    let stored = stored(dir.path());
    assert_eq!(value(&stored, DB, "max_open_files"), "512");
    assert_eq!(value(&stored, DB, "max_background_jobs"), "3");
    assert_eq!(value(&stored, CF, "num_levels"), "5");
    assert_eq!(
        value(&stored, CF, "level_compaction_dynamic_level_bytes"),
        "false"
    );
    assert_eq!(value(&stored, CF, "compression"), "kLZ4Compression");
    assert_eq!(value(&stored, CF, "target_file_size_multiplier"), "3");
    assert_eq!(value(&stored, TABLE, "block_size"), "16384");
    assert_eq!(
        value(&stored, TABLE, "filter_policy"),
        "bloomfilter:10:false"
    );
}

/// A name RocksDB does not know, or a value it refuses, is a typed error naming that option
/// with RocksDB's reason, and nothing of the set is applied: the options open a database
/// with RocksDB's defaults for every name asked.
#[test]
fn options_refused_by_name_are_typed_errors_and_nothing_is_half_applied() {
    let mut options = crate::common::create_options();
    let refusal = |result: pinrocks::Result<&mut pinrocks::Options>| match result {
        Err(Error::OptionRejected {
            options,
            kind,
            message,
        }) => (options, kind, message),
        Err(other) => panic!("not a refusal: {other:?}"),
        Ok(_) => panic!("accepted"),
    };
    let (named, kind, message) = refusal(options.set_by_name(&[
        ("max_open_files", "512"),
        ("no_such_option", "1"),
        ("num_levels", "5"),
    ]));
    assert_eq!(named, [("no_such_option".to_owned(), "1".to_owned())]);
    assert_eq!(kind, ErrorKind::InvalidArgument, "{message}");
    assert!(message.contains("no_such_option"), "{message}");
    let (named, _, message) = refusal(
        options.set_by_name(&[("max_background_jobs", "3"), ("write_buffer_size", "a lot")]),
    );
    assert_eq!(
        named,
        [("write_buffer_size".to_owned(), "a lot".to_owned())]
    );
    assert!(message.contains("write_buffer_size"), "{message}");
    let (named, _, message) = refusal(options.set_from_string("max_open_files=512;num_levels=x"));
    assert_eq!(
        named,
        [("num_levels".to_owned(), "x".to_owned())],
        "{message}"
    );
    // A string RocksDB cannot split names no option.
    let (named, _, _) = refusal(options.set_from_string("block_based_table_factory={block_size=1"));
    assert!(named.is_empty());
    // The key order pinrocks checks bounds in is set through `Options::comparator` only.
    assert!(matches!(
        options.set_by_name(&[("comparator", "rocksdb.ReverseBytewiseComparator")]),
        Err(Error::OptionRejected { ref options, ref message, .. })
            if options[0].0 == "comparator" && message.contains("Options::comparator")
    ));
    let dir = tempfile::tempdir().unwrap();
    drop(Db::open(&options, dir.path()).unwrap());
    let stored = stored(dir.path());
    assert_eq!(
        value(&stored, DB, "max_open_files"),
        "-1",
        "RocksDB's default"
    );
    assert_eq!(
        value(&stored, DB, "max_background_jobs"),
        "2",
        "RocksDB's default"
    );
    assert_eq!(value(&stored, CF, "num_levels"), "7", "RocksDB's default");
    assert_eq!(
        value(&stored, CF, "comparator"),
        "leveldb.BytewiseComparator"
    );
}

/// Every typed tuning setter reaches RocksDB: each read back from the OPTIONS file, under
/// RocksDB's own name, with a value other than its default.
#[test]
fn typed_tuning_setters_reach_rocksdb() {
    use std::time::Duration;
    let dir = tempfile::tempdir().unwrap();
    let mut options = crate::common::create_options();
    options
        .max_write_buffer_number(5)
        .min_write_buffer_number_to_merge(2)
        .db_write_buffer_size(96 << 20)
        .num_levels(5)
        .level_compaction_dynamic_level_bytes(false)
        .max_bytes_for_level_base(300 << 20)
        .max_bytes_for_level_multiplier(8.0)
        .target_file_size_multiplier(2)
        .max_compaction_bytes(1 << 30)
        .level0_slowdown_writes_trigger(30)
        .level0_stop_writes_trigger(50)
        .soft_pending_compaction_bytes_limit(32 << 30)
        .hard_pending_compaction_bytes_limit(128 << 30)
        .delayed_write_rate(8 << 20)
        .bytes_per_sync(1 << 20)
        .allow_mmap_reads(true)
        .allow_mmap_writes(true)
        .two_write_queues(true)
        .keep_log_file_num(7)
        .max_log_file_size(4 << 20)
        .optimize_filters_for_hits(true)
        .periodic_compaction(Duration::from_millis(86_400_500))
        .compaction_ttl(Duration::from_secs(7200))
        .stats_dump_period(Duration::from_secs(300));
    drop(Db::open(&options, dir.path()).unwrap());
    let written = stored(dir.path());
    for (section, key, expected) in [
        (CF, "max_write_buffer_number", "5"),
        (CF, "min_write_buffer_number_to_merge", "2"),
        (DB, "db_write_buffer_size", "100663296"),
        (CF, "num_levels", "5"),
        (CF, "level_compaction_dynamic_level_bytes", "false"),
        (CF, "max_bytes_for_level_base", "314572800"),
        (CF, "max_bytes_for_level_multiplier", "8.000000"),
        (CF, "target_file_size_multiplier", "2"),
        (CF, "max_compaction_bytes", "1073741824"),
        (CF, "level0_slowdown_writes_trigger", "30"),
        (CF, "level0_stop_writes_trigger", "50"),
        (CF, "soft_pending_compaction_bytes_limit", "34359738368"),
        (CF, "hard_pending_compaction_bytes_limit", "137438953472"),
        (DB, "delayed_write_rate", "8388608"),
        (DB, "bytes_per_sync", "1048576"),
        (DB, "allow_mmap_reads", "true"),
        (DB, "allow_mmap_writes", "true"),
        (DB, "two_write_queues", "true"),
        (DB, "keep_log_file_num", "7"),
        (DB, "max_log_file_size", "4194304"),
        (CF, "optimize_filters_for_hits", "true"),
        // 86,400.5 s rounds up: a sub-second remainder is not dropped.
        (CF, "periodic_compaction_seconds", "86401"),
        (CF, "ttl", "7200"),
        (DB, "stats_dump_period_sec", "300"),
    ] {
        assert_eq!(value(&written, section, key), expected, "{key}");
    }
    // Pipelined writes exclude unordered ones and atomic flushes, and an atomic flush makes
    // RocksDB merge one memtable per flush whatever was asked: opens of their own.
    let written = |set: &dyn Fn(&mut pinrocks::Options)| {
        let dir = tempfile::tempdir().unwrap();
        let mut options = crate::common::create_options();
        set(&mut options);
        drop(Db::open(&options, dir.path()).unwrap());
        stored(dir.path())
    };
    let pipelined = written(&|o| {
        o.enable_pipelined_write(true);
    });
    assert_eq!(value(&pipelined, DB, "enable_pipelined_write"), "true");
    let atomic = written(&|o| {
        o.atomic_flush(true).min_write_buffer_number_to_merge(2);
    });
    assert_eq!(value(&atomic, DB, "atomic_flush"), "true");
    assert_eq!(value(&atomic, CF, "min_write_buffer_number_to_merge"), "1");
}

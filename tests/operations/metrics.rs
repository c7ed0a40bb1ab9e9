//! Every ticker, histogram and perf metric typed: read one at a time, by name and in a
//! snapshot alike, and what changed between two snapshots, counted exactly.

use pinrocks::options::{
    Cache, Histogram, HistogramDelta, PerfContext, PerfLevel, PerfMetric, Ticker,
};
use pinrocks::Db;

/// A write's bytes as RocksDB counts them (`BYTES_WRITTEN`, `BYTES_PER_WRITE`): its batch
/// whole, a 12-byte header and one record (a tag and two one-byte lengths here).
fn batch_bytes(key: &[u8], value: &[u8]) -> u64 {
    (12 + 3 + key.len() + value.len()) as u64
}

/// RocksDB 11.8.1's lists, whole (11.12 adds to them).
#[test]
fn every_ticker_histogram_and_perf_metric_of_rocksdb_is_typed() {
    if pinrocks::ROCKSDB_VERSION != "11.8.1" {
        return;
    }
    assert_eq!(
        (Ticker::COUNT, Histogram::COUNT, PerfMetric::COUNT),
        (263, 80, 84)
    );
    assert_eq!(
        Ticker::ALL.last().unwrap().name(),
        "rocksdb.file.submit.async.read.fallback"
    );
    assert_eq!(
        Histogram::ALL.last().unwrap().name(),
        "rocksdb.open.and.compact.db.open.micros"
    );
    assert_eq!(PerfMetric::ALL.last(), Some(&PerfMetric::BlobCacheReadByte));
}

/// Statistics frozen (their database closed): each of RocksDB's tickers and histograms reads
/// the same typed, by its name and in a snapshot, and the counts are the ones written.
#[test]
fn a_typed_read_a_read_by_name_and_a_snapshot_agree_on_every_metric() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = crate::common::create_options();
    options.enable_statistics();
    let db = Db::open(&options, dir.path()).unwrap();
    let stats = db.statistics().expect("statistics enabled");
    db.put(b"k1", b"one").unwrap();
    db.put(b"k2", b"two!").unwrap();
    db.flush().unwrap();
    assert_eq!(db.get(b"k1").unwrap().as_deref(), Some(&b"one"[..]));
    db.close().unwrap();

    let snapshot = stats.snapshot().unwrap();
    assert_eq!(snapshot.tickers().count(), Ticker::COUNT);
    assert_eq!(snapshot.histograms().count(), Histogram::COUNT);
    for (ticker, count) in snapshot.tickers() {
        assert_eq!(stats.ticker(ticker), count, "{}", ticker.name());
        assert_eq!(
            stats.ticker_by_name(ticker.name()),
            Some(count),
            "{}",
            ticker.name()
        );
    }
    for (histogram, data) in snapshot.histograms() {
        let by_name = stats.histogram_by_name(histogram.name()).unwrap();
        assert_eq!(
            (by_name.count, by_name.sum),
            (data.count, data.sum),
            "{}",
            histogram.name()
        );
        assert_eq!(
            stats.histogram(histogram).count,
            data.count,
            "{}",
            histogram.name()
        );
    }
    assert_eq!(snapshot.ticker(Ticker::NumberKeysWritten), 2);
    let written = batch_bytes(b"k1", b"one") + batch_bytes(b"k2", b"two!");
    assert_eq!(snapshot.ticker(Ticker::BytesWritten), written);
    assert_eq!(snapshot.ticker(Ticker::NumberKeysRead), 1);
    assert_eq!(snapshot.ticker(Ticker::BytesRead), 3);
    // The flush's table file, and its record in the MANIFEST (written on the same thread).
    let flushed = snapshot.ticker(Ticker::FlushWriteBytes);
    let table = db_file_bytes(dir.path());
    assert!(
        (table..table + 512).contains(&flushed),
        "{flushed} for {table}"
    );
    assert_eq!(snapshot.histogram(Histogram::DbGet).count, 1);
    assert_eq!(snapshot.histogram(Histogram::DbWrite).count, 2);
    assert_eq!(snapshot.histogram(Histogram::BytesPerWrite).sum, written);
}

#[test]
fn a_delta_counts_what_happened_between_two_snapshots() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = crate::common::create_options();
    options.enable_statistics();
    let db = Db::open(&options, dir.path()).unwrap();
    let stats = db.statistics().unwrap();
    db.put(b"before", b"x").unwrap();
    let first = stats.snapshot().unwrap();
    for key in [b"a", b"b", b"c"] {
        db.put(key, b"12345").unwrap();
    }
    assert_eq!(db.get(b"a").unwrap().as_deref(), Some(&b"12345"[..]));
    assert_eq!(db.get(b"absent").unwrap(), None);
    let second = stats.snapshot().unwrap();
    let delta = second.since(&first);
    assert_eq!(delta.ticker(Ticker::NumberKeysWritten), 3);
    assert_eq!(
        delta.ticker(Ticker::BytesWritten),
        3 * batch_bytes(b"a", b"12345")
    );
    assert_eq!(delta.ticker(Ticker::NumberKeysRead), 2);
    assert_eq!(delta.ticker(Ticker::MemtableHit), 1);
    assert_eq!(delta.ticker(Ticker::MemtableMiss), 1);
    assert_eq!(delta.ticker(Ticker::BytesRead), 5);
    assert_eq!(
        delta.histogram(Histogram::BytesPerWrite),
        HistogramDelta {
            count: 3,
            sum: 3 * batch_bytes(b"a", b"12345")
        }
    );
    assert_eq!(delta.histogram(Histogram::DbGet).count, 2);
    assert!(delta
        .tickers()
        .any(|entry| entry == (Ticker::NumberKeysWritten, 3)));
    assert!(delta.tickers().all(|(_, count)| count > 0));
    assert!(format!("{delta:?}").contains("\"rocksdb.number.keys.written\": 3"));
    // The first snapshot counted the first write alone; a reset since reads as nothing new.
    assert_eq!(first.ticker(Ticker::NumberKeysWritten), 1);
    stats.reset().unwrap();
    let after_reset = stats.snapshot().unwrap().since(&second);
    assert_eq!(after_reset.ticker(Ticker::NumberKeysWritten), 0);
    assert_eq!(after_reset.tickers().count(), 0);
}

/// `rocksdb_perfcontext_metric` has no case for `blob_cache_read_byte` (it reads 0): pinrocks
/// reads it itself.
#[test]
fn the_perf_metric_the_c_api_forgets_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = crate::common::create_options();
    options.enable_blob_files(true).min_blob_size(0);
    options.blob_cache(&Cache::lru(1 << 20));
    let db = Db::open(&options, dir.path()).unwrap();
    let value = crate::common::patterned(300, 7);
    db.put(b"k", &value).unwrap();
    db.flush().unwrap();
    assert_eq!(db.get(b"k").unwrap().as_deref(), Some(&value[..])); // the blob file, cached
    let perf = PerfContext::enable(PerfLevel::EnableCount);
    perf.reset();
    assert_eq!(db.get(b"k").unwrap().as_deref(), Some(&value[..])); // the blob cache
    assert_eq!(perf.get(PerfMetric::BlobCacheReadByte), 300);
    assert_eq!(perf.snapshot().get(PerfMetric::BlobCacheReadByte), 300);
    assert_eq!(perf.get(PerfMetric::BlobReadCount), 0);
    PerfContext::enable(PerfLevel::Disable);
}

#[test]
fn a_perf_snapshot_reads_every_metric_and_subtracts() {
    let (_dir, db) = crate::common::open_db(&[]);
    db.put(b"k", b"v").unwrap();
    let perf = PerfContext::enable(PerfLevel::EnableCount);
    perf.reset();
    let before = perf.snapshot();
    assert_eq!(before.nonzero().count(), 0);
    db.get_pinned(b"k", |v| assert_eq!(v, b"v"))
        .unwrap()
        .unwrap();
    db.get_pinned(b"k", |v| assert_eq!(v, b"v"))
        .unwrap()
        .unwrap();
    let after = perf.snapshot();
    for metric in PerfMetric::ALL {
        assert_eq!(after.get(*metric), perf.get(*metric), "{}", metric.name());
    }
    let delta = after.since(&before);
    assert_eq!(delta.get(PerfMetric::GetFromMemtableCount), 2);
    assert_eq!(delta.get(PerfMetric::GetReadBytes), 2);
    assert_eq!(delta.get(PerfMetric::BlockReadCount), 0);
    assert!(format!("{delta:?}").contains("\"get_from_memtable_count\": 2"));
    // A reset in between: nothing went up.
    perf.reset();
    assert_eq!(perf.snapshot().since(&after).nonzero().count(), 0);
    PerfContext::enable(PerfLevel::Disable);
}

/// The bytes of the table files in `dir`.
pub(crate) fn db_file_bytes(dir: &std::path::Path) -> u64 {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "sst"))
        .map(|path| std::fs::metadata(path).unwrap().len())
        .sum()
}

/// The perf context by level: each level's bloom filter answers, keys returned and block
/// cache misses, counted exactly for reads that meet a file at level 0 and one at the bottom.
#[test]
fn perf_counters_per_level_count_each_level_s_reads() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = crate::common::create_options();
    options.bloom_filter(10.0);
    let db = Db::open(&options, dir.path()).unwrap();
    db.put(b"b", b"bottom").unwrap();
    db.flush().unwrap();
    db.compact_range(None, None).unwrap(); // moved to the bottom level
    db.put(b"a0", b"top").unwrap();
    db.put(b"c0", b"top").unwrap();
    db.flush().unwrap(); // level 0: [a0, c0], over the bottom's b
                         // Each file's reader counts filter and cache use at the level it was opened at: reopened,
                         // every reader is opened at its file's level (the moved file's was opened at 0).
    drop(db);
    let db = Db::open(&options, dir.path()).unwrap();

    let perf = PerfContext::enable(PerfLevel::EnableCount);
    perf.count_per_level(true).unwrap();
    perf.reset();
    assert_eq!(db.get(b"b").unwrap().as_deref(), Some(&b"bottom"[..])); // past level 0
    assert_eq!(db.get(b"a0").unwrap().as_deref(), Some(&b"top"[..]));
    assert_eq!(db.get(b"bb").unwrap(), None); // in level 0's range only
    let levels = perf.per_level();
    assert_eq!(levels.len(), 2, "{levels:?}");
    let (top, bottom) = (levels[0], levels[1]);
    assert_eq!((top.level, bottom.level), (0, 6));
    assert_eq!(
        (
            top.bloom_filter_useful,
            top.bloom_filter_full_positive,
            top.bloom_filter_full_true_positive,
            top.user_key_return_count,
            top.block_cache_miss_count,
        ),
        (2, 1, 1, 1, 1),
        "{top:?}"
    );
    assert_eq!(
        (
            bottom.bloom_filter_useful,
            bottom.bloom_filter_full_positive,
            bottom.bloom_filter_full_true_positive,
            bottom.user_key_return_count,
            bottom.block_cache_miss_count,
        ),
        (0, 1, 1, 1, 1),
        "{bottom:?}"
    );
    // Counts only: no time taken at this level.
    assert_eq!(top.get_from_table_nanos + bottom.get_from_table_nanos, 0);
    // A reset zeroes every level; a read counts at its levels again; off, reads count none.
    perf.reset();
    assert_eq!(perf.per_level(), []);
    db.get(b"a0").unwrap();
    let again = perf.per_level();
    assert_eq!(again.len(), 1, "{again:?}");
    assert_eq!((again[0].level, again[0].user_key_return_count), (0, 1));
    assert_eq!(again[0].block_cache_hit_count, 1); // cached by the first read
    perf.count_per_level(false).unwrap();
    perf.reset();
    db.get(b"a0").unwrap();
    assert_eq!(again, perf.per_level()); // off: neither zeroed nor counted
    PerfContext::enable(PerfLevel::Disable);
}

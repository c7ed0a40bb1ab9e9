//! What RocksDB is doing: statistics (tickers and histograms, for the databases opened with
//! [`Options::enable_statistics`](crate::Options::enable_statistics)), the calling thread's
//! perf context (counters around one read: did it hit the block cache or read a block?),
//! and memory usage.

use std::marker::PhantomData;
use std::sync::Arc;

use crate::options::metric_snapshots::{HistogramData, PerfSnapshot, StatisticsSnapshot};
use crate::options::metrics::{Histogram, PerfMetric, Ticker};
use crate::raw::c_consts;
use crate::raw::error::Result;
use crate::raw::options_handle::OptionsHandle;
use crate::raw::statistics::{PerfContextHandle, StatisticsHandle, EMPTY_HISTOGRAM};

/// What statistics measure besides their tickers (RocksDB's `StatsLevel`): each level
/// adds timers, which cost a clock read each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum StatsLevel {
    /// Nothing: no tickers, no histograms.
    DisableAll = 0,
    /// Tickers only.
    ExceptHistogramOrTimers = 1,
    /// Tickers and histograms, no timers.
    ExceptTimers = 2,
    /// All but the detailed timers (RocksDB's default).
    ExceptDetailedTimers = 3,
    /// All but the time spent on the database mutex.
    ExceptTimeForMutex = 4,
    /// Everything, the mutex time too (costly).
    All = 5,
}

/// The statistics of a database (shared with every database opened with the same
/// [`Options`](crate::Options)). Cheap to clone; lives as long as any clone.
#[derive(Clone)]
pub struct Statistics {
    raw: Arc<StatisticsHandle>,
}

impl std::fmt::Debug for Statistics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Statistics").finish_non_exhaustive()
    }
}

impl Statistics {
    /// The statistics of `options`, if they collect any.
    pub(crate) fn of_options(options: &OptionsHandle) -> Option<Statistics> {
        StatisticsHandle::of_options(options).map(|raw| Statistics { raw: Arc::new(raw) })
    }

    /// A ticker's count.
    pub fn ticker(&self, ticker: Ticker) -> u64 {
        let mut count = [0];
        self.raw.tickers(ticker as u32, &mut count);
        count[0]
    }

    /// The count of the ticker RocksDB names `name`, if there is one.
    pub fn ticker_by_name(&self, name: &str) -> Option<u64> {
        Ticker::from_name(name).map(|ticker| self.ticker(ticker))
    }

    /// A histogram's summary.
    ///
    /// # Panics
    /// If RocksDB cannot allocate the histogram it merges each core's samples into (as Rust
    /// code does when an allocation fails).
    pub fn histogram(&self, histogram: Histogram) -> HistogramData {
        let mut out = [EMPTY_HISTOGRAM];
        self.raw
            .histograms(histogram as u32, &mut out)
            .expect("RocksDB could not allocate a histogram to read");
        HistogramData::from_raw(&out[0])
    }

    /// The histogram RocksDB names `name`, if there is one.
    pub fn histogram_by_name(&self, name: &str) -> Option<HistogramData> {
        Histogram::from_name(name).map(|histogram| self.histogram(histogram))
    }

    /// Every ticker and histogram at once, typed: compare two with
    /// [`StatisticsSnapshot::since`]. Tickers are read one after the other (each sums
    /// RocksDB's per-core counters under its lock), not at one instant.
    ///
    /// ```
    /// use pinrocks::options::{Histogram, Ticker};
    /// # fn main() -> pinrocks::Result<()> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// let mut opts = pinrocks::Options::new();
    /// opts.create_if_missing(true).enable_statistics();
    /// let db = pinrocks::Db::open(&opts, dir.path())?;
    /// let stats = db.statistics().expect("statistics enabled");
    /// let before = stats.snapshot()?;
    /// db.put(b"k", b"value")?;
    /// db.get_pinned(b"k", |v| v.len())?;
    /// let delta = stats.snapshot()?.since(&before);
    /// assert_eq!(delta.ticker(Ticker::NumberKeysWritten), 1);
    /// // The write's batch whole: a 12-byte header, a tag, two lengths, key and value.
    /// assert_eq!(delta.ticker(Ticker::BytesWritten), 12 + 3 + 1 + 5);
    /// assert_eq!(delta.histogram(Histogram::DbGet).count, 1);
    /// # Ok(()) }
    /// ```
    pub fn snapshot(&self) -> Result<StatisticsSnapshot> {
        let mut tickers = vec![0; Ticker::COUNT].into_boxed_slice();
        let ticker_count = self.raw.tickers(0, &mut tickers);
        let mut raw = vec![EMPTY_HISTOGRAM; Histogram::COUNT];
        let histogram_count = self.raw.histograms(0, &mut raw)?;
        // build/metrics.rs read the lists from the headers of the RocksDB that is linked.
        debug_assert_eq!(
            (ticker_count, histogram_count),
            (Ticker::COUNT, Histogram::COUNT)
        );
        let histograms = raw.iter().map(HistogramData::from_raw).collect();
        Ok(StatisticsSnapshot::new(tickers, histograms))
    }

    /// Every ticker and histogram back to zero.
    pub fn reset(&self) -> Result<()> {
        self.raw.reset()
    }
}

/// How this build of RocksDB computes CRC32c checksums (WAL records, MANIFEST, and blocks
/// with [`ChecksumType::Crc32c`](crate::options::ChecksumType::Crc32c)), in RocksDB's words:
/// `"Supported on x86"` when it was compiled with SSE4.2, `"Not supported on x86"` when it
/// falls back to software (librocksdb-sys' default build). See docs/guide.md ("Hardware CRC32c") for turning it on.
pub fn crc32c_mode() -> String {
    crate::raw::statistics::crc32c_mode()
}

/// How much the perf context measures on this thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PerfLevel {
    /// Nothing.
    Disable,
    /// Counts only (cheap).
    EnableCount,
    /// Counts and times, except mutex waits.
    EnableTimeExceptForMutex,
    /// Counts and every time.
    EnableTime,
}

/// The calling thread's perf context: RocksDB's per-thread counters, at the level set with
/// [`PerfContext::enable`]. Neither `Send` nor `Sync`: it reads this thread's counters.
///
/// ```
/// use pinrocks::options::{PerfContext, PerfLevel, PerfMetric};
/// # fn main() -> pinrocks::Result<()> {
/// # let dir = tempfile::tempdir().unwrap();
/// # let mut opts = pinrocks::Options::new();
/// # opts.create_if_missing(true);
/// # let db = pinrocks::Db::open(&opts, dir.path())?;
/// db.put(b"k", b"v")?;
/// db.flush()?;
/// let perf = PerfContext::enable(PerfLevel::EnableCount);
/// perf.reset();
/// db.get_pinned(b"k", |v| v.len())?; // first read: from the file
/// assert_eq!(perf.get(PerfMetric::BlockReadCount), 1);
/// perf.reset();
/// db.get_pinned(b"k", |v| v.len())?; // now from the block cache
/// assert_eq!(perf.get(PerfMetric::BlockReadCount), 0);
/// assert_eq!(perf.get(PerfMetric::BlockCacheHitCount), 1);
/// # Ok(()) }
/// ```
pub struct PerfContext {
    raw: PerfContextHandle,
    /// Thread-bound: RocksDB's perf context is a thread-local.
    _thread: PhantomData<*const ()>,
}

impl PerfContext {
    /// Sets this thread's perf level and returns its perf context.
    pub fn enable(level: PerfLevel) -> PerfContext {
        let raw_level = match level {
            PerfLevel::Disable => c_consts::perf::DISABLE,
            PerfLevel::EnableCount => c_consts::perf::ENABLE_COUNT,
            PerfLevel::EnableTimeExceptForMutex => c_consts::perf::ENABLE_TIME_EXCEPT_FOR_MUTEX,
            PerfLevel::EnableTime => c_consts::perf::ENABLE_TIME,
        };
        // Freed by `Drop` on this thread (the type is not `Send`).
        PerfContext {
            raw: PerfContextHandle::enable(raw_level),
            _thread: PhantomData,
        }
    }

    /// Every counter back to zero.
    pub fn reset(&self) {
        self.raw.reset();
    }

    /// A counter's value on this thread since the last reset.
    pub fn get(&self, metric: PerfMetric) -> u64 {
        self.raw.metric(metric as u32)
    }

    /// Counts per level of the LSM tree too (`on`), or no longer: the counters RocksDB
    /// keeps by level (bloom filter use, keys returned, block cache hits and misses, time
    /// in SST reads), read with [`per_level`](Self::per_level). Turned on, this thread's
    /// perf context holds an entry for every level RocksDB allows (about 100 KiB, made here
    /// so that no read allocates one); it stays on for the thread after the `PerfContext`
    /// is dropped, as the perf level does. Off, a reset no longer zeroes the levels' counts.
    ///
    /// ```
    /// use pinrocks::options::{PerfContext, PerfLevel};
    /// # fn main() -> pinrocks::Result<()> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let mut opts = pinrocks::Options::new();
    /// # opts.create_if_missing(true);
    /// # let db = pinrocks::Db::open(&opts, dir.path())?;
    /// db.put(b"k", b"v")?;
    /// db.flush()?; // an SST file at level 0
    /// let perf = PerfContext::enable(PerfLevel::EnableCount);
    /// perf.count_per_level(true)?;
    /// perf.reset();
    /// db.get_pinned(b"k", |v| v.len())?;
    /// let levels = perf.per_level();
    /// assert_eq!(levels.len(), 1);
    /// assert_eq!((levels[0].level, levels[0].user_key_return_count), (0, 1));
    /// # Ok(()) }
    /// ```
    pub fn count_per_level(&self, on: bool) -> Result<()> {
        self.raw.per_level(on)
    }

    /// The counters of each level counted at since the last reset, by level.
    pub fn per_level(&self) -> Vec<LevelPerf> {
        self.raw
            .levels()
            .into_iter()
            .map(|l| LevelPerf {
                level: l.level,
                bloom_filter_useful: l.bloom_filter_useful,
                bloom_filter_full_positive: l.bloom_filter_full_positive,
                bloom_filter_full_true_positive: l.bloom_filter_full_true_positive,
                user_key_return_count: l.user_key_return_count,
                get_from_table_nanos: l.get_from_table_nanos,
                block_cache_hit_count: l.block_cache_hit_count,
                block_cache_miss_count: l.block_cache_miss_count,
            })
            .collect()
    }

    /// Every counter at once, typed: compare two with [`PerfSnapshot::since`].
    pub fn snapshot(&self) -> PerfSnapshot {
        let mut values = [0; PerfMetric::COUNT];
        for (value, metric) in values.iter_mut().zip(PerfMetric::ALL) {
            *value = self.get(*metric);
        }
        PerfSnapshot::new(values)
    }
}

/// One level's counters of the perf context (RocksDB's `PerfContextByLevel`), from
/// [`PerfContext::per_level`]. Keys returned count at the level the file is at; filter and
/// block cache use at the level its reader was opened at (a file flushed or compacted, then
/// moved down, keeps counting at the level it was written to until its reader is opened
/// again, as at the next open).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct LevelPerf {
    /// The level of the LSM tree (0 for the files flushed from memtables); `u32::MAX` for
    /// files whose reader RocksDB opened outside a read of a level (table properties, size
    /// estimates), RocksDB's level -1.
    pub level: u32,
    /// Point reads the level's bloom filters answered "absent" (no file read).
    pub bloom_filter_useful: u64,
    /// Point reads its whole-key filters let through.
    pub bloom_filter_full_positive: u64,
    /// Of those, the ones whose key was there.
    pub bloom_filter_full_true_positive: u64,
    /// Keys found there and returned (not those deleted, or merged without a final put).
    pub user_key_return_count: u64,
    /// Nanoseconds reading its SST files (at [`PerfLevel::EnableTimeExceptForMutex`] or
    /// more).
    pub get_from_table_nanos: u64,
    /// Its blocks found in the block cache.
    pub block_cache_hit_count: u64,
    /// Its blocks not found there.
    pub block_cache_miss_count: u64,
}

#[cfg(test)]
mod tests {
    use super::{Histogram, Statistics, Ticker};

    /// The lists build/metrics.rs read from RocksDB's headers are as long as the arrays of
    /// the RocksDB linked (`TICKER_ENUM_MAX`, `HISTOGRAM_ENUM_MAX`).
    #[test]
    fn the_typed_lists_are_the_linked_rocksdb_s() {
        let mut options = crate::options::db_options::Options::new();
        options.enable_statistics();
        let stats = Statistics::of_options(&options.raw).expect("statistics enabled");
        assert_eq!(stats.raw.tickers(0, &mut []), Ticker::COUNT);
        assert_eq!(stats.raw.histograms(0, &mut []).unwrap(), Histogram::COUNT);
        // Past the end: nothing read, nothing written.
        let mut out = [7u64; 2];
        stats.raw.tickers(Ticker::COUNT as u32, &mut out);
        assert_eq!(out, [7, 7]);
    }
}

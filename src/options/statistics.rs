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

    /// Every counter at once, typed: compare two with [`PerfSnapshot::since`].
    pub fn snapshot(&self) -> PerfSnapshot {
        let mut values = [0; PerfMetric::COUNT];
        for (value, metric) in values.iter_mut().zip(PerfMetric::ALL) {
            *value = self.get(*metric);
        }
        PerfSnapshot::new(values)
    }
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

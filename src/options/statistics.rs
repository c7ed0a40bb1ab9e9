//! What RocksDB is doing: statistics (tickers and histograms, for the databases opened with
//! [`Options::enable_statistics`](crate::Options::enable_statistics)), the calling thread's
//! perf context (counters around one read: did it hit the block cache or read a block?),
//! and memory usage.

use std::ffi::CString;
use std::marker::PhantomData;
use std::sync::Arc;

use crate::raw::c_consts;
use crate::raw::error::Result;
use crate::raw::options_handle::OptionsHandle;
use crate::raw::statistics::{PerfContextHandle, StatisticsHandle};

macro_rules! named {
    ($(#[$outer:meta])* $name:ident { $($(#[$doc:meta])* $variant:ident => $text:literal,)* }) => {
        $(#[$outer])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum $name {
            $($(#[$doc])* $variant,)*
        }

        impl $name {
            /// Every one, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant,)*];

            /// RocksDB's name for it.
            pub fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)*
                }
            }
        }
    };
}

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

named!(
    /// A statistics counter. Others are read by name with
    /// [`Statistics::ticker_by_name`].
    Ticker {
        /// Block cache lookups that missed.
        BlockCacheMiss => "rocksdb.block.cache.miss",
        /// Block cache lookups that hit.
        BlockCacheHit => "rocksdb.block.cache.hit",
        /// Blocks added to the block cache.
        BlockCacheAdd => "rocksdb.block.cache.add",
        /// Index block hits.
        BlockCacheIndexHit => "rocksdb.block.cache.index.hit",
        /// Filter block hits.
        BlockCacheFilterHit => "rocksdb.block.cache.filter.hit",
        /// Data block misses.
        BlockCacheDataMiss => "rocksdb.block.cache.data.miss",
        /// Data block hits.
        BlockCacheDataHit => "rocksdb.block.cache.data.hit",
        /// Bytes read from the block cache.
        BlockCacheBytesRead => "rocksdb.block.cache.bytes.read",
        /// Point reads a bloom filter answered "absent" (a file not read).
        BloomFilterUseful => "rocksdb.bloom.filter.useful",
        /// Prefix filter checks.
        BloomFilterPrefixChecked => "rocksdb.bloom.filter.prefix.checked",
        /// Prefix filter checks that skipped a file.
        BloomFilterPrefixUseful => "rocksdb.bloom.filter.prefix.useful",
        /// Reads answered by a memtable.
        MemtableHit => "rocksdb.memtable.hit",
        /// Reads not answered by a memtable.
        MemtableMiss => "rocksdb.memtable.miss",
        /// Reads answered by level 0.
        GetHitL0 => "rocksdb.l0.hit",
        /// Reads answered by level 1.
        GetHitL1 => "rocksdb.l1.hit",
        /// Reads answered by level 2 or below.
        GetHitL2AndUp => "rocksdb.l2andup.hit",
        /// Keys written.
        KeysWritten => "rocksdb.number.keys.written",
        /// Keys read.
        KeysRead => "rocksdb.number.keys.read",
        /// Bytes written (keys and values).
        BytesWritten => "rocksdb.bytes.written",
        /// Bytes read by point reads.
        BytesRead => "rocksdb.bytes.read",
        /// Iterator seeks.
        DbSeek => "rocksdb.number.db.seek",
        /// Bytes read by iterators.
        IterBytesRead => "rocksdb.db.iter.bytes.read",
        /// Table files opened.
        FileOpens => "rocksdb.no.file.opens",
        /// Microseconds writers were stalled.
        StallMicros => "rocksdb.stall.micros",
        /// Merges that failed.
        MergeFailures => "rocksdb.number.merge.failures",
        /// WAL syncs.
        WalSynced => "rocksdb.wal.synced",
        /// Bytes written to the WAL.
        WalBytes => "rocksdb.wal.bytes",
        /// Bytes compactions read.
        CompactReadBytes => "rocksdb.compact.read.bytes",
        /// Bytes compactions wrote.
        CompactWriteBytes => "rocksdb.compact.write.bytes",
        /// Bytes flushes wrote.
        FlushWriteBytes => "rocksdb.flush.write.bytes",
        /// Blocks compressed.
        BlocksCompressed => "rocksdb.number.block.compressed",
        /// Times the rate limiter ran dry and a writer waited.
        RateLimiterDrains => "rocksdb.number.rate_limiter.drains",
    }
);

named!(
    /// A statistics histogram. Others are read by name with
    /// [`Statistics::histogram_by_name`].
    Histogram {
        /// Microseconds per point read.
        DbGet => "rocksdb.db.get.micros",
        /// Microseconds per write.
        DbWrite => "rocksdb.db.write.micros",
        /// Microseconds per multi-get.
        DbMultiGet => "rocksdb.db.multiget.micros",
        /// Microseconds per iterator seek.
        DbSeek => "rocksdb.db.seek.micros",
        /// Microseconds per compaction.
        CompactionTime => "rocksdb.compaction.times.micros",
        /// Microseconds per flush.
        FlushTime => "rocksdb.db.flush.micros",
        /// Microseconds per SST read.
        SstReadMicros => "rocksdb.sst.read.micros",
        /// Microseconds per block read for a point read.
        ReadBlockGetMicros => "rocksdb.read.block.get.micros",
        /// Bytes per point read.
        BytesPerRead => "rocksdb.bytes.per.read",
        /// Bytes per write.
        BytesPerWrite => "rocksdb.bytes.per.write",
    }
);

/// A histogram's summary.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct HistogramData {
    /// Samples.
    pub count: u64,
    /// Their sum.
    pub sum: u64,
    /// Smallest.
    pub min: f64,
    /// Largest.
    pub max: f64,
    /// Mean.
    pub average: f64,
    /// Median.
    pub median: f64,
    /// 95th percentile.
    pub p95: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Standard deviation.
    pub std_dev: f64,
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
        self.ticker_by_name(ticker.name())
            .expect("every Ticker names one of RocksDB's tickers")
    }

    /// The count of the ticker RocksDB names `name`, if there is one.
    pub fn ticker_by_name(&self, name: &str) -> Option<u64> {
        let name = CString::new(name).ok()?;
        self.raw.ticker(&name)
    }

    /// A histogram's summary.
    pub fn histogram(&self, histogram: Histogram) -> HistogramData {
        self.histogram_by_name(histogram.name())
            .expect("every Histogram names one of RocksDB's histograms")
    }

    /// The histogram RocksDB names `name`, if there is one.
    pub fn histogram_by_name(&self, name: &str) -> Option<HistogramData> {
        let name = CString::new(name).ok()?;
        self.raw.histogram(&name).map(|out| HistogramData {
            count: out.count,
            sum: out.sum,
            min: out.min,
            max: out.max,
            average: out.average,
            median: out.median,
            p95: out.p95,
            p99: out.p99,
            std_dev: out.std_dev,
        })
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

named!(
    /// A perf context counter.
    PerfMetric {
        /// Key comparisons.
        UserKeyComparisonCount => "user_key_comparison_count",
        /// Block cache hits.
        BlockCacheHitCount => "block_cache_hit_count",
        /// Blocks read from files (not the block cache).
        BlockReadCount => "block_read_count",
        /// Bytes of blocks read from files.
        BlockReadByte => "block_read_byte",
        /// Bytes read by point reads.
        GetReadBytes => "get_read_bytes",
        /// Internal keys skipped (deleted or overwritten versions).
        InternalKeySkippedCount => "internal_key_skipped_count",
        /// Merge operands met.
        InternalMergeCount => "internal_merge_count",
        /// Memtables queried.
        GetFromMemtableCount => "get_from_memtable_count",
        /// Memtable bloom hits.
        BloomMemtableHitCount => "bloom_memtable_hit_count",
        /// Memtable bloom misses.
        BloomMemtableMissCount => "bloom_memtable_miss_count",
        /// SST bloom (or prefix) filter hits: the file may hold the key.
        BloomSstHitCount => "bloom_sst_hit_count",
        /// SST bloom (or prefix) filter misses: the file was skipped.
        BloomSstMissCount => "bloom_sst_miss_count",
    }
);

impl PerfMetric {
    fn raw(self) -> u32 {
        match self {
            PerfMetric::UserKeyComparisonCount => c_consts::perf::USER_KEY_COMPARISON_COUNT,
            PerfMetric::BlockCacheHitCount => c_consts::perf::BLOCK_CACHE_HIT_COUNT,
            PerfMetric::BlockReadCount => c_consts::perf::BLOCK_READ_COUNT,
            PerfMetric::BlockReadByte => c_consts::perf::BLOCK_READ_BYTE,
            PerfMetric::GetReadBytes => c_consts::perf::GET_READ_BYTES,
            PerfMetric::InternalKeySkippedCount => c_consts::perf::INTERNAL_KEY_SKIPPED_COUNT,
            PerfMetric::InternalMergeCount => c_consts::perf::INTERNAL_MERGE_COUNT,
            PerfMetric::GetFromMemtableCount => c_consts::perf::GET_FROM_MEMTABLE_COUNT,
            PerfMetric::BloomMemtableHitCount => c_consts::perf::BLOOM_MEMTABLE_HIT_COUNT,
            PerfMetric::BloomMemtableMissCount => c_consts::perf::BLOOM_MEMTABLE_MISS_COUNT,
            PerfMetric::BloomSstHitCount => c_consts::perf::BLOOM_SST_HIT_COUNT,
            PerfMetric::BloomSstMissCount => c_consts::perf::BLOOM_SST_MISS_COUNT,
        }
    }
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
        self.raw.metric(metric.raw())
    }
}

//! The handles of RocksDB's counters: a database's statistics (tickers and histograms, read
//! by number) and the calling thread's perf context.

use crate::raw::error::{with_code, Result};
use crate::raw::ffi;
use crate::raw::options_handle::OptionsHandle;
use crate::raw::owned::Owned;

/// Owns one `pinrocks_statistics_t` (a `shared_ptr` to RocksDB's `Statistics`).
pub(crate) struct StatisticsHandle(Owned<ffi::pinrocks_statistics_t>);

// SAFETY: a shared_ptr to RocksDB's `StatisticsImpl`, whose counters are per-core atomics
// and whose histograms and `Reset` take its own mutex: any thread may read or reset it.
unsafe impl Send for StatisticsHandle {}
// SAFETY: see `Send`.
unsafe impl Sync for StatisticsHandle {}

/// A histogram's summary as RocksDB gives it.
pub(crate) type RawHistogram = ffi::pinrocks_histogram;

/// A histogram with no samples, to be written over.
pub(crate) const EMPTY_HISTOGRAM: RawHistogram = RawHistogram {
    count: 0,
    sum: 0,
    min: 0.0,
    max: 0.0,
    average: 0.0,
    median: 0.0,
    p95: 0.0,
    p99: 0.0,
    std_dev: 0.0,
};

impl StatisticsHandle {
    /// The statistics of `options`, if they collect any.
    pub(crate) fn of_options(options: &OptionsHandle) -> Option<StatisticsHandle> {
        // SAFETY: live options, only read; the result is a new reference (or NULL).
        let raw = unsafe { ffi::pinrocks_statistics_of_options(options.as_ptr()) };
        // SAFETY: a new object, ours alone (or NULL).
        unsafe { Owned::from_raw(raw) }.map(StatisticsHandle)
    }

    /// The counts of the tickers numbered `first`, `first + 1`, ... into `out`, as many as
    /// exist; returns how many tickers the linked RocksDB has.
    pub(crate) fn tickers(&self, first: u32, out: &mut [u64]) -> usize {
        // SAFETY: live statistics; writes at most `out.len()` counts into `out`.
        unsafe {
            ffi::pinrocks_statistics_tickers(self.0.as_ptr(), first, out.as_mut_ptr(), out.len())
        }
    }

    /// The histograms numbered `first`, `first + 1`, ... into `out`, as many as exist;
    /// returns how many histograms the linked RocksDB has.
    pub(crate) fn histograms(&self, first: u32, out: &mut [RawHistogram]) -> Result<usize> {
        // SAFETY: live statistics; writes at most `out.len()` histograms into `out`.
        with_code(|code, err| unsafe {
            ffi::pinrocks_statistics_histograms(
                self.0.as_ptr(),
                first,
                out.as_mut_ptr(),
                out.len(),
                code,
                err,
            )
        })
    }

    /// Every ticker and histogram back to zero.
    pub(crate) fn reset(&self) -> Result<()> {
        // SAFETY: live statistics; `Reset` takes their mutex.
        with_code(|code, err| unsafe { ffi::pinrocks_statistics_reset(self.0.as_ptr(), code, err) })
    }
}

/// How this build of RocksDB computes CRC32c, in RocksDB's words.
pub(crate) fn crc32c_mode() -> String {
    let mut buf = [0u8; 64];
    // SAFETY: writes at most `buf.len()` bytes into `buf`.
    let len = unsafe { ffi::pinrocks_crc32c_mode(buf.as_mut_ptr().cast(), buf.len()) };
    String::from_utf8_lossy(&buf[..len.min(buf.len())]).into_owned()
}

/// Owns the calling thread's `rocksdb_perfcontext_t`. Not `Send`: the owner keeps it on its
/// thread (RocksDB's perf context is a thread-local).
pub(crate) struct PerfContextHandle(Owned<ffi::rocksdb_perfcontext_t>);

impl PerfContextHandle {
    /// Sets this thread's perf level (a C API level) and wraps its perf context.
    pub(crate) fn enable(level: u32) -> PerfContextHandle {
        // SAFETY: sets a thread-local; the context handle wraps this thread's perf context.
        let raw = unsafe {
            ffi::rocksdb_set_perf_level(level as i32);
            ffi::rocksdb_perfcontext_create()
        };
        // SAFETY: a new object, ours alone (or NULL).
        PerfContextHandle(unsafe { Owned::from_raw(raw) }.expect("a NULL perf context"))
    }

    /// Every counter back to zero.
    pub(crate) fn reset(&self) {
        // SAFETY: this thread's live perf context.
        unsafe { ffi::rocksdb_perfcontext_reset(self.0.as_ptr()) };
    }

    /// Counts per level too, or no longer.
    pub(crate) fn per_level(&self, on: bool) -> Result<()> {
        // SAFETY: this thread's perf context (a thread-local); guarded.
        with_code(|code, err| unsafe { ffi::pinrocks_perf_per_level(u8::from(on), code, err) })
    }

    /// This thread's per-level counters, by level.
    pub(crate) fn levels(&self) -> Vec<ffi::pinrocks_level_perf> {
        let mut levels = Vec::new();
        loop {
            // SAFETY: this thread's perf context; `levels` has room for its capacity, filled
            // by the call up to there.
            let count =
                unsafe { ffi::pinrocks_perf_levels(levels.as_mut_ptr(), levels.capacity()) };
            if count <= levels.capacity() {
                // SAFETY: the call wrote `count` entries (within the capacity).
                unsafe { levels.set_len(count) };
                return levels;
            }
            levels.reserve_exact(count);
        }
    }

    /// A counter (a C API metric) on this thread since the last reset.
    pub(crate) fn metric(&self, metric: u32) -> u64 {
        // SAFETY: this thread's live perf context; a metric number of the C API (an
        // unknown one reads 0).
        unsafe { ffi::pinrocks_perf_metric(self.0.as_ptr(), metric as i32) }
    }
}

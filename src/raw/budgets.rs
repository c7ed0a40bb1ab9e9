//! The native handles of the budgets databases share: the memtable memory budget
//! (`WriteBufferManager`), the SST file manager, and the default environment's thread
//! pools.

use crate::raw::cache::CacheHandle;
use crate::raw::error::{with_code, Result};
use crate::raw::ffi;
use crate::raw::handle_calls::{handle_arg, handle_calls};
use crate::raw::owned::Owned;

/// Owns one `rocksdb_write_buffer_manager_t` (a `shared_ptr<WriteBufferManager>`).
pub(crate) struct WriteBufferManagerHandle(Owned<ffi::rocksdb_write_buffer_manager_t>);

// SAFETY: `WriteBufferManager` keeps its sizes in atomics (`buffer_size_`,
// `memory_used_`, `allow_stall_`) and locks `mu_` for its stall queue and cache
// reservations (memory/write_buffer_manager.cc): every method is callable from any thread,
// as RocksDB's databases call it from theirs.
unsafe impl Send for WriteBufferManagerHandle {}
// SAFETY: see `Send`.
unsafe impl Sync for WriteBufferManagerHandle {}

impl WriteBufferManagerHandle {
    /// A budget of `buffer_size` bytes, memtable memory charged to `cache` if given.
    pub(crate) fn new(
        buffer_size: usize,
        cache: Option<&CacheHandle>,
        allow_stall: bool,
    ) -> WriteBufferManagerHandle {
        // SAFETY: plain constructors; the manager copies the cache's `shared_ptr`.
        let raw = unsafe {
            match cache {
                None => ffi::rocksdb_write_buffer_manager_create(buffer_size, allow_stall),
                Some(cache) => ffi::rocksdb_write_buffer_manager_create_with_cache(
                    buffer_size,
                    cache.as_ptr(),
                    allow_stall,
                ),
            }
        };
        // SAFETY: a new object, ours alone (or NULL).
        WriteBufferManagerHandle(
            unsafe { Owned::from_raw(raw) }.expect("a NULL write buffer manager"),
        )
    }

    /// The handle, live while `self` is.
    pub(crate) fn as_ptr(&self) -> *mut ffi::rocksdb_write_buffer_manager_t {
        self.0.as_ptr()
    }
}

handle_arg!(WriteBufferManagerHandle => ffi::rocksdb_write_buffer_manager_t);

handle_calls!(WriteBufferManagerHandle {
    /// Bytes of memtables counted (an atomic load).
    fn memory_usage(&self) -> usize = rocksdb_write_buffer_manager_memory_usage;
    /// Of those, the memtables still written.
    fn mutable_memtable_memory_usage(&self) -> usize =
        rocksdb_write_buffer_manager_mutable_memtable_memory_usage;
    /// The budget.
    fn buffer_size(&self) -> usize = rocksdb_write_buffer_manager_buffer_size;
    /// Changes the budget (an atomic store); the caller keeps an enabled manager enabled.
    fn set_buffer_size(&self, bytes: usize) = rocksdb_write_buffer_manager_set_buffer_size;
    /// Whether writes stall over the budget (an atomic store).
    fn set_allow_stall(&self, allow: bool) = rocksdb_write_buffer_manager_set_allow_stall;
});

/// Owns one `rocksdb_sst_file_manager_t` (a `shared_ptr<SstFileManager>`).
pub(crate) struct SstFileManagerHandle(Owned<ffi::rocksdb_sst_file_manager_t>);

// SAFETY: `SstFileManagerImpl` guards its sizes and limits with its mutex `mu_` and its
// delete scheduler with its own; RocksDB calls it from every flush and compaction thread of
// every database using it (file/sst_file_manager_impl.cc).
unsafe impl Send for SstFileManagerHandle {}
// SAFETY: see `Send`.
unsafe impl Sync for SstFileManagerHandle {}

impl SstFileManagerHandle {
    /// A manager on the default file system.
    pub(crate) fn new() -> SstFileManagerHandle {
        // SAFETY: a live wrapper of the process-wide default environment, which is never
        // freed; the manager keeps the environment's file system and clock by `shared_ptr`.
        let raw = with_default_env(|env| unsafe { ffi::rocksdb_sst_file_manager_create(env) });
        // SAFETY: a new object, ours alone (or NULL).
        SstFileManagerHandle(unsafe { Owned::from_raw(raw) }.expect("a NULL SST file manager"))
    }

    /// The handle, live while `self` is.
    pub(crate) fn as_ptr(&self) -> *mut ffi::rocksdb_sst_file_manager_t {
        self.0.as_ptr()
    }

    /// Deletes obsolete files at most this fast; the first nonzero rate starts a thread,
    /// whose failure to start is an error.
    pub(crate) fn set_delete_rate_bytes_per_second(&self, rate: i64) -> Result<()> {
        // SAFETY: live manager; locks its own mutex. Guarded.
        with_code(|code, err| unsafe {
            ffi::pinrocks_guarded_sst_file_manager_set_delete_rate_bytes_per_second(
                code,
                self.as_ptr(),
                rate,
                err,
            )
        })
    }
}

handle_arg!(SstFileManagerHandle => ffi::rocksdb_sst_file_manager_t);

handle_calls!(SstFileManagerHandle {
    /// The space limit (locks the manager's mutex).
    fn set_max_allowed_space_usage(&self, bytes: u64) =
        rocksdb_sst_file_manager_set_max_allowed_space_usage;
    /// Bytes kept free for compactions under the limit.
    fn set_compaction_buffer_size(&self, bytes: u64) =
        rocksdb_sst_file_manager_set_compaction_buffer_size;
    /// Whether the files tracked are at or over the limit.
    fn is_max_allowed_space_reached(&self) -> bool =
        rocksdb_sst_file_manager_is_max_allowed_space_reached;
    /// The share of trash over live data above which files go at once.
    fn set_max_trash_db_ratio(&self, ratio: f64) = rocksdb_sst_file_manager_set_max_trash_db_ratio;
    /// Bytes of SST and blob files tracked.
    fn total_size(&self) -> u64 = rocksdb_sst_file_manager_get_total_size;
    /// Bytes in the trash.
    fn total_trash_size(&self) -> u64 = rocksdb_sst_file_manager_get_total_trash_size;
});

/// A thread pool of the default environment, as `rocksdb::Env::Priority` numbers it.
#[derive(Clone, Copy)]
pub(crate) enum Pool {
    Bottom = 0,
    Low = 1,
    High = 2,
}

/// Sizes `pool` of the process-wide default environment to `threads` (bounded by the
/// caller); a thread the system refuses to start is an error, every pool set back.
pub(crate) fn set_background_threads(pool: Pool, threads: i32) -> Result<()> {
    // SAFETY: the process-wide default environment, which lives for the process;
    // `SetBackgroundThreads` locks the pool. Guarded, pools restored on failure.
    with_code(|code, err| unsafe {
        ffi::pinrocks_env_set_background_threads(pool as i32, threads, code, err)
    })
}

/// Lowers the priority of `pool`'s threads of the default environment, each as it next runs
/// a job: the CPU priority to `cpu` (0 idle, 1 low), and the I/O priority to idle with `io`.
pub(crate) fn lower_thread_pool_priority(pool: Pool, cpu: Option<i32>, io: bool) -> Result<()> {
    // SAFETY: the process-wide default environment, which lives for the process; the pool
    // takes its own lock. Guarded.
    with_code(|code, err| unsafe {
        ffi::pinrocks_env_lower_thread_pool_priority(
            pool as i32,
            cpu.unwrap_or(-1),
            u8::from(io),
            code,
            err,
        )
    })
}

/// The threads `pool` of the default environment has.
pub(crate) fn background_threads(pool: Pool) -> i32 {
    with_default_env(|env| {
        // SAFETY: live environment wrapper; `GetBackgroundThreads` locks the pool.
        unsafe {
            match pool {
                Pool::Low => ffi::rocksdb_env_get_low_priority_background_threads(env),
                Pool::High => ffi::rocksdb_env_get_high_priority_background_threads(env),
                Pool::Bottom => ffi::rocksdb_env_get_bottom_priority_background_threads(env),
            }
        }
    })
}

/// Runs `f` on a wrapper of the process-wide default environment.
pub(crate) fn with_default_env<R>(f: impl FnOnce(*mut ffi::rocksdb_env_t) -> R) -> R {
    // SAFETY: a wrapper of the process-wide default environment, which destroying the
    // wrapper does not free (`is_default`).
    unsafe {
        let env = ffi::rocksdb_create_default_env();
        let result = f(env);
        ffi::rocksdb_env_destroy(env);
        result
    }
}

/// Owns one `pinrocks_ratelimiter_t` (a `shared_ptr` to a `GenericRateLimiter`): options
/// given it hold their own `shared_ptr`.
pub(crate) struct RateLimiterHandle(Owned<ffi::pinrocks_ratelimiter_t>);

// SAFETY: `GenericRateLimiter` is thread-safe: requests, `SetBytesPerSecond`,
// `SetSingleBurstBytes` and the totals take its own mutex, the rate and burst getters read
// atomics; the handle is only a shared_ptr to it, never changed after creation.
unsafe impl Send for RateLimiterHandle {}
// SAFETY: see `Send`.
unsafe impl Sync for RateLimiterHandle {}

/// A rate limiter's rate and burst now, and its totals for one priority.
pub(crate) type RawRateLimiterCounts = ffi::pinrocks_ratelimiter_counts;

impl RateLimiterHandle {
    /// `NewGenericRateLimiter` with every argument; the caller bounds them (rocksdb-c/
    /// refuses values that would hang or crash RocksDB too).
    pub(crate) fn new(
        rate: i64,
        refill_period_us: i64,
        fairness: i32,
        mode: i32,
        auto_tuned: bool,
        single_burst_bytes: i64,
    ) -> Result<RateLimiterHandle> {
        // SAFETY: plain values; the result is a new object (NULL with the error set).
        let raw = with_code(|code, err| unsafe {
            ffi::pinrocks_ratelimiter_create(
                rate,
                refill_period_us,
                fairness,
                mode,
                auto_tuned as u8,
                single_burst_bytes,
                code,
                err,
            )
        })?;
        // SAFETY: a new object, ours alone (not NULL without an error).
        Ok(RateLimiterHandle(
            unsafe { Owned::from_raw(raw) }.expect("a NULL rate limiter"),
        ))
    }

    /// The handle, live while `self` is.
    pub(crate) fn as_ptr(&self) -> *mut ffi::pinrocks_ratelimiter_t {
        self.0.as_ptr()
    }

    /// `SetBytesPerSecond`, refused unless it refills a byte every `refill_period_us`.
    pub(crate) fn set_bytes_per_second(&self, rate: i64, refill_period_us: i64) -> Result<()> {
        // SAFETY: a live limiter; it takes its own mutex.
        with_code(|code, err| unsafe {
            ffi::pinrocks_ratelimiter_set_bytes_per_second(
                self.as_ptr(),
                rate,
                refill_period_us,
                code,
                err,
            )
        })
    }

    /// `SetSingleBurstBytes`.
    pub(crate) fn set_single_burst_bytes(&self, bytes: i64) -> Result<()> {
        // SAFETY: a live limiter; it takes its own mutex.
        with_code(|code, err| unsafe {
            ffi::pinrocks_ratelimiter_set_single_burst_bytes(self.as_ptr(), bytes, code, err)
        })
    }

    /// The rate and burst now, and the totals of `priority` (0 to 4, 4 for all).
    pub(crate) fn counts(&self, priority: i32) -> Result<RawRateLimiterCounts> {
        let mut out = RawRateLimiterCounts {
            bytes_per_second: 0,
            single_burst_bytes: 0,
            total_bytes_through: 0,
            total_requests: 0,
            total_pending_requests: 0,
        };
        // SAFETY: a live limiter; `out` is written during the call.
        with_code(|code, err| unsafe {
            ffi::pinrocks_ratelimiter_read(self.as_ptr(), priority, &mut out, code, err)
        })?;
        Ok(out)
    }
}

handle_arg!(RateLimiterHandle => ffi::pinrocks_ratelimiter_t);

//! Budgets shared across column families and databases: memtable memory
//! ([`WriteBufferManager`]), SST file space and deletion rate ([`SstFileManager`]), the row
//! cache, and the background thread pools. Each is a cheap-to-clone handle: the options it
//! is given to, and every database opened with them, hold it (RocksDB keeps a
//! `shared_ptr`), so a database outlives the handle its user dropped.

use std::sync::{Arc, Mutex};

use crate::options::cache::Cache;
use crate::options::contract_rules::MAX_POOL_THREADS;
use crate::options::db_options::Options;
use crate::options::env_owner::{DatabaseBudget, DatabaseOnEnv};
use crate::raw::budgets::{
    background_threads, lower_thread_pool_priority, set_background_threads, Pool,
    SstFileManagerHandle, WriteBufferManagerHandle,
};
use crate::raw::error::{Error, Result};

/// One memtable memory budget (`rocksdb::WriteBufferManager`) for every column family and
/// database given it. When their memtables together pass `buffer_size`, the database being
/// written to flushes its own memtables (RocksDB never flushes another database's), and
/// with `allow_stall` writes stall until memory is back under the budget.
///
/// A budget with `allow_stall` serves one open database at a time (its column families
/// share it): a second open on it is refused, and so is `set_allow_stall(true)` while two
/// are open. Shared, an idle database holding memtables over the budget would stall every
/// other database's writes until it closed (RocksDB only frees memory by flushing the
/// writer's memtables), which is for ever in a service. Without `allow_stall` a budget is
/// shared freely: each writer flushes its own memtables, and memory may pass the budget.
///
/// ```
/// use pinrocks::{Db, Options};
/// use pinrocks::options::WriteBufferManager;
/// # fn main() -> pinrocks::Result<()> {
/// # let dir = tempfile::tempdir().unwrap();
/// let budget = WriteBufferManager::new(64 << 20, false);
/// let mut options = Options::new();
/// options.create_if_missing(true).write_buffer_manager(&budget);
/// let a = Db::open(&options, dir.path().join("a"))?;
/// let b = Db::open(&options, dir.path().join("b"))?;
/// a.put(b"k", &[1; 1000])?;
/// assert!(budget.memory_usage() >= 1000); // both databases' memtables count
/// # drop(b);
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct WriteBufferManager {
    inner: Arc<RawWriteBufferManager>,
}

/// Owns one `rocksdb_write_buffer_manager_t` (a `shared_ptr<WriteBufferManager>`), and
/// counts the open databases using it.
struct RawWriteBufferManager {
    handle: WriteBufferManagerHandle,
    /// Whether writes stall over the budget, and how many open databases use it. Lock:
    /// held only to read or change the two together; no RocksDB call under it.
    users: Mutex<Users>,
}

/// What [`RawWriteBufferManager::users`] guards.
struct Users {
    allow_stall: bool,
    databases: usize,
}

/// The refusal of a stalling budget shared by two open databases.
const STALL_SHARED: &str = "a WriteBufferManager with allow_stall serves one open database \
    at a time: RocksDB flushes only the writing database's memtables, so an idle database \
    holding memtables over the budget would stall every other's writes until it closed; \
    share a budget without allow_stall, or give each database its own";

impl WriteBufferManager {
    /// A budget of `buffer_size` bytes of memtables (0: none, only counts). With
    /// `allow_stall`, writes stall while the memtables are over it.
    pub fn new(buffer_size: usize, allow_stall: bool) -> Self {
        Self::own(
            WriteBufferManagerHandle::new(buffer_size, None, allow_stall),
            allow_stall,
        )
    }

    /// The same, with memtable memory also charged to `cache` (as dummy entries), so one
    /// [`Cache`] bounds block cache and memtables together.
    pub fn with_cache(buffer_size: usize, cache: &Cache, allow_stall: bool) -> Self {
        let handle = WriteBufferManagerHandle::new(buffer_size, Some(cache.handle()), allow_stall);
        Self::own(handle, allow_stall)
    }

    fn own(handle: WriteBufferManagerHandle, allow_stall: bool) -> Self {
        WriteBufferManager {
            inner: Arc::new(RawWriteBufferManager {
                handle,
                users: Mutex::new(Users {
                    allow_stall,
                    databases: 0,
                }),
            }),
        }
    }

    fn users(&self) -> std::sync::MutexGuard<'_, Users> {
        self.inner.users.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl DatabaseBudget for WriteBufferManager {
    /// Counts a database opening with this budget until the result drops (after it has
    /// closed); refused for a second database while writes stall over the budget.
    fn hold_for_database(&self) -> Result<DatabaseOnEnv> {
        let mut users = self.users();
        if users.allow_stall && users.databases >= 1 {
            return Err(Error::invalid("write_buffer_manager", STALL_SHARED));
        }
        users.databases += 1;
        Ok(Box::new(BudgetHold(self.inner.clone())))
    }
}

impl WriteBufferManager {
    /// Bytes of memtables counted now, across every database using the budget.
    pub fn memory_usage(&self) -> usize {
        self.inner.handle.memory_usage()
    }

    /// Of [`memory_usage`](Self::memory_usage), the memtables still being written.
    pub fn mutable_memtable_memory_usage(&self) -> usize {
        self.inner.handle.mutable_memtable_memory_usage()
    }

    /// The budget, in bytes.
    pub fn buffer_size(&self) -> usize {
        self.inner.handle.buffer_size()
    }

    /// Changes the budget for every database using it. Refused (`InvalidInput`) for 0 and
    /// for a manager made with 0: RocksDB counts memory only when made with a budget, and
    /// one enabled later would free memory it never counted.
    pub fn set_buffer_size(&self, bytes: usize) -> Result<()> {
        if bytes == 0 || self.buffer_size() == 0 {
            return Err(Error::invalid(
                "set_buffer_size",
                "a write buffer manager's budget must be set at creation and stay above 0",
            ));
        }
        self.inner.handle.set_buffer_size(bytes);
        Ok(())
    }

    /// Whether writes stall while over the budget. Turning stalls on is refused
    /// (`InvalidInput`) while more than one open database uses the budget (see
    /// [`WriteBufferManager`]).
    pub fn set_allow_stall(&self, allow: bool) -> Result<()> {
        let mut users = self.users();
        if allow && users.databases > 1 {
            return Err(Error::invalid("set_allow_stall", STALL_SHARED));
        }
        users.allow_stall = allow;
        // Under our lock, so that no database opens between the check and the store.
        self.inner.handle.set_allow_stall(allow);
        Ok(())
    }
}

/// One open database's use of a budget, counted until it drops.
struct BudgetHold(Arc<RawWriteBufferManager>);

impl Drop for BudgetHold {
    fn drop(&mut self) {
        let mut users = self.0.users.lock().unwrap_or_else(|e| e.into_inner());
        users.databases -= 1;
    }
}

/// SST file space and deletion, shared by every database given it
/// (`rocksdb::SstFileManager`): it tracks the size of their SST and blob files, can refuse
/// to go over a space limit (a flush or compaction that would fails with
/// [`ErrorKind::NoSpace`](crate::ErrorKind::NoSpace) and stops writes until
/// [`Db::resume`](crate::Db::resume) after the limit is raised), and rate-limits file
/// deletions through a trash directory so that they don't stall the disk.
#[derive(Clone)]
pub struct SstFileManager {
    inner: Arc<RawSstFileManager>,
}

/// Owns one `rocksdb_sst_file_manager_t` (a `shared_ptr<SstFileManager>`).
struct RawSstFileManager(SstFileManagerHandle);

impl SstFileManager {
    /// A manager on the default file system, with no space limit and no deletion rate.
    pub fn new() -> Self {
        SstFileManager {
            inner: Arc::new(RawSstFileManager(SstFileManagerHandle::new())),
        }
    }

    /// The most bytes of SST and blob files all its databases may hold (0: no limit).
    pub fn set_max_allowed_space_usage(&self, bytes: u64) {
        self.inner.0.set_max_allowed_space_usage(bytes)
    }

    /// Bytes kept free for compactions under the space limit: a compaction starts only if
    /// its estimated output fits with this much to spare.
    pub fn set_compaction_buffer_size(&self, bytes: u64) {
        self.inner.0.set_compaction_buffer_size(bytes)
    }

    /// Whether the files tracked are at or over the space limit.
    pub fn is_max_allowed_space_reached(&self) -> bool {
        self.inner.0.is_max_allowed_space_reached()
    }

    /// Deletes obsolete files at most this fast, through a trash directory (0: at once).
    /// The first nonzero rate starts RocksDB's delete scheduler thread: a thread the system
    /// refuses to start is an error, not an exception through Rust.
    pub fn set_delete_rate_bytes_per_second(&self, rate: i64) -> Result<()> {
        self.inner.0.set_delete_rate_bytes_per_second(rate)
    }

    /// The share of trash over live data above which files are deleted at once, whatever
    /// the rate.
    pub fn set_max_trash_db_ratio(&self, ratio: f64) {
        self.inner.0.set_max_trash_db_ratio(ratio)
    }

    /// Bytes of SST and blob files tracked, across its databases.
    pub fn total_size(&self) -> u64 {
        self.inner.0.total_size()
    }

    /// Bytes waiting in the trash to be deleted.
    pub fn total_trash_size(&self) -> u64 {
        self.inner.0.total_trash_size()
    }
}

impl Default for SstFileManager {
    fn default() -> Self {
        Self::new()
    }
}

/// A background thread pool of the process-wide default environment (`Env::Default()`,
/// which every database pinrocks opens uses).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ThreadPool {
    /// Compactions (RocksDB's `LOW` pool).
    Low,
    /// Flushes (`HIGH`).
    High,
    /// Compactions into the last level, when given threads (`BOTTOM`).
    Bottom,
}

/// A CPU priority a thread pool can be lowered to (RocksDB's `CpuPriority`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CpuPriority {
    /// Linux's `SCHED_IDLE`: runs only when nothing else wants the CPU.
    Idle = 0,
    /// Nice 19.
    Low = 1,
}

/// `threads` if it is a pool size pinrocks allows (`min..=MAX_POOL_THREADS`).
pub(crate) fn pool_size(threads: i32, min: i32) -> Result<i32> {
    if (min..=MAX_POOL_THREADS).contains(&threads) {
        Ok(threads)
    } else {
        Err(Error::invalid(
            "threads",
            format!("{threads}: a thread pool takes {min}..={MAX_POOL_THREADS} threads"),
        ))
    }
}

/// The process-wide default environment's thread pools: what flushes and compactions of
/// every database run on. Sizing them is process-wide, as in RocksDB; a database asks for
/// at least [`max_background_jobs`](Options::max_background_jobs) worth at open.
pub struct Env;

impl Env {
    /// Sizes `pool` to `threads` (it grows at once; it shrinks as threads finish). With no
    /// thread in both `Low` and `High`, no flush runs in the whole process: writes then
    /// stall and waiting flushes wait.
    ///
    /// `threads` is bounded to 0..=[`MAX_POOL_THREADS`]; a thread the system refuses to
    /// start is an error (RocksDB's `std::system_error`), and every pool is then set back
    /// to the size it had, so none keeps a limit it could not reach.
    pub fn set_background_threads(pool: ThreadPool, threads: i32) -> Result<()> {
        let threads = pool_size(threads, 0)?;
        set_background_threads(pool.native(), threads)
    }

    /// The threads `pool` has.
    pub fn background_threads(pool: ThreadPool) -> i32 {
        background_threads(pool.native())
    }

    /// Lowers the CPU priority of `pool`'s threads to `priority`, each as it next runs a job
    /// (RocksDB's `LowerThreadPoolCPUPriority`): so that compactions yield the CPU to the
    /// service. Process-wide and one way, as in RocksDB: a thread's priority only goes down.
    pub fn lower_cpu_priority(pool: ThreadPool, priority: CpuPriority) -> Result<()> {
        lower_thread_pool_priority(pool.native(), Some(priority as i32), false)
    }

    /// Lowers the I/O priority of `pool`'s threads to idle (Linux's `ioprio_set` class 3),
    /// each as it next runs a job (RocksDB's `LowerThreadPoolIOPriority`); only I/O
    /// schedulers with priorities (CFQ, BFQ) heed it. Process-wide and one way.
    pub fn lower_io_priority(pool: ThreadPool) -> Result<()> {
        lower_thread_pool_priority(pool.native(), None, true)
    }
}

impl ThreadPool {
    fn native(self) -> Pool {
        match self {
            ThreadPool::Bottom => Pool::Bottom,
            ThreadPool::Low => Pool::Low,
            ThreadPool::High => Pool::High,
        }
    }
}

impl Options {
    /// Size the background thread pools for `threads` cores (RocksDB's
    /// `IncreaseParallelism`: `max_background_jobs` and the `Low` pool to `threads`, the
    /// `High` pool to 1). The pools are the options' Env's, by default RocksDB's
    /// process-wide `Env::Default()` ones: this resizes them at once, for every database in
    /// the process, open or opened later, not only for databases opened with these options.
    ///
    /// `threads` is bounded to 1..=[`MAX_POOL_THREADS`](crate::options::MAX_POOL_THREADS); a value
    /// outside, or a thread the system refuses to start (the pools are then set back to
    /// their sizes before the call), is reported when the options are used to open.
    ///
    /// Scope: database (`max_background_jobs`).
    pub fn increase_parallelism(&mut self, threads: i32) -> &mut Self {
        let outcome =
            pool_size(threads, 1).and_then(|threads| self.raw.increase_parallelism(threads));
        self.note_failure("increase_parallelism", outcome);
        self
    }

    /// Counts (and bounds) memtable memory in `manager`, shared with every column family
    /// and database given the same one. Replaces `db_write_buffer_size`.
    ///
    /// Scope: database (`write_buffer_manager`).
    pub fn write_buffer_manager(&mut self, manager: &WriteBufferManager) -> &mut Self {
        self.raw.set_write_buffer_manager(&manager.inner.handle);
        self.write_buffer_manager = Some(Arc::new(manager.clone()));
        self
    }

    /// Tracks SST file space (and applies its limit and deletion rate) in `manager`. The
    /// manager works on the disk: with a [`MemEnv`](crate::options::MemEnv) or a `FaultFs` the open
    /// is refused (`InvalidInput`), since it would delete files on the disk at the
    /// database's paths.
    ///
    /// Scope: database (`sst_file_manager`).
    pub fn sst_file_manager(&mut self, manager: &SstFileManager) -> &mut Self {
        self.raw.set_sst_file_manager(&manager.inner.0);
        self.sst_file_manager = true;
        self
    }

    /// Caches whole rows found by point reads and multi-get in `cache` (RocksDB's
    /// `row_cache`), looked up before the block cache: a hit costs no block search and
    /// pins the row in the cache (no copy); a key not found is never cached. Counted by the
    /// `rocksdb.row.cache.hit` and `.miss` tickers. What it brings, each tested in
    /// `tests/operations/row_cache.rs`:
    ///
    /// - **No range tombstones**: RocksDB 11.8.1's row cache returns deleted values where
    ///   one exists, so pinrocks keeps them out of a database with a row cache: range
    ///   deletes (RocksDB refuses those itself, from inside the write), the ingest of a file
    ///   holding one (checked before RocksDB reads it: a file changed during the ingest,
    ///   which RocksDB does not allow either, is not covered), an open that finds one, and
    ///   read-only and secondary opens are refused as
    ///   [`Error::RowCacheRefusesRanges`](crate::Error::RowCacheRefusesRanges). The open
    ///   flushes every column family first (so the log's tombstones reach files and are
    ///   counted).
    /// - **Only reads of files**: a key found in a memtable never reaches it, and iterators
    ///   do not use it.
    /// - **Rows by file**: an entry names the SST file it came from, so a compaction that
    ///   rewrites a file leaves its rows unreachable (they age out) and the hot set is
    ///   read from blocks again; a file moved down whole keeps its rows.
    /// - **Reads at a snapshot** taken before a file's newest entry are cached per
    ///   snapshot (the row's key carries the snapshot's sequence number), and a file that
    ///   holds no version the snapshot sees is searched again on every such read.
    /// - An LRU cache ([`Cache::lru`](crate::options::Cache::lru), one shard per 512 KiB
    ///   up to 64): a HyperClockCache takes only 16-byte keys, so it would keep almost no
    ///   row (a row's key is the user key after 3 to 30 bytes of file and sequence
    ///   numbers), silently: given one, the open fails with `Error::InvalidInput`.
    ///
    /// Scope: database (`row_cache`).
    pub fn row_cache(&mut self, cache: &Cache) -> &mut Self {
        if cache.is_hyper_clock() {
            let refusal = Error::invalid(
                "row_cache",
                "a HyperClockCache takes only 16-byte keys, and would keep almost no row: \
                 give the row cache an LRU cache",
            );
            self.note_failure("row_cache", Err(refusal));
            return self;
        }
        self.raw.set_row_cache(cache.handle());
        self.row_cache = true;
        self
    }
}

//! The options of an optimistic transaction database (`OptimisticTransactionDBOptions`): how
//! commits are checked for conflicts, and the lock buckets a parallel check takes. RocksDB
//! makes a million of them per database unless told otherwise (a `pthread_mutex_t` each:
//! 40 MB, every page written at the open); several databases may share one set.

use std::sync::Arc;

use crate::raw::error::{Error, Result};
use crate::raw::setter::setter;
use crate::raw::transaction_options::{LockBucketsHandle, OptimisticDbOptionsHandle};

/// How an optimistic transaction's commit is checked for conflicts (RocksDB's
/// `OccValidationPolicy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum OccValidation {
    /// Inside the write group, one commit at a time: no lock buckets, but commits wait
    /// for each other (`kValidateSerial`).
    Serial,
    /// Before the write group, commits side by side, each holding the buckets of its keys
    /// (`kValidateParallel`, RocksDB's default).
    Parallel,
}

/// Options of an optimistic transaction database, for
/// [`Db::open_optimistic_transaction_db_with`](crate::Db::open_optimistic_transaction_db_with).
///
/// ```
/// # fn main() -> pinrocks::Result<()> {
/// # let dir = tempfile::tempdir().unwrap();
/// use pinrocks::{Db, Options};
/// use pinrocks::options::{OccLockBuckets, OptimisticTransactionDbOptions};
/// let mut options = Options::new();
/// options.create_if_missing(true);
/// // One set of 4,096 buckets for every database of the process, not a million each.
/// let buckets = OccLockBuckets::new(4096, true)?;
/// let mut occ = OptimisticTransactionDbOptions::new();
/// occ.shared_lock_buckets(&buckets);
/// let db = Db::open_optimistic_transaction_db_with(&options, &occ, dir.path(), [])?;
/// let mut txn = db.begin()?;
/// txn.writer().put(b"k", b"v")?;
/// txn.commit()?;
/// assert_eq!(db.get(b"k")?.as_deref(), Some(&b"v"[..]));
/// # Ok(()) }
/// ```
pub struct OptimisticTransactionDbOptions {
    raw: OptimisticDbOptionsHandle,
    /// Buckets to share were set (the C API has no getter for them): the open then makes
    /// none of the database's own (`own_buckets`).
    shared: bool,
}

/// RocksDB's `OccValidationPolicy` values.
const VALIDATE_SERIAL: i32 = 0;
const VALIDATE_PARALLEL: i32 = 1;

// SAFETY: a plain C++ value (an enum, a count and a `shared_ptr` copied in by `&mut self`
// setters), read by `OptimisticTransactionDB::Open` through a const pointer.
unsafe impl Send for OptimisticTransactionDbOptions {}
// SAFETY: see `Send`.
unsafe impl Sync for OptimisticTransactionDbOptions {}

impl OptimisticTransactionDbOptions {
    /// The handle, for the open.
    pub(crate) fn handle(&self) -> &OptimisticDbOptionsHandle {
        &self.raw
    }

    /// RocksDB's defaults: parallel checks over 1,048,576 buckets of the database's own.
    pub fn new() -> Self {
        OptimisticTransactionDbOptions {
            raw: OptimisticDbOptionsHandle::new(),
            shared: false,
        }
    }

    /// The buckets the open must make for the database itself, made here (guarded, before
    /// the database opens: RocksDB would allocate them after its recovery, unguarded), as
    /// options that share them with it alone; `None` if it needs none of its own.
    pub(crate) fn own_buckets(&self) -> Result<Option<OptimisticTransactionDbOptions>> {
        let (policy, count) = (self.raw.validate_policy(), self.raw.occ_lock_buckets());
        if policy != VALIDATE_PARALLEL || self.shared {
            return Ok(None);
        }
        // RocksDB raises fewer than 16 to 16.
        let buckets = OccLockBuckets::new(count.max(16) as usize, false)?;
        let mut own = OptimisticTransactionDbOptions::new();
        own.shared_lock_buckets(&buckets);
        Ok(Some(own))
    }

    /// How commits are checked for conflicts.
    pub fn validation(&mut self, validation: OccValidation) -> &mut Self {
        let policy = match validation {
            OccValidation::Serial => VALIDATE_SERIAL,
            OccValidation::Parallel => VALIDATE_PARALLEL,
        };
        self.raw.set_validate_policy(policy);
        self
    }

    setter!(
        /// How many lock buckets the database makes for itself when checking in parallel
        /// and given none to share (RocksDB raises fewer than 16 to 16). More buckets, fewer
        /// commits waiting on another's bucket; each costs a mutex.
        lock_buckets(u32) => rocksdb_optimistictransactiondb_options_set_occ_lock_buckets
    );

    /// Checks in parallel with `buckets`, shared with every other database opened with
    /// them (instead of buckets of its own): the options and each database keep them
    /// alive.
    pub fn shared_lock_buckets(&mut self, buckets: &OccLockBuckets) -> &mut Self {
        self.raw.set_shared_lock_buckets(&buckets.0);
        self.shared = true;
        self
    }
}

impl Default for OptimisticTransactionDbOptions {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for OptimisticTransactionDbOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OptimisticTransactionDbOptions")
            .finish_non_exhaustive()
    }
}

/// Lock buckets that optimistic transaction databases check their commits with, made once
/// and shared ([`OptimisticTransactionDbOptions::shared_lock_buckets`]): a process with many
/// such databases pays for one set. Cheap to clone.
#[derive(Clone)]
pub struct OccLockBuckets(Arc<LockBucketsHandle>);

impl std::fmt::Debug for OccLockBuckets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OccLockBuckets")
            .field("approximate_memory_usage", &self.approximate_memory_usage())
            .finish()
    }
}

impl OccLockBuckets {
    /// `count` buckets, each a mutex on a cache line of its own if `cache_aligned` (less
    /// false sharing between cores, 64 bytes a bucket instead of 40). Refused for 0 (RocksDB
    /// would index an empty array at the first commit) and above `u32::MAX` (RocksDB's own
    /// count is a `u32`; near `2^57` the aligned array's size overflows inside the C++
    /// allocation, unchecked); `ErrorKind::MemoryLimit` if the memory cannot be had.
    pub fn new(count: usize, cache_aligned: bool) -> Result<OccLockBuckets> {
        if count == 0 || count > u32::MAX as usize {
            return Err(Error::invalid(
                "OccLockBuckets::new",
                format!("{count} buckets: from 1 to u32::MAX"),
            ));
        }
        Ok(OccLockBuckets(Arc::new(LockBucketsHandle::new(
            count,
            cache_aligned,
        )?)))
    }

    /// Bytes the buckets take, as RocksDB counts them (the array and its header).
    pub fn approximate_memory_usage(&self) -> usize {
        self.0.approximate_memory_usage()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each setter reaches the field RocksDB reads, as its C API's getters show.
    #[test]
    fn setters_reach_rocksdb() {
        let mut occ = OptimisticTransactionDbOptions::new();
        let read = |occ: &OptimisticTransactionDbOptions| {
            (occ.raw.validate_policy(), occ.raw.occ_lock_buckets())
        };
        assert_eq!(read(&occ), (1, 1 << 20));
        occ.validation(OccValidation::Serial).lock_buckets(77);
        assert_eq!(read(&occ), (0, 77));
        assert!(occ.own_buckets().unwrap().is_none());
        occ.validation(OccValidation::Parallel);
        assert_eq!(read(&occ), (1, 77));
        assert!(occ.own_buckets().unwrap().is_some());
        occ.shared_lock_buckets(&OccLockBuckets::new(8, false).unwrap());
        assert!(occ.own_buckets().unwrap().is_none());
    }
}

//! The options handles of transactions and transaction databases (plain C++ values, set
//! field by field), and the lock buckets optimistic transaction databases share.

use std::ptr::NonNull;

use crate::raw::error::{with_code, Result};
use crate::raw::ffi;
use crate::raw::handle_calls::{handle_arg, handle_calls, plain_handle};

plain_handle!(
    /// `TransactionDBOptions`.
    TransactionDbOptionsHandle => rocksdb_transactiondb_options_t,
    rocksdb_transactiondb_options_create
);
plain_handle!(
    /// `TransactionOptions`.
    TransactionOptionsHandle => rocksdb_transaction_options_t,
    rocksdb_transaction_options_create
);
plain_handle!(
    /// `OptimisticTransactionOptions`.
    OptimisticTransactionOptionsHandle => rocksdb_optimistictransaction_options_t,
    rocksdb_optimistictransaction_options_create
);
plain_handle!(
    /// `OptimisticTransactionDBOptions`.
    OptimisticDbOptionsHandle => rocksdb_optimistictransactiondb_options_t,
    rocksdb_optimistictransactiondb_options_create
);

handle_calls!(TransactionDbOptionsHandle {
    /// Milliseconds a transaction waits for a lock (negative: for ever).
    fn set_transaction_lock_timeout(&mut self, ms: i64) =
        rocksdb_transactiondb_options_set_transaction_lock_timeout;
    /// Milliseconds a plain write waits for a lock (negative: for ever).
    fn set_default_lock_timeout(&mut self, ms: i64) =
        rocksdb_transactiondb_options_set_default_lock_timeout;
});

handle_calls!(TransactionOptionsHandle {
    /// Milliseconds this transaction waits for a lock (negative: the database's).
    fn set_lock_timeout(&mut self, ms: i64) = rocksdb_transaction_options_set_lock_timeout;
    /// Milliseconds after which its locks may be stolen (negative: never).
    fn set_expiration(&mut self, ms: i64) = rocksdb_transaction_options_set_expiration;
});

handle_calls!(OptimisticDbOptionsHandle {
    /// `OccValidationPolicy` (0 serial, 1 parallel).
    fn validate_policy(&self) -> i32 = rocksdb_optimistictransactiondb_options_get_validate_policy;
    /// Buckets the database makes for itself.
    fn occ_lock_buckets(&self) -> u32 = rocksdb_optimistictransactiondb_options_get_occ_lock_buckets;
    /// Sets the validation policy.
    fn set_validate_policy(&mut self, policy: i32) =
        rocksdb_optimistictransactiondb_options_set_validate_policy;
    /// Shares `buckets` (their `shared_ptr` copied).
    fn set_shared_lock_buckets(&mut self, buckets: &LockBucketsHandle) =
        rocksdb_optimistictransactiondb_options_set_shared_lock_buckets;
});

/// Owns one `rocksdb_optimistictransactiondb_lock_buckets_t` (a `shared_ptr` to RocksDB's
/// `OccLockBuckets`).
pub(crate) struct LockBucketsHandle(NonNull<ffi::rocksdb_optimistictransactiondb_lock_buckets_t>);

// SAFETY: RocksDB's `OccLockBuckets` is an array of mutexes made to be locked from every
// thread of every database sharing it; the wrapper only holds a `shared_ptr`, whose count is
// atomic, released once by `Drop`.
unsafe impl Send for LockBucketsHandle {}
// SAFETY: see `Send`; `approximate_memory_usage` only reads sizes fixed at creation.
unsafe impl Sync for LockBucketsHandle {}

impl Drop for LockBucketsHandle {
    fn drop(&mut self) {
        // SAFETY: owned, destroyed once; databases and options using the buckets hold
        // their own `shared_ptr`.
        unsafe { ffi::rocksdb_optimistictransactiondb_lock_buckets_destroy(self.as_ptr()) };
    }
}

impl LockBucketsHandle {
    /// `count` buckets (the caller bounds it), allocated here, guarded.
    pub(crate) fn new(count: usize, cache_aligned: bool) -> Result<LockBucketsHandle> {
        // SAFETY: plain constructor, guarded (allocates `count` mutexes); NULL only with an
        // error.
        let raw = with_code(|code, err| unsafe {
            ffi::pinrocks_guarded_optimistictransactiondb_lock_buckets_create(
                code,
                count,
                u8::from(cache_aligned),
                err,
            )
        })?;
        let raw = NonNull::new(raw).expect("lock buckets: NULL without an error");
        Ok(LockBucketsHandle(raw))
    }

    /// The handle, live while `self` is.
    pub(crate) fn as_ptr(&self) -> *mut ffi::rocksdb_optimistictransactiondb_lock_buckets_t {
        self.0.as_ptr()
    }
}

handle_arg!(LockBucketsHandle => ffi::rocksdb_optimistictransactiondb_lock_buckets_t);

handle_calls!(LockBucketsHandle {
    /// Bytes the buckets take (reads two sizes fixed at creation).
    fn approximate_memory_usage(&self) -> usize =
        rocksdb_optimistictransactiondb_lock_buckets_approximate_memory_usage;
});

//! The prepared transactions a pessimistic transaction database recovered at open: the C
//! API wrappers RocksDB hands out around them, and what each one writes.

use std::ptr::NonNull;

use crate::raw::batch_records::{for_each_record, BatchRecord};
use crate::raw::db::RawDb;
use crate::raw::error::Result;
use crate::raw::ffi;
use crate::raw::transaction::TransactionHandle;

/// A C API wrapper around a transaction RocksDB recovered as prepared and still owns (it
/// deletes it at close): the wrapper is ours, freed on drop without the transaction in it.
pub(crate) struct RecoveredWrapper(NonNull<ffi::rocksdb_transaction_t>);

impl RecoveredWrapper {
    /// The ids of the column families the transaction writes to, each once, and whether
    /// its batch could be read to the end (the ids found before a failure are kept).
    pub(crate) fn families_written(&self) -> (Vec<u32>, Result<()>) {
        let mut ids = Vec::new();
        // SAFETY: the transaction is RocksDB's and used by no one else during the open;
        // its batch is borrowed for the iteration only.
        let batch = unsafe { ffi::pinrocks_transaction_write_batch(self.0.as_ptr()) };
        let each = |record: BatchRecord<'_>| {
            if let Some(id) = record.cf() {
                if !ids.contains(&id) {
                    ids.push(id);
                }
            }
        };
        // SAFETY: the transaction's batch, which nothing changes during the open.
        let read = unsafe { for_each_record(batch, each) };
        (ids, read)
    }

    /// Hands the wrapper to its new owner (a `Transaction`), which destroys it.
    pub(crate) fn into_transaction(self) -> TransactionHandle {
        // SAFETY: the wrapper is ours alone (one per recovered transaction, from the one
        // call at open) and leaves `self` without being freed by it.
        unsafe { TransactionHandle::own(std::mem::ManuallyDrop::new(self).0.as_ptr()) }
    }
}

impl Drop for RecoveredWrapper {
    fn drop(&mut self) {
        // SAFETY: the wrapper is ours (allocated by the C API for us) and freed once; the
        // transaction in it is RocksDB's, left for `~PessimisticTransactionDB`.
        unsafe { ffi::pinrocks_transaction_forget(self.0.as_ptr()) };
    }
}

impl RawDb {
    /// The transactions RocksDB recovered as prepared (none for any other kind than a
    /// pessimistic transaction database).
    ///
    /// # Safety
    /// Called once per database, while opening, before any other user: each call makes new
    /// wrappers around the same transactions, and two owners of one would end it twice.
    pub(crate) unsafe fn prepared_transactions(&self) -> Vec<RecoveredWrapper> {
        let RawDb::Transaction { txn_db, .. } = self else {
            return Vec::new();
        };
        let mut count = 0usize;
        // SAFETY: live transaction database (the kind the call casts to), no user of it
        // yet; RocksDB returns a malloc'd array of `count` new wrappers around transactions
        // it owns. Each wrapper is taken by a `RecoveredWrapper`, the array freed.
        unsafe {
            let list =
                ffi::rocksdb_transactiondb_get_prepared_transactions(txn_db.as_ptr(), &mut count);
            if list.is_null() {
                return Vec::new();
            }
            let wrappers = (0..count)
                .filter_map(|i| NonNull::new(*list.add(i)).map(RecoveredWrapper))
                .collect();
            ffi::rocksdb_free(list.cast());
            wrappers
        }
    }
}

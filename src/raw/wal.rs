//! The WAL's iterator (`GetUpdatesSince`) and the write batches it hands out, each moved
//! out of the iterator into an owned batch.

use crate::raw::batch_records::{for_each_record, BatchRecord};
use crate::raw::error::{with_code, with_errptr, Result};
use crate::raw::ffi;
use crate::raw::owned::Owned;

/// Owns one `rocksdb_wal_iterator_t`. Not `Send` by itself; it reads its database's log
/// through the `DBImpl`, which its owner keeps borrowed.
pub(crate) struct WalIterHandle(Owned<ffi::rocksdb_wal_iterator_t>);

/// One logged write batch, moved out of the iterator: owned, read only through `&self`.
pub(crate) struct LoggedBatchHandle(Owned<ffi::rocksdb_writebatch_t>);

// SAFETY: an owned `rocksdb::WriteBatch` moved out of the log iterator: a buffer with no
// thread affinity, only read through `&self` (`WriteBatch::Iterate`, `Count` are const).
unsafe impl Send for LoggedBatchHandle {}

impl WalIterHandle {
    /// The batches logged from `sequence` on.
    ///
    /// # Safety
    /// `db` must be open, and stay so while the iterator lives.
    pub(crate) unsafe fn updates_since(db: *mut ffi::rocksdb_t, sequence: u64) -> Result<Self> {
        // SAFETY: live database (the caller's contract); RocksDB's default read options;
        // guarded (no exception leaves the call).
        let raw = with_code(|code, err| unsafe {
            ffi::pinrocks_get_updates_since(db, sequence, code, err)
        })?;
        // SAFETY: a new object, ours alone (or NULL).
        Ok(WalIterHandle(unsafe { Owned::from_raw(raw) }.expect(
            "rocksdb_get_updates_since returned NULL without an error",
        )))
    }

    /// Moves to the next batch (guarded: it reads the batch whole).
    pub(crate) fn next(&mut self) -> Result<()> {
        // SAFETY: live iterator (owned, `&mut self`); guarded.
        with_code(|code, err| unsafe { ffi::pinrocks_wal_iter_next(self.0.as_ptr(), code, err) })
    }

    /// Whether it is at a batch; if not, why it stopped (`Ok` at the end).
    pub(crate) fn valid(&self) -> Result<bool> {
        // SAFETY: live iterator.
        if unsafe { ffi::rocksdb_wal_iter_valid(self.0.as_ptr()) } != 0 {
            return Ok(true);
        }
        // SAFETY: live iterator; the status is copied into the error.
        with_errptr(|err| unsafe { ffi::rocksdb_wal_iter_status(self.0.as_ptr(), err) })
            .map(|()| false)
    }

    /// The batch it is at, moved out (each position's once), with its first sequence
    /// number.
    pub(crate) fn take_batch(&mut self) -> Result<(u64, LoggedBatchHandle)> {
        let mut sequence = 0u64;
        // SAFETY: live iterator at a batch (owned, `&mut self`); guarded; the batch is moved
        // out to us (`rocksdb_wal_iter_get_batch`).
        let raw = with_code(|code, err| unsafe {
            ffi::pinrocks_wal_iter_get_batch(self.0.as_ptr(), &mut sequence, code, err)
        })?;
        // SAFETY: a new batch, ours alone.
        let batch =
            unsafe { Owned::from_raw(raw) }.expect("rocksdb_wal_iter_get_batch returned NULL");
        Ok((sequence, LoggedBatchHandle(batch)))
    }
}

impl LoggedBatchHandle {
    /// The `WriteBatch` inside the C API's handle, live while `self` is.
    fn batch(&self) -> *mut ffi::pinrocks_batch {
        // SAFETY: live handle, owned; reads the address of the batch it holds.
        unsafe { ffi::pinrocks_writebatch_batch(self.0.as_ptr()) }
    }

    /// How many records it holds.
    pub(crate) fn count(&self) -> usize {
        // SAFETY: live batch, owned.
        unsafe { ffi::pinrocks_writebatch_count(self.batch()) as usize }
    }

    /// Whether it holds two-phase commit markers (a prepare, commit or rollback).
    pub(crate) fn has_2pc_markers(&self) -> bool {
        // SAFETY: live batch, owned, only read.
        unsafe { ffi::pinrocks_writebatch_has_2pc_markers(self.batch()) != 0 }
    }

    /// Calls `f` with each record, in order.
    pub(crate) fn for_each(&self, f: impl FnMut(BatchRecord<'_>)) -> Result<()> {
        // SAFETY: the batch is ours and borrowed unchanged for the call.
        unsafe { for_each_record(self.batch(), f) }
    }
}

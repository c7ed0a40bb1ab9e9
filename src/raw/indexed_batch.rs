//! An indexed batch's native handle (`WriteBatchWithIndex`): made for a database, written
//! record by record, with savepoints; its own batch seen through a [`BatchView`].

use std::ptr::NonNull;

use crate::raw::batch::{put_through, BatchView};
use crate::raw::db::RawDb;
use crate::raw::error::{with_code, Result};
use crate::raw::family::FamilyHandle;
use crate::raw::ffi;

/// An indexed batch as the read sources pass it.
pub(crate) type IndexedBatchPtr = NonNull<ffi::rocksdb_writebatch_wi_t>;

/// Owns a `WriteBatchWithIndex`; destroys it on drop. Its owner above keeps the database
/// it was made for open while it lives (the index points to the families' comparators).
pub(crate) struct IndexedBatchHandle(IndexedBatchPtr);

impl IndexedBatchHandle {
    /// A new batch ordered by `db`'s default family's comparator, one entry per key.
    ///
    /// # Safety
    /// `db` must stay open while the handle lives, and so must the comparator of every
    /// family written to it.
    pub(crate) unsafe fn new(db: &RawDb) -> Result<Self> {
        // SAFETY: live database; the result is a new batch (NULL on error), ours; guarded.
        let raw =
            with_code(|code, err| unsafe { ffi::pinrocks_wbwi_create(db.as_ptr(), code, err) })?;
        Ok(IndexedBatchHandle(NonNull::new(raw).expect(
            "pinrocks_wbwi_create returned NULL without an error",
        )))
    }

    /// The batch, live while `self` is.
    pub(crate) fn as_ptr(&self) -> IndexedBatchPtr {
        self.0
    }

    /// One write (`op`: a `record::*`; an unknown one is RocksDB's InvalidArgument) to
    /// `family`, reporting the status the C API drops. RocksDB copies the bytes in.
    ///
    /// # Safety
    /// No reader or iterator of the batch may live (a write may move its buffer), and the
    /// family's comparator must outlive the batch (its index keeps a pointer to it).
    #[inline]
    pub(crate) unsafe fn write(
        &mut self,
        family: &FamilyHandle,
        op: u32,
        key: &[u8],
        value: &[u8],
    ) -> Result<()> {
        // SAFETY: live batch and handle, the rest the caller's contract; guarded.
        with_code(|code, err| unsafe {
            ffi::pinrocks_wbwi_write(
                self.0.as_ptr(),
                family.as_ptr(),
                op as i32,
                key.as_ptr().cast(),
                key.len(),
                value.as_ptr().cast(),
                value.len(),
                code,
                err,
            )
        })
    }

    /// A put to `family` (`None`: the default one), as `write` does it, through the entry
    /// with the fewest arguments.
    ///
    /// # Safety
    /// As `write`'s.
    #[inline]
    pub(crate) unsafe fn put(
        &mut self,
        family: Option<&FamilyHandle>,
        key: &[u8],
        value: &[u8],
    ) -> Result<()> {
        // SAFETY: as `write`'s.
        unsafe {
            put_through(
                self.0.as_ptr(),
                family,
                key,
                value,
                ffi::pinrocks_wbwi_put,
                ffi::pinrocks_wbwi_put_cf,
            )
        }
    }

    /// One savepoint operation (`op`: a `savepoint::*`).
    ///
    /// # Safety
    /// No iterator of the batch may live (a rollback rebuilds the index).
    pub(crate) unsafe fn savepoint(&mut self, op: u32) -> Result<()> {
        // SAFETY: live batch; no iterator into it (the caller's contract); guarded.
        with_code(|code, err| unsafe {
            ffi::pinrocks_wbwi_savepoint(self.0.as_ptr(), op as i32, code, err)
        })
    }

    /// Its own `WriteBatch`, borrowed with it.
    pub(crate) fn batch(&self) -> BatchView<'_> {
        // SAFETY: live batch; the pointer is its own `WriteBatch`, valid and unchanged
        // while `self` is borrowed shared.
        unsafe { BatchView::new(ffi::pinrocks_wbwi_batch(self.0.as_ptr())) }
    }

    /// Removes every write and savepoint, keeping the allocation.
    ///
    /// # Safety
    /// No iterator into its index may live.
    pub(crate) unsafe fn clear(&mut self) {
        // SAFETY: live batch; no iterator into it (the caller's contract).
        unsafe { ffi::rocksdb_writebatch_wi_clear(self.0.as_ptr()) };
    }
}

impl Drop for IndexedBatchHandle {
    fn drop(&mut self) {
        // SAFETY: owned, destroyed once, while its database is open (the owner's contract
        // at `new`).
        unsafe { ffi::rocksdb_writebatch_wi_destroy(self.0.as_ptr()) };
    }
}

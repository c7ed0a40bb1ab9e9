//! One owner per native object: [`Owned`] holds what a C API constructor returned and
//! destroys it once, with its own destroy function, when it drops. The types above hold an
//! `Owned` field (declared first, so it drops before what the object points into) instead
//! of writing a `Drop` each.

use std::ptr::NonNull;

use crate::raw::ffi;

/// A C API object type and the function that destroys it.
///
/// # Safety
/// `destroy` must free exactly the object it is given, which must then not be used again.
pub(crate) unsafe trait Destroy {
    /// Destroys `raw`.
    ///
    /// # Safety
    /// `raw` must be a live object of this type that nothing else frees or uses afterwards.
    unsafe fn destroy(raw: *mut Self);
}

/// Pairs each C API type with its destroy function.
macro_rules! destroyed_by {
    ($($ty:ident => $destroy:ident),* $(,)?) => {$(
        // SAFETY: the C API's own destroy function for this type.
        unsafe impl Destroy for ffi::$ty {
            unsafe fn destroy(raw: *mut Self) {
                // SAFETY: the caller's contract.
                unsafe { ffi::$destroy(raw) }
            }
        }
    )*};
}

destroyed_by! {
    rocksdb_options_t => rocksdb_options_destroy,
    rocksdb_readoptions_t => rocksdb_readoptions_destroy,
    rocksdb_writeoptions_t => rocksdb_writeoptions_destroy,
    rocksdb_transactiondb_options_t => rocksdb_transactiondb_options_destroy,
    rocksdb_transaction_options_t => rocksdb_transaction_options_destroy,
    rocksdb_optimistictransaction_options_t => rocksdb_optimistictransaction_options_destroy,
    rocksdb_optimistictransactiondb_options_t => rocksdb_optimistictransactiondb_options_destroy,
    rocksdb_ingestexternalfileoptions_t => rocksdb_ingestexternalfileoptions_destroy,
    rocksdb_perfcontext_t => rocksdb_perfcontext_destroy,
    rocksdb_cache_t => rocksdb_cache_destroy,
    rocksdb_block_based_table_options_t => rocksdb_block_based_options_destroy,
    rocksdb_write_buffer_manager_t => rocksdb_write_buffer_manager_destroy,
    rocksdb_sst_file_manager_t => rocksdb_sst_file_manager_destroy,
    pinrocks_ratelimiter_t => pinrocks_ratelimiter_destroy,
    rocksdb_writebatch_t => rocksdb_writebatch_destroy,
    rocksdb_wal_iterator_t => rocksdb_wal_iter_destroy,
    rocksdb_sstfilewriter_t => rocksdb_sstfilewriter_destroy,
    pinrocks_statistics_t => pinrocks_statistics_destroy,
    rocksdb_export_import_files_metadata_t => rocksdb_export_import_files_metadata_destroy,
}

/// An owned C API object, destroyed when this drops. Neither `Send` nor `Sync` by itself:
/// each owning type says, with its reason, whether it is.
pub(crate) struct Owned<T: Destroy>(NonNull<T>);

impl<T: Destroy> Owned<T> {
    /// Takes over `raw`; `None` if it is NULL (a constructor that failed).
    ///
    /// # Safety
    /// `raw` must be NULL or a live object that nothing else frees.
    pub(crate) unsafe fn from_raw(raw: *mut T) -> Option<Self> {
        NonNull::new(raw).map(Owned)
    }

    /// The object, live while `self` is.
    pub(crate) fn as_ptr(&self) -> *mut T {
        self.0.as_ptr()
    }
}

impl<T: Destroy> Drop for Owned<T> {
    fn drop(&mut self) {
        // SAFETY: owned by `self` (`from_raw`'s contract), destroyed once, here.
        unsafe { T::destroy(self.0.as_ptr()) }
    }
}

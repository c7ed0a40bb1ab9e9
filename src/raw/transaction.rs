//! A transaction's native handle: begun on a transaction database (or handed over from a
//! recovery), written, ended, its savepoints, snapshot and name.
//!
//! Its owner (`Transaction`, above) destroys it with [`TransactionHandle::destroy`]: the
//! destroy, like a commit or a rollback, needs to know whether a family drop began since the
//! transaction did (then its rows are freed one by one), which only the owner knows.

use std::ffi::CStr;
use std::ptr::NonNull;

use crate::raw::batch::put_through;
use crate::raw::db::RawDb;
use crate::raw::error::{with_code, with_errptr, Result};
use crate::raw::family::FamilyHandle;
use crate::raw::ffi;
use crate::raw::read_options::ReadOptionsHandle;
use crate::raw::transaction_options::{
    OptimisticTransactionOptionsHandle, TransactionOptionsHandle,
};
use crate::raw::write_ops::WriteOptionsHandle;

/// A transaction as the read sources pass it.
pub(crate) type TxnPtr = NonNull<ffi::rocksdb_transaction_t>;

/// A transaction's handle, destroyed by its owner ([`destroy`](Self::destroy)).
pub(crate) struct TransactionHandle(TxnPtr);

/// The pessimistic transaction database whose rows a call frees one by one, or NULL.
fn rows_of(free_rows_of: Option<&RawDb>) -> *mut ffi::rocksdb_transactiondb_t {
    match free_rows_of {
        Some(RawDb::Transaction { txn_db, .. }) => txn_db.as_ptr(),
        _ => std::ptr::null_mut(),
    }
}

impl TransactionHandle {
    /// Takes a transaction the C API just made or handed over.
    ///
    /// # Safety
    /// `raw` is a live C API transaction that no one else owns or frees.
    pub(crate) unsafe fn own(raw: *mut ffi::rocksdb_transaction_t) -> Self {
        TransactionHandle(NonNull::new(raw).expect("RocksDB returned a NULL transaction"))
    }

    /// Begins a pessimistic transaction; `None` unless `db` is a transaction database.
    pub(crate) fn begin_pessimistic(
        db: &RawDb,
        write: &WriteOptionsHandle,
        options: &TransactionOptionsHandle,
    ) -> Option<Self> {
        let RawDb::Transaction { txn_db, .. } = db else {
            return None;
        };
        // SAFETY: live transaction database (the kind the call casts to) and options
        // (copied); the result is a new transaction, ours.
        let raw = unsafe {
            ffi::rocksdb_transaction_begin(
                txn_db.as_ptr(),
                write.as_ptr(),
                options.as_ptr(),
                std::ptr::null_mut(),
            )
        };
        // SAFETY: the transaction was just made for us.
        Some(unsafe { Self::own(raw) })
    }

    /// Begins an optimistic transaction; `None` unless `db` is an optimistic one.
    pub(crate) fn begin_optimistic(
        db: &RawDb,
        write: &WriteOptionsHandle,
        options: &OptimisticTransactionOptionsHandle,
    ) -> Option<Self> {
        let RawDb::Optimistic { txn_db, .. } = db else {
            return None;
        };
        // SAFETY: live optimistic transaction database (the kind the call casts to) and
        // options (copied); the result is a new transaction, ours.
        let raw = unsafe {
            ffi::rocksdb_optimistictransaction_begin(
                txn_db.as_ptr(),
                write.as_ptr(),
                options.as_ptr(),
                std::ptr::null_mut(),
            )
        };
        // SAFETY: the transaction was just made for us.
        Some(unsafe { Self::own(raw) })
    }

    /// The transaction, live while `self` is.
    pub(crate) fn as_ptr(&self) -> TxnPtr {
        self.0
    }

    /// Its write batch, for a test that forges the batch's count.
    #[cfg(test)]
    pub(crate) fn batch(&self) -> crate::raw::batch::BatchPtr {
        // SAFETY: a live transaction; its batch lives as long as it does.
        unsafe { ffi::pinrocks_transaction_write_batch(self.0.as_ptr()) }.cast_mut()
    }

    /// One write (`op`: a `record::*`; an unknown one is RocksDB's InvalidArgument) to
    /// `family`, guarded (the C API's `rocksdb_transaction_put_cf` & co. let `std::bad_alloc`
    /// escape). RocksDB copies the bytes. It may wait for another transaction's row lock.
    #[inline]
    pub(crate) fn write(
        &mut self,
        family: &FamilyHandle,
        op: u32,
        key: &[u8],
        value: &[u8],
    ) -> Result<()> {
        // SAFETY: live transaction (exclusively borrowed) and handle; the bytes are
        // borrowed for the call and copied by RocksDB; guarded.
        with_code(|code, err| unsafe {
            ffi::pinrocks_transaction_write_op(
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
    #[inline]
    pub(crate) fn put(
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
                ffi::pinrocks_transaction_put,
                ffi::pinrocks_transaction_put_cf,
            )
        }
    }

    /// Prepare, commit or rollback (`op`: a `txn_end::*`), freeing each row of
    /// `free_rows_of` first when given.
    ///
    /// # Safety
    /// `free_rows_of`, if given, is the database the transaction belongs to.
    pub(crate) unsafe fn end(&mut self, op: u32, free_rows_of: Option<&RawDb>) -> Result<()> {
        // SAFETY: live transaction, exclusively borrowed; `free_rows_of` its own pessimistic
        // transaction database or NULL (the caller's contract); guarded.
        with_code(|code, err| unsafe {
            ffi::pinrocks_transaction_end(
                self.0.as_ptr(),
                op as i32,
                rows_of(free_rows_of),
                code,
                err,
            )
        })
    }

    /// One savepoint operation (`op`: a `savepoint::*`), freeing rows as [`end`](Self::end).
    ///
    /// # Safety
    /// As for [`end`](Self::end).
    pub(crate) unsafe fn savepoint(&mut self, op: u32, free_rows_of: Option<&RawDb>) -> Result<()> {
        // SAFETY: live transaction, exclusively borrowed; `free_rows_of` as for `end`;
        // guarded (setting one allocates).
        with_code(|code, err| unsafe {
            ffi::pinrocks_transaction_savepoint(
                self.0.as_ptr(),
                op as i32,
                rows_of(free_rows_of),
                code,
                err,
            )
        })
    }

    /// A new snapshot for the transaction, now: it may release the one before, so read
    /// options given the old one ([`snapshot_into`](Self::snapshot_into)) are stale.
    pub(crate) fn set_snapshot(&mut self) -> Result<()> {
        // SAFETY: live transaction, exclusively borrowed; guarded.
        with_code(|code, err| unsafe {
            ffi::pinrocks_transaction_set_snapshot(self.0.as_ptr(), code, err)
        })
    }

    /// Sets `options`' snapshot to the transaction's (none: the latest).
    ///
    /// # Safety
    /// `options` must not be used to read once the transaction's snapshot is
    /// replaced (`set_snapshot`, a rollback to a savepoint) or the transaction is destroyed.
    pub(crate) unsafe fn snapshot_into(&self, options: &mut ReadOptionsHandle) {
        // SAFETY: live transaction and options (the caller's contract).
        unsafe { ffi::pinrocks_transaction_snapshot_into(self.0.as_ptr(), options.as_ptr()) };
    }

    /// Names the transaction (RocksDB's limit, 512 bytes, is the caller's to check: the
    /// C API copies the name before it checks).
    pub(crate) fn set_name(&mut self, name: &CStr) -> Result<()> {
        // SAFETY: live transaction, exclusively borrowed; the name is copied.
        with_errptr(|err| unsafe {
            ffi::rocksdb_transaction_set_name(
                self.0.as_ptr(),
                name.as_ptr(),
                name.to_bytes().len(),
                err,
            )
        })
    }

    /// Copies its name into `buf` (at most `buf.len()` bytes): its whole length.
    pub(crate) fn copy_name(&self, buf: &mut [u8]) -> Result<usize> {
        // SAFETY: live transaction; `buf` holds `buf.len()` writable bytes, of which the
        // call writes at most that many; guarded.
        with_code(|code, err| unsafe {
            ffi::pinrocks_transaction_copy_name(
                self.0.as_ptr(),
                buf.as_mut_ptr().cast(),
                buf.len(),
                code,
                err,
            )
        })
    }

    /// Destroys the transaction (an uncommitted one rolls back; a prepared one stays
    /// prepared in the WAL), freeing rows as [`end`](Self::end).
    ///
    /// # Safety
    /// Called once, last, while its database is open; `free_rows_of` as for `end`.
    pub(crate) unsafe fn destroy(&mut self, free_rows_of: Option<&RawDb>) {
        // SAFETY: the caller's contract.
        unsafe { ffi::pinrocks_transaction_destroy(self.0.as_ptr(), rows_of(free_rows_of)) };
    }
}

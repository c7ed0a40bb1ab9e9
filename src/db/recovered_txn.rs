//! A prepared transaction recovered at open, held between RocksDB's hand-over and the
//! `Transaction` that takes it.

use std::ptr::NonNull;
use std::sync::Arc;

use crate::db::family_handle::CfHandle;
use crate::raw::ffi;

/// A transaction RocksDB recovered as prepared, which RocksDB owns (and deletes at close)
/// until pinrocks hands it out as a `Transaction`: its C API wrapper (ours to free, not the
/// transaction in it) and the families it writes to, counted as prepared in their gates.
pub(crate) struct RecoveredTxn {
    raw: NonNull<ffi::rocksdb_transaction_t>,
    pub(crate) families: Vec<Arc<CfHandle>>,
}

impl RecoveredTxn {
    /// Takes a wrapper from `rocksdb_transactiondb_get_prepared_transactions`.
    pub(crate) fn new(
        raw: NonNull<ffi::rocksdb_transaction_t>,
        families: Vec<Arc<CfHandle>>,
    ) -> Self {
        for family in &families {
            family.note_prepared(true);
        }
        RecoveredTxn { raw, families }
    }

    /// Hands the transaction out: its new owner destroys it and ends its prepared count.
    pub(crate) fn hand_out(self) -> (NonNull<ffi::rocksdb_transaction_t>, Vec<Arc<CfHandle>>) {
        let this = std::mem::ManuallyDrop::new(self);
        // SAFETY: `this` is never used or dropped again; each field is read once.
        unsafe { (this.raw, std::ptr::read(&this.families)) }
    }
}

impl Drop for RecoveredTxn {
    fn drop(&mut self) {
        // SAFETY: the wrapper is ours (allocated by the C API for us) and freed once; the
        // transaction in it is RocksDB's, left for `~PessimisticTransactionDB`.
        unsafe { ffi::pinrocks_transaction_forget(self.raw.as_ptr()) };
    }
}

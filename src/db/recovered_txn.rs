//! A prepared transaction recovered at open, held between RocksDB's hand-over and the
//! `Transaction` that takes it.

use std::sync::Arc;

use crate::db::family_handle::CfHandle;
use crate::raw::recovered::RecoveredWrapper;
use crate::raw::transaction::TransactionHandle;

/// A transaction RocksDB recovered as prepared, which RocksDB owns (and deletes at close)
/// until pinrocks hands it out as a `Transaction`: its C API wrapper (ours to free, not the
/// transaction in it) and the families it writes to, counted as prepared in their gates.
pub(crate) struct RecoveredTxn {
    raw: RecoveredWrapper,
    pub(crate) families: Vec<Arc<CfHandle>>,
}

impl RecoveredTxn {
    /// Takes a wrapper from `RawDb::prepared_transactions`.
    pub(crate) fn new(raw: RecoveredWrapper, families: Vec<Arc<CfHandle>>) -> Self {
        for family in &families {
            family.note_prepared(true);
        }
        RecoveredTxn { raw, families }
    }

    /// Hands the transaction out: its new owner destroys it and ends its prepared count.
    pub(crate) fn hand_out(self) -> (TransactionHandle, Vec<Arc<CfHandle>>) {
        (self.raw.into_transaction(), self.families)
    }
}

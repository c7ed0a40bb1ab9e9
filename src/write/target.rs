//! Where a [`Writer`](crate::Writer) writes, as a type: the database, a transaction, a
//! batch or an indexed batch. Each target takes one write (a `PINROCKS_RECORD_*` kind, a
//! column family, a key and a value) its own way; the writer is the same for all. The
//! other targets live beside their types (`TransactionTarget` in `transaction.rs`, ...).

use std::sync::Arc;

use crate::db::column_family::ColumnFamily;
use crate::db::handles::{CfHandle, DbInner};
use crate::raw::error::{Error, Result};
use crate::read::refusal::SOURCE_REFUSAL;
use crate::write::write_options::WriteOptions;

/// A place a [`Writer`](crate::Writer) writes to (sealed: the database, a transaction, a
/// batch, an indexed batch).
pub trait WriteTarget: sealed::Target {}

impl<T: sealed::Target> WriteTarget for T {}

/// A target whose writes gather in a batch, which can carry a blob for the WAL alone
/// ([`Writer::put_log_data`](crate::Writer::put_log_data)): a batch, an indexed batch, a
/// transaction. Not the database: RocksDB's `DB` has no `PutLogData`.
pub trait LogDataTarget: WriteTarget {}

pub(crate) mod sealed {
    use super::*;

    /// What each target does with a write. Not nameable outside the crate, so its
    /// methods (which name crate-private types) cannot be called or implemented there.
    #[allow(private_interfaces)]
    pub trait Target {
        /// The handle of `cf`, checked to be one this target may write to.
        ///
        /// # Panics
        /// If `cf` belongs to another database than the target's.
        fn family<'c>(&self, cf: &'c ColumnFamily<'_>) -> &'c Arc<CfHandle>;

        /// One write: `op` a `PINROCKS_RECORD_*`, to `cf` (`None`: the default family); for
        /// a range, `value` is its end.
        fn write(
            &mut self,
            operation: &'static str,
            cf: Option<&Arc<CfHandle>>,
            op: u32,
            key: &[u8],
            value: &[u8],
        ) -> Result<()>;

        /// The default family's handle, where the target knows it (not a batch, which
        /// may be written to any database).
        fn default_family(&self) -> Option<&Arc<CfHandle>>;

        /// One write with a timestamp (`ts`, little-endian) to a family with timestamps:
        /// refused unless the target takes them (the database, a batch).
        #[allow(clippy::too_many_arguments)]
        fn write_at(
            &mut self,
            operation: &'static str,
            cf: Option<&Arc<CfHandle>>,
            op: u32,
            key: &[u8],
            value: &[u8],
            ts: &[u8; 8],
        ) -> Result<()> {
            let _ = (cf, op, key, value, ts);
            Err(Error::invalid(operation, SOURCE_REFUSAL))
        }
    }
}

/// Writes to the database: what [`Db::writer`](crate::Db::writer) and
/// [`ColumnFamily::writer`](crate::ColumnFamily::writer) give, with its write options (the
/// other targets take none per write). `Copy`, and `Send + Sync` like the database.
#[derive(Clone, Copy)]
pub struct DbTarget<'a>(pub(crate) &'a DbInner, pub(crate) &'a WriteOptions);

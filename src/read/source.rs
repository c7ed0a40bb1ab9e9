//! Where a [`Reader`](crate::Reader) reads from, as a type that carries its native object:
//! the database ([`DbSource`]), a transaction ([`TransactionSource`]) or an indexed batch
//! ([`BatchSource`]). A source describes itself once ([`NativeSource`]); the reads, one per
//! tier, are the same whatever the source. Whether a reader, and the iterators it makes, may
//! cross threads follows from the type: a transaction's or batch's source holds a raw
//! pointer, so its readers are neither `Send` nor `Sync`.

use std::marker::PhantomData;

use crate::raw::indexed_batch::IndexedBatchPtr;
pub(crate) use crate::raw::read_source::Handles;
use crate::raw::read_source::NativeSource;
use crate::raw::transaction::TxnPtr;

/// A source a [`Reader`](crate::Reader) reads from (sealed: [`DbSource`],
/// [`TransactionSource`], [`BatchSource`]).
pub trait ReadSource: sealed::Source {}

impl<S: sealed::Source> ReadSource for S {}

pub(crate) mod sealed {
    use super::*;

    /// What a source is to its reads: what it can do, and its native description. Not
    /// nameable outside the crate.
    pub trait Source: Copy {
        /// Reads into a caller's buffer with a native call of its own (the C API's buffer
        /// read); without it, one copy out of the pinned value.
        const NATIVE_BUFFER_READ: bool;
        /// Takes `prefix_same_as_start` in its read options: RocksDB would apply it to the
        /// database's keys only, not to a transaction's or batch's own writes.
        const SAME_PREFIX_OPTION: bool;
        /// Reads user-defined timestamps (RocksDB has no timestamped reads of a
        /// transaction's or batch's own writes).
        const TIMESTAMPED_READS: bool;

        /// This source read at `at`, as rocksdb-c/ takes it. Its reads are live while `at`'s
        /// handles and the source's own object are: the reader borrows their owners, and a
        /// batch is unchanged while borrowed.
        #[allow(private_interfaces)]
        fn native(self, at: Handles) -> NativeSource;
    }
}

/// Reads from the database: what [`Db::reader`](crate::Db::reader) gives. `Send + Sync`,
/// like the database.
#[derive(Debug, Clone, Copy)]
pub struct DbSource;

/// Reads through a transaction (its own writes first, then the database): what
/// [`Transaction::reader`](crate::Transaction::reader) gives. It borrows the transaction,
/// which is used by one thread at a time, so such a reader is neither `Send` nor `Sync`:
///
/// ```compile_fail
/// fn sent<T: Send>(_: T) {}
/// # let dir = tempfile::tempdir().unwrap();
/// # let mut options = pinrocks::Options::new();
/// # options.create_if_missing(true);
/// let db = pinrocks::Db::open_optimistic_transaction_db(&options, dir.path(), []).unwrap();
/// let txn = db.begin().unwrap();
/// sent(txn.reader());
/// ```
#[derive(Debug, Clone, Copy)]
pub struct TransactionSource<'t> {
    txn: TxnPtr,
    /// How it reads: a `PINROCKS_READ_*` (plain, or for update, exclusive or shared).
    mode: i32,
    _txn: PhantomData<&'t ()>,
}

impl TransactionSource<'_> {
    /// Reads through `txn`, alive for the source's lifetime, with `mode` a `PINROCKS_READ_*`.
    pub(crate) fn new(txn: TxnPtr, mode: u32) -> Self {
        TransactionSource {
            txn,
            mode: mode as i32,
            _txn: PhantomData,
        }
    }
}

/// Reads through an [`IndexedBatch`](crate::IndexedBatch): its entries alone, or its entries
/// first and then the database. What [`IndexedBatch::reader`](crate::IndexedBatch::reader)
/// and [`IndexedBatch::batch_reader`](crate::IndexedBatch::batch_reader) give. Like a
/// transaction's, such a reader borrows a batch that one thread uses at a time, so it is
/// neither `Send` nor `Sync`.
#[derive(Debug, Clone, Copy)]
pub struct BatchSource<'b> {
    batch: IndexedBatchPtr,
    batch_only: bool,
    _batch: PhantomData<&'b ()>,
}

impl BatchSource<'_> {
    /// Reads through `batch`, alive and unchanged for the source's lifetime, over the
    /// database or alone.
    pub(crate) fn new(batch: IndexedBatchPtr, batch_only: bool) -> Self {
        BatchSource {
            batch,
            batch_only,
            _batch: PhantomData,
        }
    }
}

#[allow(private_interfaces)]
impl sealed::Source for DbSource {
    const NATIVE_BUFFER_READ: bool = true;
    const SAME_PREFIX_OPTION: bool = true;
    const TIMESTAMPED_READS: bool = true;

    #[inline]
    fn native(self, at: Handles) -> NativeSource {
        NativeSource::database(at.db, at.options, at.cf)
    }
}

#[allow(private_interfaces)]
impl sealed::Source for TransactionSource<'_> {
    const NATIVE_BUFFER_READ: bool = false;
    const SAME_PREFIX_OPTION: bool = false;
    const TIMESTAMPED_READS: bool = false;

    fn native(self, at: Handles) -> NativeSource {
        NativeSource::transaction(at.db, at.options, at.cf, self.txn, self.mode)
    }
}

#[allow(private_interfaces)]
impl sealed::Source for BatchSource<'_> {
    const NATIVE_BUFFER_READ: bool = false;
    const SAME_PREFIX_OPTION: bool = false;
    const TIMESTAMPED_READS: bool = false;

    fn native(self, at: Handles) -> NativeSource {
        NativeSource::batch(at.db, at.options, at.cf, self.batch, self.batch_only)
    }
}

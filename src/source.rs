//! Where a [`Reader`](crate::Reader) reads from, as a type: what decides whether a reader,
//! and the iterators it makes, may cross threads. Plain markers, no FFI.

use std::marker::PhantomData;

/// Reads from the database: what [`Db::reader`](crate::Db::reader) gives.
#[derive(Debug, Clone, Copy)]
pub struct FromDb;

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
pub struct FromTransaction<'t>(PhantomData<&'t ()>);

/// Reads through an [`IndexedBatch`](crate::IndexedBatch): its entries alone, or its entries
/// first and then the database. What [`IndexedBatch::reader`](crate::IndexedBatch::reader)
/// and [`IndexedBatch::batch_reader`](crate::IndexedBatch::batch_reader) give. Like a
/// transaction's, such a reader borrows a batch that one thread uses at a time, so it is
/// neither `Send` nor `Sync`.
#[derive(Debug, Clone, Copy)]
pub struct FromBatch<'b>(PhantomData<&'b ()>);

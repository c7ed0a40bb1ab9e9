//! A typed [`Table`] inside a [`Transaction`]: the same codecs, reads that see the
//! transaction's own writes first (decoded from the pinned bytes), writes that are locked or
//! tracked like the transaction's others.

use std::marker::PhantomData;

use crate::codec::Codec;
use crate::column_family::ColumnFamily;
use crate::error::Result;
use crate::table::{encode, get_typed, Table};
use crate::transaction::Transaction;

/// A [`Table`] seen through a [`Transaction`]: from [`Table::in_transaction`]. It borrows
/// the transaction exclusively (its writes need it), so views of two tables in one
/// transaction take turns.
///
/// ```
/// use pinrocks::codec::{BigEndian, Utf8};
/// use pinrocks::{Db, Options, Table, TransactionDbOptions};
/// # fn main() -> pinrocks::Result<()> {
/// # let dir = tempfile::tempdir().unwrap();
/// let mut options = Options::new();
/// options.create_if_missing(true);
/// let db = Db::open_transaction_db(&options, &TransactionDbOptions::new(), dir.path(), [])?;
/// let balances: Table<Utf8, BigEndian<u64>> = Table::new(db.default_cf());
/// balances.put("ada", &100)?;
/// let mut txn = db.begin()?;
/// let mut t = balances.in_transaction(&mut txn);
/// let balance = t.get_for_update("ada", true, |b: u64| b)?.unwrap(); // locked until commit
/// t.put("ada", &(balance - 30))?;
/// assert_eq!(balances.get_owned("ada")?, Some(100)); // not committed yet
/// txn.commit()?;
/// assert_eq!(balances.get_owned("ada")?, Some(70));
/// # Ok(()) }
/// ```
pub struct TransactionTable<'t, 'db, K, V> {
    txn: &'t mut Transaction<'db>,
    cf: &'t ColumnFamily<'db>,
    _codecs: PhantomData<fn() -> (K, V)>,
}

impl<'db, K: Codec, V: Codec> Table<'db, K, V> {
    /// This table read and written through `txn`.
    pub fn in_transaction<'t, 'x>(
        &'t self,
        txn: &'t mut Transaction<'x>,
    ) -> TransactionTable<'t, 'x, K, V>
    where
        'db: 'x,
    {
        TransactionTable {
            txn,
            cf: self.column_family(),
            _codecs: PhantomData,
        }
    }
}

impl<K: Codec, V: Codec> TransactionTable<'_, '_, K, V> {
    /// Calls `f` with the value at `key` (the transaction's own write first), decoded from
    /// the pinned bytes. `None` if absent.
    pub fn get<R>(
        &self,
        key: &K::Item,
        f: impl for<'v> FnOnce(V::Decoded<'v>) -> R,
    ) -> Result<Option<R>> {
        get_typed::<K, V, _, R>(self.txn.reader().cf(self.cf), key, f)
    }

    /// [`get`](Self::get), locking (or, optimistic, tracking) the key as the transaction's
    /// [`reader_for_update`](Transaction::reader_for_update) does.
    pub fn get_for_update<R>(
        &self,
        key: &K::Item,
        exclusive: bool,
        f: impl for<'v> FnOnce(V::Decoded<'v>) -> R,
    ) -> Result<Option<R>> {
        get_typed::<K, V, _, R>(self.txn.reader_for_update(exclusive).cf(self.cf), key, f)
    }

    /// The value at `key`, owned.
    pub fn get_owned(&self, key: &K::Item) -> Result<Option<V::Owned>> {
        self.get(key, V::to_owned)
    }

    /// Stores `value` at `key` in the transaction.
    pub fn put(&mut self, key: &K::Item, value: &V::Item) -> Result<()> {
        let (txn, cf) = (&mut *self.txn, self.cf);
        encode::<K, _>(key, |k| encode::<V, _>(value, |v| txn.put(Some(cf), k, v)))??
    }

    /// Adds `operand`, encoded by the value codec, to `key`'s merge operands.
    pub fn merge(&mut self, key: &K::Item, operand: &V::Item) -> Result<()> {
        let (txn, cf) = (&mut *self.txn, self.cf);
        encode::<K, _>(key, |k| {
            encode::<V, _>(operand, |v| txn.merge(Some(cf), k, v))
        })??
    }

    /// Removes `key` in the transaction.
    pub fn delete(&mut self, key: &K::Item) -> Result<()> {
        let (txn, cf) = (&mut *self.txn, self.cf);
        encode::<K, _>(key, |k| txn.delete(Some(cf), k))?
    }
}

//! A typed [`Table`] inside an [`IndexedBatch`]: the same codecs, reads that see the
//! batch's entries first (decoded from the pinned bytes), writes collected in the batch.

use std::marker::PhantomData;

use crate::codec::Codec;
use crate::column_family::ColumnFamily;
use crate::error::Result;
use crate::indexed_batch::IndexedBatch;
use crate::table::{encode, get_typed, Table};

/// A [`Table`] seen through an [`IndexedBatch`]: from [`Table::in_batch`].
///
/// ```
/// use pinrocks::codec::{BigEndian, Utf8};
/// use pinrocks::{Db, Options, Table};
/// # fn main() -> pinrocks::Result<()> {
/// # let dir = tempfile::tempdir().unwrap();
/// let mut options = Options::new();
/// options.create_if_missing(true);
/// let db = Db::open(&options, dir.path())?;
/// let stock: Table<Utf8, BigEndian<u32>> = Table::new(db.default_cf());
/// stock.put("apples", &7)?;
/// let mut batch = db.indexed_batch()?;
/// let mut t = stock.in_batch(&mut batch);
/// let apples = t.get("apples", |n: u32| n)?.unwrap();
/// t.put("apples", &(apples - 1))?;
/// assert_eq!(t.get_owned("apples")?, Some(6)); // the batch's write
/// assert_eq!(stock.get_owned("apples")?, Some(7)); // not written yet
/// batch.write()?;
/// assert_eq!(stock.get_owned("apples")?, Some(6));
/// # Ok(()) }
/// ```
pub struct BatchTable<'t, 'db, K, V> {
    batch: &'t mut IndexedBatch<'db>,
    cf: &'t ColumnFamily<'db>,
    _codecs: PhantomData<fn() -> (K, V)>,
}

impl<'db, K: Codec, V: Codec> Table<'db, K, V> {
    /// This table read and written through `batch`.
    pub fn in_batch<'t, 'b>(&'t self, batch: &'t mut IndexedBatch<'b>) -> BatchTable<'t, 'b, K, V>
    where
        'db: 'b,
    {
        BatchTable {
            batch,
            cf: self.column_family(),
            _codecs: PhantomData,
        }
    }
}

impl<K: Codec, V: Codec> BatchTable<'_, '_, K, V> {
    /// Calls `f` with the value at `key` (the batch's entry first, then the database's),
    /// decoded from the pinned bytes. `None` if absent.
    pub fn get<R>(
        &self,
        key: &K::Item,
        f: impl for<'v> FnOnce(V::Decoded<'v>) -> R,
    ) -> Result<Option<R>> {
        get_typed::<K, V, _, R>(self.batch.reader().cf(self.cf), key, f)
    }

    /// The value at `key`, owned.
    pub fn get_owned(&self, key: &K::Item) -> Result<Option<V::Owned>> {
        self.get(key, V::to_owned)
    }

    /// Stores `value` at `key` in the batch.
    pub fn put(&mut self, key: &K::Item, value: &V::Item) -> Result<()> {
        let (batch, cf) = (&mut *self.batch, self.cf);
        encode::<K, _>(key, |k| {
            encode::<V, _>(value, |v| batch.put(Some(cf), k, v).map(drop))
        })??
    }

    /// Adds `operand`, encoded by the value codec, to `key`'s merge operands in the batch.
    pub fn merge(&mut self, key: &K::Item, operand: &V::Item) -> Result<()> {
        let (batch, cf) = (&mut *self.batch, self.cf);
        encode::<K, _>(key, |k| {
            encode::<V, _>(operand, |v| batch.merge(Some(cf), k, v).map(drop))
        })??
    }

    /// Removes `key` in the batch.
    pub fn delete(&mut self, key: &K::Item) -> Result<()> {
        let (batch, cf) = (&mut *self.batch, self.cf);
        encode::<K, _>(key, |k| batch.delete(Some(cf), k).map(drop))?
    }
}

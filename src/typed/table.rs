//! `Table<K, V>`: a column family whose keys and values have codecs, read and written
//! through any source and target with the same typed calls.

use std::marker::PhantomData;
use std::ops::RangeBounds;

use crate::codec::{Codec, Stored};
use crate::db::column_family::ColumnFamily;
use crate::raw::error::Result;
use crate::read::reader::Reader;
use crate::read::source::ReadSource;
use crate::typed::iter::TypedIter;
use crate::typed::pinned::TypedPin;
use crate::typed::reader::TypedReader;
use crate::typed::writer::TypedWriter;
use crate::write::target::WriteTarget;
use crate::write::writer::Writer;

/// A typed view of one column family: keys stored with codec `K`, values with codec `V`
/// (see [`codec`](crate::codec)). Reads decode straight from the pinned bytes.
///
/// ```
/// use std::time::{Duration, SystemTime, UNIX_EPOCH};
/// use pinrocks::codec::{BigEndian, EpochMillis, Utf8};
/// use pinrocks::Table;
/// # fn main() -> pinrocks::Result<()> {
/// # let dir = tempfile::tempdir().unwrap();
/// # let mut opts = pinrocks::Options::new();
/// # opts.create_if_missing(true);
/// # let db = pinrocks::Db::open(&opts, dir.path())?;
/// let names: Table<BigEndian<u64>, Utf8> = Table::new(db.create_cf("names", &pinrocks::Options::new())?);
/// names.put(&42, "Ada")?;
/// let len = names.get(&42, |name: &str| name.len())?; // `name` borrows the pinned bytes
/// assert_eq!(len, Some(3));
/// assert_eq!(names.get_owned(&42)?.as_deref(), Some("Ada"));
///
/// let seen: Table<Utf8, EpochMillis> = Table::new(db.default_cf());
/// let at = UNIX_EPOCH + Duration::from_millis(1_700_000_000_123);
/// seen.put("ada", &at)?;
/// assert_eq!(seen.get("ada", |t: SystemTime| t)?, Some(at));
///
/// // The same table through a transaction: its own writes first, then the database.
/// # let txn_dir = tempfile::tempdir().unwrap();
/// let txn_db = pinrocks::Db::open_optimistic_transaction_db(&opts, txn_dir.path(), [])?;
/// let stock: Table<Utf8, BigEndian<u32>> = Table::new(txn_db.default_cf());
/// stock.put("apples", &7)?;
/// let mut txn = txn_db.begin()?;
/// let apples = stock.read(txn.reader()).get("apples", |n: u32| n)?.unwrap();
/// stock.write(txn.writer()).put("apples", &(apples - 1))?;
/// assert_eq!(stock.read(txn.reader()).get_owned("apples")?, Some(6)); // its own write
/// assert_eq!(stock.get_owned("apples")?, Some(7)); // not committed yet
/// txn.commit()?;
/// assert_eq!(stock.get_owned("apples")?, Some(6));
/// # Ok(()) }
/// ```
#[doc(alias = "ColumnFamily")]
pub struct Table<'db, K, V> {
    cf: ColumnFamily<'db>,
    _codecs: PhantomData<fn() -> (K, V)>,
}

impl<'db, K: Codec, V: Codec> Table<'db, K, V> {
    /// A typed view of `cf`. Nothing is checked: the codecs say how to read what is there.
    pub fn new(cf: ColumnFamily<'db>) -> Self {
        Table {
            cf,
            _codecs: PhantomData,
        }
    }

    /// The column family behind the table.
    pub fn column_family(&self) -> &ColumnFamily<'db> {
        &self.cf
    }

    /// Typed reads of the table in the database.
    pub fn reader(&self) -> TypedReader<'_, K, V> {
        self.cf.reader().typed()
    }

    /// Typed writes to the table in the database.
    pub fn writer(&self) -> TypedWriter<'_, K, V> {
        self.cf.writer().typed()
    }

    /// Typed reads of the table through `reader`'s source (a transaction, an indexed
    /// batch, the database) with its options: `reader` switched to the table's family.
    ///
    /// # Panics
    /// If `reader` reads another database than the table's.
    pub fn read<'a, S: ReadSource>(&'a self, reader: Reader<'a, S>) -> TypedReader<'a, K, V, S> {
        reader.cf(&self.cf).typed()
    }

    /// Typed writes to the table through `writer`'s target (a transaction, a batch, an
    /// indexed batch, the database): `writer` switched to the table's family.
    ///
    /// # Panics
    /// If `writer` writes to another database than the table's.
    pub fn write<'a, T: WriteTarget>(&'a self, writer: Writer<'a, T>) -> TypedWriter<'a, K, V, T> {
        writer.cf(&self.cf).typed()
    }

    /// Stores `value` at `key` in the database. See [`TypedWriter::put`].
    pub fn put(&self, key: &K::Item<'_>, value: &V::Item<'_>) -> Result<()> {
        self.writer().put(key, value)
    }

    /// Adds a merge operand to `key` in the database. See [`TypedWriter::merge`].
    pub fn merge(&self, key: &K::Item<'_>, operand: &V::Item<'_>) -> Result<()> {
        self.writer().merge(key, operand)
    }

    /// Removes `key` from the database.
    pub fn delete(&self, key: &K::Item<'_>) -> Result<()> {
        self.writer().delete(key)
    }

    /// Calls `f` with the value at `key` in the database, decoded from the pinned bytes.
    /// See [`TypedReader::get`].
    pub fn get<R>(
        &self,
        key: &K::Item<'_>,
        f: impl for<'v> FnOnce(V::Decoded<'v>) -> R,
    ) -> Result<Option<R>> {
        self.reader().get(key, f)
    }

    /// The value at `key` in the database, decoded and turned into its owned form.
    pub fn get_owned(&self, key: &K::Item<'_>) -> Result<Option<V::Owned>> {
        self.reader().get_owned(key)
    }

    /// The value at `key` in the database, kept pinned with its codec: no copy (rkyv's
    /// aligned format aside), validated once, read in place on each [`get`](Stored::get),
    /// alive past the table, the database's handle and the thread. See
    /// [`TypedReader::get_stored`].
    ///
    /// ```
    /// use pinrocks::codec::{BigEndian, Stored, Utf8};
    /// # fn main() -> pinrocks::Result<()> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let mut opts = pinrocks::Options::new();
    /// # opts.create_if_missing(true);
    /// let db = pinrocks::Db::open(&opts, dir.path())?;
    /// let names: pinrocks::Table<BigEndian<u32>, Utf8> = pinrocks::Table::new(db.default_cf());
    /// names.put(&7, "Grace")?;
    /// let name: Stored<Utf8> = names.get_stored(&7)?.expect("present");
    /// drop(names);
    /// drop(db); // the stored value keeps the database open
    /// let len = std::thread::spawn(move || name.get().len()).join().unwrap();
    /// assert_eq!(len, 5);
    /// # Ok(()) }
    /// ```
    pub fn get_stored(&self, key: &K::Item<'_>) -> Result<Option<Stored<V>>> {
        self.reader().get_stored(key)
    }

    /// The value at `key` in the database, pinned until the guard drops, checked to
    /// decode once. See [`TypedReader::pin`].
    pub fn pin(&self, key: &K::Item<'_>) -> Result<Option<TypedPin<'_, V>>> {
        self.reader().pin(key)
    }

    /// The values at `keys` in the database, in one `DB::MultiGet`, each decoded in place
    /// for `f(index, value)`. See [`TypedReader::multi_get`].
    pub fn multi_get<'k>(
        &self,
        keys: impl IntoIterator<Item = &'k K::Item<'k>>,
        f: impl for<'v> FnMut(usize, Option<V::Decoded<'v>>),
    ) -> Result<()>
    where
        K::Item<'k>: 'k,
    {
        self.reader().multi_get(keys, f)
    }

    /// A typed iterator over the table in the database, not yet positioned.
    pub fn iter(&self) -> TypedIter<'_, K, V> {
        self.reader().iter()
    }

    /// A typed iterator over the keys in `range`. See [`TypedReader::range`].
    pub fn range<'k>(&self, range: impl RangeBounds<K::Item<'k>>) -> Result<TypedIter<'_, K, V>> {
        self.reader().range(range)
    }

    /// A std [`Iterator`] over `f(key, value)` for the keys in `range`. See
    /// [`TypedReader::scan`].
    ///
    /// ```
    /// use pinrocks::codec::{BigEndian, Utf8};
    /// # fn main() -> pinrocks::Result<()> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let mut opts = pinrocks::Options::new();
    /// # opts.create_if_missing(true);
    /// # let db = pinrocks::Db::open(&opts, dir.path())?;
    /// let names: pinrocks::Table<BigEndian<u32>, Utf8> = pinrocks::Table::new(db.default_cf());
    /// for (id, name) in [(1, "Ada"), (2, "Alan"), (3, "Grace"), (10, "Edsger")] {
    ///     names.put(&id, name)?;
    /// }
    /// let short: Vec<u32> = names
    ///     .scan(&2..&10, |id, name: &str| (id, name.len()))?
    ///     .filter_map(|entry| match entry {
    ///         Ok((id, len)) => (len <= 4).then_some(Ok(id)),
    ///         Err(e) => Some(Err(e)),
    ///     })
    ///     .collect::<pinrocks::Result<_>>()?;
    /// assert_eq!(short, [2]);
    /// let last = names.scan_rev(.., |id, _| id)?.next().transpose()?;
    /// assert_eq!(last, Some(10));
    /// # Ok(()) }
    /// ```
    pub fn scan<'k, T, R, F>(
        &self,
        range: R,
        f: F,
    ) -> Result<impl Iterator<Item = Result<T>> + use<'_, 'db, K, V, T, R, F>>
    where
        R: RangeBounds<K::Item<'k>>,
        F: for<'key, 'value> FnMut(K::Decoded<'key>, V::Decoded<'value>) -> T,
    {
        self.reader().scan(range, f)
    }

    /// Like [`scan`](Self::scan), from the last key in `range` to the first.
    pub fn scan_rev<'k, T, R, F>(
        &self,
        range: R,
        f: F,
    ) -> Result<impl Iterator<Item = Result<T>> + use<'_, 'db, K, V, T, R, F>>
    where
        R: RangeBounds<K::Item<'k>>,
        F: for<'key, 'value> FnMut(K::Decoded<'key>, V::Decoded<'value>) -> T,
    {
        self.reader().scan_rev(range, f)
    }
}

//! `Table<K, V>`: a column family whose keys and values have codecs.

use std::marker::PhantomData;
use std::ops::{Bound, RangeBounds};

use crate::codec::{Codec, DecodeError};
use crate::column_family::ColumnFamily;
use crate::error::{Error, Result};
use crate::iter::DbIterator;
use crate::options::ReadOptions;
use crate::read::Reader;

pub(crate) fn encode<C: Codec, R>(item: &C::Item, f: impl FnOnce(&[u8]) -> R) -> Result<R> {
    C::with_encoded(item, f).map_err(|source| Error::Encode {
        codec: C::NAME,
        source,
    })
}

pub(crate) fn decode<'a, C: Codec>(key: &[u8], bytes: &'a [u8]) -> Result<C::Decoded<'a>> {
    C::decode(bytes).map_err(|source: DecodeError| Error::Decode {
        codec: C::NAME,
        key: key.to_vec(),
        source,
    })
}

/// The typed point read every typed view shares: `key` encoded with `K`, read pinned
/// through `reader`, the value decoded with `V` in place and handed to `f`.
pub(crate) fn get_typed<K: Codec, V: Codec, S: Copy, R>(
    reader: Reader<'_, S>,
    key: &K::Item,
    f: impl for<'v> FnOnce(V::Decoded<'v>) -> R,
) -> Result<Option<R>> {
    encode::<K, _>(key, |k| {
        reader
            .get_pinned(k, |bytes| decode::<V>(k, bytes).map(f))?
            .transpose()
    })?
}

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
/// # Ok(()) }
/// ```
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

    /// Stores `value` at `key`, encoding both without an intermediate `Vec`.
    pub fn put(&self, key: &K::Item, value: &V::Item) -> Result<()> {
        encode::<K, _>(key, |k| {
            encode::<V, _>(value, |v| self.cf.writer().put(k, v))
        })??
    }

    /// Adds `operand`, encoded by the value codec, to `key`'s merge operands (the column
    /// family needs a [`MergeOperator`](crate::MergeOperator), such as
    /// [`MergeOperator::fold`](crate::MergeOperator::fold) over the same codec).
    pub fn merge(&self, key: &K::Item, operand: &V::Item) -> Result<()> {
        encode::<K, _>(key, |k| {
            encode::<V, _>(operand, |v| self.cf.writer().merge(k, v))
        })??
    }

    /// Removes `key`.
    pub fn delete(&self, key: &K::Item) -> Result<()> {
        encode::<K, _>(key, |k| self.cf.writer().delete(k))?
    }

    /// Calls `f` with the value at `key`, decoded from the pinned bytes (borrowing them
    /// where the codec does). `None` if absent; a decode error names the key and codec.
    ///
    /// A borrowed value cannot leave the closure:
    ///
    /// ```compile_fail
    /// # use pinrocks::{codec::{Raw, Utf8}, Table};
    /// # fn main() -> pinrocks::Result<()> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let db = pinrocks::Db::open(&pinrocks::Options::new(), dir.path())?;
    /// let table: Table<Raw, Utf8> = Table::new(db.default_cf());
    /// let escaped: Option<&str> = table.get(b"k", |s: &str| s)?;
    /// # Ok(()) }
    /// ```
    pub fn get<R>(
        &self,
        key: &K::Item,
        f: impl for<'v> FnOnce(V::Decoded<'v>) -> R,
    ) -> Result<Option<R>> {
        self.get_with(None, key, f)
    }

    /// [`get`](Self::get) with read options (a snapshot, `fill_cache`, ...).
    pub fn get_with<R>(
        &self,
        options: Option<&ReadOptions>,
        key: &K::Item,
        f: impl for<'v> FnOnce(V::Decoded<'v>) -> R,
    ) -> Result<Option<R>> {
        let reader = self.cf.reader();
        get_typed::<K, V, _, R>(options.map_or(reader, |o| reader.options(o)), key, f)
    }

    /// The value at `key`, decoded and turned into its owned form.
    pub fn get_owned(&self, key: &K::Item) -> Result<Option<V::Owned>> {
        self.get(key, V::to_owned)
    }

    /// A typed iterator over the table, not yet positioned.
    pub fn iter(&self) -> TypedIter<'_, K, V> {
        TypedIter {
            inner: self.cf.reader().iter(),
            _codecs: PhantomData,
        }
    }

    /// A typed iterator over the keys in `range` (`&1..&10`, `"a"..="m"`, `..`), in the
    /// order of their encodings, positioned at the first. Use order-preserving codecs
    /// (`BigEndian`, `Utf8`, `F64`, ...) for the range to mean what it says.
    pub fn range(&self, range: impl RangeBounds<K::Item>) -> Result<TypedIter<'_, K, V>> {
        let bound = |b: Bound<&K::Item>| -> Result<Bound<Box<[u8]>>> {
            Ok(match b {
                Bound::Included(k) => Bound::Included(encode::<K, _>(k, |b| Box::<[u8]>::from(b))?),
                Bound::Excluded(k) => Bound::Excluded(encode::<K, _>(k, |b| Box::<[u8]>::from(b))?),
                Bound::Unbounded => Bound::Unbounded,
            })
        };
        let bounds = (bound(range.start_bound())?, bound(range.end_bound())?);
        Ok(TypedIter {
            inner: self.cf.reader().range(bounds),
            _codecs: PhantomData,
        })
    }

    /// A std [`Iterator`] over `f(key, value)` for the keys in `range`, decoded from the
    /// bytes in place. A decode error, or an error that stopped the scan, is the last item.
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
    pub fn scan<T, R, F>(
        &self,
        range: R,
        f: F,
    ) -> Result<impl Iterator<Item = Result<T>> + use<'_, 'db, K, V, T, R, F>>
    where
        R: RangeBounds<K::Item>,
        F: for<'e> FnMut(K::Decoded<'e>, V::Decoded<'e>) -> T,
    {
        Ok(self.range(range)?.forward(f))
    }

    /// Like [`scan`](Self::scan), from the last key in `range` to the first.
    pub fn scan_rev<T, R, F>(
        &self,
        range: R,
        f: F,
    ) -> Result<impl Iterator<Item = Result<T>> + use<'_, 'db, K, V, T, R, F>>
    where
        R: RangeBounds<K::Item>,
        F: for<'e> FnMut(K::Decoded<'e>, V::Decoded<'e>) -> T,
    {
        let mut it = self.range(range)?;
        it.seek_to_last();
        Ok(it.backward(f))
    }
}

/// A lending iterator over a [`Table`], decoding each entry from the pinned bytes. Entries
/// borrow the iterator and are valid until it moves, as with [`DbIterator`]. `Send`, not
/// `Sync`, like it:
///
/// ```compile_fail
/// # use pinrocks::{codec::Raw, Table};
/// fn shared<T: Sync>(_: &T) {}
/// # let dir = tempfile::tempdir().unwrap();
/// # let db = pinrocks::Db::open(&pinrocks::Options::new(), dir.path()).unwrap();
/// let table: Table<Raw, Raw> = Table::new(db.default_cf());
/// shared(&table.iter());
/// ```
pub struct TypedIter<'a, K, V> {
    inner: DbIterator<'a>,
    _codecs: PhantomData<fn() -> (K, V)>,
}

impl<'a, K: Codec, V: Codec> TypedIter<'a, K, V> {
    /// Moves to the first entry.
    pub fn seek_to_first(&mut self) {
        self.inner.seek_to_first();
    }

    /// Moves to the last entry.
    pub fn seek_to_last(&mut self) {
        self.inner.seek_to_last();
    }

    /// Moves to the first entry whose encoded key is `>=` the encoding of `key`.
    pub fn seek(&mut self, key: &K::Item) -> Result<()> {
        encode::<K, _>(key, |k| self.inner.seek(k))
    }

    /// Moves to the last entry whose encoded key is `<=` the encoding of `key`.
    pub fn seek_for_prev(&mut self, key: &K::Item) -> Result<()> {
        encode::<K, _>(key, |k| self.inner.seek_for_prev(k))
    }

    /// Moves to the next entry.
    #[allow(clippy::should_implement_trait)] // a lending move, not `Iterator::next`
    pub fn next(&mut self) {
        self.inner.next();
    }

    /// Moves to the previous entry.
    pub fn prev(&mut self) {
        self.inner.prev();
    }

    /// The current entry, decoded; `None` past either end.
    pub fn entry(&self) -> Option<Result<(K::Decoded<'_>, V::Decoded<'_>)>> {
        let (key, value) = self.inner.entry()?;
        Some(decode::<K>(key, key).and_then(|k| Ok((k, decode::<V>(key, value)?))))
    }

    /// The error that stopped the iterator, if any.
    pub fn status(&self) -> Result<()> {
        self.inner.status()
    }

    /// A std [`Iterator`] over `f(key, value)` from the current entry forward, decoded in
    /// place; a decode error or the error that stopped the scan is the last item.
    pub fn forward<T, F>(self, f: F) -> impl Iterator<Item = Result<T>> + use<'a, K, V, T, F>
    where
        F: for<'e> FnMut(K::Decoded<'e>, V::Decoded<'e>) -> T,
    {
        fuse_on_error(self.inner.forward(decoding::<K, V, T>(f)))
    }

    /// Like [`forward`](Self::forward), from the current entry backward.
    pub fn backward<T, F>(self, f: F) -> impl Iterator<Item = Result<T>> + use<'a, K, V, T, F>
    where
        F: for<'e> FnMut(K::Decoded<'e>, V::Decoded<'e>) -> T,
    {
        fuse_on_error(self.inner.backward(decoding::<K, V, T>(f)))
    }
}

/// `f` over raw bytes: decodes the key and the value, then calls the typed closure.
fn decoding<K: Codec, V: Codec, T>(
    mut f: impl for<'e> FnMut(K::Decoded<'e>, V::Decoded<'e>) -> T,
) -> impl FnMut(&[u8], &[u8]) -> Result<T> {
    move |key, value| Ok(f(decode::<K>(key, key)?, decode::<V>(key, value)?))
}

/// Flattens a scan's items and ends it after the first error of either kind.
fn fuse_on_error<T>(
    items: impl Iterator<Item = Result<Result<T>>>,
) -> impl Iterator<Item = Result<T>> {
    items.scan(false, |failed, item| {
        if *failed {
            return None;
        }
        let item = item.and_then(|decoded| decoded);
        *failed = item.is_err();
        Some(item)
    })
}

//! Typed reads over any source: the database, a transaction or an indexed batch.

use std::marker::PhantomData;
use std::ops::{Bound, RangeBounds};

use crate::codec::{Codec, Stored};
use crate::raw::error::Result;
use crate::read::read_options::ReadOptions;
use crate::read::reader::Reader;
use crate::read::source::DbSource;
use crate::read::source::ReadSource;
use crate::typed::encoding::{decode_error, encode, get_typed, with_decoded};
use crate::typed::iter::TypedIter;
use crate::typed::pinned::TypedPin;

/// A [`Reader`] whose keys are encoded with codec `K` and whose values are decoded with
/// codec `V`, straight from the pinned bytes: from [`Reader::typed`], or from a
/// [`Table`](crate::Table) ([`Table::reader`](crate::Table::reader) on the database,
/// [`Table::read`](crate::Table::read) through a transaction or an indexed batch). The
/// same reads whatever the source.
///
/// ```
/// use pinrocks::codec::{BigEndian, Utf8};
/// # fn main() -> pinrocks::Result<()> {
/// # let dir = tempfile::tempdir().unwrap();
/// # let mut options = pinrocks::Options::new();
/// # options.create_if_missing(true);
/// let db = pinrocks::Db::open_optimistic_transaction_db(&options, dir.path(), [])?;
/// db.writer().typed::<BigEndian<u32>, Utf8>().put(&1, "one")?;
/// let mut txn = db.begin()?;
/// txn.writer().typed::<BigEndian<u32>, Utf8>().put(&2, "two")?;
/// let names: Vec<(u32, String)> = txn
///     .reader()
///     .typed::<BigEndian<u32>, Utf8>()
///     .scan(.., |id, name: &str| (id, name.to_owned()))?
///     .collect::<pinrocks::Result<_>>()?;
/// assert_eq!(names, [(1, "one".to_owned()), (2, "two".to_owned())]); // its own write too
/// # Ok(()) }
/// ```
pub struct TypedReader<'a, K, V, S = DbSource> {
    reader: Reader<'a, S>,
    _codecs: PhantomData<fn() -> (K, V)>,
}

impl<K, V, S: ReadSource> Clone for TypedReader<'_, K, V, S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<K, V, S: ReadSource> Copy for TypedReader<'_, K, V, S> {}

impl<'a, S: ReadSource> Reader<'a, S> {
    /// This reader's reads with typed keys (codec `K`) and values (codec `V`).
    pub fn typed<K: Codec, V: Codec>(self) -> TypedReader<'a, K, V, S> {
        TypedReader {
            reader: self,
            _codecs: PhantomData,
        }
    }
}

impl<'a, K: Codec, V: Codec, S: ReadSource> TypedReader<'a, K, V, S> {
    /// Reads with `options` instead (a snapshot, `fill_cache`, ...). See [`Reader::options`].
    pub fn options(self, options: &'a ReadOptions) -> Self {
        self.reader.options(options).typed()
    }

    /// Calls `f` with the value at `key`, decoded from the pinned bytes (borrowing them
    /// where the codec does). `None` if absent; a decode error names the key and codec.
    ///
    /// A borrowed value cannot leave the closure:
    ///
    /// ```compile_fail
    /// # use pinrocks::codec::{Raw, Utf8};
    /// # fn main() -> pinrocks::Result<()> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let db = pinrocks::Db::open(&pinrocks::Options::new(), dir.path())?;
    /// let escaped: Option<&str> = db.reader().typed::<Raw, Utf8>().get(b"k", |s: &str| s)?;
    /// # Ok(()) }
    /// ```
    pub fn get<R>(
        &self,
        key: &K::Item<'_>,
        f: impl for<'v> FnOnce(V::Decoded<'v>) -> R,
    ) -> Result<Option<R>> {
        get_typed::<K, V, S, R>(self.reader, key, f)
    }

    /// The value at `key`, decoded and turned into its owned form
    /// ([`Codec::decode_owned`]).
    pub fn get_owned(&self, key: &K::Item<'_>) -> Result<Option<V::Owned>> {
        encode::<K, _>(key, |k| {
            let owned = |bytes: &[u8]| V::decode_owned(bytes).map_err(|e| decode_error::<V>(k, e));
            self.reader.get_pinned(k, owned)?.transpose()
        })?
    }

    /// **Typed pinned guard.** The value at `key`, pinned where RocksDB holds it until the
    /// guard drops, checked to decode once and decoded in place on each
    /// [`TypedPin::get`]: the [`pin`](Reader::pin) tier, typed (one handle allocated per
    /// read). `None` if absent; a decode error names the key and codec (and, for an rkyv
    /// archive its pin leaves misaligned under rkyv's aligned format, the misalignment).
    pub fn pin(&self, key: &K::Item<'_>) -> Result<Option<TypedPin<'a, V>>> {
        encode::<K, _>(key, |k| {
            let typed = |pinned| TypedPin::new(pinned).map_err(|e| decode_error::<V>(k, e));
            self.reader.pin(k)?.map(typed).transpose()
        })?
    }

    /// The value at `key` as a [`Stored`] value: the pinned bytes themselves (the
    /// [`get_bytes`](Reader::get_bytes) tier, no copy), checked to decode, read in place on
    /// each [`Stored::get`]. It keeps its pin, and what the pin needs, alive, and it
    /// crosses threads: a typed value that outlives the read without a copy (but for rkyv's
    /// aligned format, where a misaligned value is copied once to an aligned buffer, which
    /// the `Stored` holds instead of the pin).
    pub fn get_stored(&self, key: &K::Item<'_>) -> Result<Option<Stored<V>>> {
        encode::<K, _>(key, |k| {
            let stored = |bytes| Stored::new(bytes).map_err(|e| decode_error::<V>(k, e));
            self.reader.get_bytes(k)?.map(stored).transpose()
        })?
    }

    /// **Typed batched reads.** One `DB::MultiGet` for `keys` (encoded into one buffer
    /// first), then `f(index, value)` for each key in order, the value decoded in place
    /// (where the codec lends a buffer, as rkyv does, on it): `None` for an absent key. A
    /// value that does not decode ends the batch: `f` sees no key after it, and its error
    /// is returned.
    ///
    /// ```
    /// use pinrocks::codec::{BigEndian, Utf8};
    /// # fn main() -> pinrocks::Result<()> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let mut opts = pinrocks::Options::new();
    /// # opts.create_if_missing(true);
    /// # let db = pinrocks::Db::open(&opts, dir.path())?;
    /// let names: pinrocks::Table<BigEndian<u32>, Utf8> = pinrocks::Table::new(db.default_cf());
    /// names.put(&1, "Ada")?;
    /// names.put(&3, "Grace")?;
    /// let mut lens = [None; 3];
    /// names.reader().multi_get([&1, &2, &3], |i, name| lens[i] = name.map(str::len))?;
    /// assert_eq!(lens, [Some(3), None, Some(5)]);
    /// # Ok(()) }
    /// ```
    #[doc(alias = "MultiGet")]
    pub fn multi_get<'k>(
        &self,
        keys: impl IntoIterator<Item = &'k K::Item<'k>>,
        mut f: impl for<'v> FnMut(usize, Option<V::Decoded<'v>>),
    ) -> Result<()>
    where
        K::Item<'k>: 'k,
    {
        let (mut encoded, mut ends) = (Vec::new(), Vec::new());
        for key in keys {
            encode::<K, _>(key, |bytes| encoded.extend_from_slice(bytes))?;
            ends.push(encoded.len());
        }
        let starts = std::iter::once(0).chain(ends.iter().copied());
        let keys: Vec<&[u8]> = starts.zip(&ends).map(|(s, &e)| &encoded[s..e]).collect();
        let mut failed = None;
        self.reader
            .multi_get_pinned(&keys, |i, value| match (&failed, value) {
                (Some(_), _) => {}
                (None, None) => f(i, None),
                (None, Some(bytes)) => {
                    if let Err(e) = with_decoded::<V, ()>(keys[i], bytes, |v| f(i, Some(v))) {
                        failed = Some(e);
                    }
                }
            })?;
        failed.map_or(Ok(()), Err)
    }

    /// A typed iterator, not yet positioned.
    pub fn iter(&self) -> TypedIter<'a, K, V, S> {
        TypedIter {
            inner: self.reader.iter(),
            _codecs: PhantomData,
        }
    }

    /// A typed iterator over the keys in `range` (`&1..&10`, `"a"..="m"`, `..`), in the
    /// order of their encodings, positioned at the first. Use order-preserving codecs
    /// (`BigEndian`, `Utf8`, `F64`, ...) for the range to mean what it says.
    pub fn range<'k>(
        &self,
        range: impl RangeBounds<K::Item<'k>>,
    ) -> Result<TypedIter<'a, K, V, S>> {
        let bound = |b: Bound<&K::Item<'k>>| -> Result<Bound<Box<[u8]>>> {
            Ok(match b {
                Bound::Included(k) => Bound::Included(encode::<K, _>(k, |b| Box::<[u8]>::from(b))?),
                Bound::Excluded(k) => Bound::Excluded(encode::<K, _>(k, |b| Box::<[u8]>::from(b))?),
                Bound::Unbounded => Bound::Unbounded,
            })
        };
        let bounds = (bound(range.start_bound())?, bound(range.end_bound())?);
        Ok(TypedIter {
            inner: self.reader.range(bounds),
            _codecs: PhantomData,
        })
    }

    /// A std [`Iterator`] over `f(key, value)` for the keys in `range`, decoded from the
    /// bytes in place. A decode error, or an error that stopped the scan, is the last item.
    pub fn scan<'k, T, R, F>(
        &self,
        range: R,
        f: F,
    ) -> Result<impl Iterator<Item = Result<T>> + use<'a, K, V, S, T, R, F>>
    where
        R: RangeBounds<K::Item<'k>>,
        F: for<'key, 'value> FnMut(K::Decoded<'key>, V::Decoded<'value>) -> T,
    {
        Ok(self.range(range)?.forward(f))
    }

    /// Like [`scan`](Self::scan), from the last key in `range` to the first.
    pub fn scan_rev<'k, T, R, F>(
        &self,
        range: R,
        f: F,
    ) -> Result<impl Iterator<Item = Result<T>> + use<'a, K, V, S, T, R, F>>
    where
        R: RangeBounds<K::Item<'k>>,
        F: for<'key, 'value> FnMut(K::Decoded<'key>, V::Decoded<'value>) -> T,
    {
        let mut it = self.range(range)?;
        it.seek_to_last();
        Ok(it.backward(f))
    }
}

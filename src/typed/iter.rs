//! The typed lending iterator: a [`Cursor`] whose entries are decoded in place.

use std::marker::PhantomData;

use crate::codec::Codec;
use crate::raw::error::Result;
use crate::read::cursor::Cursor;
use crate::read::source::DbSource;
use crate::typed::encoding::{decode, encode, with_decoded};

/// A lending iterator over a [`Table`](crate::Table) or a [`TypedReader`](crate::typed::TypedReader),
/// decoding each entry from the pinned bytes. Entries
/// borrow the iterator and are valid until it moves, as with [`Cursor`]. `Send`, not
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
pub struct TypedIter<'a, K, V, S = DbSource> {
    pub(crate) inner: Cursor<'a, S>,
    pub(crate) _codecs: PhantomData<fn() -> (K, V)>,
}

impl<'a, K: Codec, V: Codec, S> TypedIter<'a, K, V, S> {
    /// Moves to the first entry.
    pub fn seek_to_first(&mut self) {
        self.inner.seek_to_first();
    }

    /// Moves to the last entry.
    pub fn seek_to_last(&mut self) {
        self.inner.seek_to_last();
    }

    /// Moves to the first entry whose encoded key is `>=` the encoding of `key`.
    pub fn seek(&mut self, key: &K::Item<'_>) -> Result<()> {
        encode::<K, _>(key, |k| self.inner.seek(k))
    }

    /// Moves to the last entry whose encoded key is `<=` the encoding of `key`.
    pub fn seek_for_prev(&mut self, key: &K::Item<'_>) -> Result<()> {
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
    pub fn forward<T, F>(self, f: F) -> impl Iterator<Item = Result<T>> + use<'a, K, V, S, T, F>
    where
        F: for<'key, 'value> FnMut(K::Decoded<'key>, V::Decoded<'value>) -> T,
    {
        fuse_on_error(self.inner.forward(decoding::<K, V, T>(f)))
    }

    /// Like [`forward`](Self::forward), from the current entry backward.
    pub fn backward<T, F>(self, f: F) -> impl Iterator<Item = Result<T>> + use<'a, K, V, S, T, F>
    where
        F: for<'key, 'value> FnMut(K::Decoded<'key>, V::Decoded<'value>) -> T,
    {
        fuse_on_error(self.inner.backward(decoding::<K, V, T>(f)))
    }
}

/// `f` over raw bytes: decodes the key and the value, then calls the typed closure.
fn decoding<K: Codec, V: Codec, T>(
    mut f: impl for<'key, 'value> FnMut(K::Decoded<'key>, V::Decoded<'value>) -> T,
) -> impl FnMut(&[u8], &[u8]) -> Result<T> {
    move |key, value| {
        let key_decoded = decode::<K>(key, key)?;
        with_decoded::<V, T>(key, value, |value| f(key_decoded, value))
    }
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

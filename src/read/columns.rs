//! A wide-column entity's columns, borrowed from where RocksDB holds them pinned: what the
//! entity reads ([`Reader::get_entity`](crate::Reader::get_entity) and its guard and owned
//! tiers) and a cursor's [`columns`](crate::Cursor::columns) give.

use crate::codec::{Codec, DecodeError};
use crate::raw::c_types::pinrocks_column;
use crate::raw::pinned::value_slice;

/// The columns of one entity, sorted by name, names unique, each name and value borrowed
/// from RocksDB's pinned bytes (no column is copied). The column named `""` is the default
/// column, which plain reads return as the value; a plain value read as an entity is that
/// one column.
#[derive(Clone, Copy)]
pub struct Columns<'a> {
    raw: &'a [pinrocks_column],
}

impl<'a> Columns<'a> {
    /// RocksDB's column array, pinned for `'a`.
    pub(crate) fn new(raw: &'a [pinrocks_column]) -> Self {
        Columns { raw }
    }

    /// How many columns.
    pub fn len(&self) -> usize {
        self.raw.len()
    }

    /// Whether there are none (an entity put with no columns).
    pub fn is_empty(&self) -> bool {
        self.raw.is_empty()
    }

    /// The `i`-th column by name order, as `(name, value)`.
    pub fn at(&self, i: usize) -> Option<(&'a [u8], &'a [u8])> {
        self.raw.get(i).map(column)
    }

    /// The column named `name` decoded with codec `C`, borrowing from the pin where `C`
    /// allows: how an [`EntityCodec`](crate::typed::EntityCodec) reads each field. A
    /// missing column is [`DecodeError::MissingColumn`]. A codec that reads some bytes only
    /// on a copy (`Rkyv` under rkyv's aligned format, for a column at a misaligned address)
    /// cannot return what it read from a copy: this names the misalignment
    /// ([`DecodeError::Alignment`]), and [`with_decoded`](Self::with_decoded) reads it.
    pub fn decode<C: Codec>(&self, name: &[u8]) -> Result<C::Decoded<'a>, DecodeError> {
        C::decode(self.named(name)?)
    }

    /// Calls `f` with the column named `name` decoded with codec `C`, wherever the column
    /// lies: [`decode`](Self::decode), but a column `C` reads only on a copy is read there
    /// ([`Codec::with_decoded`]).
    pub fn with_decoded<C: Codec, R>(
        &self,
        name: &[u8],
        f: impl for<'d> FnOnce(C::Decoded<'d>) -> R,
    ) -> Result<R, DecodeError> {
        C::with_decoded(self.named(name)?, f)
    }

    /// The value of the column named `name`, or why there is none.
    fn named(&self, name: &[u8]) -> Result<&'a [u8], DecodeError> {
        self.get(name)
            .ok_or_else(|| DecodeError::MissingColumn(String::from_utf8_lossy(name).into_owned()))
    }

    /// The value of the column named `name` (a binary search: names are sorted).
    pub fn get(&self, name: &[u8]) -> Option<&'a [u8]> {
        self.raw
            .binary_search_by(|c| column(c).0.cmp(name))
            .ok()
            .map(|i| column(&self.raw[i]).1)
    }

    /// The default column's value (the column named `""`): what a plain read returns.
    pub fn default_value(&self) -> Option<&'a [u8]> {
        self.get(b"")
    }

    /// Every `(name, value)`, in name order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&'a [u8], &'a [u8])> + 'a {
        self.raw.iter().map(column)
    }

    /// Owned copies of every `(name, value)`, in name order.
    pub fn to_vec(&self) -> Vec<(Vec<u8>, Vec<u8>)> {
        self.iter().map(|(n, v)| (n.to_vec(), v.to_vec())).collect()
    }
}

// SAFETY: a `Columns` is shared borrows of bytes RocksDB keeps pinned and unchanged for `'a`
// (a `PinnableWideColumns`' backing, or a cursor's entity until `&mut` moves it: `DBIter` and
// `BaseDeltaIterator` change their columns only in `Next`/`Seek`-like calls); its raw pointers
// are only read, like `&[u8]`'s, so sharing or sending it across threads within `'a` is as
// sound.
unsafe impl Send for Columns<'_> {}
// SAFETY: as for `Send`: nothing in it is ever written.
unsafe impl Sync for Columns<'_> {}

impl std::fmt::Debug for Columns<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<'a> IntoIterator for Columns<'a> {
    type Item = (&'a [u8], &'a [u8]);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'a, pinrocks_column>,
        fn(&'a pinrocks_column) -> (&'a [u8], &'a [u8]),
    >;

    fn into_iter(self) -> Self::IntoIter {
        self.raw.iter().map(column)
    }
}

/// One column's name and value.
fn column(c: &pinrocks_column) -> (&[u8], &[u8]) {
    // SAFETY: the array is RocksDB's pinned columns, whose names and values are valid for
    // the borrow of `c` (`Columns::new`'s contract).
    unsafe {
        (
            value_slice(c.name.data, c.name.len),
            value_slice(c.value.data, c.value.len),
        )
    }
}

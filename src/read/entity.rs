//! Wide-column entities read in place: [`Columns`], borrowed from where RocksDB holds them
//! pinned, handed to [`Reader::get_entity`]'s closure and given by a cursor's
//! [`columns`](crate::Cursor::columns).

use crate::db::handles::DbKind;
use crate::raw::error::{Error, Result};
use crate::raw::ffi;
use crate::raw::pinned::value_slice;
use crate::raw::reentry;
use crate::read::reader::Reader;
use crate::read::source::ReadSource;

impl<S: ReadSource> Reader<'_, S> {
    /// **Pinned entity.** Calls `f` with the columns of `key` where RocksDB holds them: a
    /// wide-column entity's columns, or a plain value as its one default column. Returns
    /// `f`'s result, or `None` if the key is absent. One native call and no allocation of
    /// ours: the columns are RocksDB's own array, borrowed (RocksDB allocates a few times per
    /// read: the array, the entity's backing; through a transaction or an indexed batch,
    /// a batch iterator). A panic in `f` is caught, the pin released, then the panic goes on.
    ///
    /// ```
    /// # fn main() -> pinrocks::Result<()> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let mut opts = pinrocks::Options::new();
    /// # opts.create_if_missing(true);
    /// # let db = pinrocks::Db::open(&opts, dir.path())?;
    /// db.writer().put_entity(b"user:1", &[("name", "Ada"), ("born", "1815")])?;
    /// let born = db.reader().get_entity(b"user:1", |columns| columns.get(b"born").map(<[u8]>::len))?;
    /// assert_eq!(born, Some(Some(4)));
    /// # Ok(()) }
    /// ```
    ///
    /// The columns cannot leave the closure: the pin would be gone.
    ///
    /// ```compile_fail
    /// # fn main() -> pinrocks::Result<()> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let db = pinrocks::Db::open(&pinrocks::Options::new(), dir.path())?;
    /// let escaped = db.reader().get_entity(b"k", |columns| columns.get(b"name"))?;
    /// # Ok(()) }
    /// ```
    ///
    /// Refused on a TTL database ([`Error::InvalidInput`]): RocksDB's TTL layer does not
    /// strip its timestamps from entity reads.
    #[doc(alias = "GetEntity")]
    #[doc(alias = "PinnableWideColumns")]
    pub fn get_entity<R>(&self, key: &[u8], f: impl FnOnce(Columns<'_>) -> R) -> Result<Option<R>> {
        reentry::refuse_read_inside("read")?;
        if self.db.kind == DbKind::Ttl {
            return Err(Error::invalid(
                "get_entity",
                "a TTL database (RocksDB's TTL layer does not handle entities)",
            ));
        }
        // SAFETY: the handles and the source's object are live for the reader's lifetime
        // (borrowed).
        unsafe {
            self.source
                .get_entity(self.handles(), key, |raw: &[ffi::pinrocks_column]| {
                    f(Columns::new(raw))
                })
        }
    }
}

/// The columns of one entity, sorted by name, names unique, each name and value borrowed
/// from RocksDB's pinned bytes (no column is copied). The column named `""` is the default
/// column, which plain reads return as the value; a plain value read as an entity is that
/// one column.
#[derive(Clone, Copy)]
pub struct Columns<'a> {
    raw: &'a [ffi::pinrocks_column],
}

impl<'a> Columns<'a> {
    /// RocksDB's column array, pinned for `'a`.
    pub(crate) fn new(raw: &'a [ffi::pinrocks_column]) -> Self {
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

// SAFETY: a `Columns` is shared borrows of bytes RocksDB keeps pinned and unchanged for
// `'a` (a block, a memtable copy or a buffer of the pin); its raw pointers are only read,
// like `&[u8]`'s, so sharing or sending it across threads within `'a` is as sound.
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
        std::slice::Iter<'a, ffi::pinrocks_column>,
        fn(&'a ffi::pinrocks_column) -> (&'a [u8], &'a [u8]),
    >;

    fn into_iter(self) -> Self::IntoIter {
        self.raw.iter().map(column)
    }
}

/// One column's name and value.
fn column(c: &ffi::pinrocks_column) -> (&[u8], &[u8]) {
    // SAFETY: the array is RocksDB's pinned columns, whose names and values are valid for
    // the borrow of `c` (`Columns::new`'s contract).
    unsafe {
        (
            value_slice(c.name.data, c.name.len),
            value_slice(c.value.data, c.value.len),
        )
    }
}

//! Zero-copy iteration: key and value slices borrowed from the iterator, valid until it
//! moves. No allocation per entry.

use std::marker::PhantomData;
use std::ptr::NonNull;

use crate::error::{ErrPtr, Result};
use crate::ffi;
use crate::pinned::value_slice;

/// A positioned cursor over one column family, from [`Reader::iter`](crate::Reader::iter)
/// or [`Reader::prefix_iter`](crate::Reader::prefix_iter). Range bounds come from the
/// reader's [`ReadOptions`](crate::ReadOptions) (`iterate_lower_bound`,
/// `iterate_upper_bound`), which it borrows for its life.
///
/// It is a lending iterator: [`entry`](Self::entry) borrows the iterator, and every move
/// takes `&mut self`, so the borrow checker ends each entry's use before the iterator moves
/// on:
///
/// ```
/// # fn main() -> pinrocks::Result<()> {
/// # let dir = tempfile::tempdir().unwrap();
/// # let mut opts = pinrocks::Options::new();
/// # opts.create_if_missing(true);
/// # let db = pinrocks::Db::open(&opts, dir.path())?;
/// for k in [b"a", b"b", b"c"] { db.put(k, k)?; }
/// let mut it = db.reader().iter();
/// it.seek_to_first();
/// let mut seen = Vec::new();
/// while let Some((key, value)) = it.entry() {
///     assert_eq!(key, value);
///     seen.push(key[0]);
///     it.next();
/// }
/// it.status()?;
/// assert_eq!(seen, b"abc");
/// # Ok(()) }
/// ```
///
/// Holding a slice across a move does not compile:
///
/// ```compile_fail
/// # fn main() -> pinrocks::Result<()> {
/// # let dir = tempfile::tempdir().unwrap();
/// # let db = pinrocks::Db::open(&pinrocks::Options::new(), dir.path())?;
/// let mut it = db.reader().iter();
/// it.seek_to_first();
/// let (key, _) = it.entry().unwrap();
/// it.next();
/// println!("{key:?}"); // error: `it` is borrowed by `key`
/// # Ok(()) }
/// ```
///
/// `Send`, so a scan can move to another thread, but not `Sync`: a cursor is used by one
/// thread at a time (RocksDB requires external synchronization for its moves, and some of
/// its `value()` paths load lazily).
///
/// ```compile_fail
/// fn shared<T: Sync>(_: &T) {}
/// # let dir = tempfile::tempdir().unwrap();
/// # let db = pinrocks::Db::open(&pinrocks::Options::new(), dir.path()).unwrap();
/// shared(&db.reader().iter());
/// ```
pub struct DbIterator<'a> {
    raw: NonNull<ffi::rocksdb_iterator_t>,
    prefix: Option<Box<[u8]>>,
    /// The database, column family and read options (whose bounds RocksDB points into)
    /// must outlive the iterator.
    _borrow: PhantomData<&'a ()>,
}

// SAFETY: a RocksDB iterator (`ArenaWrappedDBIter`) has no thread affinity: it may be used
// from any thread, one at a time (include/rocksdb/iterator.h: non-const methods need external
// synchronization), and its destructor releases its SuperVersion through the thread-safe
// `ColumnFamilyData::ReturnThreadLocalSuperVersion`/`Cleanup` paths. Every move takes
// `&mut self`; the type is not `Sync`.
unsafe impl Send for DbIterator<'_> {}

impl<'a> DbIterator<'a> {
    pub(crate) fn new(raw: *mut ffi::rocksdb_iterator_t, prefix: Option<&[u8]>) -> Self {
        DbIterator {
            raw: NonNull::new(raw).expect("rocksdb_create_iterator returned NULL"),
            prefix: prefix.map(Box::from),
            _borrow: PhantomData,
        }
    }

    fn valid(&self) -> bool {
        // SAFETY: live iterator.
        unsafe { ffi::rocksdb_iter_valid(self.raw.as_ptr()) != 0 }
    }

    /// Moves to the first entry (of the prefix, for a prefix iterator).
    pub fn seek_to_first(&mut self) {
        match self.prefix.take() {
            Some(prefix) => {
                self.seek(&prefix);
                self.prefix = Some(prefix);
            }
            // SAFETY: live iterator.
            None => unsafe { ffi::rocksdb_iter_seek_to_first(self.raw.as_ptr()) },
        }
    }

    /// Moves to the last entry (of the prefix, for a prefix iterator).
    pub fn seek_to_last(&mut self) {
        match self.prefix.as_deref().and_then(successor) {
            Some(end) => {
                self.seek_for_prev(&end);
                // `end` itself is outside the prefix.
                if self.key() == Some(&end[..]) {
                    self.prev();
                }
            }
            // SAFETY: live iterator.
            None => unsafe { ffi::rocksdb_iter_seek_to_last(self.raw.as_ptr()) },
        }
    }

    /// Moves to the first entry with a key `>= key`.
    pub fn seek(&mut self, key: &[u8]) {
        // SAFETY: live iterator; RocksDB copies what it needs of `key`.
        unsafe { ffi::rocksdb_iter_seek(self.raw.as_ptr(), key.as_ptr().cast(), key.len()) };
    }

    /// Moves to the last entry with a key `<= key`.
    pub fn seek_for_prev(&mut self, key: &[u8]) {
        // SAFETY: live iterator; RocksDB copies what it needs of `key`.
        unsafe {
            ffi::rocksdb_iter_seek_for_prev(self.raw.as_ptr(), key.as_ptr().cast(), key.len())
        };
    }

    /// Moves to the next entry; does nothing past the end.
    #[allow(clippy::should_implement_trait)] // a lending move, not `Iterator::next`
    pub fn next(&mut self) {
        if self.valid() {
            // SAFETY: live, valid iterator.
            unsafe { ffi::rocksdb_iter_next(self.raw.as_ptr()) };
        }
    }

    /// Moves to the previous entry; does nothing before the start.
    pub fn prev(&mut self) {
        if self.valid() {
            // SAFETY: live, valid iterator.
            unsafe { ffi::rocksdb_iter_prev(self.raw.as_ptr()) };
        }
    }

    /// The current key, or `None` past either end (or outside the prefix).
    pub fn key(&self) -> Option<&[u8]> {
        self.entry().map(|(key, _)| key)
    }

    /// The current value, or `None` past either end (or outside the prefix).
    pub fn value(&self) -> Option<&[u8]> {
        self.entry().map(|(_, value)| value)
    }

    /// The current key and value, borrowed until the iterator moves.
    pub fn entry(&self) -> Option<(&[u8], &[u8])> {
        if !self.valid() {
            return None;
        }
        // SAFETY: a valid iterator's key and value stay unchanged until it moves, which
        // needs `&mut self` and so ends these borrows first.
        let (key, value) = unsafe {
            let mut len = 0usize;
            let key = ffi::rocksdb_iter_key(self.raw.as_ptr(), &mut len);
            let key = value_slice(key, len);
            let value = ffi::rocksdb_iter_value(self.raw.as_ptr(), &mut len);
            (key, value_slice(value, len))
        };
        match &self.prefix {
            Some(prefix) if !key.starts_with(prefix) => None,
            _ => Some((key, value)),
        }
    }

    /// The error that stopped the iterator, if any. An iterator that ran off its end
    /// because of an I/O error or corruption reports it here.
    pub fn status(&self) -> Result<()> {
        let mut err = ErrPtr::new();
        // SAFETY: live iterator.
        unsafe { ffi::rocksdb_iter_get_error(self.raw.as_ptr(), err.as_out()) };
        err.check()
    }
}

/// The smallest key greater than every key that starts with `prefix`, if there is one.
fn successor(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last < u8::MAX {
            end.push(last + 1);
            return Some(end);
        }
    }
    None
}

impl Drop for DbIterator<'_> {
    fn drop(&mut self) {
        // SAFETY: owned by `self`, destroyed once, before the borrowed database closes.
        unsafe { ffi::rocksdb_iter_destroy(self.raw.as_ptr()) };
    }
}

#[cfg(test)]
mod tests {
    use super::successor;

    #[test]
    fn successor_of_prefixes() {
        assert_eq!(successor(b"ab"), Some(b"ac".to_vec()));
        assert_eq!(successor(&[1, 0xFF]), Some(vec![2]));
        assert_eq!(successor(&[0xFF, 0xFF]), None);
        assert_eq!(successor(b""), None);
    }
}

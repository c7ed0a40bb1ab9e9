//! A cursor that owns what it reads: the database, the column family and its own copy of
//! the read options (with their snapshot), so it can go to another thread or task, and be
//! held across an `.await`, with no borrow of the `Db`. The entries it lends are pinned as
//! a borrowing [`Cursor`]'s are, until it moves.

use std::sync::Arc;

use crate::callbacks::comparator::Comparator;
use crate::db::handles::{CfHandle, DbInner};
use crate::db::snapshot::Snapshot;
use crate::raw::error::{Error, Result};
use crate::read::columns::Columns;
use crate::read::cursor::Cursor;
use crate::read::entries::Entries;
use crate::read::key_range::KeyRange;
use crate::read::reader::Reader;
use crate::read::source::DbSource;

/// A [`Cursor`] over the database that keeps its database, column family and snapshot alive
/// by ownership: `Send` and `'static`, for a stream of entries handed to another thread or
/// task, or held across an `.await`. From [`Reader::owned_range`] (and
/// [`Reader::owned_iter`]); only over the database itself (a transaction's or a batch's
/// cursor reads that object, which stays with its owner).
///
/// ```
/// # fn main() -> pinrocks::Result<()> {
/// # let dir = tempfile::tempdir().unwrap();
/// # let mut opts = pinrocks::Options::new();
/// # opts.create_if_missing(true);
/// let db = pinrocks::Db::open(&opts, dir.path())?;
/// for k in [b"a", b"b", b"c"] { db.put(k, k)?; }
/// let mut cursor = db.reader().owned_range(b"a"..b"c")?;
/// drop(db); // the cursor keeps the database open
/// let keys = std::thread::spawn(move || {
///     let mut keys = Vec::new();
///     while let Some((key, value)) = cursor.entry() {
///         assert_eq!(key, value);
///         keys.push(key.to_vec());
///         cursor.next();
///     }
///     cursor.status().map(|()| keys)
/// })
/// .join()
/// .unwrap()?;
/// assert_eq!(keys, [b"a".to_vec(), b"b".to_vec()]);
/// # Ok(()) }
/// ```
///
/// An entry is still borrowed from the cursor, and still ends at its next move:
///
/// ```compile_fail
/// # fn main() -> pinrocks::Result<()> {
/// # let dir = tempfile::tempdir().unwrap();
/// # let db = pinrocks::Db::open(&pinrocks::Options::new(), dir.path())?;
/// let mut cursor = db.reader().owned_iter()?;
/// cursor.seek_to_first();
/// let (key, _) = cursor.entry().unwrap();
/// cursor.next();
/// println!("{key:?}"); // error: `cursor` is borrowed by `key`
/// # Ok(()) }
/// ```
///
/// and does not outlive the cursor:
///
/// ```compile_fail
/// # fn main() -> pinrocks::Result<()> {
/// # let dir = tempfile::tempdir().unwrap();
/// # let db = pinrocks::Db::open(&pinrocks::Options::new(), dir.path())?;
/// let key = {
///     let mut cursor = db.reader().owned_iter()?;
///     cursor.seek_to_first();
///     cursor.key().unwrap()
/// }; // error: `cursor` dropped while borrowed
/// # Ok(()) }
/// ```
///
/// It is not `Sync` (one thread moves it at a time, as RocksDB requires):
///
/// ```compile_fail
/// fn shared<T: Sync>(_: &T) {}
/// # let dir = tempfile::tempdir().unwrap();
/// # let db = pinrocks::Db::open(&pinrocks::Options::new(), dir.path()).unwrap();
/// shared(&db.reader().owned_iter().unwrap());
/// ```
pub struct OwnedCursor {
    /// First: it is destroyed before the family and database it reads (fields drop in
    /// order). It owns its read options, which RocksDB points into.
    cursor: Cursor<'static, DbSource>,
    _cf: Arc<CfHandle>,
    _db: Arc<DbInner>,
}

impl OwnedCursor {
    /// Moves to the first entry (of the range).
    pub fn seek_to_first(&mut self) {
        self.cursor.seek_to_first();
    }

    /// Moves to the last entry (of the range).
    pub fn seek_to_last(&mut self) {
        self.cursor.seek_to_last();
    }

    /// Moves to the first entry at or after `key`.
    pub fn seek(&mut self, key: &[u8]) {
        self.cursor.seek(key);
    }

    /// Moves to the last entry at or before `key`.
    pub fn seek_for_prev(&mut self, key: &[u8]) {
        self.cursor.seek_for_prev(key);
    }

    /// Moves to the next entry.
    pub fn next(&mut self) {
        self.cursor.next();
    }

    /// Moves to the previous entry.
    pub fn prev(&mut self) {
        self.cursor.prev();
    }

    /// The current key, borrowed until the cursor moves.
    pub fn key(&self) -> Option<&[u8]> {
        self.cursor.key()
    }

    /// The current value, pinned until the cursor moves.
    pub fn value(&self) -> Option<&[u8]> {
        self.cursor.value()
    }

    /// The current key and value, pinned until the cursor moves.
    pub fn entry(&self) -> Option<(&[u8], &[u8])> {
        self.cursor.entry()
    }

    /// The current entry's wide columns; see [`Cursor::columns`].
    pub fn columns(&self) -> Option<Columns<'_>> {
        self.cursor.columns()
    }

    /// The current entry's timestamp; see [`Cursor::timestamp`].
    pub fn timestamp(&self) -> Option<u64> {
        self.cursor.timestamp()
    }

    /// Why the cursor stopped, if not at the end of its range; see [`Cursor::status`].
    pub fn status(&self) -> Result<()> {
        self.cursor.status()
    }

    /// Rebuilds the cursor to read the database as it is now; see [`Cursor::refresh`].
    pub fn refresh(&mut self) -> Result<()> {
        self.cursor.refresh()
    }

    /// Rebuilds the cursor to read as of `snapshot`, which it keeps alive; see
    /// [`Cursor::refresh_to`] (and its panic on another database's snapshot).
    pub fn refresh_to(&mut self, snapshot: &Snapshot) -> Result<()> {
        self.cursor.refresh_to(snapshot)
    }

    /// A std [`Iterator`] over `f(key, value)` from the current entry forward, owning the
    /// cursor: `Send` and `'static` with an `f` that is, as a stream to hand on. Ends with
    /// the scan's error, if it stopped on one.
    pub fn forward<T, F: FnMut(&[u8], &[u8]) -> T>(self, f: F) -> OwnedEntries<F> {
        OwnedEntries {
            entries: self.cursor.forward(f),
            _cf: self._cf,
            _db: self._db,
        }
    }

    /// Like [`forward`](Self::forward), from the current entry backward.
    pub fn backward<T, F: FnMut(&[u8], &[u8]) -> T>(self, f: F) -> OwnedEntries<F> {
        OwnedEntries {
            entries: self.cursor.backward(f),
            _cf: self._cf,
            _db: self._db,
        }
    }
}

/// The std-iterator face of an [`OwnedCursor`] ([`OwnedCursor::forward`], `backward`): each
/// item `Ok(f(key, value))`, the last an `Err` if the scan stopped on an error.
pub struct OwnedEntries<F> {
    /// First: dropped before the family and database.
    entries: Entries<'static, F, DbSource>,
    _cf: Arc<CfHandle>,
    _db: Arc<DbInner>,
}

impl<T, F: FnMut(&[u8], &[u8]) -> T> Iterator for OwnedEntries<F> {
    type Item = Result<T>;

    fn next(&mut self) -> Option<Result<T>> {
        self.entries.next()
    }
}

impl<T, F: FnMut(&[u8], &[u8]) -> T> std::iter::FusedIterator for OwnedEntries<F> {}

impl Reader<'_, DbSource> {
    /// **Owned iteration.** An [`OwnedCursor`] over the keys in `range` (as
    /// [`range`](Self::range)), positioned at the first, reading with its own copy of this
    /// reader's options (bounds, snapshot, timestamps) and keeping the database and column
    /// family alive.
    ///
    /// # Errors
    /// [`Error::InvalidInput`] if the options read at a transaction's snapshot
    /// ([`Transaction::snapshot_options`](crate::Transaction::snapshot_options)): the
    /// transaction owns it, and an owned cursor could outlive the transaction.
    pub fn owned_range(&self, range: impl KeyRange) -> Result<OwnedCursor> {
        let mut cursor = self.owned_cursor(&range)?;
        cursor.seek_to_first();
        Ok(cursor)
    }

    /// An [`OwnedCursor`] over every key, not yet positioned (as [`iter`](Self::iter)).
    pub fn owned_iter(&self) -> Result<OwnedCursor> {
        self.owned_cursor(&..)
    }

    fn owned_cursor(&self, range: &dyn KeyRange) -> Result<OwnedCursor> {
        if self.options.borrows_snapshot() {
            return Err(Error::invalid(
                "owned cursor",
                "the read options borrow a transaction's snapshot, which an owned cursor \
                 could outlive; read at a database snapshot (`Db::snapshot`) instead",
            ));
        }
        let (db, cf) = (Arc::clone(self.db), Arc::clone(self.cf));
        // The cursor's own options, boxed into it (RocksDB points into them): the same
        // settings, bounds, timestamps and snapshot (a clone, which keeps it).
        let own = Box::new(self.options.copy_with_upper_bound(None));
        // SAFETY: the comparator lives inside the column family's handle, an `Arc`
        // allocation that does not move and that the `OwnedCursor` keeps (`_cf`) until its
        // cursor, the only holder of this reference, has dropped (it drops first).
        let order: Option<&'static Comparator> = cf
            .order
            .as_ref()
            .map(|order| unsafe { &*(order as *const Comparator) });
        let cursor = self.cursor(range, order, Some(own));
        Ok(OwnedCursor {
            cursor,
            _cf: cf,
            _db: db,
        })
    }
}

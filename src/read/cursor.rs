//! Zero-copy iteration: key and value slices borrowed from the iterator, valid until it
//! moves. No allocation per entry. The lending cursor [`Cursor`]: seek, move, read the entry
//! in place (its std-iterator face, `Entries`, is in `entries.rs`).

use std::marker::PhantomData;
use std::ops::Bound;

use crate::callbacks::comparator::{compare, Comparator};
use crate::db::handles::DbKind;
use crate::db::snapshot::Snapshot;
use crate::raw::error::{Error, ErrorKind, Result};
use crate::raw::iterator::IteratorHandle;
use crate::read::columns::Columns;
use crate::read::key_range::KeyRange;
use crate::read::read_options::ReadOptions;
use crate::read::refusal::Refusal;
use crate::read::source::DbSource;

/// A positioned cursor over one column family, from [`Reader::iter`](crate::Reader::iter),
/// [`Reader::range`](crate::Reader::range) or
/// [`Reader::prefix_iter`](crate::Reader::prefix_iter). A range's keys are all it sees:
/// keys outside read as the end, both ways, and `seek_to_first`/`seek_to_last` go to the
/// range's first and last keys. The reader's [`ReadOptions`](crate::ReadOptions) bounds
/// (`iterate_lower_bound`, `iterate_upper_bound`) apply too; the iterator borrows them.
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
/// let mut it = db.reader().range(b"a"..=b"b"); // positioned at "a"
/// let mut seen = Vec::new();
/// while let Some((key, value)) = it.entry() {
///     assert_eq!(key, value);
///     seen.push(key[0]);
///     it.next();
/// }
/// it.status()?;
/// assert_eq!(seen, b"ab");
///
/// // The same as a std iterator: each item computed from the borrowed bytes.
/// let lens: Vec<usize> = db.reader().scan(.., |_key, value| value.len()).collect::<Result<_, _>>()?;
/// assert_eq!(lens, [1, 1, 1]);
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
/// `Send` when it reads the database alone (`S` is [`DbSource`]), so a scan can move to
/// another thread, but not `Sync`: a cursor is used by one thread at a time (RocksDB
/// requires external synchronization for its moves, and some of its `value()` paths load
/// lazily). An iterator through a transaction or an indexed batch reads that object's index
/// as it moves, so it stays on the thread that uses the object:
///
/// ```compile_fail
/// fn sent<T: Send>(_: T) {}
/// # let dir = tempfile::tempdir().unwrap();
/// # let mut options = pinrocks::Options::new();
/// # options.create_if_missing(true);
/// let db = pinrocks::Db::open_optimistic_transaction_db(&options, dir.path(), []).unwrap();
/// let txn = db.begin().unwrap();
/// let reader = txn.reader();
/// sent(reader.iter());
/// ```
///
/// ```compile_fail
/// fn sent<T: Send>(_: T) {}
/// # let dir = tempfile::tempdir().unwrap();
/// # let mut options = pinrocks::Options::new();
/// # options.create_if_missing(true);
/// let db = pinrocks::Db::open(&options, dir.path()).unwrap();
/// let batch = db.indexed_batch().unwrap();
/// let reader = batch.reader();
/// sent(reader.scan(.., |k, _| k.len()));
/// ```
///
/// ```compile_fail
/// fn shared<T: Sync>(_: &T) {}
/// # let dir = tempfile::tempdir().unwrap();
/// # let db = pinrocks::Db::open(&pinrocks::Options::new(), dir.path()).unwrap();
/// shared(&db.reader().iter());
/// ```
#[doc(alias = "DbIterator")]
#[doc(alias = "Iterator")]
#[doc(alias = "NewIterator")]
#[doc(alias = "rocksdb_iterator_t")]
pub struct Cursor<'a, S = DbSource> {
    /// First, so it is destroyed before the fields below that it points into drop.
    pub(super) raw: IteratorHandle,
    lower: Bound<Box<[u8]>>,
    upper: Bound<Box<[u8]>>,
    /// The column family's key order, which the bounds are compared in.
    order: Option<&'a Comparator>,
    /// Read options of this iterator's own (prefix iteration), which RocksDB points into:
    /// dropped after `raw` is destroyed (`Drop` runs before the fields drop).
    _own_options: Option<Box<ReadOptions>>,
    /// The database read (to refuse a snapshot of another one).
    pub(super) db_id: u64,
    /// How the database was opened: a secondary instance reads at no snapshot, a TTL
    /// database's iterator has no columns.
    pub(super) kind: DbKind,
    /// The snapshot(s) a refresh pointed RocksDB's iterator at: dropped after `raw`.
    pub(super) refreshed_to: Vec<Snapshot>,
    /// A history read (`iter_start_timestamp`), whose keys RocksDB gives with their
    /// timestamp and (most) with their sequence number and kind: hidden from `key`.
    pub(super) history: bool,
    /// Why the read was refused before RocksDB saw it (`raw` is then never valid).
    pub(super) refused: Option<Refusal>,
    /// The database, column family and read options (whose bounds RocksDB points into)
    /// must outlive the iterator; and what it reads through (`S`).
    _borrow: PhantomData<(&'a (), S)>,
}

// SAFETY: a RocksDB iterator (`ArenaWrappedDBIter`) has no thread affinity: it may be used
// from any thread, one at a time (include/rocksdb/iterator.h: non-const methods need external
// synchronization), and its destructor releases its SuperVersion through the thread-safe
// `ColumnFamilyData::ReturnThreadLocalSuperVersion`/`Cleanup` paths (the error iterator a
// failed seek leaves in its place holds only a status); the database pointer it hands back
// with each move is used only after a throw, through RocksDB's thread-safe calls and under the
// database mutex (thrown_reads.cc). Every move takes `&mut self`; the type is not `Sync`. Only
// for iterators over the database alone: one through a transaction or an indexed batch
// (`BaseDeltaIterator`) reads that object's index, which its owner uses on its own thread.
unsafe impl Send for Cursor<'_, DbSource> {}

impl<'a, S> Cursor<'a, S> {
    /// Owns `raw`, seeing only keys within `range` (in `order`); not positioned. `options`
    /// are the read options `raw` was made with, if the iterator owns them.
    pub(crate) fn new(
        raw: IteratorHandle,
        (db_id, kind): (u64, DbKind),
        range: &dyn KeyRange,
        order: Option<&'a Comparator>,
        options: Option<Box<ReadOptions>>,
    ) -> Self {
        let (lower, upper) = range.key_bounds();
        Cursor {
            raw,
            lower,
            upper,
            order,
            _own_options: options,
            db_id,
            kind,
            refreshed_to: Vec::new(),
            history: false,
            refused: None,
            _borrow: PhantomData,
        }
    }

    /// Reads keys as a history read's (`history`), and reports `refused` from `status`.
    pub(super) fn with_timestamps(mut self, history: bool, refused: Option<Refusal>) -> Self {
        self.history = history;
        self.refused = refused;
        self
    }

    /// The entry RocksDB is at, in or out of the range.
    #[inline]
    fn raw_entry(&self) -> Option<(&[u8], &[u8])> {
        if self.refused.is_some() {
            return None; // refused, or moved backward in a history read
        }
        let (key, value) = self.native_entry()?;
        if !self.history {
            return Some((key, value));
        }
        let (user_key, ..) = self.history_parts(key)?;
        Some((&key[..user_key], value))
    }

    /// The entry as RocksDB gives it (a history read's key with its suffix).
    #[inline]
    pub(super) fn native_entry(&self) -> Option<(&[u8], &[u8])> {
        self.raw.entry()
    }

    #[inline]
    fn in_range(&self, key: &[u8]) -> bool {
        let cmp = |bound: &[u8]| compare(self.order, key, bound);
        let above_lower = match &self.lower {
            Bound::Included(start) => cmp(start).is_ge(),
            Bound::Excluded(start) => cmp(start).is_gt(),
            Bound::Unbounded => true,
        };
        let below_upper = match &self.upper {
            Bound::Included(end) => cmp(end).is_le(),
            Bound::Excluded(end) => cmp(end).is_lt(),
            Bound::Unbounded => true,
        };
        above_lower && below_upper
    }

    /// Whether RocksDB's current key is `bound` in the column family's order.
    fn at(&self, bound: &[u8]) -> bool {
        self.raw_entry()
            .is_some_and(|(key, _)| compare(self.order, key, bound).is_eq())
    }

    /// Whether this thread is inside a callback RocksDB runs inside a read or under its
    /// database mutex (a comparator, a merge operator...): a move there would re-enter the
    /// thread's RocksDB state (a `'static` cursor can be taken into one), so it is refused,
    /// and the cursor then reads as ended, `status` saying why. One thread-local load.
    #[inline]
    fn refused_here(&mut self) -> bool {
        match crate::raw::reentry::refuse_read_inside("a cursor's move") {
            Ok(()) => false,
            Err(Error::InsideCallback { callback, .. }) => {
                self.refused = Some(Refusal::InsideCallback { callback });
                true
            }
            Err(_) => true,
        }
    }

    /// Moves to the first entry of the range.
    pub fn seek_to_first(&mut self) {
        if self.refused_here() {
            return;
        }
        match std::mem::replace(&mut self.lower, Bound::Unbounded) {
            Bound::Unbounded => self.raw.seek_to_first(),
            Bound::Included(start) => {
                self.seek(&start);
                self.lower = Bound::Included(start);
            }
            Bound::Excluded(start) => {
                self.seek(&start);
                // Once, or for each of its versions in a history read.
                while self.at(&start) {
                    self.next();
                }
                self.lower = Bound::Excluded(start);
            }
        }
    }

    /// Moves to the last entry of the range.
    pub fn seek_to_last(&mut self) {
        if self.refused_here() || self.refuse_backward() {
            return;
        }
        match std::mem::replace(&mut self.upper, Bound::Unbounded) {
            Bound::Unbounded => self.raw.seek_to_last(),
            Bound::Included(end) => {
                self.seek_for_prev(&end);
                self.upper = Bound::Included(end);
            }
            Bound::Excluded(end) => {
                self.seek_for_prev(&end);
                // `end` itself is outside the range; compare RocksDB's own key, since
                // `entry` already hides keys outside it.
                if self.at(&end) {
                    self.prev();
                }
                self.upper = Bound::Excluded(end);
            }
        }
    }

    /// Moves to the first entry with a key `>= key`.
    pub fn seek(&mut self, key: &[u8]) {
        if self.refused_here() {
            return;
        }
        // A C++ exception thrown inside leaves an iterator that is not valid and whose
        // status is the failure (see `status`).
        self.raw.seek(key);
    }

    /// Moves to the last entry with a key `<= key`.
    pub fn seek_for_prev(&mut self, key: &[u8]) {
        if self.refused_here() || self.refuse_backward() {
            return;
        }
        self.raw.seek_for_prev(key);
    }

    /// Moves to the next entry; does nothing past the end.
    #[allow(clippy::should_implement_trait)] // a lending move, not `Iterator::next`
    pub fn next(&mut self) {
        if self.refused_here() {
            return;
        }
        self.raw.next();
    }

    /// Moves to the previous entry; does nothing before the start.
    pub fn prev(&mut self) {
        if self.refused_here() || self.refuse_backward() {
            return;
        }
        self.raw.prev();
    }

    /// The current key, or `None` past either end (or outside the range).
    pub fn key(&self) -> Option<&[u8]> {
        self.entry().map(|(key, _)| key)
    }

    /// The current value, or `None` past either end (or outside the range).
    pub fn value(&self) -> Option<&[u8]> {
        self.entry().map(|(_, value)| value)
    }

    /// The current key and value, borrowed until the iterator moves.
    pub fn entry(&self) -> Option<(&[u8], &[u8])> {
        self.raw_entry().filter(|(key, _)| self.in_range(key))
    }

    /// The current entry's columns, borrowed until the iterator moves: a wide-column
    /// entity's, or a plain value as its one default column (see [`Columns`]). `None` past
    /// either end (or outside the range), and on a TTL database, whose iterator has none.
    ///
    /// The columns cannot outlive a move of the cursor:
    ///
    /// ```compile_fail
    /// # fn main() -> pinrocks::Result<()> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let db = pinrocks::Db::open(&pinrocks::Options::new(), dir.path())?;
    /// let mut it = db.reader().iter();
    /// it.seek_to_first();
    /// let columns = it.columns();
    /// it.next(); // the entry they borrow from is gone
    /// let _ = columns.map(|c| c.len());
    /// # Ok(()) }
    /// ```
    pub fn columns(&self) -> Option<Columns<'_>> {
        if self.kind == DbKind::Ttl {
            return None;
        }
        self.entry()?;
        // SAFETY: a valid iterator (`entry` is `Some`) whose `columns()` RocksDB implements
        // (a DB iterator, or the base-delta iterator of a transaction or indexed batch; not
        // a TTL database's, refused above).
        Some(Columns::new(unsafe { self.raw.columns() }))
    }

    /// The error that stopped the iterator, if any. An iterator that ran off its end
    /// because of an I/O error or corruption reports it here.
    pub fn status(&self) -> Result<()> {
        if let Some(refusal) = &self.refused {
            return Err(refusal.error());
        }
        self.raw.status().map_err(caught_in_seek)
    }
}

/// The message part of the status an iterator reports when RocksDB threw while it was made
/// or sought (`kIteratorException` in rocksdb-c/guarded.h; keep the two in step).
const ITERATOR_EXCEPTION: &str = "pinrocks: C++ exception in an iterator";

/// The kind of a C++ exception caught in a seek, which the iterator can only report as a
/// RocksDB status (`Status::MemoryLimit` for std::bad_alloc, else `Status::Aborted`):
/// [`ErrorKind::MemoryLimit`] or [`ErrorKind::NativeException`], as the calls that report a
/// code get.
fn caught_in_seek(error: Error) -> Error {
    match error {
        Error::RocksDb {
            kind: ErrorKind::Aborted,
            message,
        } if message.contains(ITERATOR_EXCEPTION) => {
            let kind = if message.starts_with("Operation aborted: Memory limit reached: ") {
                ErrorKind::MemoryLimit
            } else {
                ErrorKind::NativeException
            };
            Error::RocksDb { kind, message }
        }
        other => other,
    }
}

/// The smallest key greater than every key that starts with `prefix`, if there is one.
pub(crate) fn successor(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last < u8::MAX {
            end.push(last + 1);
            return Some(end);
        }
    }
    None
}

// The iterator (the first field) is destroyed before its own options and snapshots drop;
// this `Drop`, though it does nothing itself, makes the compiler hold the `'a` borrows
// (database, options, transaction or batch) until the cursor drops.
impl<S> Drop for Cursor<'_, S> {
    fn drop(&mut self) {}
}

#[cfg(test)]
mod tests {
    use super::{caught_in_seek, successor, Error, ErrorKind};

    #[test]
    fn successor_of_prefixes() {
        assert_eq!(successor(b"ab"), Some(b"ac".to_vec()));
        assert_eq!(successor(&[1, 0xFF]), Some(vec![2]));
        assert_eq!(successor(&[0xFF, 0xFF]), None);
        assert_eq!(successor(b""), None);
    }

    #[test]
    fn exceptions_caught_in_a_seek_keep_their_kind() {
        // `Status::ToString()` of what rocksdb-c/guarded_calls.cc leaves in the iterator.
        let kind_of = |message: &str| match caught_in_seek(Error::RocksDb {
            kind: ErrorKind::Aborted,
            message: message.to_owned(),
        }) {
            Error::RocksDb { kind, .. } => kind,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            kind_of("Operation aborted: Memory limit reached: pinrocks: C++ exception in an iterator: std::bad_alloc"),
            ErrorKind::MemoryLimit
        );
        assert_eq!(
            kind_of("Operation aborted: pinrocks: C++ exception in an iterator: boom"),
            ErrorKind::NativeException
        );
        assert_eq!(kind_of("Operation aborted: "), ErrorKind::Aborted);
    }
}

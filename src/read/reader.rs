//! The three read tiers, on any column family with any read options.
//!
//! | tier | method | allocations per read (Rust side) | copies |
//! |------|--------|-------------------------|--------|
//! | Vec | [`Reader::get`] | one `Vec` | one, out of the pinned value |
//! | buffer | [`Reader::get_into`] | none | one, into the caller's memory |
//! | pinned | [`Reader::get_pinned`] | none | none: the closure reads RocksDB's bytes |
//!
//! A [`Reader`] is a small `Copy` value naming where and how to read; the tiers are its
//! methods, so every combination of column family and options has the same three calls:
//!
//! ```
//! # fn main() -> pinrocks::Result<()> {
//! # let dir = tempfile::tempdir().unwrap();
//! # let mut opts = pinrocks::Options::new();
//! # opts.create_if_missing(true);
//! # let db = pinrocks::Db::open(&opts, dir.path())?;
//! let users = db.create_cf("users", &pinrocks::Options::new())?;
//! users.writer().put(b"ada", b"Lovelace")?;
//!
//! let mut no_cache = pinrocks::ReadOptions::new();
//! no_cache.fill_cache(false);
//! let len = users.reader().options(&no_cache).get_pinned(b"ada", |v| v.len())?;
//! assert_eq!(len, Some(8));
//! assert_eq!(db.get(b"ada")?, None); // the default column family has no "ada"
//! # Ok(()) }
//! ```
//!
//! Long because: the read methods every source shares are one generic `impl`, each tier
//! with its doctest; splitting it would split the one shape of reads.

use std::ops::Bound;

use bytes::{Bytes, BytesMut};

use std::sync::Arc;

use crate::callbacks::comparator::Comparator;
use crate::db::column_family::ColumnFamily;
use crate::db::database::Db;
use crate::db::handles::{CfHandle, DbInner, DbKind};
use crate::raw::error::Result;
use crate::raw::ffi;
use crate::raw::iterator::IteratorHandle;
use crate::raw::pinned;
use crate::raw::read_source::NativeSource;
use crate::raw::reentry;
use crate::read::cursor::{successor, Cursor};
use crate::read::entries::Entries;
use crate::read::key_range::KeyRange;
use crate::read::pinned_value::{PinOwner, PinnedValue};
use crate::read::read_options::ReadOptions;
use crate::read::refusal::Refusal;
use crate::read::source::{DbSource, Handles, ReadSource};

impl<'db> ColumnFamily<'db> {
    /// Reads from this column family with default read options.
    pub fn reader(&self) -> Reader<'_> {
        Reader::new(self.db, self.handle())
    }
}

/// What [`Reader::get_into`] did with the caller's buffer.
#[must_use = "the buffer holds the value only in the `Copied` case"]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CopyResult {
    /// The value was copied into the first `n` bytes of the buffer.
    Copied(usize),
    /// The value is `required` bytes, more than the buffer holds. Nothing was written.
    NotEnoughCapacity {
        /// The value's length: a buffer at least this long would have received it.
        required: usize,
    },
    /// The key is absent. Nothing was written.
    NotFound,
}

/// Where and how to read: a column family (default: the default one) and read options
/// (default: RocksDB's defaults), from the database ([`DbSource`], the default), through a
/// transaction ([`TransactionSource`](crate::read::TransactionSource)) or through an indexed batch
/// ([`BatchSource`](crate::read::BatchSource)); the same
/// read methods whatever the source. Get one from [`Db::reader`](crate::Db::reader),
/// [`ColumnFamily::reader`], [`Transaction::reader`](crate::Transaction::reader) or
/// [`IndexedBatch::reader`](crate::IndexedBatch::reader).
#[derive(Clone, Copy)]
pub struct Reader<'a, S = DbSource> {
    pub(super) db: &'a Arc<DbInner>,
    pub(super) cf: &'a Arc<CfHandle>,
    pub(super) options: &'a ReadOptions,
    /// What the reads go through besides the database, with its native object.
    pub(super) source: S,
}

impl<'a> Reader<'a, DbSource> {
    pub(crate) fn new(db: &'a Arc<DbInner>, cf: &'a Arc<CfHandle>) -> Self {
        Reader::with_source(db, cf, DbSource)
    }
}

impl<'a, S: ReadSource> Reader<'a, S> {
    /// Reads through `source` (its native object alive, and unchanged for a batch, for 'a)
    /// from `cf` with default read options.
    pub(crate) fn with_source(db: &'a Arc<DbInner>, cf: &'a Arc<CfHandle>, source: S) -> Self {
        Reader {
            db,
            cf,
            options: ReadOptions::defaults(),
            source,
        }
    }

    /// This read's native handles, each live while the reader is (it borrows their owners).
    pub(super) fn handles(&self) -> Handles {
        Handles {
            db: self.db.raw(),
            options: self.options.raw(),
            cf: self.cf.raw(),
        }
    }

    /// This read's source with its handles, as rocksdb-c/'s reads take it; its reads are
    /// live while the reader is.
    #[inline]
    pub(super) fn native(&self) -> NativeSource {
        self.source.native(self.handles())
    }

    /// Reads from `cf` instead.
    ///
    /// # Panics
    /// If `cf` belongs to another database.
    pub fn cf(self, cf: &'a ColumnFamily<'_>) -> Self {
        Reader {
            cf: cf.handle_for(self.db),
            ..self
        }
    }

    /// Reads with `options` instead of the defaults.
    ///
    /// # Panics
    /// If `options` hold a [`Snapshot`](crate::Snapshot) of another database: RocksDB would
    /// read this one as of an unrelated sequence number. If this reader goes through a
    /// transaction or an indexed batch and `options` set
    /// [`prefix_same_as_start`](ReadOptions::prefix_same_as_start): RocksDB would stop at
    /// the prefix's end in the database's keys only, not in the transaction's or batch's
    /// own (use [`prefix_iter`](Self::prefix_iter)).
    pub fn options(self, options: &'a ReadOptions) -> Self {
        if let Some(db_id) = options.snapshot_db_id() {
            assert!(
                db_id == self.db.id,
                "the read options hold a snapshot of another database"
            );
        }
        if !S::SAME_PREFIX_OPTION {
            assert!(
                !options.same_prefix_as_start(),
                "prefix_same_as_start applies to the database's keys only, not to a \
                 transaction's or batch's own writes: use prefix_iter"
            );
        }
        Reader { options, ..self }
    }

    /// The one-call pinned read of this reader's source.
    fn pinned<F, R>(&self, key: &[u8], f: F) -> Result<Option<R>>
    where
        F: FnOnce(&[u8]) -> R,
    {
        self.check_read("read")?;
        // SAFETY: the handles and the source's object are live for 'a (borrowed).
        unsafe { self.native().get_pinned(key, f) }
    }

    /// A pinned value handle from this reader's source.
    fn handle(&self, key: &[u8]) -> Result<Option<pinned::PinnableHandle>> {
        self.check_read("read")?;
        // SAFETY: the handles and the source's object are live for 'a (borrowed).
        unsafe { self.native().pin_handle(key) }
    }

    /// **Vec tier.** The value of `key` in a new `Vec`, or `None` if absent.
    ///
    /// One copy, straight out of the pinned value (not the two of the C API's
    /// `rocksdb_get`), and one allocation: the `Vec`.
    pub fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.get_pinned(key, <[u8]>::to_vec)
    }

    /// **Buffer tier.** Copies the value of `key` into `buf` with one native call
    /// (`pinrocks_get_into_buffer_cf`: the C API's `rocksdb_get_into_buffer_cf` inside a
    /// try/catch) and no allocation of ours.
    ///
    /// A buffer too small is left untouched, not even partly written: the result says how
    /// large it must be.
    ///
    /// ```
    /// # use pinrocks::CopyResult;
    /// # fn main() -> pinrocks::Result<()> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let mut opts = pinrocks::Options::new();
    /// # opts.create_if_missing(true);
    /// # let db = pinrocks::Db::open(&opts, dir.path())?;
    /// db.put(b"k", b"twelve bytes")?;
    /// let mut buf = [0u8; 8];
    /// match db.get_into(b"k", &mut buf)? {
    ///     CopyResult::Copied(n) => println!("{:?}", &buf[..n]),
    ///     CopyResult::NotEnoughCapacity { required } => assert_eq!(required, 12),
    ///     CopyResult::NotFound => unreachable!(),
    /// }
    /// assert_eq!(buf, [0u8; 8]);
    /// # Ok(()) }
    /// ```
    pub fn get_into(&self, key: &[u8], buf: &mut [u8]) -> Result<CopyResult> {
        // SAFETY: `buf` is valid for writes of `buf.len()` bytes for the call.
        unsafe { self.get_into_raw(key, buf.as_mut_ptr(), buf.len()) }
    }

    /// **Buffer tier, growing.** Replaces `buf`'s contents with the value of `key`,
    /// reserving more capacity when the value does not fit and retrying. Returns whether
    /// the key was found (`buf` is left empty if not).
    ///
    /// A `BytesMut` reused across reads stops allocating once it has grown to the largest
    /// value read.
    pub fn get_into_bytes(&self, key: &[u8], buf: &mut BytesMut) -> Result<bool> {
        buf.clear();
        loop {
            let spare = buf.spare_capacity_mut();
            // SAFETY: the spare capacity is valid for writes of its length; RocksDB writes
            // only initialized bytes, and only on `Copied`.
            let result = unsafe { self.get_into_raw(key, spare.as_mut_ptr().cast(), spare.len()) }?;
            match result {
                CopyResult::Copied(n) => {
                    // SAFETY: RocksDB has just initialized the first `n` spare bytes.
                    unsafe { buf.set_len(n) };
                    return Ok(true);
                }
                // The value may change between tries; each try asks for the size it saw.
                CopyResult::NotEnoughCapacity { required } => buf.reserve(required),
                CopyResult::NotFound => return Ok(false),
            }
        }
    }

    /// # Safety
    /// `buf` must be valid for writes of `capacity` bytes.
    unsafe fn get_into_raw(&self, key: &[u8], buf: *mut u8, capacity: usize) -> Result<CopyResult> {
        if !S::NATIVE_BUFFER_READ {
            // One copy out of the pinned value, as the C API's buffer read does.
            let copied = self.pinned(key, |value| {
                if value.len() <= capacity {
                    // SAFETY: `buf` is valid for `capacity >= value.len()` bytes (the
                    // caller's contract) and does not overlap RocksDB's value.
                    unsafe { std::ptr::copy_nonoverlapping(value.as_ptr(), buf, value.len()) };
                    CopyResult::Copied(value.len())
                } else {
                    CopyResult::NotEnoughCapacity {
                        required: value.len(),
                    }
                }
            })?;
            return Ok(copied.unwrap_or(CopyResult::NotFound));
        }
        // (The pinned read above checks for itself.)
        self.check_read("read")?;
        // SAFETY: live database, options and handle (borrowed for 'a); `buf` is valid for
        // `capacity` bytes (the caller's contract).
        let (found, fits, len) = unsafe { self.handles().get_into_buffer(key, buf, capacity) }?;
        Ok(match (found, fits) {
            (false, _) => CopyResult::NotFound,
            (true, true) => CopyResult::Copied(len),
            (true, false) => CopyResult::NotEnoughCapacity { required: len },
        })
    }

    /// **Pinned tier.** Calls `f` with the value of `key` where RocksDB holds it: in a
    /// block-cache block it pins, or (for a memtable hit) in RocksDB's own copy. Returns
    /// `f`'s result, or `None` if the key is absent (`f` is then not called).
    ///
    /// This is the one-call native path: the value is pinned on the C++ stack, with no heap
    /// allocation of ours. The pin is released when `f` returns, and also when it panics:
    /// the panic is caught before it reaches C++, the pin is released, then the panic
    /// continues in the caller.
    ///
    /// The slice cannot leave the closure: the pin would be gone.
    ///
    /// ```compile_fail
    /// # fn main() -> pinrocks::Result<()> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let db = pinrocks::Db::open(&pinrocks::Options::new(), dir.path())?;
    /// let escaped: Option<&[u8]> = db.get_pinned(b"k", |v| v)?;
    /// # Ok(()) }
    /// ```
    ///
    /// Nor can it be smuggled out through a captured variable:
    ///
    /// ```compile_fail
    /// # fn main() -> pinrocks::Result<()> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let db = pinrocks::Db::open(&pinrocks::Options::new(), dir.path())?;
    /// let mut outside: &[u8] = &[];
    /// db.get_pinned(b"k", |v| outside = v)?;
    /// # Ok(()) }
    /// ```
    #[doc(alias = "PinnableSlice")]
    #[doc(alias = "GetPinned")]
    pub fn get_pinned<R>(&self, key: &[u8], f: impl FnOnce(&[u8]) -> R) -> Result<Option<R>> {
        self.pinned(key, f)
    }

    /// **Pinned guard.** The value of `key`, pinned until the returned guard drops. It
    /// derefs to `[u8]` and borrows the column family (and so the database). One
    /// heap-allocated handle per read (`pinrocks_read_handle`: a `rocksdb_pinnableslice_t`
    /// that holds the pin); the closure form,
    /// [`get_pinned`](Self::get_pinned), needs none.
    ///
    /// ```
    /// # fn main() -> pinrocks::Result<()> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let mut opts = pinrocks::Options::new();
    /// # opts.create_if_missing(true);
    /// # let db = pinrocks::Db::open(&opts, dir.path())?;
    /// db.put(b"config", b"{\"threads\": 4}")?;
    /// let reader = db.reader();
    /// let config = reader.pin(b"config")?.expect("present");
    /// assert!(config.starts_with(b"{")); // derefs to [u8]: no copy
    /// # Ok(()) }
    /// ```
    ///
    /// A long-lived pin holds what backs it: a block of the block cache (which cannot be
    /// evicted meanwhile) or RocksDB's copy of a memtable value.
    pub fn pin(&self, key: &[u8]) -> Result<Option<PinnedValue<'a>>> {
        Ok(self.handle(key)?.map(PinnedValue::new))
    }

    /// **Owned, zero-copy.** The value of `key` as [`Bytes`] whose owner is the pin itself:
    /// no copy of the value, cheap to clone, `Send + Sync`. The pin is released when the
    /// last clone drops. Until then the value holds all that its bytes live in: its
    /// block-cache block (or memtable copy), its column family (whose table factory owns
    /// the block cache), even after [`Db::drop_cf`](crate::Db::drop_cf), and the database,
    /// open with its files and lock even after its `Db` is dropped.
    ///
    /// ```
    /// # fn main() -> pinrocks::Result<()> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let mut opts = pinrocks::Options::new();
    /// # opts.create_if_missing(true);
    /// let db = pinrocks::Db::open(&opts, dir.path())?;
    /// db.put(b"page", b"<html>...</html>")?;
    /// let page: bytes::Bytes = db.reader().get_bytes(b"page")?.expect("present");
    /// drop(db); // the value keeps the database open
    /// let sent = std::thread::spawn(move || page.len()).join().unwrap();
    /// assert_eq!(sent, 16);
    /// # Ok(()) }
    /// ```
    pub fn get_bytes(&self, key: &[u8]) -> Result<Option<Bytes>> {
        Ok(self.handle(key)?.map(|handle| {
            Bytes::from_owner(PinOwner::new(
                handle,
                Arc::clone(self.cf),
                Arc::clone(self.db),
            ))
        }))
    }

    /// **Batched pinned reads.** One `DB::MultiGet` for all `keys` (of this reader's column
    /// family), then `f(index, value)` for each key in order while every value of the
    /// batch is pinned: `None` for an absent key. No allocation of ours for batches of up
    /// to 32 keys (RocksDB's own batch size), one per batch beyond; RocksDB can batch the
    /// lookups of keys that share blocks and files.
    ///
    /// A panic in `f` stops the batch, releases every pin, and continues in the caller.
    /// Each key's `as_ref` is called once.
    ///
    /// ```
    /// # fn main() -> pinrocks::Result<()> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let mut opts = pinrocks::Options::new();
    /// # opts.create_if_missing(true);
    /// # let db = pinrocks::Db::open(&opts, dir.path())?;
    /// db.put(b"a", b"1")?;
    /// db.put(b"c", b"333")?;
    /// let mut lens = [None; 3];
    /// db.reader().multi_get_pinned(&[b"a", b"b", b"c"], |i, v| lens[i] = v.map(<[u8]>::len))?;
    /// assert_eq!(lens, [Some(1), None, Some(3)]);
    /// # Ok(()) }
    /// ```
    ///
    /// ```compile_fail
    /// # fn main() -> pinrocks::Result<()> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let db = pinrocks::Db::open(&pinrocks::Options::new(), dir.path())?;
    /// let mut kept: Vec<&[u8]> = Vec::new();
    /// db.reader().multi_get_pinned(&[b"a", b"b"], |_, v| kept.extend(v))?;
    /// # Ok(()) }
    /// ```
    #[doc(alias = "MultiGet")]
    pub fn multi_get_pinned<K: AsRef<[u8]>>(
        &self,
        keys: &[K],
        f: impl FnMut(usize, Option<&[u8]>),
    ) -> Result<()> {
        self.check_read("multi_get")?;
        // SAFETY: the handles and the source's object are live for 'a (borrowed).
        unsafe { self.native().multi_get(keys, f) }
    }

    /// **Iteration.** A [`Cursor`] over this reader's column family, not yet
    /// positioned: call a `seek` first. Bounds come from the reader's read options.
    ///
    /// A cursor also reads a large value still in the memtable without the copy a pinned
    /// read makes there (its entry points into the memtable itself; measured 0.57 µs
    /// against 84 µs at 1 MiB, `docs/benchmarks.md`):
    ///
    /// ```
    /// # fn main() -> pinrocks::Result<()> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let mut opts = pinrocks::Options::new();
    /// # opts.create_if_missing(true);
    /// # let db = pinrocks::Db::open(&opts, dir.path())?;
    /// db.put(b"big", &vec![7u8; 1 << 20])?; // in the memtable
    /// let mut cursor = db.reader().iter();
    /// cursor.seek(b"big");
    /// let sum = match cursor.entry() {
    ///     Some((key, value)) if key == b"big" => value.iter().map(|&b| b as u64).sum(),
    ///     _ => 0,
    /// };
    /// assert_eq!(sum, 7 << 20);
    /// # Ok(()) }
    /// ```
    pub fn iter(&self) -> Cursor<'a, S> {
        self.new_iter(&..)
    }

    /// **Range iteration.** A [`Cursor`] that sees only the keys in `range` (bytewise:
    /// `b"a"..b"c"`, `start..=end`, `b"m"..`, `..`), positioned at the first of them.
    /// `seek_to_last` goes to the last; keys outside read as the end, both ways.
    ///
    /// ```
    /// # fn main() -> pinrocks::Result<()> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let mut opts = pinrocks::Options::new();
    /// # opts.create_if_missing(true);
    /// # let db = pinrocks::Db::open(&opts, dir.path())?;
    /// for k in [b"a", b"b", b"c", b"d"] { db.put(k, b"")?; }
    /// let mut it = db.reader().range(b"b"..b"d");
    /// assert_eq!(it.key(), Some(&b"b"[..]));
    /// it.seek_to_last();
    /// assert_eq!(it.key(), Some(&b"c"[..]));
    /// it.next();
    /// assert_eq!(it.key(), None); // "d" is outside
    /// # Ok(()) }
    /// ```
    pub fn range(&self, range: impl KeyRange) -> Cursor<'a, S> {
        let mut it = self.new_iter(&range);
        it.seek_to_first();
        it
    }

    /// **Prefix iteration.** [`range`](Self::range) over the keys that start with
    /// `prefix`: positioned at the first, ending (both ways) at the last.
    ///
    /// The iterator reads with its own copy of the reader's options, bounded by RocksDB at
    /// the prefix's end: RocksDB stops there, and with a
    /// [`PrefixExtractor`](crate::options::PrefixExtractor) of the prefix's length (and pinrocks'
    /// default `auto_prefix_mode`) it uses prefix filters to skip files without the prefix.
    /// In a column family with a [`Comparator`](crate::callbacks::Comparator), the range is that
    /// between `prefix` and its bytewise successor in the family's order (both ways round,
    /// so reverse bytewise order works): right for any order that keeps the keys of a
    /// prefix together.
    pub fn prefix_iter(&self, prefix: &[u8]) -> Cursor<'a, S> {
        let end = successor(prefix);
        // In an order where the successor sorts first (reverse bytewise), the keys with the
        // prefix lie after it, up to the prefix itself.
        let reversed = match (&self.cf.order, &end) {
            (Some(order), Some(end)) => order.compare(end, prefix).is_lt(),
            _ => false,
        };
        let range: (Bound<&[u8]>, Bound<&[u8]>) = match &end {
            Some(end) if reversed => (Bound::Excluded(end), Bound::Included(prefix)),
            Some(end) => (Bound::Included(prefix), Bound::Excluded(end)),
            None => (Bound::Included(prefix), Bound::Unbounded),
        };
        let bytewise = self.cf.order.is_none();
        let own = Box::new(
            self.options
                .copy_with_upper_bound(end.as_deref().filter(|_| bytewise)),
        );
        let mut it = self.cursor(&range, self.cf.order.as_ref(), Some(own));
        it.seek_to_first();
        it
    }

    /// **Scan.** A std [`Iterator`] over `f(key, value)` for the keys in `range`, in order:
    /// `f` reads the bytes in place and returns what to keep. A scan that stops on an error
    /// (an I/O error, corruption) ends with that error as its last item, so it cannot pass
    /// for the end of the data.
    ///
    /// ```
    /// # fn main() -> pinrocks::Result<()> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let mut opts = pinrocks::Options::new();
    /// # opts.create_if_missing(true);
    /// # let db = pinrocks::Db::open(&opts, dir.path())?;
    /// for (k, v) in [("a", "1"), ("b", "22"), ("c", "333")] { db.put(k.as_bytes(), v.as_bytes())?; }
    /// let total: usize = db
    ///     .reader()
    ///     .scan(b"a"..=b"b", |_, value| value.len())
    ///     .sum::<pinrocks::Result<usize>>()?;
    /// assert_eq!(total, 3);
    /// let owned: Vec<(Vec<u8>, Vec<u8>)> = db
    ///     .reader()
    ///     .scan_rev(.., |k, v| (k.to_vec(), v.to_vec()))
    ///     .collect::<pinrocks::Result<_>>()?;
    /// assert_eq!(owned[0], (b"c".to_vec(), b"333".to_vec()));
    /// # Ok(()) }
    /// ```
    pub fn scan<T, F: FnMut(&[u8], &[u8]) -> T>(
        &self,
        range: impl KeyRange,
        f: F,
    ) -> Entries<'a, F, S> {
        self.range(range).forward(f)
    }

    /// **Scan, backward.** Like [`scan`](Self::scan), from the last key in `range` to the
    /// first.
    pub fn scan_rev<T, F: FnMut(&[u8], &[u8]) -> T>(
        &self,
        range: impl KeyRange,
        f: F,
    ) -> Entries<'a, F, S> {
        let mut it = self.new_iter(&range);
        it.seek_to_last();
        it.backward(f)
    }

    /// What a cursor knows of its database: its id, and how it was opened.
    fn db_of_cursor(&self) -> (u64, DbKind) {
        (self.db.id, self.db.kind)
    }

    fn new_iter(&self, range: &dyn KeyRange) -> Cursor<'a, S> {
        self.cursor(range, self.cf.order.as_ref(), None)
    }

    /// A cursor over `range` in `order`, reading with `own` options (boxed into the cursor,
    /// which destroys its RocksDB iterator before them), or else the reader's.
    pub(super) fn cursor<'o>(
        &self,
        range: &dyn KeyRange,
        order: Option<&'o Comparator>,
        own: Option<Box<ReadOptions>>,
    ) -> Cursor<'o, S> {
        let (raw, refused) = self.raw_iter(own.as_deref().unwrap_or(self.options));
        Cursor::new(raw, self.db_of_cursor(), range, order, own)
            .with_timestamps(self.reads_history(), refused)
    }

    /// A RocksDB iterator over this reader's source: the database, or the transaction's
    /// writes or the batch's entries merged over it (or the batch's alone). One that is
    /// never valid, and why, if the read's timestamps do not fit the family.
    fn raw_iter(&self, options: &ReadOptions) -> (IteratorHandle, Option<Refusal>) {
        // An iterator cannot return an error until it is used; inside a merge operator or
        // comparator this panics, which the callback's own catch turns into its failure.
        if let Err(e) = reentry::refuse_read_inside("an iterator") {
            panic!("{e}");
        }
        if let Err(refusal) = self.check_timestamp() {
            let raw = IteratorHandle::empty().unwrap_or_else(|e| {
                panic!("pinrocks: out of memory even for an empty iterator: {e}")
            });
            return (raw, Some(refusal));
        }
        let at = Handles {
            options: options.raw(),
            ..self.handles()
        };
        // SAFETY: live db, transaction or batch, options and handle, borrowed for 'a like
        // the iterator (a prefix iterator boxes its own options into itself); a batch stays
        // unchanged while borrowed. Every creation is guarded: a C++ exception gives an
        // iterator that reports it from `status` (rocksdb-c/guarded.h), so a cursor's errors
        // come from one place; NULL and an error only when even that could not be made.
        let raw = unsafe { self.source.native(at).iterator() }
            .unwrap_or_else(|e| panic!("pinrocks: out of memory even for an error iterator: {e}"));
        (raw, None)
    }
}

impl Db {
    /// The raw `rocksdb_t` and RocksDB's default read options, for calling the C API in
    /// [`ffi`](crate::raw::ffi) directly where pinrocks has no wrapper (the sweep's raw floor
    /// does). Both stay valid while `self` lives. Do not close, destroy or change them, and
    /// do not write through a database opened read-only or to a dropped column family:
    /// those are refused by pinrocks, not by RocksDB.
    pub fn as_raw(&self) -> (*mut ffi::rocksdb_t, *const ffi::rocksdb_readoptions_t) {
        (self.inner().raw(), ReadOptions::defaults().raw())
    }

    /// Reads from the default column family with default read options; change either
    /// with [`Reader::cf`] and [`Reader::options`].
    pub fn reader(&self) -> Reader<'_> {
        Reader::new(self.inner(), &self.inner().default_cf)
    }

    /// The value of `key` in the default column family, copied into a new `Vec`.
    /// See [`Reader::get`].
    pub fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.reader().get(key)
    }

    /// Copies the value of `key` into `buf`. See [`Reader::get_into`].
    pub fn get_into(&self, key: &[u8], buf: &mut [u8]) -> Result<CopyResult> {
        self.reader().get_into(key, buf)
    }

    /// Calls `f` with the value of `key` where RocksDB holds it. See [`Reader::get_pinned`].
    pub fn get_pinned<R>(&self, key: &[u8], f: impl FnOnce(&[u8]) -> R) -> Result<Option<R>> {
        self.reader().get_pinned(key, f)
    }
}

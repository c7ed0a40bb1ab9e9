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

use std::ops::Bound;

use bytes::{Bytes, BytesMut};

use std::marker::PhantomData;
use std::ptr::NonNull;
use std::sync::Arc;

use crate::column_family::ColumnFamily;
use crate::error::{ErrPtr, Result};
use crate::ffi;
use crate::handles::{CfHandle, DbInner};
use crate::iter::{successor, DbIterator, Entries, KeyRange};
use crate::options::ReadOptions;
use crate::pinned;
use crate::pinned_value::{PinOwner, PinnedValue};
use crate::reentry;
use crate::source::{FromBatch, FromDb, FromTransaction};

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
/// (default: RocksDB's defaults), from the database ([`FromDb`], the default), through a
/// transaction ([`FromTransaction`]) or through an indexed batch ([`FromBatch`]); the same
/// read methods whatever the source. Get one from [`Db::reader`](crate::Db::reader),
/// [`ColumnFamily::reader`], [`Transaction::reader`](crate::Transaction::reader) or
/// [`IndexedBatch::reader`](crate::IndexedBatch::reader).
#[derive(Clone, Copy)]
pub struct Reader<'a, S = FromDb> {
    db: &'a Arc<DbInner>,
    cf: &'a Arc<CfHandle>,
    options: &'a ReadOptions,
    /// What the reads go through besides the database.
    source: Source,
    _source: PhantomData<S>,
}

/// The native object a reader reads through, borrowed for the reader's lifetime.
#[derive(Clone, Copy)]
enum Source {
    /// The database alone (`FromDb`).
    Db,
    /// A transaction, and how (`PINROCKS_READ_*`) (`FromTransaction`).
    Transaction(NonNull<ffi::rocksdb_transaction_t>, i32),
    /// An indexed batch, over the database or alone (`FromBatch`).
    Batch {
        batch: NonNull<ffi::rocksdb_writebatch_wi_t>,
        batch_only: bool,
    },
}

// SAFETY: a `FromDb` reader's source is `Source::Db` (the others are set only by
// `for_transaction` and `for_batch`, which make `FromTransaction` and `FromBatch` readers);
// what is left are shared references to `Send + Sync` owners (the database, its handles,
// read options).
unsafe impl Send for Reader<'_, FromDb> {}
// SAFETY: see `Send`.
unsafe impl Sync for Reader<'_, FromDb> {}

impl<'a> Reader<'a, FromDb> {
    pub(crate) fn new(db: &'a Arc<DbInner>, cf: &'a Arc<CfHandle>) -> Self {
        Reader {
            db,
            cf,
            options: ReadOptions::defaults(),
            source: Source::Db,
            _source: PhantomData,
        }
    }
}

impl<'a> Reader<'a, FromTransaction<'a>> {
    /// Reads through `txn` (alive for 'a), with `mode` one of `PINROCKS_READ_*`.
    pub(crate) fn for_transaction(
        db: &'a Arc<DbInner>,
        cf: &'a Arc<CfHandle>,
        txn: NonNull<ffi::rocksdb_transaction_t>,
        mode: i32,
    ) -> Self {
        Reader {
            db,
            cf,
            options: ReadOptions::defaults(),
            source: Source::Transaction(txn, mode),
            _source: PhantomData,
        }
    }
}

impl<'a> Reader<'a, FromBatch<'a>> {
    /// Reads through `batch` (alive and unchanged for 'a), over the database or alone.
    pub(crate) fn for_batch(
        db: &'a Arc<DbInner>,
        cf: &'a Arc<CfHandle>,
        batch: NonNull<ffi::rocksdb_writebatch_wi_t>,
        batch_only: bool,
    ) -> Self {
        Reader {
            db,
            cf,
            options: ReadOptions::defaults(),
            source: Source::Batch { batch, batch_only },
            _source: PhantomData,
        }
    }
}

impl<'a, S: Copy> Reader<'a, S> {
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
        if !matches!(self.source, Source::Db) {
            // SAFETY: live options; the getter only reads them (its pointer is not const in
            // the C header alone).
            let same_prefix = unsafe {
                ffi::rocksdb_readoptions_get_prefix_same_as_start(options.raw().cast_mut())
            };
            assert!(
                same_prefix == 0,
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
        reentry::refuse_read_inside("read")?;
        let (db, options, cf) = (self.db.raw(), self.options.raw(), self.cf.raw());
        match self.source {
            Source::Db => pinned::get_pinned_native(db, options, cf, key, f),
            Source::Batch { batch, batch_only } => pinned::get_pinned_with(
                &|key, len, callback, ctx, code, err| {
                    // SAFETY: live batch (borrowed, unchanged, for 'a), database, options
                    // and handle; the key and the callback's context are live for the call.
                    unsafe {
                        ffi::pinrocks_wbwi_get_pinned(
                            db,
                            batch.as_ptr(),
                            options,
                            cf,
                            key,
                            len,
                            u8::from(batch_only),
                            callback,
                            ctx,
                            code,
                            err,
                        )
                    }
                },
                key,
                f,
            ),
            Source::Transaction(txn, mode) => pinned::get_pinned_with(
                &|key, len, callback, ctx, code, err| {
                    // SAFETY: live transaction (borrowed for 'a), options and handle; the key
                    // and the callback's context are live for the call.
                    unsafe {
                        ffi::pinrocks_transaction_get_pinned(
                            db,
                            txn.as_ptr(),
                            options,
                            cf,
                            key,
                            len,
                            mode,
                            callback,
                            ctx,
                            code,
                            err,
                        )
                    }
                },
                key,
                f,
            ),
        }
    }

    /// A pinned value handle from this reader's source.
    fn handle(&self, key: &[u8]) -> Result<Option<pinned::PinnableHandle>> {
        reentry::refuse_read_inside("read")?;
        let (db, options, cf) = (self.db.raw(), self.options.raw(), self.cf.raw());
        match self.source {
            Source::Db => pinned::get_pinned_handle(db, options, cf, key),
            Source::Transaction(txn, mode) => {
                pinned::get_pinned_transaction_handle(txn, options, cf, key, mode)
            }
            Source::Batch { batch, batch_only } => {
                pinned::get_pinned_batch_handle(db, batch, options, cf, key, batch_only)
            }
        }
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
        if !matches!(self.source, Source::Db) {
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
        reentry::refuse_read_inside("read")?;
        let mut len = 0usize;
        let mut found = 0u8;
        let mut code = 0;
        let mut err = ErrPtr::new();
        // SAFETY: live database, options and handle (borrowed for 'a); `key` is borrowed for
        // the call; `buf` is valid for `capacity` bytes (the caller's contract), and
        // `pinrocks_get_into_buffer_cf` writes it only when the whole value fits. No C++
        // exception leaves the call.
        let fits = unsafe {
            ffi::pinrocks_get_into_buffer_cf(
                self.db.raw(),
                self.options.raw(),
                self.cf.raw(),
                key.as_ptr().cast(),
                key.len(),
                buf.cast(),
                capacity,
                &mut len,
                &mut found,
                &mut code,
                err.as_out(),
            )
        };
        err.check_with_code(Some(code))?;
        Ok(match (found != 0, fits != 0) {
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
    pub fn get_pinned<R>(&self, key: &[u8], f: impl FnOnce(&[u8]) -> R) -> Result<Option<R>> {
        self.pinned(key, f)
    }

    /// **Pinned guard.** The value of `key`, pinned until the returned guard drops. It
    /// derefs to `[u8]` and borrows the column family (and so the database). One
    /// heap-allocated C API handle per read (`pinrocks_get_pinned_cf_v2`: the C API's
    /// `rocksdb_get_pinned_cf_v2` inside a try/catch); the closure form,
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
    pub fn multi_get_pinned<K: AsRef<[u8]>>(
        &self,
        keys: &[K],
        f: impl FnMut(usize, Option<&[u8]>),
    ) -> Result<()> {
        reentry::refuse_read_inside("multi_get")?;
        let (db, options, cf) = (self.db.raw(), self.options.raw(), self.cf.raw());
        match self.source {
            Source::Db => pinned::multi_get_pinned(db, options, cf, keys, f),
            Source::Batch { batch, batch_only } => pinned::multi_get_with(
                &|n, keys, callback, ctx, code, err| {
                    // SAFETY: live batch (borrowed, unchanged), database, options and
                    // handle; keys and context live for the call.
                    unsafe {
                        ffi::pinrocks_wbwi_multi_get_pinned(
                            db,
                            batch.as_ptr(),
                            options,
                            cf,
                            u8::from(batch_only),
                            n,
                            keys,
                            callback,
                            ctx,
                            code,
                            err,
                        )
                    }
                },
                keys,
                f,
            ),
            Source::Transaction(txn, mode) => pinned::multi_get_with(
                &|n, keys, callback, ctx, code, err| {
                    // SAFETY: live transaction, options and handle; keys and context live
                    // for the call.
                    unsafe {
                        ffi::pinrocks_transaction_multi_get_pinned(
                            txn.as_ptr(),
                            options,
                            cf,
                            n,
                            keys,
                            mode,
                            callback,
                            ctx,
                            code,
                            err,
                        )
                    }
                },
                keys,
                f,
            ),
        }
    }

    /// **Iteration.** A [`DbIterator`] over this reader's column family, not yet
    /// positioned: call a `seek` first. Bounds come from the reader's read options.
    pub fn iter(&self) -> DbIterator<'a, S> {
        self.new_iter(&..)
    }

    /// **Range iteration.** A [`DbIterator`] that sees only the keys in `range` (bytewise:
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
    pub fn range(&self, range: impl KeyRange) -> DbIterator<'a, S> {
        let mut it = self.new_iter(&range);
        it.seek_to_first();
        it
    }

    /// **Prefix iteration.** [`range`](Self::range) over the keys that start with
    /// `prefix`: positioned at the first, ending (both ways) at the last.
    ///
    /// The iterator reads with its own copy of the reader's options, bounded by RocksDB at
    /// the prefix's end: RocksDB stops there, and with a
    /// [`PrefixExtractor`](crate::PrefixExtractor) of the prefix's length (and pinrocks'
    /// default `auto_prefix_mode`) it uses prefix filters to skip files without the prefix.
    /// In a column family with a [`Comparator`](crate::Comparator), the range is that
    /// between `prefix` and its bytewise successor in the family's order (both ways round,
    /// so reverse bytewise order works): right for any order that keeps the keys of a
    /// prefix together.
    pub fn prefix_iter(&self, prefix: &[u8]) -> DbIterator<'a, S> {
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
        // The options are boxed into the iterator, which destroys its RocksDB iterator
        // before them.
        let raw = self.raw_iter(&own);
        let mut it = DbIterator::new(raw, &range, self.cf.order.as_ref(), Some(own));
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

    fn new_iter(&self, range: &dyn KeyRange) -> DbIterator<'a, S> {
        let raw = self.raw_iter(self.options);
        DbIterator::new(raw, range, self.cf.order.as_ref(), None)
    }

    /// A RocksDB iterator over this reader's source: the database, or the transaction's
    /// writes or the batch's entries merged over it (or the batch's alone).
    fn raw_iter(&self, options: &ReadOptions) -> *mut ffi::rocksdb_iterator_t {
        // An iterator cannot return an error until it is used; inside a merge operator or
        // comparator this panics, which the callback's own catch turns into its failure.
        if let Err(e) = reentry::refuse_read_inside("an iterator") {
            panic!("{e}");
        }
        let (mut code, mut err) = (0, ErrPtr::new());
        // SAFETY: live db, transaction or batch, options and handle, borrowed for 'a like
        // the iterator (a prefix iterator boxes its own options into itself); a batch stays
        // unchanged while borrowed. Every creation is guarded: NULL and an error on a caught
        // failure, which panics below (an iterator has no error to return until it is used).
        let raw = unsafe {
            match self.source {
                Source::Db => ffi::pinrocks_guarded_create_iterator_cf(
                    &mut code,
                    self.db.raw(),
                    options.raw(),
                    self.cf.raw(),
                    err.as_out(),
                ),
                Source::Transaction(txn, _) => {
                    ffi::pinrocks_guarded_transaction_create_iterator_cf(
                        &mut code,
                        txn.as_ptr(),
                        options.raw(),
                        self.cf.raw(),
                        err.as_out(),
                    )
                }
                Source::Batch { batch, batch_only } => ffi::pinrocks_wbwi_iterator(
                    self.db.raw(),
                    batch.as_ptr(),
                    options.raw(),
                    self.cf.raw(),
                    u8::from(batch_only),
                    &mut code,
                    err.as_out(),
                ),
            }
        };
        if let Err(e) = err.check_with_code(Some(code)) {
            panic!("pinrocks: could not create an iterator: {e}");
        }
        raw
    }
}

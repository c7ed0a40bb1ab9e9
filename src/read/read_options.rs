//! Read options: one raw handle each, kept alive with what RocksDB keeps pointers to (the
//! iterate bounds, the snapshot).

use std::sync::OnceLock;

use crate::db::snapshot::Snapshot;
use crate::options::rate_limiter::IoPriority;
use crate::raw::ffi;
use crate::raw::read_options::{ReadOptionsHandle, ReadOptionsPtr};
use crate::raw::setter::setter;

/// Options for reads (`rocksdb_readoptions_t`): pass one to [`Reader::options`] to use it.
///
/// ```
/// # fn main() -> pinrocks::Result<()> {
/// # let dir = tempfile::tempdir().unwrap();
/// # let mut opts = pinrocks::Options::new();
/// # opts.create_if_missing(true);
/// # let db = pinrocks::Db::open(&opts, dir.path())?;
/// for k in [b"a", b"b", b"c"] { db.put(k, k)?; }
/// let mut one_off = pinrocks::ReadOptions::new();
/// one_off.fill_cache(false).iterate_upper_bound(b"c"); // a scan that should not evict
/// let keys = db.reader().options(&one_off).scan(.., |k, _| k.to_vec()).count();
/// assert_eq!(keys, 2);
/// # Ok(()) }
/// ```
///
/// The iterate bounds, the snapshot and the timestamps are kept alive by the options
/// themselves: RocksDB stores pointers to them, not copies.
///
/// [`Reader::options`]: crate::Reader::options
pub struct ReadOptions {
    pub(crate) raw: ReadOptionsHandle,
    lower_bound: Option<Box<[u8]>>,
    upper_bound: Option<Box<[u8]>>,
    snapshot: Option<Snapshot>,
    /// The database of a snapshot these options borrow (a transaction's), which its owner
    /// keeps alive.
    borrowed_snapshot_db: Option<u64>,
    /// The timestamp to read as of and the first of a history, little-endian (RocksDB
    /// keeps pointers to them, like the bounds; see `read::timestamps`).
    pub(super) timestamp: Option<Box<[u8; 8]>>,
    pub(super) iter_start_ts: Option<Box<[u8; 8]>>,
}

// SAFETY: `rocksdb_readoptions_t` is a plain C++ value. `DB::Get`, `MultiGet` and
// `NewIterator` take its `ReadOptions` by const reference and copy it before changing
// anything (`io_activity`, in `DBImpl::GetImpl`/`NewIterator`); an iterator keeps pointers
// to the bound slices inside it, which the iterator's borrow of `&ReadOptions` keeps
// unchanged. The bounds are immutable boxes and the snapshot is itself `Send + Sync`.
unsafe impl Send for ReadOptions {}
// SAFETY: see `Send`.
unsafe impl Sync for ReadOptions {}

impl ReadOptions {
    /// RocksDB's defaults (fill the block cache, verify checksums, no snapshot), but with
    /// `auto_prefix_mode` on: iterators read in total order, and RocksDB uses prefix
    /// filters only where that gives the same result (RocksDB's own default reads a
    /// column family with a prefix extractor in prefix mode, where a seek may skip files
    /// that hold keys of the range).
    pub fn new() -> Self {
        let mut options = ReadOptions {
            raw: ReadOptionsHandle::new(),
            lower_bound: None,
            upper_bound: None,
            snapshot: None,
            borrowed_snapshot_db: None,
            timestamp: None,
            iter_start_ts: None,
        };
        options.auto_prefix_mode(true);
        options
    }

    setter!(
        /// Whether blocks read by this read are added to the block cache.
        fill_cache(bool) => rocksdb_readoptions_set_fill_cache as u8
    );
    setter!(
        /// Verify block checksums on every read from an SST file.
        verify_checksums(bool) => rocksdb_readoptions_set_verify_checksums as u8
    );
    setter!(
        /// Keep iterator key and value blocks pinned for the iterator's life.
        pin_data(bool) => rocksdb_readoptions_set_pin_data as u8
    );
    setter!(
        /// Iterate only over keys with the seek key's prefix (the column family's prefix
        /// extractor's), using prefix bloom filters to skip files.
        prefix_same_as_start(bool) => rocksdb_readoptions_set_prefix_same_as_start as u8
    );
    setter!(
        /// Seek in total key order even with a prefix extractor (ignore prefix filters).
        total_order_seek(bool) => rocksdb_readoptions_set_total_order_seek as u8
    );
    setter!(
        /// Read in total order, using prefix filters only where the seek key and the upper
        /// bound make that safe (on by default in pinrocks; see [`new`](Self::new)).
        auto_prefix_mode(bool) => rocksdb_readoptions_set_auto_prefix_mode as u8
    );

    /// `rate_limiter_priority`: charge this read's file reads to the database's
    /// [`RateLimiter`](crate::options::RateLimiter) at `priority`, when its mode covers
    /// reads ([`ReadsOnly`](crate::options::RateLimiterMode::ReadsOnly) or
    /// [`AllIo`](crate::options::RateLimiterMode::AllIo)).
    /// [`IoPriority::Total`] (the default) does not charge them.
    pub fn rate_limiter_priority(&mut self, priority: IoPriority) -> &mut Self {
        // Every IoPriority is an Env::IOPriority (0 to 4).
        self.raw.set_rate_limiter_priority(priority as i32);
        self
    }

    setter!(
        /// `value_size_soft_limit`: a multi-get whose values pass this many bytes stops
        /// reading (RocksDB aborts the keys after) and fails with
        /// [`ErrorKind::Aborted`](crate::ErrorKind::Aborted). Default `u64::MAX`.
        value_size_soft_limit(u64) => rocksdb_readoptions_set_value_size_soft_limit
    );
    setter!(
        /// `optimize_multiget_for_io`: a multi-get reads the levels of an SST file's keys
        /// together, with fewer I/O rounds (on by default; for async I/O).
        optimize_multiget_for_io(bool) => rocksdb_readoptions_set_optimize_multiget_for_io as u8
    );
    setter!(
        /// `adaptive_readahead`: an iterator's readahead carries its size across files
        /// rather than starting small in each (off by default).
        adaptive_readahead(bool) => rocksdb_readoptions_set_adaptive_readahead as u8
    );
    setter!(
        /// `auto_readahead_size`: with an upper bound, an iterator's readahead stops at the
        /// bound instead of reading blocks past it (on by default).
        auto_readahead_size(bool) => rocksdb_readoptions_set_auto_readahead_size as u8
    );
    setter!(
        /// `background_purge_on_iterator_cleanup`: files an iterator kept alive are deleted
        /// by a background job when it drops, not on the dropping thread (off by default).
        background_purge_on_iterator_cleanup(bool) =>
            rocksdb_readoptions_set_background_purge_on_iterator_cleanup as u8
    );

    /// Read as of `snapshot`. The options hold the snapshot (and so its database) alive.
    /// Use them only with the snapshot's own database: [`Reader::options`] panics on
    /// another one (RocksDB would read it as of an unrelated sequence number).
    ///
    /// [`Reader::options`]: crate::Reader::options
    pub fn snapshot(&mut self, snapshot: &Snapshot) -> &mut Self {
        // SAFETY: the snapshot pointer stays valid while `self.snapshot` holds it.
        unsafe { self.raw.set_snapshot(snapshot.raw()) };
        self.snapshot = Some(snapshot.clone());
        self
    }

    /// Iterators stop before keys `>= bound` (exclusive).
    pub fn iterate_upper_bound(&mut self, bound: &[u8]) -> &mut Self {
        let bound: Box<[u8]> = bound.into();
        // SAFETY: RocksDB keeps a pointer into `bound`; the box lives in `self` until it is
        // replaced here or `self` drops, and its heap storage does not move.
        unsafe { self.raw.set_iterate_upper_bound(&bound) };
        self.upper_bound = Some(bound);
        self
    }

    /// Iterators start at keys `>= bound` (inclusive).
    pub fn iterate_lower_bound(&mut self, bound: &[u8]) -> &mut Self {
        let bound: Box<[u8]> = bound.into();
        // SAFETY: as for `iterate_upper_bound`.
        unsafe { self.raw.set_iterate_lower_bound(&bound) };
        self.lower_bound = Some(bound);
        self
    }

    /// The raw `rocksdb_readoptions_t`, for the C API in [`ffi`](crate::ffi) where pinrocks
    /// has no setter. Valid while `self` lives; change it only while nothing reads with
    /// these options. Do not destroy it, and do not set iterate bounds, a snapshot or a
    /// timestamp through it: RocksDB keeps pointers to those, which pinrocks keeps alive
    /// only when it set them. A request id, table filter or table index factory set here
    /// (each kept in this handle) is left out of the copy a bounded cursor reads with.
    pub fn as_raw(&mut self) -> *mut ffi::rocksdb_readoptions_t {
        self.raw.as_ptr()
    }

    #[inline]
    pub(crate) fn raw(&self) -> ReadOptionsPtr {
        self.raw.as_read_ptr()
    }

    /// For native code that sets what the C API cannot (a transaction's own snapshot).
    pub(crate) fn handle_mut(&mut self) -> &mut ReadOptionsHandle {
        &mut self.raw
    }

    /// Whether iterators stop at the end of the seek key's prefix.
    pub(crate) fn same_prefix_as_start(&self) -> bool {
        self.raw.prefix_same_as_start()
    }

    /// RocksDB's defaults, one value for the process: what a `Reader` reads with unless
    /// told otherwise.
    pub(crate) fn defaults() -> &'static ReadOptions {
        static DEFAULTS: OnceLock<ReadOptions> = OnceLock::new();
        DEFAULTS.get_or_init(ReadOptions::new)
    }

    /// A copy for one iterator that sets its own bounds: the same settings and snapshot,
    /// this lower bound, and `upper` or this upper bound, whichever ends first bytewise.
    pub(crate) fn copy_with_upper_bound(&self, upper: Option<&[u8]>) -> ReadOptions {
        // The copy's snapshot pointer is kept alive by the `Snapshot` cloned below (or, a
        // borrowed one, by the owner of `self`, which the copy's user borrows too); its
        // bounds and timestamps, pointing into `self`, are each replaced below.
        let mut copy = ReadOptions {
            raw: self.raw.copy(),
            lower_bound: None,
            upper_bound: None,
            snapshot: self.snapshot.clone(),
            borrowed_snapshot_db: self.borrowed_snapshot_db,
            timestamp: None,
            iter_start_ts: None,
        };
        if let Some(ts) = &self.timestamp {
            copy.timestamp(u64::from_le_bytes(**ts));
        }
        if let Some(ts) = &self.iter_start_ts {
            copy.iter_start_timestamp(u64::from_le_bytes(**ts));
        }
        if let Some(lower) = &self.lower_bound {
            copy.iterate_lower_bound(lower);
        }
        let bound = match (self.upper_bound.as_deref(), upper) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        if let Some(bound) = bound {
            copy.iterate_upper_bound(bound);
        }
        copy
    }

    /// The database of the snapshot these options read at, if any.
    pub(crate) fn snapshot_db_id(&self) -> Option<u64> {
        self.snapshot
            .as_ref()
            .map(Snapshot::db_id)
            .or(self.borrowed_snapshot_db)
    }

    /// Whether these options read at a snapshot they do not keep (a transaction's).
    pub(crate) fn borrows_snapshot(&self) -> bool {
        self.borrowed_snapshot_db.is_some()
    }

    /// Notes that native code set a snapshot of database `db_id` that these options only
    /// borrow (see `handle_mut`).
    pub(crate) fn borrow_snapshot_of(&mut self, db_id: u64) {
        self.borrowed_snapshot_db = Some(db_id);
    }
}

impl Default for ReadOptions {
    fn default() -> Self {
        Self::new()
    }
}

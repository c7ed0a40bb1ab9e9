//! Database, read and write options. Each owns exactly one raw RocksDB handle and frees it
//! on drop; builders take `&mut self` so options can be reused across opens and reads.

use std::ffi::c_int;
use std::ptr::NonNull;
use std::sync::OnceLock;

use crate::cache::Cache;
use crate::compaction_filter::CompactionFilterFactory;
use crate::compaction_style::CompactionStyle;
use crate::comparator::Comparator;
use crate::compression::{Compression, CompressionOptions};
use crate::error::ErrPtr;
use crate::ffi;
use crate::handles::FamilyTraits;
use crate::merge::MergeOperator;
use crate::rate_limiter::RateLimiter;
use crate::snapshot::Snapshot;
use crate::table_options::{BlockBasedOptions, FilterPolicy};

/// Options for opening a database or creating a column family (`rocksdb_options_t`).
///
/// ```
/// use pinrocks::{Compression, Db, Options};
/// # fn main() -> pinrocks::Result<()> {
/// # let dir = tempfile::tempdir().unwrap();
/// let mut options = Options::new();
/// options
///     .create_if_missing(true)
///     .compression(Compression::Lz4)
///     .block_cache_size(64 << 20) // pinned blocks live here
///     .bloom_filter(10.0)
///     .write_buffer_size(32 << 20);
/// let db = Db::open(&options, dir.path())?;
/// # Ok(()) }
/// ```
pub struct Options {
    raw: NonNull<ffi::rocksdb_options_t>,
    /// Our copy of the table options: the C API copies them into a new table factory, so
    /// changing one field rebuilds the factory from this.
    table: BlockBasedOptions,
    /// A setting RocksDB refused without saying so (the C API has no error for it),
    /// reported when the options are used to open a database or create a column family.
    refused: Option<String>,
    /// RocksDB keeps only a raw pointer to the comparator: these options keep it alive, and
    /// so does every database opened with them (see `DbInner`).
    comparator: Option<Comparator>,
}

/// How a key's prefix is taken, for prefix bloom filters and prefix seeks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrefixExtractor {
    /// The first `n` bytes; shorter keys have no prefix (they are filtered by whole key).
    Fixed(usize),
    /// The first `n` bytes, or the whole key if it is shorter.
    Capped(usize),
}

/// How the WAL is replayed when the database opens after a crash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WalRecoveryMode {
    /// Tolerate an incomplete record at the end of the log (RocksDB's old default).
    TolerateCorruptedTailRecords,
    /// Fail to open on any corruption in the WAL.
    AbsoluteConsistency,
    /// Replay up to the first corruption, and stop there (RocksDB's default).
    PointInTimeRecovery,
    /// Skip every corrupted record and go on (may lose data in the middle).
    SkipAnyCorruptedRecords,
}

// SAFETY: `rocksdb_options_t` is a plain C++ value with no thread affinity; `&Options`
// only ever reads it: `rocksdb_open*` and `rocksdb_create_column_family` copy it by value
// (`DBOptions(..->rep)`, `ColumnFamilyOptions(..->rep)` in db/c.cc) and sanitize the copy.
// What the copies share (the table factory, its block cache and filter policy) is only read
// or locked internally (`BlockBasedTableFactory`'s shared state, the sharded caches), so
// two threads may open databases with one `Options` at once. Mutation needs `&mut`.
unsafe impl Send for Options {}
// SAFETY: see `Send`; shared access is read-only.
unsafe impl Sync for Options {}

macro_rules! setter {
    ($(#[$doc:meta])* $name:ident($ty:ty) => $ffi:ident $(as $cast:ty)?) => {
        $(#[$doc])*
        pub fn $name(&mut self, value: $ty) -> &mut Self {
            // SAFETY: `self.raw` is a live options handle owned by `self`.
            unsafe { ffi::$ffi(self.raw.as_ptr(), value $(as $cast)?) };
            self
        }
    };
}
pub(crate) use setter;

impl Options {
    /// Takes over `raw` (a whole options handle, freed by `Drop`).
    ///
    /// # Safety
    /// `raw` must be a live options handle that nothing else frees.
    pub(crate) unsafe fn from_raw(raw: *mut ffi::rocksdb_options_t) -> Self {
        Options {
            raw: NonNull::new(raw).expect("a NULL options handle"),
            table: BlockBasedOptions::default(),
            refused: None,
            comparator: None,
        }
    }

    /// RocksDB's defaults (notably `create_if_missing` is off).
    pub fn new() -> Self {
        // SAFETY: plain constructor; NULL only on allocation failure.
        let raw = unsafe { ffi::rocksdb_options_create() };
        Options {
            raw: NonNull::new(raw).expect("rocksdb_options_create returned NULL"),
            table: BlockBasedOptions::default(),
            refused: None,
            comparator: None,
        }
    }

    setter!(
        /// Create the database if it does not exist.
        create_if_missing(bool) => rocksdb_options_set_create_if_missing as u8
    );
    setter!(
        /// Create column families named at open that do not exist yet.
        create_missing_column_families(bool) => rocksdb_options_set_create_missing_column_families as u8
    );
    setter!(
        /// Fail to open if the database already exists.
        error_if_exists(bool) => rocksdb_options_set_error_if_exists as u8
    );
    setter!(
        /// Check data aggressively and stop on the first sign of corruption.
        paranoid_checks(bool) => rocksdb_options_set_paranoid_checks as u8
    );
    setter!(
        /// Bytes a memtable holds before it is switched and flushed (default 64 MiB).
        write_buffer_size(usize) => rocksdb_options_set_write_buffer_size
    );
    setter!(
        /// Files kept open by the table cache; -1 keeps all open.
        max_open_files(i32) => rocksdb_options_set_max_open_files
    );
    setter!(
        /// Background flush and compaction threads.
        max_background_jobs(i32) => rocksdb_options_set_max_background_jobs
    );
    setter!(
        /// Size RocksDB aims for in level-1 SST files.
        target_file_size_base(u64) => rocksdb_options_set_target_file_size_base
    );
    setter!(
        /// Number of level-0 files that triggers a compaction.
        level0_file_num_compaction_trigger(i32) => rocksdb_options_set_level0_file_num_compaction_trigger
    );
    setter!(
        /// Turn automatic compactions off (manual `compact_range` still works).
        disable_auto_compactions(bool) => rocksdb_options_set_disable_auto_compactions as i32
    );
    setter!(
        /// Keep the bottom level free for files ingested "behind" every existing key
        /// ([`IngestOptions::ingest_behind`](crate::IngestOptions::ingest_behind)). Must be
        /// set when the column family is created, before any write.
        allow_ingest_behind(bool) => rocksdb_options_set_cf_allow_ingest_behind as u8
    );
    setter!(
        /// Size the background thread pools for `threads` cores. The pools are RocksDB's
        /// process-wide `Env::Default()` ones: this resizes them for every database in the
        /// process, open or opened later, not only for databases opened with these options.
        increase_parallelism(i32) => rocksdb_options_increase_parallelism
    );

    /// Compression for SST blocks.
    pub fn compression(&mut self, compression: Compression) -> &mut Self {
        // SAFETY: `self.raw` is a live options handle owned by `self`.
        unsafe { ffi::rocksdb_options_set_compression(self.raw.as_ptr(), compression.raw()) };
        self
    }

    /// Combines `merge` writes with `operator` (see [`MergeOperator`]). The options share
    /// the operator; RocksDB frees it with the last column family that uses it.
    pub fn merge_operator(&mut self, operator: &MergeOperator) -> &mut Self {
        let mut err = ErrPtr::new();
        let mut code = 0;
        operator.install(|name, state, full, partial, destroy| {
            // SAFETY: live options; the C++ operator takes `state` (and frees it with
            // `destroy`, also if this call fails) and copies the name.
            unsafe {
                ffi::pinrocks_options_set_merge_operator(
                    self.raw.as_ptr(),
                    name,
                    state,
                    full,
                    partial,
                    destroy,
                    &mut code,
                    err.as_out(),
                )
            }
        });
        self.note_failure("merge_operator", err.check_with_code(Some(code)));
        self
    }

    /// Runs the filters `factory` makes in every compaction (see
    /// [`CompactionFilterFactory`]).
    pub fn compaction_filter(&mut self, factory: &CompactionFilterFactory) -> &mut Self {
        let mut err = ErrPtr::new();
        let mut code = 0;
        factory.install(
            |name, state, create, filter, destroy_filter, destroy_factory| {
                // SAFETY: live options; the C++ factory takes `state` (and frees it with
                // `destroy_factory`, also if this call fails) and copies the name.
                unsafe {
                    ffi::pinrocks_options_set_compaction_filter_factory(
                        self.raw.as_ptr(),
                        name,
                        state,
                        create,
                        filter,
                        destroy_filter,
                        destroy_factory,
                        &mut code,
                        err.as_out(),
                    )
                }
            },
        );
        self.note_failure("compaction_filter", err.check_with_code(Some(code)));
        self
    }

    /// Orders keys with `comparator` instead of bytewise (see [`Comparator`]). It must be
    /// the comparator the column family was created with.
    pub fn comparator(&mut self, comparator: &Comparator) -> &mut Self {
        // SAFETY: live options; RocksDB keeps the pointer, and `self.comparator` (then every
        // database opened with these options) keeps the comparator alive.
        unsafe { ffi::rocksdb_options_set_comparator(self.raw.as_ptr(), comparator.raw()) };
        self.comparator = Some(comparator.clone());
        self
    }

    /// The comparator set, if any: its owner must keep it alive while RocksDB uses it.
    pub(crate) fn order(&self) -> Option<&Comparator> {
        self.comparator.as_ref()
    }

    /// What a column family opened with these options needs pinrocks to know.
    pub(crate) fn traits(&self) -> FamilyTraits {
        FamilyTraits {
            order: self.comparator.clone(),
        }
    }

    /// Takes each key's prefix with `extractor`: filters then hold prefixes, so a prefix
    /// iteration ([`Reader::prefix_iter`](crate::Reader::prefix_iter), bounded at the
    /// prefix's end) skips files without the prefix. Other iterations stay in total order
    /// (pinrocks' read options have `auto_prefix_mode` on).
    pub fn prefix_extractor(&mut self, extractor: PrefixExtractor) -> &mut Self {
        let (kind, len) = match extractor {
            PrefixExtractor::Fixed(n) => (ffi::PINROCKS_PREFIX_FIXED, n),
            PrefixExtractor::Capped(n) => (ffi::PINROCKS_PREFIX_CAPPED, n),
        };
        let mut err = ErrPtr::new();
        let mut code = 0;
        // SAFETY: live options; the C++ side makes the extractor and shares it by shared_ptr.
        unsafe {
            ffi::pinrocks_options_set_prefix_extractor(
                self.raw.as_ptr(),
                kind as i32,
                len,
                &mut code,
                err.as_out(),
            )
        };
        self.note_failure("prefix_extractor", err.check_with_code(Some(code)));
        self
    }

    setter!(
        /// A bloom filter of key prefixes in each memtable, this fraction of its size (needs a
        /// prefix extractor; 0.1 is a common choice).
        memtable_prefix_bloom_ratio(f64) => rocksdb_options_set_memtable_prefix_bloom_size_ratio
    );

    /// One compression per level, from level 0 down; the last applies to the levels below.
    pub fn compression_per_level(&mut self, levels: &[Compression]) -> &mut Self {
        let raw: Vec<c_int> = levels.iter().map(|c| c.raw()).collect();
        let (mut code, mut err) = (0, crate::error::ErrPtr::new());
        // SAFETY: live options; RocksDB copies the array (guarded: a vector of its length).
        unsafe {
            ffi::pinrocks_guarded_options_set_compression_per_level(
                &mut code,
                self.raw.as_ptr(),
                raw.as_ptr(),
                raw.len(),
                err.as_out(),
            )
        };
        if let Err(e) = err.check_with_code(Some(code)) {
            panic!("pinrocks: cannot set {} compressions: {e}", raw.len());
        }
        self
    }

    /// The compression of the bottom level (where most data lives), whatever the others use.
    pub fn bottommost_compression(&mut self, compression: Compression) -> &mut Self {
        // SAFETY: live options.
        unsafe {
            ffi::rocksdb_options_set_bottommost_compression(self.raw.as_ptr(), compression.raw())
        };
        self
    }

    /// Level and zstd dictionary of every level's compression.
    pub fn compression_options(&mut self, options: &CompressionOptions) -> &mut Self {
        // SAFETY: live options.
        unsafe { options.apply(self.raw.as_ptr(), false) };
        self
    }

    /// Level and zstd dictionary of the bottom level's compression.
    pub fn bottommost_compression_options(&mut self, options: &CompressionOptions) -> &mut Self {
        // SAFETY: live options.
        unsafe { options.apply(self.raw.as_ptr(), true) };
        self
    }

    /// Leveled, universal or FIFO compaction.
    pub fn compaction_style(&mut self, style: CompactionStyle) -> &mut Self {
        // SAFETY: live options.
        unsafe { style.apply(self.raw.as_ptr()) };
        self
    }

    setter!(
        /// Split a compaction into up to this many parallel subcompactions.
        max_subcompactions(u32) => rocksdb_options_set_max_subcompactions
    );
    setter!(
        /// Buffer WAL writes until [`Db::flush_wal`](crate::Db::flush_wal) instead of writing
        /// them at each write.
        manual_wal_flush(bool) => rocksdb_options_set_manual_wal_flush as u8
    );
    setter!(
        /// Sync the WAL in the background every this many bytes (0: never).
        wal_bytes_per_sync(u64) => rocksdb_options_set_wal_bytes_per_sync
    );
    setter!(
        /// Once WAL files hold this much, flush the column families that keep the oldest
        /// alive (0: RocksDB picks 4x the memtables' size).
        max_total_wal_size(u64) => rocksdb_options_set_max_total_wal_size
    );
    setter!(
        /// Keep archived WAL files this long (for `updates_since`); 0 deletes them at once.
        wal_ttl_seconds(u64) => rocksdb_options_set_WAL_ttl_seconds
    );
    setter!(
        /// Keep archived WAL files up to this many MiB.
        wal_size_limit_mb(u64) => rocksdb_options_set_WAL_size_limit_MB
    );

    /// How the WAL is replayed after a crash.
    pub fn wal_recovery_mode(&mut self, mode: WalRecoveryMode) -> &mut Self {
        let raw = match mode {
            WalRecoveryMode::TolerateCorruptedTailRecords => 0,
            WalRecoveryMode::AbsoluteConsistency => 1,
            WalRecoveryMode::PointInTimeRecovery => 2,
            WalRecoveryMode::SkipAnyCorruptedRecords => 3,
        };
        // SAFETY: live options.
        unsafe { ffi::rocksdb_options_set_wal_recovery_mode(self.raw.as_ptr(), raw) };
        self
    }

    /// Limits flush and compaction writes to the rate of `limiter` (shared with every
    /// other options given it).
    pub fn rate_limiter(&mut self, limiter: &RateLimiter) -> &mut Self {
        // SAFETY: live options and limiter; the options copy its shared_ptr.
        unsafe { ffi::rocksdb_options_set_ratelimiter(self.raw.as_ptr(), limiter.raw()) };
        self
    }

    /// Collects statistics (tickers and histograms) for databases opened with these
    /// options, read through [`Db::statistics`](crate::Db::statistics). Costs a few percent
    /// of throughput.
    pub fn enable_statistics(&mut self) -> &mut Self {
        // SAFETY: live options.
        unsafe { ffi::rocksdb_options_enable_statistics(self.raw.as_ptr()) };
        self
    }

    fn note_failure(&mut self, setting: &str, outcome: crate::Result<()>) {
        if let Err(e) = outcome {
            self.refused
                .get_or_insert_with(|| format!("{setting}: {e}"));
        }
    }

    /// Reads through `cache`, shared with every other column family and database given
    /// the same [`Cache`]. Replaces [`block_cache_size`](Self::block_cache_size).
    pub fn block_cache(&mut self, cache: &Cache) -> &mut Self {
        self.table.block_cache(cache);
        self.apply_table_settings()
    }

    /// An LRU block cache of `bytes` for this database (RocksDB's default is 32 MiB).
    /// Pinned reads from SST files hold blocks of this cache. See also
    /// [`block_cache_shard_bits`](Self::block_cache_shard_bits).
    pub fn block_cache_size(&mut self, bytes: usize) -> &mut Self {
        self.table.shared_cache = None;
        self.table.block_cache_bytes = Some(bytes);
        self.apply_table_settings()
    }

    /// Splits the block cache into `2^bits` shards (RocksDB picks up to 64 shards of at
    /// least 512 KiB each; `-1` asks for that). RocksDB accepts at most 19: more makes
    /// opening with these options fail with `Error::InvalidInput`. A block larger than one shard's capacity is evicted as soon as
    /// it is unpinned, and blocks hash unevenly to shards: for large values use fewer,
    /// larger shards, or every read goes back to the SST file.
    pub fn block_cache_shard_bits(&mut self, bits: i32) -> &mut Self {
        self.table.block_cache_shard_bits = Some(bits);
        self.apply_table_settings()
    }

    /// A full bloom filter with this many bits per key, to skip files on point lookups.
    pub fn bloom_filter(&mut self, bits_per_key: f64) -> &mut Self {
        self.table.filter(FilterPolicy::Bloom(bits_per_key));
        self.apply_table_settings()
    }

    /// Uncompressed size of SST data blocks (RocksDB's default is 4 KiB).
    pub fn block_size(&mut self, bytes: usize) -> &mut Self {
        self.table.block_size(bytes);
        self.apply_table_settings()
    }

    /// Block-based table options (replacing what the table setters above set).
    pub fn block_based_table(&mut self, table: &BlockBasedOptions) -> &mut Self {
        self.table = table.clone();
        self.apply_table_settings()
    }

    fn apply_table_settings(&mut self) -> &mut Self {
        // `LRUCacheOptions::MakeSharedCache` makes no cache for 20 shard bits or more
        // (cache/lru_cache.cc), and the table factory then silently uses a default one.
        self.refused = self
            .table
            .block_cache_shard_bits
            .filter(|&bits| bits >= 20)
            .map(|bits| format!("block_cache_shard_bits {bits} (RocksDB takes at most 19)"));
        let table = self.table.build();
        // SAFETY: `table` is a live handle made above; the options copy it into a new table
        // factory (and its cache and filter by shared_ptr), then we destroy our handle.
        unsafe {
            ffi::rocksdb_options_set_block_based_table_factory(self.raw.as_ptr(), table);
            ffi::rocksdb_block_based_options_destroy(table);
        }
        self
    }

    pub(crate) fn raw(&self) -> *const ffi::rocksdb_options_t {
        self.raw.as_ptr()
    }

    /// `Err` if a setting was refused by RocksDB without an error of its own.
    pub(crate) fn check(&self) -> crate::Result<()> {
        match &self.refused {
            Some(setting) => Err(crate::Error::invalid("options", setting)),
            None => Ok(()),
        }
    }
}

impl Default for Options {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for Options {
    fn drop(&mut self) {
        // SAFETY: `self.raw` is owned by `self` and freed exactly once.
        unsafe { ffi::rocksdb_options_destroy(self.raw.as_ptr()) };
    }
}

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
/// The iterate bounds and the snapshot are kept alive by the options themselves: RocksDB
/// stores pointers to them, not copies.
///
/// [`Reader::options`]: crate::Reader::options
pub struct ReadOptions {
    raw: NonNull<ffi::rocksdb_readoptions_t>,
    lower_bound: Option<Box<[u8]>>,
    upper_bound: Option<Box<[u8]>>,
    snapshot: Option<Snapshot>,
    /// The database of a snapshot these options borrow (a transaction's), which its owner
    /// keeps alive.
    borrowed_snapshot_db: Option<u64>,
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
        // SAFETY: plain constructor; NULL only on allocation failure.
        let raw = unsafe { ffi::rocksdb_readoptions_create() };
        let mut options = ReadOptions {
            raw: NonNull::new(raw).expect("rocksdb_readoptions_create returned NULL"),
            lower_bound: None,
            upper_bound: None,
            snapshot: None,
            borrowed_snapshot_db: None,
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

    /// Read as of `snapshot`. The options hold the snapshot (and so its database) alive.
    /// Use them only with the snapshot's own database: [`Reader::options`] panics on
    /// another one (RocksDB would read it as of an unrelated sequence number).
    ///
    /// [`Reader::options`]: crate::Reader::options
    pub fn snapshot(&mut self, snapshot: &Snapshot) -> &mut Self {
        // SAFETY: the snapshot pointer stays valid while `self.snapshot` holds it.
        unsafe { ffi::rocksdb_readoptions_set_snapshot(self.raw.as_ptr(), snapshot.raw()) };
        self.snapshot = Some(snapshot.clone());
        self
    }

    /// Iterators stop before keys `>= bound` (exclusive).
    pub fn iterate_upper_bound(&mut self, bound: &[u8]) -> &mut Self {
        let bound: Box<[u8]> = bound.into();
        // SAFETY: RocksDB keeps a pointer into `bound`; the box lives in `self` until it is
        // replaced here or `self` drops, and its heap storage does not move.
        unsafe {
            ffi::rocksdb_readoptions_set_iterate_upper_bound(
                self.raw.as_ptr(),
                bound.as_ptr().cast(),
                bound.len(),
            )
        };
        self.upper_bound = Some(bound);
        self
    }

    /// Iterators start at keys `>= bound` (inclusive).
    pub fn iterate_lower_bound(&mut self, bound: &[u8]) -> &mut Self {
        let bound: Box<[u8]> = bound.into();
        // SAFETY: as for `iterate_upper_bound`.
        unsafe {
            ffi::rocksdb_readoptions_set_iterate_lower_bound(
                self.raw.as_ptr(),
                bound.as_ptr().cast(),
                bound.len(),
            )
        };
        self.lower_bound = Some(bound);
        self
    }

    pub(crate) fn raw(&self) -> *const ffi::rocksdb_readoptions_t {
        self.raw.as_ptr()
    }

    /// For native code that sets what the C API cannot (a transaction's own snapshot).
    pub(crate) fn raw_mut(&mut self) -> *mut ffi::rocksdb_readoptions_t {
        self.raw.as_ptr()
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
        // SAFETY: live handle; the copy is a new handle we own (NULL only if allocation
        // failed). Its snapshot pointer is kept alive by the `Snapshot` cloned below (or, a
        // borrowed one, by the owner of `self`, which the copy's user borrows too).
        let raw = unsafe { ffi::pinrocks_readoptions_copy(self.raw.as_ptr()) };
        let mut copy = ReadOptions {
            raw: NonNull::new(raw).expect("pinrocks_readoptions_copy returned NULL"),
            lower_bound: None,
            upper_bound: None,
            snapshot: self.snapshot.clone(),
            borrowed_snapshot_db: self.borrowed_snapshot_db,
        };
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

    /// Notes that native code set a snapshot of database `db_id` that these options only
    /// borrow (see `raw_mut`).
    pub(crate) fn borrow_snapshot_of(&mut self, db_id: u64) {
        self.borrowed_snapshot_db = Some(db_id);
    }
}

impl Default for ReadOptions {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for ReadOptions {
    fn drop(&mut self) {
        // SAFETY: owned by `self`, freed once; the snapshot field drops after this.
        unsafe { ffi::rocksdb_readoptions_destroy(self.raw.as_ptr()) };
    }
}

/// Options for writes (`rocksdb_writeoptions_t`).
pub struct WriteOptions {
    raw: NonNull<ffi::rocksdb_writeoptions_t>,
}

// SAFETY: a plain C++ value that `DBImpl::WriteImpl` reads through a const reference and
// never writes.
unsafe impl Send for WriteOptions {}
// SAFETY: see `Send`.
unsafe impl Sync for WriteOptions {}

impl WriteOptions {
    /// RocksDB's defaults: WAL on, no fsync per write.
    pub fn new() -> Self {
        // SAFETY: plain constructor; NULL only on allocation failure.
        let raw = unsafe { ffi::rocksdb_writeoptions_create() };
        WriteOptions {
            raw: NonNull::new(raw).expect("rocksdb_writeoptions_create returned NULL"),
        }
    }

    setter!(
        /// fsync the WAL before the write returns, so an acknowledged write survives a
        /// machine crash or power loss too. Without it, a write survives the crash of the
        /// process (it is in the OS page cache) but not of the machine.
        /// `tests/crash.rs` kills a writer with SIGKILL and finds every acknowledged write.
        sync(bool) => rocksdb_writeoptions_set_sync as u8
    );
    setter!(
        /// Skip the WAL: faster, but every acknowledged write not yet flushed to an SST file
        /// is lost if the process dies (`tests/crash.rs` shows all of them lost).
        disable_wal(bool) => rocksdb_writeoptions_disable_WAL as i32
    );

    pub(crate) fn raw(&self) -> *const ffi::rocksdb_writeoptions_t {
        self.raw.as_ptr()
    }

    /// RocksDB's defaults, one value for the process: what a `Writer` writes with unless
    /// told otherwise.
    pub(crate) fn defaults() -> &'static WriteOptions {
        static DEFAULTS: OnceLock<WriteOptions> = OnceLock::new();
        DEFAULTS.get_or_init(WriteOptions::new)
    }
}

impl Default for WriteOptions {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for WriteOptions {
    fn drop(&mut self) {
        // SAFETY: owned by `self`, freed once.
        unsafe { ffi::rocksdb_writeoptions_destroy(self.raw.as_ptr()) };
    }
}

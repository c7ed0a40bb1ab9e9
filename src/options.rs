//! Database, read and write options. Each owns exactly one raw RocksDB handle and frees it
//! on drop; builders take `&mut self` so options can be reused across opens and reads.

use std::ffi::c_int;
use std::ptr::NonNull;
use std::sync::OnceLock;

use crate::cache::Cache;
use crate::compaction_filter::CompactionFilterFactory;
use crate::comparator::Comparator;
use crate::error::ErrPtr;
use crate::ffi;
use crate::merge::MergeOperator;
use crate::snapshot::Snapshot;

/// Block compression for SST files. Only the algorithms compiled in (the `lz4`, `zstd`
/// and `snappy` features) can be used; RocksDB rejects others when the database opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// No compression.
    None,
    /// Snappy (feature `snappy`).
    Snappy,
    /// LZ4 (feature `lz4`).
    Lz4,
    /// LZ4HC (feature `lz4`).
    Lz4hc,
    /// Zstandard (feature `zstd`).
    Zstd,
}

impl Compression {
    fn raw(self) -> c_int {
        (match self {
            Compression::None => ffi::rocksdb_no_compression,
            Compression::Snappy => ffi::rocksdb_snappy_compression,
            Compression::Lz4 => ffi::rocksdb_lz4_compression,
            Compression::Lz4hc => ffi::rocksdb_lz4hc_compression,
            Compression::Zstd => ffi::rocksdb_zstd_compression,
        }) as c_int
    }
}

/// Block-based table settings, rebuilt into a table factory whenever one changes (the C API
/// copies them into the options, so we keep our own copy to change one field at a time).
#[derive(Debug, Clone, Default)]
struct TableSettings {
    /// A cache shared with other options (and so other column families and databases).
    shared_cache: Option<Cache>,
    block_cache_bytes: Option<usize>,
    block_cache_shard_bits: Option<i32>,
    bloom_bits_per_key: Option<f64>,
    block_size: Option<usize>,
}

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
    table: TableSettings,
    /// A setting RocksDB refused without saying so (the C API has no error for it),
    /// reported when the options are used to open a database or create a column family.
    refused: Option<String>,
    /// RocksDB keeps only a raw pointer to the comparator: these options keep it alive, and
    /// so does every database opened with them (see `DbInner`).
    comparator: Option<Comparator>,
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
    /// RocksDB's defaults (notably `create_if_missing` is off).
    pub fn new() -> Self {
        // SAFETY: plain constructor; NULL only on allocation failure.
        let raw = unsafe { ffi::rocksdb_options_create() };
        Options {
            raw: NonNull::new(raw).expect("rocksdb_options_create returned NULL"),
            table: TableSettings::default(),
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

    fn note_failure(&mut self, setting: &str, outcome: crate::Result<()>) {
        if let Err(e) = outcome {
            self.refused
                .get_or_insert_with(|| format!("{setting}: {e}"));
        }
    }

    /// Reads through `cache`, shared with every other column family and database given
    /// the same [`Cache`]. Replaces [`block_cache_size`](Self::block_cache_size).
    pub fn block_cache(&mut self, cache: &Cache) -> &mut Self {
        self.table.shared_cache = Some(cache.clone());
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
        self.table.bloom_bits_per_key = Some(bits_per_key);
        self.apply_table_settings()
    }

    /// Uncompressed size of SST data blocks (RocksDB's default is 4 KiB).
    pub fn block_size(&mut self, bytes: usize) -> &mut Self {
        self.table.block_size = Some(bytes);
        self.apply_table_settings()
    }

    fn apply_table_settings(&mut self) -> &mut Self {
        let settings = self.table.clone();
        // `LRUCacheOptions::MakeSharedCache` makes no cache for 20 shard bits or more
        // (cache/lru_cache.cc), and the table factory then silently uses a default one.
        self.refused = settings
            .block_cache_shard_bits
            .filter(|&bits| bits >= 20)
            .map(|bits| format!("block_cache_shard_bits {bits} (RocksDB takes at most 19)"));
        // SAFETY: each handle is created here, configured, copied into `self.raw` by
        // `set_block_based_table_factory` (which copies the table options, and the cache by
        // shared_ptr), then destroyed; the filter policy is owned by the table options.
        unsafe {
            let table = ffi::rocksdb_block_based_options_create();
            if let Some(cache) = &settings.shared_cache {
                // Copies the cache's shared_ptr: the options keep the cache alive.
                ffi::rocksdb_block_based_options_set_block_cache(table, cache.raw());
            } else if let Some(bytes) = settings.block_cache_bytes {
                let lru = ffi::rocksdb_lru_cache_options_create();
                ffi::rocksdb_lru_cache_options_set_capacity(lru, bytes);
                ffi::rocksdb_lru_cache_options_set_num_shard_bits(
                    lru,
                    settings.block_cache_shard_bits.unwrap_or(-1),
                );
                let cache = ffi::rocksdb_cache_create_lru_opts(lru);
                ffi::rocksdb_lru_cache_options_destroy(lru);
                ffi::rocksdb_block_based_options_set_block_cache(table, cache);
                ffi::rocksdb_cache_destroy(cache);
            }
            if let Some(bits) = settings.bloom_bits_per_key {
                let policy = ffi::rocksdb_filterpolicy_create_bloom_full(bits);
                ffi::rocksdb_block_based_options_set_filter_policy(table, policy);
            }
            if let Some(bytes) = settings.block_size {
                ffi::rocksdb_block_based_options_set_block_size(table, bytes);
            }
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
    /// RocksDB's defaults: fill the block cache, verify checksums, no snapshot.
    pub fn new() -> Self {
        // SAFETY: plain constructor; NULL only on allocation failure.
        let raw = unsafe { ffi::rocksdb_readoptions_create() };
        ReadOptions {
            raw: NonNull::new(raw).expect("rocksdb_readoptions_create returned NULL"),
            lower_bound: None,
            upper_bound: None,
            snapshot: None,
        }
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

    /// RocksDB's defaults, one value for the process: what a `Reader` reads with unless
    /// told otherwise.
    pub(crate) fn defaults() -> &'static ReadOptions {
        static DEFAULTS: OnceLock<ReadOptions> = OnceLock::new();
        DEFAULTS.get_or_init(ReadOptions::new)
    }

    /// The database of the snapshot these options read at, if any.
    pub(crate) fn snapshot_db_id(&self) -> Option<u64> {
        self.snapshot.as_ref().map(Snapshot::db_id)
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

//! Database and column family options. Each owns exactly one raw RocksDB handle and frees
//! it on drop; builders take `&mut self` so options can be reused across opens.

use std::ffi::c_int;

use crate::callbacks::compaction_filter::CompactionFilterFactory;
use crate::callbacks::comparator::Comparator;
use crate::callbacks::merge::MergeOperator;
use crate::options::cache::Cache;
use crate::options::compaction_style::CompactionStyle;
use crate::options::compression::{Compression, CompressionOptions};
use crate::options::contract::check_raw;
use crate::options::env_owner::{DatabaseBudget, EnvOwner};
use crate::options::rate_limiter::RateLimiter;
use crate::options::table_options::{BlockBasedOptions, FilterPolicy, TableFormat};
use crate::raw::error::{ErrPtr, Error, Result};
use crate::raw::ffi;
use crate::raw::owned::Owned;
use crate::raw::setter::setter;

/// What pinrocks needs to know of a column family's options to read it right: its key
/// order (for the bounds it checks itself).
#[derive(Clone, Default)]
pub(crate) struct FamilyTraits {
    pub(crate) order: Option<Comparator>,
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
#[doc(alias = "DBOptions")]
#[doc(alias = "ColumnFamilyOptions")]
#[doc(alias = "rocksdb_options_t")]
pub struct Options {
    pub(crate) raw: Owned<ffi::rocksdb_options_t>,
    /// Our copy of the table options: the C API copies them into a new table factory, so
    /// changing one field rebuilds the factory from this.
    table: BlockBasedOptions,
    /// A setting RocksDB refused without saying so (the C API has no error for it),
    /// reported when the options are used to open a database or create a column family.
    refused: Option<String>,
    /// RocksDB keeps only a raw pointer to the comparator: these options keep it alive, and
    /// so does every database opened with them (see `DbInner`).
    pub(super) comparator: Option<Comparator>,
    /// The SST format chosen: `table` applies only to the block-based one.
    pub(crate) format: TableFormat,
    /// What owns the `Env` the options point at, when not RocksDB's default (a fault file
    /// system): RocksDB keeps a raw pointer, so the options keep it alive, and so does
    /// everything made with them that keeps a copy (a database, an SST writer, a backup
    /// engine).
    pub(crate) env_owner: Option<EnvOwner>,
    /// The memtable budget set, which counts the databases opened on it.
    pub(crate) write_buffer_manager: Option<std::sync::Arc<dyn DatabaseBudget>>,
    /// Whether an SST file manager is set: it is made on the default Env (the disk), so
    /// these options may not have another.
    pub(crate) sst_file_manager: bool,
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

impl Options {
    /// Takes over `raw` (a whole options handle, freed by `Drop`).
    ///
    /// # Safety
    /// `raw` must be a live options handle that nothing else frees.
    pub(crate) unsafe fn from_raw(raw: *mut ffi::rocksdb_options_t) -> Self {
        Options {
            // SAFETY: a new object, ours alone (or NULL).
            raw: unsafe { Owned::from_raw(raw) }.expect("a NULL options handle"),
            table: BlockBasedOptions::default(),
            refused: None,
            comparator: None,
            format: TableFormat::BlockBased,
            env_owner: None,
            write_buffer_manager: None,
            sst_file_manager: false,
        }
    }

    /// RocksDB's defaults (notably `create_if_missing` is off).
    pub fn new() -> Self {
        // SAFETY: a new handle (NULL only on allocation failure, which `from_raw` refuses),
        // ours alone.
        unsafe { Self::from_raw(ffi::rocksdb_options_create()) }
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

    /// One compression per level, from level 0 down; the last applies to the levels below.
    pub fn compression_per_level(&mut self, levels: &[Compression]) -> &mut Self {
        let raw: Vec<c_int> = levels.iter().map(|c| c.raw()).collect();
        let (mut code, mut err) = (0, crate::raw::error::ErrPtr::new());
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

    /// Keeps the first refusal, reported when the options are used.
    pub(crate) fn note_failure(&mut self, setting: &str, outcome: Result<()>) {
        if let Err(e) = outcome {
            self.refused
                .get_or_insert_with(|| format!("{setting}: {e}"));
        }
    }

    /// Reads through `cache`, shared with every other column family and database given
    /// the same [`Cache`]. Replaces [`block_cache_size`](Self::block_cache_size).
    pub fn block_cache(&mut self, cache: &Cache) -> &mut Self {
        if !self.block_based_in_use("block_cache") {
            return self;
        }
        self.table.block_cache(cache);
        self.apply_table_settings()
    }

    /// An LRU block cache of `bytes` for this database (RocksDB's default is 32 MiB).
    /// Pinned reads from SST files hold blocks of this cache. See also
    /// [`block_cache_shard_bits`](Self::block_cache_shard_bits).
    pub fn block_cache_size(&mut self, bytes: usize) -> &mut Self {
        if !self.block_based_in_use("block_cache_size") {
            return self;
        }
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
        if !self.block_based_in_use("block_cache_shard_bits") {
            return self;
        }
        self.table.block_cache_shard_bits = Some(bits);
        self.apply_table_settings()
    }

    /// A full bloom filter with this many bits per key, to skip files on point lookups.
    pub fn bloom_filter(&mut self, bits_per_key: f64) -> &mut Self {
        if !self.block_based_in_use("bloom_filter") {
            return self;
        }
        self.table.filter(FilterPolicy::Bloom(bits_per_key));
        self.apply_table_settings()
    }

    /// Uncompressed size of SST data blocks (RocksDB's default is 4 KiB).
    pub fn block_size(&mut self, bytes: usize) -> &mut Self {
        if !self.block_based_in_use("block_size") {
            return self;
        }
        self.table.block_size(bytes);
        self.apply_table_settings()
    }

    /// Block-based table options (replacing what the table setters above set), and the
    /// block-based format (RocksDB's default) if another was chosen.
    pub fn block_based_table(&mut self, table: &BlockBasedOptions) -> &mut Self {
        self.format = TableFormat::BlockBased;
        self.table = table.clone();
        self.apply_table_settings()
    }

    fn apply_table_settings(&mut self) -> &mut Self {
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

    /// The handle, to change (borrowed exclusively with `self`).
    pub(crate) fn raw_mut(&mut self) -> *mut ffi::rocksdb_options_t {
        self.raw.as_ptr()
    }

    /// The raw `rocksdb_options_t`, for the C API in [`ffi`](crate::ffi) where pinrocks has
    /// no setter (as [`Db::as_raw`](crate::Db::as_raw) is for the database), valid while
    /// `self` lives. Do not destroy it, and do not set through it what pinrocks keeps alive
    /// or relies on: the comparator (pinrocks checks bounds in its order), merge operator,
    /// compaction filter, block cache, rate limiter or table factory
    /// ([`set_by_name`](Self::set_by_name) reaches every option RocksDB parses, checked).
    ///
    /// ```
    /// # fn main() -> pinrocks::Result<()> {
    /// let mut options = pinrocks::Options::new();
    /// // SAFETY: live options, used by this thread alone; a plain number.
    /// unsafe { pinrocks::ffi::rocksdb_options_set_max_open_files(options.as_raw(), 100) };
    /// # Ok(()) }
    /// ```
    pub fn as_raw(&mut self) -> *mut ffi::rocksdb_options_t {
        self.raw.as_ptr()
    }

    /// `Err` if a setting was refused by RocksDB without an error of its own.
    pub(crate) fn check(&self) -> Result<()> {
        if let Some(setting) = &self.refused {
            return Err(Error::invalid("options", setting));
        }
        self.check_blob_ratios()?;
        if self.sst_file_manager && self.env_owner.is_some() {
            // One database, one Env: the manager would delete the database's obsolete files
            // (and stat, and move to trash) on the disk at their paths, not where they are.
            return Err(Error::invalid(
                "sst_file_manager",
                "an SstFileManager works on the default Env (the disk); these options have \
                 another (a MemEnv or a FaultFs), where it would stat and delete files that \
                 are not the database's",
            ));
        }
        // Every option as RocksDB will use it, against the option table.
        // SAFETY: live options, only read (`&self`) during the call.
        unsafe { check_raw(self.raw()) }?;
        // `LRUCacheOptions::MakeSharedCache` makes no cache for 20 shard bits or more
        // (cache/lru_cache.cc), and the table factory then silently uses a default one.
        match self.table.block_cache_shard_bits.filter(|&bits| bits >= 20) {
            Some(bits) if self.format == TableFormat::BlockBased => Err(Error::invalid(
                "options",
                format!("block_cache_shard_bits {bits} (RocksDB takes at most 19)"),
            )),
            _ => Ok(()),
        }
    }
}

impl Default for Options {
    fn default() -> Self {
        Self::new()
    }
}

//! Database and column family options. Each owns exactly one raw RocksDB handle and frees
//! it on drop; builders take `&mut self` so options can be reused across opens.
//!
//! Long because `Options` is here whole: its fields (one per thing RocksDB holds by pointer
//! that the options keep alive), its `Send`/`Sync` reasons, the checks before an open and
//! the setters of the user's code and of everyday settings.

use std::ffi::c_int;

use crate::callbacks::compaction_filter::CompactionFilterFactory;
use crate::callbacks::comparator::Comparator;
use crate::callbacks::merge::MergeOperator;
use crate::callbacks::table_properties::TablePropertiesCollectorFactory;
use crate::callbacks::wal_filter::WalFilter;
use crate::options::compaction_style::CompactionStyle;
use crate::options::compression::{Compression, CompressionOptions};
use crate::options::contract::check_options;
use crate::options::env_owner::{DatabaseBudget, EnvOwner};
use crate::options::rate_limiter::RateLimiter;
use crate::options::table_options::{BlockBasedOptions, TableFormat};
use crate::raw::error::{Error, Result};
use crate::raw::ffi;
use crate::raw::options_callbacks::WalFilterHandle;
use crate::raw::options_handle::OptionsHandle;
use crate::raw::setter::setter;

/// What pinrocks needs to know of a column family's options to read it right: its key
/// order (for the bounds it checks itself).
#[derive(Clone, Default)]
pub(crate) struct FamilyTraits {
    pub(crate) order: Option<Comparator>,
}

/// Options for opening a database or creating a column family (`rocksdb_options_t`).
///
/// They hold both kinds of RocksDB's options, and each setter's documentation ends with
/// its scope and the names RocksDB gives what it sets:
/// - **database** (RocksDB's `DBOptions`): one value for the database and every family in
///   it, taken from the options the database is opened with (changed live, where RocksDB
///   allows it, by [`Db::set_db_options`](crate::Db::set_db_options));
/// - **column family** (`ColumnFamilyOptions`, the block-based table's among them): each
///   family has its own, taken from the options it is created or opened with (changed live
///   by [`ColumnFamily::set_options`](crate::ColumnFamily::set_options)); at open, these
///   options are the default family's.
///
/// The table of every option and what pinrocks allows of it, with the same scopes:
/// [`option_contracts`](crate::options::option_contracts).
///
/// ```
/// use pinrocks::{Db, Options};
/// use pinrocks::options::Compression;
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
    pub(crate) raw: OptionsHandle,
    /// Our copy of the table options: the C API copies them into a new table factory, so
    /// changing one field rebuilds the factory from this.
    pub(super) table: BlockBasedOptions,
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
    /// Whether a row cache is set: a database opened with one refuses range deletes
    /// (RocksDB would, from deep inside the write), so it must know.
    pub(crate) row_cache: bool,
    /// RocksDB keeps only a raw pointer to the WAL filter: these options keep it alive, and
    /// so does every database opened with them (until it has closed).
    pub(crate) wal_filter: Option<std::sync::Arc<WalFilterHandle>>,
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
    /// Options over `raw`, with nothing of pinrocks' own set.
    pub(crate) fn from_handle(raw: OptionsHandle) -> Self {
        Options {
            raw,
            table: BlockBasedOptions::default(),
            refused: None,
            comparator: None,
            format: TableFormat::BlockBased,
            env_owner: None,
            write_buffer_manager: None,
            sst_file_manager: false,
            row_cache: false,
            wal_filter: None,
        }
    }

    /// RocksDB's defaults (notably `create_if_missing` is off).
    pub fn new() -> Self {
        let mut options = Self::from_handle(OptionsHandle::new());
        options.keep_single_deletes_from_stopping_writes();
        options
    }

    /// pinrocks' default for `enforce_single_del_contracts` (its option table says why).
    pub(crate) fn keep_single_deletes_from_stopping_writes(&mut self) {
        self.raw.set_enforce_single_del_contracts(false);
    }

    setter!(
        /// Create the database if it does not exist.
        ///
        /// Scope: database (`create_if_missing`).
        create_if_missing(bool) => rocksdb_options_set_create_if_missing as u8
    );
    setter!(
        /// Create column families named at open that do not exist yet.
        ///
        /// Scope: database (`create_missing_column_families`).
        create_missing_column_families(bool) => rocksdb_options_set_create_missing_column_families as u8
    );
    setter!(
        /// Fail to open if the database already exists.
        ///
        /// Scope: database (`error_if_exists`).
        error_if_exists(bool) => rocksdb_options_set_error_if_exists as u8
    );
    setter!(
        /// Check data aggressively and stop on the first sign of corruption.
        ///
        /// Scope: database (`paranoid_checks`).
        paranoid_checks(bool) => rocksdb_options_set_paranoid_checks as u8
    );
    setter!(
        /// Bytes a memtable holds before it is switched and flushed (default 64 MiB).
        ///
        /// Scope: column family (`write_buffer_size`).
        write_buffer_size(usize) => rocksdb_options_set_write_buffer_size
    );
    setter!(
        /// Files kept open by the table cache; -1 keeps all open.
        ///
        /// Scope: database (`max_open_files`).
        max_open_files(i32) => rocksdb_options_set_max_open_files
    );
    setter!(
        /// Background flush and compaction threads.
        ///
        /// Scope: database (`max_background_jobs`).
        max_background_jobs(i32) => rocksdb_options_set_max_background_jobs
    );
    setter!(
        /// Size RocksDB aims for in level-1 SST files.
        ///
        /// Scope: column family (`target_file_size_base`).
        target_file_size_base(u64) => rocksdb_options_set_target_file_size_base
    );
    setter!(
        /// Number of level-0 files that triggers a compaction.
        ///
        /// Scope: column family (`level0_file_num_compaction_trigger`).
        level0_file_num_compaction_trigger(i32) => rocksdb_options_set_level0_file_num_compaction_trigger
    );
    setter!(
        /// Turn automatic compactions off (manual `compact_range` still works).
        ///
        /// Scope: column family (`disable_auto_compactions`).
        disable_auto_compactions(bool) => rocksdb_options_set_disable_auto_compactions as i32
    );
    setter!(
        /// Keep the bottom level free for files ingested "behind" every existing key
        /// ([`IngestOptions::ingest_behind`](crate::admin::IngestOptions::ingest_behind)). Must be
        /// set when the column family is created, before any write.
        ///
        /// Scope: column family (`cf_allow_ingest_behind`).
        allow_ingest_behind(bool) => rocksdb_options_set_cf_allow_ingest_behind as u8
    );

    /// Compression for SST blocks.
    ///
    /// Scope: column family (`compression`).
    pub fn compression(&mut self, compression: Compression) -> &mut Self {
        self.raw.set_compression(compression.raw());
        self
    }

    /// Combines `merge` writes with `operator` (see [`MergeOperator`]). The options share
    /// the operator; RocksDB frees it with the last column family that uses it.
    ///
    /// Scope: column family (`merge_operator`).
    pub fn merge_operator(&mut self, operator: &MergeOperator) -> &mut Self {
        let mut installed = Ok(());
        operator.install(|name, state, full, partial, destroy| {
            // SAFETY: the operator's name, live for the call, and a new state for its
            // callbacks, taken over by the C++ operator.
            installed = unsafe {
                self.raw
                    .set_merge_operator(name, state, full, partial, destroy)
            };
        });
        self.note_failure("merge_operator", installed);
        self
    }

    /// Runs the filters `factory` makes in every compaction (see
    /// [`CompactionFilterFactory`]).
    ///
    /// Scope: column family (`compaction_filter_factory`).
    pub fn compaction_filter(&mut self, factory: &CompactionFilterFactory) -> &mut Self {
        let mut installed = Ok(());
        factory.install(
            |name, state, create, filter, destroy_filter, destroy_factory| {
                // SAFETY: the factory's name, live for the call, and a new state for its
                // callbacks, taken over by the C++ factory.
                installed = unsafe {
                    self.raw.set_compaction_filter_factory(
                        name,
                        state,
                        create,
                        filter,
                        destroy_filter,
                        destroy_factory,
                    )
                };
            },
        );
        self.note_failure("compaction_filter", installed);
        self
    }

    /// Adds a table-properties collector: the collectors `factory` makes see every entry
    /// of every SST file this family's flushes and compactions write, and store their
    /// properties in it (see [`TablePropertiesCollectorFactory`]). Each call adds one.
    ///
    /// Scope: column family (`table_properties_collectors`).
    pub fn table_properties_collector(
        &mut self,
        factory: &TablePropertiesCollectorFactory,
    ) -> &mut Self {
        let mut installed = Ok(());
        factory.install(
            |name, state, create, add, finish, destroy_one, destroy_all| {
                // SAFETY: the factory's name, live for the call, and a new state for its
                // callbacks, taken over by the C++ factory.
                installed = unsafe {
                    self.raw.add_table_properties_collector_factory(
                        name,
                        state,
                        create,
                        add,
                        finish,
                        destroy_one,
                        destroy_all,
                    )
                };
            },
        );
        self.note_failure("table_properties_collector", installed);
        self
    }

    /// Orders keys with `comparator` instead of bytewise (see [`Comparator`]). It must be
    /// the comparator the column family was created with.
    ///
    /// Scope: column family (`comparator`).
    pub fn comparator(&mut self, comparator: &Comparator) -> &mut Self {
        // SAFETY: live options; RocksDB keeps the pointer, and `self.comparator` (then every
        // database opened with these options) keeps the comparator alive.
        unsafe { self.raw.set_comparator(comparator.raw()) };
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
    ///
    /// Scope: column family (`compression_per_level`).
    pub fn compression_per_level(&mut self, levels: &[Compression]) -> &mut Self {
        let raw: Vec<c_int> = levels.iter().map(|c| c.raw()).collect();
        if let Err(e) = self.raw.set_compression_per_level(&raw) {
            panic!("pinrocks: cannot set {} compressions: {e}", raw.len());
        }
        self
    }

    /// The compression of the bottom level (where most data lives), whatever the others use.
    ///
    /// Scope: column family (`bottommost_compression`).
    pub fn bottommost_compression(&mut self, compression: Compression) -> &mut Self {
        self.raw.set_bottommost_compression(compression.raw());
        self
    }

    /// Level and zstd dictionary of every level's compression.
    ///
    /// Scope: column family (`compression_opts`).
    pub fn compression_options(&mut self, options: &CompressionOptions) -> &mut Self {
        options.apply(&mut self.raw, false);
        self
    }

    /// Level and zstd dictionary of the bottom level's compression.
    ///
    /// Scope: column family (`bottommost_compression_opts`).
    pub fn bottommost_compression_options(&mut self, options: &CompressionOptions) -> &mut Self {
        options.apply(&mut self.raw, true);
        self
    }

    /// Leveled, universal or FIFO compaction.
    ///
    /// Scope: column family (`compaction_style`, `compaction_options_universal`,
    /// `compaction_options_fifo`).
    pub fn compaction_style(&mut self, style: CompactionStyle) -> &mut Self {
        style.apply(&mut self.raw);
        self
    }

    setter!(
        /// Split a compaction into up to this many parallel subcompactions.
        ///
        /// Scope: database (`max_subcompactions`).
        max_subcompactions(u32) => rocksdb_options_set_max_subcompactions
    );
    setter!(
        /// Buffer WAL writes until [`Db::flush_wal`](crate::Db::flush_wal) instead of writing
        /// them at each write.
        ///
        /// Scope: database (`manual_wal_flush`).
        manual_wal_flush(bool) => rocksdb_options_set_manual_wal_flush as u8
    );
    setter!(
        /// Sync the WAL in the background every this many bytes (0: never).
        ///
        /// Scope: database (`wal_bytes_per_sync`).
        wal_bytes_per_sync(u64) => rocksdb_options_set_wal_bytes_per_sync
    );
    setter!(
        /// Once WAL files hold this much, flush the column families that keep the oldest
        /// alive (0: RocksDB picks 4x the memtables' size).
        ///
        /// Scope: database (`max_total_wal_size`).
        max_total_wal_size(u64) => rocksdb_options_set_max_total_wal_size
    );
    setter!(
        /// Keep archived WAL files this long (for `updates_since`); 0 deletes them at once.
        ///
        /// Scope: database (`WAL_ttl_seconds`).
        wal_ttl_seconds(u64) => rocksdb_options_set_WAL_ttl_seconds
    );
    setter!(
        /// Keep archived WAL files up to this many MiB.
        ///
        /// Scope: database (`WAL_size_limit_MB`).
        wal_size_limit_mb(u64) => rocksdb_options_set_WAL_size_limit_MB
    );

    /// How the WAL is replayed after a crash.
    ///
    /// Scope: database (`wal_recovery_mode`).
    pub fn wal_recovery_mode(&mut self, mode: WalRecoveryMode) -> &mut Self {
        let raw = match mode {
            WalRecoveryMode::TolerateCorruptedTailRecords => 0,
            WalRecoveryMode::AbsoluteConsistency => 1,
            WalRecoveryMode::PointInTimeRecovery => 2,
            WalRecoveryMode::SkipAnyCorruptedRecords => 3,
        };
        self.raw.set_wal_recovery_mode(raw);
        self
    }

    /// Replays the WAL through `filter` whenever a database opens with these options (see
    /// [`WalFilter`]): it decides, batch by batch, what the replay keeps.
    ///
    /// Scope: database (`wal_filter`).
    pub fn wal_filter(&mut self, filter: &WalFilter) -> &mut Self {
        match filter.handle() {
            Ok(handle) => {
                let handle = std::sync::Arc::new(handle);
                // SAFETY: live options; RocksDB keeps the pointer, and `self.wal_filter`
                // (then every database opened with these options) keeps the filter alive.
                unsafe { self.raw.set_wal_filter(&handle) };
                self.wal_filter = Some(handle);
            }
            Err(e) => self.note_failure("wal_filter", Err(e)),
        }
        self
    }

    /// Limits flush and compaction writes to the rate of `limiter` (shared with every
    /// other options given it).
    ///
    /// Scope: database (`rate_limiter`).
    pub fn rate_limiter(&mut self, limiter: &RateLimiter) -> &mut Self {
        self.raw.set_ratelimiter(limiter.handle());
        self
    }

    /// Collects statistics (tickers and histograms) for databases opened with these
    /// options, read through [`Db::statistics`](crate::Db::statistics). Costs a few percent
    /// of throughput.
    ///
    /// Scope: database (`statistics`).
    pub fn enable_statistics(&mut self) -> &mut Self {
        self.raw.enable_statistics();
        self
    }

    /// Keeps the first refusal, reported when the options are used.
    pub(crate) fn note_failure(&mut self, setting: &str, outcome: Result<()>) {
        if let Err(e) = outcome {
            self.refused
                .get_or_insert_with(|| format!("{setting}: {e}"));
        }
    }

    /// The raw `rocksdb_options_t`, for the C API in [`ffi`](crate::ffi) where pinrocks has
    /// no setter (as [`Db::as_raw`](crate::Db::as_raw) is for the database), valid while
    /// `self` lives. Do not destroy it, and do not set through it what pinrocks keeps alive
    /// or relies on: the comparator (pinrocks checks bounds in its order), merge operator,
    /// compaction filter, WAL filter, block cache, rate limiter or table factory
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
        check_options(&self.raw)?;
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

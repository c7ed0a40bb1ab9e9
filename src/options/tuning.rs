//! Typed setters for what tuned services set: write buffers, the level shape, stall
//! triggers, I/O, write paths, periodic compaction and the info log's housekeeping. Each
//! is one RocksDB option (named in its doc as RocksDB spells it, for `set_by_name` and the
//! OPTIONS file); what has no setter here is reachable by name
//! ([`Options::set_by_name`]).

use std::ffi::CString;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use crate::callbacks::event_listener::{self, EventListener};
use crate::callbacks::info_log::{destroy_state, log_line, InfoLog, LogLevel};
use crate::options::db_options::Options;
use crate::options::statistics::StatsLevel;
use crate::options::table_options::{BlockBasedOptions, DataBlockIndexType, FilterPolicy};
use crate::raw::c_consts::{
    NO_COMPRESSION, PATHS_CF, PATHS_DB, PATH_DB_LOG_DIR, PATH_WAL_DIR, ZSTD_COMPRESSION,
};
use crate::raw::cstr::path_to_cstring;
use crate::raw::error::Result;
use crate::raw::setter::setter;

/// Whole seconds, rounded up (a sub-second period is one second, not RocksDB's 0, which
/// turns the feature off). RocksDB's unit for periods and TTLs.
pub(crate) fn seconds(d: Duration) -> u64 {
    d.as_secs() + u64::from(d.subsec_nanos() > 0)
}

impl Options {
    /// Collects statistics as [`enable_statistics`](Self::enable_statistics) does (a new
    /// collection, replacing one enabled before), at `level`: what is measured besides the
    /// tickers. RocksDB's default is [`StatsLevel::ExceptDetailedTimers`].
    ///
    /// Scope: database (`statistics`).
    #[doc(alias = "set_stats_level")]
    pub fn statistics_level(&mut self, level: StatsLevel) -> &mut Self {
        // Set on the statistics just created (the C API ignores it without statistics).
        self.raw.enable_statistics();
        self.raw.set_statistics_level(level as i32);
        self
    }

    /// `file_checksum_gen_factory`: RocksDB's CRC32c checksum of every SST and blob file,
    /// whole, recorded in the MANIFEST as each file is written (and checked by backups and
    /// [`Db::verify_file_checksums`](crate::Db::verify_file_checksums)); off by default.
    ///
    /// Scope: database (`file_checksum_gen_factory`).
    #[doc(alias = "file_checksum_gen_factory")]
    pub fn file_checksums(&mut self, on: bool) -> &mut Self {
        // Nothing is allocated but a shared pointer's count: it cannot fail.
        let _ = self.raw.set_file_checksums(on);
        self
    }

    setter!(
        /// `use_direct_reads`: read SST files with `O_DIRECT`, past the OS page cache (then
        /// the block cache is the only cache; not with mmap reads). RocksDB refuses to open
        /// where the file system has no direct I/O.
        ///
        /// Scope: database (`use_direct_reads`).
        use_direct_reads(bool) => rocksdb_options_set_use_direct_reads as u8
    );
    setter!(
        /// `use_direct_io_for_flush_and_compaction`: write (and compaction-read) SST files
        /// with `O_DIRECT`, so background I/O does not evict the page cache.
        ///
        /// Scope: database (`use_direct_io_for_flush_and_compaction`).
        use_direct_io_for_flush_and_compaction(bool) => rocksdb_options_set_use_direct_io_for_flush_and_compaction as u8
    );
    setter!(
        /// `compaction_readahead_size`: bytes read ahead by compaction inputs (RocksDB's
        /// default 2 MiB; matters most with direct I/O).
        ///
        /// Scope: database (`compaction_readahead_size`).
        compaction_readahead_size(usize) => rocksdb_options_compaction_readahead_size
    );
    setter!(
        /// `recycle_log_file_num`: WAL files kept to be reused instead of created (fewer
        /// metadata writes on some file systems).
        ///
        /// Scope: database (`recycle_log_file_num`).
        recycle_log_file_num(usize) => rocksdb_options_set_recycle_log_file_num
    );
    setter!(
        /// `max_write_buffer_number`: memtables per column family, the one being written
        /// and those waiting to be flushed; writes stall when all are full.
        ///
        /// Scope: column family (`max_write_buffer_number`).
        max_write_buffer_number(i32) => rocksdb_options_set_max_write_buffer_number
    );
    setter!(
        /// `min_write_buffer_number_to_merge`: full memtables merged into one flush. With
        /// [`atomic_flush`](Self::atomic_flush) RocksDB uses 1 whatever is set here.
        ///
        /// Scope: column family (`min_write_buffer_number_to_merge`).
        min_write_buffer_number_to_merge(i32) => rocksdb_options_set_min_write_buffer_number_to_merge
    );
    setter!(
        /// `db_write_buffer_size`: bytes of memtables across every column family of the
        /// database before a flush is forced (0: no limit). For a budget shared across
        /// databases RocksDB has a `WriteBufferManager`.
        ///
        /// Scope: database (`db_write_buffer_size`).
        db_write_buffer_size(usize) => rocksdb_options_set_db_write_buffer_size
    );
    setter!(
        /// `num_levels`: levels of the LSM tree (RocksDB's default is 7).
        ///
        /// Scope: column family (`num_levels`).
        num_levels(i32) => rocksdb_options_set_num_levels
    );
    setter!(
        /// `level_compaction_dynamic_level_bytes`: size each level from the last one up
        /// (RocksDB's default since 8.4), keeping space amplification near 1.1.
        ///
        /// Scope: column family (`level_compaction_dynamic_level_bytes`).
        level_compaction_dynamic_level_bytes(bool) => rocksdb_options_set_level_compaction_dynamic_level_bytes as u8
    );
    setter!(
        /// `max_bytes_for_level_base`: the target size of level 1, in bytes.
        ///
        /// Scope: column family (`max_bytes_for_level_base`).
        max_bytes_for_level_base(u64) => rocksdb_options_set_max_bytes_for_level_base
    );
    setter!(
        /// `max_bytes_for_level_multiplier`: each level's target over the one above.
        ///
        /// Scope: column family (`max_bytes_for_level_multiplier`).
        max_bytes_for_level_multiplier(f64) => rocksdb_options_set_max_bytes_for_level_multiplier
    );
    setter!(
        /// `target_file_size_multiplier`: each level's SST file size over the one above.
        ///
        /// Scope: column family (`target_file_size_multiplier`).
        target_file_size_multiplier(i32) => rocksdb_options_set_target_file_size_multiplier
    );
    setter!(
        /// `max_compaction_bytes`: the most bytes one compaction takes in.
        ///
        /// Scope: column family (`max_compaction_bytes`).
        max_compaction_bytes(u64) => rocksdb_options_set_max_compaction_bytes
    );
    setter!(
        /// `level0_slowdown_writes_trigger`: level-0 files at which writes slow down.
        ///
        /// Scope: column family (`level0_slowdown_writes_trigger`).
        level0_slowdown_writes_trigger(i32) => rocksdb_options_set_level0_slowdown_writes_trigger
    );
    setter!(
        /// `level0_stop_writes_trigger`: level-0 files at which writes stop.
        ///
        /// Scope: column family (`level0_stop_writes_trigger`).
        level0_stop_writes_trigger(i32) => rocksdb_options_set_level0_stop_writes_trigger
    );
    setter!(
        /// `soft_pending_compaction_bytes_limit`: bytes of pending compaction at which
        /// writes slow down (0: no limit).
        ///
        /// Scope: column family (`soft_pending_compaction_bytes_limit`).
        soft_pending_compaction_bytes_limit(usize) => rocksdb_options_set_soft_pending_compaction_bytes_limit
    );
    setter!(
        /// `hard_pending_compaction_bytes_limit`: bytes of pending compaction at which
        /// writes stop (0: no limit).
        ///
        /// Scope: column family (`hard_pending_compaction_bytes_limit`).
        hard_pending_compaction_bytes_limit(usize) => rocksdb_options_set_hard_pending_compaction_bytes_limit
    );
    setter!(
        /// `delayed_write_rate`: bytes per second writes are held to while slowed down.
        ///
        /// Scope: database (`delayed_write_rate`).
        delayed_write_rate(u64) => rocksdb_options_set_delayed_write_rate
    );
    setter!(
        /// `bytes_per_sync`: sync SST files in the background every this many bytes
        /// written (0: only at the end), smoothing I/O.
        ///
        /// Scope: database (`bytes_per_sync`).
        bytes_per_sync(u64) => rocksdb_options_set_bytes_per_sync
    );
    setter!(
        /// `allow_mmap_reads`: read SST files through mmap (not with direct reads).
        ///
        /// Scope: database (`allow_mmap_reads`).
        allow_mmap_reads(bool) => rocksdb_options_set_allow_mmap_reads as u8
    );
    setter!(
        /// `allow_mmap_writes`: write SST files through mmap (not with direct I/O).
        ///
        /// Scope: database (`allow_mmap_writes`).
        allow_mmap_writes(bool) => rocksdb_options_set_allow_mmap_writes as u8
    );
    setter!(
        /// `enable_pipelined_write`: the WAL and the memtable written by separate write
        /// groups, for write throughput. (No `unordered_write`: RocksDB documents that it
        /// gives up snapshot immutability, so the option table refuses it.)
        ///
        /// Scope: database (`enable_pipelined_write`).
        enable_pipelined_write(bool) => rocksdb_options_set_enable_pipelined_write as u8
    );
    setter!(
        /// `two_write_queues`: a second write queue for writes that skip the memtable.
        ///
        /// Scope: database (`two_write_queues`).
        two_write_queues(bool) => rocksdb_options_set_two_write_queues as u8
    );
    setter!(
        /// `atomic_flush`: flush every column family together, so that they stay
        /// consistent with each other without the WAL.
        ///
        /// Scope: database (`atomic_flush`).
        atomic_flush(bool) => rocksdb_options_set_atomic_flush as u8
    );
    setter!(
        /// `keep_log_file_num`: info log files kept.
        ///
        /// Scope: database (`keep_log_file_num`).
        keep_log_file_num(usize) => rocksdb_options_set_keep_log_file_num
    );
    setter!(
        /// `max_log_file_size`: bytes of an info log file before a new one (0: one file).
        ///
        /// Scope: database (`max_log_file_size`).
        max_log_file_size(usize) => rocksdb_options_set_max_log_file_size
    );
    setter!(
        /// `optimize_filters_for_hits`: no filter on the last level, for workloads whose
        /// reads mostly find their key.
        ///
        /// Scope: column family (`optimize_filters_for_hits`).
        optimize_filters_for_hits(bool) => rocksdb_options_set_optimize_filters_for_hits as i32
    );

    /// `periodic_compaction_seconds`: recompact files older than `period`, in whole seconds
    /// rounded up (`Duration::ZERO`: never).
    ///
    /// Scope: column family (`periodic_compaction_seconds`).
    pub fn periodic_compaction(&mut self, period: Duration) -> &mut Self {
        self.raw.set_periodic_compaction_seconds(seconds(period));
        self
    }

    /// `ttl`: with level compaction, files whose data is older than `ttl` are compacted
    /// down (and, with FIFO, deleted), in whole seconds rounded up (`Duration::ZERO`: off).
    ///
    /// Scope: column family (`ttl`).
    pub fn compaction_ttl(&mut self, ttl: Duration) -> &mut Self {
        self.raw.set_ttl(seconds(ttl));
        self
    }

    /// `stats_dump_period_sec`: how often statistics are written to the info log, in whole
    /// seconds rounded up, at most `u32::MAX` (`Duration::ZERO`: never).
    ///
    /// Scope: database (`stats_dump_period_sec`).
    pub fn stats_dump_period(&mut self, period: Duration) -> &mut Self {
        let secs = u32::try_from(seconds(period)).unwrap_or(u32::MAX);
        self.raw.set_stats_dump_period_sec(secs);
        self
    }

    /// `log_file_time_to_roll`: start a new info log file this often, in whole seconds
    /// rounded up (`Duration::ZERO`: only by size).
    ///
    /// Scope: database (`log_file_time_to_roll`).
    pub fn log_file_time_to_roll(&mut self, period: Duration) -> &mut Self {
        let secs = usize::try_from(seconds(period)).unwrap_or(usize::MAX);
        self.raw.set_log_file_time_to_roll(secs);
        self
    }

    /// `wal_compression`: compress the WAL's records with zstd (the one algorithm RocksDB
    /// compresses the WAL with; needs the `zstd` feature).
    ///
    /// Scope: database (`wal_compression`).
    pub fn wal_compression(&mut self, on: bool) -> &mut Self {
        let kind = if on { ZSTD_COMPRESSION } else { NO_COMPRESSION };
        self.raw.set_wal_compression(kind as i32);
        self
    }

    /// `info_log_level`: the least severe message the info log keeps.
    ///
    /// Scope: database (`info_log_level`).
    pub fn info_log_level(&mut self, level: LogLevel) -> &mut Self {
        // RocksDB's InfoLogLevel, in this order from 0.
        let raw = level as i32;
        self.raw.set_info_log_level(raw);
        self
    }

    /// `info_log`: RocksDB's info log to `log` (see [`InfoLog`]) instead of a `LOG` file,
    /// the lines below `level` not even formatted. Replaces
    /// [`info_log_level`](Self::info_log_level) and [`db_log_dir`](Self::db_log_dir), which
    /// apply to the file.
    ///
    /// Scope: database (`info_log`, `info_log_level`).
    pub fn info_log(&mut self, log: &InfoLog, level: LogLevel) -> &mut Self {
        // SAFETY: a new state for `log_line`, taken over by the C++ logger (freed with
        // `destroy_state`).
        let reported = unsafe {
            self.raw.set_info_log(
                level as i32,
                log.to_raw(),
                Some(log_line),
                Some(destroy_state),
            )
        };
        self.note_failure("info_log", reported);
        self
    }

    /// Adds `listener` to the listeners of databases opened with these options (see
    /// [`EventListener`]); they keep it alive.
    ///
    /// Scope: database (`listeners`).
    pub fn add_event_listener(&mut self, listener: Arc<dyn EventListener>) -> &mut Self {
        let (state, events) = event_listener::to_raw(listener);
        // SAFETY: a new state for the table's functions, taken over by the C++ listener
        // (freed with `destroy_listener`).
        let added = unsafe {
            self.raw
                .add_event_listener(state, &events, Some(event_listener::destroy_listener))
        };
        self.note_failure("add_event_listener", added);
        self
    }

    /// `wal_dir`: write the WAL there instead of the database's directory (a faster or
    /// separate device). Give every database its own: RocksDB names WAL files by number
    /// only, so two databases in one directory would take each other's for theirs.
    ///
    /// Scope: database (`wal_dir`).
    pub fn wal_dir(&mut self, dir: impl AsRef<Path>) -> &mut Self {
        self.set_paths("wal_dir", PATH_WAL_DIR, &[(dir.as_ref(), 0)])
    }

    /// `db_log_dir`: write the info log (`LOG`) there, named after the database's path,
    /// instead of in the database's directory.
    ///
    /// Scope: database (`db_log_dir`).
    pub fn db_log_dir(&mut self, dir: impl AsRef<Path>) -> &mut Self {
        self.set_paths("db_log_dir", PATH_DB_LOG_DIR, &[(dir.as_ref(), 0)])
    }

    /// `db_paths`: SST files spread over these directories, each with the bytes RocksDB
    /// aims to keep there (newer data in the first ones, the rest spilling to the last):
    /// fast and slow devices for one database. Empty: the database's own directory. Give
    /// every database its own: RocksDB deletes the files there it does not know as its.
    ///
    /// Scope: database (`db_paths`).
    pub fn db_paths<P: AsRef<Path>>(&mut self, paths: &[(P, u64)]) -> &mut Self {
        let paths: Vec<(&Path, u64)> = paths.iter().map(|(p, n)| (p.as_ref(), *n)).collect();
        self.set_paths("db_paths", PATHS_DB, &paths)
    }

    /// `cf_paths`: as [`db_paths`](Self::db_paths), for the column families given these
    /// options (used in place of the database's paths).
    ///
    /// Scope: column family (`cf_paths`).
    pub fn cf_paths<P: AsRef<Path>>(&mut self, paths: &[(P, u64)]) -> &mut Self {
        let paths: Vec<(&Path, u64)> = paths.iter().map(|(p, n)| (p.as_ref(), *n)).collect();
        self.set_paths("cf_paths", PATHS_CF, &paths)
    }

    fn set_paths(&mut self, setting: &str, kind: u32, paths: &[(&Path, u64)]) -> &mut Self {
        let outcome = (|| -> Result<()> {
            let names = paths
                .iter()
                .map(|(path, _)| path_to_cstring(path))
                .collect::<Result<Vec<CString>>>()?;
            let sizes: Vec<u64> = paths.iter().map(|(_, size)| *size).collect();
            self.raw.set_paths(kind, &names, &sizes)
        })();
        self.note_failure(setting, outcome);
        self
    }

    /// RocksDB's `OptimizeForPointLookup`: a block-based table with a hash index in each
    /// data block, a 10-bit bloom filter and a block cache of `block_cache_bytes` (other
    /// block-based settings back to their defaults), and a memtable bloom filter of whole
    /// keys. For reads of single keys, not scans.
    ///
    /// Scope: column family (`table_factory`, `memtable_prefix_bloom_size_ratio`,
    /// `memtable_whole_key_filtering`).
    pub fn optimize_for_point_lookup(&mut self, block_cache_bytes: usize) -> &mut Self {
        let mut table = BlockBasedOptions::new();
        table
            .data_block_index_type(DataBlockIndexType::BinaryAndHash)
            .data_block_hash_table_util_ratio(0.75)
            .filter(FilterPolicy::Bloom(10.0));
        table.block_cache_bytes = Some(block_cache_bytes);
        self.block_based_table(&table)
            .memtable_prefix_bloom_ratio(0.02)
            .memtable_whole_key_filtering(true)
    }

    /// RocksDB's `OptimizeLevelStyleCompaction`: level compaction sized for memtables of
    /// `memtable_budget` bytes in all (write buffers, level sizes, level-0 triggers, and
    /// no compression on levels 0 and 1, LZ4 or Snappy below where compiled in).
    ///
    /// Scope: column family (`write_buffer_size`, `max_write_buffer_number`,
    /// `min_write_buffer_number_to_merge`, `level0_file_num_compaction_trigger`,
    /// `target_file_size_base`, `max_bytes_for_level_base`, `compaction_style`,
    /// `compression_per_level`).
    pub fn optimize_level_style_compaction(&mut self, memtable_budget: u64) -> &mut Self {
        self.raw.optimize_level_style_compaction(memtable_budget);
        self
    }

    /// RocksDB's `OptimizeUniversalStyleCompaction`: universal compaction sized for
    /// memtables of `memtable_budget` bytes in all.
    ///
    /// Scope: column family (`write_buffer_size`, `max_write_buffer_number`,
    /// `min_write_buffer_number_to_merge`, `compaction_style`, `compaction_options_universal`).
    pub fn optimize_universal_style_compaction(&mut self, memtable_budget: u64) -> &mut Self {
        self.raw
            .optimize_universal_style_compaction(memtable_budget);
        self
    }

    /// RocksDB's `PrepareForBulkLoad`: no automatic compaction and no write stalls while
    /// loading (level-0 triggers out of reach, no pending-bytes limits), two levels, six
    /// memtables: load, then [`compact_range`](crate::Db::compact_range) once, then reopen
    /// with the normal options.
    ///
    /// Scope: database (`max_background_flushes`, `max_background_compactions`) and column
    /// family (`disable_auto_compactions`, `level0_file_num_compaction_trigger`,
    /// `level0_slowdown_writes_trigger`, `level0_stop_writes_trigger`,
    /// `soft_pending_compaction_bytes_limit`, `hard_pending_compaction_bytes_limit`,
    /// `num_levels`, `max_write_buffer_number`, `min_write_buffer_number_to_merge`,
    /// `max_compaction_bytes`, `target_file_size_base`).
    pub fn prepare_for_bulk_load(&mut self) -> &mut Self {
        self.raw.prepare_for_bulk_load();
        self
    }
}

//! Every `rocksdb.*` property RocksDB 11.8.1 knows (its `db/internal_stats.cc` table), as a
//! typed name: an integer property reads as a `u64`, a text one as a `String`, a map one
//! (`rocksdb.cfstats` and the others that have a map form) as a [`PropertyMap`]. Read with
//! [`ColumnFamily::get_property`](crate::ColumnFamily::get_property), summed over the
//! families with [`Db::aggregated_property`](crate::Db::aggregated_property).

use crate::admin::properties::{Property, PropertyMap};

/// The number of files and the size (MB) of each level, as text.
pub const LEVEL_STATS: Property<String> = Property::named("rocksdb.levelstats");

/// The column family statistics followed by the database statistics, as text.
pub const STATS: Property<String> = Property::named("rocksdb.stats");

/// Column family statistics per level over the database's life, with the file read
/// histogram.
pub const CF_STATS: Property<String> = Property::named("rocksdb.cfstats");

/// As [`CF_STATS`], as a map of names to values.
pub const CF_STATS_MAP: Property<PropertyMap> = Property::named("rocksdb.cfstats");

/// Column family statistics per level (`L<n>`), summed over the database's life (`Sum`)
/// and over the interval since the last read (`Int`), as text.
pub const CF_STATS_NO_FILE_HISTOGRAM: Property<String> =
    Property::named("rocksdb.cfstats-no-file-histogram");

/// File reads per level and the latency histogram of single reads, as text.
pub const CF_FILE_HISTOGRAM: Property<String> = Property::named("rocksdb.cf-file-histogram");

/// Write stalls of this column family, counted by cause.
pub const CF_WRITE_STALL_STATS: Property<String> = Property::named("rocksdb.cf-write-stall-stats");

/// As [`CF_WRITE_STALL_STATS`], as a map of names to values.
pub const CF_WRITE_STALL_STATS_MAP: Property<PropertyMap> =
    Property::named("rocksdb.cf-write-stall-stats");

/// Database statistics (cumulative and for the interval since the last read).
pub const DB_STATS: Property<String> = Property::named("rocksdb.dbstats");

/// As [`DB_STATS`], as a map of names to values.
pub const DB_STATS_MAP: Property<PropertyMap> = Property::named("rocksdb.dbstats");

/// Write stalls of the whole database, counted by cause.
pub const DB_WRITE_STALL_STATS: Property<String> = Property::named("rocksdb.db-write-stall-stats");

/// As [`DB_WRITE_STALL_STATS`], as a map of names to values.
pub const DB_WRITE_STALL_STATS_MAP: Property<PropertyMap> =
    Property::named("rocksdb.db-write-stall-stats");

/// What the block cache holds, by kind of block.
pub const BLOCK_CACHE_ENTRY_STATS: Property<String> =
    Property::named("rocksdb.block-cache-entry-stats");

/// As [`BLOCK_CACHE_ENTRY_STATS`], as a map of names to values.
pub const BLOCK_CACHE_ENTRY_STATS_MAP: Property<PropertyMap> =
    Property::named("rocksdb.block-cache-entry-stats");

/// As `BLOCK_CACHE_ENTRY_STATS`, with staler values that cost less.
pub const FAST_BLOCK_CACHE_ENTRY_STATS: Property<String> =
    Property::named("rocksdb.fast-block-cache-entry-stats");

/// As [`FAST_BLOCK_CACHE_ENTRY_STATS`], as a map of names to values.
pub const FAST_BLOCK_CACHE_ENTRY_STATS_MAP: Property<PropertyMap> =
    Property::named("rocksdb.fast-block-cache-entry-stats");

/// A multi-line string summarizing current SST files.
pub const SSTABLES: Property<String> = Property::named("rocksdb.sstables");

/// The table properties of the column family's SST files, summed.
pub const AGGREGATED_TABLE_PROPERTIES: Property<String> =
    Property::named("rocksdb.aggregated-table-properties");

/// As [`AGGREGATED_TABLE_PROPERTIES`], as a map of names to values.
pub const AGGREGATED_TABLE_PROPERTIES_MAP: Property<PropertyMap> =
    Property::named("rocksdb.aggregated-table-properties");

/// Number of immutable memtables that have not yet been flushed.
pub const NUM_IMMUTABLE_MEM_TABLE: Property<u64> =
    Property::named("rocksdb.num-immutable-mem-table");

/// Number of immutable memtables that have already been flushed.
pub const NUM_IMMUTABLE_MEM_TABLE_FLUSHED: Property<u64> =
    Property::named("rocksdb.num-immutable-mem-table-flushed");

/// 1 if a memtable flush is pending; otherwise, returns 0.
pub const MEM_TABLE_FLUSH_PENDING: Property<u64> =
    Property::named("rocksdb.mem-table-flush-pending");

/// 1 if at least one compaction is pending; otherwise, returns 0.
pub const COMPACTION_PENDING: Property<u64> = Property::named("rocksdb.compaction-pending");

/// Accumulated number of background errors.
pub const BACKGROUND_ERRORS: Property<u64> = Property::named("rocksdb.background-errors");

/// Approximate size of active memtable (bytes).
pub const CUR_SIZE_ACTIVE_MEM_TABLE: Property<u64> =
    Property::named("rocksdb.cur-size-active-mem-table");

/// Approximate size of active and unflushed immutable memtables (bytes).
pub const CUR_SIZE_ALL_MEM_TABLES: Property<u64> =
    Property::named("rocksdb.cur-size-all-mem-tables");

/// Approximate size of active, unflushed immutable, and pinned immutable memtables (bytes).
pub const SIZE_ALL_MEM_TABLES: Property<u64> = Property::named("rocksdb.size-all-mem-tables");

/// Total number of entries in the active memtable.
pub const NUM_ENTRIES_ACTIVE_MEM_TABLE: Property<u64> =
    Property::named("rocksdb.num-entries-active-mem-table");

/// Total number of entries in the unflushed immutable memtables.
pub const NUM_ENTRIES_IMM_MEM_TABLES: Property<u64> =
    Property::named("rocksdb.num-entries-imm-mem-tables");

/// Total number of delete entries in the active memtable.
pub const NUM_DELETES_ACTIVE_MEM_TABLE: Property<u64> =
    Property::named("rocksdb.num-deletes-active-mem-table");

/// Total number of delete entries in the unflushed immutable memtables.
pub const NUM_DELETES_IMM_MEM_TABLES: Property<u64> =
    Property::named("rocksdb.num-deletes-imm-mem-tables");

/// Estimated number of keys in the memtables (active and unflushed) and the files.
pub const ESTIMATE_NUM_KEYS: Property<u64> = Property::named("rocksdb.estimate-num-keys");

/// Estimated memory used to read SST files (indexes and filters outside the block cache).
pub const ESTIMATE_TABLE_READERS_MEM: Property<u64> =
    Property::named("rocksdb.estimate-table-readers-mem");

/// 1 while obsolete files are deleted, 0 while deletions are disabled
/// ([`Db::disable_file_deletions`](crate::Db::disable_file_deletions)).
pub const IS_FILE_DELETIONS_ENABLED: Property<u64> =
    Property::named("rocksdb.is-file-deletions-enabled");

/// Number of unreleased snapshots of the database.
pub const NUM_SNAPSHOTS: Property<u64> = Property::named("rocksdb.num-snapshots");

/// Number representing unix timestamp of oldest unreleased snapshot.
pub const OLDEST_SNAPSHOT_TIME: Property<u64> = Property::named("rocksdb.oldest-snapshot-time");

/// Number representing sequence number of oldest unreleased snapshot.
pub const OLDEST_SNAPSHOT_SEQUENCE: Property<u64> =
    Property::named("rocksdb.oldest-snapshot-sequence");

/// Number of live versions.
pub const NUM_LIVE_VERSIONS: Property<u64> = Property::named("rocksdb.num-live-versions");

/// Number of current LSM version.
pub const CURRENT_SUPER_VERSION_NUMBER: Property<u64> =
    Property::named("rocksdb.current-super-version-number");

/// An estimate of the amount of live data in bytes.
pub const ESTIMATE_LIVE_DATA_SIZE: Property<u64> =
    Property::named("rocksdb.estimate-live-data-size");

/// The minimum log number of the log files that should be kept.
pub const MIN_LOG_NUMBER_TO_KEEP: Property<u64> = Property::named("rocksdb.min-log-number-to-keep");

/// The minimum file number for an obsolete SST to be kept.
pub const MIN_OBSOLETE_SST_NUMBER_TO_KEEP: Property<u64> =
    Property::named("rocksdb.min-obsolete-sst-number-to-keep");

/// Number of level to which L0 data will be compacted.
pub const BASE_LEVEL: Property<u64> = Property::named("rocksdb.base-level");

/// Total size (bytes) of all SST files belonging to any of the CF's versions.
pub const TOTAL_SST_FILES_SIZE: Property<u64> = Property::named("rocksdb.total-sst-files-size");

/// Total size (bytes) of all SST files belong to the CF's current version.
pub const LIVE_SST_FILES_SIZE: Property<u64> = Property::named("rocksdb.live-sst-files-size");

/// Total size (bytes) of the SST files that became obsolete and are not yet deleted or
/// scheduled for deletion.
pub const OBSOLETE_SST_FILES_SIZE: Property<u64> =
    Property::named("rocksdb.obsolete-sst-files-size");

/// Estimated bytes compactions must rewrite to bring every level under its target size.
pub const ESTIMATE_PENDING_COMPACTION_BYTES: Property<u64> =
    Property::named("rocksdb.estimate-pending-compaction-bytes");

/// The number of currently running flushes.
pub const NUM_RUNNING_FLUSHES: Property<u64> = Property::named("rocksdb.num-running-flushes");

/// The number of currently running compactions.
pub const NUM_RUNNING_COMPACTIONS: Property<u64> =
    Property::named("rocksdb.num-running-compactions");

/// The number of sorted runs being processed by currently running compactions.
pub const NUM_RUNNING_COMPACTION_SORTED_RUNS: Property<u64> =
    Property::named("rocksdb.num-running-compaction-sorted-runs");

/// The current value of the compaction abort counter.
pub const COMPACTION_ABORT_COUNT: Property<u64> = Property::named("rocksdb.compaction-abort-count");

/// The current actual delayed write rate.
pub const ACTUAL_DELAYED_WRITE_RATE: Property<u64> =
    Property::named("rocksdb.actual-delayed-write-rate");

/// 1 if write has been stopped.
pub const IS_WRITE_STOPPED: Property<u64> = Property::named("rocksdb.is-write-stopped");

/// An estimate of the oldest key's time (FIFO compaction only).
pub const ESTIMATE_OLDEST_KEY_TIME: Property<u64> =
    Property::named("rocksdb.estimate-oldest-key-time");

/// Block cache capacity.
pub const BLOCK_CACHE_CAPACITY: Property<u64> = Property::named("rocksdb.block-cache-capacity");

/// The memory size for the entries residing in block cache.
pub const BLOCK_CACHE_USAGE: Property<u64> = Property::named("rocksdb.block-cache-usage");

/// The memory size for the entries being pinned.
pub const BLOCK_CACHE_PINNED_USAGE: Property<u64> =
    Property::named("rocksdb.block-cache-pinned-usage");

/// The statistics of `Options::enable_statistics`, as text.
pub const OPTIONS_STATISTICS: Property<String> = Property::named("rocksdb.options-statistics");

/// Number of blob files in the current version.
pub const NUM_BLOB_FILES: Property<u64> = Property::named("rocksdb.num-blob-files");

/// The number and size of the blob files, and their garbage (bytes), in the current
/// version, as text.
pub const BLOB_STATS: Property<String> = Property::named("rocksdb.blob-stats");

/// The total size of all blob files over all versions.
pub const TOTAL_BLOB_FILE_SIZE: Property<u64> = Property::named("rocksdb.total-blob-file-size");

/// The total size of all blob files in the current version.
pub const LIVE_BLOB_FILE_SIZE: Property<u64> = Property::named("rocksdb.live-blob-file-size");

/// The total amount of garbage in the blob files in the current version.
pub const LIVE_BLOB_FILE_GARBAGE_SIZE: Property<u64> =
    Property::named("rocksdb.live-blob-file-garbage-size");

/// Blob cache capacity.
pub const BLOB_CACHE_CAPACITY: Property<u64> = Property::named("rocksdb.blob-cache-capacity");

/// The memory size for the entries residing in blob cache.
pub const BLOB_CACHE_USAGE: Property<u64> = Property::named("rocksdb.blob-cache-usage");

/// The memory size for the entries being pinned in blob cache.
pub const BLOB_CACHE_PINNED_USAGE: Property<u64> =
    Property::named("rocksdb.blob-cache-pinned-usage");

/// The number of files at `level`, as text: `rocksdb.num-files-at-level{level}`.
pub fn num_files_at_level(level: u32) -> Property<String> {
    Property::owned(format!("rocksdb.num-files-at-level{level}"))
}

/// The compression ratio at `level` (uncompressed over compressed size; "-1.0" for no
/// files), as text: `rocksdb.compression-ratio-at-level{level}`.
pub fn compression_ratio_at_level(level: u32) -> Property<String> {
    Property::owned(format!("rocksdb.compression-ratio-at-level{level}"))
}

/// The table properties of the files at `level`, summed:
/// `rocksdb.aggregated-table-properties-at-level{level}`.
pub fn aggregated_table_properties_at_level(level: u32) -> Property<String> {
    Property::owned(format!(
        "rocksdb.aggregated-table-properties-at-level{level}"
    ))
}

/// As [`aggregated_table_properties_at_level`], as a map.
pub fn aggregated_table_properties_at_level_map(level: u32) -> Property<PropertyMap> {
    Property::owned(format!(
        "rocksdb.aggregated-table-properties-at-level{level}"
    ))
}

/// The size of the live SST files at `temperature` (RocksDB's `Temperature` number), as
/// text: `rocksdb.live-sst-files-size-at-temperature{temperature}`.
pub fn live_sst_files_size_at_temperature(temperature: u8) -> Property<String> {
    Property::owned(format!(
        "rocksdb.live-sst-files-size-at-temperature{temperature}"
    ))
}

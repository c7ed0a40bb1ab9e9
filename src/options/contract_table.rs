//! Long because: one row per option name RocksDB 11.8.1 parses by name (every entry of
//! `db_mutable_options_type_info`, `db_immutable_options_type_info`,
//! `cf_mutable_options_type_info`, `cf_immutable_options_type_info`, the FIFO, universal and
//! compression structs they nest, `block_based_table_type_info` with its metadata cache
//! options, `plain_table_type_info` and `cuckoo_table_type_info`, deprecated names and
//! aliases included; and those 11.12.0 added, in `ADDED_IN_11_12`), each with what pinrocks
//! allows of it and why, citing the RocksDB code that allocates, sizes, spins or starts
//! threads from the value. Splitting it would only scatter one table that `contract.rs`
//! reads as a whole.

use crate::options::contract_rules::Rule::{Allowed, Ignored, TypedOnly};
use crate::options::contract_rules::Scope::{BlockBased, Cf, Cuckoo, Db, Plain};
use crate::options::contract_rules::{
    float, forced, int, none_of, one_of, refused, row, zero_or_float, Contract, GIB, KIB,
    MAX_POOL_THREADS, MIB,
};
use crate::raw::c_consts::MAX_NUM_LEVELS;

/// Integer limits of RocksDB's option types, as bounds.
const I32_MIN: i128 = i32::MIN as i128;
const I32_MAX: i128 = i32::MAX as i128;
const U32_MAX: i128 = u32::MAX as i128;
const U64_MAX: i128 = u64::MAX as i128;

/// The most threads one pool, one compaction or one partitioned write may be asked for
/// (`MAX_POOL_THREADS`, as `Env::set_background_threads` refuses more): a 128-core server
/// eight times over.
const THREADS: i128 = MAX_POOL_THREADS as i128;

/// zlib's window in bits: RocksDB's reader inflates raw deflate with a window of 2^14
/// (`Zlib_DecompressBlock`'s -14), whatever the writer used; a writer's larger window (-15)
/// or a zlib or gzip header (8..=31) makes blocks and blobs that every read reports corrupt,
/// and zlib refuses -8 for raw deflate (a blob file's compression then fails every flush).
const ZLIB_WINDOW: &str = "every zlib block or blob is read back as raw deflate with a 2^14 \
     window (Zlib_DecompressBlock): a larger window (-15) or a header (8..=31) makes files \
     that read as corrupt, and zlib refuses -8 for raw deflate (a blob's compression then \
     fails its flush)";

/// The longest retry wait, in microseconds (as `error_recovery.rs`): RocksDB adds it to the
/// clock in an `int64_t`.
const MAX_RETRY_INTERVAL_MICROS: i128 = (i64::MAX / 2) as i128;

/// One second in microseconds: the longest a writer may yield-spin.
const ONE_SECOND_MICROS: i128 = 1_000_000;

/// Why only the block-based and plain formats: what the cuckoo builder does to writes.
const TABLE_FORMATS: &str = "the cuckoo table format: RocksDB 11.8.1's cuckoo builder drops every \
    value whose length differs from the file's first (and every merge) and still reports the flush \
    done, so acknowledged writes would be lost";

/// Why a zstd dictionary is bounded (the same for the three compression structs).
const DICT_BYTES: &str = "bytes allocated per file written: the zstd compressor trains or \
    finalizes a dictionary into a buffer of this size (ZSTD_TrainDictionary, \
    ZSTD_FinalizeDictionary in util/compression.cc) on the flush and compaction threads (a uint32 \
    RocksDB serializes as int: above 2^31 it reads back negative)";

/// Why the seqno-to-time periods are bounded.
const PRESERVE_SECONDS: &str = "a period: DBImpl::RegisterRecordSeqnoTimeWorker records every \
    (seconds + 99) / 100 s through PeriodicTaskScheduler::Register, which multiplies by 1,000,000 \
    in uint64 (periodic_task_scheduler.cc): past ~1.8e15 s it wraps to a short period and the task \
    fires in a loop";

/// Why blob garbage-collection ratios are fractions (as `blob_files.rs` refuses them).
const GC_RATIO: &str = "a fraction: RocksDB checks [0, 1] only with garbage collection on \
    (ColumnFamilyData::ValidateOptions) and never a NaN, which it multiplies by a file count and \
    casts to an index (VersionStorageInfo::ComputeFilesMarkedForForcedBlobGC)";

/// Every option RocksDB 11.8.1 parses by name, and what pinrocks allows of it.
pub(crate) const CONTRACTS: &[Contract] = &[
    // ---- DBOptions: db_mutable_options_type_info (options/db_options.cc) ----
    row(Db, "allow_os_buffer", true, Ignored),
    row(Db, "base_background_compactions", true, Ignored),
    row(
        Db,
        "max_background_jobs",
        true,
        int(
            -1,
            THREADS,
            "threads: open and SetDBOptions raise the Env's LOW and HIGH pools to the job limits \
             (db_impl_open.cc SanitizeOptions, DBImpl::GetBGJobLimits, \
             Env::IncBackgroundThreadsIfNeeded); a pool that cannot start one throws \
             std::system_error",
        ),
    ),
    row(
        Db,
        "max_background_compactions",
        true,
        int(
            -1,
            THREADS,
            "threads: the LOW pool is raised to this many (DBImpl::GetBGJobLimits, \
             Env::IncBackgroundThreadsIfNeeded); a thread that cannot start throws \
             std::system_error",
        ),
    ),
    row(
        Db,
        "max_subcompactions",
        true,
        int(
            0,
            THREADS,
            "threads: CompactionJob::RunSubcompactions starts one std::thread per extra \
             subcompaction on the compaction thread (compaction_job.cc); one that cannot start \
             throws std::system_error there",
        ),
    ),
    row(Db, "avoid_flush_during_shutdown", true, Allowed),
    // 0 leaves WritableFileWriter a buffer of capacity 0, and WritableFileWriter::Pad
    // (file/writable_file_writer.cc) then loops for ever when super-block alignment pads a
    // block. Above that the buffer only grows to fit one append (WritableFileWriter::Append).
    row(
        Db,
        "writable_file_max_buffer_size",
        true,
        int(
            1,
            U64_MAX,
            "a buffer of 0 bytes: WritableFileWriter::Pad (file/writable_file_writer.cc) appends \
             0 bytes a turn and loops for ever on the flush thread when \
             super_block_alignment_size pads a block",
        ),
    ),
    // An integer, bounded as a double for the one bound that takes 0 apart. SetDBOptions
    // still turns a live 0 into 1 B/s (WriteController::set_max_delayed_write_rate).
    row(
        Db,
        "delayed_write_rate",
        true,
        zero_or_float(
            (64 * KIB) as f64,
            u64::MAX as f64,
            "a throttle: a delayed write sleeps its bytes / rate (WriteController::GetDelay, \
             db/write_controller.cc), and a few bytes a second hold a stalled write for hours; 0 \
             is RocksDB's default, 16 MiB/s at open (SanitizeOptions)",
        ),
    ),
    row(Db, "max_total_wal_size", true, Allowed),
    row(Db, "delete_obsolete_files_period_micros", true, Allowed),
    // An unsigned int of seconds: times 1,000,000 it still fits the timer's uint64.
    row(Db, "stats_dump_period_sec", true, Allowed),
    row(Db, "stats_persist_period_sec", true, Allowed),
    // A limit on the history kept, not an allocation (DBImpl::PersistStats).
    row(Db, "stats_history_buffer_size", true, Allowed),
    // SanitizeOptions clips it to [20, the process's file limit] (-1: all open).
    row(Db, "max_open_files", true, Allowed),
    row(Db, "bytes_per_sync", true, Allowed),
    row(Db, "wal_bytes_per_sync", true, Allowed),
    row(Db, "strict_bytes_per_sync", true, Allowed),
    row(
        Db,
        "compaction_readahead_size",
        true,
        int(
            0,
            GIB,
            "bytes allocated per compaction input file: TableCache::NewIterator hands it to the \
             table reader as its FilePrefetchBuffer size on the compaction thread \
             (db/table_cache.cc); a 1 TiB buffer throws std::bad_alloc there",
        ),
    ),
    row(
        Db,
        "max_background_flushes",
        true,
        int(
            -1,
            THREADS,
            "threads: the HIGH pool is raised to this many (DBImpl::GetBGJobLimits, \
             Env::IncBackgroundThreadsIfNeeded); a thread that cannot start throws \
             std::system_error",
        ),
    ),
    row(Db, "max_manifest_file_size", true, Allowed),
    // Clamped at 0 and kept unsigned (VersionSet::TuneMaxManifestFileSize).
    row(Db, "max_manifest_space_amp_pct", true, Allowed),
    // A fallocate hint whose failure RocksDB ignores, not a memory buffer.
    row(Db, "manifest_preallocation_size", true, Allowed),
    row(Db, "verify_manifest_content_on_close", true, Allowed),
    row(Db, "optimize_manifest_for_recovery", true, Allowed),
    // Parsed and checked by RocksDB (OffpeakTimeOption).
    row(Db, "daily_offpeak_time_utc", true, Allowed),
    row(
        Db,
        "max_compaction_trigger_wakeup_seconds",
        true,
        int(
            0,
            U32_MAX,
            "a period: DBImpl::ComputeTriggerCompactionPeriod hands it to \
             PeriodicTaskScheduler::Register, which multiplies it by 1,000,000 in uint64 \
             (periodic_task_scheduler.cc): past ~1.8e13 s it wraps to a short period and the task \
             fires in a loop",
        ),
    ),
    row(Db, "fast_sst_open", true, Allowed),
    // ---- DBOptions: db_immutable_options_type_info (options/db_options.cc) ----
    row(Db, "advise_random_on_open", false, Allowed),
    row(Db, "allow_mmap_reads", false, Allowed),
    row(Db, "allow_fallocate", false, Allowed),
    row(Db, "allow_mmap_writes", false, Allowed),
    row(Db, "use_direct_reads", false, Allowed),
    row(Db, "use_direct_io_for_compaction_reads", false, Allowed),
    row(Db, "use_direct_writes", false, Ignored),
    row(Db, "use_direct_io_for_flush_and_compaction", false, Allowed),
    row(Db, "allow_2pc", false, Allowed),
    row(
        Db,
        "wal_filter",
        false,
        // A raw WalFilter pointer (ImmutableDBOptions::wal_filter): by name RocksDB would
        // keep an object nothing owns or frees for pinrocks to track (drop order), and
        // 11.8.1 registers no WalFilter to make.
        TypedOnly("Options::wal_filter"),
    ),
    row(Db, "create_if_missing", false, Allowed),
    row(Db, "create_missing_column_families", false, Allowed),
    row(Db, "disableDataSync", false, Ignored),
    row(Db, "disable_data_sync", false, Ignored),
    row(Db, "enable_thread_tracking", false, Allowed),
    row(Db, "error_if_exists", false, Allowed),
    row(Db, "experimental_allow_mempurge", false, Ignored),
    row(Db, "experimental_mempurge_policy", false, Ignored),
    // Deprecated here, live as a column family option (the Cf row below).
    row(Db, "experimental_mempurge_threshold", false, Ignored),
    row(Db, "is_fd_close_on_exec", false, Allowed),
    row(Db, "paranoid_checks", false, Allowed),
    // DBImpl::ValidateOptions / ColumnFamilyData::ValidateOptions check its companions.
    row(Db, "open_files_async", false, Allowed),
    row(Db, "flush_verify_memtable_count", false, Allowed),
    row(Db, "compaction_verify_record_count", false, Allowed),
    row(Db, "track_and_verify_wals_in_manifest", false, Allowed),
    row(
        Db,
        "track_and_verify_wals",
        false,
        refused(
            "false",
            "experimental, and RocksDB documents it incompatible with repair: after \
             Db::repair archived the WALs, the next open fails (\"Opening an existing DB with \
             no WAL files\", db_impl_open.cc)",
        ),
    ),
    row(Db, "verify_sst_unique_id_in_manifest", false, Allowed),
    row(Db, "skip_log_error_on_recovery", false, Ignored),
    row(Db, "skip_stats_update_on_db_open", false, Allowed),
    row(
        Db,
        "skip_checking_sst_file_sizes_on_db_open",
        false,
        Ignored,
    ),
    row(Db, "new_table_reader_for_compaction_inputs", false, Ignored),
    row(Db, "random_access_max_buffer_size", false, Ignored),
    row(Db, "use_adaptive_mutex", false, Allowed),
    row(Db, "use_fsync", false, Allowed),
    // 1 or less: the calling thread alone.
    row(
        Db,
        "max_file_opening_threads",
        false,
        int(
            I32_MIN,
            THREADS,
            "threads: LoadTableHandlersHelper (db/version_util.cc) starts this many minus one \
             std::threads at every LogAndApply that loads table handlers (open, and flushes and \
             compactions with max_open_files=-1), however few files there are; one that cannot \
             start throws std::system_error",
        ),
    ),
    // Read only where RocksDB is built with coroutines (not this build); RocksDB refuses
    // 0 or less (DBImpl::ValidateOptions).
    row(
        Db,
        "read_io_executor_threads",
        false,
        int(
            1,
            THREADS,
            "threads: with coroutines DBImpl::DBImpl sizes the file system's read I/O executor to \
             this many (FileSystem::SetReadIOExecutorThreads); RocksDB refuses 0 or less",
        ),
    ),
    row(
        Db,
        "table_cache_numshardbits",
        false,
        int(
            -1,
            19,
            "NewLRUCache returns null for 20 or more shard bits (cache/lru_cache.cc), \
             DBImpl::DBImpl keeps the null table cache and the first table open dereferences it",
        ),
    ),
    row(Db, "db_write_buffer_size", false, Allowed),
    row(Db, "keep_log_file_num", false, Allowed),
    row(Db, "recycle_log_file_num", false, Allowed),
    row(Db, "async_wal_precreate", false, Allowed),
    row(Db, "log_file_time_to_roll", false, Allowed),
    row(Db, "max_log_file_size", false, Allowed),
    row(Db, "db_log_dir", false, Allowed),
    row(Db, "wal_dir", false, Allowed),
    row(Db, "WAL_size_limit_MB", false, Allowed),
    row(Db, "WAL_ttl_seconds", false, Allowed),
    // Adds RocksDB's hidden `___rocksdb_stats_history___` column family.
    row(Db, "persist_stats_to_disk", false, Allowed),
    row(Db, "fail_if_options_file_error", false, Ignored),
    row(Db, "enable_pipelined_write", false, Allowed),
    row(
        Db,
        "unordered_write",
        false,
        refused(
            "false",
            "snapshots stop being immutable: RocksDB then publishes sequence numbers before \
             earlier writes land, so a read at a snapshot can change after it was taken \
             (include/rocksdb/options.h, unordered_write)",
        ),
    ),
    row(Db, "allow_concurrent_memtable_write", false, Allowed),
    row(Db, "wal_recovery_mode", false, Allowed),
    row(Db, "enable_write_thread_adaptive_yield", false, Allowed),
    // Only decides when a spin gives up early; the spin is bounded by
    // write_thread_max_yield_usec.
    row(Db, "write_thread_slow_yield_usec", false, Allowed),
    // Allocated as the group's batches are merged, not up front.
    row(
        Db,
        "max_write_batch_group_size_bytes",
        false,
        int(
            0,
            1 << 30,
            "a write group merges its batches into one WAL record whose count is 32 bits \
             (WriteBatchInternal::Append): past 1 GiB of followers a group of batches pinrocks \
             lets each hold up to 2^31 - 1 records could wrap it",
        ),
    ),
    row(
        Db,
        "write_thread_max_yield_usec",
        false,
        int(
            0,
            ONE_SECOND_MICROS,
            "spin: WriteThread::AwaitState (db/write_thread.cc) yield-spins each waiting writer \
             up to this long before it blocks, a core per writer for as long as the group \
             leader's WAL write takes",
        ),
    ),
    row(Db, "access_hint_on_compaction_start", false, Ignored),
    row(Db, "info_log_level", false, Allowed),
    row(Db, "dump_malloc_stats", false, Allowed),
    row(Db, "avoid_flush_during_recovery", false, Allowed),
    row(
        Db,
        "enforce_write_buffer_manager_during_recovery",
        false,
        Allowed,
    ),
    row(Db, "allow_ingest_behind", false, Allowed),
    row(Db, "preserve_deletes", false, Ignored),
    row(Db, "concurrent_prepare", false, Ignored),
    row(Db, "two_write_queues", false, Allowed),
    row(Db, "manual_wal_flush", false, Allowed),
    // Anything but zstd is turned off by SanitizeOptions.
    row(Db, "wal_compression", false, Allowed),
    row(Db, "background_close_inactive_wals", false, Allowed),
    row(Db, "seq_per_batch", false, Ignored),
    row(Db, "atomic_flush", false, Allowed),
    row(Db, "avoid_unnecessary_blocking_io", false, Allowed),
    row(Db, "prefix_seek_opt_in_only", false, Allowed),
    row(Db, "write_dbid_to_manifest", false, Allowed),
    row(Db, "reuse_manifest_on_open", false, Allowed),
    row(Db, "write_identity_file", false, Allowed),
    row(
        Db,
        "log_readahead_size",
        false,
        int(
            0,
            GIB,
            "bytes allocated per log reader: ReadaheadSequentialFile allocates a buffer of this \
             size for every WAL and MANIFEST it reads (file/sequence_file_reader.cc), at open and \
             in MANIFEST checks",
        ),
    ),
    row(
        Db,
        "best_efforts_recovery",
        false,
        refused(
            "false",
            "an open with it does not read the WAL (db_impl_open.cc; options.h: it \"does not \
             yet attempt to recover any WAL files\"), and pinrocks' close does not flush: \
             every acknowledged write since the last flush would be lost",
        ),
    ),
    // 0 or less turns RocksDB's own recovery off (ErrorHandler::RecoverFromRetryableBGIOError).
    row(Db, "max_bgerror_resume_count", false, Allowed),
    row(
        Db,
        "bgerror_resume_retry_interval",
        false,
        int(
            0,
            MAX_RETRY_INTERVAL_MICROS,
            "a wait: ErrorHandler::RecoverFromRetryableBGIOError adds it to NowMicros() in an \
             int64_t deadline (db/error_handler.cc); near u64::MAX the deadline is in the past \
             and the retries spin",
        ),
    ),
    row(Db, "db_host_id", false, Allowed),
    row(Db, "rate_limiter", false, Ignored),
    // Not serialized (kDontSerialize), so no bound can be checked on it; by name RocksDB
    // makes NewGenericRateLimiter(value), and under 10 B/s it refills nothing: flushes and
    // the process's exit hang. `RateLimiter::new` refuses those rates.
    row(
        Db,
        "rate_limiter_bytes_per_sec",
        false,
        TypedOnly("Options::rate_limiter"),
    ),
    // One Env per database: pinrocks keeps the owner of the Env RocksDB points at on the
    // Rust side (`Options::env_owner`: kept alive by every database, asked whether files
    // are in memory); by name `Env::CreateFromString` would swap the Env behind it.
    row(Db, "env", false, TypedOnly("Options::mem_env")),
    row(Db, "allow_data_in_errors", false, Allowed),
    // RocksDB's own FileChecksumGenCrc32cFactory is the one it makes by name.
    row(Db, "file_checksum_gen_factory", false, Allowed),
    // RocksDB's BasicStatistics, owned by RocksDB; Db::statistics reads whatever is there.
    row(Db, "statistics", false, Allowed),
    // By name RocksDB replaces the whole listener vector (db_options.cc, "listeners"),
    // dropping every listener Options::add_event_listener installed.
    row(
        Db,
        "listeners",
        false,
        TypedOnly("Options::add_event_listener"),
    ),
    row(Db, "lowest_used_cache_tier", false, Allowed),
    row(
        Db,
        "enforce_single_del_contracts",
        false,
        forced(
            "false",
            "with true, a flush or compaction that meets a single delete mixed with a delete \
             of its key fails with Corruption and the database stops taking writes; with \
             false RocksDB logs it, and reads are as undefined as Writer::single_delete says",
        ),
    ),
    // Read only by DBImplFollower::PeriodicRefresh (db_impl_follower.cc); pinrocks opens no
    // follower.
    row(Db, "follower_refresh_catchup_period_ms", false, Allowed),
    row(Db, "follower_catchup_retry_count", false, Allowed),
    row(Db, "follower_catchup_retry_wait_ms", false, Allowed),
    row(Db, "metadata_write_temperature", false, Allowed),
    row(Db, "wal_write_temperature", false, Allowed),
    // ---- ColumnFamilyOptions: cf_mutable_options_type_info (options/cf_options.cc) ----
    row(Cf, "report_bg_io_stats", true, Allowed),
    row(Cf, "disable_auto_compactions", true, Allowed),
    row(
        Cf,
        "table_factory",
        true,
        one_of(&["BlockBasedTable", "PlainTable"], TABLE_FORMATS),
    ),
    // Aliases of table_factory (kAlias) whose value is the table's own options: they
    // always make a BlockBasedTable (a PlainTable), inside table_factory's rule, and the
    // options they set are checked one by one in the BlockBased (Plain) rows.
    row(Cf, "block_based_table_factory", true, Allowed),
    row(Cf, "plain_table_factory", true, Allowed),
    row(Cf, "filter_deletes", true, Ignored),
    row(Cf, "check_flush_compaction_key_order", true, Ignored),
    row(Cf, "paranoid_file_checks", true, Allowed),
    row(Cf, "verify_output_flags", true, Allowed),
    row(Cf, "verify_checksums_in_compaction", true, Ignored),
    row(Cf, "soft_pending_compaction_bytes_limit", true, Allowed),
    row(Cf, "hard_pending_compaction_bytes_limit", true, Allowed),
    row(Cf, "hard_rate_limit", true, Ignored),
    row(Cf, "soft_rate_limit", true, Ignored),
    row(Cf, "max_compaction_bytes", true, Allowed),
    row(Cf, "ignore_max_compaction_bytes_for_input", true, Ignored),
    row(Cf, "expanded_compaction_factor", true, Ignored),
    row(
        Cf,
        "level0_file_num_compaction_trigger",
        true,
        int(
            1,
            I32_MAX,
            "a hang: VersionStorageInfo::ComputeCompactionScore divides the L0 file count by it, \
             so 0 (which SetOptions does not sanitize) gives an infinite or NaN score and a \
             negative value never compacts L0 by count, until level0_stop_writes_trigger stops \
             every write",
        ),
    ),
    // Negative turns the slowdown off; 0 slows every write to delayed_write_rate.
    row(Cf, "level0_slowdown_writes_trigger", true, Allowed),
    row(
        Cf,
        "level0_stop_writes_trigger",
        true,
        int(
            1,
            I32_MAX,
            "a hang: SetOptions does not sanitize (ColumnFamilyData::SetOptions), and at 0 or \
             less GetWriteStallConditionAndCause (column_family.cc) stops every write for good",
        ),
    ),
    row(Cf, "max_grandparent_overlap_factor", true, Ignored),
    row(
        Cf,
        "max_write_buffer_number",
        true,
        int(
            1,
            I32_MAX,
            "a hang: SetOptions does not sanitize (ColumnFamilyData::SetOptions; an open raises \
             it to 2), and at 0 or less GetWriteStallConditionAndCause (column_family.cc) stops \
             every write for good",
        ),
    ),
    row(Cf, "source_compaction_factor", true, Ignored),
    row(
        Cf,
        "target_file_size_multiplier",
        true,
        int(
            1,
            i32::MAX as i128,
            "0 or less makes every level from 2 down a target file size of 0 \
             (MultiplyCheckOverflow): compactions cut a file after every key",
        ),
    ),
    row(Cf, "target_file_size_is_upper_bound", true, Allowed),
    row(
        Cf,
        "arena_block_size",
        true,
        int(
            0,
            256 * MIB,
            "bytes allocated up front by every memtable: MemTable's Arena takes each new block of \
             this size (clamped to [4 KiB, 2 GiB] by Arena::OptimizeBlockSize, memory/arena.cc) \
             at the first write that outgrows its inline block, and every live memtable, \
             immutable ones and a mempurge's output included, holds one: a size_t parse turns \
             -2147483648 into 2 GiB blocks, and a few of them throw std::bad_alloc on the write \
             or flush thread under an address-space limit (the option fuzzer's crash)",
        ),
    ),
    // Allocated only with inplace_update_support (MemTable::MemTable), which is refused;
    // bounded all the same, so that the vector stays sound if that ever changes.
    row(
        Cf,
        "inplace_update_num_locks",
        true,
        int(
            1,
            MIB,
            "locks allocated by every memtable with inplace_update_support (MemTable::MemTable: \
             one RWMutex each): 0 leaves MemTable::GetLock indexing an empty vector, billions \
             throw std::bad_alloc at a memtable switch",
        ),
    ),
    row(
        Cf,
        "max_successive_merges",
        true,
        refused(
            "0",
            "the write merges a key's operands into the memtable (MemTableInserter::MergeCF) \
             with a result RocksDB checks against 4 GiB alone, not with its key: together \
             past 4 GiB, MemTable::Add's 32-bit size wraps and the copy overruns",
        ),
    ),
    row(Cf, "strict_max_successive_merges", true, Allowed),
    // Huge-page mmaps that fail fall back to the heap (Arena::AllocateAligned).
    row(Cf, "memtable_huge_page_size", true, Allowed),
    row(
        Cf,
        "memtable_prefix_bloom_huge_page_tlb_size",
        true,
        Ignored,
    ),
    row(
        Cf,
        "write_buffer_size",
        true,
        int(
            0,
            64 * GIB,
            "bytes of one memtable: an open clamps it to 64 GiB (SanitizeCfOptions) but \
             SetOptions takes it raw, and each memtable then grows to this size on the write path \
             before it is switched",
        ),
    ),
    row(Cf, "memtable_prefix_bloom_bits", true, Ignored),
    row(
        Cf,
        "memtable_prefix_bloom_size_ratio",
        true,
        float(
            0.0,
            0.25,
            "bytes allocated at every memtable switch: MemTable::MemTable sizes a DynamicBloom of \
             write_buffer_size x ratio from the arena (db/memtable.cc); an open clamps it to 0.25 \
             (SanitizeCfOptions), SetOptions does not, and its uint32 bit count overflows",
        ),
    ),
    row(Cf, "memtable_prefix_bloom_probes", true, Ignored),
    row(Cf, "memtable_whole_key_filtering", true, Allowed),
    row(Cf, "min_partial_merge_operands", true, Ignored),
    row(Cf, "max_bytes_for_level_base", true, Allowed),
    row(Cf, "snap_refresh_nanos", true, Ignored),
    row(
        Cf,
        "max_bytes_for_level_multiplier",
        true,
        float(
            1.0,
            1_000_000.0,
            "a divisor: VersionStorageInfo::CalculateBaseBytes divides level sizes by it \
             (db/version_set.cc); an open turns 0 or less into 1 (SanitizeCfOptions) but \
             SetOptions does not, and 0 or NaN casts an infinite size to uint64",
        ),
    ),
    row(
        Cf,
        "max_bytes_for_level_multiplier_additional",
        true,
        Allowed,
    ),
    row(Cf, "max_sequential_skip_in_iterations", true, Allowed),
    row(Cf, "target_file_size_base", true, Allowed),
    row(Cf, "compression", true, Allowed),
    // RocksDB's own extractors, owned by RocksDB; pinrocks reads the one in force
    // (pinrocks_options_has_prefix_extractor, the plain-table check in contract.rs).
    row(Cf, "prefix_extractor", true, Allowed),
    // Checked field by field below.
    row(Cf, "compaction_options_fifo", true, Allowed),
    row(
        Cf,
        "compaction_options_fifo.max_table_files_size",
        true,
        Allowed,
    ),
    row(Cf, "compaction_options_fifo.age_for_warm", true, Allowed),
    row(Cf, "compaction_options_fifo.ttl", false, Ignored),
    row(
        Cf,
        "compaction_options_fifo.allow_compaction",
        true,
        Allowed,
    ),
    // A list of {temperature;age}, checked sorted by ColumnFamilyData::ValidateOptions.
    row(
        Cf,
        "compaction_options_fifo.file_temperature_age_thresholds",
        true,
        Allowed,
    ),
    row(
        Cf,
        "compaction_options_fifo.allow_trivial_copy_when_change_temperature",
        true,
        Allowed,
    ),
    row(
        Cf,
        "compaction_options_fifo.trivial_copy_buffer_size",
        true,
        int(
            0,
            GIB,
            "bytes allocated per file copy: CopyFile (file/file_util.cc) allocates a buffer of \
             this size on the compaction thread for each FIFO temperature change \
             (DBImpl::BackgroundCompaction)",
        ),
    ),
    row(
        Cf,
        "compaction_options_fifo.max_data_files_size",
        true,
        Allowed,
    ),
    row(
        Cf,
        "compaction_options_fifo.use_kv_ratio_compaction",
        true,
        Allowed,
    ),
    // Checked field by field below.
    row(Cf, "compaction_options_universal", true, Allowed),
    row(Cf, "compaction_options_universal.size_ratio", true, Allowed),
    // Checked together: the minimum at most the maximum (contract.rs,
    // universal_merges_can_run).
    row(
        Cf,
        "compaction_options_universal.min_merge_width",
        true,
        Allowed,
    ),
    row(
        Cf,
        "compaction_options_universal.max_merge_width",
        true,
        Allowed,
    ),
    row(
        Cf,
        "compaction_options_universal.max_size_amplification_percent",
        true,
        Allowed,
    ),
    row(
        Cf,
        "compaction_options_universal.compression_size_percent",
        true,
        Allowed,
    ),
    // ColumnFamilyData::ValidateOptions refuses less than -1.
    row(
        Cf,
        "compaction_options_universal.max_read_amp",
        true,
        Allowed,
    ),
    row(Cf, "compaction_options_universal.stop_style", true, Allowed),
    row(
        Cf,
        "compaction_options_universal.incremental",
        true,
        refused(
            "false",
            "incremental size-amplification compactions: RocksDB 11.8.1's picker \
             (PickIncrementalForReduceSizeAmp) reads one bottommost file past the end of its \
             list when the newer files lie after every bottommost one (keys that only grow)",
        ),
    ),
    row(
        Cf,
        "compaction_options_universal.allow_trivial_move",
        true,
        Allowed,
    ),
    row(
        Cf,
        "compaction_options_universal.reduce_file_locking",
        true,
        Allowed,
    ),
    // TTL compaction: with a ttl past the present (in seconds since 1970),
    // VersionStorageInfo::ComputeExpiredTtlFiles's `current_time - ttl` wraps and marks
    // every file expired: compactions to the last level, not a fault; the default
    // (0xfffffffffffffffe, resolved at open) must load.
    row(Cf, "ttl", true, Allowed),
    row(Cf, "periodic_compaction_seconds", true, Allowed),
    // ColumnFamilyData::ValidateOptions refuses negative, NaN and infinite values.
    row(Cf, "read_triggered_compaction_threshold", true, Allowed),
    row(
        Cf,
        "preclude_last_level_data_seconds",
        true,
        int(0, U32_MAX, PRESERVE_SECONDS),
    ),
    row(
        Cf,
        "preserve_internal_time_seconds",
        true,
        int(0, U32_MAX, PRESERVE_SECONDS),
    ),
    row(Cf, "bottommost_temperature", true, Ignored),
    row(Cf, "last_level_temperature", true, Allowed),
    row(Cf, "default_write_temperature", true, Allowed),
    row(Cf, "enable_blob_files", true, Allowed),
    row(Cf, "min_blob_size", true, Allowed),
    row(Cf, "blob_file_size", true, Allowed),
    row(Cf, "blob_compression_type", true, Allowed),
    // Checked field by field below.
    row(Cf, "blob_compression_opts", true, Allowed),
    row(
        Cf,
        "blob_compression_opts.window_bits",
        true,
        int(-14, -9, ZLIB_WINDOW),
    ),
    // With kZlibCompression blobs, only what zlib takes: a rule joining them to
    // blob_compression_type (contract.rs, zlib_blobs_compress).
    row(Cf, "blob_compression_opts.level", true, Allowed),
    row(Cf, "blob_compression_opts.strategy", true, Allowed),
    row(
        Cf,
        "blob_compression_opts.max_compressed_bytes_per_kb",
        true,
        int(
            1,
            i32::MAX as i128,
            "0 or less makes no blob compressor (GetCompressor), so blobs are written raw \
             while their file says compressed: every read of them fails as corrupt",
        ),
    ),
    row(
        Cf,
        "blob_compression_opts.max_dict_bytes",
        true,
        int(0, 256 * MIB, DICT_BYTES),
    ),
    row(
        Cf,
        "blob_compression_opts.zstd_max_train_bytes",
        true,
        Allowed,
    ),
    // ParallelCompressionRep caps the worker threads at its ring buffer (31).
    row(Cf, "blob_compression_opts.parallel_threads", true, Allowed),
    row(Cf, "blob_compression_opts.enabled", true, Allowed),
    row(
        Cf,
        "blob_compression_opts.max_dict_buffer_bytes",
        true,
        Allowed,
    ),
    row(
        Cf,
        "blob_compression_opts.use_zstd_dict_trainer",
        true,
        Allowed,
    ),
    row(Cf, "blob_compression_opts.checksum", true, Allowed),
    row(Cf, "enable_blob_garbage_collection", true, Allowed),
    row(
        Cf,
        "blob_garbage_collection_age_cutoff",
        true,
        float(0.0, 1.0, GC_RATIO),
    ),
    row(
        Cf,
        "blob_garbage_collection_force_threshold",
        true,
        float(0.0, 1.0, GC_RATIO),
    ),
    row(
        Cf,
        "blob_compaction_readahead_size",
        true,
        int(
            0,
            GIB,
            "bytes allocated per blob file a compaction reads: PrefetchBufferCollection \
             (db/compaction/compaction_iterator.cc) gives each a FilePrefetchBuffer of this size \
             on the compaction thread; 1 TiB throws std::bad_alloc there",
        ),
    ),
    row(Cf, "blob_file_starting_level", true, Allowed),
    row(Cf, "prepopulate_blob_cache", true, Allowed),
    row(
        Cf,
        "sample_for_compression",
        true,
        int(
            0,
            i32::MAX as i128,
            "one block in this many is compressed twice as a sample: \
             BlockBasedTableBuilder::CompressAndVerifyBlock calls \
             Random::OneIn(static_cast<int>(value)) on the flush and compaction threads, and \
             a value whose low 32 bits are 0 (2^32) divides by zero there (SIGFPE), a \
             negative int draws modulo a negative",
        ),
    ),
    row(Cf, "bottommost_compression", true, Allowed),
    row(Cf, "compression_per_level", true, Allowed),
    // Live here (FlushJob::Run, MemPurge); a NaN or negative threshold is off
    // (FlushJob::MemPurgeDecider). The Db row of the same name is deprecated.
    row(Cf, "experimental_mempurge_threshold", true, Allowed),
    // ColumnFamilyData::ValidateOptions takes only 0, 1, 2, 4 or 8, at open and SetOptions.
    row(Cf, "memtable_protection_bytes_per_key", true, Allowed),
    row(Cf, "bottommost_file_compaction_delay", true, Allowed),
    row(Cf, "uncache_aggressiveness", true, Allowed),
    row(Cf, "block_protection_bytes_per_key", true, Allowed),
    row(Cf, "paranoid_memory_checks", true, Allowed),
    // Alias (kAlias) of memtable_verify_per_key_checksum_on_seek, RocksDB's old misspelling.
    row(
        Cf,
        "memtable_veirfy_per_key_checksum_on_seek",
        true,
        Allowed,
    ),
    row(
        Cf,
        "memtable_verify_per_key_checksum_on_seek",
        true,
        Allowed,
    ),
    // Checked field by field below.
    row(Cf, "compression_opts", true, Allowed),
    row(
        Cf,
        "compression_opts.window_bits",
        true,
        int(-14, -9, ZLIB_WINDOW),
    ),
    row(Cf, "compression_opts.level", true, Allowed),
    row(Cf, "compression_opts.strategy", true, Allowed),
    row(
        Cf,
        "compression_opts.max_compressed_bytes_per_kb",
        true,
        Allowed,
    ),
    row(
        Cf,
        "compression_opts.max_dict_bytes",
        true,
        int(0, 256 * MIB, DICT_BYTES),
    ),
    row(Cf, "compression_opts.zstd_max_train_bytes", true, Allowed),
    // ParallelCompressionRep caps the worker threads at its ring buffer (31).
    row(Cf, "compression_opts.parallel_threads", true, Allowed),
    row(Cf, "compression_opts.enabled", true, Allowed),
    row(Cf, "compression_opts.max_dict_buffer_bytes", true, Allowed),
    row(Cf, "compression_opts.use_zstd_dict_trainer", true, Allowed),
    row(Cf, "compression_opts.checksum", true, Allowed),
    // Checked field by field below.
    row(Cf, "bottommost_compression_opts", true, Allowed),
    row(
        Cf,
        "bottommost_compression_opts.window_bits",
        true,
        int(-14, -9, ZLIB_WINDOW),
    ),
    row(Cf, "bottommost_compression_opts.level", true, Allowed),
    row(Cf, "bottommost_compression_opts.strategy", true, Allowed),
    row(
        Cf,
        "bottommost_compression_opts.max_compressed_bytes_per_kb",
        true,
        Allowed,
    ),
    row(
        Cf,
        "bottommost_compression_opts.max_dict_bytes",
        true,
        int(0, 256 * MIB, DICT_BYTES),
    ),
    row(
        Cf,
        "bottommost_compression_opts.zstd_max_train_bytes",
        true,
        Allowed,
    ),
    // ParallelCompressionRep caps the worker threads at its ring buffer (31).
    row(
        Cf,
        "bottommost_compression_opts.parallel_threads",
        true,
        Allowed,
    ),
    row(Cf, "bottommost_compression_opts.enabled", true, Allowed),
    row(
        Cf,
        "bottommost_compression_opts.max_dict_buffer_bytes",
        true,
        Allowed,
    ),
    row(
        Cf,
        "bottommost_compression_opts.use_zstd_dict_trainer",
        true,
        Allowed,
    ),
    row(Cf, "bottommost_compression_opts.checksum", true, Allowed),
    row(Cf, "compression_manager", true, Allowed),
    row(Cf, "memtable_max_range_deletions", true, Allowed),
    row(Cf, "memtable_op_scan_flush_trigger", true, Allowed),
    row(Cf, "memtable_avg_op_scan_flush_trigger", true, Allowed),
    row(
        Cf,
        "min_tombstones_for_range_conversion",
        true,
        refused(
            "0",
            "EXPERIMENTAL: iterators then write range tombstones into the active memtable \
             (DBIter::MaybeInsertRangeTombstone, db/db_iter.cc) whatever the table format, and a \
             plain-table family cannot flush one (PlainTableBuilder::Add: NotSupported): the \
             flush fails and writes stop",
        ),
    ),
    // ---- ColumnFamilyOptions: cf_immutable_options_type_info (options/cf_options.cc) ----
    row(Cf, "compaction_measure_io_stats", false, Ignored),
    row(Cf, "purge_redundant_kvs_while_flush", false, Ignored),
    row(
        Cf,
        "inplace_update_support",
        false,
        refused(
            "false",
            "pinned bytes would be rewritten while borrowed: RocksDB then overwrites memtable \
             values in place (MemTable::Update), under pins, and GetSnapshot returns null",
        ),
    ),
    row(Cf, "level_compaction_dynamic_level_bytes", false, Allowed),
    row(Cf, "level_compaction_dynamic_file_size", false, Ignored),
    row(Cf, "optimize_filters_for_hits", false, Allowed),
    row(Cf, "force_consistency_checks", false, Allowed),
    row(
        Cf,
        "disallow_memtable_writes",
        false,
        refused(
            "false",
            "RocksDB checks it only for a write that names its family by handle: a batch's \
             write to the default family by id passes, the WAL takes it, the memtable refuses \
             it, and the database stops taking writes (and may not reopen)",
        ),
    ),
    row(Cf, "default_temperature", false, Allowed),
    row(Cf, "max_mem_compaction_level", false, Ignored),
    row(Cf, "max_write_buffer_number_to_maintain", false, Ignored),
    row(Cf, "max_write_buffer_size_to_maintain", false, Allowed),
    // SanitizeCfOptions keeps it in [1, max_write_buffer_number - 1].
    row(Cf, "min_write_buffer_number_to_merge", false, Allowed),
    row(
        Cf,
        "num_levels",
        false,
        int(
            1,
            MAX_NUM_LEVELS as i128,
            "arrays allocated per level for every Version, i.e. at every flush and compaction \
             (VersionStorageInfo::VersionStorageInfo, db/version_set.cc); a billion levels throws \
             std::bad_alloc on the flush thread",
        ),
    ),
    row(Cf, "bloom_locality", false, Allowed),
    row(Cf, "rate_limit_delay_max_milliseconds", false, Ignored),
    // pinrocks checks range bounds in the family's order, kept on the Rust side.
    row(Cf, "comparator", false, TypedOnly("Options::comparator")),
    row(
        Cf,
        "memtable_insert_with_hint_prefix_extractor",
        false,
        Allowed,
    ),
    // Its hash buckets (8 bytes each, allocated by every new memtable on the write path)
    // and vector reserve live inside a nested value this table cannot bound (a plain
    // `SkipListFactory` has no fields); Options::memtable refuses more than 2^24.
    row(
        Cf,
        "memtable_factory",
        false,
        TypedOnly("Options::memtable"),
    ),
    // Alias (kAlias) of memtable_factory.
    row(Cf, "memtable", false, TypedOnly("Options::memtable")),
    // The memtable factory's own options (rocksdb-c/option_contract.cc reads them as
    // `memtable_factory.<field>`), however the factory was made: typed, by an OPTIONS
    // file, or by the raw C API. The same bounds as `Memtable`'s typed check.
    // SkipListFactory (memtable/skiplistrep.cc): how far a lookup looks ahead of its hint.
    row(Cf, "memtable_factory.lookahead", false, Allowed),
    // Its id, when RocksDB writes the factory as a nested value.
    row(Cf, "memtable_factory.id", false, Allowed),
    row(
        Cf,
        "memtable_factory.bucket_count",
        false,
        int(
            1,
            1 << 24,
            "buckets every memtable allocates up front, at each memtable switch on a writing \
             thread: HashSkipListRep and HashLinkListRep make bucket_count pointers (8 bytes \
             each, and 8 x 2^61 wraps to 0: a heap overflow), memtable/hash_skiplist_rep.cc",
        ),
    ),
    row(
        Cf,
        "memtable_factory.skiplist_height",
        false,
        int(
            1,
            32,
            "each bucket's skip list has this many levels of pointers per node \
             (memtable/skiplist.h: kMaxHeight_), and RandomHeight writes up to it",
        ),
    ),
    row(
        Cf,
        "memtable_factory.branching_factor",
        false,
        int(
            1,
            1 << 20,
            "each bucket's skip list draws heights with Random::OneIn(branching): 0 divides \
             by zero on the first insert",
        ),
    ),
    // HashLinkListRepFactory (memtable/hash_linklist_rep.cc): when a bucket's list turns
    // into a skip list, huge pages for its arena (a failed mmap falls back to the heap),
    // and when it logs a long bucket.
    row(Cf, "memtable_factory.threshold", false, Allowed),
    row(Cf, "memtable_factory.huge_page_size", false, Allowed),
    row(Cf, "memtable_factory.logging_threshold", false, Allowed),
    row(Cf, "memtable_factory.log_when_flash", false, Allowed),
    // VectorRepFactory (memtable/vectorrep.cc).
    row(
        Cf,
        "memtable_factory.count",
        false,
        int(
            0,
            1 << 24,
            "entries every memtable reserves up front (std::vector::reserve of count \
             pointers) at each memtable switch on a writing thread",
        ),
    ),
    // By name, collector factories RocksDB makes from ids: `nullptr` (or an id it cannot
    // make) puts a NULL factory in the list, which every flush and compaction calls
    // (BlockBasedTableBuilder's collectors: a SIGSEGV on their threads; found by the option
    // fuzzer). Typed, a Rust collector.
    row(
        Cf,
        "table_properties_collectors",
        false,
        TypedOnly("Options::table_properties_collector"),
    ),
    row(
        Cf,
        "compaction_filter",
        false,
        refused(
            "nullptr",
            "a raw CompactionFilter pointer that takes precedence over compaction_filter_factory \
             (CompactionJob::SetupAndValidateCompactionFilter), switching off the filter \
             Options::compaction_filter installed; pinrocks also reads a TtlCompactionFilter here \
             as a TTL database's mark",
        ),
    ),
    // pinrocks reads the factory's name in the OPTIONS file to know a TTL database
    // (db/opening.rs: TtlCompactionFilterFactory), and by name RocksDB would replace the
    // factory Options::compaction_filter installed.
    row(
        Cf,
        "compaction_filter_factory",
        false,
        TypedOnly("Options::compaction_filter"),
    ),
    // RocksDB's own operators, owned by RocksDB; pinrocks reads whether a family has one
    // from RocksDB (pinrocks_cf_capabilities).
    row(
        Cf,
        "merge_operator",
        false,
        none_of(
            &["sortlist", "MergeSortOperator"],
            "RocksDB's sort-list operator scans each operand for a NUL past its end (memtable \
             and block bytes have none: reads out of bounds) and throws from std::stoi on \
             anything but a number, on the flush and compaction threads (the process ends)",
        ),
    ),
    row(
        Cf,
        "compaction_style",
        false,
        one_of(
            &[
                "kCompactionStyleLevel",
                "kCompactionStyleUniversal",
                "kCompactionStyleFIFO",
            ],
            "kCompactionStyleNone never compacts, while level 0's stop trigger still counts \
             its files: after 36 flushes every write waits for good",
        ),
    ),
    row(Cf, "compaction_pri", false, Allowed),
    row(Cf, "sst_partitioner_factory", false, Allowed),
    // Not serialized (kDontSerialize), so no bound can be checked on the cache RocksDB
    // would make by name (Cache::CreateFromString); pinned blob reads hold its entries.
    row(Cf, "blob_cache", false, TypedOnly("Options::blob_cache")),
    row(
        Cf,
        "enable_blob_direct_write",
        false,
        refused(
            "false",
            "experimental in 11.8.1: RocksDB documents that WAL replay does not recover the \
             active direct-write blob files, and read-only and secondary opens (which \
             pinrocks makes) do not resolve them (advanced_options.h)",
        ),
    ),
    row(
        Cf,
        "blob_direct_write_partitions",
        false,
        int(
            0,
            THREADS,
            "partitions allocated at open: BlobFilePartitionManager \
             (db/blob/blob_file_partition_manager.cc) makes one per partition, each keeping its \
             own open blob file and write buffer",
        ),
    ),
    // A pointer set in C++ only: kUnknown with no parse function, never serialized.
    row(Cf, "blob_direct_write_partition_strategy", false, Allowed),
    row(Cf, "persist_user_defined_timestamps", false, Allowed),
    row(Cf, "cf_allow_ingest_behind", false, Allowed),
    row(Cf, "memtable_batch_lookup_optimization", false, Allowed),
    // ---- BlockBasedTableOptions: block_based_table_type_info
    // (table/block_based/block_based_table_factory.cc). None is kMutable in 11.8.1: a
    // live change goes through table_factory, which clones the factory. ----
    // RocksDB's FlushBlockBySizePolicyFactory or FlushBlockEveryKeyPolicyFactory.
    row(BlockBased, "flush_block_policy_factory", false, Allowed),
    row(BlockBased, "cache_index_and_filter_blocks", false, Allowed),
    row(
        BlockBased,
        "cache_index_and_filter_blocks_with_high_priority",
        false,
        Allowed,
    ),
    row(
        BlockBased,
        "pin_l0_filter_and_index_blocks_in_cache",
        false,
        Allowed,
    ),
    // kHashSearch without a prefix extractor: BlockBasedTableFactory::ValidateOptions refuses.
    row(BlockBased, "index_type", false, Allowed),
    row(BlockBased, "index_block_search_type", false, Allowed),
    row(BlockBased, "hash_index_allow_collision", false, Ignored),
    row(BlockBased, "data_block_index_type", false, Allowed),
    row(BlockBased, "index_shortening", false, Allowed),
    // A data block's hash index has at most 2^16 buckets (DataBlockHashIndexBuilder::Finish).
    row(
        BlockBased,
        "data_block_hash_table_util_ratio",
        false,
        float(
            0.01,
            100.0,
            "the bucket count is entries / ratio, a double cast to uint16_t (Finish): NaN or \
             a ratio near 0 overflows the cast (undefined in C++); RocksDB serializes it \
             with six decimals, so 0 itself is refused (a tiny ratio reads as 0.000000)",
        ),
    ),
    row(BlockBased, "checksum", false, Allowed),
    row(BlockBased, "no_block_cache", false, Allowed),
    row(
        BlockBased,
        "block_size",
        false,
        int(
            1,
            256 * MIB,
            "bytes allocated up front by every table builder, on the flush and compaction \
             threads: BlockBasedTableBuilder reserves an output buffer of block_size \
             (ResetForSize) and, with dictionary compression, each buffered block too; RocksDB \
             only refuses more than 4 GiB",
        ),
    ),
    // Out of [0, 100] it is 0 (BlockBasedTableFactory::InitializeOptions).
    row(BlockBased, "block_size_deviation", false, Allowed),
    // Under 1 it is 1 (BlockBasedTableFactory::InitializeOptions).
    row(BlockBased, "block_restart_interval", false, Allowed),
    row(BlockBased, "index_block_restart_interval", false, Allowed),
    row(BlockBased, "index_per_partition", false, Ignored),
    row(BlockBased, "metadata_block_size", false, Allowed),
    row(BlockBased, "partition_filters", false, Allowed),
    row(BlockBased, "decouple_partitioned_filters", false, Allowed),
    row(BlockBased, "optimize_filters_for_memory", false, Allowed),
    row(BlockBased, "use_delta_encoding", false, Allowed),
    // Bits per key are clamped to [0, 100] (BloomLikeFilterPolicy::BloomLikeFilterPolicy).
    row(BlockBased, "filter_policy", false, Allowed),
    row(
        BlockBased,
        "user_defined_index_factory",
        false,
        refused(
            "nullptr",
            "an experimental index made by name: an id RocksDB cannot make leaves a NULL \
             factory behind that the table builder calls (a SIGSEGV found by the option \
             fuzzer); pinrocks has no typed setter for it",
        ),
    ),
    row(BlockBased, "whole_key_filtering", false, Allowed),
    row(
        BlockBased,
        "detect_filter_construct_corruption",
        false,
        Allowed,
    ),
    row(BlockBased, "reserve_table_builder_memory", false, Ignored),
    row(BlockBased, "reserve_table_reader_memory", false, Ignored),
    row(BlockBased, "skip_table_builder_flush", false, Ignored),
    // BlockBasedTableFactory::ValidateOptions refuses a version it cannot write.
    row(BlockBased, "format_version", false, Allowed),
    row(
        BlockBased,
        "separate_key_value_in_data_block",
        false,
        Allowed,
    ),
    row(BlockBased, "uniform_cv_threshold", false, Allowed),
    row(BlockBased, "verify_compression", false, Allowed),
    // A bitmap of block_size / bytes_per_bit bits per block read.
    row(BlockBased, "read_amp_bytes_per_bit", false, Allowed),
    row(BlockBased, "enable_index_compression", false, Allowed),
    row(BlockBased, "block_align", false, Allowed),
    // A power of two up to 4 GiB (BlockBasedTableFactory::ValidateOptions), padded through
    // the writer's own buffer (WritableFileWriter::Pad).
    row(BlockBased, "super_block_alignment_size", false, Allowed),
    row(
        BlockBased,
        "super_block_alignment_space_overhead_ratio",
        false,
        Allowed,
    ),
    row(BlockBased, "pin_top_level_index_and_filter", false, Allowed),
    // Checked field by field below.
    row(BlockBased, "metadata_cache_options", false, Allowed),
    row(
        BlockBased,
        "metadata_cache_options.top_level_index_pinning",
        false,
        Allowed,
    ),
    row(
        BlockBased,
        "metadata_cache_options.partition_pinning",
        false,
        Allowed,
    ),
    row(
        BlockBased,
        "metadata_cache_options.unpartitioned_pinning",
        false,
        Allowed,
    ),
    // pinrocks keeps the table options on the Rust side (`Options::table`, rebuilt into a
    // new factory by every typed table setter), and a cache set by name is not serialized
    // (kDontSerialize), so its shard bits (20 or more: no cache at all) are never checked.
    row(
        BlockBased,
        "block_cache",
        false,
        TypedOnly("Options::block_cache"),
    ),
    row(BlockBased, "block_cache_compressed", false, Ignored),
    row(
        BlockBased,
        "max_auto_readahead_size",
        false,
        int(
            0,
            GIB,
            "bytes allocated per file an iterator or compaction reads: BlockPrefetcher grows its \
             FilePrefetchBuffer up to this size (table/block_based/block_prefetcher.cc); 1 TiB \
             throws std::bad_alloc in the reading thread",
        ),
    ),
    row(BlockBased, "prepopulate_block_cache", false, Allowed),
    // Lowered to max_auto_readahead_size (BlockPrefetcher::PrefetchIfNeeded).
    row(BlockBased, "initial_auto_readahead_size", false, Allowed),
    row(
        BlockBased,
        "num_file_reads_for_auto_readahead",
        false,
        Allowed,
    ),
    row(BlockBased, "fail_if_no_udi_on_open", false, Allowed),
    row(BlockBased, "use_udi_as_primary_index", false, Allowed),
    // ---- PlainTableOptions: plain_table_type_info (table/plain/plain_table_factory.cc) ----
    row(
        Plain,
        "user_key_len",
        false,
        refused(
            "0",
            "a fixed user key length: PlainTableBuilder writes a longer key as a corrupt file, \
             unchecked (formats.rs keeps kPlainTableVariableLength)",
        ),
    ),
    row(
        Plain,
        "bloom_bits_per_key",
        false,
        int(
            0,
            100,
            "bits allocated per key of every plain-table file: PlainTableBuilder::Finish and \
             PlainTableReader::AllocateBloom size a DynamicBloom of keys x bits on the flush \
             thread; a negative value becomes 2^32 - 1 bits a key (uint32_t)",
        ),
    ),
    row(
        Plain,
        "hash_table_ratio",
        false,
        zero_or_float(
            0.1,
            1_000_000.0,
            "buckets allocated per file on the flush thread: \
             PlainTableIndexBuilder::AllocateIndex makes prefixes / ratio buckets and Finish two \
             vectors of that many (table/plain/plain_table_index.cc); 0 is a binary search \
             (negative too, but PlainTableReader::Open asserts against it)",
        ),
    ),
    row(Plain, "index_sparseness", false, Allowed),
    // Huge-page mmaps that fail fall back to the heap (Arena::AllocateAligned).
    row(Plain, "huge_page_tlb_size", false, Allowed),
    // kPrefix needs a prefix extractor: contract.rs checks the pair.
    row(Plain, "encoding_type", false, Allowed),
    row(Plain, "full_scan_mode", false, Allowed),
    row(Plain, "store_index_in_file", false, Allowed),
    // ---- CuckooTableOptions: cuckoo_table_type_info (table/cuckoo/cuckoo_table_factory.cc).
    // Never in force: the CuckooTable factory is refused (table_factory above, and
    // contract.rs refuses it before reading a table's options), so these are allowed
    // only so that RocksDB's defaults, and the names, are classified. ----
    row(Cuckoo, "hash_table_ratio", false, Allowed),
    row(Cuckoo, "max_search_depth", false, Allowed),
    row(Cuckoo, "cuckoo_block_size", false, Allowed),
    row(Cuckoo, "identity_as_first_hash", false, Allowed),
    row(Cuckoo, "use_module_hash", false, Allowed),
];

/// The rows of the names RocksDB 11.12.0 added to its option maps (scripts/rocksdb-11.12.sh
/// builds on it; build.rs sets `rocksdb_11_12`). No name was removed or renamed, and none
/// changed its type or mutability; empty on 11.8.1.
#[cfg(rocksdb_11_12)]
pub(crate) const ADDED_IN_11_12: &[Contract] = &[
    // Percent of the gap to a preferred phase closed per periodic compaction;
    // PeriodicCompactionPhaser (db/periodic_compaction_phaser.cc) takes 0 and below as off
    // and clamps above 100.
    row(
        Db,
        "periodic_compaction_phase_recovery_percent",
        true,
        Allowed,
    ),
    // Read only by a remote compaction service, which pinrocks does not offer.
    row(Db, "remote_compaction_manifest_floor", true, Allowed),
    row(
        Db,
        "use_session_tmp_dir_for_remote_compaction",
        false,
        refused(
            "false",
            "pinrocks offers no remote compaction, the one user of it; on, every open \
             creates <db>/session_tmp and deletes everything beneath it \
             (DBImpl::CleanupSessionTmpDir, db/db_impl/db_impl.cc)",
        ),
    ),
    // 0 takes writable_file_max_buffer_size's; a blob file's buffer grows to at most the
    // file (blob_file_size), as an SST file's does under writable_file_max_buffer_size.
    row(Cf, "blob_file_writable_file_max_buffer_size", true, Allowed),
    // Auto-skipping compression of incompressible blocks: constant state, and a sample
    // interval of 0 or below is the default 64 (block_based_table_builder.cc).
    row(Cf, "compression_opts.auto_skip", true, Allowed),
    row(
        Cf,
        "compression_opts.auto_skip_min_sample_every",
        true,
        Allowed,
    ),
    row(Cf, "bottommost_compression_opts.auto_skip", true, Allowed),
    row(
        Cf,
        "bottommost_compression_opts.auto_skip_min_sample_every",
        true,
        Allowed,
    ),
    row(Cf, "blob_compression_opts.auto_skip", true, Allowed),
    row(
        Cf,
        "blob_compression_opts.auto_skip_min_sample_every",
        true,
        Allowed,
    ),
    // An enum RocksDB parses by name (any other name is its InvalidArgument); in force only
    // with format_version 8.
    row(BlockBased, "optimize_key_common_prefix", false, Allowed),
    row(
        BlockBased,
        "index_mode",
        false,
        refused(
            "kStandardDefault",
            "RocksDB 11.12.0 reads it nowhere yet (a preparatory setting whose meaning a later \
             release fills in), so another value would be reported set and do nothing now, \
             then change the index silently after an upgrade",
        ),
    ),
];

/// No rows: RocksDB 11.8.1's names are all in [`CONTRACTS`].
#[cfg(not(rocksdb_11_12))]
pub(crate) const ADDED_IN_11_12: &[Contract] = &[];

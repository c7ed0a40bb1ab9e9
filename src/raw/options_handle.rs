//! The options handle (`rocksdb_options_t`, a database's and its column families' options in
//! one): its owner, and every call on it that takes plain values or other handles by
//! `shared_ptr`. The typed setters in `options/` call these; the `setter!` macro covers the
//! one-value ones. What the handle is given of the user's code is in `options_callbacks.rs`,
//! the options as text in `options_text.rs`.

use std::ffi::{c_char, CString};

use crate::raw::error::{with_code, Result};
use crate::raw::ffi;
use crate::raw::handle_calls::{handle_arg, handle_calls};
use crate::raw::owned::Owned;

/// Owns one `rocksdb_options_t`. Neither `Send` nor `Sync` by itself: `Options` says why
/// it is.
pub(crate) struct OptionsHandle(Owned<ffi::rocksdb_options_t>);

impl OptionsHandle {
    /// RocksDB's defaults.
    pub(crate) fn new() -> OptionsHandle {
        // SAFETY: a new handle (NULL only on allocation failure, which `own` refuses), ours
        // alone.
        unsafe { OptionsHandle::own(ffi::rocksdb_options_create()) }
    }

    /// Takes over `raw`.
    ///
    /// # Safety
    /// `raw` must be NULL or a live options handle that nothing else frees.
    pub(crate) unsafe fn own(raw: *mut ffi::rocksdb_options_t) -> OptionsHandle {
        // SAFETY: the caller's contract.
        OptionsHandle(unsafe { Owned::from_raw(raw) }.expect("a NULL options handle"))
    }

    /// A copy of every option (the table factory, caches and listeners shared).
    pub(crate) fn copy(&self) -> OptionsHandle {
        // SAFETY: live options, only read; the copy is a new handle, ours alone.
        unsafe { OptionsHandle::own(ffi::rocksdb_options_create_copy(self.as_ptr())) }
    }

    /// Sets `enforce_single_del_contracts`.
    pub(crate) fn set_enforce_single_del_contracts(&mut self, on: bool) {
        // SAFETY: live options owned by `self`, borrowed exclusively; a plain flag.
        unsafe {
            ffi::rocksdb_options_set_enforce_single_del_contracts(self.as_ptr(), u8::from(on))
        };
    }

    /// The handle, live while `self` is.
    pub(crate) fn as_ptr(&self) -> *mut ffi::rocksdb_options_t {
        self.0.as_ptr()
    }

    /// RocksDB's `IncreaseParallelism` (resizes the default environment's pools: the caller
    /// bounds `threads`); a thread that cannot start is an error, the pools restored.
    pub(crate) fn increase_parallelism(&mut self, threads: i32) -> Result<()> {
        // SAFETY: live options owned by `self`; guarded, the pools restored on failure.
        with_code(|code, err| unsafe {
            ffi::pinrocks_options_increase_parallelism(self.as_ptr(), threads, code, err)
        })
    }

    /// Keeps a checksum of each SST file (RocksDB's shared crc32c factory) or not.
    pub(crate) fn set_file_checksums(&mut self, on: bool) -> Result<()> {
        // SAFETY: live options; guarded (the factory is RocksDB's shared one).
        with_code(|code, err| unsafe {
            ffi::pinrocks_options_set_file_checksums(self.as_ptr(), u8::from(on), code, err)
        })
    }

    /// Leveled compaction.
    pub(crate) fn set_level_compaction(&mut self) {
        self.set_compaction_style(ffi::rocksdb_level_compaction as i32);
    }

    /// Universal compaction with these knobs.
    pub(crate) fn set_universal_compaction(
        &mut self,
        size_ratio: i32,
        min_merge_width: i32,
        max_merge_width: i32,
        max_size_amplification_percent: i32,
        allow_trivial_move: bool,
    ) {
        self.set_compaction_style(ffi::rocksdb_universal_compaction as i32);
        // SAFETY: live options; the universal options are created, copied into the options
        // by value and destroyed here.
        unsafe {
            let raw = ffi::rocksdb_universal_compaction_options_create();
            ffi::rocksdb_universal_compaction_options_set_size_ratio(raw, size_ratio);
            ffi::rocksdb_universal_compaction_options_set_min_merge_width(raw, min_merge_width);
            ffi::rocksdb_universal_compaction_options_set_max_merge_width(raw, max_merge_width);
            ffi::rocksdb_universal_compaction_options_set_max_size_amplification_percent(
                raw,
                max_size_amplification_percent,
            );
            ffi::rocksdb_universal_compaction_options_set_allow_trivial_move(
                raw,
                u8::from(allow_trivial_move),
            );
            ffi::rocksdb_options_set_universal_compaction_options(self.as_ptr(), raw);
            ffi::rocksdb_universal_compaction_options_destroy(raw);
        }
    }

    /// FIFO compaction with these knobs.
    pub(crate) fn set_fifo_compaction(&mut self, max_table_files_size: u64, allow: bool) {
        self.set_compaction_style(ffi::rocksdb_fifo_compaction as i32);
        // SAFETY: live options; the FIFO options are created, copied into the options by
        // value and destroyed here.
        unsafe {
            let raw = ffi::rocksdb_fifo_compaction_options_create();
            ffi::rocksdb_fifo_compaction_options_set_max_table_files_size(
                raw,
                max_table_files_size,
            );
            ffi::rocksdb_fifo_compaction_options_set_allow_compaction(raw, u8::from(allow));
            ffi::rocksdb_options_set_fifo_compaction_options(self.as_ptr(), raw);
            ffi::rocksdb_fifo_compaction_options_destroy(raw);
        }
    }

    /// The compression options of every level, or of the bottom level (`bottommost`):
    /// zstd's level, dictionary bytes and training bytes; the window bits and strategy are
    /// RocksDB's defaults (-14, 0).
    pub(crate) fn set_compression_options(
        &mut self,
        bottommost: bool,
        level: i32,
        max_dict_bytes: i32,
        zstd_max_train_bytes: i32,
    ) {
        // SAFETY: live options; plain values copied in.
        unsafe {
            if bottommost {
                ffi::rocksdb_options_set_bottommost_compression_options(
                    self.as_ptr(),
                    -14,
                    level,
                    0,
                    max_dict_bytes,
                    1,
                );
                ffi::rocksdb_options_set_bottommost_compression_options_zstd_max_train_bytes(
                    self.as_ptr(),
                    zstd_max_train_bytes,
                    1,
                );
            } else {
                ffi::rocksdb_options_set_compression_options(
                    self.as_ptr(),
                    -14,
                    level,
                    0,
                    max_dict_bytes,
                );
                ffi::rocksdb_options_set_compression_options_zstd_max_train_bytes(
                    self.as_ptr(),
                    zstd_max_train_bytes,
                );
            }
        }
    }

    /// The paths of one kind (`PATHS_DB`, `PATHS_CF`, `PATH_WAL_DIR`, `PATH_DB_LOG_DIR`),
    /// each with its target size; RocksDB copies them.
    pub(crate) fn set_paths(&mut self, kind: u32, names: &[CString], sizes: &[u64]) -> Result<()> {
        assert_eq!(names.len(), sizes.len());
        let pointers: Vec<*const c_char> = names.iter().map(|n| n.as_ptr()).collect();
        // SAFETY: live options; `count` paths and sizes borrowed for the call, copied.
        with_code(|code, err| unsafe {
            ffi::pinrocks_options_set_paths(
                self.as_ptr(),
                kind as i32,
                pointers.as_ptr(),
                sizes.as_ptr(),
                names.len(),
                code,
                err,
            )
        })
    }

    /// A compression type per level (C API numbers); RocksDB copies them.
    pub(crate) fn set_compression_per_level(&mut self, levels: &[i32]) -> Result<()> {
        // SAFETY: live options; RocksDB copies the array (guarded: a vector of its length).
        with_code(|code, err| unsafe {
            ffi::pinrocks_guarded_options_set_compression_per_level(
                code,
                self.as_ptr(),
                levels.as_ptr(),
                levels.len(),
                err,
            )
        })
    }

    /// One of RocksDB's prefix extractors (`PREFIX_FIXED`, `PREFIX_CAPPED`) of `len` bytes.
    pub(crate) fn set_prefix_extractor(&mut self, kind: u32, len: usize) -> Result<()> {
        // SAFETY: live options; the C++ side makes the extractor and shares it by shared_ptr.
        with_code(|code, err| unsafe {
            ffi::pinrocks_options_set_prefix_extractor(self.as_ptr(), kind as i32, len, code, err)
        })
    }

    /// The memtable's kind (`MEMTABLE_*`) and its sizes, and whether writes to it may run
    /// concurrently.
    pub(crate) fn set_memtable(
        &mut self,
        kind: u32,
        count: usize,
        height: i32,
        branching: i32,
        concurrent: bool,
    ) -> Result<()> {
        // SAFETY: live options; the factory is made and shared in C++.
        let made = with_code(|code, err| unsafe {
            ffi::pinrocks_options_set_memtable(
                self.as_ptr(),
                kind as i32,
                count,
                height,
                branching,
                code,
                err,
            )
        });
        self.set_allow_concurrent_memtable_write(u8::from(concurrent));
        made
    }
}

handle_arg!(OptionsHandle => ffi::rocksdb_options_t);

handle_calls!(OptionsHandle {
    /// Memtable memory counted (and bounded) by a shared budget.
    fn set_write_buffer_manager(&mut self, manager: &crate::raw::budgets::WriteBufferManagerHandle) =
        rocksdb_options_set_write_buffer_manager;
    /// SST file space tracked by a shared manager.
    fn set_sst_file_manager(&mut self, manager: &crate::raw::budgets::SstFileManagerHandle) =
        rocksdb_options_set_sst_file_manager;
    /// Flush and compaction I/O limited by a shared limiter.
    fn set_ratelimiter(&mut self, limiter: &crate::raw::budgets::RateLimiterHandle) =
        pinrocks_options_set_ratelimiter;
    /// Whole rows cached in a shared cache.
    fn set_row_cache(&mut self, cache: &crate::raw::cache::CacheHandle) = rocksdb_options_set_row_cache;
    /// Blob values cached in a shared cache.
    fn set_blob_cache(&mut self, cache: &crate::raw::cache::CacheHandle) = rocksdb_options_set_blob_cache;
    /// The compression of blob files (a C API compression type).
    fn set_blob_compression_type(&mut self, kind: i32) = rocksdb_options_set_blob_compression_type;
    /// Whether flushes put blobs into the blob cache (a C API mode).
    fn set_prepopulate_blob_cache(&mut self, mode: i32) = rocksdb_options_set_prepopulate_blob_cache;
    /// `allow_mmap_reads`, as set.
    fn allow_mmap_reads(&self) -> u8 = rocksdb_options_get_allow_mmap_reads;
    /// The timestamp size of the comparator (0: none).
    fn timestamp_size(&self) -> usize = pinrocks_options_timestamp_size;
    /// `blob_garbage_collection_age_cutoff`, as set.
    fn blob_gc_age_cutoff(&self) -> f64 = rocksdb_options_get_blob_gc_age_cutoff;
    /// `blob_garbage_collection_force_threshold`, as set.
    fn blob_gc_force_threshold(&self) -> f64 = rocksdb_options_get_blob_gc_force_threshold;
    /// How many times RocksDB resumes by itself after a background error.
    fn set_max_bgerror_resume_count(&mut self, count: i32) =
        rocksdb_options_set_max_bgerror_resume_count;
    /// Microseconds between two of those tries.
    fn set_bgerror_resume_retry_interval(&mut self, micros: u64) =
        rocksdb_options_set_bgerror_resume_retry_interval;
    /// Makes a statistics object for the databases opened with the options.
    fn enable_statistics(&mut self) = rocksdb_options_enable_statistics;
    /// The statistics' level (a C API value; ignored without statistics).
    fn set_statistics_level(&mut self, level: i32) = rocksdb_options_set_statistics_level;
    /// `periodic_compaction_seconds`.
    fn set_periodic_compaction_seconds(&mut self, seconds: u64) =
        rocksdb_options_set_periodic_compaction_seconds;
    /// `ttl`, in seconds.
    fn set_ttl(&mut self, seconds: u64) = rocksdb_options_set_ttl;
    /// `stats_dump_period_sec`.
    fn set_stats_dump_period_sec(&mut self, seconds: u32) = rocksdb_options_set_stats_dump_period_sec;
    /// `log_file_time_to_roll`, in seconds.
    fn set_log_file_time_to_roll(&mut self, seconds: usize) =
        rocksdb_options_set_log_file_time_to_roll;
    /// `wal_compression` (a C API compression type).
    fn set_wal_compression(&mut self, kind: i32) = rocksdb_options_set_wal_compression;
    /// `info_log_level` (RocksDB's `InfoLogLevel` number).
    fn set_info_log_level(&mut self, level: i32) = rocksdb_options_set_info_log_level;
    /// RocksDB's `OptimizeLevelStyleCompaction` (plain values; a small fixed vector).
    fn optimize_level_style_compaction(&mut self, memtable_budget: u64) =
        rocksdb_options_optimize_level_style_compaction;
    /// RocksDB's `OptimizeUniversalStyleCompaction`.
    fn optimize_universal_style_compaction(&mut self, memtable_budget: u64) =
        rocksdb_options_optimize_universal_style_compaction;
    /// RocksDB's `PrepareForBulkLoad`.
    fn prepare_for_bulk_load(&mut self) = rocksdb_options_prepare_for_bulk_load;
    /// Keys compared bytewise with a u64 timestamp (RocksDB's static comparator).
    fn set_u64_timestamps(&mut self) = pinrocks_options_set_u64_timestamps;
    /// The compression of SST blocks (a C API compression type).
    fn set_compression(&mut self, kind: i32) = rocksdb_options_set_compression;
    /// The compression of the bottom level.
    fn set_bottommost_compression(&mut self, kind: i32) = rocksdb_options_set_bottommost_compression;
    /// How the WAL is replayed (RocksDB's `WALRecoveryMode` number).
    fn set_wal_recovery_mode(&mut self, mode: i32) = rocksdb_options_set_wal_recovery_mode;
    /// The compaction style (a C API style number); its options are set apart.
    fn set_compaction_style(&mut self, style: i32) = rocksdb_options_set_compaction_style;
    /// The plain table format (its options copied into a new factory the options own).
    #[allow(clippy::too_many_arguments)] // the C function's own
    fn set_plain_table_factory(
        &mut self,
        key_len: u32,
        bloom_bits_per_key: i32,
        hash_table_ratio: f64,
        index_sparseness: usize,
        huge_page_tlb_size: usize,
        encoding: c_char,
        full_scan_mode: u8,
        store_index_in_file: u8,
    ) = rocksdb_options_set_plain_table_factory;
    /// Whether memtable writes run concurrently (only the skip list and vector allow it).
    fn set_allow_concurrent_memtable_write(&mut self, on: u8) =
        rocksdb_options_set_allow_concurrent_memtable_write;
});

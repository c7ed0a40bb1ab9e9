//! How RocksDB compacts: leveled (the default), universal (fewer rewrites, more space), or
//! FIFO (drop the oldest files: caches, logs with a size budget).

use crate::raw::ffi;

/// Universal compaction's main knobs (RocksDB's defaults from `Default`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UniversalOptions {
    /// Percentage of flexibility when comparing file sizes to pick files to merge.
    pub size_ratio: i32,
    /// Fewest files merged in one compaction.
    pub min_merge_width: i32,
    /// Most files merged in one compaction.
    pub max_merge_width: i32,
    /// Space amplification (percent of extra bytes over the live data) that triggers a
    /// full compaction.
    pub max_size_amplification_percent: i32,
    /// Move files that do not overlap instead of rewriting them.
    pub allow_trivial_move: bool,
}

impl Default for UniversalOptions {
    fn default() -> Self {
        UniversalOptions {
            size_ratio: 1,
            min_merge_width: 2,
            max_merge_width: i32::MAX,
            max_size_amplification_percent: 200,
            allow_trivial_move: false,
        }
    }
}

/// FIFO compaction's knobs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FifoOptions {
    /// Once the SST files hold more than this, the oldest are deleted.
    pub max_table_files_size: u64,
    /// Also merge small level-0 files (intra-L0 compaction).
    pub allow_compaction: bool,
}

impl Default for FifoOptions {
    fn default() -> Self {
        FifoOptions {
            max_table_files_size: 1 << 30,
            allow_compaction: false,
        }
    }
}

/// The compaction style of a column family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompactionStyle {
    /// Leveled compaction (RocksDB's default).
    Level,
    /// Universal compaction.
    Universal(UniversalOptions),
    /// FIFO compaction.
    Fifo(FifoOptions),
}

impl CompactionStyle {
    /// Sets this style and its options.
    ///
    /// # Safety
    /// `options` must be a live options handle.
    pub(crate) unsafe fn apply(&self, options: *mut ffi::rocksdb_options_t) {
        // SAFETY: a live handle (the caller's contract). The style's options are created,
        // copied into `options` by value (`rocksdb_options_set_*_compaction_options`), and
        // destroyed.
        unsafe {
            match self {
                CompactionStyle::Level => ffi::rocksdb_options_set_compaction_style(
                    options,
                    ffi::rocksdb_level_compaction as i32,
                ),
                CompactionStyle::Universal(u) => {
                    ffi::rocksdb_options_set_compaction_style(
                        options,
                        ffi::rocksdb_universal_compaction as i32,
                    );
                    let raw = ffi::rocksdb_universal_compaction_options_create();
                    ffi::rocksdb_universal_compaction_options_set_size_ratio(raw, u.size_ratio);
                    ffi::rocksdb_universal_compaction_options_set_min_merge_width(
                        raw,
                        u.min_merge_width,
                    );
                    ffi::rocksdb_universal_compaction_options_set_max_merge_width(
                        raw,
                        u.max_merge_width,
                    );
                    ffi::rocksdb_universal_compaction_options_set_max_size_amplification_percent(
                        raw,
                        u.max_size_amplification_percent,
                    );
                    ffi::rocksdb_universal_compaction_options_set_allow_trivial_move(
                        raw,
                        u8::from(u.allow_trivial_move),
                    );
                    ffi::rocksdb_options_set_universal_compaction_options(options, raw);
                    ffi::rocksdb_universal_compaction_options_destroy(raw);
                }
                CompactionStyle::Fifo(f) => {
                    ffi::rocksdb_options_set_compaction_style(
                        options,
                        ffi::rocksdb_fifo_compaction as i32,
                    );
                    let raw = ffi::rocksdb_fifo_compaction_options_create();
                    ffi::rocksdb_fifo_compaction_options_set_max_table_files_size(
                        raw,
                        f.max_table_files_size,
                    );
                    ffi::rocksdb_fifo_compaction_options_set_allow_compaction(
                        raw,
                        u8::from(f.allow_compaction),
                    );
                    ffi::rocksdb_options_set_fifo_compaction_options(options, raw);
                    ffi::rocksdb_fifo_compaction_options_destroy(raw);
                }
            }
        }
    }
}

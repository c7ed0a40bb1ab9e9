//! How RocksDB compacts: leveled (the default), universal (fewer rewrites, more space), or
//! FIFO (drop the oldest files: caches, logs with a size budget).

use crate::raw::options_handle::OptionsHandle;

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
    /// Sets this style and its options (copied into the options by value).
    pub(crate) fn apply(&self, options: &mut OptionsHandle) {
        match self {
            CompactionStyle::Level => options.set_level_compaction(),
            CompactionStyle::Universal(u) => options.set_universal_compaction(
                u.size_ratio,
                u.min_merge_width,
                u.max_merge_width,
                u.max_size_amplification_percent,
                u.allow_trivial_move,
            ),
            CompactionStyle::Fifo(f) => {
                options.set_fifo_compaction(f.max_table_files_size, f.allow_compaction)
            }
        }
    }
}

//! The options of manual maintenance: what a manual compaction does (its last level, its
//! target level, blob garbage collection) and how a flush waits.

use crate::options::blob_files::{is_ratio, NOT_A_RATIO};
use crate::raw::db::{compact, CompactOptions as RawCompactOptions};
use crate::raw::error::{Error, Result};

/// What a manual compaction does with the last level (RocksDB's
/// `BottommostLevelCompaction`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Bottommost {
    /// Leave the last level's files as they are.
    Skip,
    /// Compact the last level only with a compaction filter (RocksDB's default).
    #[default]
    IfHaveCompactionFilter,
    /// Always compact the last level, even files just written by this compaction.
    Force,
    /// Compact the last level, but not the files this compaction wrote there.
    ForceOptimized,
}

/// Whether a manual compaction collects the garbage of blob files (RocksDB's
/// `BlobGarbageCollectionPolicy`): rewrites the live values of the oldest blob files it
/// meets into new ones, so the old files can be deleted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum BlobGarbageCollection {
    /// As the column family's `enable_blob_garbage_collection` says.
    #[default]
    FamilyDefault,
    /// Collect, whatever the family's setting, in the SST files this compaction rewrites.
    /// RocksDB does not rewrite files already in the last level unless
    /// [`CompactOptions::bottommost`] says so (or a compaction filter is set), nor files it
    /// can move down a level whole: to collect everything, pair it with
    /// [`Bottommost::Force`].
    Force,
    /// Do not collect, whatever the family's setting.
    Disable,
}

/// Options of a manual compaction
/// ([`ColumnFamily::compact_range_with`](crate::ColumnFamily::compact_range_with)),
/// RocksDB's `CompactRangeOptions`; `default()` is RocksDB's defaults.
#[derive(Clone)]
pub struct CompactOptions {
    pub(super) raw: RawCompactOptions,
}

impl std::fmt::Debug for CompactOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let r = &self.raw;
        f.debug_struct("CompactOptions")
            .field("exclusive", &(r.exclusive != 0))
            .field("change_level", &(r.change_level != 0))
            .field("target_level", &r.target_level)
            .field("bottommost", &r.bottommost)
            .field("allow_write_stall", &(r.allow_write_stall != 0))
            .field("max_subcompactions", &r.max_subcompactions)
            .field("blob_gc_policy", &r.blob_gc_policy)
            .field("blob_gc_age_cutoff", &r.blob_gc_age_cutoff)
            .finish()
    }
}

impl Default for CompactOptions {
    fn default() -> Self {
        CompactOptions {
            raw: RawCompactOptions {
                exclusive: 0,
                change_level: 0,
                target_level: -1,
                bottommost: compact::BOTTOMMOST_IF_HAVE_COMPACTION_FILTER as i32,
                allow_write_stall: 0,
                max_subcompactions: 0,
                blob_gc_policy: compact::BLOB_GC_USE_DEFAULT as i32,
                blob_gc_age_cutoff: FAMILY_AGE_CUTOFF,
            },
        }
    }
}

/// RocksDB's "the column family's own age cutoff" (any value outside `[0, 1]`).
const FAMILY_AGE_CUTOFF: f64 = -1.0;

impl CompactOptions {
    /// RocksDB's defaults.
    pub fn new() -> Self {
        Self::default()
    }

    /// `exclusive_manual_compaction`: no automatic compaction runs beside this one (off by
    /// default in RocksDB 11).
    pub fn exclusive(&mut self, exclusive: bool) -> &mut Self {
        self.raw.exclusive = u8::from(exclusive);
        self
    }

    /// `change_level` and `target_level`: move the compacted files to `level` (`-1`: the
    /// lowest level that can hold them), for example back up after `num_levels` shrank.
    pub fn target_level(&mut self, level: i32) -> &mut Self {
        self.raw.change_level = 1;
        self.raw.target_level = level;
        self
    }

    /// `bottommost_level_compaction`: see [`Bottommost`].
    pub fn bottommost(&mut self, bottommost: Bottommost) -> &mut Self {
        self.raw.bottommost = match bottommost {
            Bottommost::Skip => compact::BOTTOMMOST_SKIP,
            Bottommost::IfHaveCompactionFilter => compact::BOTTOMMOST_IF_HAVE_COMPACTION_FILTER,
            Bottommost::Force => compact::BOTTOMMOST_FORCE,
            Bottommost::ForceOptimized => compact::BOTTOMMOST_FORCE_OPTIMIZED,
        } as i32;
        self
    }

    /// `allow_write_stall`: start at once even if that stalls writes (otherwise RocksDB
    /// waits until flushing would not stall them).
    pub fn allow_write_stall(&mut self, allow: bool) -> &mut Self {
        self.raw.allow_write_stall = u8::from(allow);
        self
    }

    /// `max_subcompactions`: threads splitting this compaction (0: the database's
    /// setting).
    pub fn max_subcompactions(&mut self, threads: u32) -> &mut Self {
        self.raw.max_subcompactions = threads;
        self
    }

    /// `blob_garbage_collection_policy`: see [`BlobGarbageCollection`].
    pub fn blob_garbage_collection(&mut self, policy: BlobGarbageCollection) -> &mut Self {
        self.raw.blob_gc_policy = match policy {
            BlobGarbageCollection::FamilyDefault => compact::BLOB_GC_USE_DEFAULT,
            BlobGarbageCollection::Force => compact::BLOB_GC_FORCE,
            BlobGarbageCollection::Disable => compact::BLOB_GC_DISABLE,
        } as i32;
        self
    }

    /// `blob_garbage_collection_age_cutoff`: the fraction of blob files, oldest first,
    /// this compaction collects (`None`: the family's
    /// [`blob_garbage_collection_age_cutoff`](crate::Options::blob_garbage_collection_age_cutoff)).
    /// A fraction outside `[0, 1]` (or NaN) makes the compaction fail with
    /// [`Error::InvalidInput`] before it starts.
    pub fn blob_garbage_collection_age_cutoff(&mut self, fraction: Option<f64>) -> &mut Self {
        self.raw.blob_gc_age_cutoff = match fraction {
            None => FAMILY_AGE_CUTOFF,
            Some(f) if is_ratio(f) => f,
            // Not the family's either (RocksDB would read -1 as that): `check` refuses it.
            Some(_) => f64::NAN,
        };
        self
    }

    /// `Err` for what RocksDB must not be given. It reads a cutoff outside `[0, 1]` as
    /// "the family's", but would multiply a NaN by a file count and cast it to an index:
    /// only the two meanings pass.
    pub(super) fn check(&self) -> Result<()> {
        let cutoff = self.raw.blob_gc_age_cutoff;
        if cutoff == FAMILY_AGE_CUTOFF || is_ratio(cutoff) {
            Ok(())
        } else {
            Err(Error::invalid(
                "blob_garbage_collection_age_cutoff",
                NOT_A_RATIO,
            ))
        }
    }
}

/// Options of a flush ([`Db::flush_with`](crate::Db::flush_with),
/// [`Db::flush_families`](crate::Db::flush_families)), RocksDB's `FlushOptions`; `default()`
/// waits and does not stall writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlushOptions {
    pub(super) wait: bool,
    pub(super) allow_write_stall: bool,
}

impl Default for FlushOptions {
    fn default() -> Self {
        FlushOptions {
            wait: true,
            allow_write_stall: false,
        }
    }
}

impl FlushOptions {
    /// RocksDB's defaults: wait, do not stall writes.
    pub fn new() -> Self {
        Self::default()
    }

    /// `wait`: return when the memtables are in SST files and the event listeners'
    /// `on_flush_completed` have run (`false`: once the flush is scheduled).
    pub fn wait(&mut self, wait: bool) -> &mut Self {
        self.wait = wait;
        self
    }

    /// `allow_write_stall`: flush at once even if that stalls writes.
    pub fn allow_write_stall(&mut self, allow: bool) -> &mut Self {
        self.allow_write_stall = allow;
        self
    }
}

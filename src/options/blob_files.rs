//! Large values kept apart from the LSM tree: RocksDB's integrated BlobDB writes values of
//! at least `min_blob_size` to blob files at flush (and compaction), leaves a small blob
//! index in the SST, and reads them back through a blob cache of their own. Pinned reads of
//! a blob value hold that cache's entry (or, without a blob cache, the buffer the blob was
//! read into): see `docs/pinned-reads.md`.

use crate::options::cache::Cache;
use crate::options::compression::Compression;
use crate::options::db_options::Options;
use crate::raw::c_consts::{PREPOPULATE_BLOB_DISABLE, PREPOPULATE_BLOB_FLUSH_ONLY};
use crate::raw::error::{Error, Result};
use crate::raw::setter::setter;

/// Whether a garbage-collection setting is a ratio RocksDB can use: in `[0, 1]`. RocksDB
/// checks the range only with garbage collection on, and never refuses a NaN, which it
/// then multiplies by a file count and casts to an index.
pub(crate) fn is_ratio(value: f64) -> bool {
    (0.0..=1.0).contains(&value)
}

impl Options {
    setter!(
        /// `enable_blob_files`: values of at least [`min_blob_size`](Self::min_blob_size)
        /// go to blob files when they are flushed or compacted (before that they are in the
        /// memtable and the WAL as any value). Every read tier reads them; the SST keeps a
        /// blob index of a few bytes per value. Changeable on an open database
        /// ([`ColumnFamily::set_options`](crate::ColumnFamily::set_options)).
        ///
        /// Scope: column family (`enable_blob_files`).
        #[doc(alias = "set_enable_blob_files")]
        enable_blob_files(bool) => rocksdb_options_set_enable_blob_files as u8
    );
    setter!(
        /// `min_blob_size`: the smallest value (in bytes) written to a blob file; smaller
        /// ones stay in the SST's blocks (RocksDB's default 0: every value but empty ones).
        ///
        /// Scope: column family (`min_blob_size`).
        #[doc(alias = "set_min_blob_size")]
        min_blob_size(u64) => rocksdb_options_set_min_blob_size
    );
    setter!(
        /// `blob_file_size`: a blob file is closed and a new one started once it holds this
        /// many bytes (RocksDB's default 256 MiB; 0, which RocksDB takes, makes one file
        /// per blob).
        ///
        /// Scope: column family (`blob_file_size`).
        #[doc(alias = "set_blob_file_size")]
        blob_file_size(u64) => rocksdb_options_set_blob_file_size
    );
    setter!(
        /// `enable_blob_garbage_collection`: compactions rewrite the live values of the
        /// oldest blob files (see [`blob_garbage_collection_age_cutoff`](Self::blob_garbage_collection_age_cutoff))
        /// into new ones, so the old files can be deleted. Off by default: then a blob
        /// file is deleted only when every value in it is overwritten or deleted.
        ///
        /// Scope: column family (`enable_blob_garbage_collection`).
        #[doc(alias = "set_enable_blob_gc")]
        enable_blob_garbage_collection(bool) => rocksdb_options_set_enable_blob_gc as u8
    );
    setter!(
        /// `blob_compaction_readahead_size`: bytes read ahead from blob files by
        /// compactions (RocksDB's default 0: none; matters with direct I/O and remote
        /// storage).
        ///
        /// Scope: column family (`blob_compaction_readahead_size`).
        #[doc(alias = "set_blob_compaction_readahead_size")]
        blob_compaction_readahead_size(u64) => rocksdb_options_set_blob_compaction_readahead_size
    );
    setter!(
        /// `blob_file_starting_level`: values move to blob files only in flushes and
        /// compactions whose output level is at least this one (RocksDB's default 0: at the
        /// first flush). A higher level keeps short-lived large values out of blob files,
        /// at the price of rewriting long-lived ones in the levels above it. A level at or
        /// past `num_levels` (which RocksDB takes) means no value ever goes to a blob file.
        ///
        /// Scope: column family (`blob_file_starting_level`).
        #[doc(alias = "set_blob_file_starting_level")]
        blob_file_starting_level(i32) => rocksdb_options_set_blob_file_starting_level
    );

    /// `blob_compression_type`: how each blob is compressed in its file (RocksDB's default
    /// none). A blob read from the blob cache is kept uncompressed there, so a cached pinned
    /// read decompresses nothing.
    ///
    /// Scope: column family (`blob_compression_type`).
    #[doc(alias = "set_blob_compression_type")]
    pub fn blob_compression(&mut self, compression: Compression) -> &mut Self {
        self.raw.set_blob_compression_type(compression.raw());
        self
    }

    setter!(
        /// `blob_garbage_collection_age_cutoff`: the fraction of blob files, oldest first,
        /// whose live values compactions move to new files (RocksDB's default 0.25). A
        /// value outside `[0, 1]` (or NaN), here or by name, is refused when the options
        /// are used.
        ///
        /// Scope: column family (`blob_garbage_collection_age_cutoff`).
        #[doc(alias = "set_blob_gc_age_cutoff")]
        blob_garbage_collection_age_cutoff(f64) => rocksdb_options_set_blob_gc_age_cutoff
    );
    setter!(
        /// `blob_garbage_collection_force_threshold`: when the garbage in the files within
        /// the age cutoff reaches this fraction, RocksDB schedules compactions of the SST
        /// files that point into the oldest of them (leveled compaction only; RocksDB's
        /// default 1.0: never forced). A value outside `[0, 1]` (or NaN), here or by name,
        /// is refused when the options are used.
        ///
        /// Scope: column family (`blob_garbage_collection_force_threshold`).
        #[doc(alias = "set_blob_gc_force_threshold")]
        blob_garbage_collection_force_threshold(f64) => rocksdb_options_set_blob_gc_force_threshold
    );

    /// `blob_cache`: blobs read are kept in `cache`, which may be the block cache too
    /// ([`block_cache`](Self::block_cache) given the same [`Cache`]) or one of their own.
    /// A pinned read that finds its blob there holds the cache's entry and copies nothing.
    /// A read that misses (and every read without a blob cache) reads the blob from its
    /// file and decompresses it, or copies it once if it is not compressed, into a new
    /// buffer. That buffer goes into the cache (unless [`fill_cache`](crate::ReadOptions::fill_cache)
    /// is off), or the pinned read owns it. `fill_cache(false)` still looks in the cache
    /// first.
    ///
    /// As with the block cache, a blob larger than one shard of the cache leaves it as
    /// soon as it is unpinned: for large values give it few shards
    /// ([`Cache::lru_sharded`]). With a strict-capacity cache ([`Cache::lru_strict`]) such a
    /// blob cannot be inserted and its read fails with `MemoryLimit` instead.
    ///
    /// Scope: column family (`blob_cache`).
    #[doc(alias = "set_blob_cache")]
    pub fn blob_cache(&mut self, cache: &Cache) -> &mut Self {
        self.raw.set_blob_cache(cache.handle());
        self
    }

    /// `prepopulate_blob_cache`: flushes put the blobs they write into the blob cache
    /// (RocksDB's `kFlushOnly`), so the first read of a new value does not go to the file.
    ///
    /// Scope: column family (`prepopulate_blob_cache`).
    #[doc(alias = "set_prepopulate_blob_cache")]
    pub fn prepopulate_blob_cache(&mut self, on_flush: bool) -> &mut Self {
        let mode = if on_flush {
            PREPOPULATE_BLOB_FLUSH_ONLY
        } else {
            PREPOPULATE_BLOB_DISABLE
        };
        self.raw.set_prepopulate_blob_cache(mode as i32);
        self
    }

    /// `Err` for a garbage-collection ratio RocksDB must not be given, however it was set
    /// (typed, by name, from a string or an OPTIONS file): RocksDB checks the range only
    /// with garbage collection on and never refuses a NaN.
    pub(crate) fn check_blob_ratios(&self) -> Result<()> {
        let (cutoff, threshold) = (
            self.raw.blob_gc_age_cutoff(),
            self.raw.blob_gc_force_threshold(),
        );
        for (setting, value) in [
            (AGE_CUTOFF, cutoff),
            ("blob_garbage_collection_force_threshold", threshold),
        ] {
            if !is_ratio(value) {
                return Err(Error::invalid(setting, NOT_A_RATIO));
            }
        }
        Ok(())
    }
}

/// The names of the ratios RocksDB takes unchecked, for the live `set_options`.
pub(crate) const RATIOS: [&str; 2] = [AGE_CUTOFF, "blob_garbage_collection_force_threshold"];
const AGE_CUTOFF: &str = "blob_garbage_collection_age_cutoff";
pub(crate) const NOT_A_RATIO: &str = "a fraction outside [0, 1]";

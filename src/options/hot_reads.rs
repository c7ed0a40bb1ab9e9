//! A profile for hot point reads: what the engines benchmark measured closest to LMDB,
//! set in one call, with the memory it may use as its argument and its restrictions typed.

use crate::options::cache::Cache;
use crate::options::db_options::Options;
use crate::options::table_options::{DataBlockIndexType, FilterPolicy};
use crate::raw::error::Result;

/// The hot-read profile for [`Options::hot_reads`]: point reads of keys read again and
/// again, from memory. What it sets, and why (measured in `docs/benchmarks.md`, "Hot
/// reads"):
///
/// - a **row cache** (LRU, one shard per 32 MiB, up to 64) of half the memory: a hit pins
///   the row and skips the block search altogether (the largest step: about 3,500
///   instructions a read against 8,000 from the block cache). It brings
///   restrictions, each handled (see [`Options::row_cache`]): the database holds no range
///   tombstone (range deletes, ingesting a file with one and opening a database with one
///   are refused: [`Error::RowCacheRefusesRanges`](crate::Error::RowCacheRefusesRanges));
///   read-only and secondary opens are refused; memtable hits and iterators never use it;
///   a compaction leaves the rows of the files it rewrote unreachable.
///   [`without_row_cache`](Self::without_row_cache) gives all the memory to the block
///   cache instead;
/// - a **HyperClockCache** block cache of the rest (lock-free lookups: it scales with
///   reader threads where an LRU cache's shard locks do not);
/// - **data blocks with a hash index** and a restart point at every key, so a read in a
///   block is one hash probe, not a binary search then a scan (RocksDB builds the index
///   only for blocks of at most 253 entries and 64 KiB: entries under about 16 bytes in
///   4 KiB blocks fall back to the binary search): blocks grow (keys are stored whole, no
///   prefix shared with the one before) and so do the files;
/// - a 10-bit **bloom filter** in each file, and a **memtable bloom filter** of whole keys
///   (2% of the write buffer), so a read skips the memtable and the files that cannot
///   hold its key.
///
/// How many reader threads it suits: the row cache is an LRU cache, whose shard locks
/// serialize readers of one hot row, where the block cache's HyperClockCache scales with
/// threads. On a 16-core Xeon (128 B values) the row cache's lead over the block cache
/// shrank from 2.2x at one thread to 1.27x at 16; run `sweep concurrent` with your thread
/// count (`scripts/sweep.sh concurrent --threads ...`) before choosing it for more.
///
/// The caches are made here and shared by every database given the profile, like a
/// [`Cache`] given to several: read their usage through [`block_cache`](Self::block_cache)
/// and [`row_cache`](Self::row_cache).
///
/// ```
/// use pinrocks::options::HotReads;
/// use pinrocks::{Db, Options};
/// # fn main() -> pinrocks::Result<()> {
/// # let dir = tempfile::tempdir().unwrap();
/// let profile = HotReads::new(256 << 20)?; // 256 MiB in all
/// let mut options = Options::new();
/// options.create_if_missing(true).hot_reads(&profile);
/// let db = Db::open(&options, dir.path())?;
/// db.put(b"hot", b"value")?;
/// db.flush()?;
/// for _ in 0..2 {
///     let pinned = db.reader().pin(b"hot")?.unwrap(); // the second: a row-cache hit
///     assert_eq!(&pinned[..], b"value");
/// }
/// assert!(profile.row_cache().unwrap().usage() > 0);
/// assert!(matches!(
///     db.delete_range(b"a", b"z"),
///     Err(pinrocks::Error::RowCacheRefusesRanges { .. })
/// ));
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct HotReads {
    block_cache: Cache,
    row_cache: Option<Cache>,
    memory: usize,
}

impl HotReads {
    /// The profile with `memory` bytes of caches: half a row cache, half a block cache.
    /// (The memtables, and the index and filter blocks of open files, which are held by
    /// the files' readers and not charged to a cache, come on top.)
    ///
    /// An error only if the block cache's table (sized from its capacity up front) cannot
    /// be allocated.
    pub fn new(memory: usize) -> Result<HotReads> {
        let rows = memory / 2;
        Ok(HotReads {
            block_cache: Cache::try_hyper_clock(memory - rows, 0)?,
            row_cache: Some(Cache::lru_sharded(rows, row_cache_shard_bits(rows))?),
            memory,
        })
    }

    /// The profile with all of `memory` in the block cache and no row cache: for a
    /// database that deletes ranges, or reads mostly what the memtable holds or
    /// iterators.
    pub fn without_row_cache(memory: usize) -> Result<HotReads> {
        Ok(HotReads {
            block_cache: Cache::try_hyper_clock(memory, 0)?,
            row_cache: None,
            memory,
        })
    }

    /// The block cache (a HyperClockCache).
    pub fn block_cache(&self) -> &Cache {
        &self.block_cache
    }

    /// The row cache, if the profile has one.
    pub fn row_cache(&self) -> Option<&Cache> {
        self.row_cache.as_ref()
    }

    /// The bytes of both caches together, as given.
    pub fn memory(&self) -> usize {
        self.memory
    }
}

/// Shards of at least 32 MiB, up to 64 (RocksDB's default for an LRU cache is 512 KiB,
/// for a HyperClockCache 32 MiB): a row larger than what is left of its shard is evicted
/// at once, and rows hash unevenly to shards, so small shards turn large rows away, each
/// turned away after its copy was made. Measured at 1 MiB values: 64 shards of 8 MiB made
/// the profile's reads 1.6x slower than a block-cache read.
fn row_cache_shard_bits(capacity: usize) -> u32 {
    let shards = (capacity >> 25).max(1);
    shards.ilog2().min(6)
}

impl Options {
    /// Sets the [`HotReads`] profile: its caches, data blocks with a hash index and a
    /// restart point at every key, a 10-bit bloom filter, a memtable bloom filter of whole
    /// keys. The other block-based table settings made before are kept; a later setter
    /// changes what it names.
    ///
    /// Scope: database (`row_cache`) and column family's block-based table
    /// (`block_cache`, `data_block_index_type`, `data_block_hash_table_util_ratio`,
    /// `block_restart_interval`, `filter_policy`) and column family
    /// (`memtable_prefix_bloom_size_ratio`, `memtable_whole_key_filtering`).
    pub fn hot_reads(&mut self, profile: &HotReads) -> &mut Self {
        if !self.block_based_in_use("hot_reads") {
            return self;
        }
        self.table
            .block_cache(&profile.block_cache)
            .data_block_index_type(DataBlockIndexType::BinaryAndHash)
            .data_block_hash_table_util_ratio(0.75)
            .block_restart_interval(1)
            .filter(FilterPolicy::Bloom(10.0));
        self.apply_table_settings()
            .memtable_prefix_bloom_ratio(0.02)
            .memtable_whole_key_filtering(true);
        if let Some(rows) = &profile.row_cache {
            self.row_cache(rows);
        }
        self
    }
}

//! A block cache that several column families and databases share, with its usage and
//! pinned usage readable: pinned values hold blocks of it.

use std::sync::Arc;

use crate::options::compression::Compression;
use crate::raw::cache::CacheHandle;
use crate::raw::error::{Error, Result};

/// A block cache (`rocksdb::Cache`), shared: give it to [`Options::block_cache`] of as many
/// column families and databases as should share it. Cheap to clone (one cache). Pinned
/// reads ([`Reader::pin`], [`Reader::get_bytes`], the closure tiers while they run) hold
/// its blocks; [`pinned_usage`](Self::pinned_usage) says how much.
///
/// ```
/// use pinrocks::{Db, Options};
/// use pinrocks::options::Cache;
/// # fn main() -> pinrocks::Result<()> {
/// # let dir = tempfile::tempdir().unwrap();
/// let cache = Cache::lru(64 << 20);
/// let mut options = Options::new();
/// options.create_if_missing(true).block_cache(&cache);
/// let a = Db::open(&options, dir.path().join("a"))?;
/// let b = Db::open(&options, dir.path().join("b"))?; // the same cache
/// a.put(b"k", &[7u8; 1000])?;
/// a.flush()?;
/// let before = cache.usage();
/// let guard = a.reader().pin(b"k")?.unwrap(); // reads the block into the cache, pins it
/// assert!(cache.usage() > before);
/// assert!(cache.pinned_usage() >= 1000);
/// drop(guard);
/// # drop(b);
/// # Ok(()) }
/// ```
///
/// [`Options::block_cache`]: crate::Options::block_cache
/// [`Reader::pin`]: crate::Reader::pin
/// [`Reader::get_bytes`]: crate::Reader::get_bytes
#[derive(Clone)]
pub struct Cache {
    inner: Arc<CacheHandle>,
    /// A HyperClockCache: it takes only 16-byte keys, so it cannot be a row cache.
    hyper_clock: bool,
}

/// The options of an LRU cache ([`Cache::lru_with`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LruCacheOptions {
    /// Bytes.
    pub capacity: usize,
    /// `2^shard_bits` shards; `None`: RocksDB chooses.
    pub shard_bits: Option<u32>,
    /// Fail inserts (and the reads that needed them) rather than go over the capacity.
    pub strict_capacity_limit: bool,
    /// Share of the capacity reserved for high-priority blocks (RocksDB's default 0.5).
    pub high_pri_pool_ratio: f64,
    /// Share of the capacity for low-priority blocks (blob values, and data blocks of
    /// compactions with `fill_cache`): above it, they are evicted before others (RocksDB's
    /// default 0: no pool). With `high_pri_pool_ratio`, at most 1.
    pub low_pri_pool_ratio: f64,
    /// Bytes of a secondary cache in memory under this one (RocksDB's
    /// `CompressedSecondaryCache`): blocks evicted from the cache are kept there compressed,
    /// and a read that misses the cache finds them there before reading the file. 0 (the
    /// default): none.
    pub secondary_capacity: usize,
    /// How the secondary cache compresses its blocks (RocksDB's default LZ4; a compression
    /// not compiled in falls back on Snappy, then none).
    pub secondary_compression: Compression,
}

impl LruCacheOptions {
    /// RocksDB's defaults for a cache of `capacity` bytes.
    pub fn new(capacity: usize) -> Self {
        LruCacheOptions {
            capacity,
            shard_bits: None,
            strict_capacity_limit: false,
            high_pri_pool_ratio: 0.5,
            low_pri_pool_ratio: 0.0,
            secondary_capacity: 0,
            secondary_compression: Compression::Lz4,
        }
    }
}

/// The options of a HyperClockCache ([`Cache::hyper_clock_with`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HyperClockCacheOptions {
    /// Bytes.
    pub capacity: usize,
    /// The expected size of an entry (a block): the table of slots is sized from
    /// `capacity / estimated_entry_charge` up front and never grows; 0 sizes it
    /// automatically as entries come (RocksDB's `AutoHyperClockCache`, its recommended
    /// choice).
    pub estimated_entry_charge: usize,
    /// `2^shard_bits` shards (0 to 19); `None`: RocksDB chooses, shards of at least 32 MiB
    /// up to 64. Lookups take no lock, so shards matter less than for an LRU cache: a
    /// block larger than what is left of its shard is not kept.
    pub shard_bits: Option<u32>,
}

impl HyperClockCacheOptions {
    /// RocksDB's defaults for a cache of `capacity` bytes: automatic sizing, its shards.
    pub fn new(capacity: usize) -> Self {
        HyperClockCacheOptions {
            capacity,
            estimated_entry_charge: 0,
            shard_bits: None,
        }
    }
}

impl Cache {
    fn own(handle: CacheHandle) -> Cache {
        Cache {
            inner: Arc::new(handle),
            hyper_clock: false,
        }
    }

    /// Whether it is a HyperClockCache.
    pub(crate) fn is_hyper_clock(&self) -> bool {
        self.hyper_clock
    }

    /// An LRU cache of `capacity` bytes, sharded as RocksDB chooses (up to 64 shards of at
    /// least 512 KiB).
    pub fn lru(capacity: usize) -> Cache {
        Cache::own(CacheHandle::lru(capacity))
    }

    /// An LRU cache of `capacity` bytes in `2^shard_bits` shards (0 to 19). A block larger
    /// than a shard is evicted as soon as it is unpinned: large values want few shards.
    pub fn lru_sharded(capacity: usize, shard_bits: u32) -> Result<Cache> {
        let handle = CacheHandle::lru_sharded(capacity, shard_bits_arg(Some(shard_bits))?);
        Ok(Cache::own(handle.expect("RocksDB returned a NULL cache")))
    }

    /// An LRU cache with every option of RocksDB's `LRUCacheOptions` pinrocks exposes: a
    /// high-priority pool (a share of the capacity where index and filter blocks cached
    /// with [`cache_index_and_filter_blocks_with_high_priority`] outlive data blocks),
    /// shards, a strict capacity. Settings RocksDB refuses are an error here.
    ///
    /// [`cache_index_and_filter_blocks_with_high_priority`]: crate::options::BlockBasedOptions::cache_index_and_filter_blocks_with_high_priority
    pub fn lru_with(options: &LruCacheOptions) -> Result<Cache> {
        let (high, low) = (options.high_pri_pool_ratio, options.low_pri_pool_ratio);
        if !(0.0..=1.0).contains(&high) || !(0.0..=1.0).contains(&low) || high + low > 1.0 {
            return Err(Error::invalid(
                "options",
                format!("high_pri_pool_ratio {high}, low_pri_pool_ratio {low} (0 to 1 each, 1 at most together)"),
            ));
        }
        CacheHandle::lru_with(
            options.capacity,
            shard_bits_arg(options.shard_bits)?,
            high,
            low,
            options.strict_capacity_limit,
            (
                options.secondary_capacity,
                options.secondary_compression.raw(),
            ),
        )
        .map(Cache::own)
    }

    /// An LRU cache that never goes over `capacity`: an insert that would (every block
    /// pinned) fails, and the read that needed it fails with an `Incomplete` error,
    /// instead of growing the cache.
    pub fn lru_strict(capacity: usize) -> Cache {
        Cache::own(CacheHandle::lru_strict(capacity))
    }

    /// A HyperClockCache of `capacity` bytes: lock-free lookups, for many threads reading
    /// hot blocks. `estimated_entry_charge` is the expected size of a block (0: sized
    /// automatically).
    ///
    /// Panics if its table (sized from `capacity` up front) cannot be allocated.
    pub fn hyper_clock(capacity: usize, estimated_entry_charge: usize) -> Cache {
        match Cache::try_hyper_clock(capacity, estimated_entry_charge) {
            Ok(cache) => cache,
            Err(e) => panic!("pinrocks: cannot create a HyperClockCache of {capacity} bytes: {e}"),
        }
    }

    /// [`hyper_clock`](Self::hyper_clock), with a failure to allocate its table an error
    /// ([`ErrorKind::MemoryLimit`](crate::ErrorKind::MemoryLimit)) instead of a panic.
    pub fn try_hyper_clock(capacity: usize, estimated_entry_charge: usize) -> Result<Cache> {
        let mut options = HyperClockCacheOptions::new(capacity);
        options.estimated_entry_charge = estimated_entry_charge;
        Cache::hyper_clock_with(&options)
    }

    /// A HyperClockCache with every option of RocksDB's `HyperClockCacheOptions` the C API
    /// reaches (capacity, entry charge, shards). Shard bits RocksDB refuses (20 or more)
    /// are [`Error::InvalidInput`]; a table that cannot be allocated is
    /// [`ErrorKind::MemoryLimit`](crate::ErrorKind::MemoryLimit).
    ///
    /// ```
    /// use pinrocks::options::{Cache, HyperClockCacheOptions};
    /// let mut options = HyperClockCacheOptions::new(64 << 20);
    /// options.shard_bits = Some(4); // 16 shards of 4 MiB
    /// let cache = Cache::hyper_clock_with(&options)?;
    /// assert_eq!(cache.capacity(), 64 << 20);
    /// options.shard_bits = Some(20);
    /// assert!(Cache::hyper_clock_with(&options).is_err());
    /// # Ok::<(), pinrocks::Error>(())
    /// ```
    pub fn hyper_clock_with(options: &HyperClockCacheOptions) -> Result<Cache> {
        let handle = CacheHandle::hyper_clock(
            options.capacity,
            options.estimated_entry_charge,
            shard_bits_arg(options.shard_bits)?,
        )?;
        Ok(Cache {
            hyper_clock: true,
            ..Cache::own(handle)
        })
    }

    /// The native cache, to hand to options and table factories.
    pub(crate) fn handle(&self) -> &CacheHandle {
        &self.inner
    }

    /// Its capacity in bytes.
    pub fn capacity(&self) -> usize {
        self.inner.capacity()
    }

    /// Changes its capacity; shrinking evicts unpinned blocks.
    pub fn set_capacity(&self, capacity: usize) {
        self.inner.set_capacity(capacity)
    }

    /// Bytes it holds now.
    pub fn usage(&self) -> usize {
        self.inner.usage()
    }

    /// Bytes of it that pins hold now: blocks that cannot be evicted until their readers
    /// let go.
    pub fn pinned_usage(&self) -> usize {
        self.inner.pinned_usage()
    }
}

/// Shard bits as RocksDB's cache options take them (`None`: `-1`, RocksDB chooses), or
/// `InvalidInput` for 20 or more: `MakeSharedCache` makes no cache then, for an LRU cache
/// and a HyperClockCache alike.
fn shard_bits_arg(bits: Option<u32>) -> Result<i32> {
    match bits {
        None => Ok(-1),
        Some(bits) if bits < 20 => Ok(bits as i32),
        Some(bits) => Err(Error::invalid(
            "options",
            format!("cache shard bits {bits} (RocksDB takes at most 19)"),
        )),
    }
}

impl std::fmt::Debug for Cache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cache")
            .field("capacity", &self.capacity())
            .field("usage", &self.usage())
            .field("pinned_usage", &self.pinned_usage())
            .finish()
    }
}

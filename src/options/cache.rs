//! A block cache that several column families and databases share, with its usage and
//! pinned usage readable: pinned values hold blocks of it.

use std::sync::Arc;

use crate::raw::error::{Error, Result};
use crate::raw::ffi;
use crate::raw::owned::Owned;

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
    inner: Arc<RawCache>,
}

/// Owns one `rocksdb_cache_t` (a `shared_ptr<Cache>`): the options and table factories it
/// is given to copy that `shared_ptr`, so the cache lives as long as the last of them.
/// Dropping it drops this `shared_ptr`; the cache itself lives on while an options object
/// or table factory still holds it.
struct RawCache(Owned<ffi::rocksdb_cache_t>);

// SAFETY: RocksDB's caches (`LRUCache`, `HyperClockCache`) are sharded and thread-safe:
// every operation locks its shard or uses atomics; `set_capacity` and the usage getters
// are documented as callable from any thread.
unsafe impl Send for RawCache {}
// SAFETY: see `Send`.
unsafe impl Sync for RawCache {}

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
}

impl LruCacheOptions {
    /// RocksDB's defaults for a cache of `capacity` bytes.
    pub fn new(capacity: usize) -> Self {
        LruCacheOptions {
            capacity,
            shard_bits: None,
            strict_capacity_limit: false,
            high_pri_pool_ratio: 0.5,
        }
    }
}

impl Cache {
    /// Takes over a new cache handle.
    ///
    /// # Safety
    /// `raw` must be a live cache handle (a `shared_ptr` to the cache) that nothing else
    /// frees.
    unsafe fn from_raw(raw: *mut ffi::rocksdb_cache_t) -> Cache {
        Cache {
            inner: Arc::new(RawCache(
                // SAFETY: the caller's contract.
                unsafe { Owned::from_raw(raw) }.expect("RocksDB returned a NULL cache"),
            )),
        }
    }

    /// An LRU cache of `capacity` bytes, sharded as RocksDB chooses (up to 64 shards of at
    /// least 512 KiB).
    pub fn lru(capacity: usize) -> Cache {
        // SAFETY: plain constructor: a new cache handle, ours alone.
        unsafe { Cache::from_raw(ffi::rocksdb_cache_create_lru(capacity)) }
    }

    /// An LRU cache of `capacity` bytes in `2^shard_bits` shards (0 to 19). A block larger
    /// than a shard is evicted as soon as it is unpinned: large values want few shards.
    pub fn lru_sharded(capacity: usize, shard_bits: u32) -> Result<Cache> {
        if shard_bits >= 20 {
            // `NewLRUCache` returns no cache for 20 bits or more.
            return Err(Error::invalid(
                "options",
                format!("cache shard bits {shard_bits} (RocksDB takes at most 19)"),
            ));
        }
        // SAFETY: the options are created, set, used and destroyed here; the cache is new.
        let raw = unsafe {
            let options = ffi::rocksdb_lru_cache_options_create();
            ffi::rocksdb_lru_cache_options_set_capacity(options, capacity);
            ffi::rocksdb_lru_cache_options_set_num_shard_bits(options, shard_bits as i32);
            let raw = ffi::rocksdb_cache_create_lru_opts(options);
            ffi::rocksdb_lru_cache_options_destroy(options);
            raw
        };
        // SAFETY: a new cache handle, ours alone.
        Ok(unsafe { Cache::from_raw(raw) })
    }

    /// An LRU cache with every option of RocksDB's `LRUCacheOptions` pinrocks exposes: a
    /// high-priority pool (a share of the capacity where index and filter blocks cached
    /// with [`cache_index_and_filter_blocks_with_high_priority`] outlive data blocks),
    /// shards, a strict capacity. Settings RocksDB refuses are an error here.
    ///
    /// [`cache_index_and_filter_blocks_with_high_priority`]: crate::options::BlockBasedOptions::cache_index_and_filter_blocks_with_high_priority
    pub fn lru_with(options: &LruCacheOptions) -> Result<Cache> {
        if !(0.0..=1.0).contains(&options.high_pri_pool_ratio) {
            return Err(Error::invalid(
                "options",
                format!(
                    "high_pri_pool_ratio {} (0 to 1)",
                    options.high_pri_pool_ratio
                ),
            ));
        }
        if options.shard_bits.is_some_and(|b| b >= 20) {
            return Err(Error::invalid(
                "options",
                "cache shard bits (RocksDB takes at most 19)",
            ));
        }
        let mut err = crate::raw::error::ErrPtr::new();
        let mut code = 0;
        // SAFETY: plain constructor; a new cache, or NULL with an error.
        let raw = unsafe {
            ffi::pinrocks_cache_create_lru(
                options.capacity,
                options.shard_bits.map_or(-1, |b| b as i32),
                options.high_pri_pool_ratio,
                u8::from(options.strict_capacity_limit),
                &mut code,
                err.as_out(),
            )
        };
        err.check_with_code(Some(code))?;
        // SAFETY: a new cache handle, ours alone.
        Ok(unsafe { Cache::from_raw(raw) })
    }

    /// An LRU cache that never goes over `capacity`: an insert that would (every block
    /// pinned) fails, and the read that needed it fails with an `Incomplete` error,
    /// instead of growing the cache.
    pub fn lru_strict(capacity: usize) -> Cache {
        // SAFETY: plain constructor: a new cache handle, ours alone.
        unsafe {
            Cache::from_raw(ffi::rocksdb_cache_create_lru_with_strict_capacity_limit(
                capacity,
            ))
        }
    }

    /// A HyperClockCache of `capacity` bytes: lock-free lookups, for many threads reading
    /// hot blocks. `estimated_entry_charge` is the expected size of a block (0: sized
    /// automatically).
    ///
    /// Panics if its table (sized from `capacity` up front) cannot be allocated.
    pub fn hyper_clock(capacity: usize, estimated_entry_charge: usize) -> Cache {
        let (mut code, mut err) = (0, crate::raw::error::ErrPtr::new());
        // SAFETY: plain constructor, guarded (its table is allocated up front, sized from
        // `capacity`): NULL on a caught failure.
        let raw = unsafe {
            ffi::pinrocks_guarded_cache_create_hyper_clock(
                &mut code,
                capacity,
                estimated_entry_charge,
                err.as_out(),
            )
        };
        if let Err(e) = err.check_with_code(Some(code)) {
            panic!("pinrocks: cannot create a HyperClockCache of {capacity} bytes: {e}");
        }
        // SAFETY: a new cache handle, ours alone (not NULL: no error above).
        unsafe { Cache::from_raw(raw) }
    }

    pub(crate) fn raw(&self) -> *mut ffi::rocksdb_cache_t {
        self.inner.0.as_ptr()
    }

    /// Its capacity in bytes.
    pub fn capacity(&self) -> usize {
        // SAFETY: live cache.
        unsafe { ffi::rocksdb_cache_get_capacity(self.raw()) }
    }

    /// Changes its capacity; shrinking evicts unpinned blocks.
    pub fn set_capacity(&self, capacity: usize) {
        // SAFETY: live cache; `SetCapacity` is thread-safe.
        unsafe { ffi::rocksdb_cache_set_capacity(self.raw(), capacity) }
    }

    /// Bytes it holds now.
    pub fn usage(&self) -> usize {
        // SAFETY: live cache.
        unsafe { ffi::rocksdb_cache_get_usage(self.raw()) }
    }

    /// Bytes of it that pins hold now: blocks that cannot be evicted until their readers
    /// let go.
    pub fn pinned_usage(&self) -> usize {
        // SAFETY: live cache.
        unsafe { ffi::rocksdb_cache_get_pinned_usage(self.raw()) }
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

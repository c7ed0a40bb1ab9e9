//! The block cache's native handle: its constructors (plain, sharded, with every
//! `LRUCacheOptions` pinrocks exposes, HyperClock) and its thread-safe getters and setter.

use crate::raw::error::{with_code, Result};
use crate::raw::ffi;
use crate::raw::handle_calls::{handle_arg, handle_calls};
use crate::raw::owned::Owned;

/// Owns one `rocksdb_cache_t` (a `shared_ptr<Cache>`): the options and table factories it
/// is given to copy that `shared_ptr`, so the cache lives as long as the last of them.
pub(crate) struct CacheHandle(Owned<ffi::rocksdb_cache_t>);

// SAFETY: RocksDB's caches (`LRUCache`, `HyperClockCache`) are sharded and thread-safe:
// every operation locks its shard or uses atomics; `set_capacity` and the usage getters
// are documented as callable from any thread.
unsafe impl Send for CacheHandle {}
// SAFETY: see `Send`.
unsafe impl Sync for CacheHandle {}

impl CacheHandle {
    /// Takes over what a constructor returned.
    ///
    /// # Safety
    /// `raw` must be NULL or a new cache handle that nothing else frees.
    unsafe fn own(raw: *mut ffi::rocksdb_cache_t) -> CacheHandle {
        // SAFETY: the caller's contract.
        CacheHandle(unsafe { Owned::from_raw(raw) }.expect("RocksDB returned a NULL cache"))
    }

    /// An LRU cache of `capacity` bytes, sharded as RocksDB chooses.
    pub(crate) fn lru(capacity: usize) -> CacheHandle {
        // SAFETY: plain constructor: a new cache handle, ours alone.
        unsafe { CacheHandle::own(ffi::rocksdb_cache_create_lru(capacity)) }
    }

    /// An LRU cache in `2^shard_bits` shards (`-1`: RocksDB chooses); `None` where
    /// `NewLRUCache` makes none (20 bits or more).
    pub(crate) fn lru_sharded(capacity: usize, shard_bits: i32) -> Option<CacheHandle> {
        // SAFETY: the options are created, set, used and destroyed here; the cache is new
        // (or NULL).
        let raw = unsafe {
            let options = ffi::rocksdb_lru_cache_options_create();
            ffi::rocksdb_lru_cache_options_set_capacity(options, capacity);
            ffi::rocksdb_lru_cache_options_set_num_shard_bits(options, shard_bits);
            let raw = ffi::rocksdb_cache_create_lru_opts(options);
            ffi::rocksdb_lru_cache_options_destroy(options);
            raw
        };
        // SAFETY: a new cache handle or NULL, ours alone.
        unsafe { Owned::from_raw(raw) }.map(CacheHandle)
    }

    /// An LRU cache with shards (`-1`: RocksDB chooses), high- and low-priority pool ratios,
    /// a strict capacity and a compressed secondary cache (its capacity, 0 for none, and a C
    /// API compression type); what RocksDB refuses is an error.
    pub(crate) fn lru_with(
        capacity: usize,
        shard_bits: i32,
        high_pri_pool_ratio: f64,
        low_pri_pool_ratio: f64,
        strict_capacity_limit: bool,
        secondary: (usize, i32),
    ) -> Result<CacheHandle> {
        // SAFETY: plain constructor; a new cache, or NULL with an error.
        let raw = with_code(|code, err| unsafe {
            ffi::pinrocks_cache_create_lru(
                capacity,
                shard_bits,
                high_pri_pool_ratio,
                low_pri_pool_ratio,
                u8::from(strict_capacity_limit),
                secondary.0,
                secondary.1,
                code,
                err,
            )
        })?;
        // SAFETY: a new cache handle, ours alone.
        Ok(unsafe { CacheHandle::own(raw) })
    }

    /// An LRU cache that never goes over `capacity`.
    pub(crate) fn lru_strict(capacity: usize) -> CacheHandle {
        // SAFETY: plain constructor: a new cache handle, ours alone.
        unsafe {
            CacheHandle::own(ffi::rocksdb_cache_create_lru_with_strict_capacity_limit(
                capacity,
            ))
        }
    }

    /// A HyperClockCache (shards: `-1`, RocksDB chooses); its table is allocated up front,
    /// and a failure to, or options RocksDB refuses, is an error.
    pub(crate) fn hyper_clock(
        capacity: usize,
        estimated_entry_charge: usize,
        shard_bits: i32,
    ) -> Result<Self> {
        // SAFETY: plain constructor, guarded: a new cache, or NULL with an error.
        let raw = with_code(|code, err| unsafe {
            ffi::pinrocks_cache_create_hyper_clock(
                capacity,
                estimated_entry_charge,
                shard_bits,
                code,
                err,
            )
        })?;
        // SAFETY: a new cache handle, ours alone (not NULL: no error above).
        Ok(unsafe { CacheHandle::own(raw) })
    }

    /// The handle, live while `self` is.
    pub(crate) fn as_ptr(&self) -> *mut ffi::rocksdb_cache_t {
        self.0.as_ptr()
    }
}

handle_arg!(CacheHandle => ffi::rocksdb_cache_t);

handle_calls!(CacheHandle {
    /// Its capacity in bytes.
    fn capacity(&self) -> usize = rocksdb_cache_get_capacity;
    /// Changes its capacity (thread-safe); shrinking evicts unpinned blocks.
    fn set_capacity(&self, capacity: usize) = rocksdb_cache_set_capacity;
    /// Bytes it holds.
    fn usage(&self) -> usize = rocksdb_cache_get_usage;
    /// Bytes of it that pins hold.
    fn pinned_usage(&self) -> usize = rocksdb_cache_get_pinned_usage;
});

//! What every database of the sweep is made of before your settings: its keys, values and
//! key counts, its block cache, and its options for both libraries. Depends on nothing of
//! the sweep, so the engines bench (`benches/engines/`) mounts it too and reads exactly
//! the sweep's keys and values.

/// Block cache for every database of the sweep: 1 GiB in one shard, so no block is ever
/// evicted (with RocksDB's default 64 shards, 1 MiB blocks hash unevenly and some shards
/// overflow, which makes 1 MiB reads bimodal).
pub const CACHE_BYTES: usize = 1 << 30;

/// How many keys a database of `size`-byte values gets: thousands, within 256 MiB.
pub fn key_count(size: usize) -> usize {
    ((256 << 20) / size.max(1)).clamp(16, 4096)
}

pub fn key(i: usize) -> Vec<u8> {
    format!("key-{i:06}").into_bytes()
}

pub fn value(i: usize, size: usize) -> Vec<u8> {
    (0..size).map(|j| (i.wrapping_mul(31) + j) as u8).collect()
}

/// Keys in a fixed pseudo-random order, built before anything is measured.
pub fn random_keys(count: usize) -> Vec<Vec<u8>> {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    (0..count.max(1024))
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            key(state as usize % count)
        })
        .collect()
}

/// pinrocks' options: one big block cache in one shard, one big memtable.
pub fn base_pinrocks_options() -> pinrocks::Options {
    let mut options = pinrocks::Options::new();
    options
        .create_if_missing(true)
        .block_cache_size(CACHE_BYTES)
        .block_cache_shard_bits(0)
        .write_buffer_size(1 << 30);
    options
}

/// The same options for the `rocksdb` crate.
pub fn base_peer_options() -> rocksdb::Options {
    let mut lru = rocksdb::LruCacheOptions::default();
    lru.set_capacity(CACHE_BYTES);
    lru.set_num_shard_bits(0);
    let mut table = rocksdb::BlockBasedOptions::default();
    table.set_block_cache(&rocksdb::Cache::new_lru_cache_opts(&lru));
    let mut options = rocksdb::Options::default();
    options.create_if_missing(true);
    options.set_block_based_table_factory(&table);
    options.set_write_buffer_size(1 << 30);
    options
}

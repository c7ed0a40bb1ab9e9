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

/// The hot-read profile for both libraries, `memory` bytes of caches in all: pinrocks'
/// `Options::hot_reads`, and the same settings spelled for the `rocksdb` crate (a row cache
/// of half the memory, a HyperClockCache block cache of the rest, data blocks with a hash
/// index and a restart point at every key, a 10-bit bloom filter, a memtable bloom filter
/// of whole keys), so that a comparison stays like for like.
pub fn hot_options(memory: usize) -> (pinrocks::Options, rocksdb::Options) {
    let profile = pinrocks::options::HotReads::new(memory).expect("the profile's caches");
    let mut ours = base_pinrocks_options();
    ours.hot_reads(&profile);
    let rows = memory / 2;
    let mut table = rocksdb::BlockBasedOptions::default();
    table.set_block_cache(&rocksdb::Cache::new_hyper_clock_cache(memory - rows, 0));
    table.set_data_block_index_type(rocksdb::DataBlockIndexType::BinaryAndHash);
    table.set_data_block_hash_ratio(0.75);
    table.set_block_restart_interval(1);
    table.set_bloom_filter(10.0, false);
    let mut peer = rocksdb::Options::default();
    peer.create_if_missing(true);
    peer.set_block_based_table_factory(&table);
    peer.set_write_buffer_size(1 << 30);
    peer.set_memtable_prefix_bloom_ratio(0.02);
    peer.set_memtable_whole_key_filtering(true);
    // The profile's row cache shards: one per 32 MiB, up to 64 (`hot_reads.rs`).
    let mut lru = rocksdb::LruCacheOptions::default();
    lru.set_capacity(rows);
    lru.set_num_shard_bits(((rows >> 25).max(1)).ilog2().min(6) as i32);
    peer.set_row_cache(&rocksdb::Cache::new_lru_cache_opts(&lru));
    (ours, peer)
}

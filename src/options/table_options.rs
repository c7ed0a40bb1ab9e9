//! Block-based table options: how SST files are laid out and what of them the block cache
//! holds. A plain Rust value, built into RocksDB's `BlockBasedTableOptions` when set on
//! [`Options`](crate::Options) (the C API copies them into the table factory, so pinrocks
//! keeps its own copy to change one field at a time).

use crate::options::cache::Cache;
use crate::raw::ffi;

/// The filter that lets a point read skip an SST file that cannot hold its key.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FilterPolicy {
    /// A full bloom filter with this many bits per key (10: about 1% false positives).
    Bloom(f64),
    /// A ribbon filter with the false-positive rate of a bloom filter of this many bits per
    /// key, in about 30% less memory, built with more CPU.
    Ribbon(f64),
}

/// How a table's index finds the data block of a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexType {
    /// One index block, binary searched (RocksDB's default).
    BinarySearch,
    /// A hash of key prefixes in front of the index (needs a prefix extractor).
    HashSearch,
    /// A partitioned index: a top-level index over index blocks, so only the partitions
    /// read are cached (large databases with small block caches).
    TwoLevelIndexSearch,
}

/// How a data block finds a key among its entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataBlockIndexType {
    /// Binary search over restart points (RocksDB's default).
    BinarySearch,
    /// Binary search plus a hash index in the block, for faster point reads.
    BinaryAndHash,
}

/// The checksum of each block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChecksumType {
    /// No checksum.
    None,
    /// CRC32c (hardware-accelerated only in a RocksDB built with SSE4.2; see docs/guide.md).
    Crc32c,
    /// xxHash32.
    XxHash,
    /// xxHash64.
    XxHash64,
    /// XXH3 (RocksDB's default).
    Xxh3,
}

/// The SST format the options use: the block-based table settings apply only to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum TableFormat {
    #[default]
    BlockBased,
    /// Plain tables; `needs_extractor` if their settings need a prefix extractor.
    Plain { needs_extractor: bool },
}

/// Block-based table options.
///
/// ```
/// use pinrocks::Options;
/// use pinrocks::options::{BlockBasedOptions, Cache, FilterPolicy, IndexType};
/// let cache = Cache::lru(256 << 20);
/// let mut table = BlockBasedOptions::new();
/// table
///     .block_cache(&cache)
///     .block_size(16 << 10)
///     .filter(FilterPolicy::Ribbon(10.0))
///     .cache_index_and_filter_blocks(true)
///     .pin_l0_filter_and_index_blocks_in_cache(true)
///     .index_type(IndexType::TwoLevelIndexSearch)
///     .partition_filters(true);
/// let mut options = Options::new();
/// options.block_based_table(&table);
/// ```
#[derive(Debug, Clone, Default)]
pub struct BlockBasedOptions {
    /// A cache shared with other options (and so other column families and databases).
    pub(crate) shared_cache: Option<Cache>,
    pub(crate) block_cache_bytes: Option<usize>,
    pub(crate) block_cache_shard_bits: Option<i32>,
    filter: Option<FilterPolicy>,
    block_size: Option<usize>,
    metadata_block_size: Option<u64>,
    cache_index_and_filter_blocks: Option<bool>,
    cache_index_and_filter_blocks_with_high_priority: Option<bool>,
    pin_l0_filter_and_index_blocks_in_cache: Option<bool>,
    pin_top_level_index_and_filter: Option<bool>,
    index_type: Option<IndexType>,
    partition_filters: Option<bool>,
    whole_key_filtering: Option<bool>,
    data_block_index_type: Option<DataBlockIndexType>,
    data_block_hash_table_util_ratio: Option<f64>,
    format_version: Option<i32>,
    checksum: Option<ChecksumType>,
    no_block_cache: Option<bool>,
}

macro_rules! field {
    ($(#[$doc:meta])* $name:ident($ty:ty)) => {
        $(#[$doc])*
        pub fn $name(&mut self, value: $ty) -> &mut Self {
            self.$name = Some(value);
            self
        }
    };
}

impl BlockBasedOptions {
    /// RocksDB's defaults.
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads through `cache`, shared with every other table given the same [`Cache`].
    pub fn block_cache(&mut self, cache: &Cache) -> &mut Self {
        self.shared_cache = Some(cache.clone());
        self
    }

    field!(
        /// A filter for point reads (none by default).
        filter(FilterPolicy)
    );
    field!(
        /// Uncompressed size of data blocks (RocksDB's default is 4 KiB).
        block_size(usize)
    );
    field!(
        /// Size of index and filter partitions (with a partitioned index or filters).
        metadata_block_size(u64)
    );
    field!(
        /// Keep index and filter blocks in the block cache (charged to it, evictable)
        /// instead of in table readers' own memory.
        cache_index_and_filter_blocks(bool)
    );
    field!(
        /// Cache index and filter blocks at high priority (evicted after data blocks).
        cache_index_and_filter_blocks_with_high_priority(bool)
    );
    field!(
        /// Keep level-0 files' index and filter blocks pinned in the cache.
        pin_l0_filter_and_index_blocks_in_cache(bool)
    );
    field!(
        /// Keep the top level of partitioned indexes and filters pinned in the cache.
        pin_top_level_index_and_filter(bool)
    );
    field!(
        /// How the index finds a data block.
        index_type(IndexType)
    );
    field!(
        /// Partition filters like the index (with [`IndexType::TwoLevelIndexSearch`]).
        partition_filters(bool)
    );
    field!(
        /// Put whole keys in the filter (default); turn off to filter prefixes only.
        whole_key_filtering(bool)
    );
    field!(
        /// How a data block finds a key.
        data_block_index_type(DataBlockIndexType)
    );
    field!(
        /// Fill ratio of a data block's hash index (with [`DataBlockIndexType::BinaryAndHash`]).
        data_block_hash_table_util_ratio(f64)
    );
    field!(
        /// The SST format version RocksDB writes (RocksDB 11.8.1 writes 7 by default).
        format_version(i32)
    );
    field!(
        /// The checksum of each block.
        checksum(ChecksumType)
    );
    field!(
        /// Read without any block cache (every read decompresses from the file).
        no_block_cache(bool)
    );

    /// Builds RocksDB's table options; the caller destroys them once copied.
    pub(crate) fn build(&self) -> *mut ffi::rocksdb_block_based_table_options_t {
        // SAFETY: a new handle configured field by field: each setter copies plain values;
        // the cache and filter policy are taken by shared_ptr (the filter handle is owned by
        // the table options from here, the cache's handle stays the caller's).
        unsafe {
            let t = ffi::rocksdb_block_based_options_create();
            if let Some(cache) = &self.shared_cache {
                ffi::rocksdb_block_based_options_set_block_cache(t, cache.raw());
            } else if let Some(bytes) = self.block_cache_bytes {
                let lru = ffi::rocksdb_lru_cache_options_create();
                ffi::rocksdb_lru_cache_options_set_capacity(lru, bytes);
                ffi::rocksdb_lru_cache_options_set_num_shard_bits(
                    lru,
                    self.block_cache_shard_bits.unwrap_or(-1),
                );
                let cache = ffi::rocksdb_cache_create_lru_opts(lru);
                ffi::rocksdb_lru_cache_options_destroy(lru);
                ffi::rocksdb_block_based_options_set_block_cache(t, cache);
                ffi::rocksdb_cache_destroy(cache);
            }
            match self.filter {
                Some(FilterPolicy::Bloom(bits)) => {
                    ffi::rocksdb_block_based_options_set_filter_policy(
                        t,
                        ffi::rocksdb_filterpolicy_create_bloom_full(bits),
                    )
                }
                Some(FilterPolicy::Ribbon(bits)) => {
                    ffi::rocksdb_block_based_options_set_filter_policy(
                        t,
                        ffi::rocksdb_filterpolicy_create_ribbon(bits),
                    )
                }
                None => {}
            }
            let flag = |v: bool| u8::from(v);
            if let Some(v) = self.block_size {
                ffi::rocksdb_block_based_options_set_block_size(t, v);
            }
            if let Some(v) = self.metadata_block_size {
                ffi::rocksdb_block_based_options_set_metadata_block_size(t, v);
            }
            if let Some(v) = self.cache_index_and_filter_blocks {
                ffi::rocksdb_block_based_options_set_cache_index_and_filter_blocks(t, flag(v));
            }
            if let Some(v) = self.cache_index_and_filter_blocks_with_high_priority {
                ffi::rocksdb_block_based_options_set_cache_index_and_filter_blocks_with_high_priority(t, flag(v));
            }
            if let Some(v) = self.pin_l0_filter_and_index_blocks_in_cache {
                ffi::rocksdb_block_based_options_set_pin_l0_filter_and_index_blocks_in_cache(
                    t,
                    flag(v),
                );
            }
            if let Some(v) = self.pin_top_level_index_and_filter {
                ffi::rocksdb_block_based_options_set_pin_top_level_index_and_filter(t, flag(v));
            }
            if let Some(v) = self.index_type {
                let raw = match v {
                    IndexType::BinarySearch => {
                        ffi::rocksdb_block_based_table_index_type_binary_search
                    }
                    IndexType::HashSearch => ffi::rocksdb_block_based_table_index_type_hash_search,
                    IndexType::TwoLevelIndexSearch => {
                        ffi::rocksdb_block_based_table_index_type_two_level_index_search
                    }
                };
                ffi::rocksdb_block_based_options_set_index_type(t, raw as i32);
            }
            if let Some(v) = self.partition_filters {
                ffi::rocksdb_block_based_options_set_partition_filters(t, flag(v));
            }
            if let Some(v) = self.whole_key_filtering {
                ffi::rocksdb_block_based_options_set_whole_key_filtering(t, flag(v));
            }
            if let Some(v) = self.data_block_index_type {
                let raw = match v {
                    DataBlockIndexType::BinarySearch => {
                        ffi::rocksdb_block_based_table_data_block_index_type_binary_search
                    }
                    DataBlockIndexType::BinaryAndHash => {
                        ffi::rocksdb_block_based_table_data_block_index_type_binary_search_and_hash
                    }
                };
                ffi::rocksdb_block_based_options_set_data_block_index_type(t, raw as i32);
            }
            if let Some(v) = self.data_block_hash_table_util_ratio {
                ffi::rocksdb_block_based_options_set_data_block_hash_ratio(t, v);
            }
            if let Some(v) = self.format_version {
                ffi::rocksdb_block_based_options_set_format_version(t, v);
            }
            if let Some(v) = self.checksum {
                let raw = match v {
                    ChecksumType::None => 0,
                    ChecksumType::Crc32c => 1,
                    ChecksumType::XxHash => 2,
                    ChecksumType::XxHash64 => 3,
                    ChecksumType::Xxh3 => 4,
                };
                ffi::rocksdb_block_based_options_set_checksum(t, raw);
            }
            if let Some(v) = self.no_block_cache {
                ffi::rocksdb_block_based_options_set_no_block_cache(t, flag(v));
            }
            t
        }
    }
}

//! Block-based table options: how SST files are laid out and what of them the block cache
//! holds. A plain Rust value, built into RocksDB's `BlockBasedTableOptions` when set on
//! [`Options`](crate::Options) (the C API copies them into the table factory, so pinrocks
//! keeps its own copy to change one field at a time).

use crate::options::cache::Cache;
use crate::raw::block_based::BlockBasedHandle;
use crate::raw::c_consts::{
    DATA_BLOCK_BINARY_SEARCH, DATA_BLOCK_BINARY_SEARCH_AND_HASH, INDEX_BINARY_SEARCH,
    INDEX_HASH_SEARCH, INDEX_TWO_LEVEL_SEARCH,
};
use crate::raw::cache::CacheHandle;
use crate::raw::handle_calls::flag;

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
    block_restart_interval: Option<u16>,
    index_block_restart_interval: Option<u16>,
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
        /// Keys between restart points in a data block (RocksDB's default 16; 0 is taken
        /// as 1): each restart point stores its key whole, where the keys between store only
        /// what differs from the one before. Fewer keys per restart point make a point read
        /// search fewer entries one by one (1: a binary search finds the key itself), in
        /// larger blocks.
        block_restart_interval(u16)
    );
    field!(
        /// Keys between restart points in an index block (RocksDB's default 1; 0 is taken
        /// as 1, and a [`IndexType::HashSearch`] index always has 1).
        index_block_restart_interval(u16)
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

    /// Builds RocksDB's table options.
    pub(crate) fn build(&self) -> BlockBasedHandle {
        let mut t = BlockBasedHandle::new();
        if let Some(cache) = &self.shared_cache {
            t.set_block_cache(cache.handle());
        } else if let Some(bytes) = self.block_cache_bytes {
            // A cache of the table's own; none where RocksDB makes none (20 shard bits or
            // more: refused when the options are used).
            let shard_bits = self.block_cache_shard_bits.unwrap_or(-1);
            if let Some(cache) = CacheHandle::lru_sharded(bytes, shard_bits) {
                t.set_block_cache(&cache);
            }
        }
        match self.filter {
            Some(FilterPolicy::Bloom(bits)) => t.set_filter(true, bits),
            Some(FilterPolicy::Ribbon(bits)) => t.set_filter(false, bits),
            None => {}
        }
        if let Some(v) = self.block_size {
            t.set_block_size(v);
        }
        if let Some(v) = self.block_restart_interval {
            t.set_block_restart_interval(i32::from(v));
        }
        if let Some(v) = self.index_block_restart_interval {
            t.set_index_block_restart_interval(i32::from(v));
        }
        if let Some(v) = self.metadata_block_size {
            t.set_metadata_block_size(v);
        }
        if let Some(v) = self.cache_index_and_filter_blocks {
            t.set_cache_index_and_filter_blocks(flag(v));
        }
        if let Some(v) = self.cache_index_and_filter_blocks_with_high_priority {
            t.set_cache_index_and_filter_blocks_with_high_priority(flag(v));
        }
        if let Some(v) = self.pin_l0_filter_and_index_blocks_in_cache {
            t.set_pin_l0_filter_and_index_blocks_in_cache(flag(v));
        }
        if let Some(v) = self.pin_top_level_index_and_filter {
            t.set_pin_top_level_index_and_filter(flag(v));
        }
        if let Some(v) = self.index_type {
            let raw = match v {
                IndexType::BinarySearch => INDEX_BINARY_SEARCH,
                IndexType::HashSearch => INDEX_HASH_SEARCH,
                IndexType::TwoLevelIndexSearch => INDEX_TWO_LEVEL_SEARCH,
            };
            t.set_index_type(raw as i32);
        }
        if let Some(v) = self.partition_filters {
            t.set_partition_filters(flag(v));
        }
        if let Some(v) = self.whole_key_filtering {
            t.set_whole_key_filtering(flag(v));
        }
        if let Some(v) = self.data_block_index_type {
            let raw = match v {
                DataBlockIndexType::BinarySearch => DATA_BLOCK_BINARY_SEARCH,
                DataBlockIndexType::BinaryAndHash => DATA_BLOCK_BINARY_SEARCH_AND_HASH,
            };
            t.set_data_block_index_type(raw as i32);
        }
        if let Some(v) = self.data_block_hash_table_util_ratio {
            t.set_data_block_hash_ratio(v);
        }
        if let Some(v) = self.format_version {
            t.set_format_version(v);
        }
        if let Some(v) = self.checksum {
            let raw = match v {
                ChecksumType::None => 0,
                ChecksumType::Crc32c => 1,
                ChecksumType::XxHash => 2,
                ChecksumType::XxHash64 => 3,
                ChecksumType::Xxh3 => 4,
            };
            t.set_checksum(raw);
        }
        if let Some(v) = self.no_block_cache {
            t.set_no_block_cache(flag(v));
        }
        t
    }
}

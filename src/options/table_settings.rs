//! The block-based table of a column family's options, one setting at a time: each setter
//! changes pinrocks' copy of the table options ([`BlockBasedOptions`]) and rebuilds the
//! table factory from it, since the C API copies the table options into a new factory.

use crate::options::cache::Cache;
use crate::options::db_options::Options;
use crate::options::table_options::{BlockBasedOptions, FilterPolicy, TableFormat};
impl Options {
    /// Reads through `cache`, shared with every other column family and database given
    /// the same [`Cache`]. Replaces [`block_cache_size`](Self::block_cache_size).
    ///
    /// Scope: column family's block-based table (`block_cache`).
    pub fn block_cache(&mut self, cache: &Cache) -> &mut Self {
        if !self.block_based_in_use("block_cache") {
            return self;
        }
        self.table.block_cache(cache);
        self.apply_table_settings()
    }

    /// An LRU block cache of `bytes` for this database (RocksDB's default is 32 MiB).
    /// Pinned reads from SST files hold blocks of this cache. See also
    /// [`block_cache_shard_bits`](Self::block_cache_shard_bits).
    ///
    /// Scope: column family's block-based table (`block_cache`).
    pub fn block_cache_size(&mut self, bytes: usize) -> &mut Self {
        if !self.block_based_in_use("block_cache_size") {
            return self;
        }
        self.table.shared_cache = None;
        self.table.block_cache_bytes = Some(bytes);
        self.apply_table_settings()
    }

    /// Splits the block cache into `2^bits` shards (RocksDB picks up to 64 shards of at
    /// least 512 KiB each; `-1` asks for that). RocksDB accepts at most 19: more makes
    /// opening with these options fail with `Error::InvalidInput`. A block larger than one shard's capacity is evicted as soon as
    /// it is unpinned, and blocks hash unevenly to shards: for large values use fewer,
    /// larger shards, or every read goes back to the SST file.
    ///
    /// Scope: column family's block-based table (`block_cache`).
    pub fn block_cache_shard_bits(&mut self, bits: i32) -> &mut Self {
        if !self.block_based_in_use("block_cache_shard_bits") {
            return self;
        }
        self.table.block_cache_shard_bits = Some(bits);
        self.apply_table_settings()
    }

    /// A full bloom filter with this many bits per key, to skip files on point lookups.
    ///
    /// Scope: column family's block-based table (`filter_policy`).
    pub fn bloom_filter(&mut self, bits_per_key: f64) -> &mut Self {
        if !self.block_based_in_use("bloom_filter") {
            return self;
        }
        self.table.filter(FilterPolicy::Bloom(bits_per_key));
        self.apply_table_settings()
    }

    /// Uncompressed size of SST data blocks (RocksDB's default is 4 KiB).
    ///
    /// Scope: column family's block-based table (`block_size`).
    pub fn block_size(&mut self, bytes: usize) -> &mut Self {
        if !self.block_based_in_use("block_size") {
            return self;
        }
        self.table.block_size(bytes);
        self.apply_table_settings()
    }

    /// Block-based table options (replacing what the table setters above set), and the
    /// block-based format (RocksDB's default) if another was chosen.
    ///
    /// Scope: column family (`table_factory`).
    pub fn block_based_table(&mut self, table: &BlockBasedOptions) -> &mut Self {
        self.format = TableFormat::BlockBased;
        self.table = table.clone();
        self.apply_table_settings()
    }

    pub(super) fn apply_table_settings(&mut self) -> &mut Self {
        self.table.build().install(&mut self.raw);
        self
    }
}

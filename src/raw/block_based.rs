//! The block-based table's options handle (`rocksdb_block_based_table_options_t`): built
//! setting by setting from pinrocks' own copy, then copied into a new table factory of the
//! options.

use crate::raw::cache::CacheHandle;
use crate::raw::ffi;
use crate::raw::handle_calls::{handle_arg, handle_calls};
use crate::raw::options_handle::OptionsHandle;
use crate::raw::owned::Owned;

/// Owns one `rocksdb_block_based_table_options_t`, a plain C++ value.
pub(crate) struct BlockBasedHandle(Owned<ffi::rocksdb_block_based_table_options_t>);

impl BlockBasedHandle {
    /// RocksDB's defaults.
    pub(crate) fn new() -> BlockBasedHandle {
        // SAFETY: plain constructor: a new object, ours alone.
        let raw = unsafe { ffi::rocksdb_block_based_options_create() };
        // SAFETY: as above.
        BlockBasedHandle(unsafe { Owned::from_raw(raw) }.expect("NULL block-based options"))
    }

    /// The handle, live while `self` is.
    pub(crate) fn as_ptr(&self) -> *mut ffi::rocksdb_block_based_table_options_t {
        self.0.as_ptr()
    }

    /// A full bloom filter (`true`) or a ribbon filter of `bits` per key.
    pub(crate) fn set_filter(&mut self, bloom: bool, bits: f64) {
        // SAFETY: live table options; the new filter policy is theirs from here (held by
        // shared_ptr, freed with them).
        unsafe {
            let policy = if bloom {
                ffi::rocksdb_filterpolicy_create_bloom_full(bits)
            } else {
                ffi::rocksdb_filterpolicy_create_ribbon(bits)
            };
            ffi::rocksdb_block_based_options_set_filter_policy(self.as_ptr(), policy)
        }
    }

    /// Copies these into a new block-based table factory of `options`.
    pub(crate) fn install(&self, options: &mut OptionsHandle) {
        // SAFETY: both live; the options copy the table options into a new factory (its
        // cache and filter by shared_ptr).
        unsafe {
            ffi::rocksdb_options_set_block_based_table_factory(options.as_ptr(), self.as_ptr())
        }
    }
}

handle_arg!(BlockBasedHandle => ffi::rocksdb_block_based_table_options_t);

handle_calls!(BlockBasedHandle {
    /// The block cache (its `shared_ptr` copied).
    fn set_block_cache(&mut self, cache: &CacheHandle) = rocksdb_block_based_options_set_block_cache;
    /// `block_size`.
    fn set_block_size(&mut self, bytes: usize) = rocksdb_block_based_options_set_block_size;
    /// `block_restart_interval` (RocksDB raises a value under 1 to 1).
    fn set_block_restart_interval(&mut self, keys: i32) =
        rocksdb_block_based_options_set_block_restart_interval;
    /// `index_block_restart_interval` (RocksDB raises a value under 1 to 1).
    fn set_index_block_restart_interval(&mut self, keys: i32) =
        rocksdb_block_based_options_set_index_block_restart_interval;
    /// `metadata_block_size`.
    fn set_metadata_block_size(&mut self, bytes: u64) =
        rocksdb_block_based_options_set_metadata_block_size;
    /// `cache_index_and_filter_blocks`.
    fn set_cache_index_and_filter_blocks(&mut self, on: u8) =
        rocksdb_block_based_options_set_cache_index_and_filter_blocks;
    /// `cache_index_and_filter_blocks_with_high_priority`.
    fn set_cache_index_and_filter_blocks_with_high_priority(&mut self, on: u8) =
        rocksdb_block_based_options_set_cache_index_and_filter_blocks_with_high_priority;
    /// `pin_l0_filter_and_index_blocks_in_cache`.
    fn set_pin_l0_filter_and_index_blocks_in_cache(&mut self, on: u8) =
        rocksdb_block_based_options_set_pin_l0_filter_and_index_blocks_in_cache;
    /// `pin_top_level_index_and_filter`.
    fn set_pin_top_level_index_and_filter(&mut self, on: u8) =
        rocksdb_block_based_options_set_pin_top_level_index_and_filter;
    /// `index_type` (a C API number).
    fn set_index_type(&mut self, kind: i32) = rocksdb_block_based_options_set_index_type;
    /// `partition_filters`.
    fn set_partition_filters(&mut self, on: u8) = rocksdb_block_based_options_set_partition_filters;
    /// `whole_key_filtering`.
    fn set_whole_key_filtering(&mut self, on: u8) =
        rocksdb_block_based_options_set_whole_key_filtering;
    /// `data_block_index_type` (a C API number).
    fn set_data_block_index_type(&mut self, kind: i32) =
        rocksdb_block_based_options_set_data_block_index_type;
    /// `data_block_hash_table_util_ratio`.
    fn set_data_block_hash_ratio(&mut self, ratio: f64) =
        rocksdb_block_based_options_set_data_block_hash_ratio;
    /// `format_version`.
    fn set_format_version(&mut self, version: i32) = rocksdb_block_based_options_set_format_version;
    /// `checksum` (RocksDB's `ChecksumType` number).
    fn set_checksum(&mut self, kind: std::ffi::c_char) = rocksdb_block_based_options_set_checksum;
    /// `no_block_cache`.
    fn set_no_block_cache(&mut self, on: u8) = rocksdb_block_based_options_set_no_block_cache;
});

//! The C structs and callback types that rocksdb-c/ hands to pinrocks' callbacks and
//! reads (`pinrocks.h`): a curated list of layouts, no function, so that the layers above
//! can name what a callback receives without naming the bindings. Their layouts are
//! checked against RocksDB by `layout_tests.rs` where rocksdb-c/ mirrors a RocksDB type.

pub(crate) use crate::raw::ffi::{
    pinrocks_collector_add_fn, pinrocks_collector_finish_fn, pinrocks_column,
    pinrocks_compaction_context, pinrocks_compaction_info, pinrocks_create_collector_fn,
    pinrocks_create_filter_fn, pinrocks_destroy_fn, pinrocks_error_info, pinrocks_events,
    pinrocks_filter_fn, pinrocks_flush_info, pinrocks_full_merge_fn, pinrocks_ingestion_info,
    pinrocks_memtable_info, pinrocks_partial_merge_fn, pinrocks_slice, pinrocks_stall_info,
    pinrocks_table_file_info, pinrocks_wal_record_fn,
};

/// A `WriteBatch` as rocksdb-c/ hands it to a callback (a WAL filter's batch), to read.
pub(crate) use crate::raw::ffi::pinrocks_batch;

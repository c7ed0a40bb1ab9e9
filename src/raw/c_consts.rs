//! The C API's numbers that the layers above hand through to it (compression kinds, option
//! scopes, memtable and prefix kinds, fault kinds, perf metrics): a curated list, as heed's
//! `lmdb_ffi.rs` re-exports LMDB's flags, so that no file above `raw/` names the bindings.

#[cfg(test)]
pub(crate) use crate::raw::ffi::PINROCKS_OPTION_SCOPE_CUCKOO as OPTION_SCOPE_CUCKOO;
pub(crate) use crate::raw::ffi::{
    rocksdb_block_based_table_data_block_index_type_binary_search as DATA_BLOCK_BINARY_SEARCH,
    rocksdb_block_based_table_data_block_index_type_binary_search_and_hash as DATA_BLOCK_BINARY_SEARCH_AND_HASH,
    rocksdb_block_based_table_index_type_binary_search as INDEX_BINARY_SEARCH,
    rocksdb_block_based_table_index_type_hash_search as INDEX_HASH_SEARCH,
    rocksdb_block_based_table_index_type_two_level_index_search as INDEX_TWO_LEVEL_SEARCH,
    rocksdb_bz2_compression as BZ2_COMPRESSION, rocksdb_lz4_compression as LZ4_COMPRESSION,
    rocksdb_lz4hc_compression as LZ4HC_COMPRESSION, rocksdb_no_compression as NO_COMPRESSION,
    rocksdb_prepopulate_blob_disable as PREPOPULATE_BLOB_DISABLE,
    rocksdb_prepopulate_blob_flush_only as PREPOPULATE_BLOB_FLUSH_ONLY,
    rocksdb_snappy_compression as SNAPPY_COMPRESSION, rocksdb_zlib_compression as ZLIB_COMPRESSION,
    rocksdb_zstd_compression as ZSTD_COMPRESSION, PINROCKS_CODE_EXCEPTION as CODE_EXCEPTION,
    PINROCKS_MAX_NUM_LEVELS as MAX_NUM_LEVELS,
    PINROCKS_MEMTABLE_HASH_LINK_LIST as MEMTABLE_HASH_LINK_LIST,
    PINROCKS_MEMTABLE_HASH_SKIP_LIST as MEMTABLE_HASH_SKIP_LIST,
    PINROCKS_MEMTABLE_SKIP_LIST as MEMTABLE_SKIP_LIST, PINROCKS_MEMTABLE_VECTOR as MEMTABLE_VECTOR,
    PINROCKS_OPTION_SCOPE_BLOCK_BASED as OPTION_SCOPE_BLOCK_BASED,
    PINROCKS_OPTION_SCOPE_CF as OPTION_SCOPE_CF, PINROCKS_OPTION_SCOPE_DB as OPTION_SCOPE_DB,
    PINROCKS_OPTION_SCOPE_PLAIN as OPTION_SCOPE_PLAIN,
    PINROCKS_OPTION_SCOPE_TABLE as OPTION_SCOPE_TABLE, PINROCKS_PATHS_CF as PATHS_CF,
    PINROCKS_PATHS_DB as PATHS_DB, PINROCKS_PATH_DB_LOG_DIR as PATH_DB_LOG_DIR,
    PINROCKS_PATH_WAL_DIR as PATH_WAL_DIR, PINROCKS_PREFIX_CAPPED as PREFIX_CAPPED,
    PINROCKS_PREFIX_FIXED as PREFIX_FIXED,
};

/// The perf context's levels (its metrics are numbered by build/metrics.rs).
pub(crate) mod perf {
    pub(crate) use crate::raw::ffi::{
        rocksdb_disable as DISABLE, rocksdb_enable_count as ENABLE_COUNT,
        rocksdb_enable_time as ENABLE_TIME,
        rocksdb_enable_time_except_for_mutex as ENABLE_TIME_EXCEPT_FOR_MUTEX,
    };
}

/// One write's kind, as every write call and a batch's records name it.
pub(crate) mod record {
    pub(crate) use crate::raw::ffi::{
        PINROCKS_RECORD_DELETE as DELETE, PINROCKS_RECORD_DELETE_RANGE as DELETE_RANGE,
        PINROCKS_RECORD_LOG_DATA as LOG_DATA, PINROCKS_RECORD_MERGE as MERGE,
        PINROCKS_RECORD_PUT as PUT, PINROCKS_RECORD_PUT_COLUMNS as PUT_COLUMNS,
        PINROCKS_RECORD_PUT_ENTITY as PUT_ENTITY, PINROCKS_RECORD_SINGLE_DELETE as SINGLE_DELETE,
    };
}

/// How a transaction's read locks (or tracks) the keys it reads.
pub(crate) mod read_mode {
    pub(crate) use crate::raw::ffi::{
        PINROCKS_READ_FOR_UPDATE as FOR_UPDATE,
        PINROCKS_READ_FOR_UPDATE_SHARED as FOR_UPDATE_SHARED, PINROCKS_READ_PLAIN as PLAIN,
    };
}

/// An iterator's moves.
pub(crate) mod iter {
    pub(crate) use crate::raw::ffi::{
        PINROCKS_ITER_FIRST as FIRST, PINROCKS_ITER_LAST as LAST, PINROCKS_ITER_NEXT as NEXT,
        PINROCKS_ITER_PREV as PREV, PINROCKS_ITER_SEEK as SEEK,
        PINROCKS_ITER_SEEK_FOR_PREV as SEEK_FOR_PREV, PINROCKS_ITER_TAILING as TAILING,
    };
}

/// A compaction filter's decisions.
pub(crate) mod filter {
    pub(crate) use crate::raw::ffi::{
        PINROCKS_FILTER_CHANGE as CHANGE, PINROCKS_FILTER_KEEP as KEEP,
        PINROCKS_FILTER_REMOVE as REMOVE,
    };
}

/// What a WAL filter does with a logged batch.
pub(crate) mod wal {
    pub(crate) use crate::raw::ffi::{
        PINROCKS_WAL_CORRUPTED as CORRUPTED, PINROCKS_WAL_REPLAY as REPLAY,
        PINROCKS_WAL_SKIP as SKIP, PINROCKS_WAL_STOP as STOP,
    };
}

/// A savepoint's operations, on a transaction or an indexed batch.
pub(crate) mod savepoint {
    pub(crate) use crate::raw::ffi::{
        PINROCKS_SAVEPOINT_POP as POP, PINROCKS_SAVEPOINT_ROLLBACK as ROLLBACK,
        PINROCKS_SAVEPOINT_SET as SET,
    };
}

/// How a transaction ends (or prepares to).
pub(crate) mod txn_end {
    pub(crate) use crate::raw::ffi::{
        PINROCKS_TXN_COMMIT as COMMIT, PINROCKS_TXN_PREPARE as PREPARE,
        PINROCKS_TXN_ROLLBACK as ROLLBACK,
    };
}

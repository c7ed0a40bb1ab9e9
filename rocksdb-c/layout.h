// The one place that knows how RocksDB 11.8.1's C API wraps its C++ objects.
//
// db/c.cc defines, for this exact version:
//   struct rocksdb_t                      { DB* rep; };
//   struct rocksdb_options_t              { Options rep; };
//   struct rocksdb_cache_t                { std::shared_ptr<Cache> rep; };
//   struct rocksdb_readoptions_t          { ReadOptions rep; ...more fields... };
//   struct rocksdb_writeoptions_t         { WriteOptions rep; };
//   struct rocksdb_column_family_handle_t { ColumnFamilyHandle* rep; bool immortal; };
//   struct rocksdb_writebatch_t           { WriteBatch rep; };
//   struct rocksdb_backup_engine_t        { BackupEngine* rep; };
//   struct rocksdb_writebatch_wi_t        { WriteBatchWithIndex* rep; };
//   struct rocksdb_iterator_t             { Iterator* rep; };
//   struct rocksdb_pinnableslice_t        { PinnableSlice rep; };
//   struct rocksdb_transaction_t          { Transaction* rep; };
//   struct rocksdb_pinnable_handle_t      { PinnableSlice rep; };
//   struct rocksdb_sstfilewriter_t        { SstFileWriter* rep; };
// The C header only declares them, so we reach `rep`, always the first member, at offset 0.
// librocksdb-sys is pinned with `=` in Cargo.toml; src/layout_tests.rs fails loudly if a new
// RocksDB moves these fields (options set through the C API must be seen here, a column
// family handle must name the right column family).
#ifndef PINROCKS_LAYOUT_H
#define PINROCKS_LAYOUT_H

#include <memory>

#include "rocksdb/c.h"
#include "rocksdb/cache.h"
#include "rocksdb/db.h"
#include "rocksdb/iterator.h"
#include "rocksdb/options.h"
#include "rocksdb/sst_file_writer.h"
#include "rocksdb/utilities/backup_engine.h"
#include "rocksdb/utilities/transaction.h"
#include "rocksdb/utilities/write_batch_with_index.h"
#include "rocksdb/write_batch.h"

// The wrappers pinrocks allocates itself and hands to the C API, whose destroy functions
// (rocksdb_iter_destroy, rocksdb_pinnableslice_destroy, rocksdb_writebatch_wi_destroy)
// `delete` them: complete types with db/c.cc's exact definitions.
struct rocksdb_writebatch_wi_t {
  rocksdb::WriteBatchWithIndex* rep;
};
struct rocksdb_iterator_t {
  rocksdb::Iterator* rep;
};
struct rocksdb_pinnableslice_t {
  rocksdb::PinnableSlice rep;
};
// Freed (wrapper alone) for the recovered transactions pinrocks never hands out.
struct rocksdb_transaction_t {
  rocksdb::Transaction* rep;
};
// Made by our guarded v2 read (guarded_calls.cc), deleted by rocksdb_pinnable_handle_destroy.
struct rocksdb_pinnable_handle_t {
  rocksdb::PinnableSlice rep;
};

namespace pinrocks {

inline rocksdb::DB* db_of(rocksdb_t* db) {
  return *reinterpret_cast<rocksdb::DB**>(db);
}

inline std::shared_ptr<rocksdb::Cache>& cache_of(rocksdb_cache_t* cache) {
  return *reinterpret_cast<std::shared_ptr<rocksdb::Cache>*>(cache);
}

inline rocksdb::Options& options_of(rocksdb_options_t* options) {
  return *reinterpret_cast<rocksdb::Options*>(options);
}

inline const rocksdb::WriteOptions& write_options_of(const rocksdb_writeoptions_t* options) {
  return *reinterpret_cast<const rocksdb::WriteOptions*>(options);
}

inline const rocksdb::ReadOptions& read_options_of(const rocksdb_readoptions_t* options) {
  return *reinterpret_cast<const rocksdb::ReadOptions*>(options);
}

inline rocksdb::ReadOptions& read_options_of_mut(rocksdb_readoptions_t* options) {
  return *reinterpret_cast<rocksdb::ReadOptions*>(options);
}

inline rocksdb::ColumnFamilyHandle* handle_of(rocksdb_column_family_handle_t* cf) {
  return *reinterpret_cast<rocksdb::ColumnFamilyHandle**>(cf);
}

inline rocksdb::WriteBatch& batch_of(rocksdb_writebatch_t* batch) {
  return *reinterpret_cast<rocksdb::WriteBatch*>(batch);
}

inline const rocksdb::WriteBatch& batch_of(const rocksdb_writebatch_t* batch) {
  return *reinterpret_cast<const rocksdb::WriteBatch*>(batch);
}

// db/c.cc: `struct rocksdb_sstfilewriter_t { SstFileWriter* rep; };`.
inline rocksdb::SstFileWriter* sst_writer_of(rocksdb_sstfilewriter_t* writer) {
  return *reinterpret_cast<rocksdb::SstFileWriter**>(writer);
}

inline rocksdb::BackupEngine* backup_engine_of(rocksdb_backup_engine_t* be) {
  return *reinterpret_cast<rocksdb::BackupEngine**>(be);
}

// NULL means the default column family.
inline rocksdb::ColumnFamilyHandle* column_family_of(rocksdb_t* db,
                                                    rocksdb_column_family_handle_t* cf) {
  return cf == nullptr ? db_of(db)->DefaultColumnFamily() : handle_of(cf);
}

}  // namespace pinrocks

#endif

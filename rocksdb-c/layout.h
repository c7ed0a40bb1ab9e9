// The one place that knows how RocksDB 11.8.1's C API wraps its C++ objects. rocksdb/c.h only
// declares its handle types; db/c.cc defines them as private structs around a `rep`. Nothing
// else in rocksdb-c/ casts onto a C API wrapper or names a `rep`: every other file goes through
// the accessors below (`db_of`, `options_of`, ...).
//
// Every struct pinrocks mirrors or reaches into, copied from this version's db/c.cc, each with
// its line there:
//   c.cc:252    struct rocksdb_t {
//                 DB* rep;
//               };
//   c.cc:258    struct rocksdb_backup_engine_t {
//                 BackupEngine* rep;
//               };
//   c.cc:275    struct rocksdb_iterator_t {
//                 Iterator* rep;
//               };
//   c.cc:278    struct rocksdb_writebatch_t {
//                 WriteBatch rep;
//               };
//   c.cc:281    struct rocksdb_writebatch_wi_t {
//                 WriteBatchWithIndex* rep;
//               };
//   c.cc:404    struct rocksdb_readoptions_t {
//                 ReadOptions rep;
//                 // stack variables to set pointers to in ReadOptions
//                 Slice upper_bound;
//                 Slice lower_bound;
//                 Slice timestamp;
//                 Slice iter_start_ts;
//                 std::unique_ptr<std::string> request_id;
//                 void* table_filter_state = nullptr;
//                 void (*table_filter_destructor)(void*) = nullptr;
//                 rocksdb_readoptions_table_filter_cb table_filter_callback = nullptr;
//                 std::shared_ptr<UserDefinedIndexFactory> table_index_factory;
//
//                 ~rocksdb_readoptions_t() { ClearTableFilter(); }
//
//                 void ClearTableFilter() {
//                   rep.table_filter = {};
//                   if (table_filter_destructor != nullptr) {
//                     (*table_filter_destructor)(table_filter_state);
//                   }
//                   table_filter_state = nullptr;
//                   table_filter_destructor = nullptr;
//                   table_filter_callback = nullptr;
//                 }
//
//                 void SetTableFilter(void* state, void (*destructor)(void*),
//                                     rocksdb_readoptions_table_filter_cb callback) {
//                   ClearTableFilter();
//                   table_filter_state = state;
//                   table_filter_destructor = destructor;
//                   table_filter_callback = callback;
//                   if (callback != nullptr) {
//                     auto cb = table_filter_callback;
//                     auto filter_state = table_filter_state;
//                     rep.table_filter = [cb, filter_state](const TableProperties& props) {
//                       return cb(filter_state,
//                                 reinterpret_cast<const rocksdb_table_properties_t*>(
//                                     &props)) != 0;
//                     };
//                   }
//                 }
//               };
//               (more than we use: pinrocks reads and writes `rep` alone, at offset 0)
//   c.cc:447    struct rocksdb_writeoptions_t {
//                 WriteOptions rep;
//               };
//   c.cc:450    struct rocksdb_options_t {
//                 Options rep;
//               };
//   c.cc:516    struct rocksdb_cache_t {
//                 std::shared_ptr<Cache> rep;
//               };
//   c.cc:531    struct rocksdb_column_family_handle_t {
//                 ColumnFamilyHandle* rep;
//                 bool immortal; /* only true for default cf */
//               };
//               (more than we use: `immortal` is only for rocksdb_column_family_handle_destroy)
//   c.cc:585    struct rocksdb_sstfilewriter_t {
//                 SstFileWriter* rep;
//               };
//   c.cc:594    struct rocksdb_pinnableslice_t {
//                 PinnableSlice rep;
//               };
//   c.cc:600    struct rocksdb_transactiondb_t {
//                 TransactionDB* rep;
//               };
//   c.cc:606    struct rocksdb_transaction_t {
//                 Transaction* rep;
//               };
//   c.cc:615    struct rocksdb_optimistictransactiondb_t {
//                 OptimisticTransactionDB* rep;
//               };
//
// All but rocksdb_readoptions_t are defined below as complete types, token for token as c.cc
// defines them, behind the same using-declarations c.cc has at file scope: the one definition
// rule asks exactly that of a class defined in two translation units, and pinrocks allocates
// and frees some of these wrappers that RocksDB frees or allocates (rocksdb_iter_destroy deletes
// the iterator wrapper pinrocks_read_iterator makes, ...). rocksdb_readoptions_t stays
// incomplete (c.cc's has member functions and fields we never touch); its `rep` is its first
// member and is reached at the wrapper's address.
//
// A WriteBatch that RocksDB owns (a transaction's, an indexed batch's) is never passed off as a
// rocksdb_writebatch_t: pinrocks names any WriteBatch by its own opaque pinrocks_batch.
//
// librocksdb-sys is pinned with `=` in Cargo.toml, and the static_assert below stops the build
// on any other RocksDB. src/raw/layout_tests.rs, through the probes in
// rocksdb-c-dev/layout_probes.h, checks every accessor at run time: what is set through the C API
// must be what it reads, and each handle must reach its own object.
#ifndef PINROCKS_LAYOUT_H
#define PINROCKS_LAYOUT_H

#include <memory>

#include "pinrocks.h"
#include "rocksdb/c.h"
#include "rocksdb/cache.h"
#include "rocksdb/db.h"
#include "rocksdb/iterator.h"
#include "rocksdb/options.h"
#include "rocksdb/slice.h"
#include "rocksdb/sst_file_writer.h"
#include "rocksdb/utilities/backup_engine.h"
#include "rocksdb/utilities/optimistic_transaction_db.h"
#include "rocksdb/utilities/transaction.h"
#include "rocksdb/utilities/transaction_db.h"
#include "rocksdb/utilities/write_batch_with_index.h"
#include "rocksdb/version.h"
#include "rocksdb/write_batch.h"

// What pinrocks mirrors of db/c.cc (this file) and the status codes it names (pinrocks.h) are
// those of the RocksDB versions it is tested on: another version must not build against them.
// 11.8.1 is the default build (librocksdb-sys =0.19.0); 11.12.0 the one scripts/rocksdb-11.12.sh
// builds (rust-librocksdb-sys =0.49.0). Every struct below is the same in both c.cc's, token for
// token; rocksdb_readoptions_t, left incomplete, gained a member after `rep` in 11.12.0
// (`table_filter_func`, which its `rep.table_filter` now points to). Code that differs by version
// tests PINROCKS_ROCKSDB_VERSION.
#define PINROCKS_ROCKSDB_VERSION (ROCKSDB_MAJOR * 10000 + ROCKSDB_MINOR * 100 + ROCKSDB_PATCH)
static_assert(PINROCKS_ROCKSDB_VERSION == 110801 || PINROCKS_ROCKSDB_VERSION == 111200,
              "pinrocks mirrors the C API of RocksDB 11.8.1 and 11.12.0 (rocksdb-c/layout.h): "
              "this RocksDB is another version; pin librocksdb-sys to =0.19.0+11.8.1 or update "
              "the mirrors (README, \"Another RocksDB\")");

// db/c.cc's own using-declarations (c.cc:64-198) for the names its structs use, so that the
// definitions below are c.cc's token for token and their names mean the same classes.
using ROCKSDB_NAMESPACE::BackupEngine;
using ROCKSDB_NAMESPACE::Cache;
using ROCKSDB_NAMESPACE::ColumnFamilyHandle;
using ROCKSDB_NAMESPACE::DB;
using ROCKSDB_NAMESPACE::Iterator;
using ROCKSDB_NAMESPACE::OptimisticTransactionDB;
using ROCKSDB_NAMESPACE::Options;
using ROCKSDB_NAMESPACE::PinnableSlice;
using ROCKSDB_NAMESPACE::SstFileWriter;
using ROCKSDB_NAMESPACE::Transaction;
using ROCKSDB_NAMESPACE::TransactionDB;
using ROCKSDB_NAMESPACE::TransactionDBOptions;
using ROCKSDB_NAMESPACE::WriteBatch;
using ROCKSDB_NAMESPACE::WriteBatchWithIndex;
using ROCKSDB_NAMESPACE::WriteOptions;

// c.cc:252
struct rocksdb_t {
  DB* rep;
};
// c.cc:258
struct rocksdb_backup_engine_t {
  BackupEngine* rep;
};
// c.cc:275: made by pinrocks_read_iterator, deleted by rocksdb_iter_destroy.
struct rocksdb_iterator_t {
  Iterator* rep;
};
// c.cc:278
struct rocksdb_writebatch_t {
  WriteBatch rep;
};
// c.cc:281: made by pinrocks_wbwi_create, deleted by rocksdb_writebatch_wi_destroy.
struct rocksdb_writebatch_wi_t {
  WriteBatchWithIndex* rep;
};
// c.cc:447
struct rocksdb_writeoptions_t {
  WriteOptions rep;
};
// c.cc:450
struct rocksdb_options_t {
  Options rep;
};
// c.cc:516
struct rocksdb_cache_t {
  std::shared_ptr<Cache> rep;
};
// c.cc:531
struct rocksdb_column_family_handle_t {
  ColumnFamilyHandle* rep;
  bool immortal; /* only true for default cf */
};
// c.cc:585
struct rocksdb_sstfilewriter_t {
  SstFileWriter* rep;
};
// c.cc:594: made by pinrocks_read_handle, deleted by rocksdb_pinnableslice_destroy.
struct rocksdb_pinnableslice_t {
  PinnableSlice rep;
};
// c.cc:597: copied by pinrocks_guarded_transactiondb_open_column_families (guarded_calls.cc),
// to give the lock manager row_locks.cc's counted mutexes.
struct rocksdb_transactiondb_options_t {
  TransactionDBOptions rep;
};
// c.cc:600
struct rocksdb_transactiondb_t {
  TransactionDB* rep;
};
// c.cc:606: the wrapper alone is deleted by pinrocks_transaction_forget, for the recovered
// transactions pinrocks never hands out.
struct rocksdb_transaction_t {
  Transaction* rep;
};
// c.cc:615
struct rocksdb_optimistictransactiondb_t {
  OptimisticTransactionDB* rep;
};

// The accessors: each returns its wrapper's `rep` by reference (so that pinrocks can also set
// it: a wrapper it made, or a database handle it points at a transaction database).
namespace pinrocks {

inline rocksdb::DB*& db_of(rocksdb_t* db) { return db->rep; }

inline rocksdb::TransactionDB*& transaction_db_of(rocksdb_transactiondb_t* txn_db) {
  return txn_db->rep;
}

inline rocksdb::OptimisticTransactionDB*& optimistic_transaction_db_of(
    rocksdb_optimistictransactiondb_t* txn_db) {
  return txn_db->rep;
}

inline rocksdb::Options& options_of(rocksdb_options_t* options) { return options->rep; }

inline const rocksdb::Options& options_of(const rocksdb_options_t* options) { return options->rep; }

inline std::shared_ptr<rocksdb::Cache>& cache_of(rocksdb_cache_t* cache) { return cache->rep; }

inline const std::shared_ptr<rocksdb::Cache>& cache_of(const rocksdb_cache_t* cache) {
  return cache->rep;
}

// The one cast onto an incomplete wrapper: `rep` is rocksdb_readoptions_t's first member.
inline const rocksdb::ReadOptions& read_options_of(const rocksdb_readoptions_t* options) {
  return *reinterpret_cast<const rocksdb::ReadOptions*>(options);
}

inline rocksdb::ReadOptions& read_options_of(rocksdb_readoptions_t* options) {
  return *reinterpret_cast<rocksdb::ReadOptions*>(options);
}

inline const rocksdb::WriteOptions& write_options_of(const rocksdb_writeoptions_t* options) {
  return options->rep;
}

inline rocksdb::ColumnFamilyHandle*& handle_of(rocksdb_column_family_handle_t* cf) {
  return cf->rep;
}

// NULL means the default column family.
inline rocksdb::ColumnFamilyHandle* column_family_of(rocksdb_t* db,
                                                     rocksdb_column_family_handle_t* cf) {
  return cf == nullptr ? db_of(db)->DefaultColumnFamily() : handle_of(cf);
}

inline rocksdb::WriteBatch& batch_of(rocksdb_writebatch_t* batch) { return batch->rep; }

inline const rocksdb::WriteBatch& batch_of(const rocksdb_writebatch_t* batch) { return batch->rep; }

// Not a mirror: pinrocks' own opaque name for a WriteBatch (pinrocks.h), through void*, which
// round-trips any object pointer unchanged.
inline rocksdb::WriteBatch* write_batch_of(pinrocks_batch* batch) {
  return static_cast<rocksdb::WriteBatch*>(static_cast<void*>(batch));
}

inline const rocksdb::WriteBatch* write_batch_of(const pinrocks_batch* batch) {
  return static_cast<const rocksdb::WriteBatch*>(static_cast<const void*>(batch));
}

inline pinrocks_batch* batch_handle(rocksdb::WriteBatch* batch) {
  return static_cast<pinrocks_batch*>(static_cast<void*>(batch));
}

inline const pinrocks_batch* batch_handle(const rocksdb::WriteBatch* batch) {
  return static_cast<const pinrocks_batch*>(static_cast<const void*>(batch));
}

inline rocksdb::WriteBatchWithIndex*& indexed_batch_of(rocksdb_writebatch_wi_t* batch) {
  return batch->rep;
}

inline rocksdb::Iterator*& iterator_of(rocksdb_iterator_t* iter) { return iter->rep; }

inline rocksdb::Iterator* const& iterator_of(const rocksdb_iterator_t* iter) { return iter->rep; }

inline rocksdb::PinnableSlice& pinnable_slice_of(rocksdb_pinnableslice_t* value) {
  return value->rep;
}

inline const rocksdb::PinnableSlice& pinnable_slice_of(const rocksdb_pinnableslice_t* value) {
  return value->rep;
}

inline rocksdb::Transaction*& transaction_of(rocksdb_transaction_t* txn) { return txn->rep; }

inline rocksdb::SstFileWriter*& sst_writer_of(rocksdb_sstfilewriter_t* writer) {
  return writer->rep;
}

inline rocksdb::BackupEngine*& backup_engine_of(rocksdb_backup_engine_t* backup_engine) {
  return backup_engine->rep;
}

}  // namespace pinrocks

#endif

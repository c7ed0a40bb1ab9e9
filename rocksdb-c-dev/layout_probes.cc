// The test-only probes of layout.h's accessors (declared in layout_probes.h, which pinrocks.h
// does not include): each reads through one accessor what a test set through the C API.
#include "layout_probes.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "db/write_batch_internal.h"
#include "layout.h"
#include "rocksdb/advanced_cache.h"
#include "rocksdb/utilities/backup_engine.h"

namespace {

size_t copy_bytes(const char* data, size_t len, char* buf, size_t buflen) noexcept {
  std::memcpy(buf, data, std::min(len, buflen));
  return len;
}

size_t copy_name(const std::string& name, char* buf, size_t buflen) noexcept {
  return copy_bytes(name.data(), name.size(), buf, buflen);
}

}  // namespace

extern "C" {

size_t pinrocks_db_name(rocksdb_t* db, char* buf, size_t buflen) PINROCKS_NOEXCEPT {
  return copy_name(pinrocks::db_of(db)->GetName(), buf, buflen);
}

unsigned char pinrocks_db_is_transactiondb(rocksdb_t* db,
                                           rocksdb_transactiondb_t* txn_db) PINROCKS_NOEXCEPT {
  return pinrocks::db_of(db) == static_cast<rocksdb::DB*>(pinrocks::transaction_db_of(txn_db));
}

unsigned char pinrocks_db_is_optimistictransactiondb(
    rocksdb_t* db, rocksdb_optimistictransactiondb_t* txn_db) PINROCKS_NOEXCEPT {
  return pinrocks::db_of(db) ==
         static_cast<rocksdb::DB*>(pinrocks::optimistic_transaction_db_of(txn_db));
}

size_t pinrocks_transactiondb_name(rocksdb_transactiondb_t* txn_db, char* buf,
                                   size_t buflen) PINROCKS_NOEXCEPT {
  return copy_name(pinrocks::transaction_db_of(txn_db)->GetName(), buf, buflen);
}

size_t pinrocks_optimistictransactiondb_name(rocksdb_optimistictransactiondb_t* txn_db, char* buf,
                                             size_t buflen) PINROCKS_NOEXCEPT {
  return copy_name(pinrocks::optimistic_transaction_db_of(txn_db)->GetName(), buf, buflen);
}

size_t pinrocks_options_write_buffer_size(const rocksdb_options_t* options) PINROCKS_NOEXCEPT {
  return pinrocks::options_of(options).write_buffer_size;
}

int pinrocks_options_max_open_files(const rocksdb_options_t* options) PINROCKS_NOEXCEPT {
  return pinrocks::options_of(options).max_open_files;
}

size_t pinrocks_cache_capacity(const rocksdb_cache_t* cache) PINROCKS_NOEXCEPT {
  return pinrocks::cache_of(cache)->GetCapacity();
}

unsigned char pinrocks_readoptions_fill_cache(const rocksdb_readoptions_t* options)
    PINROCKS_NOEXCEPT {
  return pinrocks::read_options_of(options).fill_cache;
}

unsigned char pinrocks_readoptions_verify_checksums(const rocksdb_readoptions_t* options)
    PINROCKS_NOEXCEPT {
  return pinrocks::read_options_of(options).verify_checksums;
}

unsigned int pinrocks_readoptions_borrowed_count(const rocksdb_readoptions_t* options)
    PINROCKS_NOEXCEPT {
  const rocksdb::ReadOptions& rep = pinrocks::read_options_of(options);
  return (rep.request_id != nullptr) + (rep.table_filter != nullptr) +
         (rep.table_index_factory != nullptr);
}

unsigned char pinrocks_writeoptions_sync(const rocksdb_writeoptions_t* options) PINROCKS_NOEXCEPT {
  return pinrocks::write_options_of(options).sync;
}

unsigned char pinrocks_writeoptions_disable_wal(const rocksdb_writeoptions_t* options)
    PINROCKS_NOEXCEPT {
  return pinrocks::write_options_of(options).disableWAL;
}

size_t pinrocks_column_family_name(rocksdb_column_family_handle_t* column_family, char* buf,
                                   size_t buflen) PINROCKS_NOEXCEPT {
  return copy_name(pinrocks::handle_of(column_family)->GetName(), buf, buflen);
}

size_t pinrocks_db_column_family_name(rocksdb_t* db, rocksdb_column_family_handle_t* column_family,
                                      char* buf, size_t buflen) PINROCKS_NOEXCEPT {
  return copy_name(pinrocks::column_family_of(db, column_family)->GetName(), buf, buflen);
}

unsigned int pinrocks_writebatch_wi_count(rocksdb_writebatch_wi_t* batch) PINROCKS_NOEXCEPT {
  return pinrocks::indexed_batch_of(batch)->GetWriteBatch()->Count();
}

size_t pinrocks_iter_key(const rocksdb_iterator_t* iter, char* buf,
                         size_t buflen) PINROCKS_NOEXCEPT {
  const rocksdb::Iterator* it = pinrocks::iterator_of(iter);
  if (!it->Valid()) {
    return SIZE_MAX;
  }
  rocksdb::Slice key = it->key();
  return copy_bytes(key.data(), key.size(), buf, buflen);
}

size_t pinrocks_pinnableslice_value(const rocksdb_pinnableslice_t* value, char* buf,
                                    size_t buflen) PINROCKS_NOEXCEPT {
  const rocksdb::PinnableSlice& v = pinrocks::pinnable_slice_of(value);
  return copy_bytes(v.data(), v.size(), buf, buflen);
}

size_t pinrocks_transaction_name(rocksdb_transaction_t* txn, char* buf,
                                 size_t buflen) PINROCKS_NOEXCEPT {
  try {
    return copy_name(pinrocks::transaction_of(txn)->GetName(), buf, buflen);
  } catch (...) {
    return SIZE_MAX;  // the name's copy could not be allocated
  }
}

uint64_t pinrocks_sstfilewriter_file_size(rocksdb_sstfilewriter_t* writer) PINROCKS_NOEXCEPT {
  return pinrocks::sst_writer_of(writer)->FileSize();
}

size_t pinrocks_backup_engine_backup_count(rocksdb_backup_engine_t* backup_engine)
    PINROCKS_NOEXCEPT {
  try {
    std::vector<rocksdb::BackupInfo> infos;
    pinrocks::backup_engine_of(backup_engine)->GetBackupInfo(&infos);
    return infos.size();
  } catch (...) {
    return SIZE_MAX;  // the list could not be allocated
  }
}

void pinrocks_batch_set_count(pinrocks_batch* batch, uint32_t count) PINROCKS_NOEXCEPT {
  rocksdb::WriteBatchInternal::SetCount(pinrocks::write_batch_of(batch), count);
}

}  // extern "C"

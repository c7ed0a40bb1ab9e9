// Wide-column entities read, which RocksDB 11.8.1's C API cannot: GetEntity through every read
// source, with the columns pinned on this function's stack while a Rust callback reads them (the
// one-call reads) or in a heap-allocated pinrocks_entity_t that holds the pin until destroyed
// (the guard and owned tiers), and the columns of an iterator's current entry. Columns cross as
// pinrocks_column arrays, which are RocksDB's own WideColumns viewed in place (checked below), so
// reading copies no column. (Writes are the PINROCKS_RECORD_PUT_COLUMNS op of every write entry
// point: guarded.h's columns_of.)
#include <cstddef>
#include <memory>
#include <string>
#include <type_traits>

#include "db/wide/wide_column_serialization.h"
#include "guarded.h"
#include "layout.h"
#include "pinrocks.h"
#include "rocksdb/comparator.h"
#include "rocksdb/db.h"
#include "rocksdb/iterator.h"
#include "rocksdb/slice.h"
#include "rocksdb/status.h"
#include "rocksdb/utilities/transaction.h"
#include "rocksdb/utilities/write_batch_with_index.h"
#include "rocksdb/wide_columns.h"

// A WideColumn is two Slices, `name_` then `value_` (include/rocksdb/wide_columns.h:88-89, private:
// its order is checked by the entity tests, which read names and values back), and a Slice is
// `data_` then `size_` (include/rocksdb/slice.h:126-128, public: checked here). Together, the
// layout of pinrocks_column.
static_assert(std::is_standard_layout_v<rocksdb::Slice> &&
                  sizeof(rocksdb::Slice) == sizeof(pinrocks_slice) &&
                  alignof(rocksdb::Slice) == alignof(pinrocks_slice) &&
                  offsetof(rocksdb::Slice, data_) == offsetof(pinrocks_slice, data) &&
                  offsetof(rocksdb::Slice, size_) == offsetof(pinrocks_slice, len),
              "rocksdb::Slice is no longer pinrocks_slice");
static_assert(std::is_standard_layout_v<rocksdb::WideColumn> &&
                  sizeof(rocksdb::WideColumn) == sizeof(pinrocks_column) &&
                  alignof(rocksdb::WideColumn) == alignof(pinrocks_column),
              "rocksdb::WideColumn is no longer pinrocks_column");

// What a pinrocks_entity_t is: the entity read, pinned.
struct pinrocks_entity_t {
  rocksdb::PinnableWideColumns rep;
};

namespace {

// RocksDB's columns, in place, as the callback's array.
const pinrocks_column* view_of(const rocksdb::WideColumns& columns) {
  return reinterpret_cast<const pinrocks_column*>(columns.data());
}

// GetEntity from the database.
rocksdb::Status read_db(rocksdb_t* db, const rocksdb_readoptions_t* options,
                        rocksdb_column_family_handle_t* column_family, const rocksdb::Slice& key,
                        rocksdb::PinnableWideColumns* columns) {
  return pinrocks::db_of(db)->GetEntity(pinrocks::read_options_of(options),
                                        pinrocks::column_family_of(db, column_family), key,
                                        columns);
}

// GetEntity through a transaction, `mode` a PINROCKS_READ_*.
rocksdb::Status read_transaction(rocksdb_transaction_t* txn, const rocksdb_readoptions_t* options,
                                 rocksdb_column_family_handle_t* column_family,
                                 const rocksdb::Slice& key, int mode,
                                 rocksdb::PinnableWideColumns* columns) {
  rocksdb::Transaction* t = pinrocks::transaction_of(txn);
  const rocksdb::ReadOptions& ro = pinrocks::read_options_of(options);
  rocksdb::ColumnFamilyHandle* cf = pinrocks::handle_of(column_family);
  switch (mode) {
    case PINROCKS_READ_PLAIN:
      return t->GetEntity(ro, cf, key, columns);
    case PINROCKS_READ_FOR_UPDATE:
      return t->GetEntityForUpdate(ro, cf, key, columns, /*exclusive=*/true);
    case PINROCKS_READ_FOR_UPDATE_SHARED:
      return t->GetEntityForUpdate(ro, cf, key, columns, /*exclusive=*/false);
    default:
      return rocksdb::Status::InvalidArgument("pinrocks: unknown read mode");
  }
}

// GetEntity through an indexed batch: over the database, or from the batch alone, where a key
// with only merge operands there reads them merged with no existing value, as the batch-only
// iterator (the batch over an empty base) shows them and as the plain read does
// (indexed_batch.cc): that entity is rebuilt from the iterator's columns, a copy.
rocksdb::Status read_batch(rocksdb_t* db, rocksdb_writebatch_wi_t* batch,
                           const rocksdb_readoptions_t* options,
                           rocksdb_column_family_handle_t* column_family, const rocksdb::Slice& key,
                           unsigned char batch_only, rocksdb::PinnableWideColumns* columns) {
  rocksdb::WriteBatchWithIndex* b = pinrocks::indexed_batch_of(batch);
  rocksdb::ColumnFamilyHandle* cf = pinrocks::handle_of(column_family);
  if (batch_only == 0) {
    return b->GetEntityFromBatchAndDB(pinrocks::db_of(db), pinrocks::read_options_of(options), cf,
                                      key, columns);
  }
  rocksdb::Status s = b->GetEntityFromBatch(cf, key, columns);
  if (!s.IsMergeInProgress()) {
    return s;
  }
  std::unique_ptr<rocksdb::Iterator> empty(rocksdb::NewEmptyIterator());
  std::unique_ptr<rocksdb::Iterator> it(b->NewIteratorWithBase(cf, empty.get()));
  empty.release();  // owned by `it` from here
  it->Seek(key);
  if (!it->Valid() || cf->GetComparator()->Compare(it->key(), key) != 0) {
    return it->status().ok() ? rocksdb::Status::NotFound() : it->status();
  }
  std::string entity;
  s = rocksdb::WideColumnSerialization::Serialize(it->columns(), entity);
  return s.ok() ? columns->SetWideColumnValue(std::move(entity)) : s;
}

// A one-call read: `read` fills a PinnableWideColumns on this frame; on success `fn` reads the
// columns while it is pinned; not-found is no error. Returns whether the key was found.
template <typename Read>
unsigned char one_call(Read&& read, pinrocks_columns_fn fn, void* ctx, int* status_code,
                       char** errptr) noexcept {
  unsigned char found = 0;
  pinrocks::guarded(status_code, errptr, [&] {
    rocksdb::PinnableWideColumns entity;
    const rocksdb::Status s = read(&entity);
    if (s.ok()) {
      const rocksdb::WideColumns& columns = entity.columns();
      fn(ctx, view_of(columns), columns.size());
      found = 1;
    } else if (!s.IsNotFound()) {
      pinrocks::save_status(errptr, status_code, s);
    }
  });  // `entity` releases its pin as this frame returns.
  return found;
}

// A handle read: `read` fills a new pinrocks_entity_t, returned on success; NULL if not found
// or on error (reported).
template <typename Read>
pinrocks_entity_t* new_entity(Read&& read, int* status_code, char** errptr) noexcept {
  pinrocks_entity_t* result = nullptr;
  pinrocks::guarded(status_code, errptr, [&] {
    auto entity = std::make_unique<pinrocks_entity_t>();
    const rocksdb::Status s = read(&entity->rep);
    if (s.ok()) {
      result = entity.release();  // freed by pinrocks_entity_destroy
    } else if (!s.IsNotFound()) {
      pinrocks::save_status(errptr, status_code, s);
    }
  });
  return result;
}

}  // namespace

extern "C" {

unsigned char pinrocks_get_entity_pinned(rocksdb_t* db, const rocksdb_readoptions_t* options,
                                         rocksdb_column_family_handle_t* column_family,
                                         const char* key, size_t keylen, pinrocks_columns_fn fn,
                                         void* ctx, int* status_code,
                                         char** errptr) PINROCKS_NOEXCEPT {
  return one_call(
      [&](rocksdb::PinnableWideColumns* columns) {
        return read_db(db, options, column_family, rocksdb::Slice(key, keylen), columns);
      },
      fn, ctx, status_code, errptr);
}

unsigned char pinrocks_transaction_get_entity_pinned(
    rocksdb_transaction_t* txn, const rocksdb_readoptions_t* options,
    rocksdb_column_family_handle_t* column_family, const char* key, size_t keylen, int mode,
    pinrocks_columns_fn fn, void* ctx, int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  return one_call(
      [&](rocksdb::PinnableWideColumns* columns) {
        return read_transaction(txn, options, column_family, rocksdb::Slice(key, keylen), mode,
                                columns);
      },
      fn, ctx, status_code, errptr);
}

unsigned char pinrocks_wbwi_get_entity_pinned(rocksdb_t* db, rocksdb_writebatch_wi_t* batch,
                                              const rocksdb_readoptions_t* options,
                                              rocksdb_column_family_handle_t* column_family,
                                              const char* key, size_t keylen,
                                              unsigned char batch_only, pinrocks_columns_fn fn,
                                              void* ctx, int* status_code,
                                              char** errptr) PINROCKS_NOEXCEPT {
  return one_call(
      [&](rocksdb::PinnableWideColumns* columns) {
        return read_batch(db, batch, options, column_family, rocksdb::Slice(key, keylen),
                          batch_only, columns);
      },
      fn, ctx, status_code, errptr);
}

pinrocks_entity_t* pinrocks_get_entity_handle(rocksdb_t* db, const rocksdb_readoptions_t* options,
                                              rocksdb_column_family_handle_t* column_family,
                                              const char* key, size_t keylen, int* status_code,
                                              char** errptr) PINROCKS_NOEXCEPT {
  return new_entity(
      [&](rocksdb::PinnableWideColumns* columns) {
        return read_db(db, options, column_family, rocksdb::Slice(key, keylen), columns);
      },
      status_code, errptr);
}

pinrocks_entity_t* pinrocks_transaction_get_entity_handle(
    rocksdb_transaction_t* txn, const rocksdb_readoptions_t* options,
    rocksdb_column_family_handle_t* column_family, const char* key, size_t keylen, int mode,
    int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  return new_entity(
      [&](rocksdb::PinnableWideColumns* columns) {
        return read_transaction(txn, options, column_family, rocksdb::Slice(key, keylen), mode,
                                columns);
      },
      status_code, errptr);
}

pinrocks_entity_t* pinrocks_wbwi_get_entity_handle(rocksdb_t* db, rocksdb_writebatch_wi_t* batch,
                                                   const rocksdb_readoptions_t* options,
                                                   rocksdb_column_family_handle_t* column_family,
                                                   const char* key, size_t keylen,
                                                   unsigned char batch_only, int* status_code,
                                                   char** errptr) PINROCKS_NOEXCEPT {
  return new_entity(
      [&](rocksdb::PinnableWideColumns* columns) {
        return read_batch(db, batch, options, column_family, rocksdb::Slice(key, keylen),
                          batch_only, columns);
      },
      status_code, errptr);
}

void pinrocks_entity_columns(const pinrocks_entity_t* entity, const pinrocks_column** columns,
                             size_t* count) PINROCKS_NOEXCEPT {
  const rocksdb::WideColumns& pinned = entity->rep.columns();
  *columns = view_of(pinned);
  *count = pinned.size();
}

void pinrocks_entity_destroy(pinrocks_entity_t* entity) PINROCKS_NOEXCEPT { delete entity; }

void pinrocks_iter_columns(const rocksdb_iterator_t* iter, const pinrocks_column** columns,
                           size_t* count) PINROCKS_NOEXCEPT {
  const rocksdb::WideColumns& current = pinrocks::iterator_of(iter)->columns();
  *columns = view_of(current);
  *count = current.size();
}

}  // extern "C"

// Wide-column entities read, which RocksDB 11.8.1's C API cannot: GetEntity through every read
// source with the columns pinned on this function's stack while a Rust callback reads them, and
// the columns of an iterator's current entry. Columns cross as pinrocks_column arrays, which are
// RocksDB's own WideColumns viewed in place (checked below), so reading copies no column. (Writes
// are the PINROCKS_RECORD_PUT_COLUMNS op of every write entry point: guarded.h's columns_of.)
#include <cstddef>
#include <memory>
#include <type_traits>

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

namespace {

// RocksDB's columns, in place, as the callback's array.
const pinrocks_column* view_of(const rocksdb::WideColumns& columns) {
  return reinterpret_cast<const pinrocks_column*>(columns.data());
}

// The end of every one-call entity read: as pinrocks::deliver, with the columns.
unsigned char deliver_columns(const rocksdb::Status& s, const rocksdb::PinnableWideColumns& found,
                              pinrocks_columns_fn fn, void* ctx, int* status_code, char** errptr) {
  if (s.ok()) {
    const rocksdb::WideColumns& columns = found.columns();
    fn(ctx, view_of(columns), columns.size());
    return 1;
  }
  if (!s.IsNotFound()) {
    pinrocks::save_status(errptr, status_code, s);
  }
  return 0;
}

}  // namespace

extern "C" {

unsigned char pinrocks_get_entity_pinned(rocksdb_t* db, const rocksdb_readoptions_t* options,
                                         rocksdb_column_family_handle_t* column_family,
                                         const char* key, size_t keylen, pinrocks_columns_fn fn,
                                         void* ctx, int* status_code,
                                         char** errptr) PINROCKS_NOEXCEPT {
  unsigned char found = 0;
  pinrocks::guarded(status_code, errptr, [&] {
    rocksdb::PinnableWideColumns columns;
    rocksdb::Status s = pinrocks::db_of(db)->GetEntity(
        pinrocks::read_options_of(options), pinrocks::column_family_of(db, column_family),
        rocksdb::Slice(key, keylen), &columns);
    found = deliver_columns(s, columns, fn, ctx, status_code, errptr);
  });  // `columns` releases its pin as this frame returns.
  return found;
}

unsigned char pinrocks_transaction_get_entity_pinned(
    rocksdb_transaction_t* txn, const rocksdb_readoptions_t* options,
    rocksdb_column_family_handle_t* column_family, const char* key, size_t keylen, int mode,
    pinrocks_columns_fn fn, void* ctx, int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  unsigned char found = 0;
  pinrocks::guarded(status_code, errptr, [&] {
    rocksdb::Transaction* t = pinrocks::transaction_of(txn);
    const rocksdb::ReadOptions& ro = pinrocks::read_options_of(options);
    rocksdb::ColumnFamilyHandle* cf = pinrocks::handle_of(column_family);
    const rocksdb::Slice k(key, keylen);
    rocksdb::PinnableWideColumns columns;
    rocksdb::Status s;
    switch (mode) {
      case PINROCKS_READ_PLAIN:
        s = t->GetEntity(ro, cf, k, &columns);
        break;
      case PINROCKS_READ_FOR_UPDATE:
        s = t->GetEntityForUpdate(ro, cf, k, &columns, /*exclusive=*/true);
        break;
      case PINROCKS_READ_FOR_UPDATE_SHARED:
        s = t->GetEntityForUpdate(ro, cf, k, &columns, /*exclusive=*/false);
        break;
      default:
        s = rocksdb::Status::InvalidArgument("pinrocks: unknown read mode");
    }
    found = deliver_columns(s, columns, fn, ctx, status_code, errptr);
  });
  return found;
}

unsigned char pinrocks_wbwi_get_entity_pinned(rocksdb_t* db, rocksdb_writebatch_wi_t* batch,
                                              const rocksdb_readoptions_t* options,
                                              rocksdb_column_family_handle_t* column_family,
                                              const char* key, size_t keylen,
                                              unsigned char batch_only, pinrocks_columns_fn fn,
                                              void* ctx, int* status_code,
                                              char** errptr) PINROCKS_NOEXCEPT {
  unsigned char found = 0;
  pinrocks::guarded(status_code, errptr, [&] {
    rocksdb::WriteBatchWithIndex* b = pinrocks::indexed_batch_of(batch);
    rocksdb::ColumnFamilyHandle* cf = pinrocks::handle_of(column_family);
    const rocksdb::Slice k(key, keylen);
    rocksdb::PinnableWideColumns columns;
    if (batch_only == 0) {
      rocksdb::Status s = b->GetEntityFromBatchAndDB(
          pinrocks::db_of(db), pinrocks::read_options_of(options), cf, k, &columns);
      found = deliver_columns(s, columns, fn, ctx, status_code, errptr);
      return;
    }
    rocksdb::Status s = b->GetEntityFromBatch(cf, k, &columns);
    if (!s.IsMergeInProgress()) {
      found = deliver_columns(s, columns, fn, ctx, status_code, errptr);
      return;
    }
    // Only merge operands for the key in the batch: read them merged with no existing value,
    // as the batch-only iterator (the batch over an empty base) shows them, and as the plain
    // batch-only read does (indexed_batch.cc).
    std::unique_ptr<rocksdb::Iterator> empty(rocksdb::NewEmptyIterator());
    std::unique_ptr<rocksdb::Iterator> it(b->NewIteratorWithBase(cf, empty.get()));
    empty.release();  // owned by `it` from here
    it->Seek(k);
    if (it->Valid() && cf->GetComparator()->Compare(it->key(), k) == 0) {
      const rocksdb::WideColumns& merged = it->columns();
      fn(ctx, view_of(merged), merged.size());
      found = 1;
    } else if (!it->status().ok()) {
      pinrocks::save_status(errptr, status_code, it->status());
    }
  });
  return found;
}

void pinrocks_iter_columns(const rocksdb_iterator_t* iter, const pinrocks_column** columns,
                           size_t* count) PINROCKS_NOEXCEPT {
  const rocksdb::WideColumns& current = pinrocks::iterator_of(iter)->columns();
  *columns = view_of(current);
  *count = current.size();
}

}  // extern "C"

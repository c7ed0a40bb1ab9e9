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

#include "batch_only.h"
#include "db/wide/wide_column_serialization.h"
#include "guarded.h"
#include "layout.h"
#include "pinned_batch.h"
#include "pinrocks.h"
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

// Where a read left the entity: `pinned`, GetEntity's; or, for a key with only merge operands
// in an indexed batch read from the batch alone, `merged`: the batch-only iterator (the batch
// over an empty base) on the key, whose columns are the operands merged with no existing value,
// as the plain read (indexed_batch.cc) and the batch's cursor give them.
struct Found {
  explicit Found(rocksdb::PinnableWideColumns* into) : pinned(into) {}

  rocksdb::PinnableWideColumns* pinned;  // the caller's, on its frame or in its handle
  std::unique_ptr<rocksdb::Iterator> merged;

  const rocksdb::WideColumns& columns() const {
    return merged ? merged->columns() : pinned->columns();
  }
};

// GetEntity from the database.
rocksdb::Status read_db(rocksdb_t* db, const rocksdb_readoptions_t* options,
                        rocksdb_column_family_handle_t* column_family, const rocksdb::Slice& key,
                        Found* found) {
  return pinrocks::db_of(db)->GetEntity(pinrocks::read_options_of(options),
                                        pinrocks::column_family_of(db, column_family), key,
                                        found->pinned);
}

// GetEntity through a transaction, `mode` a PINROCKS_READ_*.
rocksdb::Status read_transaction(rocksdb_transaction_t* txn, const rocksdb_readoptions_t* options,
                                 rocksdb_column_family_handle_t* column_family,
                                 const rocksdb::Slice& key, int mode, Found* found) {
  rocksdb::Transaction* t = pinrocks::transaction_of(txn);
  const rocksdb::ReadOptions& ro = pinrocks::read_options_of(options);
  rocksdb::ColumnFamilyHandle* cf = pinrocks::handle_of(column_family);
  switch (mode) {
    case PINROCKS_READ_PLAIN:
      return t->GetEntity(ro, cf, key, found->pinned);
    case PINROCKS_READ_FOR_UPDATE:
      return t->GetEntityForUpdate(ro, cf, key, found->pinned, /*exclusive=*/true);
    case PINROCKS_READ_FOR_UPDATE_SHARED:
      return t->GetEntityForUpdate(ro, cf, key, found->pinned, /*exclusive=*/false);
    default:
      return rocksdb::Status::InvalidArgument("pinrocks: unknown read mode");
  }
}

// GetEntity through an indexed batch: over the database, or from the batch alone (see Found).
rocksdb::Status read_batch(rocksdb_t* db, rocksdb_writebatch_wi_t* batch,
                           const rocksdb_readoptions_t* options,
                           rocksdb_column_family_handle_t* column_family, const rocksdb::Slice& key,
                           unsigned char batch_only, Found* found) {
  rocksdb::WriteBatchWithIndex* b = pinrocks::indexed_batch_of(batch);
  rocksdb::ColumnFamilyHandle* cf = pinrocks::handle_of(column_family);
  if (batch_only == 0) {
    return b->GetEntityFromBatchAndDB(pinrocks::db_of(db), pinrocks::read_options_of(options), cf,
                                      key, found->pinned);
  }
  rocksdb::Status s = b->GetEntityFromBatch(cf, key, found->pinned);
  if (!s.IsMergeInProgress()) {
    return s;
  }
  found->merged = pinrocks::merged_in_batch(b, cf, key, &s);
  return s;
}

// A one-call read: `read` fills a Found on this frame; on success `fn` reads the columns in
// place while they are pinned; not-found is no error. Returns whether the key was found.
template <typename Read>
unsigned char one_call(Read&& read, pinrocks_columns_fn fn, void* ctx, int* status_code,
                       char** errptr) noexcept {
  unsigned char found = 0;
  pinrocks::guarded(status_code, errptr, [&] {
    rocksdb::PinnableWideColumns pinned;
    Found entity(&pinned);
    const rocksdb::Status s = read(&entity);
    if (s.ok()) {
      const rocksdb::WideColumns& columns = entity.columns();
      fn(ctx, view_of(columns), columns.size());
      found = 1;
    } else if (!s.IsNotFound()) {
      pinrocks::save_status(errptr, status_code, s);
    }
  });  // `pinned` (or the batch's iterator) releases its pin as this frame returns.
  return found;
}

// A handle read: `read` fills a new pinrocks_entity_t, returned on success; NULL if not found or on
// error (reported). Merged batch-only columns point into the batch's iterator, which must not
// outlive this call: they are rebuilt into an entity of their own (a copy, on that path only).
template <typename Read>
pinrocks_entity_t* new_entity(Read&& read, int* status_code, char** errptr) noexcept {
  pinrocks_entity_t* result = nullptr;
  pinrocks::guarded(status_code, errptr, [&] {
    auto entity = std::make_unique<pinrocks_entity_t>();
    Found found(&entity->rep);
    rocksdb::Status s = read(&found);
    if (s.ok() && found.merged) {
      std::string rebuilt;
      s = rocksdb::WideColumnSerialization::Serialize(found.merged->columns(), rebuilt);
      if (s.ok()) {
        s = entity->rep.SetWideColumnValue(std::move(rebuilt));
      }
    }
    if (s.ok()) {
      result = entity.release();  // freed by pinrocks_entity_destroy
    } else if (!s.IsNotFound()) {
      pinrocks::save_status(errptr, status_code, s);
    }
  });
  return result;
}

// A multi-get of entities on the caller's frame, as pinned_batch.h's PinnedBatch for values:
// the keys, and per key its entity, its status and (batch-only merges) its iterator; up to 32
// keys with no allocation of ours.
class EntityBatch {
 public:
  // May throw std::bad_alloc beyond 32 keys (reported by `guarded`).
  EntityBatch(size_t n, const pinrocks_slice* keys)
      : n_(n), keys_(n), pinned_(n), statuses_(n), merged_(n) {
    for (size_t i = 0; i < n; i++) {
      keys_[i] = rocksdb::Slice(keys[i].data, keys[i].len);
    }
  }
  rocksdb::Slice* keys() { return keys_.data(); }
  rocksdb::PinnableWideColumns* pinned() { return pinned_.data(); }
  rocksdb::Status* statuses() { return statuses_.data(); }

  // Each key through `read_one(key, found)`, stopping at the first failure (Deliver reports it;
  // the keys after it keep their default OK status and are never delivered).
  template <typename ReadOne>
  void EachKey(ReadOne&& read_one) {
    for (size_t i = 0; i < n_; i++) {
      Found found(&pinned_[i]);
      statuses_[i] = read_one(keys_[i], &found);
      merged_[i] = std::move(found.merged);
      if (!statuses_[i].ok() && !statuses_[i].IsNotFound()) {
        return;
      }
    }
  }

  // The first per-key error is the call's (nothing is called back); otherwise fn for each key
  // in order while every entity is pinned, until it asks to stop.
  void Deliver(pinrocks_multi_columns_fn fn, void* ctx, int* status_code, char** errptr) {
    for (size_t i = 0; i < n_; i++) {
      if (!statuses_[i].ok() && !statuses_[i].IsNotFound()) {
        pinrocks::save_status(errptr, status_code, statuses_[i]);
        return;
      }
    }
    for (size_t i = 0; i < n_; i++) {
      const bool found = statuses_[i].ok();
      const rocksdb::WideColumns& columns =
          !found ? rocksdb::kNoWideColumns
                 : (merged_[i] ? merged_[i]->columns() : pinned_[i].columns());
      if (fn(ctx, i, found, view_of(columns), columns.size())) {
        return;
      }
    }
  }

 private:
  size_t n_;
  pinrocks::InlineArray<rocksdb::Slice, pinrocks::kInlineKeys> keys_;
  pinrocks::InlineArray<rocksdb::PinnableWideColumns, pinrocks::kInlineKeys> pinned_;
  pinrocks::InlineArray<rocksdb::Status, pinrocks::kInlineKeys> statuses_;
  pinrocks::InlineArray<std::unique_ptr<rocksdb::Iterator>, pinrocks::kInlineKeys> merged_;
};

}  // namespace

extern "C" {

unsigned char pinrocks_get_entity_pinned(rocksdb_t* db, const rocksdb_readoptions_t* options,
                                         rocksdb_column_family_handle_t* column_family,
                                         const char* key, size_t keylen, pinrocks_columns_fn fn,
                                         void* ctx, int* status_code,
                                         char** errptr) PINROCKS_NOEXCEPT {
  return one_call(
      [&](Found* found) {
        return read_db(db, options, column_family, rocksdb::Slice(key, keylen), found);
      },
      fn, ctx, status_code, errptr);
}

unsigned char pinrocks_transaction_get_entity_pinned(
    rocksdb_transaction_t* txn, const rocksdb_readoptions_t* options,
    rocksdb_column_family_handle_t* column_family, const char* key, size_t keylen, int mode,
    pinrocks_columns_fn fn, void* ctx, int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  return one_call(
      [&](Found* found) {
        return read_transaction(txn, options, column_family, rocksdb::Slice(key, keylen), mode,
                                found);
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
      [&](Found* found) {
        return read_batch(db, batch, options, column_family, rocksdb::Slice(key, keylen),
                          batch_only, found);
      },
      fn, ctx, status_code, errptr);
}

pinrocks_entity_t* pinrocks_get_entity_handle(rocksdb_t* db, const rocksdb_readoptions_t* options,
                                              rocksdb_column_family_handle_t* column_family,
                                              const char* key, size_t keylen, int* status_code,
                                              char** errptr) PINROCKS_NOEXCEPT {
  return new_entity(
      [&](Found* found) {
        return read_db(db, options, column_family, rocksdb::Slice(key, keylen), found);
      },
      status_code, errptr);
}

pinrocks_entity_t* pinrocks_transaction_get_entity_handle(
    rocksdb_transaction_t* txn, const rocksdb_readoptions_t* options,
    rocksdb_column_family_handle_t* column_family, const char* key, size_t keylen, int mode,
    int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  return new_entity(
      [&](Found* found) {
        return read_transaction(txn, options, column_family, rocksdb::Slice(key, keylen), mode,
                                found);
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
      [&](Found* found) {
        return read_batch(db, batch, options, column_family, rocksdb::Slice(key, keylen),
                          batch_only, found);
      },
      status_code, errptr);
}

void pinrocks_multi_get_entity_pinned(rocksdb_t* db, const rocksdb_readoptions_t* options,
                                      rocksdb_column_family_handle_t* column_family,
                                      size_t num_keys, const pinrocks_slice* keys,
                                      pinrocks_multi_columns_fn fn, void* ctx, int* status_code,
                                      char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    EntityBatch batch(num_keys, keys);
    const rocksdb::ReadOptions& ro = pinrocks::read_options_of(options);
    if (pinrocks::PinnedBatch::NeedsOneByOne(ro)) {
      batch.EachKey([&](const rocksdb::Slice& key, Found* found) {
        return read_db(db, options, column_family, key, found);
      });
    } else {
      pinrocks::db_of(db)->MultiGetEntity(ro, pinrocks::column_family_of(db, column_family),
                                          num_keys, batch.keys(), batch.pinned(), batch.statuses(),
                                          /*sorted_input=*/false);
    }
    batch.Deliver(fn, ctx, status_code, errptr);
  });
}

void pinrocks_transaction_multi_get_entity_pinned(rocksdb_transaction_t* txn,
                                                  const rocksdb_readoptions_t* options,
                                                  rocksdb_column_family_handle_t* column_family,
                                                  size_t num_keys, const pinrocks_slice* keys,
                                                  int mode, pinrocks_multi_columns_fn fn, void* ctx,
                                                  int* status_code,
                                                  char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    EntityBatch batch(num_keys, keys);
    const rocksdb::ReadOptions& ro = pinrocks::read_options_of(options);
    // Transaction::MultiGetEntity neither locks nor tracks: for update, key by key.
    if (mode != PINROCKS_READ_PLAIN || pinrocks::PinnedBatch::NeedsOneByOne(ro)) {
      batch.EachKey([&](const rocksdb::Slice& key, Found* found) {
        return read_transaction(txn, options, column_family, key, mode, found);
      });
    } else {
      pinrocks::transaction_of(txn)->MultiGetEntity(ro, pinrocks::handle_of(column_family),
                                                    num_keys, batch.keys(), batch.pinned(),
                                                    batch.statuses(), /*sorted_input=*/false);
    }
    batch.Deliver(fn, ctx, status_code, errptr);
  });
}

void pinrocks_wbwi_multi_get_entity_pinned(rocksdb_t* db, rocksdb_writebatch_wi_t* batch,
                                           const rocksdb_readoptions_t* options,
                                           rocksdb_column_family_handle_t* column_family,
                                           size_t num_keys, const pinrocks_slice* keys,
                                           unsigned char batch_only, pinrocks_multi_columns_fn fn,
                                           void* ctx, int* status_code,
                                           char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    EntityBatch entities(num_keys, keys);
    const rocksdb::ReadOptions& ro = pinrocks::read_options_of(options);
    if (batch_only != 0 || pinrocks::PinnedBatch::NeedsOneByOne(ro)) {
      entities.EachKey([&](const rocksdb::Slice& key, Found* found) {
        return read_batch(db, batch, options, column_family, key, batch_only, found);
      });
    } else {
      pinrocks::indexed_batch_of(batch)->MultiGetEntityFromBatchAndDB(
          pinrocks::db_of(db), ro, pinrocks::handle_of(column_family), num_keys, entities.keys(),
          entities.pinned(), entities.statuses(), /*sorted_input=*/false);
    }
    entities.Deliver(fn, ctx, status_code, errptr);
  });
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

// Wide-column entities read, which RocksDB 11.8.1's C API cannot: GetEntity through every read
// source (read_source.h, beside each source's value read), one entry point per tier: the columns
// pinned on this function's stack while a Rust callback reads them (the one-call reads and the
// multi-get) or in a heap-allocated pinrocks_entity_t that holds the pin until destroyed (the
// guard and owned tiers); and the columns of an iterator's current entry. Columns cross as
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
#include "pinned_batch.h"
#include "pinrocks.h"
#include "read_source.h"
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

// A one-call read: `read` fills a Found on this frame; on success `fn` reads the columns in
// place while they are pinned; not-found is no error. Returns whether the key was found.
template <typename Read>
unsigned char one_call(rocksdb_t* db, Read&& read, pinrocks_columns_fn fn, void* ctx,
                       int* status_code, char** errptr) noexcept {
  unsigned char found = 0;
  pinrocks::guarded_read(db, status_code, errptr, [&] {
    rocksdb::PinnableWideColumns pinned;
    pinrocks::Found entity(&pinned);
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
pinrocks_entity_t* new_entity(rocksdb_t* db, Read&& read, int* status_code,
                              char** errptr) noexcept {
  pinrocks_entity_t* result = nullptr;
  pinrocks::guarded_read(db, status_code, errptr, [&] {
    auto entity = std::make_unique<pinrocks_entity_t>();
    pinrocks::Found found(&entity->rep);
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
      pinrocks::Found found(&pinned_[i]);
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

unsigned char pinrocks_read_entity_pinned(const pinrocks_read_source* source, const char* key,
                                          size_t keylen, pinrocks_columns_fn fn, void* ctx,
                                          int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  return one_call(
      source->db,
      [&](pinrocks::Found* found) {
        return pinrocks::get_entity(pinrocks::Source(source), rocksdb::Slice(key, keylen), found);
      },
      fn, ctx, status_code, errptr);
}

pinrocks_entity_t* pinrocks_read_entity_handle(const pinrocks_read_source* source, const char* key,
                                               size_t keylen, int* status_code,
                                               char** errptr) PINROCKS_NOEXCEPT {
  return new_entity(
      source->db,
      [&](pinrocks::Found* found) {
        return pinrocks::get_entity(pinrocks::Source(source), rocksdb::Slice(key, keylen), found);
      },
      status_code, errptr);
}

void pinrocks_read_entity_multi(const pinrocks_read_source* source, size_t num_keys,
                                const pinrocks_slice* keys, pinrocks_multi_columns_fn fn, void* ctx,
                                int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded_read(source->db, status_code, errptr, [&] {
    const pinrocks::Source s(source);
    EntityBatch batch(num_keys, keys);
    if (!pinrocks::multi_get_entity(s, num_keys, batch.keys(), batch.pinned(), batch.statuses())) {
      batch.EachKey([&](const rocksdb::Slice& key, pinrocks::Found* found) {
        return pinrocks::get_entity(s, key, found);
      });
    }
    batch.Deliver(fn, ctx, status_code, errptr);
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

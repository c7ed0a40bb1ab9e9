// User-defined timestamps beyond RocksDB's C API: the built-in u64 timestamp comparator as a
// family's order, a family's timestamp size, the one-call pinned read that also hands over the
// value's timestamp, an iterator that is never valid (for a read pinrocks refuses), and
// full_history_ts_low, each guarded. (Writes with a timestamp go through the write entry points
// of writes.cc and write_batch.cc.)
#include <cstring>
#include <string>

#include "guarded.h"
#include "layout.h"
#include "pinrocks.h"
#include "rocksdb/comparator.h"
#include "rocksdb/db.h"
#include "rocksdb/iterator.h"
#include "rocksdb/slice.h"
#include "rocksdb/status.h"

extern "C" {

void pinrocks_options_set_u64_timestamps(rocksdb_options_t* options) PINROCKS_NOEXCEPT {
  // A static object of RocksDB's: nothing to keep alive.
  pinrocks::options_of(options).comparator = rocksdb::BytewiseComparatorWithU64Ts();
}

size_t pinrocks_options_timestamp_size(const rocksdb_options_t* options) PINROCKS_NOEXCEPT {
  const rocksdb::Comparator* comparator = pinrocks::options_of(options).comparator;
  return comparator == nullptr ? 0 : comparator->timestamp_size();
}

size_t pinrocks_cf_timestamp_size(rocksdb_column_family_handle_t* column_family) PINROCKS_NOEXCEPT {
  return pinrocks::handle_of(column_family)->GetComparator()->timestamp_size();
}

unsigned char pinrocks_get_pinned_ts(rocksdb_t* db, const rocksdb_readoptions_t* options,
                                     rocksdb_column_family_handle_t* column_family, const char* key,
                                     size_t keylen, char* ts_out, size_t ts_capacity,
                                     size_t* ts_len, pinrocks_value_fn fn, void* ctx,
                                     int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  unsigned char found = 0;
  pinrocks::guarded_read(db, status_code, errptr, [&] {
    rocksdb::PinnableSlice value;
    std::string ts;  // eight bytes: within the string's own buffer, no allocation
    rocksdb::Status s = pinrocks::db_of(db)->Get(pinrocks::read_options_of(options),
                                                 pinrocks::column_family_of(db, column_family),
                                                 rocksdb::Slice(key, keylen), &value, &ts);
    if (s.ok()) {
      *ts_len = ts.size();
      std::memcpy(ts_out, ts.data(), ts.size() < ts_capacity ? ts.size() : ts_capacity);
    }
    found = pinrocks::deliver(s, value, fn, ctx, status_code, errptr);
  });
  return found;
}

rocksdb_iterator_t* pinrocks_empty_iterator(int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  return pinrocks::guarded_iterator(nullptr, status_code, errptr, [&] {
    auto wrapper = std::make_unique<rocksdb_iterator_t>();
    pinrocks::iterator_of(wrapper.get()) = rocksdb::NewEmptyIterator();
    return wrapper.release();  // freed by rocksdb_iter_destroy
  });
}

void pinrocks_increase_full_history_ts_low(rocksdb_t* db,
                                           rocksdb_column_family_handle_t* column_family,
                                           const char* ts, size_t tslen, int* status_code,
                                           char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    std::string low(ts, tslen);
    pinrocks::report(errptr, status_code,
                     pinrocks::in_manifest_queue("IncreaseFullHistoryTsLow", [&] {
                       return pinrocks::db_of(db)->IncreaseFullHistoryTsLow(
                           pinrocks::handle_of(column_family), std::move(low));
                     }));
  });
}

size_t pinrocks_get_full_history_ts_low(rocksdb_t* db,
                                        rocksdb_column_family_handle_t* column_family, char* ts_out,
                                        size_t ts_capacity, int* status_code,
                                        char** errptr) PINROCKS_NOEXCEPT {
  size_t len = 0;
  pinrocks::guarded(status_code, errptr, [&] {
    std::string ts;
    rocksdb::Status s =
        pinrocks::db_of(db)->GetFullHistoryTsLow(pinrocks::handle_of(column_family), &ts);
    if (s.ok()) {
      len = ts.size();
      std::memcpy(ts_out, ts.data(), len < ts_capacity ? len : ts_capacity);
    }
    pinrocks::report(errptr, status_code, s);
  });
  return len;
}

}  // extern "C"

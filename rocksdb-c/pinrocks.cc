// Native reads beyond RocksDB's C API. Every entry point is extern "C" and noexcept in
// effect: RocksDB reports failures through Status, and the callback never unwinds (the
// Rust trampoline catches panics), so no exception crosses into Rust.
#include "pinrocks.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "layout.h"
#include "rocksdb/slice.h"
#include "rocksdb/status.h"

namespace {

// Same contract as SaveError in db/c.cc: a malloc'd copy that rocksdb_free releases.
void save_error(char** errptr, int* status_code, const rocksdb::Status& s) {
  *status_code = static_cast<int>(s.code());
  std::free(*errptr);
  *errptr = strdup(s.ToString().c_str());
}

size_t copy_name(const std::string& name, char* buf, size_t buflen) {
  std::memcpy(buf, name.data(), std::min(name.size(), buflen));
  return name.size();
}

}  // namespace

extern "C" {

unsigned char pinrocks_get_pinned(rocksdb_t* db, const rocksdb_readoptions_t* options,
                                  rocksdb_column_family_handle_t* column_family,
                                  const char* key, size_t keylen, pinrocks_value_fn fn,
                                  void* ctx, int* status_code, char** errptr) {
  rocksdb::DB* rep = pinrocks::db_of(db);
  rocksdb::PinnableSlice value;
  rocksdb::Status s = rep->Get(pinrocks::read_options_of(options),
                               pinrocks::column_family_of(db, column_family),
                               rocksdb::Slice(key, keylen), &value);
  if (s.ok()) {
    fn(ctx, value.data(), value.size());
    return 1;  // `value` releases its pin as this frame returns.
  }
  if (!s.IsNotFound()) {
    save_error(errptr, status_code, s);
  }
  return 0;
}

void pinrocks_multi_get_pinned(rocksdb_t* db, const rocksdb_readoptions_t* options,
                               rocksdb_column_family_handle_t* column_family, size_t num_keys,
                               const char* const* keys, const size_t* key_lens,
                               pinrocks_multi_value_fn fn, void* ctx, int* status_code,
                               char** errptr) {
  std::vector<rocksdb::Slice> key_slices;
  key_slices.reserve(num_keys);
  for (size_t i = 0; i < num_keys; i++) {
    key_slices.emplace_back(keys[i], key_lens[i]);
  }
  std::vector<rocksdb::PinnableSlice> values(num_keys);
  std::vector<rocksdb::Status> statuses(num_keys);
  pinrocks::db_of(db)->MultiGet(pinrocks::read_options_of(options),
                                pinrocks::column_family_of(db, column_family), num_keys,
                                key_slices.data(), values.data(), statuses.data(),
                                /*sorted_input=*/false);
  for (size_t i = 0; i < num_keys; i++) {
    if (!statuses[i].ok() && !statuses[i].IsNotFound()) {
      save_error(errptr, status_code, statuses[i]);
      return;
    }
  }
  for (size_t i = 0; i < num_keys; i++) {
    bool found = statuses[i].ok();
    if (fn(ctx, i, found, found ? values[i].data() : nullptr, found ? values[i].size() : 0)) {
      return;
    }
  }
}

void pinrocks_compact_range(rocksdb_t* db, rocksdb_column_family_handle_t* column_family,
                            const char* start, size_t startlen, const char* limit,
                            size_t limitlen, int* status_code, char** errptr) {
  rocksdb::Slice start_slice(start, startlen);
  rocksdb::Slice limit_slice(limit, limitlen);
  rocksdb::CompactRangeOptions options;
  rocksdb::Status s = pinrocks::db_of(db)->CompactRange(
      options, pinrocks::column_family_of(db, column_family),
      start == nullptr ? nullptr : &start_slice, limit == nullptr ? nullptr : &limit_slice);
  if (!s.ok()) {
    save_error(errptr, status_code, s);
  }
}

unsigned char pinrocks_readoptions_fill_cache(const rocksdb_readoptions_t* options) {
  return pinrocks::read_options_of(options).fill_cache;
}

unsigned char pinrocks_readoptions_verify_checksums(const rocksdb_readoptions_t* options) {
  return pinrocks::read_options_of(options).verify_checksums;
}

size_t pinrocks_column_family_name(rocksdb_column_family_handle_t* column_family, char* buf,
                                   size_t buflen) {
  return copy_name(pinrocks::handle_of(column_family)->GetName(), buf, buflen);
}

size_t pinrocks_db_name(rocksdb_t* db, char* buf, size_t buflen) {
  return copy_name(pinrocks::db_of(db)->GetName(), buf, buflen);
}

}  // extern "C"

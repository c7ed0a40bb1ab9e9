// How every pinrocks entry point reports failure: a rocksdb::Status code (or a
// PINROCKS_CODE_*) and a malloc'd message, and never a C++ exception (see pinrocks.h).
#ifndef PINROCKS_GUARDED_H
#define PINROCKS_GUARDED_H

#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>

#include "pinrocks.h"
#include "rocksdb/slice.h"
#include "rocksdb/status.h"

namespace pinrocks {

// Same contract as SaveError in db/c.cc: a malloc'd copy that rocksdb_free releases. Never
// throws: if the message cannot be allocated, the code alone reports the failure.
inline void save_error(char** errptr, int* status_code, int code, const char* message) noexcept {
  *status_code = code;
  std::free(*errptr);
  *errptr = strdup(message);
}

inline void save_status(char** errptr, int* status_code, const rocksdb::Status& s) {
  save_error(errptr, status_code, static_cast<int>(s.code()), s.ToString().c_str());
}

// Runs `body` and reports whatever it throws as an error instead of letting it unwind into
// Rust (which cannot catch a foreign exception and aborts).
template <typename Body>
void guarded(int* status_code, char** errptr, Body&& body) noexcept {
  try {
    body();
  } catch (const std::bad_alloc& e) {
    save_error(errptr, status_code, PINROCKS_CODE_OUT_OF_MEMORY, e.what());
  } catch (const std::exception& e) {
    save_error(errptr, status_code, PINROCKS_CODE_EXCEPTION, e.what());
  } catch (...) {
    save_error(errptr, status_code, PINROCKS_CODE_EXCEPTION, "unknown C++ exception");
  }
}

// Put, Delete or Merge (`op`: a PINROCKS_RECORD_*) on `target`, anything with RocksDB's
// `Put(cf, key, value)`, `Delete(cf, key)` and `Merge(cf, key, value)`: a Transaction, a
// WriteBatchWithIndex. `value` is unused for a delete.
template <typename Target, typename Family>
rocksdb::Status record_op(Target& target, int op, Family* cf, const rocksdb::Slice& key,
                          const rocksdb::Slice& value) {
  switch (op) {
    case PINROCKS_RECORD_PUT:
      return target.Put(cf, key, value);
    case PINROCKS_RECORD_DELETE:
      return target.Delete(cf, key);
    case PINROCKS_RECORD_MERGE:
      return target.Merge(cf, key, value);
    default:
      return rocksdb::Status::InvalidArgument("pinrocks: unknown write operation");
  }
}

// Reports `s` unless it is OK.
inline void report(char** errptr, int* status_code, const rocksdb::Status& s) {
  if (!s.ok()) {
    save_status(errptr, status_code, s);
  }
}

// The end of every one-call pinned read: on success, `fn` reads the value while the caller's
// frame still holds its pin; not-found is no error; any other status is reported. Returns
// whether the key was found.
inline unsigned char deliver(const rocksdb::Status& s, const rocksdb::PinnableSlice& value,
                             pinrocks_value_fn fn, void* ctx, int* status_code, char** errptr) {
  if (s.ok()) {
    fn(ctx, value.data(), value.size());
    return 1;
  }
  if (!s.IsNotFound()) {
    save_status(errptr, status_code, s);
  }
  return 0;
}

}  // namespace pinrocks

#endif

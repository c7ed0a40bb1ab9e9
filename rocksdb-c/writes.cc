// Writes to a database beyond RocksDB's C API: Put, Delete, Merge or DeleteRange of one key
// (or range), with a timestamp or without, and DB::Write of a batch, each reporting its Status
// with its code. An exception out of any of them ends the process (guarded.h's
// `in_write_queue`): it may come from inside RocksDB's write queue.
#include "guarded.h"
#include "layout.h"
#include "pinrocks.h"
#include "rocksdb/db.h"
#include "rocksdb/options.h"
#include "rocksdb/slice.h"
#include "rocksdb/status.h"

extern "C" {

namespace {

// One write without a timestamp (inlined into its one caller: measured, ~40 instructions a put
// otherwise).
__attribute__((always_inline)) inline rocksdb::Status write_plain(rocksdb::DB* d,
                                                                  const rocksdb::WriteOptions& o,
                                                                  rocksdb::ColumnFamilyHandle* cf,
                                                                  int op, const rocksdb::Slice& k,
                                                                  const rocksdb::Slice& v) {
  switch (op) {
    case PINROCKS_RECORD_PUT:
      return d->Put(o, cf, k, v);
    case PINROCKS_RECORD_DELETE:
      return d->Delete(o, cf, k);
    case PINROCKS_RECORD_MERGE:
      return d->Merge(o, cf, k, v);
    case PINROCKS_RECORD_SINGLE_DELETE:
      return d->SingleDelete(o, cf, k);
    case PINROCKS_RECORD_DELETE_RANGE:
      return d->DeleteRange(o, cf, k, v);
    default:
      return rocksdb::Status::InvalidArgument("pinrocks_db_write_op: unknown op");
  }
}

// One write with a timestamp (the C API has no timestamped Merge or DeleteRange).
rocksdb::Status write_at(rocksdb::DB* d, const rocksdb::WriteOptions& o,
                         rocksdb::ColumnFamilyHandle* cf, int op, const rocksdb::Slice& k,
                         const rocksdb::Slice& v, const rocksdb::Slice& t) {
  switch (op) {
    case PINROCKS_RECORD_PUT:
      return d->Put(o, cf, k, t, v);
    case PINROCKS_RECORD_DELETE:
      return d->Delete(o, cf, k, t);
    case PINROCKS_RECORD_MERGE:
      return d->Merge(o, cf, k, t, v);
    case PINROCKS_RECORD_SINGLE_DELETE:
      return d->SingleDelete(o, cf, k, t);
    case PINROCKS_RECORD_DELETE_RANGE:
      return d->DeleteRange(o, cf, k, v, t);
    default:
      return rocksdb::Status::InvalidArgument("pinrocks_db_write_op: no timestamped form");
  }
}

}  // namespace

void pinrocks_db_write_op(rocksdb_t* db, const rocksdb_writeoptions_t* options,
                          rocksdb_column_family_handle_t* column_family, int op, const char* key,
                          size_t keylen, const char* value, size_t valuelen, const char* ts,
                          size_t tslen, int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  rocksdb::DB* d = pinrocks::db_of(db);
  const rocksdb::WriteOptions& o = pinrocks::write_options_of(options);
  rocksdb::ColumnFamilyHandle* cf = pinrocks::handle_of(column_family);
  const rocksdb::Slice k(key, keylen), v(value, valuelen);
  if (op == PINROCKS_RECORD_PUT_COLUMNS && ts == nullptr) [[unlikely]] {
    // The columns' views are pinrocks' own allocation, sized by the caller: made before the
    // call, a failure is reported.
    pinrocks::guarded(status_code, errptr, [&] {
      const rocksdb::WideColumns columns = pinrocks::columns_of(v);
      pinrocks::report(errptr, status_code, pinrocks::in_write_queue("PutEntity", [&] {
                         return d->PutEntity(o, cf, k, columns);
                       }));
    });
    return;
  }
  // Made in place and read once (no move into a local: measured, ~15 instructions a put). A
  // throw may come from DB::Put's copy into its own batch, before the queue, or from inside
  // it: the two cannot be told apart here, so both end the process.
  const rocksdb::Status s = pinrocks::in_write_queue("a single write", [&] {
    return ts == nullptr ? write_plain(d, o, cf, op, k, v)
                         : write_at(d, o, cf, op, k, v, rocksdb::Slice(ts, tslen));
  });
  if (!s.ok()) [[unlikely]] {
    *status_code = pinrocks::failed(errptr, s);
  }
}

int pinrocks_db_write(rocksdb_t* db, const rocksdb_writeoptions_t* options, pinrocks_batch* batch,
                      char** errptr) PINROCKS_NOEXCEPT {
  const rocksdb::Status s = pinrocks::in_write_queue("DB::Write of a batch", [&] {
    return pinrocks::db_of(db)->Write(pinrocks::write_options_of(options),
                                      pinrocks::write_batch_of(batch));
  });
  return s.ok() ? PINROCKS_CODE_OK : pinrocks::failed(errptr, s);
}

}  // extern "C"

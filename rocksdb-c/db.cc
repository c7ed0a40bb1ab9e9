// Database administration beyond RocksDB's C API: DB::Close and CompactRange, each reporting
// the Status that rocksdb_close and rocksdb_compact_range_cf drop.
#include "rocksdb/db.h"

#include "guarded.h"
#include "layout.h"
#include "pinrocks.h"
#include "rocksdb/options.h"
#include "rocksdb/slice.h"

extern "C" {

void pinrocks_db_close(rocksdb_t* db, int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr,
                    [&] { pinrocks::report(errptr, status_code, pinrocks::db_of(db)->Close()); });
}

void pinrocks_compact_range(rocksdb_t* db, rocksdb_column_family_handle_t* column_family,
                            const char* start, size_t startlen, const char* limit, size_t limitlen,
                            int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    rocksdb::Slice start_slice(start, startlen);
    rocksdb::Slice limit_slice(limit, limitlen);
    rocksdb::CompactRangeOptions options;
    pinrocks::report(
        errptr, status_code,
        pinrocks::db_of(db)->CompactRange(options, pinrocks::column_family_of(db, column_family),
                                          start == nullptr ? nullptr : &start_slice,
                                          limit == nullptr ? nullptr : &limit_slice));
  });
}

}  // extern "C"

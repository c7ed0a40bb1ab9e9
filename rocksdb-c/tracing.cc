// RocksDB's query tracing to a file (DB::StartTrace with its file trace writer, EndTrace):
// the C API has neither. (RocksDB's replayer is not offered: see src/admin/tracing.rs.)
#include <cstdint>
#include <memory>

#include "guarded.h"
#include "layout.h"
#include "pinrocks.h"
#include "rocksdb/db.h"
#include "rocksdb/env.h"
#include "rocksdb/options.h"
#include "rocksdb/trace_reader_writer.h"

extern "C" {

void pinrocks_db_start_trace(rocksdb_t* db, const char* path, uint64_t max_trace_file_size,
                             uint64_t sampling_frequency, uint64_t filter,
                             unsigned char preserve_write_order, int* status_code,
                             char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    rocksdb::DB* target = pinrocks::db_of(db);
    std::unique_ptr<rocksdb::TraceWriter> writer;
    rocksdb::Status s =
        rocksdb::NewFileTraceWriter(target->GetEnv(), rocksdb::EnvOptions(), path, &writer);
    if (s.ok()) {
      rocksdb::TraceOptions options;
      options.max_trace_file_size = max_trace_file_size;
      options.sampling_frequency = sampling_frequency;
      options.filter = filter;
      options.preserve_write_order = preserve_write_order != 0;
      s = target->StartTrace(options, std::move(writer));
    }
    pinrocks::report(errptr, status_code, s);
  });
}

void pinrocks_db_end_trace(rocksdb_t* db, int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    pinrocks::report(errptr, status_code, pinrocks::db_of(db)->EndTrace());
  });
}

}  // extern "C"

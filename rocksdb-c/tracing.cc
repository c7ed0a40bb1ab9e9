// RocksDB's query tracing to a file (DB::StartTrace with its file trace writer, EndTrace) and
// the replay of such a file onto a database (DB::NewDefaultReplayer): the C API has neither.
#include <cstdint>
#include <memory>
#include <vector>

#include "guarded.h"
#include "layout.h"
#include "pinrocks.h"
#include "rocksdb/db.h"
#include "rocksdb/env.h"
#include "rocksdb/options.h"
#include "rocksdb/trace_reader_writer.h"
#include "rocksdb/utilities/replayer.h"

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

void pinrocks_db_replay_trace(rocksdb_t* db, const char* path,
                              rocksdb_column_family_handle_t* const* families, size_t count,
                              double fast_forward, int* status_code,
                              char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    rocksdb::DB* target = pinrocks::db_of(db);
    std::unique_ptr<rocksdb::TraceReader> reader;
    rocksdb::Status s =
        rocksdb::NewFileTraceReader(target->GetEnv(), rocksdb::EnvOptions(), path, &reader);
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    for (size_t i = 0; i < count; ++i) {
      handles.push_back(pinrocks::handle_of(families[i]));
    }
    std::unique_ptr<rocksdb::Replayer> replayer;
    if (s.ok()) {
      s = target->NewDefaultReplayer(handles, std::move(reader), &replayer);
    }
    if (s.ok()) {
      s = replayer->Prepare();
    }
    if (s.ok()) {
      s = replayer->Replay(rocksdb::ReplayOptions(1, fast_forward), nullptr);
    }
    pinrocks::report(errptr, status_code, s);
  });
}

}  // extern "C"

// Guarded replacements for RocksDB 11.8.1 C API calls that have no try/catch (declared in
// guarded_calls.h, which pinrocks.h includes). Each body is the C API function's own from
// db/c.cc, run inside `pinrocks::guarded` (or, for the iterator seeks, which report
// through the iterator's status, a plain try/catch), with its SaveError replaced by
// pinrocks::report / save_status so that the Rust side also gets the status code.
//
// Long because: one guarded copy per C API call that lacks a try/catch (docs/c-api-calls.md
// lists them), each a few lines.
#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "guarded.h"
#include "layout.h"
#include "out_of_memory.h"
#include "pinrocks.h"
#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "rocksdb/iterator.h"
#include "rocksdb/options.h"
#include "rocksdb/slice.h"
#include "rocksdb/sst_file_writer.h"
#include "rocksdb/status.h"
#include "rocksdb/utilities/db_ttl.h"
#include "rocksdb/utilities/transaction.h"
#include "rocksdb/write_batch.h"
#include "row_locks.h"
#include "util/coding.h"

namespace {

using pinrocks::guarded;
using pinrocks::guarded_read;
using pinrocks::report;

using pinrocks::sst_writer_of;

// Both option setters: the C API's copy of the caller's pairs into a map (c.cc:5765-5792).
std::unordered_map<std::string, std::string> options_map_of(int count, const char* const* keys,
                                                            const char* const* values) {
  std::unordered_map<std::string, std::string> options_map;
  for (int i = 0; i < count; i++) {
    options_map[keys[i]] = values[i];
  }
  return options_map;
}

// After RocksDB threw in the middle of a seek, the iterator's state is unknown (a stale
// `valid_`, a half-set saved key, a released block): reading its key or value could read
// freed memory, and so could its destructor (a tailing iterator's `RenewIterators` destroys
// its memtable iterator before it makes the next, which `~ForwardIterator` would destroy
// again: forward_iterator.cc:776-781). It is leaked, as a refresh that throws leaves its
// iterator (only when RocksDB threw: out of memory), and an iterator that is not valid and
// reports `s` takes its place. Called from a catch handler of a noexcept function: should
// this too throw (out of memory even for a few bytes), C++ calls std::terminate, an abort
// and not an unwind into Rust.
void replace_with_error(rocksdb_iterator_t* iter, const rocksdb::Status& s) {
  pinrocks::iterator_of(iter) = rocksdb::NewErrorIterator(s);
}

// The status an iterator whose move threw reports: called in the exception's handler.
rocksdb::Status thrown_status() {
  try {
    throw;
  } catch (const std::bad_alloc& e) {
    return rocksdb::Status::MemoryLimit(pinrocks::kIteratorException, e.what());
  } catch (const std::exception& e) {
    return rocksdb::Status::Aborted(pinrocks::kIteratorException, e.what());
  } catch (...) {
    return rocksdb::Status::Aborted(pinrocks::kIteratorException, "unknown C++ exception");
  }
}

// A move of an iterator over `db` (NULL: none): after a throw, `after_move_threw` mends or ends
// first; a tailing iterator's move, which may rebuild what it reads and purge files, ends the
// process (PINROCKS_ITER_TAILING).
template <typename Seek>
void guarded_seek(rocksdb_t* db, rocksdb_iterator_t* iter, bool tailing, Seek&& seek) noexcept {
  try {
    seek(pinrocks::iterator_of(iter));
  } catch (...) {
    if (tailing) {
      pinrocks::end_after_throw("a tailing iterator's move",
                                "RocksDB may have left its purge of obsolete files counted as "
                                "pending, which a close would wait on forever");
    }
    pinrocks::after_move_threw(db);
    replace_with_error(iter, thrown_status());
  }
}

}  // namespace

extern "C" {

// ---- Reads ----

// c.cc:13645 rocksdb_get_into_buffer_cf.
unsigned char pinrocks_get_into_buffer_cf(rocksdb_t* db, const rocksdb_readoptions_t* options,
                                          rocksdb_column_family_handle_t* column_family,
                                          const char* key, size_t keylen, char* buffer,
                                          size_t buffer_size, size_t* vallen, unsigned char* found,
                                          int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  unsigned char copied = 0;
  // What the C API leaves on failure, set first so that a caught exception leaves it too.
  *found = 0;
  *vallen = 0;
  guarded_read(db, status_code, errptr, [&] {
    rocksdb::PinnableSlice pinnable_val;
    rocksdb::Status s = pinrocks::db_of(db)->Get(pinrocks::read_options_of(options),
                                                 pinrocks::handle_of(column_family),
                                                 rocksdb::Slice(key, keylen), &pinnable_val);
    if (s.ok()) {
      *found = 1;
      *vallen = pinnable_val.size();
      if (buffer_size >= pinnable_val.size()) {
        std::memcpy(buffer, pinnable_val.data(), pinnable_val.size());
        copied = 1;  // data copied
      }
      // else: buffer too small
    } else if (!s.IsNotFound()) {
      pinrocks::save_status(errptr, status_code, s);
    }
  });  // `pinnable_val` releases its pin as the lambda returns.
  return copied;
}

// c.cc:2890 rocksdb_key_may_exist_cf, with no timestamp, and the value (if asked for) handed
// to a sink instead of a malloc'd copy.
unsigned char pinrocks_key_may_exist_cf(rocksdb_t* db, const rocksdb_readoptions_t* options,
                                        rocksdb_column_family_handle_t* column_family,
                                        const char* key, size_t keylen,
                                        void (*found)(void* ctx, const char* value, size_t len),
                                        void* ctx, int* status_code,
                                        char** errptr) PINROCKS_NOEXCEPT {
  unsigned char result = 1;  // on error: "may exist", which is never wrong
  guarded_read(db, status_code, errptr, [&] {
    std::string value;
    bool value_found = false;
    // The overload without a timestamp: the one StackableDB forwards (a transaction or TTL
    // database; the TTL one strips its timestamp), where the other is DB's "may exist".
    result = pinrocks::db_of(db)->KeyMayExist(
                 pinrocks::read_options_of(options), pinrocks::handle_of(column_family),
                 rocksdb::Slice(key, keylen), &value, found != nullptr ? &value_found : nullptr)
                 ? 1
                 : 0;
    if (result != 0 && value_found) {
      found(ctx, value.data(), value.size());
    }
  });
  return result;
}

// ---- Iterators ----

// c.cc:3383 rocksdb_iter_seek_to_first, :3387 _seek_to_last, :3391 _seek, :3395
// _seek_for_prev, :3399 _next, :3403 _prev; then pinrocks_iter_entry.
unsigned char pinrocks_iter_step(rocksdb_t* db, rocksdb_iterator_t* iter, int op,
                                 const char* target, size_t targetlen,
                                 pinrocks_entry* entry) PINROCKS_NOEXCEPT {
  guarded_seek(db, iter, (op & PINROCKS_ITER_TAILING) != 0, [&](rocksdb::Iterator* it) {
    switch (op & ~PINROCKS_ITER_TAILING) {
      case PINROCKS_ITER_FIRST:
        it->SeekToFirst();
        break;
      case PINROCKS_ITER_LAST:
        it->SeekToLast();
        break;
      case PINROCKS_ITER_NEXT:
        if (it->Valid()) it->Next();
        break;
      case PINROCKS_ITER_PREV:
        if (it->Valid()) it->Prev();
        break;
      case PINROCKS_ITER_SEEK:
        it->Seek(rocksdb::Slice(target, targetlen));
        break;
      case PINROCKS_ITER_SEEK_FOR_PREV:
        it->SeekForPrev(rocksdb::Slice(target, targetlen));
        break;
      default:
        // Reported from the iterator's status, as an exception thrown in a move is.
        throw std::invalid_argument("pinrocks_iter_step: unknown op");
    }
  });
  return pinrocks::land(pinrocks::iterator_of(iter), entry);
}

// ---- SST file writer ----

// c.cc:8043 rocksdb_sstfilewriter_put, c.cc:8065 _delete, c.cc:8058 _merge, _delete_range.
void pinrocks_sstfilewriter_write(rocksdb_sstfilewriter_t* writer, int op, const char* key,
                                  size_t keylen, const char* value, size_t valuelen,
                                  int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  guarded(status_code, errptr, [&] {
    rocksdb::SstFileWriter* w = sst_writer_of(writer);
    rocksdb::Slice k(key, keylen);
    rocksdb::Slice v(value, valuelen);
    rocksdb::Status s;
    switch (op) {
      case PINROCKS_RECORD_PUT:
        s = w->Put(k, v);
        break;
      case PINROCKS_RECORD_DELETE:
        s = w->Delete(k);
        break;
      case PINROCKS_RECORD_MERGE:
        s = w->Merge(k, v);
        break;
      case PINROCKS_RECORD_DELETE_RANGE:  // the value is the range's end
        s = w->DeleteRange(k, v);
        break;
      default:
        s = rocksdb::Status::InvalidArgument("pinrocks: unknown SST file writer operation");
    }
    report(errptr, status_code, s);
  });
}

void pinrocks_sstfilewriter_write_at(rocksdb_sstfilewriter_t* writer, int op, const char* key,
                                     size_t keylen, uint64_t ts, const char* value, size_t valuelen,
                                     int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  guarded(status_code, errptr, [&] {
    rocksdb::SstFileWriter* w = sst_writer_of(writer);
    char encoded[sizeof(uint64_t)];
    rocksdb::EncodeFixed64(encoded, ts);
    rocksdb::Slice k(key, keylen);
    rocksdb::Slice t(encoded, sizeof encoded);
    rocksdb::Slice v(value, valuelen);
    rocksdb::Status s;
    switch (op) {
      case PINROCKS_RECORD_PUT:
        s = w->Put(k, t, v);
        break;
      case PINROCKS_RECORD_DELETE:
        s = w->Delete(k, t);
        break;
      case PINROCKS_RECORD_DELETE_RANGE:  // the value is the range's end
        s = w->DeleteRange(k, v, t);
        break;
      default:
        s = rocksdb::Status::InvalidArgument(
            "pinrocks: unknown timestamped SST file writer operation");
    }
    report(errptr, status_code, s);
  });
}

// c.cc:8087 rocksdb_sstfilewriter_finish.
void pinrocks_sstfilewriter_finish(rocksdb_sstfilewriter_t* writer, int* status_code,
                                   char** errptr) PINROCKS_NOEXCEPT {
  guarded(status_code, errptr,
          [&] { report(errptr, status_code, sst_writer_of(writer)->Finish(nullptr)); });
}

// ---- Properties ----

// c.cc:3121 rocksdb_property_value_cf.
char* pinrocks_property_value_cf(rocksdb_t* db, rocksdb_column_family_handle_t* column_family,
                                 const char* propname, int* status_code,
                                 char** errptr) PINROCKS_NOEXCEPT {
  char* result = nullptr;
  guarded_read(db, status_code, errptr, [&] {
    std::string tmp;
    if (pinrocks::db_of(db)->GetProperty(pinrocks::handle_of(column_family),
                                         rocksdb::Slice(propname), &tmp)) {
      // strdup, as the C API (human-readable output); it returns NULL rather than throw.
      result = strdup(tmp.c_str());
      if (result == nullptr) {
        pinrocks::save_error(errptr, status_code, PINROCKS_CODE_OUT_OF_MEMORY,
                             "strdup of a property value failed");
      }
    }
  });
  return result;
}

// c.cc:3111 rocksdb_property_int_cf.
int pinrocks_property_int_cf(rocksdb_t* db, rocksdb_column_family_handle_t* column_family,
                             const char* propname, uint64_t* out_val, int* status_code,
                             char** errptr) PINROCKS_NOEXCEPT {
  int result = -1;
  guarded_read(db, status_code, errptr, [&] {
    if (pinrocks::db_of(db)->GetIntProperty(pinrocks::handle_of(column_family),
                                            rocksdb::Slice(propname), out_val)) {
      result = 0;
    }
  });
  return result;
}

unsigned char pinrocks_property_map_cf(rocksdb_t* db, rocksdb_column_family_handle_t* column_family,
                                       const char* propname, pinrocks_pair_fn fn, void* ctx,
                                       int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  unsigned char found = 0;
  guarded_read(db, status_code, errptr, [&] {
    std::map<std::string, std::string> map;
    if (pinrocks::db_of(db)->GetMapProperty(pinrocks::handle_of(column_family),
                                            rocksdb::Slice(propname), &map)) {
      found = 1;
      for (const auto& [name, value] : map) {
        fn(ctx, name.data(), name.size(), value.data(), value.size());
      }
    }
  });
  return found;
}

unsigned char pinrocks_property_int_aggregated(rocksdb_t* db, const char* propname,
                                               uint64_t* out_val, int* status_code,
                                               char** errptr) PINROCKS_NOEXCEPT {
  unsigned char found = 0;
  guarded_read(db, status_code, errptr, [&] {
    // Under a lock guard of the database mutex, which GetIntPropertyInternal lets go of and
    // takes again by plain calls for the properties read without it (db_impl.cc:4912-4922):
    // a throw in between leaves the guard to unlock a mutex this thread no longer holds.
    found = pinrocks::ending_on_throw(
                "GetAggregatedIntProperty",
                "the database mutex may have been let go twice, perhaps another thread's hold",
                [&] {
                  return pinrocks::db_of(db)->GetAggregatedIntProperty(rocksdb::Slice(propname),
                                                                       out_val);
                })
                ? 1
                : 0;
  });
  return found;
}

void pinrocks_approximate_memtable_stats_cf(rocksdb_t* db,
                                            rocksdb_column_family_handle_t* column_family,
                                            const char* start, size_t startlen, const char* limit,
                                            size_t limitlen, uint64_t* count, uint64_t* size,
                                            int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  *count = 0;
  *size = 0;
  guarded_read(db, status_code, errptr, [&] {
    const rocksdb::Range range(rocksdb::Slice(start, startlen), rocksdb::Slice(limit, limitlen));
    pinrocks::db_of(db)->GetApproximateMemTableStats(pinrocks::handle_of(column_family), range,
                                                     count, size);
  });
}

unsigned char pinrocks_db_background_error(rocksdb_t* db, int* severity, int* status_code,
                                           char** errptr) PINROCKS_NOEXCEPT {
  unsigned char stopped = 0;
  *severity = 0;
  guarded(status_code, errptr, [&] {
    rocksdb::DB* base = pinrocks::db_of(db);
    const rocksdb::DBOptions options = base->GetDBOptions();
    // There, a write refused for a stop is reported back as a new background error
    // ("write callback"), which can make a recoverable error fatal: no probe.
    if (options.enable_pipelined_write || options.unordered_write || options.two_write_queues) {
      report(errptr, status_code,
             rocksdb::Status::NotSupported(
                 "background_error with enable_pipelined_write, unordered_write or "
                 "two_write_queues"));
      return;
    }
    rocksdb::WriteOptions write;
    write.no_slowdown = true;
    rocksdb::WriteBatch empty;
    // A stopped database refuses the batch with its stored error, severity included
    // (PreprocessWrite). An error without one is the probe's own failure (its empty WAL
    // record not written): if that stopped the database, the second probe says so.
    for (int attempt = 0; attempt < 2; ++attempt) {
      const rocksdb::Status s = pinrocks::in_write_queue(
          "DB::Write of an empty batch", [&] { return base->Write(write, &empty); });
      // A stall answers Incomplete under no_slowdown: writes wait, they are not stopped.
      if (s.ok() || s.IsIncomplete()) {
        return;
      }
      if (s.severity() >= rocksdb::Status::Severity::kHardError) {
        stopped = 1;
        *severity = static_cast<int>(s.severity());
        report(errptr, status_code, s);
        return;
      }
      if (attempt == 1) {
        report(errptr, status_code, s);
      }
    }
  });
  return stopped;
}

// ---- Live options ----

// c.cc:5783 rocksdb_set_options_cf.
void pinrocks_set_options_cf(rocksdb_t* db, rocksdb_column_family_handle_t* handle, int count,
                             const char* const* keys, const char* const* values, int* status_code,
                             char** errptr) PINROCKS_NOEXCEPT {
  guarded(status_code, errptr, [&] {
    std::unordered_map<std::string, std::string> options_map = options_map_of(count, keys, values);
    // LogAndApply links a writer on this stack into the manifest queue and lets go of the
    // database mutex by hand (version_set.cc), as does the OPTIONS file's write.
    report(errptr, status_code, pinrocks::in_manifest_queue("SetOptions", [&] {
             return pinrocks::db_of(db)->SetOptions(pinrocks::handle_of(handle), options_map);
           }));
  });
}

// c.cc:5774 rocksdb_set_db_options.
void pinrocks_set_db_options(rocksdb_t* db, int count, const char* const* keys,
                             const char* const* values, int* status_code,
                             char** errptr) PINROCKS_NOEXCEPT {
  guarded(status_code, errptr, [&] {
    std::unordered_map<std::string, std::string> options_map = options_map_of(count, keys, values);
    rocksdb::DB* d = pinrocks::db_of(db);
    // Any throw ends the process, a thread that cannot start too (std::system_error from
    // IncBackgroundThreadsIfNeeded, db_impl.cc:1825-1829, which `keeping_pools` would set back
    // elsewhere): it cannot be told apart from one with the database mutex let go by hand (the
    // periodic task scheduler's timer thread, 1840-1865) or inside the write queue
    // (1901-1911).
    report(errptr, status_code,
           pinrocks::in_write_queue("SetDBOptions", [&] { return d->SetDBOptions(options_map); }));
  });
}

// ---- Metadata and maintenance ----

// c.cc:3161 rocksdb_approximate_sizes_cf_with_flags (with BuildRanges, c.cc:219).
void pinrocks_approximate_sizes_cf_with_flags(
    rocksdb_t* db, rocksdb_column_family_handle_t* column_family, int num_ranges,
    const char* const* range_start_key, const size_t* range_start_key_len,
    const char* const* range_limit_key, const size_t* range_limit_key_len, uint8_t include_flags,
    uint64_t* sizes, int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  guarded_read(db, status_code, errptr, [&] {
    std::unique_ptr<rocksdb::Range[]> ranges(new rocksdb::Range[num_ranges]);
    for (int i = 0; i < num_ranges; ++i) {
      ranges[i].start = rocksdb::Slice(range_start_key[i], range_start_key_len[i]);
      ranges[i].limit = rocksdb::Slice(range_limit_key[i], range_limit_key_len[i]);
    }
    report(errptr, status_code,
           pinrocks::db_of(db)->GetApproximateSizes(
               pinrocks::handle_of(column_family), ranges.get(), num_ranges, sizes,
               static_cast<rocksdb::DB::SizeApproximationFlags>(include_flags)));
  });
}

// c.cc:8608 rocksdb_delete_file_in_range_cf.
void pinrocks_delete_file_in_range_cf(rocksdb_t* db, rocksdb_column_family_handle_t* column_family,
                                      const char* start_key, size_t start_key_len,
                                      const char* limit_key, size_t limit_key_len, int* status_code,
                                      char** errptr) PINROCKS_NOEXCEPT {
  guarded(status_code, errptr, [&] {
    rocksdb::Slice a;
    rocksdb::Slice b;
    report(errptr, status_code, pinrocks::in_manifest_queue("DeleteFilesInRange", [&] {
             return rocksdb::DeleteFilesInRange(
                 pinrocks::db_of(db), pinrocks::handle_of(column_family),
                 (start_key ? (a = rocksdb::Slice(start_key, start_key_len), &a) : nullptr),
                 (limit_key ? (b = rocksdb::Slice(limit_key, limit_key_len), &b) : nullptr));
           }));
  });
}

// ---- Calls through the C API itself, inside a try/catch ----
// These C API functions copy data the caller or the stored data sizes (names, every live
// file's keys, logged batches, keys met by an iterator, merge results): an exception
// unwinds out of the C API function (compiled with unwind tables) into the catch here.
// A failed call may leak what the C API had allocated so far: only on a caught exception.

void pinrocks_iter_refresh_at(rocksdb_t* db, rocksdb_iterator_t* iter,
                              const rocksdb_readoptions_t* at, int* status_code,
                              char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    const rocksdb::Snapshot* snapshot = pinrocks::read_options_of(at).snapshot;
    // Made before: a refresh destroys the iterator's tree before it builds the new one, so
    // one that throws in between leaves the iterator pointing at destroyed memory, which
    // even its destructor would touch. Then it is leaked (only when RocksDB threw: out of
    // memory) and this one, not valid and reporting the failure, takes its place.
    std::unique_ptr<rocksdb::Iterator> spare(rocksdb::NewErrorIterator(
        rocksdb::Status::Aborted(pinrocks::kIteratorException, "a refresh failed")));
    try {
      pinrocks::report(errptr, status_code, pinrocks::iterator_of(iter)->Refresh(snapshot));
    } catch (...) {
      // A refresh takes the thread's SuperVersion to read the memtable's range tombstones
      // (arena_wrapped_db_iter.cc:288-319) and may build their cache.
      pinrocks::after_read_threw(db);
      pinrocks::iterator_of(iter) = spare.release();
      throw;
    }
  });
}

rocksdb_wal_iterator_t* pinrocks_get_updates_since(rocksdb_t* db, uint64_t seq_number,
                                                   int* status_code,
                                                   char** errptr) PINROCKS_NOEXCEPT {
  rocksdb_wal_iterator_t* iter = nullptr;
  pinrocks::guarded(status_code, errptr,
                    [&] { iter = rocksdb_get_updates_since(db, seq_number, nullptr, errptr); });
  return iter;
}

void pinrocks_wal_iter_next(rocksdb_wal_iterator_t* iter, int* status_code,
                            char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] { rocksdb_wal_iter_next(iter); });
}

rocksdb_writebatch_t* pinrocks_wal_iter_get_batch(const rocksdb_wal_iterator_t* iter, uint64_t* seq,
                                                  int* status_code,
                                                  char** errptr) PINROCKS_NOEXCEPT {
  rocksdb_writebatch_t* batch = nullptr;
  pinrocks::guarded(status_code, errptr, [&] { batch = rocksdb_wal_iter_get_batch(iter, seq); });
  return batch;
}

const rocksdb_livefiles_t* pinrocks_livefiles(rocksdb_t* db, int* status_code,
                                              char** errptr) PINROCKS_NOEXCEPT {
  const rocksdb_livefiles_t* files = nullptr;
  pinrocks::guarded(status_code, errptr, [&] { files = rocksdb_livefiles(db); });
  return files;
}

rocksdb_column_family_metadata_t* pinrocks_get_column_family_metadata_cf(
    rocksdb_t* db, rocksdb_column_family_handle_t* column_family, int* status_code,
    char** errptr) PINROCKS_NOEXCEPT {
  rocksdb_column_family_metadata_t* meta = nullptr;
  pinrocks::guarded(status_code, errptr,
                    [&] { meta = rocksdb_get_column_family_metadata_cf(db, column_family); });
  return meta;
}

rocksdb_column_family_handle_t* pinrocks_create_column_family(
    rocksdb_t* db, const rocksdb_options_t* column_family_options, const char* column_family_name,
    int ttl, unsigned char with_ttl, int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  rocksdb_column_family_handle_t* handle = nullptr;
  pinrocks::guarded(status_code, errptr, [&] {
    // c.cc's rocksdb_create_column_family(_with_ttl), with the wrapper, the options' and the
    // name's copies made first (a failure reported): only RocksDB's call, which enters the
    // write queue, ends the process if it throws.
    auto made = std::make_unique<rocksdb_column_family_handle_t>();
    made->rep = nullptr;
    made->immortal = false;
    const rocksdb::ColumnFamilyOptions options(pinrocks::options_of(column_family_options));
    const std::string name(column_family_name);
    const rocksdb::Status s = pinrocks::in_write_queue("CreateColumnFamily", [&] {
      // With a TTL only on a TTL database (the Rust side's check), as the C API casts.
      return with_ttl != 0 ? static_cast<rocksdb::DBWithTTL*>(pinrocks::db_of(db))
                                 ->CreateColumnFamilyWithTtl(options, name, &made->rep, ttl)
                           : pinrocks::db_of(db)->CreateColumnFamily(options, name, &made->rep);
    });
    if (s.ok()) {
      handle = made.release();  // freed by rocksdb_column_family_handle_destroy
    } else {
      // A handle RocksDB made before it failed is freed with the wrapper, as the C API's
      // destroy would.
      delete made->rep;
      pinrocks::save_status(errptr, status_code, s);
    }
  });
  return handle;
}

// ---- The other C API calls that allocate what the stored data or the caller sizes
// (opening and recovery, flushes and compactions waited for, ingestion, checkpoints,
// backups, the listed and stored options, iterators, a HyperClockCache's table, closing):
// each is the C API call itself, inside a try/catch, with a status code first (and an
// errptr last where the call had none). Generated from rocksdb/c.h's declarations. Those
// that may enter RocksDB's write queue (a family dropped, an ingestion) end the process on
// an exception instead (guarded.h's `in_write_queue`).

// rocksdb_checkpoint_object_create, guarded.
rocksdb_checkpoint_t* pinrocks_guarded_checkpoint_object_create(int* status_code, rocksdb_t* db,
                                                                char** errptr) PINROCKS_NOEXCEPT {
  rocksdb_checkpoint_t* result{};
  pinrocks::guarded(status_code, errptr,
                    [&] { result = rocksdb_checkpoint_object_create(db, errptr); });
  return result;
}

// rocksdb_checkpoint_create, guarded.
void pinrocks_guarded_checkpoint_create(int* status_code, rocksdb_checkpoint_t* checkpoint,
                                        const char* checkpoint_dir, uint64_t log_size_for_flush,
                                        char** errptr) PINROCKS_NOEXCEPT {
  // It flushes first unless `log_size_for_flush` says the WAL may stand instead.
  pinrocks::guarded(status_code, errptr, [&] {
    pinrocks::in_write_queue("CreateCheckpoint", [&] {
      rocksdb_checkpoint_create(checkpoint, checkpoint_dir, log_size_for_flush, errptr);
    });
  });
}

// rocksdb_backup_engine_open, guarded.
rocksdb_backup_engine_t* pinrocks_guarded_backup_engine_open(int* status_code,
                                                             const rocksdb_options_t* options,
                                                             const char* path,
                                                             char** errptr) PINROCKS_NOEXCEPT {
  rocksdb_backup_engine_t* result{};
  pinrocks::guarded(status_code, errptr,
                    [&] { result = rocksdb_backup_engine_open(options, path, errptr); });
  return result;
}

// rocksdb_backup_engine_purge_old_backups, guarded.
void pinrocks_guarded_backup_engine_purge_old_backups(int* status_code, rocksdb_backup_engine_t* be,
                                                      uint32_t num_backups_to_keep,
                                                      char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    rocksdb_backup_engine_purge_old_backups(be, num_backups_to_keep, errptr);
  });
}

// rocksdb_transactiondb_open_column_families, guarded, its lock manager's mutexes counted
// (row_locks.h).
rocksdb_transactiondb_t* pinrocks_guarded_transactiondb_open_column_families(
    int* status_code, const rocksdb_options_t* options,
    const rocksdb_transactiondb_options_t* txn_db_options, const char* name,
    int num_column_families, const char* const* column_family_names,
    const rocksdb_options_t* const* column_family_options,
    rocksdb_column_family_handle_t** column_family_handles, char** errptr) PINROCKS_NOEXCEPT {
  rocksdb_transactiondb_t* result{};
  const int stripes = pinrocks::held_stripe_count();
  pinrocks::guarded(status_code, errptr, [&] {
    rocksdb_transactiondb_options_t counted{txn_db_options->rep};
    counted.rep.custom_mutex_factory = pinrocks::counted_mutex_factory();
    // An open grows the Env's pools to its background jobs (SanitizeOptions).
    pinrocks::keeping_pools(pinrocks::options_of(options).env, [&] {
      // Out of memory under the mutex the open takes by hand (out_of_memory.h).
      const pinrocks::EndingOnOutOfMemory scope("TransactionDB::Open");
      result = rocksdb_transactiondb_open_column_families(
          options, &counted, name, num_column_families, column_family_names, column_family_options,
          column_family_handles, errptr);
    });
  });
  if (result == nullptr) {
    pinrocks::forget_stripes_of_failed_open(stripes);
  }
  return result;
}

// rocksdb_optimistictransactiondb_open_column_families_with_otxn_db_options, guarded (the open
// allocates the lock buckets the options ask for).
rocksdb_optimistictransactiondb_t*
pinrocks_guarded_optimistictransactiondb_open_column_families_with_otxn_db_options(
    int* status_code, const rocksdb_options_t* options,
    const rocksdb_optimistictransactiondb_options_t* otxn_db_options, const char* name,
    int num_column_families, const char* const* column_family_names,
    const rocksdb_options_t* const* column_family_options,
    rocksdb_column_family_handle_t** column_family_handles, char** errptr) PINROCKS_NOEXCEPT {
  rocksdb_optimistictransactiondb_t* result{};
  pinrocks::guarded(status_code, errptr, [&] {
    // An open grows the Env's pools to its background jobs (SanitizeOptions).
    pinrocks::keeping_pools(pinrocks::options_of(options).env, [&] {
      // Out of memory under the mutex the open takes by hand (out_of_memory.h).
      const pinrocks::EndingOnOutOfMemory scope("OptimisticTransactionDB::Open");
      result = rocksdb_optimistictransactiondb_open_column_families_with_otxn_db_options(
          options, otxn_db_options, name, num_column_families, column_family_names,
          column_family_options, column_family_handles, errptr);
    });
  });
  return result;
}

// rocksdb_sst_file_manager_set_delete_rate_bytes_per_second, guarded: the first nonzero rate
// starts the delete scheduler's thread (std::system_error if the system refuses one).
void pinrocks_guarded_sst_file_manager_set_delete_rate_bytes_per_second(
    int* status_code, rocksdb_sst_file_manager_t* manager, int64_t rate,
    char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    rocksdb_sst_file_manager_set_delete_rate_bytes_per_second(manager, rate);
  });
}

// rocksdb_optimistictransactiondb_lock_buckets_create, guarded (`bucket_count` mutexes).
rocksdb_optimistictransactiondb_lock_buckets_t*
pinrocks_guarded_optimistictransactiondb_lock_buckets_create(int* status_code, size_t bucket_count,
                                                             unsigned char cache_aligned,
                                                             char** errptr) PINROCKS_NOEXCEPT {
  rocksdb_optimistictransactiondb_lock_buckets_t* result{};
  pinrocks::guarded(status_code, errptr, [&] {
    result = rocksdb_optimistictransactiondb_lock_buckets_create(bucket_count, cache_aligned);
  });
  return result;
}

// rocksdb_open_for_read_only_column_families, guarded.
rocksdb_t* pinrocks_guarded_open_for_read_only_column_families(
    int* status_code, const rocksdb_options_t* options, const char* name, int num_column_families,
    const char* const* column_family_names, const rocksdb_options_t* const* column_family_options,
    rocksdb_column_family_handle_t** column_family_handles, unsigned char error_if_wal_file_exists,
    char** errptr) PINROCKS_NOEXCEPT {
  rocksdb_t* result{};
  pinrocks::guarded(status_code, errptr, [&] {
    // An open grows the Env's pools to its background jobs (SanitizeOptions).
    pinrocks::keeping_pools(pinrocks::options_of(options).env, [&] {
      // Out of memory under the mutex the open takes by hand (out_of_memory.h).
      const pinrocks::EndingOnOutOfMemory scope("DB::OpenForReadOnly");
      result = rocksdb_open_for_read_only_column_families(
          options, name, num_column_families, column_family_names, column_family_options,
          column_family_handles, error_if_wal_file_exists, errptr);
    });
  });
  return result;
}

// rocksdb_open_column_families, guarded.
rocksdb_t* pinrocks_guarded_open_column_families(
    int* status_code, const rocksdb_options_t* options, const char* name, int num_column_families,
    const char* const* column_family_names, const rocksdb_options_t* const* column_family_options,
    rocksdb_column_family_handle_t** column_family_handles, char** errptr) PINROCKS_NOEXCEPT {
  rocksdb_t* result{};
  pinrocks::guarded(status_code, errptr, [&] {
    // An open grows the Env's pools to its background jobs (SanitizeOptions).
    pinrocks::keeping_pools(pinrocks::options_of(options).env, [&] {
      // Out of memory under the mutex the open takes by hand (out_of_memory.h).
      const pinrocks::EndingOnOutOfMemory scope("DB::Open");
      result = rocksdb_open_column_families(options, name, num_column_families, column_family_names,
                                            column_family_options, column_family_handles, errptr);
    });
  });
  return result;
}

// rocksdb_open_as_secondary_column_families, guarded.
rocksdb_t* pinrocks_guarded_open_as_secondary_column_families(
    int* status_code, const rocksdb_options_t* options, const char* name,
    const char* secondary_path, int num_column_families, const char* const* column_family_names,
    const rocksdb_options_t* const* column_family_options,
    rocksdb_column_family_handle_t** column_family_handles, char** errptr) PINROCKS_NOEXCEPT {
  rocksdb_t* result{};
  pinrocks::guarded(status_code, errptr, [&] {
    // An open grows the Env's pools to its background jobs (SanitizeOptions).
    pinrocks::keeping_pools(pinrocks::options_of(options).env, [&] {
      // Out of memory under the mutex the open takes by hand (out_of_memory.h).
      const pinrocks::EndingOnOutOfMemory scope("DB::OpenAsSecondary");
      result = rocksdb_open_as_secondary_column_families(
          options, name, secondary_path, num_column_families, column_family_names,
          column_family_options, column_family_handles, errptr);
    });
  });
  return result;
}

// rocksdb_open_column_families_with_ttl, guarded.
rocksdb_t* pinrocks_guarded_open_column_families_with_ttl(
    int* status_code, const rocksdb_options_t* options, const char* name, int num_column_families,
    const char* const* column_family_names, const rocksdb_options_t* const* column_family_options,
    rocksdb_column_family_handle_t** column_family_handles, const int* ttls,
    char** errptr) PINROCKS_NOEXCEPT {
  rocksdb_t* result{};
  pinrocks::guarded(status_code, errptr, [&] {
    // An open grows the Env's pools to its background jobs (SanitizeOptions).
    pinrocks::keeping_pools(pinrocks::options_of(options).env, [&] {
      // Out of memory under the mutex the open takes by hand (out_of_memory.h).
      const pinrocks::EndingOnOutOfMemory scope("DBWithTTL::Open");
      result = rocksdb_open_column_families_with_ttl(options, name, num_column_families,
                                                     column_family_names, column_family_options,
                                                     column_family_handles, ttls, errptr);
    });
  });
  return result;
}

// rocksdb_list_column_families, guarded.
char** pinrocks_guarded_list_column_families(int* status_code, const rocksdb_options_t* options,
                                             const char* name, size_t* lencf,
                                             char** errptr) PINROCKS_NOEXCEPT {
  char** result{};
  pinrocks::guarded(status_code, errptr,
                    [&] { result = rocksdb_list_column_families(options, name, lencf, errptr); });
  return result;
}

// rocksdb_drop_column_family, guarded.
void pinrocks_guarded_drop_column_family(int* status_code, rocksdb_t* db,
                                         rocksdb_column_family_handle_t* handle,
                                         char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    pinrocks::in_write_queue("DropColumnFamily",
                             [&] { rocksdb_drop_column_family(db, handle, errptr); });
  });
}

// rocksdb_wait_for_compact, guarded.
void pinrocks_guarded_wait_for_compact(int* status_code, rocksdb_t* db,
                                       rocksdb_wait_for_compact_options_t* options,
                                       char** errptr) PINROCKS_NOEXCEPT {
  // With `flush`, it flushes every family first.
  pinrocks::guarded(status_code, errptr, [&] {
    pinrocks::in_write_queue("WaitForCompact",
                             [&] { rocksdb_wait_for_compact(db, options, errptr); });
  });
}

// rocksdb_flush_wal, guarded.
void pinrocks_guarded_flush_wal(int* status_code, rocksdb_t* db, unsigned char sync,
                                char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    // A sync marks the WALs syncing, then collects them: a throw between leaves them marked.
    const pinrocks::EndingOnOutOfMemory scope("FlushWAL");
    rocksdb_flush_wal(db, sync, errptr);
  });
}

// rocksdb_try_catch_up_with_primary, guarded.
void pinrocks_guarded_try_catch_up_with_primary(int* status_code, rocksdb_t* db,
                                                char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    // It purges obsolete files, counted as pending until done (a close waits on the count).
    const pinrocks::EndingOnOutOfMemory scope("TryCatchUpWithPrimary");
    rocksdb_try_catch_up_with_primary(db, errptr);
  });
}

// rocksdb_ingest_external_file_cf, guarded.
void pinrocks_guarded_ingest_external_file_cf(int* status_code, rocksdb_t* db,
                                              rocksdb_column_family_handle_t* handle,
                                              const char* const* file_list, const size_t list_len,
                                              const rocksdb_ingestexternalfileoptions_t* opt,
                                              char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    pinrocks::in_write_queue("IngestExternalFile", [&] {
      rocksdb_ingest_external_file_cf(db, handle, file_list, list_len, opt, errptr);
    });
  });
}

// rocksdb_load_latest_options, guarded.
void pinrocks_guarded_load_latest_options(int* status_code, const char* db_path, rocksdb_env_t* env,
                                          bool ignore_unknown_options, rocksdb_cache_t* cache,
                                          rocksdb_options_t** db_options,
                                          size_t* num_column_families, char*** column_family_names,
                                          rocksdb_options_t*** column_family_options,
                                          char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    rocksdb_load_latest_options(db_path, env, ignore_unknown_options, cache, db_options,
                                num_column_families, column_family_names, column_family_options,
                                errptr);
  });
}

// rocksdb_backup_engine_get_backup_info, guarded.
const rocksdb_backup_engine_info_t* pinrocks_guarded_backup_engine_get_backup_info(
    int* status_code, rocksdb_backup_engine_t* be, char** errptr) PINROCKS_NOEXCEPT {
  const rocksdb_backup_engine_info_t* result{};
  pinrocks::guarded(status_code, errptr,
                    [&] { result = rocksdb_backup_engine_get_backup_info(be); });
  return result;
}

// rocksdb_options_set_compression_per_level, guarded.
void pinrocks_guarded_options_set_compression_per_level(int* status_code, rocksdb_options_t* opt,
                                                        const int* level_values, size_t num_levels,
                                                        char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    rocksdb_options_set_compression_per_level(opt, level_values, num_levels);
  });
}

// rocksdb_close, guarded.
void pinrocks_guarded_close(int* status_code, rocksdb_t* db, char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] { rocksdb_close(db); });
}

// rocksdb_transactiondb_close, guarded.
void pinrocks_guarded_transactiondb_close(int* status_code, rocksdb_transactiondb_t* txn_db,
                                          char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] { rocksdb_transactiondb_close(txn_db); });
}

// rocksdb_transactiondb_close_base_db, guarded.
void pinrocks_guarded_transactiondb_close_base_db(int* status_code, rocksdb_t* base_db,
                                                  char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] { rocksdb_transactiondb_close_base_db(base_db); });
}

// rocksdb_optimistictransactiondb_close, guarded.
void pinrocks_guarded_optimistictransactiondb_close(int* status_code,
                                                    rocksdb_optimistictransactiondb_t* otxn_db,
                                                    char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] { rocksdb_optimistictransactiondb_close(otxn_db); });
}

// rocksdb_optimistictransactiondb_close_base_db, guarded.
void pinrocks_guarded_optimistictransactiondb_close_base_db(int* status_code, rocksdb_t* base_db,
                                                            char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr,
                    [&] { rocksdb_optimistictransactiondb_close_base_db(base_db); });
}

}  // extern "C"

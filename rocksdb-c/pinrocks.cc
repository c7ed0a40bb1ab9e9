// Native reads and writes beyond RocksDB's C API. Every entry point is extern "C" and lets
// no C++ exception out: each body runs inside `guarded`, which turns a thrown exception into
// an error code (std::bad_alloc: PINROCKS_CODE_OUT_OF_MEMORY), and the Rust callbacks never
// unwind (their trampolines catch panics). The few functions without an error channel only
// copy bytes and are noexcept.
#include "pinrocks.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <string>

#include "guarded.h"
#include "layout.h"
#include "pinned_batch.h"

#include "rocksdb/version.h"

// What pinrocks mirrors of db/c.cc (rocksdb-c/layout.h) and the status codes it names
// (pinrocks.h) are RocksDB 11.8.1's: another version must not build against them.
static_assert(ROCKSDB_MAJOR == 11 && ROCKSDB_MINOR == 8 && ROCKSDB_PATCH == 1,
              "pinrocks mirrors RocksDB 11.8.1's C API (rocksdb-c/layout.h): this RocksDB is "
              "another version; pin librocksdb-sys to =0.19.0+11.8.1 or update the mirrors");

#define PINROCKS_SAME_CODE(ours, theirs)                                        \
  static_assert(ours == static_cast<int>(rocksdb::Status::Code::theirs),        \
                #ours " is not rocksdb::Status::" #theirs)
PINROCKS_SAME_CODE(PINROCKS_CODE_OK, kOk);
PINROCKS_SAME_CODE(PINROCKS_CODE_NOT_FOUND, kNotFound);
PINROCKS_SAME_CODE(PINROCKS_CODE_CORRUPTION, kCorruption);
PINROCKS_SAME_CODE(PINROCKS_CODE_NOT_SUPPORTED, kNotSupported);
PINROCKS_SAME_CODE(PINROCKS_CODE_INVALID_ARGUMENT, kInvalidArgument);
PINROCKS_SAME_CODE(PINROCKS_CODE_IO_ERROR, kIOError);
PINROCKS_SAME_CODE(PINROCKS_CODE_MERGE_IN_PROGRESS, kMergeInProgress);
PINROCKS_SAME_CODE(PINROCKS_CODE_INCOMPLETE, kIncomplete);
PINROCKS_SAME_CODE(PINROCKS_CODE_SHUTDOWN_IN_PROGRESS, kShutdownInProgress);
PINROCKS_SAME_CODE(PINROCKS_CODE_TIMED_OUT, kTimedOut);
PINROCKS_SAME_CODE(PINROCKS_CODE_ABORTED, kAborted);
PINROCKS_SAME_CODE(PINROCKS_CODE_BUSY, kBusy);
PINROCKS_SAME_CODE(PINROCKS_CODE_EXPIRED, kExpired);
PINROCKS_SAME_CODE(PINROCKS_CODE_TRY_AGAIN, kTryAgain);
PINROCKS_SAME_CODE(PINROCKS_CODE_COMPACTION_TOO_LARGE, kCompactionTooLarge);
PINROCKS_SAME_CODE(PINROCKS_CODE_COLUMN_FAMILY_DROPPED, kColumnFamilyDropped);
static_assert(PINROCKS_CODE_OUT_OF_MEMORY >= static_cast<int>(rocksdb::Status::Code::kMaxCode),
              "pinrocks' own codes must not collide with RocksDB's");
#undef PINROCKS_SAME_CODE
#include "rocksdb/slice.h"
#include "rocksdb/status.h"

namespace {

using pinrocks::guarded;
using pinrocks::report;

size_t copy_name(const std::string& name, char* buf, size_t buflen) noexcept {
  std::memcpy(buf, name.data(), std::min(name.size(), buflen));
  return name.size();
}

}  // namespace

extern "C" {

unsigned char pinrocks_get_pinned(rocksdb_t* db, const rocksdb_readoptions_t* options,
                                  rocksdb_column_family_handle_t* column_family,
                                  const char* key, size_t keylen, pinrocks_value_fn fn,
                                  void* ctx, int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  unsigned char found = 0;
  guarded(status_code, errptr, [&] {
    rocksdb::DB* rep = pinrocks::db_of(db);
    rocksdb::PinnableSlice value;
    rocksdb::Status s = rep->Get(pinrocks::read_options_of(options),
                                 pinrocks::column_family_of(db, column_family),
                                 rocksdb::Slice(key, keylen), &value);
    found = pinrocks::deliver(s, value, fn, ctx, status_code, errptr);
  });  // `value` releases its pin as this frame returns.
  return found;
}

void pinrocks_db_close(rocksdb_t* db, int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  guarded(status_code, errptr, [&] { report(errptr, status_code, pinrocks::db_of(db)->Close()); });
}

void pinrocks_multi_get_pinned(rocksdb_t* db, const rocksdb_readoptions_t* options,
                               rocksdb_column_family_handle_t* column_family, size_t num_keys,
                               const pinrocks_slice* keys, pinrocks_multi_value_fn fn,
                               void* ctx, int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  guarded(status_code, errptr, [&] {
    // On this frame for up to 32 keys (no allocation of ours); beyond, sized by the
    // caller's key count on the heap, where std::bad_alloc is reported as an error.
    pinrocks::PinnedBatch batch(num_keys, keys);
    pinrocks::db_of(db)->MultiGet(pinrocks::read_options_of(options),
                                  pinrocks::column_family_of(db, column_family), num_keys,
                                  batch.keys(), batch.values(), batch.statuses(),
                                  /*sorted_input=*/false);
    batch.Deliver(fn, ctx, status_code, errptr);
  });
}

void pinrocks_compact_range(rocksdb_t* db, rocksdb_column_family_handle_t* column_family,
                            const char* start, size_t startlen, const char* limit,
                            size_t limitlen, int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  guarded(status_code, errptr, [&] {
    rocksdb::Slice start_slice(start, startlen);
    rocksdb::Slice limit_slice(limit, limitlen);
    rocksdb::CompactRangeOptions options;
    report(errptr, status_code,
           pinrocks::db_of(db)->CompactRange(
               options, pinrocks::column_family_of(db, column_family),
               start == nullptr ? nullptr : &start_slice,
               limit == nullptr ? nullptr : &limit_slice));
  });
}

}  // extern "C"

namespace {

// Runs one WriteBatch operation on `column_family` (NULL: the default family, which
// WriteBatch takes as nullptr too) and reports its Status.
template <typename Op>
void batch_op(rocksdb_writebatch_t* batch, rocksdb_column_family_handle_t* column_family,
              int* status_code, char** errptr, Op op) {
  guarded(status_code, errptr, [&] {
    rocksdb::ColumnFamilyHandle* cf =
        column_family == nullptr ? nullptr : pinrocks::handle_of(column_family);
    report(errptr, status_code, op(pinrocks::batch_of(batch), cf));
  });
}

}  // namespace

extern "C" {

void pinrocks_writebatch_put(rocksdb_writebatch_t* batch,
                             rocksdb_column_family_handle_t* column_family, const char* key,
                             size_t keylen, const char* value, size_t valuelen,
                             int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  batch_op(batch, column_family, status_code, errptr,
           [&](rocksdb::WriteBatch& b, rocksdb::ColumnFamilyHandle* cf) {
             return b.Put(cf, rocksdb::Slice(key, keylen), rocksdb::Slice(value, valuelen));
           });
}

void pinrocks_writebatch_merge(rocksdb_writebatch_t* batch,
                               rocksdb_column_family_handle_t* column_family, const char* key,
                               size_t keylen, const char* value, size_t valuelen,
                               int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  batch_op(batch, column_family, status_code, errptr,
           [&](rocksdb::WriteBatch& b, rocksdb::ColumnFamilyHandle* cf) {
             return b.Merge(cf, rocksdb::Slice(key, keylen), rocksdb::Slice(value, valuelen));
           });
}

void pinrocks_writebatch_delete(rocksdb_writebatch_t* batch,
                                rocksdb_column_family_handle_t* column_family,
                                const char* key, size_t keylen, int* status_code,
                                char** errptr) PINROCKS_NOEXCEPT {
  batch_op(batch, column_family, status_code, errptr,
           [&](rocksdb::WriteBatch& b, rocksdb::ColumnFamilyHandle* cf) {
             return b.Delete(cf, rocksdb::Slice(key, keylen));
           });
}

void pinrocks_writebatch_delete_range(rocksdb_writebatch_t* batch,
                                      rocksdb_column_family_handle_t* column_family,
                                      const char* start, size_t startlen, const char* end,
                                      size_t endlen, int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  batch_op(batch, column_family, status_code, errptr,
           [&](rocksdb::WriteBatch& b, rocksdb::ColumnFamilyHandle* cf) {
             return b.DeleteRange(cf, rocksdb::Slice(start, startlen),
                                  rocksdb::Slice(end, endlen));
           });
}

namespace {

// Hands each record to the Rust callback; a non-zero answer stops the iteration.
class RecordHandler : public rocksdb::WriteBatch::Handler {
 public:
  RecordHandler(pinrocks_record_fn fn, void* ctx) : fn_(fn), ctx_(ctx) {}

  rocksdb::Status PutCF(uint32_t cf, const rocksdb::Slice& key,
                        const rocksdb::Slice& value) override {
    return Emit(PINROCKS_RECORD_PUT, cf, key, value);
  }
  rocksdb::Status TimedPutCF(uint32_t cf, const rocksdb::Slice& key, const rocksdb::Slice& value,
                             uint64_t /*write_time*/) override {
    return Emit(PINROCKS_RECORD_PUT, cf, key, value);
  }
  rocksdb::Status PutEntityCF(uint32_t cf, const rocksdb::Slice& key,
                              const rocksdb::Slice& entity) override {
    return Emit(PINROCKS_RECORD_PUT_ENTITY, cf, key, entity);
  }
  rocksdb::Status DeleteCF(uint32_t cf, const rocksdb::Slice& key) override {
    return Emit(PINROCKS_RECORD_DELETE, cf, key, rocksdb::Slice());
  }
  rocksdb::Status SingleDeleteCF(uint32_t cf, const rocksdb::Slice& key) override {
    return Emit(PINROCKS_RECORD_SINGLE_DELETE, cf, key, rocksdb::Slice());
  }
  rocksdb::Status DeleteRangeCF(uint32_t cf, const rocksdb::Slice& begin,
                                const rocksdb::Slice& end) override {
    return Emit(PINROCKS_RECORD_DELETE_RANGE, cf, begin, end);
  }
  rocksdb::Status MergeCF(uint32_t cf, const rocksdb::Slice& key,
                          const rocksdb::Slice& value) override {
    return Emit(PINROCKS_RECORD_MERGE, cf, key, value);
  }
  void LogData(const rocksdb::Slice& blob) override {
    Emit(PINROCKS_RECORD_LOG_DATA, 0, blob, rocksdb::Slice()).PermitUncheckedError();
  }
  // Transaction markers: nothing for the callback; the defaults would fail the iteration.
  rocksdb::Status MarkBeginPrepare(bool) override { return rocksdb::Status::OK(); }
  rocksdb::Status MarkEndPrepare(const rocksdb::Slice&) override { return rocksdb::Status::OK(); }
  rocksdb::Status MarkNoop(bool) override { return rocksdb::Status::OK(); }
  rocksdb::Status MarkRollback(const rocksdb::Slice&) override { return rocksdb::Status::OK(); }
  rocksdb::Status MarkCommit(const rocksdb::Slice&) override { return rocksdb::Status::OK(); }
  rocksdb::Status MarkCommitWithTimestamp(const rocksdb::Slice&,
                                          const rocksdb::Slice&) override {
    return rocksdb::Status::OK();
  }
  bool Continue() override { return !stopped_; }

 private:
  rocksdb::Status Emit(int kind, uint32_t cf, const rocksdb::Slice& key,
                       const rocksdb::Slice& value) {
    if (fn_(ctx_, kind, cf, key.data(), key.size(), value.data(), value.size()) != 0) {
      stopped_ = true;
    }
    return rocksdb::Status::OK();
  }

  pinrocks_record_fn fn_;
  void* ctx_;
  bool stopped_ = false;
};

}  // namespace

void pinrocks_writebatch_iterate(const rocksdb_writebatch_t* batch, pinrocks_record_fn fn,
                                 void* ctx, int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  guarded(status_code, errptr, [&] {
    RecordHandler handler(fn, ctx);
    report(errptr, status_code, pinrocks::batch_of(batch).Iterate(&handler));
  });
}

unsigned char pinrocks_backup_engine_restore(rocksdb_backup_engine_t* backup_engine,
                                             const char* db_dir, unsigned char latest,
                                             unsigned int backup_id, int* status_code,
                                             char** errptr) PINROCKS_NOEXCEPT {
  unsigned char locked_out = 0;
  guarded(status_code, errptr, [&] {
    rocksdb::Env* env = rocksdb::Env::Default();
    std::string dir(db_dir);
    rocksdb::Status s = env->CreateDirIfMissing(dir);
    if (!s.ok()) {
      report(errptr, status_code, s);
      return;
    }
    // The lock every DB::Open takes (db/db_impl/db_impl_open.cc): refused while a database
    // is open there, in this process (PosixEnv's set of locked files) or another (fcntl),
    // and held for the restore so that none opens meanwhile.
    rocksdb::FileLock* lock = nullptr;
    s = env->LockFile(dir + "/LOCK", &lock);
    if (!s.ok()) {
      locked_out = 1;
      report(errptr, status_code, s);
      return;
    }
    rocksdb::BackupEngine* engine = pinrocks::backup_engine_of(backup_engine);
    rocksdb::RestoreOptions options;
    rocksdb::Status restored = latest != 0
                                   ? engine->RestoreDBFromLatestBackup(options, dir, dir)
                                   : engine->RestoreDBFromBackup(options, backup_id, dir, dir);
    env->UnlockFile(lock).PermitUncheckedError();
    report(errptr, status_code, restored);
  });
  return locked_out;
}

void pinrocks_backup_engine_create(rocksdb_backup_engine_t* backup_engine, rocksdb_t* db,
                                   unsigned char flush, pinrocks_progress_fn fn, void* ctx,
                                   unsigned int* backup_id, int* status_code,
                                   char** errptr) PINROCKS_NOEXCEPT {
  guarded(status_code, errptr, [&] {
    rocksdb::BackupEngine* engine = pinrocks::backup_engine_of(backup_engine);
    rocksdb::CreateBackupOptions options;
    options.flush_before_backup = flush != 0;
    if (fn != nullptr) {
      options.progress_callback = [fn, ctx, engine] {
        if (fn(ctx) != 0) {
          engine->StopBackup();
        }
      };
    }
    rocksdb::BackupID id = 0;
    report(errptr, status_code, engine->CreateNewBackup(options, pinrocks::db_of(db), &id));
    *backup_id = id;
  });
}

void pinrocks_backup_engine_verify(rocksdb_backup_engine_t* backup_engine, unsigned int backup_id,
                                   unsigned char verify_checksums, int* status_code,
                                   char** errptr) PINROCKS_NOEXCEPT {
  guarded(status_code, errptr, [&] {
    report(errptr, status_code,
           pinrocks::backup_engine_of(backup_engine)
               ->VerifyBackup(static_cast<rocksdb::BackupID>(backup_id), verify_checksums != 0));
  });
}

unsigned char pinrocks_readoptions_fill_cache(const rocksdb_readoptions_t* options) PINROCKS_NOEXCEPT {
  return pinrocks::read_options_of(options).fill_cache;
}

unsigned char pinrocks_readoptions_verify_checksums(
    const rocksdb_readoptions_t* options) PINROCKS_NOEXCEPT {
  return pinrocks::read_options_of(options).verify_checksums;
}

size_t pinrocks_column_family_name(rocksdb_column_family_handle_t* column_family, char* buf,
                                   size_t buflen) PINROCKS_NOEXCEPT {
  return copy_name(pinrocks::handle_of(column_family)->GetName(), buf, buflen);
}

size_t pinrocks_db_name(rocksdb_t* db, char* buf, size_t buflen) PINROCKS_NOEXCEPT {
  return copy_name(pinrocks::db_of(db)->GetName(), buf, buflen);
}

void pinrocks_db_write_op(rocksdb_t* db, const rocksdb_writeoptions_t* options,
                          rocksdb_column_family_handle_t* column_family, int op, const char* key,
                          size_t keylen, const char* value, size_t valuelen, int* status_code,
                          char** errptr) PINROCKS_NOEXCEPT {
  guarded(status_code, errptr, [&] {
    rocksdb::DB* d = pinrocks::db_of(db);
    const rocksdb::WriteOptions& o = pinrocks::write_options_of(options);
    rocksdb::ColumnFamilyHandle* cf = pinrocks::handle_of(column_family);
    rocksdb::Slice k(key, keylen), v(value, valuelen);
    rocksdb::Status s;
    switch (op) {
      case PINROCKS_RECORD_PUT:
        s = d->Put(o, cf, k, v);
        break;
      case PINROCKS_RECORD_DELETE:
        s = d->Delete(o, cf, k);
        break;
      case PINROCKS_RECORD_MERGE:
        s = d->Merge(o, cf, k, v);
        break;
      case PINROCKS_RECORD_DELETE_RANGE:
        s = d->DeleteRange(o, cf, k, v);
        break;
      default:
        s = rocksdb::Status::InvalidArgument("pinrocks_db_write_op: unknown op");
    }
    report(errptr, status_code, s);
  });
}

void pinrocks_db_write(rocksdb_t* db, const rocksdb_writeoptions_t* options,
                       rocksdb_writebatch_t* batch, int* status_code,
                       char** errptr) PINROCKS_NOEXCEPT {
  guarded(status_code, errptr, [&] {
    report(errptr, status_code,
           pinrocks::db_of(db)->Write(pinrocks::write_options_of(options),
                                      &pinrocks::batch_of(batch)));
  });
}

unsigned int pinrocks_writebatch_count(rocksdb_writebatch_t* batch) PINROCKS_NOEXCEPT {
  return pinrocks::batch_of(batch).Count();
}

unsigned char pinrocks_writebatch_has_2pc_markers(const rocksdb_writebatch_t* batch)
    PINROCKS_NOEXCEPT {
  try {
    const rocksdb::WriteBatch& b = pinrocks::batch_of(batch);
    return b.HasBeginPrepare() || b.HasEndPrepare() || b.HasCommit() || b.HasRollback() ? 1 : 0;
  } catch (...) {
    return 1;  // cannot tell: treated as a batch the log iterator cannot follow
  }
}

}  // extern "C"

// How every pinrocks entry point reports failure: a rocksdb::Status code (or a
// PINROCKS_CODE_*) and a malloc'd message, and never a C++ exception (see pinrocks.h); the
// static_asserts tying pinrocks.h's status codes to rocksdb::Status::Code; and the helpers the
// entry points share (`guarded`, `guarded_read`, `code_of`, `report`, `deliver`, `record_op`,
// and `in_write_queue` / `in_manifest_queue` / `ending_on_throw` for the calls whose exception
// ends the process).
#ifndef PINROCKS_GUARDED_H
#define PINROCKS_GUARDED_H

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

#include "layout.h"
#include "pinrocks.h"
#include "rocksdb/env.h"
#include "rocksdb/iterator.h"
#include "rocksdb/slice.h"
#include "rocksdb/status.h"
#include "rocksdb/utilities/transaction.h"
#include "rocksdb/wide_columns.h"

// The codes save_status reports are rocksdb::Status::Code's values, which pinrocks.h names:
// each name is tied to RocksDB's enum here, so a RocksDB that renumbers them does not build.
#define PINROCKS_SAME_CODE(ours, theirs)                                 \
  static_assert(ours == static_cast<int>(rocksdb::Status::Code::theirs), \
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

// Reports the exception being handled, as `guarded` does; called only in a catch block, by
// an entry point that returns its status code: returns it.
[[gnu::cold, gnu::noinline]] inline int caught(char** errptr) noexcept {
  int code = PINROCKS_CODE_EXCEPTION;
  try {
    throw;
  } catch (const std::bad_alloc& e) {
    save_error(errptr, &code, PINROCKS_CODE_OUT_OF_MEMORY, e.what());
  } catch (const std::exception& e) {
    save_error(errptr, &code, PINROCKS_CODE_EXCEPTION, e.what());
  } catch (...) {
    save_error(errptr, &code, PINROCKS_CODE_EXCEPTION, "unknown C++ exception");
  }
  return code;
}

// Runs `body` and reports whatever it throws as an error instead of letting it unwind into
// Rust (which cannot catch a foreign exception and aborts).
template <typename Body>
void guarded(int* status_code, char** errptr, Body&& body) noexcept {
  try {
    body();
  } catch (...) {
    *status_code = caught(errptr);
  }
}

// Ends the process for the exception being handled, which came out of RocksDB's `call` and
// left it in a state no error could be returned from (`why`): named on stderr, then abort (as
// Rust ends a process whose allocation fails).
[[noreturn, gnu::cold, gnu::noinline]] inline void end_after_throw(const char* call,
                                                                   const char* why) noexcept {
  const char* what = "unknown C++ exception";
  try {
    throw;
  } catch (const std::exception& e) {
    what = e.what();
  } catch (...) {
  }
  std::fprintf(stderr, "pinrocks: %s threw inside RocksDB (%s): %s, so the process ends\n", call,
               what, why);
  std::abort();
}

// `call()`, returning what it returns; what it throws ends the process (above) with `why`. Only
// that call: pinrocks' own work before it (copies, handles made) stays reported as an error by
// the entry point's `guarded`.
template <typename Call>
auto ending_on_throw(const char* name, const char* why, Call&& call) noexcept -> decltype(call()) {
  try {
    return call();
  } catch (...) {
    end_after_throw(name, why);
  }
}

// `call()`, a RocksDB call that may enter its write queue: a write or a commit joins a write
// group (db_impl_write.cc, JoinBatchGroup to ExitAsBatchGroupLeader); a flush, a family made or
// dropped, an ingestion, SetDBOptions or a resume enters it alone (EnterUnbatched to
// ExitUnbatched). The queue links a `WriteThread::Writer` on the call's stack and unlinks it by
// a plain call, which an exception skips: reported as an error, it would leave later writes
// waiting on a writer gone with its stack, or reading it. So what it throws ends the process.
template <typename Call>
auto in_write_queue(const char* name, Call&& call) noexcept -> decltype(call()) {
  return ending_on_throw(name, "its write queue may keep a writer that is gone",
                         std::forward<Call>(call));
}

// `call()`, a RocksDB call that joins the manifest's writer queue (VersionSet::LogAndApply links
// a writer on the call's stack and lets go of the database mutex by hand while it writes) or
// lets go of that mutex by hand inside a lock guard: what it throws ends the process.
template <typename Call>
auto in_manifest_queue(const char* name, Call&& call) noexcept -> decltype(call()) {
  return ending_on_throw(
      name, "RocksDB's manifest queue may keep a writer that is gone, or its mutex be let go twice",
      std::forward<Call>(call));
}

// Called in the handler of an exception RocksDB threw out of a read of `db` (NULL: none) on
// this thread: puts back in each column family's thread-local slot the SuperVersion the read
// took and the exception kept from going back, so the thread's next read does not read
// through the slot's in-use marker; and ends the process if the read left a lock RocksDB takes
// by hand held on this thread, which no later user could take (thrown_reads.cc). Never throws.
void after_read_threw(rocksdb_t* db) noexcept;
// The same after an iterator's move threw (not a tailing iterator's: guarded_calls.cc ends the
// process for those): the locks whose holder can be read only, as a move builds no tombstone
// cache and makes no vector memtable copy.
void after_move_threw(rocksdb_t* db) noexcept;
// The same after a write into `txn` threw: a pessimistic transaction's write at a snapshot
// reads the key's latest sequence number first (TransactionUtil::CheckKeyForConflicts, which
// returns its SuperVersion by a plain call); any other write reads nothing, and is checked as
// a move is.
void after_read_threw(rocksdb::Transaction* txn) noexcept;

// `guarded` for an entry point that reads `db` (NULL: none): after an exception, the error is
// reported and what the read left of RocksDB's state mended (`after_read_threw`).
template <typename Body>
void guarded_read(rocksdb_t* db, int* status_code, char** errptr, Body&& body) noexcept {
  try {
    body();
  } catch (...) {
    *status_code = caught(errptr);
    after_read_threw(db);
  }
}

// The shape of every setter that hands Rust's `state` to a new C++ object whose destructor
// frees it (a merge operator, a filter factory, a logger, a listener): `make` builds that
// object, `install` puts it in the options, both guarded. If `make` fails, nothing owns
// `state` yet, so it is freed here; once made, the object frees it, whatever `install` does.
template <typename Make, typename Install>
void guarded_hand_over(int* status_code, char** errptr, void* state, pinrocks_destroy_fn destroy,
                       Make&& make, Install&& install) noexcept {
  bool owned = false;
  guarded(status_code, errptr, [&] {
    auto made = make();
    owned = true;
    install(std::move(made));
  });
  if (!owned) {
    destroy(state);
  }
}

// The columns of a PINROCKS_RECORD_PUT_COLUMNS write (`packed`: the bytes of a pinrocks_column
// array) as RocksDB's WideColumns: one allocation of views, no column copied.
inline rocksdb::WideColumns columns_of(const rocksdb::Slice& packed) {
  const auto* columns = reinterpret_cast<const pinrocks_column*>(packed.data());
  const size_t count = packed.size() / sizeof(pinrocks_column);
  rocksdb::WideColumns result;
  result.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    result.emplace_back(rocksdb::Slice(columns[i].name.data, columns[i].name.len),
                        rocksdb::Slice(columns[i].value.data, columns[i].value.len));
  }
  return result;
}

// The message part of the status an iterator reports when RocksDB threw while it was made
// or moved; src/read/cursor.rs recognizes it (keep the two in step).
inline constexpr const char* kIteratorException = "pinrocks: C++ exception in an iterator";

// An iterator creation that threw gives, instead of NULL, an iterator that reads as empty
// and reports the exception from its status (as one whose seek threw does): a cursor has one
// place for its errors. NULL, with the error, only if even that could not be allocated.
template <typename Create>
rocksdb_iterator_t* guarded_iterator(rocksdb_t* db, int* status_code, char** errptr,
                                     Create&& create) noexcept {
  rocksdb_iterator_t* result = nullptr;
  guarded_read(db, status_code, errptr, [&] { result = create(); });
  if (*status_code == 0) {
    return result;
  }
  const int caught = *status_code;
  int second = 0;
  guarded(&second, errptr, [&] {
    const char* what = *errptr != nullptr ? *errptr : "";
    rocksdb::Status s = caught == PINROCKS_CODE_OUT_OF_MEMORY
                            ? rocksdb::Status::MemoryLimit(kIteratorException, what)
                            : rocksdb::Status::Aborted(kIteratorException, what);
    auto wrapper = std::make_unique<rocksdb_iterator_t>();
    pinrocks::iterator_of(wrapper.get()) = rocksdb::NewErrorIterator(s);
    result = wrapper.release();  // freed by rocksdb_iter_destroy
  });
  *status_code = second;
  if (second == 0) {
    std::free(*errptr);
    *errptr = nullptr;
  }
  return result;
}

// Put, Delete or Merge (`op`: a PINROCKS_RECORD_*) on `target`, anything with RocksDB's
// `Put(cf, key, value)`, `Delete(cf, key)` and `Merge(cf, key, value)`: a Transaction, a
// WriteBatchWithIndex. `value` is unused for a delete.
// Inlined into each caller, so that its status is made in place there.
template <typename Target, typename Family>
__attribute__((always_inline)) inline rocksdb::Status record_op(Target& target, int op, Family* cf,
                                                                const rocksdb::Slice& key,
                                                                const rocksdb::Slice& value) {
  // The default family (id 0) as no handle, RocksDB's own default, for the writes that take
  // none: an indexed batch (a transaction's too) then skips the family's comparator lookup
  // and setting per write (measured: ~130 instructions a put). The same family and the same
  // comparator: the index's default one is the default family's (`pinrocks_wbwi_create`,
  // TransactionBaseImpl). PutEntity needs its handle.
  Family* plain = cf != nullptr && cf->GetID() == 0 ? nullptr : cf;
  switch (op) {
    case PINROCKS_RECORD_PUT:
      return target.Put(plain, key, value);
    case PINROCKS_RECORD_DELETE:
      return target.Delete(plain, key);
    case PINROCKS_RECORD_MERGE:
      return target.Merge(plain, key, value);
    case PINROCKS_RECORD_PUT_COLUMNS:
      return target.PutEntity(cf, key, columns_of(value));
    case PINROCKS_RECORD_SINGLE_DELETE:
      return target.SingleDelete(plain, key);
    case PINROCKS_RECORD_LOG_DATA:
      // Transaction::PutLogData returns nothing, WriteBatchWithIndex's a Status.
      if constexpr (std::is_void_v<decltype(target.PutLogData(key))>) {
        target.PutLogData(key);
        return rocksdb::Status::OK();
      } else {
        return target.PutLogData(key);
      }
    default:
      return rocksdb::Status::InvalidArgument("pinrocks: unknown write operation");
  }
}

// Reports `s`, a failure, out of the way of a hot path's success: returns its code.
[[gnu::cold, gnu::noinline]] inline int failed(char** errptr, const rocksdb::Status& s) noexcept {
  int code = PINROCKS_CODE_OK;
  guarded(&code, errptr, [&] { save_status(errptr, &code, s); });
  return code;
}

// The shape of every entry point that returns its status code: runs `body` (which returns a
// Status) and returns its code, its message, if any, in `errptr`; whatever `body` throws is
// reported as `guarded` does, after `on_throw` (noexcept) has run.
template <typename Body, typename OnThrow>
int code_of(char** errptr, Body&& body, OnThrow&& on_throw) noexcept {
  try {
    const rocksdb::Status s = body();
    return s.ok() ? PINROCKS_CODE_OK : failed(errptr, s);
  } catch (...) {
    on_throw();
    return caught(errptr);
  }
}
template <typename Body>
int code_of(char** errptr, Body&& body) noexcept {
  return code_of(errptr, std::forward<Body>(body), [] {});
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

// Runs `body`, which may grow `env`'s thread pools (SetBackgroundThreads, a database's
// IncBackgroundThreadsIfNeeded), and if it throws (std::system_error when a thread cannot
// start) sets every pool back to the size it had, so the pool does not keep a limit it
// could not reach (every later job would try to start the missing threads again), then
// lets the exception go on to `guarded`.
template <typename Body>
void keeping_pools(rocksdb::Env* env, Body&& body) {
  constexpr rocksdb::Env::Priority pools[] = {rocksdb::Env::BOTTOM, rocksdb::Env::LOW,
                                              rocksdb::Env::HIGH, rocksdb::Env::USER};
  int before[4];
  for (int i = 0; i < 4; ++i) {
    before[i] = env->GetBackgroundThreads(pools[i]);
  }
  try {
    body();
  } catch (...) {
    for (int i = 0; i < 4; ++i) {
      try {
        // Only a pool left above its size before (this call, or a grower at the same time,
        // raised it): shrinking starts no thread, and a pool another thread shrank
        // meanwhile is left as that thread set it.
        if (env->GetBackgroundThreads(pools[i]) > before[i]) {
          env->SetBackgroundThreads(before[i], pools[i]);
        }
      } catch (...) {
      }
    }
    throw;
  }
}

// The entry a valid iterator is at, into `entry` (0, setting nothing, when not valid).
// Valid, key and value do not throw (RocksDB's iterators keep errors in status()), except an
// indexed batch's Valid, which copies a failed status and may meet bad_alloc: the noexcept
// of the functions calling this then stops the process, as rule 5 of pinrocks.h says,
// rather than unwind into Rust.
inline unsigned char land(const rocksdb::Iterator* it, pinrocks_entry* entry) {
  if (!it->Valid()) return 0;
  const rocksdb::Slice k = it->key();
  const rocksdb::Slice v = it->value();
  entry->key = pinrocks_slice{k.data(), k.size()};
  entry->value = pinrocks_slice{v.data(), v.size()};
  return 1;
}

}  // namespace pinrocks

#endif

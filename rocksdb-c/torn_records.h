// A record whose write into a batch throws (std::bad_alloc halfway through appending it, or
// while a WriteBatchWithIndex indexes it) is cut off again, as RocksDB's LocalSavePoint cuts
// one it refuses. Otherwise the batch keeps a torn record, its count raised and its bytes
// partial, and writing it stops the database: the WAL takes the batch, the memtable insert
// fails ("bad WriteBatch Put"), and every later write is refused until a reopen. An indexed
// batch (a transaction's too) has its index rebuilt from what is left: the throw may come
// after the index took the record (WriteBatchWithIndex::Rep::AddNewEntry's last step).
#ifndef PINROCKS_TORN_RECORDS_H
#define PINROCKS_TORN_RECORDS_H

#include <cstdint>
#include <type_traits>
#include <utility>

#include "db/write_batch_internal.h"
#include "guarded.h"
#include "pinrocks.h"
#include "rocksdb/slice.h"
#include "rocksdb/status.h"
#include "rocksdb/utilities/write_batch_with_index.h"
#include "rocksdb/write_batch.h"
#include "row_locks.h"
#include "util/coding.h"

namespace pinrocks {

// Where a batch stands: its size and its count (the header's last 4 bytes, after the 8 of
// the sequence number: WriteBatchInternal::Count, read inline).
class BatchMark {
 public:
  explicit BatchMark(const rocksdb::WriteBatch& b) noexcept
      : size_(b.GetDataSize()), count_(rocksdb::DecodeFixed32(b.Data().data() + kCountAt)) {}

  // Whether the count is at pinrocks' most, INT32_MAX. RocksDB adds one to a 32-bit count
  // without a check: at UINT32_MAX it wraps to 0, and the batch would be written with
  // sequence numbers that overlap the next write's; and past INT32_MAX its Append (a
  // two-phase commit's batch, a write group's) reads the count as a negative int and copies
  // no per-key protection, failing the write and stopping the database.
  bool full() const noexcept { return count_ >= INT32_MAX; }

  // Cuts `b` back to the mark. Never allocates: the bytes kept are a prefix of its own, so
  // the assignment shrinks in place. Its content flags are recomputed when next asked for.
  // A batch only grows while a record is written into it (no transaction kind pinrocks
  // opens writes its batch out early), so the mark is within it.
  void restore(rocksdb::WriteBatch& b) const noexcept {
    const rocksdb::Slice whole = rocksdb::WriteBatchInternal::Contents(&b);
    if (size_ > whole.size()) {
      return;
    }
    rocksdb::WriteBatchInternal::SetContents(&b, rocksdb::Slice(whole.data(), size_))
        .PermitUncheckedError();
    rocksdb::WriteBatchInternal::SetCount(&b, count_);
    // Protection info (per record: asked for through the write options' raw handle, or added
    // by a DB::Write with them) may hold the cut record's entry: it is rebuilt from the bytes
    // left, or dropped if that cannot be allocated (a DB::Write adds it back).
    const size_t protection = b.GetProtectionBytesPerKey();
    if (protection != 0) {
      rocksdb::WriteBatchInternal::UpdateProtectionInfo(&b, 0).PermitUncheckedError();
      try {
        rocksdb::WriteBatchInternal::UpdateProtectionInfo(&b, protection).PermitUncheckedError();
      } catch (...) {
        rocksdb::WriteBatchInternal::UpdateProtectionInfo(&b, 0).PermitUncheckedError();
      }
    }
  }

 private:
  static constexpr size_t kCountAt = 8;
  static_assert(rocksdb::WriteBatchInternal::kHeader == kCountAt + 4,
                "a WriteBatch header is the sequence (8 bytes), then the count (4)");
  size_t size_;
  uint32_t count_;
};

// Rebuilds `index` from its batch (a rollback to a savepoint set where it stands). If that
// throws in turn, the index may miss entries, but none points past the batch's end.
inline void reindex(rocksdb::WriteBatchWithIndex& index) noexcept {
  try {
    index.SetSavePoint();
    index.RollbackToSavePoint().PermitUncheckedError();
  } catch (...) {
  }
}

// The refusal of a record into a batch whose count is full.
[[gnu::cold, gnu::noinline]] inline int refuse_full_batch(char** errptr) noexcept {
  int code = PINROCKS_CODE_OK;
  save_error(errptr, &code, PINROCKS_CODE_INVALID_ARGUMENT,
             "Invalid argument: a write batch holds at most 2147483647 records (RocksDB counts "
             "them in 32 bits, and reads the count as a signed int where it appends a batch)");
  return code;
}

// One record into `b` by `write` (which returns its Status), its status code returned and
// its message, if any, in `errptr`; if `write` throws, `b` is cut back to where it stood and
// `after_cut` runs (noexcept). Refused, `b` untouched, if its count is full.
template <typename Write, typename AfterCut>
int record_into(rocksdb::WriteBatch& b, char** errptr, Write&& write,
                AfterCut&& after_cut) noexcept {
  const BatchMark mark(b);
  if (mark.full()) [[unlikely]] {
    return refuse_full_batch(errptr);
  }
  return code_of(errptr, std::forward<Write>(write), [&] {
    mark.restore(b);
    after_cut();
  });
}

// The same into a plain batch.
template <typename Write>
int record_into(rocksdb::WriteBatch& b, char** errptr, Write&& write) noexcept {
  return record_into(b, errptr, std::forward<Write>(write), [] {});
}

// The same into an indexed batch (a transaction's: Transaction::GetWriteBatch), whose index
// is rebuilt if `write` throws.
template <typename Write>
int record_into(rocksdb::WriteBatchWithIndex& index, char** errptr, Write&& write) noexcept {
  return record_into(*index.GetWriteBatch(), errptr, std::forward<Write>(write),
                     [&index] { reindex(index); });
}

// The same into a transaction's indexed batch, for a write of `key` of `cf` (NULL: the default
// family; `key` NULL: a write that locks no row, PutLogData's); after a throw, what the write's
// read took of RocksDB's per-thread state is given back too (a pessimistic write at a snapshot,
// once it has locked the key, reads its latest sequence number), and the row lock mended
// (row_locks.h: `after_lock_threw`).
template <typename Write>
int record_into(rocksdb::Transaction& txn, rocksdb::WriteBatchWithIndex& index,
                rocksdb::ColumnFamilyHandle* cf, const rocksdb::Slice* key, char** errptr,
                Write&& write) noexcept {
  return record_into(*index.GetWriteBatch(), errptr, std::forward<Write>(write), [&] {
    reindex(index);
    if (key != nullptr) {
      after_lock_threw(&txn, cf, *key);
    }
    after_read_threw(&txn);
  });
}

// A record of `key` of `cf` into `target` (a WriteBatchWithIndex, a Transaction), indexed by
// `index`, by the `record_into` above that fits it.
template <typename Target, typename Write>
int record_into_target(Target& target, rocksdb::WriteBatchWithIndex& index,
                       rocksdb::ColumnFamilyHandle* cf, const rocksdb::Slice& key, char** errptr,
                       Write&& write) noexcept {
  if constexpr (std::is_base_of_v<rocksdb::Transaction, Target>) {
    return record_into(target, index, cf, &key, errptr, std::forward<Write>(write));
  } else {
    return record_into(index, errptr, std::forward<Write>(write));
  }
}

// A put without a timestamp on `target` (a WriteBatchWithIndex, a Transaction), whose records
// are indexed by `index`: to the default family through RocksDB's overload without a handle,
// or to `cf`. The common write, with the fewest arguments, as `record_into` reports it.
template <typename Target>
int put_into(Target& target, rocksdb::WriteBatchWithIndex& index, const rocksdb::Slice& key,
             const rocksdb::Slice& value, char** errptr) noexcept {
  return record_into_target(target, index, nullptr, key, errptr,
                            [&] { return target.Put(key, value); });
}
template <typename Target>
int put_into(Target& target, rocksdb::WriteBatchWithIndex& index,
             rocksdb_column_family_handle_t* cf, const rocksdb::Slice& key,
             const rocksdb::Slice& value, char** errptr) noexcept {
  return record_into_target(target, index, handle_of(cf), key, errptr, [&] {
    return record_op(target, PINROCKS_RECORD_PUT, handle_of(cf), key, value);
  });
}

}  // namespace pinrocks

#endif  // PINROCKS_TORN_RECORDS_H

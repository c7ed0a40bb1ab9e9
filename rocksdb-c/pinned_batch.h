// A batch of pinned reads (a multi-get) held on the caller's frame: the keys, values and
// statuses of up to 32 keys need no allocation of ours. The value multi-get's (reads.cc).
#ifndef PINROCKS_PINNED_BATCH_H
#define PINROCKS_PINNED_BATCH_H

#include <cstddef>
#include <memory>
#include <new>

#include "guarded.h"
#include "pinrocks.h"
#include "rocksdb/comparator.h"
#include "rocksdb/db.h"
#include "rocksdb/options.h"
#include "rocksdb/slice.h"
#include "rocksdb/status.h"

namespace pinrocks {

// `n` default-constructed T on this frame when n <= N (RocksDB's own MultiGet batch,
// MultiGetContext::MAX_BATCH_SIZE, is 32), on the heap otherwise. Destroys them on every
// way out, exceptions included.
template <typename T, size_t N>
class InlineArray {
 public:
  explicit InlineArray(size_t n) : n_(n) {
    if (n > N) {
      heap_.reset(new T[n]);  // may throw std::bad_alloc: reported by `guarded`
      data_ = heap_.get();
    } else {
      data_ = reinterpret_cast<T*>(inline_);
      for (size_t i = 0; i < n; i++) {
        new (&data_[i]) T();  // throws for none of Slice, PinnableSlice, Status,
                              // PinnableWideColumns (empty containers) or unique_ptr
      }
    }
  }
  ~InlineArray() {
    if (!heap_) {
      for (size_t i = 0; i < n_; i++) {
        data_[i].~T();
      }
    }
  }
  InlineArray(const InlineArray&) = delete;
  InlineArray& operator=(const InlineArray&) = delete;
  T* data() { return data_; }
  T& operator[](size_t i) { return data_[i]; }

 private:
  size_t n_;
  T* data_;
  std::unique_ptr<T[]> heap_;
  alignas(T) unsigned char inline_[N * sizeof(T)];
};

constexpr size_t kInlineKeys = 32;

// The keys given, and a value and a status per key, for one MultiGet call.
class PinnedBatch {
 public:
  // May throw std::bad_alloc beyond 32 keys (reported by `guarded`).
  PinnedBatch(size_t n, const pinrocks_slice* keys) : n_(n), keys_(n), values_(n), statuses_(n) {
    for (size_t i = 0; i < n; i++) {
      keys_[i] = rocksdb::Slice(keys[i].data, keys[i].len);
    }
  }
  rocksdb::Slice* keys() { return keys_.data(); }
  rocksdb::PinnableSlice* values() { return values_.data(); }
  rocksdb::Status* statuses() { return statuses_.data(); }

  // MultiGet's `sorted_input`: whether the keys are already in the column family's order, so
  // that RocksDB need not sort them (measured: a sort of 1,024 keys is about 7% of the batch's
  // time from the block cache). Checked here only for RocksDB's own bytewise comparator (a
  // memcmp per key); under any other (a user's, a timestamp-aware one) RocksDB sorts.
  bool SortedFor(const rocksdb::ColumnFamilyHandle* cf) {
    if (cf->GetComparator() != rocksdb::BytewiseComparator()) return false;
    const rocksdb::Slice* k = keys();
    for (size_t i = 1; i < n_; i++) {
      if (k[i - 1].compare(k[i]) > 0) return false;
    }
    return true;
  }
  // Each key through `get_one(key, value)`, stopping at the first failure (Deliver reports it;
  // the keys after it keep their default OK status and are never delivered): a read for
  // update locks no key after one it could not lock.
  template <typename GetOne>
  void EachKey(GetOne&& get_one) {
    for (size_t i = 0; i < n_; i++) {
      statuses_[i] = get_one(keys_[i], &values_[i]);
      if (!statuses_[i].ok() && !statuses_[i].IsNotFound()) {
        return;
      }
    }
  }

  // After the MultiGet: the first per-key error is the call's (nothing is called back);
  // otherwise fn for each key in order while every value is pinned, until it asks to stop.
  void Deliver(pinrocks_multi_value_fn fn, void* ctx, int* status_code, char** errptr) {
    for (size_t i = 0; i < n_; i++) {
      if (!statuses_[i].ok() && !statuses_[i].IsNotFound()) {
        save_status(errptr, status_code, statuses_[i]);
        return;
      }
    }
    for (size_t i = 0; i < n_; i++) {
      bool found = statuses_[i].ok();
      if (fn(ctx, i, found, found ? values_[i].data() : nullptr, found ? values_[i].size() : 0)) {
        return;
      }
    }
  }

 private:
  size_t n_;
  InlineArray<rocksdb::Slice, kInlineKeys> keys_;
  InlineArray<rocksdb::PinnableSlice, kInlineKeys> values_;
  InlineArray<rocksdb::Status, kInlineKeys> statuses_;
};

}  // namespace pinrocks

#endif

// The value reads of every source, one entry point per tier: the one-call pinned read, the
// handle, the pinned multi-get and the iterator (the entity reads are in entities.cc; what each
// source reads, in read_source.h). Each one-call read pins the value on this function's stack
// while a Rust callback reads it.
#include <memory>

#include "guarded.h"
#include "layout.h"
#include "pinned_batch.h"
#include "pinrocks.h"
#include "read_source.h"
#include "rocksdb/db.h"
#include "rocksdb/iterator.h"
#include "rocksdb/slice.h"
#include "rocksdb/status.h"

extern "C" {

unsigned char pinrocks_read_pinned(const pinrocks_read_source* source, const char* key,
                                   size_t keylen, pinrocks_value_fn fn, void* ctx, int* status_code,
                                   char** errptr) PINROCKS_NOEXCEPT {
  unsigned char found = 0;
  pinrocks::guarded_read(source->db, status_code, errptr, [&] {
    const pinrocks::Source s(source);
    rocksdb::PinnableSlice value;
    rocksdb::Status st = pinrocks::get(s, rocksdb::Slice(key, keylen), &value);
    found = pinrocks::deliver(st, value, fn, ctx, status_code, errptr);
  });  // `value` releases its pin as this frame returns.
  return found;
}

rocksdb_pinnableslice_t* pinrocks_read_handle(const pinrocks_read_source* source, const char* key,
                                              size_t keylen, int* status_code,
                                              char** errptr) PINROCKS_NOEXCEPT {
  rocksdb_pinnableslice_t* result = nullptr;
  pinrocks::guarded_read(source->db, status_code, errptr, [&] {
    const pinrocks::Source s(source);
    auto handle = std::make_unique<rocksdb_pinnableslice_t>();
    rocksdb::Status st =
        pinrocks::get(s, rocksdb::Slice(key, keylen), &pinrocks::pinnable_slice_of(handle.get()));
    if (st.ok()) {
      result = handle.release();  // freed by rocksdb_pinnableslice_destroy
    } else if (!st.IsNotFound()) {
      pinrocks::save_status(errptr, status_code, st);
    }
  });
  return result;
}

void pinrocks_read_multi(const pinrocks_read_source* source, size_t num_keys,
                         const pinrocks_slice* keys, pinrocks_multi_value_fn fn, void* ctx,
                         int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded_read(source->db, status_code, errptr, [&] {
    const pinrocks::Source s(source);
    // On this frame for up to 32 keys (no allocation of ours); beyond, sized by the
    // caller's key count on the heap, where std::bad_alloc is reported as an error.
    pinrocks::PinnedBatch batch(num_keys, keys);
    if (!pinrocks::multi_get(s, num_keys, batch.keys(), batch.values(), batch.statuses(),
                             [&] { return batch.SortedFor(s.cf); })) {
      batch.EachKey([&](const rocksdb::Slice& key, rocksdb::PinnableSlice* value) {
        return pinrocks::get(s, key, value);
      });
    }
    batch.Deliver(fn, ctx, status_code, errptr);
  });
}

rocksdb_iterator_t* pinrocks_read_iterator(const pinrocks_read_source* source, int* status_code,
                                           char** errptr) PINROCKS_NOEXCEPT {
  return pinrocks::guarded_iterator(source->db, status_code, errptr, [&] {
    const pinrocks::Source s(source);
    auto wrapper = std::make_unique<rocksdb_iterator_t>();
    pinrocks::iterator_of(wrapper.get()) = pinrocks::new_iterator(s);
    return wrapper.release();  // freed by rocksdb_iter_destroy
  });
}

unsigned char pinrocks_iter_entry(const rocksdb_iterator_t* iter,
                                  pinrocks_entry* entry) PINROCKS_NOEXCEPT {
  return pinrocks::land(pinrocks::iterator_of(iter), entry);
}

}  // extern "C"

// Point reads of a database beyond RocksDB's C API, each in one native call with the value
// pinned on this function's stack while a Rust callback reads it: DB::Get of one key and
// DB::MultiGet of a batch of keys of one column family. (The reads through a transaction are in
// transactions.cc, through an indexed batch in indexed_batch.cc, and the guarded replacements of
// the C API's own reads in guarded_calls.cc.)
#include "guarded.h"
#include "layout.h"
#include "pinned_batch.h"
#include "pinrocks.h"
#include "rocksdb/db.h"
#include "rocksdb/iterator.h"
#include "rocksdb/slice.h"
#include "rocksdb/status.h"

extern "C" {

unsigned char pinrocks_get_pinned(rocksdb_t* db, const rocksdb_readoptions_t* options,
                                  rocksdb_column_family_handle_t* column_family, const char* key,
                                  size_t keylen, pinrocks_value_fn fn, void* ctx, int* status_code,
                                  char** errptr) PINROCKS_NOEXCEPT {
  unsigned char found = 0;
  pinrocks::guarded(status_code, errptr, [&] {
    rocksdb::DB* rep = pinrocks::db_of(db);
    rocksdb::PinnableSlice value;
    rocksdb::Status s =
        rep->Get(pinrocks::read_options_of(options), pinrocks::column_family_of(db, column_family),
                 rocksdb::Slice(key, keylen), &value);
    found = pinrocks::deliver(s, value, fn, ctx, status_code, errptr);
  });  // `value` releases its pin as this frame returns.
  return found;
}

void pinrocks_multi_get_pinned(rocksdb_t* db, const rocksdb_readoptions_t* options,
                               rocksdb_column_family_handle_t* column_family, size_t num_keys,
                               const pinrocks_slice* keys, pinrocks_multi_value_fn fn, void* ctx,
                               int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    // On this frame for up to 32 keys (no allocation of ours); beyond, sized by the
    // caller's key count on the heap, where std::bad_alloc is reported as an error.
    pinrocks::PinnedBatch batch(num_keys, keys);
    const rocksdb::ReadOptions& ro = pinrocks::read_options_of(options);
    rocksdb::ColumnFamilyHandle* cf = pinrocks::column_family_of(db, column_family);
    if (pinrocks::PinnedBatch::NeedsOneByOne(ro)) {
      batch.EachKey([&](const rocksdb::Slice& key, rocksdb::PinnableSlice* value) {
        return pinrocks::db_of(db)->Get(ro, cf, key, value);
      });
    } else {
      pinrocks::db_of(db)->MultiGet(ro, cf, num_keys, batch.keys(), batch.values(),
                                    batch.statuses(), batch.SortedFor(cf));
    }
    batch.Deliver(fn, ctx, status_code, errptr);
  });
}

// Valid, key and value do not throw (RocksDB's iterators keep errors in status()), except an
// indexed batch's Valid, which copies a failed status and may meet bad_alloc: noexcept then
// stops the process, as rule 5 of pinrocks.h says, rather than unwind into Rust.
unsigned char pinrocks_iter_entry(const rocksdb_iterator_t* iter, const char** key, size_t* keylen,
                                  const char** value, size_t* valuelen) PINROCKS_NOEXCEPT {
  const rocksdb::Iterator* it = pinrocks::iterator_of(iter);
  if (!it->Valid()) return 0;
  const rocksdb::Slice k = it->key();
  const rocksdb::Slice v = it->value();
  *key = k.data();
  *keylen = k.size();
  *value = v.data();
  *valuelen = v.size();
  return 1;
}

}  // extern "C"

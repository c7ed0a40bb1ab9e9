// Write batches with an index (WriteBatchWithIndex) beyond RocksDB's C API: a batch ordered
// like the database's default column family, writes that report their Status (the C API's
// rocksdb_writebatch_wi_put & co. drop it), and every read tier over the batch alone or
// over the batch merged with the database, each in one call with the value on this frame.
//
// What RocksDB 11.8.1's WriteBatchWithIndex keeps (utilities/write_batch_with_index/): per
// column family id, a raw pointer to the family's user comparator (set by each write through
// a handle); iterators that point into its skip list and batch buffer, so a write, Clear or
// RollbackToSavePoint while one lives is a use after free (the Rust side borrows the batch
// for every iterator and read, and takes it exclusively for every change). A value found in
// the batch is always copied into the PinnableSlice (GetSelf + PinSelf); a value from the
// database pins its block as a plain read does.
#include <memory>
#include <string>

#include "batch_only.h"
#include "guarded.h"
#include "layout.h"
#include "pinned_batch.h"
#include "pinrocks.h"
#include "rocksdb/iterator.h"
#include "rocksdb/options.h"
#include "rocksdb/slice.h"
#include "rocksdb/utilities/write_batch_with_index.h"

namespace {

// GetFromBatch takes DBOptions and ignores them (WriteBatchWithIndex::GetFromBatch passes
// only the column family on); one value for every call, built once.
const rocksdb::DBOptions& unused_db_options() {
  static const rocksdb::DBOptions options;
  return options;
}

// One point read into `value`: from the batch alone, or from the batch over the database
// (an empty batch reads the database directly: GetFromBatchAndDB would first look in it
// through a heap-allocated batch iterator).
rocksdb::Status read_one(rocksdb_t* db, rocksdb::WriteBatchWithIndex* batch,
                         const rocksdb::ReadOptions& ro, rocksdb::ColumnFamilyHandle* cf,
                         const rocksdb::Slice& key, bool batch_only,
                         rocksdb::PinnableSlice* value) {
  if (batch_only) {
    rocksdb::Status s = batch->GetFromBatch(cf, unused_db_options(), key, value->GetSelf());
    if (s.IsMergeInProgress()) {
      // Only merge operands for the key in the batch (batch_only.h).
      if (auto it = pinrocks::merged_in_batch(batch, cf, key, &s)) {
        value->GetSelf()->assign(it->value().data(), it->value().size());
      }
    }
    if (s.ok()) {
      value->PinSelf();
    }
    return s;
  }
  if (batch->GetWriteBatch()->Count() == 0) {
    return pinrocks::db_of(db)->Get(ro, cf, key, value);
  }
  return batch->GetFromBatchAndDB(pinrocks::db_of(db), ro, cf, key, value);
}

}  // namespace

extern "C" {

rocksdb_writebatch_wi_t* pinrocks_wbwi_create(rocksdb_t* db, int* status_code,
                                              char** errptr) PINROCKS_NOEXCEPT {
  rocksdb_writebatch_wi_t* result = nullptr;
  pinrocks::guarded(status_code, errptr, [&] {
    // Ordered (the default family's entries, and reads without a handle) by the database's
    // default column family comparator, which the database keeps alive while it is open.
    const rocksdb::Comparator* order = pinrocks::db_of(db)->DefaultColumnFamily()->GetComparator();
    auto batch = std::make_unique<rocksdb::WriteBatchWithIndex>(order, /*reserved_bytes=*/0,
                                                                /*overwrite_key=*/true);
    auto wrapper = std::make_unique<rocksdb_writebatch_wi_t>();
    pinrocks::indexed_batch_of(wrapper.get()) = batch.release();
    result = wrapper.release();  // freed (with `rep`) by rocksdb_writebatch_wi_destroy
  });
  return result;
}

void pinrocks_wbwi_write(rocksdb_writebatch_wi_t* batch,
                         rocksdb_column_family_handle_t* column_family, int op, const char* key,
                         size_t keylen, const char* value, size_t valuelen, int* status_code,
                         char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    pinrocks::report(errptr, status_code,
                     pinrocks::record_op(
                         *pinrocks::indexed_batch_of(batch), op, pinrocks::handle_of(column_family),
                         rocksdb::Slice(key, keylen), rocksdb::Slice(value, valuelen)));
  });
}

unsigned char pinrocks_wbwi_get_pinned(rocksdb_t* db, rocksdb_writebatch_wi_t* batch,
                                       const rocksdb_readoptions_t* options,
                                       rocksdb_column_family_handle_t* column_family,
                                       const char* key, size_t keylen, unsigned char batch_only,
                                       pinrocks_value_fn fn, void* ctx, int* status_code,
                                       char** errptr) PINROCKS_NOEXCEPT {
  unsigned char found = 0;
  pinrocks::guarded(status_code, errptr, [&] {
    rocksdb::PinnableSlice value;
    rocksdb::Status s = read_one(
        db, pinrocks::indexed_batch_of(batch), pinrocks::read_options_of(options),
        pinrocks::handle_of(column_family), rocksdb::Slice(key, keylen), batch_only != 0, &value);
    found = pinrocks::deliver(s, value, fn, ctx, status_code, errptr);
  });
  return found;
}

rocksdb_pinnableslice_t* pinrocks_wbwi_get_handle(rocksdb_t* db, rocksdb_writebatch_wi_t* batch,
                                                  const rocksdb_readoptions_t* options,
                                                  rocksdb_column_family_handle_t* column_family,
                                                  const char* key, size_t keylen,
                                                  unsigned char batch_only, int* status_code,
                                                  char** errptr) PINROCKS_NOEXCEPT {
  rocksdb_pinnableslice_t* result = nullptr;
  pinrocks::guarded(status_code, errptr, [&] {
    auto handle = std::make_unique<rocksdb_pinnableslice_t>();
    rocksdb::Status s =
        read_one(db, pinrocks::indexed_batch_of(batch), pinrocks::read_options_of(options),
                 pinrocks::handle_of(column_family), rocksdb::Slice(key, keylen), batch_only != 0,
                 &pinrocks::pinnable_slice_of(handle.get()));
    if (s.ok()) {
      result = handle.release();  // freed by rocksdb_pinnableslice_destroy
    } else if (!s.IsNotFound()) {
      pinrocks::save_status(errptr, status_code, s);
    }
  });
  return result;
}

void pinrocks_wbwi_multi_get_pinned(rocksdb_t* db, rocksdb_writebatch_wi_t* batch,
                                    const rocksdb_readoptions_t* options,
                                    rocksdb_column_family_handle_t* column_family, size_t num_keys,
                                    const pinrocks_slice* keys, unsigned char batch_only,
                                    pinrocks_multi_value_fn fn, void* ctx, int* status_code,
                                    char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    pinrocks::PinnedBatch pinned(num_keys, keys);
    rocksdb::WriteBatchWithIndex* b = pinrocks::indexed_batch_of(batch);
    const rocksdb::ReadOptions& ro = pinrocks::read_options_of(options);
    rocksdb::ColumnFamilyHandle* cf = pinrocks::handle_of(column_family);
    if (batch_only) {
      for (size_t i = 0; i < num_keys; i++) {
        pinned.statuses()[i] =
            read_one(db, b, ro, cf, pinned.keys()[i], /*batch_only=*/true, &pinned.values()[i]);
      }
    } else if (pinrocks::PinnedBatch::NeedsOneByOne(ro)) {
      pinned.EachKey([&](const rocksdb::Slice& key, rocksdb::PinnableSlice* value) {
        return read_one(db, b, ro, cf, key, /*batch_only=*/false, value);
      });
    } else {
      b->MultiGetFromBatchAndDB(pinrocks::db_of(db), ro, cf, num_keys, pinned.keys(),
                                pinned.values(), pinned.statuses(), pinned.SortedFor(cf));
    }
    pinned.Deliver(fn, ctx, status_code, errptr);
  });
}

rocksdb_iterator_t* pinrocks_wbwi_iterator(rocksdb_t* db, rocksdb_writebatch_wi_t* batch,
                                           const rocksdb_readoptions_t* options,
                                           rocksdb_column_family_handle_t* column_family,
                                           unsigned char batch_only, int* status_code,
                                           char** errptr) PINROCKS_NOEXCEPT {
  return pinrocks::guarded_iterator(status_code, errptr, [&] {
    const rocksdb::ReadOptions& ro = pinrocks::read_options_of(options);
    rocksdb::ColumnFamilyHandle* cf = pinrocks::handle_of(column_family);
    std::unique_ptr<rocksdb::Iterator> base(batch_only ? rocksdb::NewEmptyIterator()
                                                       : pinrocks::db_of(db)->NewIterator(ro, cf));
    auto wrapper = std::make_unique<rocksdb_iterator_t>();
    // The merged iterator owns the base from here (BaseDeltaIterator's unique_ptr); it keeps
    // `ro`'s bound pointers and `cf`, which the Rust side keeps alive as long as it.
    pinrocks::iterator_of(wrapper.get()) =
        pinrocks::indexed_batch_of(batch)->NewIteratorWithBase(cf, base.get(), &ro);
    base.release();
    return wrapper.release();  // freed by rocksdb_iter_destroy
  });
}

void pinrocks_wbwi_savepoint(rocksdb_writebatch_wi_t* batch, int op, int* status_code,
                             char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    rocksdb::WriteBatchWithIndex* b = pinrocks::indexed_batch_of(batch);
    switch (op) {
      case PINROCKS_SAVEPOINT_SET:
        b->SetSavePoint();
        break;
      case PINROCKS_SAVEPOINT_ROLLBACK:
        pinrocks::report(errptr, status_code, b->RollbackToSavePoint());
        break;
      case PINROCKS_SAVEPOINT_POP:
        pinrocks::report(errptr, status_code, b->PopSavePoint());
        break;
      default:
        pinrocks::report(errptr, status_code,
                         rocksdb::Status::InvalidArgument("pinrocks: unknown savepoint operation"));
    }
  });
}

rocksdb_writebatch_t* pinrocks_wbwi_batch(rocksdb_writebatch_wi_t* batch) PINROCKS_NOEXCEPT {
  return pinrocks::c_batch_of(pinrocks::indexed_batch_of(batch)->GetWriteBatch());
}

}  // extern "C"

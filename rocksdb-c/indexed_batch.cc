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

#include "guarded.h"
#include "layout.h"
#include "out_of_memory.h"
#include "pinrocks.h"
#include "rocksdb/iterator.h"
#include "rocksdb/options.h"
#include "rocksdb/slice.h"
#include "rocksdb/utilities/write_batch_with_index.h"
#include "torn_records.h"

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
  rocksdb::WriteBatchWithIndex& b = *pinrocks::indexed_batch_of(batch);
  *status_code = pinrocks::record_into(b, errptr, [&] {
    return pinrocks::record_op(b, op, pinrocks::handle_of(column_family),
                               rocksdb::Slice(key, keylen), rocksdb::Slice(value, valuelen));
  });
}

int pinrocks_wbwi_put(rocksdb_writebatch_wi_t* batch, const char* key, size_t keylen,
                      const char* value, size_t valuelen, char** errptr) PINROCKS_NOEXCEPT {
  rocksdb::WriteBatchWithIndex& b = *pinrocks::indexed_batch_of(batch);
  return pinrocks::put_into(b, b, rocksdb::Slice(key, keylen), rocksdb::Slice(value, valuelen),
                            errptr);
}

int pinrocks_wbwi_put_cf(rocksdb_writebatch_wi_t* batch,
                         rocksdb_column_family_handle_t* column_family, const char* key,
                         size_t keylen, const char* value, size_t valuelen,
                         char** errptr) PINROCKS_NOEXCEPT {
  rocksdb::WriteBatchWithIndex& b = *pinrocks::indexed_batch_of(batch);
  return pinrocks::put_into(b, b, column_family, rocksdb::Slice(key, keylen),
                            rocksdb::Slice(value, valuelen), errptr);
}

void pinrocks_wbwi_savepoint(rocksdb_writebatch_wi_t* batch, int op, int* status_code,
                             char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    rocksdb::WriteBatchWithIndex* b = pinrocks::indexed_batch_of(batch);
    // A rollback cuts the batch and pops its savepoint, then rebuilds the index.
    const pinrocks::EndingOnOutOfMemory scope("an indexed batch's savepoint");
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

pinrocks_batch* pinrocks_wbwi_batch(rocksdb_writebatch_wi_t* batch) PINROCKS_NOEXCEPT {
  return pinrocks::batch_handle(pinrocks::indexed_batch_of(batch)->GetWriteBatch());
}

}  // extern "C"

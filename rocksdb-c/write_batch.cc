// Write batches (rocksdb::WriteBatch) beyond RocksDB's C API: Put, Merge, Delete and
// DeleteRange into a batch reporting the Status the C API's rocksdb_writebatch_* drop, the
// batch's records handed one by one to a Rust callback (WriteBatch::Iterate; also of a batch's
// bytes from outside, strictly), its count, and whether it holds two-phase-commit markers.
#include "rocksdb/write_batch.h"

#include <cstdint>
#include <string>

#include "db/wide/wide_column_serialization.h"
#include "db/write_batch_internal.h"
#include "guarded.h"
#include "layout.h"
#include "pinrocks.h"
#include "rocksdb/slice.h"
#include "rocksdb/status.h"
#include "torn_records.h"

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
  rocksdb::Status MarkCommitWithTimestamp(const rocksdb::Slice&, const rocksdb::Slice&) override {
    return rocksdb::Status::OK();
  }
  bool Continue() override { return !stopped_; }

 protected:
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

// Only what a pinrocks batch can hold (Put, Delete, SingleDelete, DeleteRange, Merge, log
// data, wide-column entities): bytes from outside are rebuilt from these, and anything else
// refused, so that no record a memtable would refuse (stopping the database) gets into a batch.
class StrictHandler : public RecordHandler {
 public:
  using RecordHandler::RecordHandler;

  rocksdb::Status TimedPutCF(uint32_t, const rocksdb::Slice&, const rocksdb::Slice&,
                             uint64_t) override {
    return Refuse("a timed put");
  }
  // An entity is kept if it decodes whole and refers to no blob file (a batch's own never
  // does): what a pinrocks batch's put_entity writes.
  rocksdb::Status PutEntityCF(uint32_t cf, const rocksdb::Slice& key,
                              const rocksdb::Slice& entity) override {
    rocksdb::WideColumns columns;
    rocksdb::Status s = rocksdb::WideColumnSerialization::DeserializeSimple(entity, columns);
    return s.ok() ? RecordHandler::PutEntityCF(cf, key, entity) : s;
  }
  rocksdb::Status MarkBeginPrepare(bool) override { return Refuse("a transaction marker"); }
  rocksdb::Status MarkEndPrepare(const rocksdb::Slice&) override {
    return Refuse("a transaction marker");
  }
  rocksdb::Status MarkNoop(bool) override { return Refuse("a transaction marker"); }
  rocksdb::Status MarkRollback(const rocksdb::Slice&) override {
    return Refuse("a transaction marker");
  }
  rocksdb::Status MarkCommit(const rocksdb::Slice&) override {
    return Refuse("a transaction marker");
  }
  rocksdb::Status MarkCommitWithTimestamp(const rocksdb::Slice&, const rocksdb::Slice&) override {
    return Refuse("a transaction marker");
  }

 private:
  static rocksdb::Status Refuse(const char* what) {
    return rocksdb::Status::NotSupported("pinrocks: a write batch's bytes hold", what);
  }
};

// One record without a timestamp: the batch's own records here, the rest as every target
// writes them (`record_op`). Inlined into its one caller, so that its status is made in place.
__attribute__((always_inline)) inline rocksdb::Status write_plain(rocksdb::WriteBatch& b,
                                                                  rocksdb::ColumnFamilyHandle* cf,
                                                                  int op, const rocksdb::Slice& k,
                                                                  const rocksdb::Slice& v) {
  switch (op) {
    case PINROCKS_RECORD_DELETE_RANGE:
      return b.DeleteRange(cf, k, v);
    case PINROCKS_RECORD_PUT_ENTITY: {
      // Bytes from outside (WriteBatch::from_bytes): kept only if they decode whole.
      rocksdb::WideColumns columns;
      rocksdb::Status s = rocksdb::WideColumnSerialization::DeserializeSimple(v, columns);
      if (!s.ok()) {
        return s;
      }
      return rocksdb::WriteBatchInternal::PutEntitySerialized(&b, cf == nullptr ? 0 : cf->GetID(),
                                                              k, v);
    }
    case PINROCKS_RECORD_PUT_COLUMNS:
      // WriteBatch::PutEntity needs a handle (to look up a timestamp size; pinrocks refuses
      // entities in families with timestamps, and checks a batch's records for the default
      // family when it is written); the default family is id 0 without one.
      return cf == nullptr
                 ? rocksdb::WriteBatchInternal::PutEntity(&b, 0, k, pinrocks::columns_of(v))
                 : b.PutEntity(cf, k, pinrocks::columns_of(v));
    default:
      return pinrocks::record_op(b, op, cf, k, v);
  }
}

// One record with a timestamp, for a family named by its handle: RocksDB looks its
// timestamp size up there (a NULL handle would be dereferenced).
rocksdb::Status write_at(rocksdb::WriteBatch& b, rocksdb::ColumnFamilyHandle* cf, int op,
                         const rocksdb::Slice& k, const rocksdb::Slice& v,
                         const rocksdb::Slice& t) {
  if (cf == nullptr) {
    return rocksdb::Status::InvalidArgument("a timestamped write names its column family");
  }
  switch (op) {
    case PINROCKS_RECORD_PUT:
      return b.Put(cf, k, t, v);
    case PINROCKS_RECORD_DELETE:
      return b.Delete(cf, k, t);
    case PINROCKS_RECORD_MERGE:
      return b.Merge(cf, k, t, v);
    case PINROCKS_RECORD_SINGLE_DELETE:
      return b.SingleDelete(cf, k, t);
    case PINROCKS_RECORD_DELETE_RANGE:
      return b.DeleteRange(cf, k, v, t);
    default:
      return rocksdb::Status::InvalidArgument("pinrocks_writebatch_write: no timestamped form");
  }
}

}  // namespace

extern "C" {

void pinrocks_writebatch_write(rocksdb_writebatch_t* batch,
                               rocksdb_column_family_handle_t* column_family, int op,
                               const char* key, size_t keylen, const char* value, size_t valuelen,
                               const char* ts, size_t tslen, int* status_code,
                               char** errptr) PINROCKS_NOEXCEPT {
  rocksdb::WriteBatch& b = pinrocks::batch_of(batch);
  *status_code = pinrocks::record_into(b, errptr, [&] {
    rocksdb::ColumnFamilyHandle* cf =
        column_family == nullptr ? nullptr : pinrocks::handle_of(column_family);
    const rocksdb::Slice k(key, keylen);
    const rocksdb::Slice v(value, valuelen);
    return ts == nullptr ? write_plain(b, cf, op, k, v)
                         : write_at(b, cf, op, k, v, rocksdb::Slice(ts, tslen));
  });
}

int pinrocks_writebatch_put(rocksdb_writebatch_t* batch, const char* key, size_t keylen,
                            const char* value, size_t valuelen, char** errptr) PINROCKS_NOEXCEPT {
  rocksdb::WriteBatch& b = pinrocks::batch_of(batch);
  // What WriteBatch::Put does for the default family without a handle, less its timestamp
  // size lookup: a pinrocks batch has no default timestamp size (WriteBatch's constructors
  // that the C API and from_bytes use leave it 0), and pinrocks refuses such a batch for a
  // default family with timestamps when it is written. Measured: ~130 instructions a put.
  return pinrocks::record_into(b, errptr, [&] {
    return rocksdb::WriteBatchInternal::Put(&b, 0, rocksdb::Slice(key, keylen),
                                            rocksdb::Slice(value, valuelen));
  });
}

int pinrocks_writebatch_delete(rocksdb_writebatch_t* batch, const char* key, size_t keylen,
                               char** errptr) PINROCKS_NOEXCEPT {
  rocksdb::WriteBatch& b = pinrocks::batch_of(batch);
  // As pinrocks_writebatch_put, WriteBatch::Delete less its timestamp size lookup.
  return pinrocks::record_into(b, errptr, [&] {
    return rocksdb::WriteBatchInternal::Delete(&b, 0, rocksdb::Slice(key, keylen));
  });
}

int pinrocks_writebatch_merge(rocksdb_writebatch_t* batch, const char* key, size_t keylen,
                              const char* value, size_t valuelen, char** errptr) PINROCKS_NOEXCEPT {
  rocksdb::WriteBatch& b = pinrocks::batch_of(batch);
  // As pinrocks_writebatch_put, WriteBatch::Merge less its timestamp size lookup.
  return pinrocks::record_into(b, errptr, [&] {
    return rocksdb::WriteBatchInternal::Merge(&b, 0, rocksdb::Slice(key, keylen),
                                              rocksdb::Slice(value, valuelen));
  });
}

int pinrocks_writebatch_put_cf(rocksdb_writebatch_t* batch,
                               rocksdb_column_family_handle_t* column_family, const char* key,
                               size_t keylen, const char* value, size_t valuelen,
                               char** errptr) PINROCKS_NOEXCEPT {
  rocksdb::WriteBatch& b = pinrocks::batch_of(batch);
  return pinrocks::record_into(b, errptr, [&] {
    return pinrocks::record_op(b, PINROCKS_RECORD_PUT, pinrocks::handle_of(column_family),
                               rocksdb::Slice(key, keylen), rocksdb::Slice(value, valuelen));
  });
}

void pinrocks_writebatch_iterate(const pinrocks_batch* batch, pinrocks_record_fn fn, void* ctx,
                                 int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    RecordHandler handler(fn, ctx);
    pinrocks::report(errptr, status_code, pinrocks::write_batch_of(batch)->Iterate(&handler));
  });
}

void pinrocks_writebatch_iterate_bytes(const char* data, size_t len, pinrocks_record_fn fn,
                                       void* ctx, int* status_code,
                                       char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    // WriteBatch::Count reads the 12-byte header unchecked; Iterate checks the rest (each
    // record's tag and lengths, and the count against the records).
    constexpr size_t kHeader = 12;  // WriteBatchInternal::kHeader: sequence (8), count (4)
    if (len < kHeader) {
      pinrocks::report(errptr, status_code,
                       rocksdb::Status::Corruption("malformed WriteBatch (too small)"));
      return;
    }
    const rocksdb::WriteBatch batch(std::string(data, len));
    StrictHandler handler(fn, ctx);
    pinrocks::report(errptr, status_code, batch.Iterate(&handler));
  });
}

pinrocks_batch* pinrocks_writebatch_batch(rocksdb_writebatch_t* batch) PINROCKS_NOEXCEPT {
  return pinrocks::batch_handle(&pinrocks::batch_of(batch));
}

unsigned int pinrocks_writebatch_count(const pinrocks_batch* batch) PINROCKS_NOEXCEPT {
  return pinrocks::write_batch_of(batch)->Count();
}

const char* pinrocks_writebatch_data(const pinrocks_batch* batch, size_t* len) PINROCKS_NOEXCEPT {
  const std::string& data = pinrocks::write_batch_of(batch)->Data();
  *len = data.size();
  return data.data();
}

unsigned char pinrocks_writebatch_has_2pc_markers(const pinrocks_batch* batch) PINROCKS_NOEXCEPT {
  try {
    const rocksdb::WriteBatch& b = *pinrocks::write_batch_of(batch);
    return b.HasBeginPrepare() || b.HasEndPrepare() || b.HasCommit() || b.HasRollback() ? 1 : 0;
  } catch (...) {
    return 1;  // cannot tell: treated as a batch the log iterator cannot follow
  }
}

}  // extern "C"

// A read from an indexed batch alone of a key that has only merge operands there: RocksDB's
// GetFromBatch and GetEntityFromBatch answer MergeInProgress, while the batch-only iterator (the
// batch over an empty base) shows the operands merged with no existing value. The value and the
// entity reads of a batch alone (read_source.h) answer as that iterator does.
#ifndef PINROCKS_BATCH_ONLY_H
#define PINROCKS_BATCH_ONLY_H

#include <memory>

#include "rocksdb/comparator.h"
#include "rocksdb/db.h"
#include "rocksdb/iterator.h"
#include "rocksdb/slice.h"
#include "rocksdb/status.h"
#include "rocksdb/utilities/write_batch_with_index.h"

namespace pinrocks {

// The batch-only iterator on `key` (its value() and columns() the merged result), or NULL with
// `*status` NotFound (or the iterator's error) when the key is not there.
inline std::unique_ptr<rocksdb::Iterator> merged_in_batch(rocksdb::WriteBatchWithIndex* batch,
                                                          rocksdb::ColumnFamilyHandle* cf,
                                                          const rocksdb::Slice& key,
                                                          rocksdb::Status* status) {
  std::unique_ptr<rocksdb::Iterator> empty(rocksdb::NewEmptyIterator());
  std::unique_ptr<rocksdb::Iterator> it(batch->NewIteratorWithBase(cf, empty.get()));
  empty.release();  // owned by `it` from here
  it->Seek(key);
  if (it->Valid() && cf->GetComparator()->Compare(it->key(), key) == 0) {
    *status = rocksdb::Status::OK();
    return it;
  }
  *status = it->status().ok() ? rocksdb::Status::NotFound() : it->status();
  return nullptr;
}

}  // namespace pinrocks

#endif

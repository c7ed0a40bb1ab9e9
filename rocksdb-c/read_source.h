// Where a read reads from (pinrocks_read_source): the one place that tells the sources apart.
// Every read tier (reads.cc for values, entities.cc for entities) reads through these, so a new
// source is a PINROCKS_SOURCE_* in pinrocks.h and a case in each function below; the value and
// the entity read of each source stand side by side.
//
// What each source reads, in RocksDB 11.8.1:
// - the database: DB::Get, MultiGet, GetEntity, MultiGetEntity, NewIterator;
// - a transaction: Transaction::Get or GetForUpdate (and the entity forms), its MultiGet and
//   MultiGetEntity for plain reads, GetIterator. A plain read of a transaction that has written
//   nothing reads the database directly: Transaction::Get would first look in the empty batch
//   through a heap-allocated batch iterator (WriteBatchWithIndex::NewIterator, 72 bytes per
//   read) and then read the database with the same options (pinrocks opens transaction
//   databases with RocksDB's default write-committed policy, where the two are the same read).
// - an indexed batch over the database: GetFromBatchAndDB (the database directly while the
//   batch is empty, for the same reason), MultiGetFromBatchAndDB, NewIteratorWithBase;
// - an indexed batch alone: GetFromBatch (merge operands with nothing under them read merged
//   with no existing value: batch_only.h), an iterator over an empty base.
// A value found in a batch is copied into the PinnableSlice (GetSelf + PinSelf); a value from
// the database pins its block.
#ifndef PINROCKS_READ_SOURCE_H
#define PINROCKS_READ_SOURCE_H

#include <memory>

#include "batch_only.h"
#include "layout.h"
#include "pinrocks.h"
#include "rocksdb/db.h"
#include "rocksdb/iterator.h"
#include "rocksdb/options.h"
#include "rocksdb/slice.h"
#include "rocksdb/status.h"
#include "rocksdb/utilities/transaction.h"
#include "rocksdb/utilities/write_batch_with_index.h"
#include "rocksdb/wide_columns.h"
#include "row_locks.h"

namespace pinrocks {

// One read's source, resolved once per call.
struct Source {
  explicit Source(const pinrocks_read_source* s)
      : d(*s), ro(read_options_of(s->options)), cf(column_family_of(s->db, s->column_family)) {}

  const pinrocks_read_source& d;
  const rocksdb::ReadOptions& ro;
  rocksdb::ColumnFamilyHandle* cf;

  rocksdb::DB* db() const { return db_of(d.db); }
  rocksdb::Transaction* txn() const { return transaction_of(d.transaction); }
  rocksdb::WriteBatchWithIndex* batch() const { return indexed_batch_of(d.batch); }
  bool for_update() const { return d.mode != PINROCKS_READ_PLAIN; }
  bool exclusive() const { return d.mode == PINROCKS_READ_FOR_UPDATE; }
  bool known_mode() const {
    return d.mode == PINROCKS_READ_PLAIN || d.mode == PINROCKS_READ_FOR_UPDATE ||
           d.mode == PINROCKS_READ_FOR_UPDATE_SHARED;
  }
};

inline rocksdb::Status unknown_source() {
  return rocksdb::Status::InvalidArgument("pinrocks: unknown read source");
}

inline rocksdb::Status unknown_mode() {
  return rocksdb::Status::InvalidArgument("pinrocks: unknown read mode");
}

// RocksDB 11.8.1's MultiGet reads a data block that is not in the block cache from its file even
// with read_tier kBlockCacheTier (BlockBasedTable::MultiGet's RetrieveMultipleBlocks does not check
// no_io), where Get answers Incomplete without I/O: a cache-only batch is read key by key.
inline bool cache_only(const Source& s) { return s.ro.read_tier == rocksdb::kBlockCacheTier; }

// GetFromBatch and GetEntityFromBatch take no DBOptions that matter (WriteBatchWithIndex passes
// only the column family on); one value for every call, built once.
inline const rocksdb::DBOptions& unused_db_options() {
  static const rocksdb::DBOptions options;
  return options;
}

// ---- Values ----

// The value of `key` into `value`.
inline rocksdb::Status get(const Source& s, const rocksdb::Slice& key,
                           rocksdb::PinnableSlice* value) {
  switch (s.d.kind) {
    case PINROCKS_SOURCE_DB:
      return s.db()->Get(s.ro, s.cf, key, value);
    case PINROCKS_SOURCE_TRANSACTION:
      if (!s.known_mode()) return unknown_mode();
      if (s.for_update()) {
        return locking(s.txn(), s.cf, key, [&] {
          return s.txn()->GetForUpdate(s.ro, s.cf, key, value, s.exclusive(),
                                       /*do_validate=*/true);
        });
      }
      if (s.txn()->GetWriteBatch()->GetWriteBatch()->Count() == 0) {
        return s.db()->Get(s.ro, s.cf, key, value);
      }
      return s.txn()->Get(s.ro, s.cf, key, value);
    case PINROCKS_SOURCE_BATCH:
      if (s.batch()->GetWriteBatch()->Count() == 0) {
        return s.db()->Get(s.ro, s.cf, key, value);
      }
      return s.batch()->GetFromBatchAndDB(s.db(), s.ro, s.cf, key, value);
    case PINROCKS_SOURCE_BATCH_ONLY: {
      rocksdb::Status st =
          s.batch()->GetFromBatch(s.cf, unused_db_options(), key, value->GetSelf());
      if (st.IsMergeInProgress()) {
        if (auto it = merged_in_batch(s.batch(), s.cf, key, &st)) {
          value->GetSelf()->assign(it->value().data(), it->value().size());
        }
      }
      if (st.ok()) {
        value->PinSelf();
      }
      return st;
    }
    default:
      return unknown_source();
  }
}

// The values of `n` keys in one native batch call (`sorted()`: whether the keys are in the
// family's order already); false when the source reads them key by key instead (through `get`):
// a cache-only read, reads for update (MultiGet neither locks nor tracks), a batch alone.
template <typename Sorted>
bool multi_get(const Source& s, size_t n, const rocksdb::Slice* keys,
               rocksdb::PinnableSlice* values, rocksdb::Status* statuses, Sorted&& sorted) {
  if (cache_only(s)) return false;
  switch (s.d.kind) {
    case PINROCKS_SOURCE_DB:
      s.db()->MultiGet(s.ro, s.cf, n, keys, values, statuses, sorted());
      return true;
    case PINROCKS_SOURCE_TRANSACTION:
      if (s.for_update()) return false;
      s.txn()->MultiGet(s.ro, s.cf, n, keys, values, statuses, sorted());
      return true;
    case PINROCKS_SOURCE_BATCH:
      s.batch()->MultiGetFromBatchAndDB(s.db(), s.ro, s.cf, n, keys, values, statuses, sorted());
      return true;
    default:
      return false;
  }
}

// A new iterator over the source's entries of the family (the batch's or transaction's own
// writes merged over the database's); for an unknown source, one that reports it.
inline rocksdb::Iterator* new_iterator(const Source& s) {
  switch (s.d.kind) {
    case PINROCKS_SOURCE_DB:
      return s.db()->NewIterator(s.ro, s.cf);
    case PINROCKS_SOURCE_TRANSACTION:
      return s.txn()->GetIterator(s.ro, s.cf);
    case PINROCKS_SOURCE_BATCH:
    case PINROCKS_SOURCE_BATCH_ONLY: {
      std::unique_ptr<rocksdb::Iterator> base(s.d.kind == PINROCKS_SOURCE_BATCH_ONLY
                                                  ? rocksdb::NewEmptyIterator()
                                                  : s.db()->NewIterator(s.ro, s.cf));
      // The merged iterator owns the base from here (BaseDeltaIterator's unique_ptr); it keeps
      // `ro`'s bound pointers and `cf`, which the Rust side keeps alive as long as it.
      rocksdb::Iterator* merged = s.batch()->NewIteratorWithBase(s.cf, base.get(), &s.ro);
      base.release();
      return merged;
    }
    default:
      return rocksdb::NewErrorIterator(unknown_source());
  }
}

// ---- Entities ----

// Where an entity read left the entity: `pinned`, GetEntity's; or, for a key with only merge
// operands in an indexed batch read alone, `merged`: the batch-only iterator on the key, whose
// columns are the operands merged with no existing value (batch_only.h).
struct Found {
  explicit Found(rocksdb::PinnableWideColumns* into) : pinned(into) {}

  rocksdb::PinnableWideColumns* pinned;  // the caller's, on its frame or in its handle
  std::unique_ptr<rocksdb::Iterator> merged;

  const rocksdb::WideColumns& columns() const {
    return merged ? merged->columns() : pinned->columns();
  }
};

// The entity of `key` into `found`.
inline rocksdb::Status get_entity(const Source& s, const rocksdb::Slice& key, Found* found) {
  switch (s.d.kind) {
    case PINROCKS_SOURCE_DB:
      return s.db()->GetEntity(s.ro, s.cf, key, found->pinned);
    case PINROCKS_SOURCE_TRANSACTION:
      if (!s.known_mode()) return unknown_mode();
      if (s.for_update()) {
        return locking(s.txn(), s.cf, key, [&] {
          return s.txn()->GetEntityForUpdate(s.ro, s.cf, key, found->pinned, s.exclusive());
        });
      }
      return s.txn()->GetEntity(s.ro, s.cf, key, found->pinned);
    case PINROCKS_SOURCE_BATCH:
      return s.batch()->GetEntityFromBatchAndDB(s.db(), s.ro, s.cf, key, found->pinned);
    case PINROCKS_SOURCE_BATCH_ONLY: {
      rocksdb::Status st = s.batch()->GetEntityFromBatch(s.cf, key, found->pinned);
      if (st.IsMergeInProgress()) {
        found->merged = merged_in_batch(s.batch(), s.cf, key, &st);
      }
      return st;
    }
    default:
      return unknown_source();
  }
}

// The entities of `n` keys in one native batch call; false when read key by key (through
// `get_entity`), as `multi_get`.
inline bool multi_get_entity(const Source& s, size_t n, const rocksdb::Slice* keys,
                             rocksdb::PinnableWideColumns* pinned, rocksdb::Status* statuses) {
  if (cache_only(s)) return false;
  switch (s.d.kind) {
    case PINROCKS_SOURCE_DB:
      s.db()->MultiGetEntity(s.ro, s.cf, n, keys, pinned, statuses, /*sorted_input=*/false);
      return true;
    case PINROCKS_SOURCE_TRANSACTION:
      if (s.for_update()) return false;
      s.txn()->MultiGetEntity(s.ro, s.cf, n, keys, pinned, statuses, /*sorted_input=*/false);
      return true;
    case PINROCKS_SOURCE_BATCH:
      s.batch()->MultiGetEntityFromBatchAndDB(s.db(), s.ro, s.cf, n, keys, pinned, statuses,
                                              /*sorted_input=*/false);
      return true;
    default:
      return false;
  }
}

}  // namespace pinrocks

#endif

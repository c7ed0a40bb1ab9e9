// Transactions beyond RocksDB's C API: the one-call pinned read (and read for update) on
// the C++ stack, the pinned multi-get, popping a savepoint, and a C API database handle
// whose `rep` is the transaction database itself (so that plain writes through it take the
// transaction database's locks, and reads and administration go through it too).
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "guarded.h"
#include "layout.h"
#include "out_of_memory.h"
#include "pinrocks.h"
#include "rocksdb/slice.h"
#include "rocksdb/utilities/optimistic_transaction_db.h"
#include "rocksdb/utilities/transaction.h"
#include "rocksdb/utilities/transaction_db.h"
#include "rocksdb/utilities/write_batch_with_index.h"
#include "torn_records.h"
#include "utilities/transactions/lock/lock_tracker.h"
#include "utilities/transactions/pessimistic_transaction.h"
#include "utilities/transactions/pessimistic_transaction_db.h"

namespace {

// RocksDB 11.8.1's PointLockManager::UnLock(txn, tracker) (PerKeyPointLockManager's too)
// returns at the first column family whose lock map is gone, where it means to skip it: a
// pessimistic transaction holding rows in a family dropped under it kept its rows in the
// families its tracker lists after that one until the database closed, and every later write
// to them timed out (or waited for ever). The rows of such a transaction are freed one by one
// here: the one-row UnLock skips a dropped family and frees a row only if this transaction
// holds it, so freeing one twice, or after another transaction took it, does nothing (a row
// RocksDB already freed takes UnLockKey's not-found branch, whose assert librocksdb-sys
// compiles out: it always defines NDEBUG).
using Rows = std::vector<std::pair<uint32_t, std::string>>;

// `txn` and `db` as what they are when `db` is a pessimistic transaction database (pinrocks
// opens write-committed ones only: WriteCommittedTxn, WriteCommittedTxnDB).
rocksdb::PessimisticTransaction* pessimistic(rocksdb::Transaction* txn) {
  return static_cast<rocksdb::PessimisticTransaction*>(txn);
}
rocksdb::PessimisticTransactionDB* pessimistic(rocksdb_transactiondb_t* db) {
  return static_cast<rocksdb::PessimisticTransactionDB*>(pinrocks::transaction_db_of(db));
}

// `row(family, key)` for each row a pessimistic `txn` tracks as locked (its iterators
// allocate: may throw).
template <typename Row>
void for_each_tracked_row(rocksdb::Transaction* txn, Row row) {
  rocksdb::LockTracker& tracker = pessimistic(txn)->GetTrackedLocks();
  std::unique_ptr<rocksdb::LockTracker::ColumnFamilyIterator> families(
      tracker.GetColumnFamilyIterator());
  while (families->HasNext()) {
    uint32_t family = families->Next();
    std::unique_ptr<rocksdb::LockTracker::KeyIterator> keys(tracker.GetKeyIterator(family));
    while (keys->HasNext()) {
      row(family, keys->Next());
    }
  }
}

// The rows a pessimistic `txn` tracks as locked, copied (an end clears the tracker).
Rows tracked_rows(rocksdb::Transaction* txn) {
  Rows rows;
  for_each_tracked_row(
      txn, [&](uint32_t family, const std::string& key) { rows.emplace_back(family, key); });
  return rows;
}

// Frees each of `rows` the transaction no longer tracks, after a commit, a rollback or a
// rollback to a savepoint, whether it succeeded or not (an unprepared commit that fails has
// unlocked and cleared its tracker too; a prepared one that fails keeps its rows tracked,
// and they stay held). Allocates nothing itself (a lookup in the tracker per row); a row
// whose unlock throws (RocksDB's thread-local lock map cache) stays locked, the others are
// still freed. Never throws: the operation's own result is what is reported.
void free_rows_no_longer_tracked(rocksdb_transactiondb_t* db, rocksdb::Transaction* txn,
                                 const Rows& rows) noexcept {
  const rocksdb::LockTracker& tracker = pessimistic(txn)->GetTrackedLocks();
  for (const auto& [family, key] : rows) {
    try {
      if (!tracker.GetPointLockStatus(family, key).locked) {
        pessimistic(db)->UnLock(pessimistic(txn), family, key);
      }
    } catch (...) {
    }
  }
}

}  // namespace

extern "C" {

rocksdb_t* pinrocks_transactiondb_as_db(rocksdb_transactiondb_t* txn_db) PINROCKS_NOEXCEPT {
  try {
    rocksdb::TransactionDB* rep = pinrocks::transaction_db_of(txn_db);
    rocksdb_t* db = rocksdb_transactiondb_get_base_db(txn_db);  // a new wrapper
    pinrocks::db_of(db) = static_cast<rocksdb::DB*>(rep);
    return db;
  } catch (...) {
    return nullptr;
  }
}

rocksdb_t* pinrocks_optimistictransactiondb_as_db(rocksdb_optimistictransactiondb_t* txn_db)
    PINROCKS_NOEXCEPT {
  try {
    rocksdb::OptimisticTransactionDB* rep = pinrocks::optimistic_transaction_db_of(txn_db);
    rocksdb_t* db = rocksdb_optimistictransactiondb_get_base_db(txn_db);
    pinrocks::db_of(db) = static_cast<rocksdb::DB*>(rep);
    return db;
  } catch (...) {
    return nullptr;
  }
}

void pinrocks_optimistictransactiondb_delete_range(rocksdb_optimistictransactiondb_t* txn_db,
                                                   const rocksdb_writeoptions_t* options,
                                                   rocksdb_column_family_handle_t* column_family,
                                                   const char* start, size_t startlen,
                                                   const char* end, size_t endlen, int* status_code,
                                                   char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    // The base database: OptimisticTransactionDB's own DeleteRange says NotSupported.
    rocksdb::DB* base = pinrocks::optimistic_transaction_db_of(txn_db)->GetBaseDB();
    pinrocks::report(errptr, status_code, pinrocks::in_write_queue("DeleteRange", [&] {
                       return base->DeleteRange(
                           pinrocks::write_options_of(options), pinrocks::handle_of(column_family),
                           rocksdb::Slice(start, startlen), rocksdb::Slice(end, endlen));
                     }));
  });
}

// The wrapper alone (layout.h's complete rocksdb_transaction_t, c.cc's own definition).
void pinrocks_transaction_forget(rocksdb_transaction_t* txn) PINROCKS_NOEXCEPT { delete txn; }

void pinrocks_transaction_write_op(rocksdb_transaction_t* txn,
                                   rocksdb_column_family_handle_t* column_family, int op,
                                   const char* key, size_t keylen, const char* value,
                                   size_t valuelen, int* status_code,
                                   char** errptr) PINROCKS_NOEXCEPT {
  rocksdb::Transaction& t = *pinrocks::transaction_of(txn);
  const rocksdb::Slice row(key, keylen);
  // A log record (its blob in `key`) locks no row.
  const rocksdb::Slice* locked = op == PINROCKS_RECORD_LOG_DATA ? nullptr : &row;
  *status_code = pinrocks::record_into(
      t, *t.GetWriteBatch(), pinrocks::handle_of(column_family), locked, errptr, [&] {
        return pinrocks::record_op(t, op, pinrocks::handle_of(column_family), row,
                                   rocksdb::Slice(value, valuelen));
      });
}

int pinrocks_transaction_put(rocksdb_transaction_t* txn, const char* key, size_t keylen,
                             const char* value, size_t valuelen, char** errptr) PINROCKS_NOEXCEPT {
  rocksdb::Transaction& t = *pinrocks::transaction_of(txn);
  return pinrocks::put_into(t, *t.GetWriteBatch(), rocksdb::Slice(key, keylen),
                            rocksdb::Slice(value, valuelen), errptr);
}

int pinrocks_transaction_put_cf(rocksdb_transaction_t* txn,
                                rocksdb_column_family_handle_t* column_family, const char* key,
                                size_t keylen, const char* value, size_t valuelen,
                                char** errptr) PINROCKS_NOEXCEPT {
  rocksdb::Transaction& t = *pinrocks::transaction_of(txn);
  return pinrocks::put_into(t, *t.GetWriteBatch(), column_family, rocksdb::Slice(key, keylen),
                            rocksdb::Slice(value, valuelen), errptr);
}

void pinrocks_transaction_end(rocksdb_transaction_t* txn, int op,
                              rocksdb_transactiondb_t* free_rows_of, int* status_code,
                              char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    rocksdb::Transaction* t = pinrocks::transaction_of(txn);
    // A commit or rollback frees the rows after it (the tracker is cleared then).
    Rows rows;
    if (free_rows_of != nullptr && op != PINROCKS_TXN_PREPARE) {
      rows = tracked_rows(t);
    }
    rocksdb::Status s;
    switch (op) {
      case PINROCKS_TXN_PREPARE:
        s = pinrocks::in_write_queue("a transaction's prepare", [&] { return t->Prepare(); });
        break;
      case PINROCKS_TXN_COMMIT:
        s = pinrocks::in_write_queue("a transaction's commit", [&] { return t->Commit(); });
        // PessimisticTransaction::Commit of a named, unprepared transaction unregisters it
        // whether or not the write succeeded, and leaves it AWAITING_COMMIT on failure; its
        // destructor would then unregister it again (std::map::erase(end()): heap
        // corruption). It is already out of the map and cleared: mark it as done.
        if (!s.ok() && !t->GetName().empty() &&
            t->GetState() == rocksdb::Transaction::AWAITING_COMMIT) {
          t->SetState(rocksdb::Transaction::COMMITTED);
        }
        break;
      case PINROCKS_TXN_ROLLBACK:
        // A prepared transaction's rollback writes a marker through the queue.
        s = pinrocks::in_write_queue("a transaction's rollback", [&] { return t->Rollback(); });
        break;
      default:
        s = rocksdb::Status::InvalidArgument("pinrocks_transaction_end: unknown op");
    }
    if (!rows.empty()) {
      free_rows_no_longer_tracked(free_rows_of, t, rows);
    }
    pinrocks::report(errptr, status_code, s);
  });
}

void pinrocks_transaction_destroy(rocksdb_transaction_t* txn,
                                  rocksdb_transactiondb_t* free_rows_of) PINROCKS_NOEXCEPT {
  if (free_rows_of != nullptr) {
    // Before the destructor, while the rows are still tracked: no copy.
    try {
      rocksdb::Transaction* t = pinrocks::transaction_of(txn);
      for_each_tracked_row(t, [&](uint32_t family, const std::string& key) {
        pessimistic(free_rows_of)->UnLock(pessimistic(t), family, key);
      });
    } catch (...) {
      // Out of memory for an iterator or RocksDB's lock map cache: the destructor frees
      // what RocksDB's UnLock reaches.
    }
  }
  rocksdb_transaction_destroy(txn);
}

const pinrocks_batch* pinrocks_transaction_write_batch(rocksdb_transaction_t* txn)
    PINROCKS_NOEXCEPT {
  return pinrocks::batch_handle(pinrocks::transaction_of(txn)->GetWriteBatch()->GetWriteBatch());
}

void pinrocks_transaction_set_snapshot(rocksdb_transaction_t* txn, int* status_code,
                                       char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] { pinrocks::transaction_of(txn)->SetSnapshot(); });
}

void pinrocks_transaction_snapshot_into(rocksdb_transaction_t* txn,
                                        rocksdb_readoptions_t* options) PINROCKS_NOEXCEPT {
  // GetSnapshot only reads the transaction's shared_ptr: nothing here can throw.
  pinrocks::read_options_of(options).snapshot = pinrocks::transaction_of(txn)->GetSnapshot();
}

size_t pinrocks_transaction_copy_name(rocksdb_transaction_t* txn, char* out, size_t capacity,
                                      int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  size_t len = 0;
  pinrocks::guarded(status_code, errptr, [&] {
    const std::string name = pinrocks::transaction_of(txn)->GetName();
    len = name.size();
    std::memcpy(out, name.data(), std::min(len, capacity));
  });
  return len;
}

void pinrocks_transaction_savepoint(rocksdb_transaction_t* txn, int op,
                                    rocksdb_transactiondb_t* free_rows_of, int* status_code,
                                    char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    rocksdb::Transaction* t = pinrocks::transaction_of(txn);
    // A savepoint's batch, index, counters and locks move by plain calls, one after another:
    // RocksDB's calls run in a scope (pinrocks' copies around them stay errors).
    const auto in_scope = [](auto&& call) {
      return pinrocks::ending_on_out_of_memory("a transaction's savepoint", call);
    };
    switch (op) {
      case PINROCKS_SAVEPOINT_SET:
        in_scope([&] { t->SetSavePoint(); });
        break;
      case PINROCKS_SAVEPOINT_ROLLBACK: {
        // The rows locked since the savepoint are unlocked (by the same UnLock that stops
        // at a dropped family) and no longer tracked: those tracked before and not after
        // are freed here.
        Rows before;
        if (free_rows_of != nullptr) {
          before = tracked_rows(t);
        }
        rocksdb::Status s = in_scope([&] { return t->RollbackToSavePoint(); });
        if (!before.empty()) {
          free_rows_no_longer_tracked(free_rows_of, t, before);
        }
        pinrocks::report(errptr, status_code, s);
        break;
      }
      case PINROCKS_SAVEPOINT_POP:
        pinrocks::report(errptr, status_code, in_scope([&] { return t->PopSavePoint(); }));
        break;
      default:
        pinrocks::report(errptr, status_code,
                         rocksdb::Status::InvalidArgument("pinrocks: unknown savepoint operation"));
    }
  });
}

}  // extern "C"

// What an exception leaves of a pessimistic transaction's row locks (row_locks.cc): the lock
// manager's stripe mutexes, counted per thread, and a row locked but not yet tracked.
#ifndef PINROCKS_ROW_LOCKS_H
#define PINROCKS_ROW_LOCKS_H

#include <memory>

#include "rocksdb/slice.h"
#include "rocksdb/utilities/transaction.h"
#include "rocksdb/utilities/transaction_db_mutex.h"

namespace pinrocks {

// The mutexes and condition variables every pessimistic transaction database pinrocks opens
// gives its lock manager: RocksDB's own (std::mutex, std::condition_variable), but each mutex
// counted, while held, in a per-thread count that `after_lock_threw` reads.
std::shared_ptr<rocksdb::TransactionDBMutexFactory> counted_mutex_factory();

// The count of stripe mutexes this thread holds now; and, after an open that failed, the count
// set back to what it was before it (an open locks rows of the prepared transactions it
// recovers: one that threw under a stripe destroyed that stripe with the database).
int held_stripe_count() noexcept;
void forget_stripes_of_failed_open(int before) noexcept;

// Called in the handler of an exception RocksDB threw out of a call of `txn` that may lock
// `key` of `cf` (NULL: the default family): a write, a read for update. Ends the process if
// this thread still holds a stripe mutex of the lock manager (RocksDB locks and unlocks it by
// plain calls, and allocates in between: every later lock of the stripe would wait forever);
// otherwise lets go of the row if the call locked it and the exception came before the
// transaction tracked it (nothing would ever unlock it), ending the process if even that
// cannot be done. Nothing for an optimistic transaction (no locks).
void after_lock_threw(rocksdb::Transaction* txn, rocksdb::ColumnFamilyHandle* cf,
                      const rocksdb::Slice& key) noexcept;

// `call()`, a call of `txn` that may lock `key` of `cf`, with `after_lock_threw` on a throw
// (which is then rethrown).
template <typename Call>
auto locking(rocksdb::Transaction* txn, rocksdb::ColumnFamilyHandle* cf, const rocksdb::Slice& key,
             Call&& call) -> decltype(call()) {
  try {
    return call();
  } catch (...) {
    after_lock_threw(txn, cf, key);
    throw;
  }
}

}  // namespace pinrocks

#endif  // PINROCKS_ROW_LOCKS_H

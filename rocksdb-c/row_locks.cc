// A pessimistic transaction's row locks after an exception. RocksDB's point lock manager locks
// a stripe's mutex and unlocks it by plain calls, allocating in between (a new row's key copied
// into the stripe's map: point_lock_manager.cc:594-686); and `PessimisticTransaction::TryLock`
// locks a row, then sets a snapshot, checks the row for a conflict and tracks it
// (pessimistic_transaction.cc:1180-1253), each of which allocates, and unlocks the row only on
// a failed check. An exception in the first leaves the stripe locked: every later lock of a row
// in it waits forever. One in the second leaves the row locked and untracked: nothing unlocks
// it (a commit or rollback unlocks the tracked rows), so every later writer of the row times
// out, for as long as the database is open.
//
// So every pessimistic transaction database pinrocks opens counts, per thread, the stripe
// mutexes it holds (its own mutex factory, RocksDB's implementation otherwise), and after a
// throw a held one ends the process; a row the call may have locked and did not track is
// unlocked (unlocking a row this transaction does not hold changes nothing:
// PointLockManager::UnLockKey looks for the transaction among the row's holders).
#include "row_locks.h"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>

#include "guarded.h"
#include "reach.h"
#include "utilities/transactions/lock/lock_tracker.h"
#include "utilities/transactions/pessimistic_transaction.h"
#include "utilities/transactions/pessimistic_transaction_db.h"

namespace {

// The stripe mutexes of pessimistic transaction databases this thread holds (or waits on a
// condition variable to take again). Linked into an executable, the access compiles to a
// thread-pointer offset (the linker relaxes the general TLS model); in a shared library loaded
// later, glibc allocates the thread's block on its first access, and aborts if it cannot.
thread_local int held_stripes = 0;

// A transaction's database, protected in PessimisticTransaction.
PINROCKS_REACH(PessimisticTxnDb, rocksdb::PessimisticTransactionDB*,
               rocksdb::PessimisticTransaction, txn_db_impl_)

// RocksDB's TransactionDBMutexImpl (transaction_db_mutex_impl.cc), counted.
class CountedMutex final : public rocksdb::TransactionDBMutex {
 public:
  rocksdb::Status Lock() override {
    mutex_.lock();
    ++held_stripes;
    return rocksdb::Status::OK();
  }

  // As RocksDB's: a timeout of 0 tries once; any other waits (only a condition variable's wait
  // times out: the mutex is held briefly).
  rocksdb::Status TryLockFor(int64_t timeout_time) override {
    if (timeout_time == 0) {
      if (!mutex_.try_lock()) {
        return rocksdb::Status::TimedOut(rocksdb::Status::SubCode::kMutexTimeout);
      }
    } else {
      mutex_.lock();
    }
    ++held_stripes;
    return rocksdb::Status::OK();
  }

  void UnLock() override {
    --held_stripes;
    mutex_.unlock();
  }

  std::mutex mutex_;
};

// RocksDB's TransactionDBCondVarImpl, over a CountedMutex (the only kind this factory makes).
// The count stays while the wait lets go of the mutex: the thread takes it again before the
// wait returns.
class CountedCondVar final : public rocksdb::TransactionDBCondVar {
 public:
  rocksdb::Status Wait(std::shared_ptr<rocksdb::TransactionDBMutex> mutex) override {
    std::unique_lock<std::mutex> lock(static_cast<CountedMutex*>(mutex.get())->mutex_,
                                      std::adopt_lock);
    cv_.wait(lock);
    lock.release();  // still held: the caller unlocks it
    return rocksdb::Status::OK();
  }

  rocksdb::Status WaitFor(std::shared_ptr<rocksdb::TransactionDBMutex> mutex,
                          int64_t timeout_time) override {
    rocksdb::Status s;
    std::unique_lock<std::mutex> lock(static_cast<CountedMutex*>(mutex.get())->mutex_,
                                      std::adopt_lock);
    if (timeout_time < 0) {
      cv_.wait(lock);
    } else if (cv_.wait_for(lock, std::chrono::microseconds(timeout_time)) ==
               std::cv_status::timeout) {
      s = rocksdb::Status::TimedOut(rocksdb::Status::SubCode::kMutexTimeout);
    }
    lock.release();  // still held: the caller unlocks it
    return s;
  }

  void Notify() override { cv_.notify_one(); }
  void NotifyAll() override { cv_.notify_all(); }

 private:
  std::condition_variable cv_;
};

class CountedFactory final : public rocksdb::TransactionDBMutexFactory {
 public:
  std::shared_ptr<rocksdb::TransactionDBMutex> AllocateMutex() override {
    return std::make_shared<CountedMutex>();
  }
  std::shared_ptr<rocksdb::TransactionDBCondVar> AllocateCondVar() override {
    return std::make_shared<CountedCondVar>();
  }
};

// Lets go of `key` of family `cf_id` if `txn` does not track it (allocates its copy).
void unlock_untracked(rocksdb::PessimisticTransaction* txn, uint32_t cf_id,
                      const rocksdb::Slice& key) {
  rocksdb::LockTracker& tracked = txn->GetTrackedLocks();
  const std::string row = key.ToString();
  if (tracked.IsPointLockSupported() && tracked.GetPointLockStatus(cf_id, row).locked) {
    return;
  }
  (txn->*reach(PessimisticTxnDb{}))->UnLock(txn, cf_id, row);
}

}  // namespace

namespace pinrocks {

std::shared_ptr<rocksdb::TransactionDBMutexFactory> counted_mutex_factory() {
  return std::make_shared<CountedFactory>();
}

int held_stripe_count() noexcept { return held_stripes; }

void forget_stripes_of_failed_open(int before) noexcept { held_stripes = before; }

void after_lock_threw(rocksdb::Transaction* txn, rocksdb::ColumnFamilyHandle* cf,
                      const rocksdb::Slice& key) noexcept {
  if (held_stripes > 0) {
    end_after_throw("a call that locks a transaction's row",
                    "RocksDB keeps a stripe of its lock manager, locked by hand, locked");
  }
  auto* pessimistic = dynamic_cast<rocksdb::PessimisticTransaction*>(txn);
  if (pessimistic == nullptr) {
    return;
  }
  bool done = false;
  try {
    unlock_untracked(pessimistic, cf == nullptr ? 0 : cf->GetID(), key);
    done = true;
  } catch (...) {
  }
  if (!done) {
    end_after_throw("a call that locks a transaction's row",
                    "a row RocksDB may have locked for it could not be let go");
  }
}

}  // namespace pinrocks

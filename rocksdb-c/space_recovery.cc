// Before a close: takes the database out of its SstFileManager's space recovery the way
// RocksDB 11.8.1's own close means to, without the race that lets that recovery run on a
// closed database.
//
// A no-space error puts the database's ErrorHandler on the SstFileManager's list, and the
// manager's thread (`SstFileManagerImpl::ClearError`) calls `RecoverFromBGError` on it when
// space comes back, with no lock held between picking the handler and the call. The close
// (`DBImpl::CloseHelper`) cancels that only if the handler is not being recovered at that
// moment; if it is, the close trusts `recovery_in_prog_` to make it wait. That flag can be
// false by then (RocksDB's retryable-error recovery thread clears it when it ends, and the
// close joins that thread), and the close goes on to free the VersionSet: the manager's
// thread then runs `ResumeImpl` on it, a null dereference in `FindObsoleteFiles` (seen in
// the crash test with full disks and failing writes mixed, a transaction database).
//
// What this does instead, under the database mutex as RocksDB's own code does: stop new
// recoveries (`auto_recovery_`, which the close clears first too) and end the retryable-error
// recovery (`EndAutoRecovery`, which the close calls next anyway), wait while the manager's
// thread is recovering this database (letting go of the mutex, which that recovery needs),
// then take the database off the manager's list and clear the flag the manager's recovery
// had set. Left open, as in RocksDB: a failed flush whose handling read `auto_recovery_`
// before this and runs listeners with the mutex let go can list the database again; the
// close then waits on the flag that listing sets, but a manager shared by several databases
// may still read the closed one's error after its recovery returns. The members are private: they
// are reached by the explicit-instantiation rule (reach.h: access is not checked in an explicit
// instantiation's arguments), with their types spelled out, so a RocksDB that renames or retypes
// one fails to compile here.
#include "space_recovery.h"

#include <algorithm>
#include <chrono>
#include <list>
#include <thread>

#include "db/db_impl/db_impl.h"
#include "db/error_handler.h"
#include "file/sst_file_manager_impl.h"
#include "guarded.h"
#include "reach.h"
#include "rocksdb/convenience.h"
#include "util/mutexlock.h"

namespace {

PINROCKS_REACH(HandlerOf, rocksdb::ErrorHandler, rocksdb::DBImpl, error_handler_)
PINROCKS_REACH(AutoRecovery, bool, rocksdb::ErrorHandler, auto_recovery_)
PINROCKS_REACH(RecoveryInProgress, bool, rocksdb::ErrorHandler, recovery_in_prog_)
PINROCKS_REACH(ManagerMutex, rocksdb::port::Mutex, rocksdb::SstFileManagerImpl, mu_)
PINROCKS_REACH(ManagerBusyWith, rocksdb::ErrorHandler*, rocksdb::SstFileManagerImpl, cur_instance_)
PINROCKS_REACH(ManagerList, std::list<rocksdb::ErrorHandler*>, rocksdb::SstFileManagerImpl,
               error_handler_list_)

}  // namespace

bool pinrocks::cancel_after_failures(rocksdb::DB* db) {
  uint64_t failed = 0;
  if (!db->GetIntProperty(rocksdb::DB::Properties::kBackgroundErrors, &failed) || failed > 0) {
    // It flushes what the WAL does not hold (writes without it).
    pinrocks::in_write_queue("CancelAllBackgroundWork",
                             [&] { rocksdb::CancelAllBackgroundWork(db, /*wait=*/false); });
    return true;
  }
  return false;
}

void pinrocks::leave_space_recovery(rocksdb::DB* db, bool cancelled) {
  // Every kind of database pinrocks opens has a DBImpl at its root: TTL and transaction
  // databases are wrappers that forward GetRootDB, read-only and secondary ones derive from
  // DBImpl (RocksDB's own CancelAllBackgroundWork makes the same cast).
  auto* impl = static_cast<rocksdb::DBImpl*>(db->GetRootDB());
  // DB::Open gives every database a manager if the options have none; pinrocks makes
  // managers with NewSstFileManager only, so each is an SstFileManagerImpl.
  auto* manager = static_cast<rocksdb::SstFileManagerImpl*>(
      impl->immutable_db_options().sst_file_manager.get());
  if (manager == nullptr) {
    return;
  }
  rocksdb::ErrorHandler* handler = &(impl->*reach(HandlerOf{}));
  rocksdb::InstrumentedMutex* db_mutex = impl->mutex();
  rocksdb::InstrumentedMutexLock db_lock(db_mutex);
  // No new recovery from here on: SetBGError reads it under the database mutex.
  handler->*reach(AutoRecovery{}) = false;
  // The retryable-error recovery ends (joined, the mutex let go meanwhile), as the close
  // would end it next: from here only the manager's recovery sets or clears the flag, under
  // the mutex, so clearing it below cannot hide a recovery still running.
  handler->EndAutoRecovery();
  for (;;) {
    {
      // The order RocksDB takes them in (StartErrorRecovery): database mutex, then manager.
      rocksdb::MutexLock manager_lock(&(manager->*reach(ManagerMutex{})));
      if (manager->*reach(ManagerBusyWith{}) != handler) {
        auto& list = manager->*reach(ManagerList{});
        auto listed = std::find(list.begin(), list.end(), handler);
        if (listed != list.end()) {
          list.erase(listed);
          // As CancelErrorRecoveryForShutDown does for a cancelled recovery.
          handler->*reach(RecoveryInProgress{}) = false;
        }
        return;
      }
    }
    // The manager's thread is recovering this database and needs the mutex to finish. Its
    // recovery flush can meet the wait for a dropped flush that only a cancel ends
    // (docs/faults.md): cancelled here if a flush or compaction has failed by now.
    // Taken again however the wait ends: the guard above unlocks it (a property read that
    // throws would otherwise have it unlock a mutex this thread no longer holds).
    struct Relock {
      rocksdb::InstrumentedMutex* mutex;
      ~Relock() { mutex->Lock(); }
    };
    db_mutex->Unlock();
    const Relock relock{db_mutex};
    if (!cancelled) {
      cancelled = cancel_after_failures(db);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

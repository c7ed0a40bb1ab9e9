// What an exception leaves of a read. First, RocksDB's reads cache a column family's SuperVersion
// in a thread-local slot, take it at the start (`GetThreadLocalSuperVersion` marks the slot
// `kSVInUse`) and put it back at the end. `DB::Get` puts it back in a `Defer`; `MultiGet`
// (db_impl.cc:3550, db_impl_sync_and_async.h:781), a transaction's conflict check
// (transaction_util.cc:44), properties and size estimates put it back by a plain call, which an
// exception (a `std::bad_alloc` copying a value) skips. The slot then stays marked in use, and
// the thread's next read of that family takes the marker itself as its SuperVersion
// (column_family.cc:1397, an assert compiled out): a read through a dummy, a crash; and the
// thread's end, the family's drop or the database's close calls Unref on the marker
// (SuperVersionUnrefHandle, column_family.cc:585), a write into static memory.
//
// Put back here, by RocksDB's own call (`ReturnThreadLocalSuperVersion`, which changes a slot
// only if it is marked in use), the family's current SuperVersion. That is the one the read
// took: a slot still marked in use was not scraped since the read took it (every new
// SuperVersion is installed under the database mutex, held here too, and scrapes every
// thread's slot to `kSVObsolete` first), so what the read took, from the slot or under the
// mutex, was the current one then and is now; the reference the read held goes back to the
// slot. No RocksDB call is active lower on this thread's stack when an entry point catches
// (src/raw/reentry.rs refuses reads inside the callbacks RocksDB runs within a read), so a slot
// marked in use is one the exception left.
//
// Then the locks RocksDB takes by hand (lock, then unlock by a plain call) around code that
// allocates, which an exception leaves held on this thread: the database mutex and the WAL
// mutex (FindObsoleteFiles, db_impl_files.cc:420-460, run inside a read where it lets go of a
// SuperVersion); a memtable's range-tombstone cache mutex, which the first read of a memtable
// through the path of the active one since a range deletion holds while it fragments the
// memtable's tombstones (memtable.cc:935-944: a get, a multi-get, an iterator made or
// refreshed, a pessimistic write's conflict check); and a vector memtable's read lock, held
// while a point read copies the whole memtable (vectorrep.cc:315-325). Left held, every later
// user of one waits forever (this thread would lock it again: undefined). None can be mended
// (what RocksDB did under it is half done), so the process ends, saying why.
//
// Where the holder cannot be read, the check is conservative, after a call that may have read
// a memtable (`Reached::kRead`): a family with a vector memtable, and an active memtable with
// range deletions whose tombstone cache is not built, end the process. It misses one race: a
// range deletion after the throw swaps the active memtable's caches for new ones
// (memtable.cc:1249-1268), and a reader builds the new one before the check; the one this
// thread holds is then unreachable, and a reader already waiting on it waits forever. The
// memtables no longer active are checked by owner (their caches swap no more: a reader with an
// older SuperVersion still reads one through the cache path); one flushed and let go before
// the check goes unseen, with its waiters. An iterator's move reads through what its creation
// built (`Reached::kMove`): owners only. A tailing iterator's move that throws ends the process
// before this (guarded_calls.cc: its purge, counted as pending, cannot be seen here). glibc's
// lock elision, off unless a tunable turns it on, records no owner: then a held lock goes
// unseen.
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <list>
#include <memory>
#include <thread>

#include "db/column_family.h"
#include "db/db_impl/db_impl.h"
#include "db/memtable.h"
#include "db/memtable_list.h"
#include "db/range_tombstone_fragmenter.h"
#include "guarded.h"
#include "layout.h"
#include "monitoring/instrumented_mutex.h"
#include "port/port.h"
#include "reach.h"
#include "rocksdb/memtablerep.h"
#include "util/core_local.h"
#include "utilities/transactions/pessimistic_transaction.h"
#include "utilities/transactions/transaction_base.h"

namespace {

// A transaction's database, a protected member of TransactionBaseImpl (the base of every
// transaction pinrocks begins, pessimistic or optimistic).
PINROCKS_REACH(TransactionDbImpl, rocksdb::DBImpl*, rocksdb::TransactionBaseImpl, dbimpl_)
// The database's mutexes' pthread mutexes, private in DBImpl, InstrumentedMutex and
// port::Mutex.
PINROCKS_REACH(WalWriteMutexOf, rocksdb::InstrumentedMutex, rocksdb::DBImpl, wal_write_mutex_)
PINROCKS_REACH(PortMutexOf, rocksdb::port::Mutex, rocksdb::InstrumentedMutex, mutex_)
PINROCKS_REACH(PthreadMutexOf, pthread_mutex_t, rocksdb::port::Mutex, mu_)
// A memtable's range-tombstone caches, one per core, and whether it holds range deletions,
// private in MemTable; the memtables no longer active, private in MemTableListVersion.
using TombstoneCaches =
    rocksdb::CoreLocalArray<std::shared_ptr<rocksdb::FragmentedRangeTombstoneListCache>>;
PINROCKS_REACH(TombstoneCachesOf, TombstoneCaches, rocksdb::MemTable, cached_range_tombstone_)
PINROCKS_REACH(RangeDelEmptyOf, rocksdb::RelaxedAtomic<bool>, rocksdb::MemTable,
               is_range_del_table_empty_)
using MemList = std::list<rocksdb::ReadOnlyMemTable*>;
PINROCKS_REACH(MemlistOf, MemList, rocksdb::MemTableListVersion, memlist_)
PINROCKS_REACH(MemlistHistoryOf, MemList, rocksdb::MemTableListVersion, memlist_history_)

// Whether this thread holds `m`. glibc records the owner's thread id in every mutex it locks
// (nptl's pthread_mutex_lock.c, "Record the ownership"; not under lock elision, off by
// default), and clears it on unlock. Elsewhere a mutex anyone holds counts as this thread's:
// a process may then end over a lock another thread holds, never go on past one this thread
// kept.
bool held_here(pthread_mutex_t* m) noexcept {
#if defined(__GLIBC__)
  return __atomic_load_n(&m->__data.__owner, __ATOMIC_RELAXED) ==
         static_cast<int>(syscall(SYS_gettid));
#else
  if (pthread_mutex_trylock(m) != 0) {
    return true;
  }
  pthread_mutex_unlock(m);
  return false;
#endif
}

bool held_here(rocksdb::InstrumentedMutex& mutex) noexcept {
  return held_here(&((mutex.*reach(PortMutexOf{})).*reach(PthreadMutexOf{})));
}

// Why the read cannot be mended: a lock of the database this thread holds, or nullptr.
const char* database_lock_kept(rocksdb::DBImpl* impl) noexcept {
  if (held_here(*impl->mutex())) {
    return "RocksDB keeps its database mutex, taken by hand, locked";
  }
  if (held_here(impl->*reach(WalWriteMutexOf{}))) {
    return "RocksDB keeps its WAL mutex, taken by hand, locked";
  }
  return nullptr;
}

// The per-core caches of `mem` (swapped atomically by range deletions, as RocksDB reads them:
// memtable.cc:930): whether `kept(cache)` holds for one.
template <typename Kept>
bool any_cache(rocksdb::MemTable* mem, Kept&& kept) noexcept {
  const TombstoneCaches& caches = mem->*reach(TombstoneCachesOf{});
  for (size_t core = 0; core < caches.Size(); core++) {
    const std::shared_ptr<rocksdb::FragmentedRangeTombstoneListCache> cache =
        std::atomic_load_explicit(caches.AccessAtCore(core), std::memory_order_relaxed);
    if (cache != nullptr && kept(*cache)) {
      return true;
    }
  }
  return false;
}

// Whether the active memtable `mem` may keep a tombstone cache locked: it holds range
// deletions and a cache is not built (conservative: see the top of this file).
bool active_cache_may_be_kept(rocksdb::MemTable* mem) noexcept {
  if ((mem->*reach(RangeDelEmptyOf{})).LoadRelaxed()) {
    return false;
  }
  return any_cache(mem, [](rocksdb::FragmentedRangeTombstoneListCache& cache) {
    return !cache.initialized.load(std::memory_order_acquire);
  });
}

// Whether this thread holds a tombstone cache mutex of `mem`.
bool cache_held(rocksdb::MemTable* mem) noexcept {
  return any_cache(mem, [](rocksdb::FragmentedRangeTombstoneListCache& cache) {
    return held_here(cache.reader_mutex.native_handle());
  });
}

// Whether this thread holds a tombstone cache mutex of a memtable of `list` (no longer active).
bool listed_cache_held(const MemList& list) noexcept {
  for (rocksdb::ReadOnlyMemTable* listed : list) {
    auto* mem = dynamic_cast<rocksdb::MemTable*>(listed);
    if (mem != nullptr && cache_held(mem)) {
      return true;
    }
  }
  return false;
}

// How much of the check a throw needs: `kRead` after a call that may have read a memtable
// (a get, an iterator made or refreshed, a pessimistic write's conflict check), which may have
// left a lock whose holder cannot be read; `kMove` after an iterator's move, which reads the
// memtables through the iterators made with it (no cache built, no vector copy made).
enum class Reached { kRead, kMove };

// Why the read cannot be mended: a lock of a family's memtable this thread may keep, or nullptr.
// Under the database mutex (memtables are switched under it).
const char* memtable_lock_kept(rocksdb::ColumnFamilyData* cfd, Reached reached) noexcept {
  rocksdb::MemTable* active = cfd->mem();
  if (reached == Reached::kRead) {
    if (dynamic_cast<rocksdb::VectorRepFactory*>(cfd->ioptions().memtable_factory.get()) !=
        nullptr) {
      return "a vector memtable's read, which RocksDB locks by hand, may keep it locked";
    }
    if (active != nullptr && active_cache_may_be_kept(active)) {
      return "RocksDB may keep a memtable's range-tombstone cache, locked by hand, locked";
    }
  } else if (active != nullptr && cache_held(active)) {
    return "RocksDB keeps a memtable's range-tombstone cache, locked by hand, locked";
  }
  rocksdb::MemTableListVersion* listed = cfd->imm()->current();
  if (listed != nullptr && (listed_cache_held(listed->*reach(MemlistOf{})) ||
                            listed_cache_held(listed->*reach(MemlistHistoryOf{})))) {
    return "RocksDB keeps a memtable's range-tombstone cache, locked by hand, locked";
  }
  return nullptr;
}

// The database mutex, taken without its instrumentation and given up after 10 s: an ingestion
// holds it while it builds the active memtable's tombstone cache (db_impl.cc:6523, through
// ColumnFamilyData::NeedsFlush), which would wait on a cache mutex this thread kept while this
// thread waited on it. Held briefly otherwise; one held longer ends the process.
class DatabaseMutex {
 public:
  explicit DatabaseMutex(rocksdb::DBImpl* impl) : mutex_(impl->mutex()->*reach(PortMutexOf{})) {
    for (int waited_ms = 0; !(taken_ = mutex_.TryLock()) && waited_ms < 10000; waited_ms++) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  ~DatabaseMutex() {
    if (taken_) {
      mutex_.Unlock();
    }
  }
  DatabaseMutex(const DatabaseMutex&) = delete;
  DatabaseMutex& operator=(const DatabaseMutex&) = delete;
  bool taken() const { return taken_; }

 private:
  rocksdb::port::Mutex& mutex_;
  bool taken_ = false;
};

// Under the database mutex, as RocksDB installs SuperVersions and switches memtables: why the
// read cannot be mended (then nothing is given back: the process ends); otherwise each
// family's slot of this thread that is still marked in use gets the family's current
// SuperVersion back, and nullptr.
const char* give_back_under_mutex(rocksdb::DBImpl* impl, Reached reached) {
  const DatabaseMutex lock(impl);
  if (!lock.taken()) {
    return "its database mutex stayed held for 10 s, and what the read left could not be "
           "checked";
  }
  for (rocksdb::ColumnFamilyData* cfd : *impl->GetVersionSet()->GetColumnFamilySet()) {
    if (const char* kept = memtable_lock_kept(cfd, reached)) {
      return kept;
    }
  }
  for (rocksdb::ColumnFamilyData* cfd : *impl->GetVersionSet()->GetColumnFamilySet()) {
    // None once the family's last reference is being let go (its slots are gone with it).
    // (TEST_GetLocalSV is compiled in every build: the slot table's only accessor.)
    rocksdb::SuperVersion* current = cfd->GetSuperVersion();
    if (current == nullptr) {
      continue;
    }
    // Read first (ThreadLocalPtr::Get never grows the table): the compare-and-swap grows this
    // thread's table of slots when the family's slot is past its end (a family made after
    // the thread's last read), an allocation where memory just ran out. A slot past the end
    // was not taken.
    if (cfd->TEST_GetLocalSV()->Get() == rocksdb::SuperVersion::kSVInUse) {
      cfd->ReturnThreadLocalSuperVersion(current);
    }
  }
  return nullptr;
}

// Called in the handler of the exception RocksDB threw out of `call` (end_after_throw names
// both).
void after_threw(rocksdb::DBImpl* impl, Reached reached, const char* call) noexcept {
  // Checked before the database mutex is taken: taking it again would wait forever.
  if (const char* kept = database_lock_kept(impl)) {
    pinrocks::end_after_throw(call, kept);
  }
  const char* kept = nullptr;
  // The one allocation: this thread's table of thread-local slots, made on its first use. A
  // thread without one took no slot, so there is nothing to give back.
  try {
    kept = give_back_under_mutex(impl, reached);
  } catch (...) {
  }
  if (kept != nullptr) {
    pinrocks::end_after_throw(call, kept);
  }
}

// Every database pinrocks opens is a DBImpl under whatever wraps it (a transaction or TTL
// database is a StackableDB): GetRootDB is that DBImpl.
rocksdb::DBImpl* impl_of(rocksdb_t* db) {
  return static_cast<rocksdb::DBImpl*>(pinrocks::db_of(db)->GetRootDB());
}

}  // namespace

namespace pinrocks {

void after_read_threw(rocksdb_t* db) noexcept {
  if (db != nullptr) {
    after_threw(impl_of(db), Reached::kRead, "a read");
  }
}

void after_move_threw(rocksdb_t* db) noexcept {
  if (db != nullptr) {
    after_threw(impl_of(db), Reached::kMove, "an iterator's move");
  }
}

void after_read_threw(rocksdb::Transaction* txn) noexcept {
  // Only a pessimistic transaction's write at a snapshot reads (its conflict check).
  const bool read = dynamic_cast<rocksdb::PessimisticTransaction*>(txn) != nullptr &&
                    txn->GetSnapshot() != nullptr;
  after_threw(static_cast<rocksdb::TransactionBaseImpl*>(txn)->*reach(TransactionDbImpl{}),
              read ? Reached::kRead : Reached::kMove, "a transaction's write");
}

}  // namespace pinrocks

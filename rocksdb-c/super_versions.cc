// What an exception leaves of a read: RocksDB's reads cache a column family's SuperVersion in a
// thread-local slot, take it at the start (`GetThreadLocalSuperVersion` marks the slot
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
#include "db/column_family.h"
#include "db/db_impl/db_impl.h"
#include "guarded.h"
#include "layout.h"
#include "monitoring/instrumented_mutex.h"
#include "reach.h"
#include "utilities/transactions/transaction_base.h"

namespace {

// A transaction's database, a protected member of TransactionBaseImpl (the base of every
// transaction pinrocks begins, pessimistic or optimistic).
PINROCKS_REACH(TransactionDbImpl, rocksdb::DBImpl*, rocksdb::TransactionBaseImpl, dbimpl_)

// Under the database mutex, as RocksDB installs SuperVersions: each family's slot of this
// thread that is still marked in use gets the family's current SuperVersion back.
void give_back_under_mutex(rocksdb::DBImpl* impl) {
  rocksdb::InstrumentedMutexLock lock(impl->mutex());
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
}

// The one allocation in `give_back_under_mutex`: this thread's table of thread-local slots,
// made on its first use. A thread without one took no slot, so there is nothing to give back.
void give_back(rocksdb::DBImpl* impl) noexcept {
  try {
    give_back_under_mutex(impl);
  } catch (...) {
  }
}

}  // namespace

namespace pinrocks {

void return_taken_super_versions(rocksdb_t* db) noexcept {
  if (db == nullptr) {
    return;
  }
  // Every database pinrocks opens is a DBImpl under whatever wraps it (a transaction or TTL
  // database is a StackableDB): GetRootDB is that DBImpl.
  give_back(static_cast<rocksdb::DBImpl*>(db_of(db)->GetRootDB()));
}

void return_taken_super_versions(rocksdb::Transaction* txn) noexcept {
  give_back(static_cast<rocksdb::TransactionBaseImpl*>(txn)->*reach(TransactionDbImpl{}));
}

}  // namespace pinrocks

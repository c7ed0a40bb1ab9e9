// The step before a close that keeps RocksDB's space recovery off a closed database
// (space_recovery.cc).
#ifndef PINROCKS_SPACE_RECOVERY_H
#define PINROCKS_SPACE_RECOVERY_H

#include "rocksdb/db.h"

namespace pinrocks {

// CancelAllBackgroundWork(wait = false) if a flush or compaction failed in this open (the
// rocksdb.background-errors property is not 0, or cannot be read): whether it cancelled.
bool cancel_after_failures(rocksdb::DB* db);

// Stops new error recoveries of `db` and takes it off its SstFileManager's recovery list,
// waiting while the manager's thread is recovering it, and cancelling as above meanwhile
// unless `cancelled` already. Only before a close: afterwards RocksDB recovers this database
// from no background error on its own.
void leave_space_recovery(rocksdb::DB* db, bool cancelled);

}  // namespace pinrocks

#endif  // PINROCKS_SPACE_RECOVERY_H

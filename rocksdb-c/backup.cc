// Backups beyond RocksDB's C API: a backup with a flush choice and a progress callback that can
// stop it, reporting the new backup's id; a restore that holds the database directory's LOCK
// file as DB::Open does; and a verification that can recompute every file's checksum.
#include <memory>
#include <mutex>
#include <string>

#include "guarded.h"
#include "layout.h"
#include "out_of_memory.h"
#include "pinrocks.h"
#include "rocksdb/env.h"
#include "rocksdb/status.h"
#include "rocksdb/utilities/backup_engine.h"

extern "C" {

void pinrocks_backup_engine_create(rocksdb_backup_engine_t* backup_engine, rocksdb_t* db,
                                   unsigned char flush, pinrocks_progress_fn fn, void* ctx,
                                   unsigned int* backup_id, int* status_code,
                                   char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    rocksdb::BackupEngine* engine = pinrocks::backup_engine_of(backup_engine);
    rocksdb::CreateBackupOptions options;
    options.flush_before_backup = flush != 0;
    // Whether the callback may still be called: CreateNewBackup queues copies on its worker
    // threads while it lists files and waits for them only afterwards, so if it leaves by an
    // exception in between, a worker may still run a queued copy and call the callback after
    // this call (and Rust's frame holding `ctx`) is gone. The gate closes when this scope
    // ends, however it ends, once no call is under way; calls after it do nothing. Calls
    // are also made one at a time (the Rust callback is FnMut).
    struct Gate {
      std::mutex mu;
      bool open = true;
    };
    auto gate = std::make_shared<Gate>();
    struct Closer {
      std::shared_ptr<Gate> gate;
      ~Closer() {
        std::lock_guard<std::mutex> lock(gate->mu);
        gate->open = false;
      }
    } closer{gate};
    if (fn != nullptr) {
      options.progress_callback = [fn, ctx, engine, gate] {
        std::lock_guard<std::mutex> lock(gate->mu);
        if (gate->open && fn(ctx) != 0) {
          engine->StopBackup();
        }
      };
    }
    rocksdb::BackupID id = 0;
    // It takes the live files under the database mutex taken by hand, and turns file deletions
    // off and on again by plain calls.
    const auto create = [&] {
      return pinrocks::ending_on_out_of_memory("CreateNewBackup", [&] {
        return engine->CreateNewBackup(options, pinrocks::db_of(db), &id);
      });
    };
    // With flush_before_backup it flushes the database first, inside RocksDB's write queue.
    pinrocks::report(errptr, status_code,
                     options.flush_before_backup
                         ? pinrocks::in_write_queue("CreateNewBackup with a flush", create)
                         : create());
    *backup_id = id;
  });
}

unsigned char pinrocks_backup_engine_restore(rocksdb_backup_engine_t* backup_engine,
                                             const rocksdb_options_t* engine_options,
                                             const char* db_dir, unsigned int backup_id,
                                             unsigned char latest, int* status_code,
                                             char** errptr) PINROCKS_NOEXCEPT {
  unsigned char locked_out = 0;
  pinrocks::guarded(status_code, errptr, [&] {
    // The engine's own Env (BackupEngine::Open got the options' Env in rocksdb_backup_engine_open),
    // which the restore writes through: the directory and its lock live there, not on the disk
    // when the engine works in memory.
    rocksdb::Env* env = pinrocks::options_of(engine_options).env;
    std::string dir(db_dir);
    rocksdb::Status s = env->CreateDirIfMissing(dir);
    if (!s.ok()) {
      pinrocks::report(errptr, status_code, s);
      return;
    }
    // The lock every DB::Open takes (db/db_impl/db_impl_open.cc): refused while a database
    // is open there, in this process (PosixEnv's set of locked files) or another (fcntl),
    // and held for the restore so that none opens meanwhile.
    rocksdb::FileLock* lock = nullptr;
    const std::string lock_path = dir + "/LOCK";
    // PosixFileSystem::LockFile takes the process's set of locked files by hand and allocates
    // under it (env/fs_posix.cc:871-922): every later open would wait on it.
    s = pinrocks::ending_on_out_of_memory("LockFile",
                                          [&] { return env->LockFile(lock_path, &lock); });
    if (!s.ok()) {
      locked_out = 1;
      pinrocks::report(errptr, status_code, s);
      return;
    }
    // Let go of whatever the restore does (the lock would stay held for the process's life).
    struct Unlock {
      rocksdb::Env* env;
      rocksdb::FileLock* lock;
      ~Unlock() { env->UnlockFile(lock).PermitUncheckedError(); }
    } unlock{env, lock};
    rocksdb::BackupEngine* engine = pinrocks::backup_engine_of(backup_engine);
    rocksdb::RestoreOptions options;
    rocksdb::Status restored = latest != 0
                                   ? engine->RestoreDBFromLatestBackup(options, dir, dir)
                                   : engine->RestoreDBFromBackup(options, backup_id, dir, dir);
    pinrocks::report(errptr, status_code, restored);
  });
  return locked_out;
}

void pinrocks_backup_engine_verify(rocksdb_backup_engine_t* backup_engine, unsigned int backup_id,
                                   unsigned char verify_checksums, int* status_code,
                                   char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    pinrocks::report(
        errptr, status_code,
        pinrocks::backup_engine_of(backup_engine)
            ->VerifyBackup(static_cast<rocksdb::BackupID>(backup_id), verify_checksums != 0));
  });
}

}  // extern "C"

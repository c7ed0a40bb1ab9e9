// A file system for tests that loses what was not synced and fails on command: RocksDB's own
// FaultInjectionTestFS (utilities/fault_injection_fs.h, in the static library) over the default
// file system, in an Env a database opens on. Compiled only with the `fault-injection` feature.
#include <memory>
#include <string>

#include "guarded.h"
#include "layout.h"
#include "pinrocks.h"
#include "rocksdb/env.h"
#include "rocksdb/file_system.h"
#include "rocksdb/io_status.h"
#include "util/random.h"
#include "utilities/fault_injection_fs.h"

struct pinrocks_fault_fs_t {
  std::shared_ptr<rocksdb::FaultInjectionTestFS> fs;
  std::unique_ptr<rocksdb::Env> env;  // over `fs`; what the options point at
};

namespace {

rocksdb::FaultInjectionIOType io_type(int kind) {
  switch (kind) {
    case PINROCKS_FAULT_READ:
      return rocksdb::FaultInjectionIOType::kRead;
    case PINROCKS_FAULT_METADATA_READ:
      return rocksdb::FaultInjectionIOType::kMetadataRead;
    case PINROCKS_FAULT_METADATA_WRITE:
      return rocksdb::FaultInjectionIOType::kMetadataWrite;
    default:
      return rocksdb::FaultInjectionIOType::kWrite;
  }
}

rocksdb::IOStatus stop_error(int error) {
  switch (error) {
    case PINROCKS_FAULT_STOP_NO_SPACE:
      return rocksdb::IOStatus::NoSpace("pinrocks fault file system: stopped, no space");
    case PINROCKS_FAULT_STOP_IO_ERROR:
      return rocksdb::IOStatus::IOError("pinrocks fault file system: stopped");
    default:
      return rocksdb::IOStatus::Corruption("pinrocks fault file system: stopped (power loss)");
  }
}

}  // namespace

extern "C" {

pinrocks_fault_fs_t* pinrocks_fault_fs_create(int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  pinrocks_fault_fs_t* result = nullptr;
  pinrocks::guarded(status_code, errptr, [&] {
    auto created = std::make_unique<pinrocks_fault_fs_t>();
    created->fs = std::make_shared<rocksdb::FaultInjectionTestFS>(rocksdb::FileSystem::Default());
    // Unsynced appends stay in the file object's buffer, reaching the disk only at a sync:
    // what a power loss drops is then exactly what was not synced.
    created->fs->SetInjectUnsyncedDataLoss(true);
    created->env = rocksdb::NewCompositeEnv(created->fs);
    result = created.release();
  });
  return result;
}

void pinrocks_fault_fs_destroy(pinrocks_fault_fs_t* fs) PINROCKS_NOEXCEPT { delete fs; }

void pinrocks_options_set_fault_fs(rocksdb_options_t* options,
                                   pinrocks_fault_fs_t* fs) PINROCKS_NOEXCEPT {
  pinrocks::options_of(options).env = fs->env.get();
}

void pinrocks_fault_fs_stop(pinrocks_fault_fs_t* fs, int error, int* status_code,
                            char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr,
                    [&] { fs->fs->SetFilesystemActive(false, stop_error(error)); });
}

void pinrocks_fault_fs_restart(pinrocks_fault_fs_t* fs, int drop, unsigned int seed,
                               int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    // This thread's injected errors would fail the deletes below part way (db_stress turns
    // them off first too); running first: dropping what was not synced truncates and
    // deletes files through the file system.
    fs->fs->DisableAllThreadLocalErrorInjection();
    fs->fs->SetFilesystemActive(true);
    rocksdb::IOStatus s;
    if (drop != PINROCKS_FAULT_KEEP_UNSYNCED) {
      if (drop == PINROCKS_FAULT_DROP_RANDOM_UNSYNCED) {
        rocksdb::Random random(seed);
        s = fs->fs->DropRandomUnsyncedFileData(&random);
      } else {
        s = fs->fs->DropUnsyncedFileData();
      }
      if (s.ok()) {
        s = fs->fs->DeleteFilesCreatedAfterLastDirSync(rocksdb::IOOptions(), nullptr);
      }
      fs->fs->ResetState();
    }
    pinrocks::report(errptr, status_code, s);
  });
}

void pinrocks_fault_fs_inject(pinrocks_fault_fs_t* fs, int kind, unsigned int seed, int one_in,
                              unsigned char retryable, unsigned char data_loss, int* status_code,
                              char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    if (one_in <= 0) {
      fs->fs->DisableThreadLocalErrorInjection(io_type(kind));
      return;
    }
    fs->fs->SetThreadLocalErrorContext(io_type(kind), seed, one_in, retryable != 0, data_loss != 0);
    fs->fs->EnableThreadLocalErrorInjection(io_type(kind));
  });
}

int pinrocks_fault_fs_injected(pinrocks_fault_fs_t* fs, int kind) PINROCKS_NOEXCEPT {
  int count = 0;
  int code = 0;
  char* err = nullptr;
  pinrocks::guarded(&code, &err, [&] {
    count = fs->fs->GetAndResetInjectedThreadLocalErrorCount(io_type(kind));
  });
  std::free(err);
  return count;
}

}  // extern "C"

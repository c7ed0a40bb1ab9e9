// A file system for tests that loses what was not synced and fails on command: RocksDB's own
// FaultInjectionTestFS (utilities/fault_injection_fs.h, in the static library) over the default
// file system, in an Env a database opens on. Compiled only with the `fault-injection` feature.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "env/composite_env_wrapper.h"
#include "env/mock_env.h"
#include "guarded.h"
#include "layout.h"
#include "pinrocks.h"
#include "rocksdb/env.h"
#include "rocksdb/file_system.h"
#include "rocksdb/io_status.h"
#include "rocksdb/listener.h"
#include "rocksdb/system_clock.h"
#include "util/random.h"
#include "utilities/fault_injection_fs.h"

namespace {

// What the flushes and compactions that begin from now on inject, per FaultInjectionIOType,
// and what they injected. Shared by the file system and the listeners of every options it
// was set on (RocksDB's background threads are the process's, so this is per file system).
struct BackgroundFaults {
  struct Plan {
    std::atomic<int> one_in{0};
    std::atomic<bool> retryable{false};
    std::atomic<bool> data_loss{false};
    std::atomic<uint32_t> seed{0};
  };
  static constexpr int kKinds = 4;
  Plan plans[kKinds];
  std::atomic<uint32_t> jobs{0};  // varies the seed from job to job
  std::atomic<int> injected[kKinds] = {};
};

// The real clock, whose sleeps last at most `cap_micros`: RocksDB sleeps 1 s after each
// failed flush or compaction (SleepForMicroseconds, through the Env's clock) so that a failing
// disk is not hammered, which makes a test that fails them on purpose wait. The time read is
// the real time; timed waits on condition variables are not shortened.
class CappedSleepClock : public rocksdb::SystemClockWrapper {
 public:
  CappedSleepClock() : SystemClockWrapper(rocksdb::SystemClock::Default()) {}

  const char* Name() const override { return "PinrocksCappedSleepClock"; }

  void SleepForMicroseconds(int micros) override {
    int64_t cap = cap_micros.load(std::memory_order_relaxed);
    target_->SleepForMicroseconds(static_cast<int>(std::min<int64_t>(micros, cap)));
  }

  std::atomic<int64_t> cap_micros{INT32_MAX};
};

}  // namespace

struct pinrocks_fault_fs_t {
  std::shared_ptr<rocksdb::FaultInjectionTestFS> fs;
  std::shared_ptr<CappedSleepClock> clock = std::make_shared<CappedSleepClock>();
  std::unique_ptr<rocksdb::Env> env;  // over `fs` and `clock`; what the options point at
  std::shared_ptr<BackgroundFaults> background = std::make_shared<BackgroundFaults>();
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

constexpr const char* kListenerName = "PinrocksBackgroundFaults";

// The background thread running this listener's job, armed by the file system `armed_by`
// (RocksDB's thread pools are the process's: one thread serves databases on several).
thread_local const BackgroundFaults* armed_by = nullptr;

// Arms RocksDB's thread-local error injection on the thread of each flush and subcompaction
// as it begins (as db_stress's listener does), with the plan current then; disarms it when
// the job completes or meets a background error, counting what was injected. Never throws
// into RocksDB.
class BackgroundFaultListener : public rocksdb::EventListener {
 public:
  BackgroundFaultListener(std::shared_ptr<rocksdb::FaultInjectionTestFS> fs,
                          std::shared_ptr<BackgroundFaults> faults)
      : fs_(std::move(fs)), faults_(std::move(faults)) {}

  const char* Name() const override { return kListenerName; }

  void OnFlushBegin(rocksdb::DB*, const rocksdb::FlushJobInfo&) override { Arm(); }
  void OnFlushCompleted(rocksdb::DB*, const rocksdb::FlushJobInfo&) override { Disarm(); }
  void OnSubcompactionBegin(const rocksdb::SubcompactionJobInfo&) override { Arm(); }
  void OnSubcompactionCompleted(const rocksdb::SubcompactionJobInfo&) override { Disarm(); }
  // A failed flush never completes; its thread reports the error (a failed WAL write is
  // reported on a writer's thread, which this file system did not arm: left alone).
  void OnBackgroundError(rocksdb::BackgroundErrorReason, rocksdb::Status*) override { Disarm(); }

 private:
  void Arm() noexcept {
    try {
      Collect();
      // First: a failure part way leaves what was enabled for Disarm to undo.
      armed_by = faults_.get();
      uint32_t job = faults_->jobs.fetch_add(1);
      for (int i = 0; i < BackgroundFaults::kKinds; i++) {
        const BackgroundFaults::Plan& plan = faults_->plans[i];
        int one_in = plan.one_in.load();
        if (one_in <= 0) {
          fs_->DisableThreadLocalErrorInjection(io_type(i));
          continue;
        }
        fs_->SetThreadLocalErrorContext(io_type(i), plan.seed.load() + job, one_in,
                                        plan.retryable.load(), plan.data_loss.load());
        fs_->EnableThreadLocalErrorInjection(io_type(i));
      }
    } catch (...) {
      // Out of memory for an error context: this job runs without injection.
    }
  }

  void Disarm() noexcept {
    if (armed_by != faults_.get()) {
      return;
    }
    try {
      Collect();
      fs_->DisableAllThreadLocalErrorInjection();
    } catch (...) {
    }
    armed_by = nullptr;
  }

  // Moves this thread's count of injected errors into the shared one.
  void Collect() {
    if (armed_by != faults_.get()) {
      return;
    }
    for (int i = 0; i < BackgroundFaults::kKinds; i++) {
      faults_->injected[i] += fs_->GetAndResetInjectedThreadLocalErrorCount(io_type(i));
    }
  }

  std::shared_ptr<rocksdb::FaultInjectionTestFS> fs_;
  std::shared_ptr<BackgroundFaults> faults_;
};

}  // namespace

extern "C" {

pinrocks_fault_fs_t* pinrocks_fault_fs_create(unsigned char in_memory, int* status_code,
                                              char** errptr) PINROCKS_NOEXCEPT {
  pinrocks_fault_fs_t* result = nullptr;
  pinrocks::guarded(status_code, errptr, [&] {
    auto created = std::make_unique<pinrocks_fault_fs_t>();
    std::shared_ptr<rocksdb::FileSystem> base = rocksdb::FileSystem::Default();
    if (in_memory != 0) {
      // RocksDB's in-memory file system, with the real clock (as MemEnv's).
      base = std::make_shared<rocksdb::MockFileSystem>(rocksdb::SystemClock::Default());
    }
    created->fs = std::make_shared<rocksdb::FaultInjectionTestFS>(base);
    // Unsynced appends stay in the file object's buffer, reaching the disk only at a sync:
    // what a power loss drops is then exactly what was not synced.
    created->fs->SetInjectUnsyncedDataLoss(true);
    created->env = std::make_unique<rocksdb::CompositeEnvWrapper>(rocksdb::Env::Default(),
                                                                  created->fs, created->clock);
    result = created.release();
  });
  return result;
}

void pinrocks_fault_fs_destroy(pinrocks_fault_fs_t* fs) PINROCKS_NOEXCEPT { delete fs; }

void pinrocks_fault_fs_cap_sleeps(pinrocks_fault_fs_t* fs, int64_t max_micros) PINROCKS_NOEXCEPT {
  fs->clock->cap_micros.store(std::clamp<int64_t>(max_micros, 0, INT32_MAX));
}

void pinrocks_options_set_fault_fs(rocksdb_options_t* options, pinrocks_fault_fs_t* fs,
                                   int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    rocksdb::Options& rep = pinrocks::options_of(options);
    rep.env = fs->env.get();  // first: out of memory below leaves no background injection only
    // One such listener per options: the one for an earlier fault file system goes.
    std::erase_if(rep.listeners, [](const std::shared_ptr<rocksdb::EventListener>& l) {
      return l != nullptr && std::strcmp(l->Name(), kListenerName) == 0;
    });
    rep.listeners.push_back(std::make_shared<BackgroundFaultListener>(fs->fs, fs->background));
  });
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

void pinrocks_fault_fs_inject_background(pinrocks_fault_fs_t* fs, int kind, unsigned int seed,
                                         int one_in, unsigned char retryable,
                                         unsigned char data_loss) PINROCKS_NOEXCEPT {
  BackgroundFaults::Plan& plan = fs->background->plans[kind];
  plan.retryable = retryable != 0;
  plan.data_loss = data_loss != 0;
  plan.seed = seed;
  plan.one_in = one_in;  // last: a job beginning meanwhile sees the old plan or the new one
}

int pinrocks_fault_fs_background_injected(pinrocks_fault_fs_t* fs, int kind) PINROCKS_NOEXCEPT {
  return fs->background->injected[kind].exchange(0);
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

// RocksDB's events handed to Rust (src/callbacks/event_listener.rs): one EventListener whose
// overrides pass each event's data, borrowed for the call, to a Rust function, and carry back
// the choices RocksDB offers (a background error's severity, its automatic recovery).
//
// No exception leaves this file: the setter runs in `guarded`, each override catches what it
// could throw (std::bad_alloc) and skips its event.
#include "rocksdb/listener.h"

#include <string>
#include <vector>

#include "guarded.h"
#include "layout.h"
#include "pinrocks.h"
#include "rocksdb/status.h"

namespace {

pinrocks_slice view(const std::string& s) { return pinrocks_slice{s.data(), s.size()}; }

// A status's message for an event (empty for OK). May throw std::bad_alloc: callers catch.
std::string message_of(const rocksdb::Status& status) {
  return status.ok() ? std::string() : status.ToString();
}

// RocksDB's events handed to Rust, each with its data borrowed for the call. No exception
// leaves a callback: one that cannot build its lists (out of memory) skips the event.
class RustListener : public rocksdb::EventListener {
 public:
  RustListener(void* state, pinrocks_event_fn event, pinrocks_destroy_fn destroy)
      : state_(state), event_(event), destroy_(destroy) {}
  ~RustListener() override { destroy_(state_); }

  const char* Name() const override { return "pinrocks.RustListener"; }

  void OnFlushBegin(rocksdb::DB*, const rocksdb::FlushJobInfo& info) override {
    Flush(PINROCKS_EVENT_FLUSH_BEGIN, info);
  }
  void OnFlushCompleted(rocksdb::DB*, const rocksdb::FlushJobInfo& info) override {
    Flush(PINROCKS_EVENT_FLUSH_COMPLETED, info);
  }
  void OnCompactionBegin(rocksdb::DB*, const rocksdb::CompactionJobInfo& info) override {
    Compaction(PINROCKS_EVENT_COMPACTION_BEGIN, info);
  }
  void OnCompactionCompleted(rocksdb::DB*, const rocksdb::CompactionJobInfo& info) override {
    Compaction(PINROCKS_EVENT_COMPACTION_COMPLETED, info);
  }
  void OnStallConditionsChanged(const rocksdb::WriteStallInfo& info) override {
    const pinrocks_stall_info out{view(info.cf_name), static_cast<int>(info.condition.prev),
                                  static_cast<int>(info.condition.cur)};
    event_(state_, PINROCKS_EVENT_STALL_CHANGED, &out);
  }
  void OnBackgroundError(rocksdb::BackgroundErrorReason reason, rocksdb::Status* error) override {
    // An earlier listener suppressed it: RocksDB still calls the next ones, with OK.
    if (error->ok()) {
      return;
    }
    int severity = static_cast<int>(error->severity());
    const int before = severity;
    Error(PINROCKS_EVENT_BACKGROUND_ERROR, static_cast<int>(reason), *error, &severity);
    if (severity == before || severity < 0 ||
        severity >= static_cast<int>(rocksdb::Status::Severity::kMaxSeverity)) {
      return;
    }
    // The listener's choice: no error at all, or the same error at another severity (a
    // copy of the message: out of memory keeps the error as it was).
    try {
      *error = severity == 0
                   ? rocksdb::Status::OK()
                   : rocksdb::Status(*error, static_cast<rocksdb::Status::Severity>(severity));
    } catch (...) {
    }
  }
  void OnErrorRecoveryBegin(rocksdb::BackgroundErrorReason reason, rocksdb::Status error,
                            bool* auto_recovery) override {
    // RocksDB asks each listener right after its OnBackgroundError, even one that has just
    // suppressed the error (event_helpers.cc): then there is nothing to recover from.
    if (error.ok()) {
      return;
    }
    int choice = *auto_recovery ? 1 : 0;
    Error(PINROCKS_EVENT_RECOVERY_BEGIN, static_cast<int>(reason), error, &choice);
    *auto_recovery = choice != 0;
  }
  void OnErrorRecoveryEnd(const rocksdb::BackgroundErrorRecoveryInfo& info) override {
    Error(PINROCKS_EVENT_RECOVERY_END, -1, info.new_bg_error, nullptr);
  }
  void OnMemTableSealed(const rocksdb::MemTableInfo& info) override {
    const pinrocks_memtable_info out{view(info.cf_name), info.first_seqno, info.earliest_seqno,
                                     info.num_entries, info.num_deletes};
    event_(state_, PINROCKS_EVENT_MEMTABLE_SEALED, &out);
  }
  void OnTableFileCreated(const rocksdb::TableFileCreationInfo& info) override {
    TableFile(PINROCKS_EVENT_TABLE_FILE_CREATED, info.cf_name, info.file_path, info.job_id,
              static_cast<int>(info.reason), info.file_size, info.table_properties.num_entries,
              info.status);
  }
  void OnTableFileDeleted(const rocksdb::TableFileDeletionInfo& info) override {
    TableFile(PINROCKS_EVENT_TABLE_FILE_DELETED, std::string(), info.file_path, info.job_id, -1, 0,
              0, info.status);
  }
  void OnExternalFileIngested(rocksdb::DB*,
                              const rocksdb::ExternalFileIngestionInfo& info) override {
    const pinrocks_ingestion_info out{view(info.cf_name), view(info.external_file_path),
                                      view(info.internal_file_path), info.global_seqno,
                                      info.table_properties.num_entries};
    event_(state_, PINROCKS_EVENT_FILE_INGESTED, &out);
  }
  void OnColumnFamilyHandleDeletionStarted(rocksdb::ColumnFamilyHandle* handle) override {
    const std::string& name = handle->GetName();
    const pinrocks_slice out = view(name);
    event_(state_, PINROCKS_EVENT_CF_HANDLE_DELETED, &out);
  }

 private:
  void Flush(int event, const rocksdb::FlushJobInfo& info) noexcept {
    const pinrocks_flush_info out{view(info.cf_name),
                                  view(info.file_path),
                                  info.job_id,
                                  info.smallest_seqno,
                                  info.largest_seqno,
                                  static_cast<unsigned char>(info.triggered_writes_slowdown),
                                  static_cast<unsigned char>(info.triggered_writes_stop),
                                  rocksdb::GetFlushReasonString(info.flush_reason)};
    event_(state_, event, &out);
  }

  void Compaction(int event, const rocksdb::CompactionJobInfo& info) noexcept {
    try {
      std::vector<pinrocks_slice> inputs, outputs;
      inputs.reserve(info.input_files.size());
      outputs.reserve(info.output_files.size());
      for (const std::string& f : info.input_files) inputs.push_back(view(f));
      for (const std::string& f : info.output_files) outputs.push_back(view(f));
      const std::string message = message_of(info.status);
      const pinrocks_compaction_info out{view(info.cf_name),
                                         info.job_id,
                                         info.base_input_level,
                                         info.output_level,
                                         inputs.data(),
                                         inputs.size(),
                                         outputs.data(),
                                         outputs.size(),
                                         rocksdb::GetCompactionReasonString(info.compaction_reason),
                                         static_cast<int>(info.status.code()),
                                         view(message),
                                         info.stats.num_input_records,
                                         info.stats.num_output_records};
      event_(state_, event, &out);
    } catch (...) {
      // Out of memory for the lists: this event is skipped.
    }
  }

  void Error(int event, int reason, const rocksdb::Status& status, int* choice) noexcept {
    try {
      const std::string message = message_of(status);
      const pinrocks_error_info out{reason, static_cast<int>(status.code()), view(message),
                                    static_cast<int>(status.severity()), choice};
      event_(state_, event, &out);
    } catch (...) {
      // Out of memory for the message: this event is skipped (a choice stays as it was).
    }
  }

  void TableFile(int event, const std::string& cf_name, const std::string& path, int job_id,
                 int reason, uint64_t size, uint64_t entries,
                 const rocksdb::Status& status) noexcept {
    try {
      const std::string message = message_of(status);
      const pinrocks_table_file_info out{
          view(cf_name), view(path), job_id, reason, size, entries, static_cast<int>(status.code()),
          view(message)};
      event_(state_, event, &out);
    } catch (...) {
    }
  }

  void* state_;
  pinrocks_event_fn event_;
  pinrocks_destroy_fn destroy_;
};

}  // namespace

extern "C" {

void pinrocks_options_add_event_listener(rocksdb_options_t* options, void* state,
                                         pinrocks_event_fn event, pinrocks_destroy_fn destroy,
                                         int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded_hand_over(
      status_code, errptr, state, destroy,
      [&] { return std::make_shared<RustListener>(state, event, destroy); },
      [&](auto listener) {
        pinrocks::options_of(options).listeners.push_back(std::move(listener));
      });
}

}  // extern "C"

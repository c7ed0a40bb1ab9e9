// RocksDB's events handed to Rust (src/callbacks/event_listener.rs): one EventListener whose
// overrides pass each event's data, borrowed for the call, to the Rust function the
// listener's pinrocks_events names for it (none: the override returns at once), and carry
// back the choices RocksDB offers (a background error's severity, its automatic recovery).
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
  RustListener(void* state, const pinrocks_events& events, pinrocks_destroy_fn destroy)
      : state_(state), events_(events), destroy_(destroy) {}
  ~RustListener() override { destroy_(state_); }

  const char* Name() const override { return "pinrocks.RustListener"; }

  void OnFlushBegin(rocksdb::DB*, const rocksdb::FlushJobInfo& info) override {
    Flush(events_.on_flush_begin, info);
  }
  void OnFlushCompleted(rocksdb::DB*, const rocksdb::FlushJobInfo& info) override {
    Flush(events_.on_flush_completed, info);
  }
  void OnCompactionBegin(rocksdb::DB*, const rocksdb::CompactionJobInfo& info) override {
    Compaction(events_.on_compaction_begin, info);
  }
  void OnCompactionCompleted(rocksdb::DB*, const rocksdb::CompactionJobInfo& info) override {
    Compaction(events_.on_compaction_completed, info);
  }
  void OnStallConditionsChanged(const rocksdb::WriteStallInfo& info) override {
    if (events_.on_stall_conditions_changed == nullptr) {
      return;
    }
    const pinrocks_stall_info out{view(info.cf_name), static_cast<int>(info.condition.prev),
                                  static_cast<int>(info.condition.cur)};
    events_.on_stall_conditions_changed(state_, &out);
  }
  void OnBackgroundError(rocksdb::BackgroundErrorReason reason, rocksdb::Status* error) override {
    // An earlier listener suppressed it: RocksDB still calls the next ones, with OK.
    if (error->ok()) {
      return;
    }
    int severity = static_cast<int>(error->severity());
    const int before = severity;
    Error(events_.on_background_error, static_cast<int>(reason), *error, &severity);
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
    Error(events_.on_error_recovery_begin, static_cast<int>(reason), error, &choice);
    *auto_recovery = choice != 0;
  }
  void OnErrorRecoveryEnd(const rocksdb::BackgroundErrorRecoveryInfo& info) override {
    Error(events_.on_error_recovery_end, -1, info.new_bg_error, nullptr);
  }
  void OnMemTableSealed(const rocksdb::MemTableInfo& info) override {
    if (events_.on_memtable_sealed == nullptr) {
      return;
    }
    const pinrocks_memtable_info out{view(info.cf_name), info.first_seqno, info.earliest_seqno,
                                     info.num_entries, info.num_deletes};
    events_.on_memtable_sealed(state_, &out);
  }
  void OnTableFileCreated(const rocksdb::TableFileCreationInfo& info) override {
    TableFile(events_.on_table_file_created, info.cf_name, info.file_path, info.job_id,
              static_cast<int>(info.reason), info.file_size, info.table_properties.num_entries,
              info.status);
  }
  void OnTableFileDeleted(const rocksdb::TableFileDeletionInfo& info) override {
    TableFile(events_.on_table_file_deleted, std::string(), info.file_path, info.job_id, -1, 0, 0,
              info.status);
  }
  void OnExternalFileIngested(rocksdb::DB*,
                              const rocksdb::ExternalFileIngestionInfo& info) override {
    if (events_.on_external_file_ingested == nullptr) {
      return;
    }
    const pinrocks_ingestion_info out{view(info.cf_name), view(info.external_file_path),
                                      view(info.internal_file_path), info.global_seqno,
                                      info.table_properties.num_entries};
    events_.on_external_file_ingested(state_, &out);
  }
  void OnColumnFamilyHandleDeletionStarted(rocksdb::ColumnFamilyHandle* handle) override {
    if (events_.on_column_family_handle_deleted == nullptr) {
      return;
    }
    const std::string& name = handle->GetName();
    const pinrocks_slice out = view(name);
    events_.on_column_family_handle_deleted(state_, &out);
  }

 private:
  // Each helper takes the event's field of pinrocks_events: its type names the struct it
  // is handed, so a helper called with another event's field does not compile.
  using FlushFn = decltype(pinrocks_events::on_flush_begin);
  using CompactionFn = decltype(pinrocks_events::on_compaction_begin);
  using ErrorFn = decltype(pinrocks_events::on_background_error);
  using TableFileFn = decltype(pinrocks_events::on_table_file_created);

  void Flush(FlushFn event, const rocksdb::FlushJobInfo& info) noexcept {
    if (event == nullptr) {
      return;
    }
    const pinrocks_flush_info out{view(info.cf_name),
                                  view(info.file_path),
                                  info.job_id,
                                  info.smallest_seqno,
                                  info.largest_seqno,
                                  static_cast<unsigned char>(info.triggered_writes_slowdown),
                                  static_cast<unsigned char>(info.triggered_writes_stop),
                                  rocksdb::GetFlushReasonString(info.flush_reason)};
    event(state_, &out);
  }

  void Compaction(CompactionFn event, const rocksdb::CompactionJobInfo& info) noexcept {
    if (event == nullptr) {
      return;
    }
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
      event(state_, &out);
    } catch (...) {
      // Out of memory for the lists: this event is skipped.
    }
  }

  void Error(ErrorFn event, int reason, const rocksdb::Status& status, int* choice) noexcept {
    if (event == nullptr) {
      return;
    }
    try {
      const std::string message = message_of(status);
      const pinrocks_error_info out{reason, static_cast<int>(status.code()), view(message),
                                    static_cast<int>(status.severity()), choice};
      event(state_, &out);
    } catch (...) {
      // Out of memory for the message: this event is skipped (a choice stays as it was).
    }
  }

  void TableFile(TableFileFn event, const std::string& cf_name, const std::string& path, int job_id,
                 int reason, uint64_t size, uint64_t entries,
                 const rocksdb::Status& status) noexcept {
    if (event == nullptr) {
      return;
    }
    try {
      const std::string message = message_of(status);
      const pinrocks_table_file_info out{
          view(cf_name), view(path), job_id, reason, size, entries, static_cast<int>(status.code()),
          view(message)};
      event(state_, &out);
    } catch (...) {
    }
  }

  void* state_;
  const pinrocks_events events_;
  pinrocks_destroy_fn destroy_;
};

}  // namespace

extern "C" {

void pinrocks_options_add_event_listener(rocksdb_options_t* options, void* state,
                                         const pinrocks_events* events, pinrocks_destroy_fn destroy,
                                         int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded_hand_over(
      status_code, errptr, state, destroy,
      [&] { return std::make_shared<RustListener>(state, *events, destroy); },
      [&](auto listener) {
        pinrocks::options_of(options).listeners.push_back(std::move(listener));
      });
}

}  // extern "C"

// User code inside RocksDB: a merge operator, a compaction filter factory, a table-properties
// collector factory, a WAL filter and an info log (the event listener is in listener.cc) whose
// work is done by Rust functions (pinrocks.h says what each callback may assume). Written here
// rather than through the C API because the C API's merge operator copies the operand pointers into
// two new vectors per merge and its result into a malloc'd buffer, and its compaction filter wants
// a malloc'd new value: here operands reach Rust as RocksDB's own array of slices and results are
// written straight into RocksDB's std::string.
//
// No exception leaves this file: the setters run in `guarded`, the callbacks' bodies catch
// what they could throw (std::bad_alloc) and report a failed merge or keep the entry.
//
// Long because each kind of user code RocksDB calls is a C++ class here with its setter, all
// sharing the one owner of their Rust state (`RustState`).
#include <algorithm>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <memory>
#include <string>
#include <utility>

#include "guarded.h"
#include "layout.h"
#include "pinned_batch.h"
#include "pinrocks.h"
#include "rocksdb/compaction_filter.h"
#include "rocksdb/env.h"
#include "rocksdb/merge_operator.h"
#include "rocksdb/slice.h"
#include "rocksdb/table_properties.h"
#include "rocksdb/wal_filter.h"

// Operands are handed to Rust as RocksDB's own `Slice` array, read as `pinrocks_slice`.
static_assert(sizeof(rocksdb::Slice) == sizeof(pinrocks_slice));
static_assert(offsetof(rocksdb::Slice, data_) == offsetof(pinrocks_slice, data));
static_assert(offsetof(rocksdb::Slice, size_) == offsetof(pinrocks_slice, len));

namespace {

const pinrocks_slice* as_slices(const rocksdb::Slice* slices) {
  return reinterpret_cast<const pinrocks_slice*>(slices);
}

// Frees the Rust state with its owner; the state is given at construction and never null.
class RustState {
 public:
  RustState(void* state, pinrocks_destroy_fn destroy) : state_(state), destroy_(destroy) {}
  ~RustState() { destroy_(state_); }
  RustState(const RustState&) = delete;
  RustState& operator=(const RustState&) = delete;
  void* get() const { return state_; }

 private:
  void* state_;
  pinrocks_destroy_fn destroy_;
};

class RustMergeOperator : public rocksdb::MergeOperator {
 public:
  RustMergeOperator(std::string name, void* state, pinrocks_full_merge_fn full,
                    pinrocks_partial_merge_fn partial, pinrocks_destroy_fn destroy)
      : state_(state, destroy), name_(std::move(name)), full_(full), partial_(partial) {}

  bool FullMergeV2(const MergeOperationInput& in, MergeOperationOutput* out) const override {
    const size_t n = in.operand_list.size();
    size_t reuse = SIZE_MAX;
    bool ok = full_(state_.get(), in.key.data(), in.key.size(),
                    in.existing_value == nullptr ? nullptr : as_slices(in.existing_value),
                    as_slices(in.operand_list.data()), n, &out->new_value, &reuse) != 0;
    if (ok && reuse != SIZE_MAX) {
      if (reuse < n) {
        out->existing_operand = in.operand_list[reuse];
      } else if (reuse == n && in.existing_value != nullptr) {
        out->existing_operand = *in.existing_value;
      } else {
        ok = false;  // the Rust side checks this too; never name what is not there
      }
    }
    if (!ok) {
      // Reads of the key fail; flushes and compactions keep the operands, so the database
      // stays writable (kTryMerge would stop it).
      out->op_failure_scope = OpFailureScope::kMustMerge;
    }
    return ok;
  }

  bool PartialMergeMulti(const rocksdb::Slice& key, const std::deque<rocksdb::Slice>& operands,
                         std::string* new_value, rocksdb::Logger*) const override {
    if (partial_ == nullptr) {
      return false;
    }
    // A deque is not contiguous: gather the slices, on this frame for up to 32.
    try {
      pinrocks::InlineArray<rocksdb::Slice, pinrocks::kInlineKeys> slices(operands.size());
      std::copy(operands.begin(), operands.end(), slices.data());
      return Partial(key, slices.data(), operands.size(), new_value);
    } catch (...) {
      return false;  // no memory to gather them: "cannot merge these", RocksDB keeps them
    }
  }

  bool PartialMerge(const rocksdb::Slice& key, const rocksdb::Slice& left,
                    const rocksdb::Slice& right, std::string* new_value,
                    rocksdb::Logger*) const override {
    if (partial_ == nullptr) {
      return false;
    }
    rocksdb::Slice pair[2] = {left, right};
    return Partial(key, pair, 2, new_value);
  }

  const char* Name() const override { return name_.c_str(); }

 private:
  // "Cannot merge" leaves the result as it was given: empty.
  bool Partial(const rocksdb::Slice& key, const rocksdb::Slice* operands, size_t n,
               std::string* new_value) const {
    if (partial_(state_.get(), key.data(), key.size(), as_slices(operands), n, new_value) != 0) {
      return true;
    }
    new_value->clear();
    return false;
  }

  RustState state_;
  std::string name_;
  pinrocks_full_merge_fn full_;
  pinrocks_partial_merge_fn partial_;
};

class RustCompactionFilter : public rocksdb::CompactionFilter {
 public:
  RustCompactionFilter(const char* name, void* filter, pinrocks_filter_fn fn,
                       pinrocks_destroy_fn destroy)
      : name_(name), filter_(filter, destroy), fn_(fn) {}

  bool Filter(int level, const rocksdb::Slice& key, const rocksdb::Slice& value,
              std::string* new_value, bool* value_changed) const override {
    switch (
        fn_(filter_.get(), level, key.data(), key.size(), value.data(), value.size(), new_value)) {
      case PINROCKS_FILTER_REMOVE:
        return true;
      case PINROCKS_FILTER_CHANGE:
        *value_changed = true;
        return false;
      default:
        return false;
    }
  }

  const char* Name() const override { return name_; }

 private:
  const char* name_;  // the factory's, which outlives its filters
  RustState filter_;
  pinrocks_filter_fn fn_;
};

class RustCompactionFilterFactory : public rocksdb::CompactionFilterFactory {
 public:
  RustCompactionFilterFactory(std::string name, void* factory, pinrocks_create_filter_fn create,
                              pinrocks_filter_fn filter, pinrocks_destroy_fn destroy_filter,
                              pinrocks_destroy_fn destroy_factory)
      : factory_(factory, destroy_factory),
        name_(std::move(name)),
        create_(create),
        filter_(filter),
        destroy_filter_(destroy_filter) {}

  std::unique_ptr<rocksdb::CompactionFilter> CreateCompactionFilter(
      const rocksdb::CompactionFilter::Context& context) override {
    pinrocks_compaction_context ctx;
    ctx.is_full_compaction = context.is_full_compaction;
    ctx.is_manual_compaction = context.is_manual_compaction;
    ctx.input_start_level = context.input_start_level;
    ctx.column_family_id = context.column_family_id;
    void* filter = create_(factory_.get(), &ctx);
    if (filter == nullptr) {
      return nullptr;
    }
    // Out of memory: this compaction runs unfiltered (keeps every entry) rather than
    // letting std::bad_alloc unwind through RocksDB's compaction.
    try {
      return std::make_unique<RustCompactionFilter>(name_.c_str(), filter, filter_,
                                                    destroy_filter_);
    } catch (...) {
      destroy_filter_(filter);
      return nullptr;
    }
  }

  const char* Name() const override { return name_.c_str(); }

 private:
  RustState factory_;
  std::string name_;
  pinrocks_create_filter_fn create_;
  pinrocks_filter_fn filter_;
  pinrocks_destroy_fn destroy_filter_;
};

// One SST file's collector: Rust's, fed each entry and asked for its properties at the end.
// A panic in Rust is caught there (the entry or the properties are then left out).
class RustPropertiesCollector : public rocksdb::TablePropertiesCollector {
 public:
  RustPropertiesCollector(const char* name, void* collector, pinrocks_collector_add_fn add,
                          pinrocks_collector_finish_fn finish, pinrocks_destroy_fn destroy)
      : name_(name), collector_(collector, destroy), add_(add), finish_(finish) {}

  rocksdb::Status AddUserKey(const rocksdb::Slice& key, const rocksdb::Slice& value,
                             rocksdb::EntryType type, rocksdb::SequenceNumber, uint64_t) override {
    add_(collector_.get(), key.data(), key.size(), value.data(), value.size(),
         static_cast<int>(type));
    return rocksdb::Status::OK();
  }

  rocksdb::Status Finish(rocksdb::UserCollectedProperties* properties) override {
    finish_(collector_.get(), properties);
    return rocksdb::Status::OK();
  }

  rocksdb::UserCollectedProperties GetReadableProperties() const override { return {}; }

  const char* Name() const override { return name_; }

 private:
  const char* name_;  // the factory's, which outlives its collectors
  RustState collector_;
  pinrocks_collector_add_fn add_;
  pinrocks_collector_finish_fn finish_;
};

class RustPropertiesCollectorFactory : public rocksdb::TablePropertiesCollectorFactory {
 public:
  RustPropertiesCollectorFactory(std::string name, void* factory,
                                 pinrocks_create_collector_fn create, pinrocks_collector_add_fn add,
                                 pinrocks_collector_finish_fn finish,
                                 pinrocks_destroy_fn destroy_collector,
                                 pinrocks_destroy_fn destroy_factory)
      : factory_(factory, destroy_factory),
        name_(std::move(name)),
        create_(create),
        add_(add),
        finish_(finish),
        destroy_collector_(destroy_collector) {}

  rocksdb::TablePropertiesCollector* CreateTablePropertiesCollector(
      rocksdb::TablePropertiesCollectorFactory::Context context) override {
    void* collector = create_(factory_.get(), context.column_family_id);
    if (collector == nullptr) {
      return nullptr;
    }
    // Out of memory: this file is written without the collector rather than letting
    // std::bad_alloc unwind through RocksDB's flush or compaction.
    try {
      return new RustPropertiesCollector(name_.c_str(), collector, add_, finish_,
                                         destroy_collector_);
    } catch (...) {
      destroy_collector_(collector);
      return nullptr;
    }
  }

  const char* Name() const override { return name_.c_str(); }

 private:
  RustState factory_;
  std::string name_;
  pinrocks_create_collector_fn create_;
  pinrocks_collector_add_fn add_;
  pinrocks_collector_finish_fn finish_;
  pinrocks_destroy_fn destroy_collector_;
};

// Each batch the WAL replays at an open, shown to Rust, which decides (and turns a panic into
// an abort: no answer loses nothing, every other one may drop what was logged). Called on the
// opening thread. Never rewrites a batch.
using WalAction = rocksdb::WalFilter::WalProcessingOption;
static_assert(PINROCKS_WAL_REPLAY == static_cast<int>(WalAction::kContinueProcessing));
static_assert(PINROCKS_WAL_SKIP == static_cast<int>(WalAction::kIgnoreCurrentRecord));
static_assert(PINROCKS_WAL_STOP == static_cast<int>(WalAction::kStopReplay));
static_assert(PINROCKS_WAL_CORRUPTED == static_cast<int>(WalAction::kCorruptedRecord));

class RustWalFilter : public rocksdb::WalFilter {
 public:
  RustWalFilter(std::string name, void* state, pinrocks_wal_record_fn record,
                pinrocks_destroy_fn destroy)
      : state_(state, destroy), name_(std::move(name)), record_(record) {}

  WalProcessingOption LogRecordFound(unsigned long long wal_number, const std::string& file,
                                     const rocksdb::WriteBatch& batch, rocksdb::WriteBatch*,
                                     bool*) override {
    const int action =
        record_(state_.get(), wal_number, file.data(), file.size(), pinrocks::batch_handle(&batch));
    switch (action) {
      case PINROCKS_WAL_SKIP:
      case PINROCKS_WAL_STOP:
      case PINROCKS_WAL_CORRUPTED:
        return static_cast<WalProcessingOption>(action);
      default:
        return WalProcessingOption::kContinueProcessing;
    }
  }

  const char* Name() const override { return name_.c_str(); }

 private:
  RustState state_;
  std::string name_;
  pinrocks_wal_record_fn record_;
};

std::string& as_string(void* value) { return *static_cast<std::string*>(value); }

}  // namespace

// pinrocks.h's opaque name for the filter.
struct pinrocks_wal_filter {
  RustWalFilter filter;
};

namespace {

// The info log as lines handed to Rust: RocksDB's printf-style message formatted here, whole
// (no truncation: a long one is formatted again into a string of its length), with its
// level. Synchronous, on the thread that logs: nothing is buffered, so nothing is lost.
class RustLogger : public rocksdb::Logger {
 public:
  RustLogger(rocksdb::InfoLogLevel level, void* state, pinrocks_log_fn log,
             pinrocks_destroy_fn destroy)
      : rocksdb::Logger(level), state_(state), log_(log), destroy_(destroy) {}
  ~RustLogger() override { destroy_(state_); }

  void Logv(const char* format, va_list ap) override {
    Emit(rocksdb::InfoLogLevel::INFO_LEVEL, format, ap);
  }
  void Logv(const rocksdb::InfoLogLevel level, const char* format, va_list ap) override {
    if (level >= GetInfoLogLevel()) {
      Emit(level, format, ap);
    }
  }
  void LogHeader(const char* format, va_list ap) override {
    Emit(rocksdb::InfoLogLevel::HEADER_LEVEL, format, ap);
  }

 private:
  void Emit(rocksdb::InfoLogLevel level, const char* format, va_list ap) noexcept {
    try {
      char line[512];
      va_list copy;
      va_copy(copy, ap);
      const int len = std::vsnprintf(line, sizeof(line), format, copy);
      va_end(copy);
      if (len < 0) {
        return;
      }
      if (static_cast<size_t>(len) < sizeof(line)) {
        log_(state_, static_cast<int>(level), line, static_cast<size_t>(len));
        return;
      }
      std::string longer(static_cast<size_t>(len) + 1, '\0');
      va_copy(copy, ap);
      std::vsnprintf(longer.data(), longer.size(), format, copy);
      va_end(copy);
      log_(state_, static_cast<int>(level), longer.data(), static_cast<size_t>(len));
    } catch (...) {
      // Out of memory for one long line: that line is dropped, RocksDB goes on.
    }
  }

  void* state_;
  pinrocks_log_fn log_;
  pinrocks_destroy_fn destroy_;
};

}  // namespace

extern "C" {

char* pinrocks_value_resize(void* value, size_t len) PINROCKS_NOEXCEPT {
  try {
    as_string(value).resize(len);
    return as_string(value).data();
  } catch (...) {
    return nullptr;
  }
}

unsigned char pinrocks_value_append(void* value, const char* data, size_t len) PINROCKS_NOEXCEPT {
  try {
    as_string(value).append(data, len);
    return 1;
  } catch (...) {
    return 0;
  }
}

const char* pinrocks_value_data(void* value, size_t* len) PINROCKS_NOEXCEPT {
  *len = as_string(value).size();
  return as_string(value).data();
}

void pinrocks_options_set_merge_operator(rocksdb_options_t* options, const char* name, void* state,
                                         pinrocks_full_merge_fn full,
                                         pinrocks_partial_merge_fn partial,
                                         pinrocks_destroy_fn destroy, int* status_code,
                                         char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded_hand_over(
      status_code, errptr, state, destroy,
      [&] { return std::make_shared<RustMergeOperator>(name, state, full, partial, destroy); },
      [&](auto op) { pinrocks::options_of(options).merge_operator = std::move(op); });
}

void pinrocks_options_set_info_log(rocksdb_options_t* options, int level, void* state,
                                   pinrocks_log_fn log, pinrocks_destroy_fn destroy,
                                   int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded_hand_over(
      status_code, errptr, state, destroy,
      [&] {
        return std::make_shared<RustLogger>(static_cast<rocksdb::InfoLogLevel>(level), state, log,
                                            destroy);
      },
      [&](auto logger) { pinrocks::options_of(options).info_log = std::move(logger); });
}

void pinrocks_options_set_compaction_filter_factory(
    rocksdb_options_t* options, const char* name, void* factory, pinrocks_create_filter_fn create,
    pinrocks_filter_fn filter, pinrocks_destroy_fn destroy_filter,
    pinrocks_destroy_fn destroy_factory, int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded_hand_over(
      status_code, errptr, factory, destroy_factory,
      [&] {
        return std::make_shared<RustCompactionFilterFactory>(name, factory, create, filter,
                                                             destroy_filter, destroy_factory);
      },
      [&](auto made) {
        pinrocks::options_of(options).compaction_filter_factory = std::move(made);
      });
}

unsigned char pinrocks_user_properties_put(void* properties, const char* name, size_t namelen,
                                           const char* value, size_t valuelen) PINROCKS_NOEXCEPT {
  try {
    (*static_cast<rocksdb::UserCollectedProperties*>(properties))[std::string(name, namelen)] =
        std::string(value, valuelen);
    return 1;
  } catch (...) {
    return 0;
  }
}

void pinrocks_options_add_table_properties_collector_factory(
    rocksdb_options_t* options, const char* name, void* factory,
    pinrocks_create_collector_fn create, pinrocks_collector_add_fn add,
    pinrocks_collector_finish_fn finish, pinrocks_destroy_fn destroy_collector,
    pinrocks_destroy_fn destroy_factory, int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded_hand_over(
      status_code, errptr, factory, destroy_factory,
      [&] {
        return std::make_shared<RustPropertiesCollectorFactory>(name, factory, create, add, finish,
                                                                destroy_collector, destroy_factory);
      },
      [&](auto made) {
        pinrocks::options_of(options).table_properties_collector_factories.push_back(
            std::move(made));
      });
}

pinrocks_wal_filter* pinrocks_wal_filter_create(const char* name, void* state,
                                                pinrocks_wal_record_fn record,
                                                pinrocks_destroy_fn destroy, int* status_code,
                                                char** errptr) PINROCKS_NOEXCEPT {
  pinrocks_wal_filter* made = nullptr;
  pinrocks::guarded(status_code, errptr, [&] {
    std::string copied;
    try {
      copied = name;
      made = new pinrocks_wal_filter{RustWalFilter(std::move(copied), state, record, destroy)};
    } catch (...) {
      destroy(state);  // nothing owns it yet
      throw;
    }
  });
  return made;
}

void pinrocks_wal_filter_destroy(pinrocks_wal_filter* filter) PINROCKS_NOEXCEPT { delete filter; }

void pinrocks_options_set_wal_filter(rocksdb_options_t* options,
                                     pinrocks_wal_filter* filter) PINROCKS_NOEXCEPT {
  pinrocks::options_of(options).wal_filter = filter == nullptr ? nullptr : &filter->filter;
}

void pinrocks_table_properties_of(rocksdb_t* db, rocksdb_column_family_handle_t* column_family,
                                  pinrocks_table_file_fn file, pinrocks_pair_fn property, void* ctx,
                                  int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    rocksdb::TablePropertiesCollection collection;
    rocksdb::Status s = pinrocks::db_of(db)->GetPropertiesOfAllTables(
        pinrocks::handle_of(column_family), &collection);
    if (!s.ok()) {
      pinrocks::save_status(errptr, status_code, s);
      return;
    }
    for (const auto& [path, table] : collection) {
      pinrocks_table_properties numbers{table->num_entries,        table->num_deletions,
                                        table->num_merge_operands, table->num_range_deletions,
                                        table->data_size,          table->raw_key_size,
                                        table->raw_value_size,     table->num_data_blocks};
      file(ctx, path.data(), path.size(), &numbers);
      for (const auto& [name, value] : table->user_collected_properties) {
        property(ctx, name.data(), name.size(), value.data(), value.size());
      }
    }
  });
}

}  // extern "C"

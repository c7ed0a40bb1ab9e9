// What the option contract (src/options/contract.rs) reads of RocksDB: the option names
// each of RocksDB's type maps knows (for the test that the table names them all), and the
// options as RocksDB will use them, serialized by RocksDB itself (so whatever path set a
// value, typed, by name, an OPTIONS file or the raw C API, the table checks that value).
#include <cstdio>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "guarded.h"
#include "layout.h"
#include "options/options_helper.h"
#include "pinrocks.h"
#include "rocksdb/configurable.h"
#include "rocksdb/convenience.h"
#include "rocksdb/table.h"

namespace {

// A double as its shortest exact decimal: RocksDB serializes doubles with "%f", which
// writes 2.5e-10 as 0.000000, and a bound on a divisor must see the value RocksDB divides by.
std::string exact(double value) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", value);
  return buf;
}

// Hands each option of `object` to `fn` by name, each value read on its own
// (Configurable::GetOption): splitting a whole serialized string again would let a string
// value holding "x;name=value" hide the real value of `name`. A struct's value is handed
// without its braces; the doubles in `doubles` exactly. Names RocksDB cannot serialize are
// left out.
void deliver_each(const rocksdb::Configurable& object, const std::string& prefix,
                  const std::unordered_map<std::string, double>& doubles, pinrocks_pair_fn fn,
                  void* ctx) {
  rocksdb::ConfigOptions config;
  std::unordered_set<std::string> names;
  if (!object.GetOptionNames(config, &names).ok()) {
    return;
  }
  for (const std::string& name : names) {
    std::string value;
    if (!object.GetOption(config, name, &value).ok()) {
      continue;
    }
    const auto exactly = doubles.find(name);
    if (exactly != doubles.end()) {
      value = exact(exactly->second);
    } else if (value.size() >= 2 && value.front() == '{' && value.back() == '}') {
      value = value.substr(1, value.size() - 2);
    }
    const std::string full = prefix + name;
    fn(ctx, full.data(), full.size(), value.data(), value.size());
  }
}

// A new object of the kind `scope` names, with RocksDB's defaults (nullptr if none).
std::unique_ptr<rocksdb::Configurable> default_of(int scope) {
  switch (scope) {
    case PINROCKS_OPTION_SCOPE_DB:
      return rocksdb::DBOptionsAsConfigurable(rocksdb::DBOptions());
    case PINROCKS_OPTION_SCOPE_CF:
      return rocksdb::CFOptionsAsConfigurable(rocksdb::ColumnFamilyOptions());
    case PINROCKS_OPTION_SCOPE_BLOCK_BASED:
      return std::unique_ptr<rocksdb::Configurable>(rocksdb::NewBlockBasedTableFactory());
    case PINROCKS_OPTION_SCOPE_PLAIN:
      return std::unique_ptr<rocksdb::Configurable>(rocksdb::NewPlainTableFactory());
    case PINROCKS_OPTION_SCOPE_CUCKOO:
      return std::unique_ptr<rocksdb::Configurable>(rocksdb::NewCuckooTableFactory());
    default:
      return nullptr;
  }
}

// Runs `body` on a default object of the kind `scope` names, guarded; an unknown scope is
// an error.
template <typename Body>
void with_default(int scope, int* status_code, char** errptr, Body&& body) {
  pinrocks::guarded(status_code, errptr, [&] {
    const std::unique_ptr<rocksdb::Configurable> object = default_of(scope);
    if (object == nullptr) {
      pinrocks::save_error(errptr, status_code, rocksdb::Status::kInvalidArgument,
                           "unknown option scope");
      return;
    }
    body(*object);
  });
}

}  // namespace

extern "C" {

void pinrocks_option_names(int scope, unsigned char mutable_only, pinrocks_pair_fn fn, void* ctx,
                           int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  with_default(scope, status_code, errptr, [&](const rocksdb::Configurable& object) {
    rocksdb::ConfigOptions config;
    config.mutable_options_only = mutable_only != 0;
    std::unordered_set<std::string> names;
    const rocksdb::Status s = object.GetOptionNames(config, &names);
    if (!s.ok()) {
      pinrocks::save_status(errptr, status_code, s);
      return;
    }
    for (const std::string& name : names) {
      fn(ctx, name.data(), name.size(), "", 0);
    }
  });
}

void pinrocks_option_defaults(int scope, pinrocks_pair_fn fn, void* ctx, int* status_code,
                              char** errptr) PINROCKS_NOEXCEPT {
  with_default(scope, status_code, errptr,
               [&](const rocksdb::Configurable& object) { deliver_each(object, "", {}, fn, ctx); });
}

void pinrocks_options_serialized(const rocksdb_options_t* options, int scope, pinrocks_pair_fn fn,
                                 void* ctx, int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    const rocksdb::Options& o = pinrocks::options_of(options);
    std::unique_ptr<rocksdb::Configurable> owned;
    const rocksdb::Configurable* object = nullptr;
    std::unordered_map<std::string, double> doubles;
    switch (scope) {
      case PINROCKS_OPTION_SCOPE_DB:
        owned = rocksdb::DBOptionsAsConfigurable(rocksdb::DBOptions(o));
        object = owned.get();
        break;
      case PINROCKS_OPTION_SCOPE_CF:
        // Reading the family's options builds its derived options, sized by num_levels
        // (MutableCFOptions::RefreshDerivedOptions): outside the table's bound, that one
        // value alone is handed over, for the table to refuse.
        if (o.num_levels < 1 || o.num_levels > PINROCKS_MAX_NUM_LEVELS) {
          const std::string name = "num_levels", value = std::to_string(o.num_levels);
          fn(ctx, name.data(), name.size(), value.data(), value.size());
          return;
        }
        owned = rocksdb::CFOptionsAsConfigurable(rocksdb::ColumnFamilyOptions(o));
        object = owned.get();
        doubles = {
            {"memtable_prefix_bloom_size_ratio", o.memtable_prefix_bloom_size_ratio},
            {"max_bytes_for_level_multiplier", o.max_bytes_for_level_multiplier},
            {"blob_garbage_collection_age_cutoff", o.blob_garbage_collection_age_cutoff},
            {"blob_garbage_collection_force_threshold", o.blob_garbage_collection_force_threshold},
            {"experimental_mempurge_threshold", o.experimental_mempurge_threshold},
        };
        break;
      case PINROCKS_OPTION_SCOPE_TABLE:
        // RocksDB leaves no factory for a table_factory id it cannot make by name: nothing
        // to hand over (the column family's table_factory then names no format pinrocks
        // knows, and is refused).
        if (o.table_factory == nullptr) {
          return;
        }
        object = o.table_factory.get();
        if (const auto* plain = o.table_factory->GetOptions<rocksdb::PlainTableOptions>()) {
          doubles = {{"hash_table_ratio", plain->hash_table_ratio}};
        } else if (const auto* block =
                       o.table_factory->GetOptions<rocksdb::BlockBasedTableOptions>()) {
          doubles = {{"data_block_hash_table_util_ratio", block->data_block_hash_table_util_ratio}};
        }
        break;
      default:
        pinrocks::save_error(errptr, status_code, rocksdb::Status::kInvalidArgument,
                             "unknown option scope");
        return;
    }
    if (object == nullptr) {
      return;
    }
    deliver_each(*object, "", doubles, fn, ctx);
    // The memtable factory's own options (hash buckets, a vector's reserve), which the
    // column family's options name only by the factory's id.
    if (scope == PINROCKS_OPTION_SCOPE_CF && o.memtable_factory != nullptr) {
      deliver_each(*o.memtable_factory, "memtable_factory.", {}, fn, ctx);
    }
  });
}

void pinrocks_options_validate(const rocksdb_options_t* options, int* status_code,
                               char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    const rocksdb::Options& o = pinrocks::options_of(options);
    pinrocks::report(
        errptr, status_code,
        rocksdb::ValidateOptions(rocksdb::DBOptions(o), rocksdb::ColumnFamilyOptions(o)));
  });
}

rocksdb_options_t* pinrocks_live_options(rocksdb_t* db, rocksdb_column_family_handle_t* cf,
                                         int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  rocksdb_options_t* result = nullptr;
  pinrocks::guarded(status_code, errptr, [&] {
    rocksdb::DB* d = pinrocks::db_of(db);
    rocksdb::Options live(d->GetDBOptions(), d->GetOptions(pinrocks::handle_of(cf)));
    result = rocksdb_options_create();
    pinrocks::options_of(result) = std::move(live);
  });
  return result;
}

}  // extern "C"

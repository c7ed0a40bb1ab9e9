// Options and statistics beyond RocksDB's C API: the capped prefix extractor (the C API has
// only the fixed one), a Rust one set without an exception escaping, memtable kinds (the C
// API has no way back to a skip list), paths (db_paths, cf_paths, wal_dir, db_log_dir), a copy of
// read options (for an iterator that needs its own bounds), and the database's statistics read by
// ticker and histogram number (the C API reads them only through the options object that opened
// the database), the perf metric the C API forgets and the perf context's per-level counters.
//
// Long because each of these is a few lines of C++ over a setting or reading the C API lacks,
// and one file keeps them where a reader of the options looks.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "env/mock_env.h"
#include "guarded.h"
#include "layout.h"
#include "pinrocks.h"
#include "rocksdb/cache.h"
#include "rocksdb/convenience.h"
#include "rocksdb/env.h"
#include "rocksdb/file_checksum.h"
#include "rocksdb/memtablerep.h"
#include "rocksdb/perf_context.h"
#include "rocksdb/slice_transform.h"
#include "rocksdb/statistics.h"
#include "rocksdb/system_clock.h"
#include "rocksdb/utilities/options_util.h"
#include "util/crc32c.h"

// The handle a pinrocks_statistics_t* is: a shared reference to the database's Statistics.
// pinrocks' own struct (no C API wrapper): only this file knows it.
struct pinrocks_statistics_t {
  std::shared_ptr<rocksdb::Statistics> shared;
};

extern "C" {

void pinrocks_options_set_prefix_extractor(rocksdb_options_t* options, int kind, size_t len,
                                           int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    rocksdb::Options& o = pinrocks::options_of(options);
    switch (kind) {
      case PINROCKS_PREFIX_NONE:
        o.prefix_extractor.reset();
        break;
      case PINROCKS_PREFIX_FIXED:
        o.prefix_extractor.reset(rocksdb::NewFixedPrefixTransform(len));
        break;
      case PINROCKS_PREFIX_CAPPED:
        o.prefix_extractor.reset(rocksdb::NewCappedPrefixTransform(len));
        break;
      default:
        pinrocks::save_error(errptr, status_code, rocksdb::Status::kInvalidArgument,
                             "unknown prefix extractor kind");
    }
  });
}

unsigned char pinrocks_options_has_prefix_extractor(const rocksdb_options_t* options)
    PINROCKS_NOEXCEPT {
  return pinrocks::options_of(options).prefix_extractor != nullptr ? 1 : 0;
}

void pinrocks_options_set_custom_prefix_extractor(rocksdb_options_t* options,
                                                  rocksdb_slicetransform_t* extractor,
                                                  int* status_code,
                                                  char** errptr) PINROCKS_NOEXCEPT {
  // The C API's setter, guarded: its shared_ptr::reset deletes the extractor if it cannot
  // allocate a control block, then throws.
  pinrocks::guarded(status_code, errptr,
                    [&] { rocksdb_options_set_prefix_extractor(options, extractor); });
}

void pinrocks_options_set_memtable(rocksdb_options_t* options, int kind, size_t count,
                                   int32_t height, int32_t branching, int* status_code,
                                   char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    rocksdb::Options& o = pinrocks::options_of(options);
    switch (kind) {
      case PINROCKS_MEMTABLE_SKIP_LIST:
        o.memtable_factory = std::make_shared<rocksdb::SkipListFactory>(count);
        break;
      case PINROCKS_MEMTABLE_VECTOR:
        o.memtable_factory = std::make_shared<rocksdb::VectorRepFactory>(count);
        break;
      case PINROCKS_MEMTABLE_HASH_SKIP_LIST:
        o.memtable_factory.reset(rocksdb::NewHashSkipListRepFactory(count, height, branching));
        break;
      case PINROCKS_MEMTABLE_HASH_LINK_LIST:
        o.memtable_factory.reset(rocksdb::NewHashLinkListRepFactory(count));
        break;
      default:
        pinrocks::save_error(errptr, status_code, rocksdb::Status::kInvalidArgument,
                             "unknown memtable kind");
    }
  });
}

void pinrocks_options_set_paths(rocksdb_options_t* options, int kind, const char* const* paths,
                                const uint64_t* target_sizes, size_t count, int* status_code,
                                char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    rocksdb::Options& o = pinrocks::options_of(options);
    std::vector<rocksdb::DbPath> listed;
    for (size_t i = 0; i < count; i++) {
      listed.emplace_back(paths[i], target_sizes[i]);
    }
    switch (kind) {
      case PINROCKS_PATHS_DB:
        o.db_paths = std::move(listed);
        break;
      case PINROCKS_PATHS_CF:
        o.cf_paths = std::move(listed);
        break;
      case PINROCKS_PATH_WAL_DIR:
        o.wal_dir = count > 0 ? paths[0] : "";
        break;
      case PINROCKS_PATH_DB_LOG_DIR:
        o.db_log_dir = count > 0 ? paths[0] : "";
        break;
      default:
        pinrocks::save_error(errptr, status_code, rocksdb::Status::kInvalidArgument,
                             "unknown path setting");
    }
  });
}

rocksdb_readoptions_t* pinrocks_readoptions_copy(const rocksdb_readoptions_t* source)
    PINROCKS_NOEXCEPT {
  try {
    rocksdb_readoptions_t* copy = rocksdb_readoptions_create();
    // Only `rep`: the bounds and timestamps in `source` point into `source`; the caller sets
    // its own. So do a request id, a table index factory and (RocksDB 11.12) a table filter
    // set through the C API; in 11.8.1 the filter is a std::function that calls back with the
    // source's state. None is pinrocks' own: the copy goes without them.
    rocksdb::ReadOptions& rep = pinrocks::read_options_of(copy);
    rep = pinrocks::read_options_of(source);
    rep.iterate_lower_bound = nullptr;
    rep.iterate_upper_bound = nullptr;
    rep.timestamp = nullptr;
    rep.iter_start_ts = nullptr;
    rep.request_id = nullptr;
    rep.table_index_factory = nullptr;
    rep.table_filter = nullptr;
    return copy;
  } catch (...) {
    return nullptr;
  }
}

size_t pinrocks_options_comparator_name(const rocksdb_options_t* options, char* buf,
                                        size_t buflen) PINROCKS_NOEXCEPT {
  const rocksdb::Comparator* comparator = pinrocks::options_of(options).comparator;
  const char* name = comparator == nullptr ? "" : comparator->Name();
  size_t len = std::strlen(name);
  std::memcpy(buf, name, len < buflen ? len : buflen);
  return len;
}

pinrocks_statistics_t* pinrocks_statistics_of_options(const rocksdb_options_t* options)
    PINROCKS_NOEXCEPT {
  const auto& statistics = pinrocks::options_of(options).statistics;
  if (!statistics) {
    return nullptr;
  }
  try {
    return new pinrocks_statistics_t{statistics};
  } catch (...) {
    return nullptr;
  }
}

void pinrocks_statistics_destroy(pinrocks_statistics_t* statistics) PINROCKS_NOEXCEPT {
  delete statistics;
}

size_t pinrocks_statistics_tickers(pinrocks_statistics_t* statistics, uint32_t first, uint64_t* out,
                                   size_t len) PINROCKS_NOEXCEPT {
  for (size_t i = 0; i < len && first + i < rocksdb::TICKER_ENUM_MAX; ++i) {
    out[i] = statistics->shared->getTickerCount(static_cast<uint32_t>(first + i));
  }
  return rocksdb::TICKER_ENUM_MAX;
}

size_t pinrocks_statistics_histograms(pinrocks_statistics_t* statistics, uint32_t first,
                                      pinrocks_histogram* out, size_t len, int* status_code,
                                      char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    for (size_t i = 0; i < len && first + i < rocksdb::HISTOGRAM_ENUM_MAX; ++i) {
      rocksdb::HistogramData data;
      statistics->shared->histogramData(static_cast<uint32_t>(first + i), &data);
      out[i] = pinrocks_histogram{data.count,        data.sum,          data.min,
                                  data.max,          data.average,      data.median,
                                  data.percentile95, data.percentile99, data.standard_deviation};
    }
  });
  return rocksdb::HISTOGRAM_ENUM_MAX;
}

uint64_t pinrocks_perf_metric(rocksdb_perfcontext_t* context, int metric) PINROCKS_NOEXCEPT {
  switch (metric) {
    case rocksdb_blob_cache_read_byte:
      // The context is this thread's (rocksdb_perfcontext_create wraps get_perf_context()).
      return rocksdb::get_perf_context()->blob_cache_read_byte;
    default:
      return rocksdb_perfcontext_metric(context, metric);
  }
}

void pinrocks_perf_per_level(unsigned char on, int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    rocksdb::PerfContext* perf = rocksdb::get_perf_context();
    if (on != 0) {
      perf->EnablePerLevelPerfContext();
      // Every level a read can count at, made now: RocksDB would insert a level's entry
      // on a read's path, where std::bad_alloc leaves a multi-get's SuperVersion taken.
      // The level -1 of a reader opened outside a read of a level reads as UINT32_MAX.
      auto& levels = *perf->level_to_perf_context;
      for (uint32_t level = 0; level < PINROCKS_MAX_NUM_LEVELS; ++level) {
        levels.try_emplace(level);
      }
      levels.try_emplace(UINT32_MAX);
    } else {
      perf->DisablePerLevelPerfContext();
    }
  });
}

size_t pinrocks_perf_levels(pinrocks_level_perf* out, size_t len) PINROCKS_NOEXCEPT {
  const rocksdb::PerfContext* perf = rocksdb::get_perf_context();
  if (perf->level_to_perf_context == nullptr) {
    return 0;
  }
  size_t i = 0;
  for (const auto& [level, c] : *perf->level_to_perf_context) {
    const bool counted = c.bloom_filter_useful != 0 || c.bloom_filter_full_positive != 0 ||
                         c.bloom_filter_full_true_positive != 0 || c.user_key_return_count != 0 ||
                         c.get_from_table_nanos != 0 || c.block_cache_hit_count != 0 ||
                         c.block_cache_miss_count != 0;
    if (!counted) {
      continue;  // not counted at since the last reset
    }
    if (i < len) {
      out[i] = pinrocks_level_perf{level,
                                   c.bloom_filter_useful,
                                   c.bloom_filter_full_positive,
                                   c.bloom_filter_full_true_positive,
                                   c.user_key_return_count,
                                   c.get_from_table_nanos,
                                   c.block_cache_hit_count,
                                   c.block_cache_miss_count};
    }
    ++i;
  }
  return i;
}

void pinrocks_statistics_reset(pinrocks_statistics_t* statistics, int* status_code,
                               char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr,
                    [&] { pinrocks::report(errptr, status_code, statistics->shared->Reset()); });
}

void pinrocks_options_set_by_name(rocksdb_options_t* options, size_t count, const char* const* keys,
                                  const char* const* values, const int* scopes, size_t* refused,
                                  int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    rocksdb::Options& target = pinrocks::options_of(options);
    rocksdb::ConfigOptions config;
    config.ignore_unknown_options = false;
    config.input_strings_escaped = false;
    // Applied to copies, pair by pair, so the first refused pair is known and nothing of a
    // refused set reaches `options`. Each pair goes to the one parser its scope names: a
    // name both maps know (one of them as deprecated, parsed and ignored) is set where it
    // is in force.
    rocksdb::DBOptions db(target);
    rocksdb::ColumnFamilyOptions cf(target);
    // Parsing a column family option builds its derived options, sized by num_levels
    // (MutableCFOptions::RefreshDerivedOptions): a base that already holds a huge count is
    // refused before, not after, that allocation.
    if (cf.num_levels < 1 || cf.num_levels > PINROCKS_MAX_NUM_LEVELS) {
      *refused = count;
      pinrocks::save_error(errptr, status_code, rocksdb::Status::kInvalidArgument,
                           "num_levels outside 1..=1000");
      return;
    }
    // The copy gets a table factory of its own: RocksDB changes a table option by name on
    // the factory in place when it can (TableFactoryParseFn's first try), and the factory
    // is shared with `options` and everything made from them.
    if (cf.table_factory != nullptr) {
      cf.table_factory = cf.table_factory->Clone();
    }
    for (size_t i = 0; i < count; ++i) {
      const std::unordered_map<std::string, std::string> one{{keys[i], values[i]}};
      rocksdb::Status s;
      if (scopes[i] == PINROCKS_OPTION_SCOPE_DB) {
        rocksdb::DBOptions db_next;
        s = rocksdb::GetDBOptionsFromMap(config, db, one, &db_next);
        if (s.ok()) {
          db = db_next;
        }
      } else {
        rocksdb::ColumnFamilyOptions cf_next;
        s = rocksdb::GetColumnFamilyOptionsFromMap(config, cf, one, &cf_next);
        if (s.ok()) {
          cf = cf_next;
        }
      }
      if (!s.ok()) {
        *refused = i;
        pinrocks::save_status(errptr, status_code, s);
        return;
      }
    }
    target = rocksdb::Options(db, cf);
  });
}

void pinrocks_env_lower_thread_pool_priority(int pool, int cpu_priority, unsigned char io,
                                             int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    // PosixEnv indexes its pools by the value: only its three.
    if (pool < rocksdb::Env::BOTTOM || pool > rocksdb::Env::HIGH || cpu_priority > 1) {
      pinrocks::save_error(errptr, status_code, rocksdb::Status::kInvalidArgument,
                           "no such thread pool or priority to lower to");
      return;
    }
    rocksdb::Env* env = rocksdb::Env::Default();
    auto which = static_cast<rocksdb::Env::Priority>(pool);
    if (cpu_priority >= 0) {
      pinrocks::report(
          errptr, status_code,
          env->LowerThreadPoolCPUPriority(which, static_cast<rocksdb::CpuPriority>(cpu_priority)));
    }
    if (io != 0) {
      env->LowerThreadPoolIOPriority(which);
    }
  });
}

void pinrocks_env_set_background_threads(int pool, int threads, int* status_code,
                                         char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    rocksdb::Env* env = rocksdb::Env::Default();
    pinrocks::keeping_pools(env, [&] {
      env->SetBackgroundThreads(threads, static_cast<rocksdb::Env::Priority>(pool));
    });
  });
}

void pinrocks_options_increase_parallelism(rocksdb_options_t* options, int threads,
                                           int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    rocksdb::Options& o = pinrocks::options_of(options);
    pinrocks::keeping_pools(o.env, [&] { o.IncreaseParallelism(threads); });
  });
}

void pinrocks_options_string_to_map(const char* options, size_t optionslen, pinrocks_pair_fn fn,
                                    void* ctx, int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    std::unordered_map<std::string, std::string> map;
    const rocksdb::Status s = rocksdb::StringToMap(std::string(options, optionslen), &map);
    if (!s.ok()) {
      pinrocks::save_status(errptr, status_code, s);
      return;
    }
    for (const auto& [key, value] : map) {
      fn(ctx, key.data(), key.size(), value.data(), value.size());
    }
  });
}

rocksdb_cache_t* pinrocks_cache_create_lru(size_t capacity, int shard_bits,
                                           double high_pri_pool_ratio, double low_pri_pool_ratio,
                                           unsigned char strict_capacity_limit,
                                           size_t secondary_capacity, int secondary_compression,
                                           int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  rocksdb_cache_t* cache = nullptr;
  pinrocks::guarded(status_code, errptr, [&] {
    rocksdb::LRUCacheOptions options;
    options.capacity = capacity;
    options.num_shard_bits = shard_bits;
    options.strict_capacity_limit = strict_capacity_limit != 0;
    options.high_pri_pool_ratio = high_pri_pool_ratio;
    options.low_pri_pool_ratio = low_pri_pool_ratio;
    if (secondary_capacity > 0) {
      rocksdb::CompressedSecondaryCacheOptions secondary;
      secondary.capacity = secondary_capacity;
      secondary.compression_type = static_cast<rocksdb::CompressionType>(secondary_compression);
      options.secondary_cache = secondary.MakeSharedSecondaryCache();
    }
    std::shared_ptr<rocksdb::Cache> made = options.MakeSharedCache();
    if (!made) {
      // LRUCacheOptions::MakeSharedCache refuses 20+ shard bits, ratios outside [0, 1] and
      // pools of more than the whole cache (a NaN passes it: refused in Rust first).
      pinrocks::save_error(errptr, status_code, rocksdb::Status::kInvalidArgument,
                           "LRU cache options refused by RocksDB (shard bits 0..19 or -1, "
                           "pool ratios 0..1, 1 at most together)");
      return;
    }
    cache = rocksdb_cache_create_lru(0);
    pinrocks::cache_of(cache) = std::move(made);
  });
  return cache;
}

rocksdb_cache_t* pinrocks_cache_create_hyper_clock(size_t capacity, size_t estimated_entry_charge,
                                                   int shard_bits, int* status_code,
                                                   char** errptr) PINROCKS_NOEXCEPT {
  rocksdb_cache_t* cache = nullptr;
  pinrocks::guarded(status_code, errptr, [&] {
    rocksdb::HyperClockCacheOptions options(capacity, estimated_entry_charge);
    options.num_shard_bits = shard_bits;
    // Allocates its table up front: bad_alloc is caught above.
    std::shared_ptr<rocksdb::Cache> made = options.MakeSharedCache();
    if (!made) {
      // HyperClockCacheOptions::MakeSharedCache refuses 20+ shard bits.
      pinrocks::save_error(errptr, status_code, rocksdb::Status::kInvalidArgument,
                           "HyperClockCache options refused by RocksDB (shard bits 0..19 or -1)");
      return;
    }
    cache = rocksdb_cache_create_lru(0);
    pinrocks::cache_of(cache) = std::move(made);
  });
  return cache;
}

struct pinrocks_mem_env_t {
  // RocksDB's in-memory file system under the default Env's threads and clock (NewMemEnv's
  // own clock moves only when something sleeps: TTLs, throttling and timers would stop).
  std::unique_ptr<rocksdb::Env> env;
};

pinrocks_mem_env_t* pinrocks_mem_env_create(int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  pinrocks_mem_env_t* result = nullptr;
  pinrocks::guarded(status_code, errptr, [&] {
    auto created = std::make_unique<pinrocks_mem_env_t>();
    created->env = rocksdb::NewCompositeEnv(
        std::make_shared<rocksdb::MockFileSystem>(rocksdb::SystemClock::Default()));
    result = created.release();
  });
  return result;
}

void pinrocks_mem_env_destroy(pinrocks_mem_env_t* env) PINROCKS_NOEXCEPT { delete env; }

void pinrocks_options_set_mem_env(rocksdb_options_t* options,
                                  pinrocks_mem_env_t* env) PINROCKS_NOEXCEPT {
  pinrocks::options_of(options).env = env->env.get();
}

unsigned char pinrocks_options_env_file_exists(const rocksdb_options_t* options, const char* path,
                                               int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  unsigned char exists = 0;
  pinrocks::guarded(status_code, errptr, [&] {
    rocksdb::Status s = pinrocks::options_of(options).env->FileExists(path);
    if (s.ok()) {
      exists = 1;
    } else if (!s.IsNotFound()) {
      pinrocks::report(errptr, status_code, s);
    }
  });
  return exists;
}

char* pinrocks_options_env_read_newest_options_file(const rocksdb_options_t* options,
                                                    const char* dir, size_t* len, int* status_code,
                                                    char** errptr) PINROCKS_NOEXCEPT {
  char* text = nullptr;
  *len = 0;
  pinrocks::guarded(status_code, errptr, [&] {
    rocksdb::Env* env = pinrocks::options_of(options).env;
    std::string name;
    rocksdb::Status s = rocksdb::GetLatestOptionsFileName(dir, env, &name);
    if (s.IsNotFound()) {
      return;  // no directory, or no OPTIONS file in it: no database yet
    }
    std::string data;
    if (s.ok()) {
      s = rocksdb::ReadFileToString(env, std::string(dir) + "/" + name, &data);
    }
    if (!s.ok()) {
      pinrocks::report(errptr, status_code, s);
      return;
    }
    text = static_cast<char*>(std::malloc(data.size() + 1));
    if (text == nullptr) {
      throw std::bad_alloc();
    }
    std::memcpy(text, data.data(), data.size());
    *len = data.size();
  });
  return text;
}

void pinrocks_options_set_file_checksums(rocksdb_options_t* options, unsigned char on,
                                         int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    pinrocks::options_of(options).file_checksum_gen_factory =
        on ? rocksdb::GetFileChecksumGenCrc32cFactory() : nullptr;
  });
}

size_t pinrocks_crc32c_mode(char* buf, size_t buflen) PINROCKS_NOEXCEPT {
  try {
    std::string mode = rocksdb::crc32c::IsFastCrc32Supported();
    std::memcpy(buf, mode.data(), mode.size() < buflen ? mode.size() : buflen);
    return mode.size();
  } catch (...) {
    return 0;
  }
}

}  // extern "C"

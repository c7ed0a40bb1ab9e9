// Rate limiters with every knob of RocksDB's GenericRateLimiter (the C API sets neither the
// burst nor anything at run time) and its counters. Values are bounded by the caller
// (src/options/rate_limiter.rs) before they get here; the checks here catch what would crash
// or hang RocksDB if a caller did not.
#include "rocksdb/rate_limiter.h"

#include <cstdint>
#include <memory>

#include "guarded.h"
#include "layout.h"
#include "pinrocks.h"
#include "rocksdb/env.h"

// A shared reference to one rate limiter: options given it hold their own.
struct pinrocks_ratelimiter_t {
  std::shared_ptr<rocksdb::RateLimiter> shared;
};

namespace {

// Refills of at least one byte a period (fewer: writers wait, or spin, for ever), a period
// whose auto-tuning interval (100 periods) fits in int64 microseconds, fairness RocksDB can
// draw from (0 divides by zero) and a mode it knows.
bool refills(int64_t rate, int64_t refill_period_us) {
  return rate > 0 && refill_period_us > 0 && refill_period_us <= INT64_MAX / 100 &&
         (INT64_MAX / rate < refill_period_us || rate * refill_period_us >= 1000000);
}

}  // namespace

extern "C" {

pinrocks_ratelimiter_t* pinrocks_ratelimiter_create(int64_t rate_bytes_per_sec,
                                                    int64_t refill_period_us, int32_t fairness,
                                                    int mode, unsigned char auto_tuned,
                                                    int64_t single_burst_bytes, int* status_code,
                                                    char** errptr) PINROCKS_NOEXCEPT {
  pinrocks_ratelimiter_t* out = nullptr;
  pinrocks::guarded(status_code, errptr, [&] {
    // Auto-tuning moves the rate down to a twentieth of the maximum.
    int64_t lowest = auto_tuned ? rate_bytes_per_sec / 20 : rate_bytes_per_sec;
    if (!refills(lowest, refill_period_us) || fairness < 1 || fairness > 100 || mode < 0 ||
        mode > 2 || single_burst_bytes < 0) {
      pinrocks::save_error(errptr, status_code, rocksdb::Status::kInvalidArgument,
                           "rate limiter settings out of bounds");
      return;
    }
    std::shared_ptr<rocksdb::RateLimiter> limiter(rocksdb::NewGenericRateLimiter(
        rate_bytes_per_sec, refill_period_us, fairness,
        static_cast<rocksdb::RateLimiter::Mode>(mode), auto_tuned != 0, single_burst_bytes));
    out = new pinrocks_ratelimiter_t{std::move(limiter)};
  });
  return out;
}

void pinrocks_ratelimiter_destroy(pinrocks_ratelimiter_t* limiter) PINROCKS_NOEXCEPT {
  delete limiter;
}

void pinrocks_options_set_ratelimiter(rocksdb_options_t* options,
                                      pinrocks_ratelimiter_t* limiter) PINROCKS_NOEXCEPT {
  pinrocks::options_of(options).rate_limiter = limiter->shared;
}

void pinrocks_ratelimiter_set_bytes_per_second(pinrocks_ratelimiter_t* limiter,
                                               int64_t bytes_per_second, int64_t refill_period_us,
                                               int* status_code, char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    if (!refills(bytes_per_second, refill_period_us)) {
      pinrocks::save_error(errptr, status_code, rocksdb::Status::kInvalidArgument,
                           "rate too low to refill a byte a period");
      return;
    }
    limiter->shared->SetBytesPerSecond(bytes_per_second);
  });
}

void pinrocks_ratelimiter_set_single_burst_bytes(pinrocks_ratelimiter_t* limiter,
                                                 int64_t single_burst_bytes, int* status_code,
                                                 char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    pinrocks::report(errptr, status_code, limiter->shared->SetSingleBurstBytes(single_burst_bytes));
  });
}

void pinrocks_ratelimiter_read(pinrocks_ratelimiter_t* limiter, int priority,
                               pinrocks_ratelimiter_counts* out, int* status_code,
                               char** errptr) PINROCKS_NOEXCEPT {
  pinrocks::guarded(status_code, errptr, [&] {
    if (priority < 0 || priority > rocksdb::Env::IO_TOTAL) {
      pinrocks::save_error(errptr, status_code, rocksdb::Status::kInvalidArgument,
                           "no such I/O priority");
      return;
    }
    auto pri = static_cast<rocksdb::Env::IOPriority>(priority);
    rocksdb::RateLimiter& rl = *limiter->shared;
    out->bytes_per_second = rl.GetBytesPerSecond();
    out->single_burst_bytes = rl.GetSingleBurstBytes();
    out->total_bytes_through = rl.GetTotalBytesThrough(pri);
    out->total_requests = rl.GetTotalRequests(pri);
    int64_t pending = 0;
    rocksdb::Status s = rl.GetTotalPendingRequests(&pending, pri);
    out->total_pending_requests = pending;
    pinrocks::report(errptr, status_code, s);
  });
}

}  // extern "C"

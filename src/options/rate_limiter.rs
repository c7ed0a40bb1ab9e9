//! A rate limiter for flush and compaction writes, shared by every options (and so every
//! database) given it.

use std::sync::Arc;

use crate::raw::budgets::RateLimiterHandle;
use crate::raw::error::{Error, Result};

/// Limits the bytes per second RocksDB's flushes and compactions write. Cheap to clone.
#[derive(Clone)]
pub struct RateLimiter {
    raw: Arc<RateLimiterHandle>,
}

impl std::fmt::Debug for RateLimiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RateLimiter").finish_non_exhaustive()
    }
}

impl RateLimiter {
    /// At most `bytes_per_sec`, refilled every 100 ms (RocksDB's defaults otherwise).
    ///
    /// At least [`MIN_BYTES_PER_SEC`](Self::MIN_BYTES_PER_SEC): RocksDB refills
    /// `bytes_per_sec / 10` bytes per period, rounded down, and below 10 B/s that is none,
    /// so its writers would wait for ever (a flush, and then the process's exit, hangs).
    pub fn new(bytes_per_sec: u64) -> Result<Self> {
        let rate = i64::try_from(bytes_per_sec)
            .ok()
            .filter(|&r| r >= Self::MIN_BYTES_PER_SEC as i64)
            .ok_or_else(|| {
                Error::invalid(
                    "rate limit",
                    format!(
                        "{bytes_per_sec} bytes per second: must be {}..=i64::MAX (RocksDB \
                         refills rate / 10 bytes every 100 ms, and 0 would never serve a write)",
                        Self::MIN_BYTES_PER_SEC
                    ),
                )
            })?;
        Ok(RateLimiter {
            raw: Arc::new(RateLimiterHandle::new(rate)),
        })
    }

    /// The smallest rate RocksDB serves with its 100 ms refill period: one byte a period.
    pub const MIN_BYTES_PER_SEC: u64 = 10;

    pub(crate) fn handle(&self) -> &RateLimiterHandle {
        &self.raw
    }
}

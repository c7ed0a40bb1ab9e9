//! A rate limiter for flush and compaction I/O (and reads that ask for it), shared by every
//! options (and so every database) given it: every knob of RocksDB's `GenericRateLimiter`,
//! each bounded so that no value hangs or crashes RocksDB, and its counters.

use std::sync::Arc;
use std::time::Duration;

use crate::raw::budgets::RateLimiterHandle;
use crate::raw::error::{Error, Result};

/// Which I/O a rate limiter charges (RocksDB's `RateLimiter::Mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RateLimiterMode {
    /// Reads only: compaction's, and user reads with a
    /// [`rate_limiter_priority`](crate::ReadOptions::rate_limiter_priority).
    ReadsOnly = 0,
    /// Writes only: flushes, compactions (RocksDB's default).
    WritesOnly = 1,
    /// Both.
    AllIo = 2,
}

/// An I/O priority (RocksDB's `Env::IOPriority`): a rate limiter serves higher ones first
/// and counts each apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum IoPriority {
    /// Compactions.
    Low = 0,
    /// Unused by RocksDB itself.
    Mid = 1,
    /// Flushes.
    High = 2,
    /// User I/O, and flushes and compactions while writes are stalled: served first.
    User = 3,
    /// No priority: not rate limited (for reads and writes), and every priority summed (for
    /// the counters).
    Total = 4,
}

/// The settings of a [`RateLimiter`] ([`RateLimiter::with`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimiterOptions {
    /// Bytes a second (the most, when auto-tuned).
    pub bytes_per_sec: u64,
    /// How often the limiter refills `bytes_per_sec * refill_period` bytes (RocksDB's
    /// default 100 ms). 1 µs to [`RateLimiter::MAX_REFILL_PERIOD`].
    pub refill_period: Duration,
    /// 1 to 100: low-priority requests go before high ones once in `fairness` refills, so
    /// that they are not starved (RocksDB's default 10).
    pub fairness: u32,
    /// Which I/O is charged.
    pub mode: RateLimiterMode,
    /// RocksDB tunes the rate between a twentieth of `bytes_per_sec` and all of it, by how
    /// often the limiter runs dry (starting at half).
    pub auto_tuned: bool,
    /// The most one request is granted at once; 0 (the default): one refill's bytes.
    pub single_burst_bytes: u64,
}

impl RateLimiterOptions {
    /// RocksDB's defaults for `bytes_per_sec`: 100 ms refills, fairness 10, writes only, not
    /// tuned, bursts of one refill.
    pub fn new(bytes_per_sec: u64) -> Self {
        RateLimiterOptions {
            bytes_per_sec,
            refill_period: Duration::from_millis(100),
            fairness: 10,
            mode: RateLimiterMode::WritesOnly,
            auto_tuned: false,
            single_burst_bytes: 0,
        }
    }
}

/// Limits the bytes per second RocksDB's flushes and compactions write (and, by its mode,
/// what they and the reads that ask for it read). Cheap to clone: clones share one limiter.
///
/// ```
/// use pinrocks::options::{IoPriority, RateLimiter, RateLimiterMode, RateLimiterOptions};
/// # fn main() -> pinrocks::Result<()> {
/// let mut settings = RateLimiterOptions::new(64 << 20);
/// settings.mode = RateLimiterMode::AllIo;
/// settings.refill_period = std::time::Duration::from_millis(10);
/// let limiter = RateLimiter::with(&settings)?;
/// limiter.set_bytes_per_second(32 << 20)?; // at run time, for every database given it
/// assert_eq!(limiter.bytes_per_second(), 32 << 20);
/// assert_eq!(limiter.total_requests(IoPriority::Total), 0);
/// assert!(limiter.set_bytes_per_second(50).is_err()); // not a byte every 10 ms
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct RateLimiter {
    raw: Arc<RateLimiterHandle>,
    refill_period_us: i64,
}

impl std::fmt::Debug for RateLimiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RateLimiter")
            .field("bytes_per_second", &self.bytes_per_second())
            .field("refill_period_us", &self.refill_period_us)
            .finish_non_exhaustive()
    }
}

impl RateLimiter {
    /// At most `bytes_per_sec`, refilled every 100 ms (RocksDB's defaults otherwise).
    ///
    /// At least [`MIN_BYTES_PER_SEC`](Self::MIN_BYTES_PER_SEC): RocksDB refills
    /// `bytes_per_sec / 10` bytes per period, rounded down, and below 10 B/s that is none,
    /// so its writers would wait for ever (a flush, and then the process's exit, hangs).
    pub fn new(bytes_per_sec: u64) -> Result<Self> {
        Self::with(&RateLimiterOptions::new(bytes_per_sec))
    }

    /// A limiter with every setting. Refused
    /// ([`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument)) where RocksDB
    /// would hang or crash: a rate that refills less than a byte a period (at a twentieth
    /// of it when auto-tuned: RocksDB tunes down to there), a period of 0 or over
    /// [`MAX_REFILL_PERIOD`](Self::MAX_REFILL_PERIOD), fairness 0 (RocksDB divides by it)
    /// or over 100, a rate or burst over `i64::MAX`.
    pub fn with(options: &RateLimiterOptions) -> Result<Self> {
        let period = refill_period_us(options.refill_period)?;
        let lowest = if options.auto_tuned {
            options.bytes_per_sec / 20
        } else {
            options.bytes_per_sec
        };
        let rate = checked_rate(options.bytes_per_sec, period)?;
        checked_rate(lowest, period).map_err(|_| {
            Error::invalid(
                "rate limit",
                format!(
                    "{} bytes per second, auto-tuned: RocksDB tunes down to a twentieth, which \
                     must refill a byte every {period} µs too",
                    options.bytes_per_sec
                ),
            )
        })?;
        if !(1..=100).contains(&options.fairness) {
            return Err(Error::invalid(
                "rate limiter fairness",
                format!(
                    "{}: must be 1..=100 (RocksDB draws one in fairness)",
                    options.fairness
                ),
            ));
        }
        let burst = burst(options.single_burst_bytes)?;
        let raw = RateLimiterHandle::new(
            rate,
            period,
            options.fairness as i32,
            options.mode as i32,
            options.auto_tuned,
            burst,
        )?;
        Ok(RateLimiter {
            raw: Arc::new(raw),
            refill_period_us: period,
        })
    }

    /// The smallest rate RocksDB serves with its 100 ms refill period: one byte a period.
    pub const MIN_BYTES_PER_SEC: u64 = 10;

    /// The longest refill period taken: 10 s (RocksDB takes up to `i64::MAX / 100` µs, but
    /// writers would wait a whole period between refills).
    pub const MAX_REFILL_PERIOD: Duration = Duration::from_secs(10);

    /// Changes the rate of every database given this limiter, at once (`SetBytesPerSecond`).
    /// Refused where it would refill less than a byte a period. An auto-tuned limiter tunes
    /// it back between a twentieth of its maximum and its maximum.
    pub fn set_bytes_per_second(&self, bytes_per_sec: u64) -> Result<()> {
        let rate = checked_rate(bytes_per_sec, self.refill_period_us)?;
        self.raw.set_bytes_per_second(rate, self.refill_period_us)
    }

    /// The rate now.
    pub fn bytes_per_second(&self) -> u64 {
        self.counts(IoPriority::Total).bytes_per_second.max(0) as u64
    }

    /// Changes the most one request is granted at once (0: one refill's bytes).
    pub fn set_single_burst_bytes(&self, bytes: u64) -> Result<()> {
        self.raw.set_single_burst_bytes(burst(bytes)?)
    }

    /// The most one request is granted at once now.
    pub fn single_burst_bytes(&self) -> u64 {
        self.counts(IoPriority::Total).single_burst_bytes.max(0) as u64
    }

    /// Bytes granted at `priority` ([`IoPriority::Total`]: at all) since the limiter was made.
    pub fn total_bytes_through(&self, priority: IoPriority) -> u64 {
        self.counts(priority).total_bytes_through.max(0) as u64
    }

    /// Requests made at `priority` since the limiter was made.
    pub fn total_requests(&self, priority: IoPriority) -> u64 {
        self.counts(priority).total_requests.max(0) as u64
    }

    /// Requests waiting at `priority` now.
    pub fn pending_requests(&self, priority: IoPriority) -> u64 {
        self.counts(priority).total_pending_requests.max(0) as u64
    }

    fn counts(&self, priority: IoPriority) -> crate::raw::budgets::RawRateLimiterCounts {
        self.raw
            .counts(priority as i32)
            .expect("every IoPriority is one of RocksDB's and GenericRateLimiter counts each")
    }

    pub(crate) fn handle(&self) -> &RateLimiterHandle {
        &self.raw
    }
}

/// A refill period in microseconds, 1 µs to `MAX_REFILL_PERIOD`.
fn refill_period_us(period: Duration) -> Result<i64> {
    let micros = period.as_micros();
    if micros == 0 || period > RateLimiter::MAX_REFILL_PERIOD {
        return Err(Error::invalid(
            "rate limiter refill period",
            format!(
                "{period:?}: must be 1 µs to {:?}",
                RateLimiter::MAX_REFILL_PERIOD
            ),
        ));
    }
    Ok(micros as i64)
}

/// `bytes_per_sec` as RocksDB takes it, if it refills at least a byte every `period_us`.
fn checked_rate(bytes_per_sec: u64, period_us: i64) -> Result<i64> {
    i64::try_from(bytes_per_sec)
        .ok()
        .filter(|&rate| rate as i128 * period_us as i128 >= 1_000_000)
        .ok_or_else(|| {
            Error::invalid(
                "rate limit",
                format!(
                    "{bytes_per_sec} bytes per second: must refill at least a byte every \
                     {period_us} µs (RocksDB refills rate * period, rounded down, and 0 would \
                     never serve a write) and be at most i64::MAX"
                ),
            )
        })
}

/// A burst as RocksDB takes it.
fn burst(bytes: u64) -> Result<i64> {
    i64::try_from(bytes).map_err(|_| {
        Error::invalid(
            "rate limiter burst",
            format!("{bytes} bytes: must be at most i64::MAX"),
        )
    })
}

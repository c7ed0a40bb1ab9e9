//! How RocksDB recovers on its own from a background error it grades retryable (a flush or
//! a MANIFEST write that met a retryable I/O error): how often it retries and how long it
//! waits between tries, before writes stay stopped until [`Db::resume`](crate::Db::resume).

use std::time::Duration;

use crate::options::db_options::Options;

/// The longest wait between tries, in microseconds: RocksDB adds the wait to the clock's
/// microseconds and keeps the deadline in a signed 64-bit integer, which a wait near
/// `u64::MAX` would turn negative (a deadline in the past: the retries would spin). About
/// 146,000 years.
const MAX_RETRY_INTERVAL_MICROS: u64 = (i64::MAX / 2) as u64;

impl Options {
    /// `max_bgerror_resume_count`: how many times RocksDB retries, on its own thread, to
    /// recover from a retryable background error before giving up (then writes stay stopped
    /// until [`Db::resume`](crate::Db::resume)); 0 turns its recovery off. RocksDB's
    /// default is `i32::MAX`; a larger count is `i32::MAX`.
    ///
    /// Scope: database (`max_bgerror_resume_count`).
    pub fn max_bgerror_resume_count(&mut self, count: u32) -> &mut Self {
        let count = i32::try_from(count).unwrap_or(i32::MAX);
        self.raw.set_max_bgerror_resume_count(count);
        self
    }

    /// `bgerror_resume_retry_interval`: how long RocksDB waits between two tries of that
    /// recovery (default one second), in microseconds, at most about 146,000 years (a
    /// longer wait is that long; RocksDB's deadline arithmetic would wrap).
    ///
    /// Scope: database (`bgerror_resume_retry_interval`).
    pub fn bgerror_resume_retry_interval(&mut self, interval: Duration) -> &mut Self {
        let micros = interval
            .as_micros()
            .min(u128::from(MAX_RETRY_INTERVAL_MICROS)) as u64;
        self.raw.set_bgerror_resume_retry_interval(micros);
        self
    }
}

//! Rate limiters with every knob: what RocksDB would hang or crash on is refused, the rest
//! is served and counted per priority, and the rate changes at run time.

use std::time::Duration;

use pinrocks::options::{IoPriority, RateLimiter, RateLimiterMode, RateLimiterOptions};
use pinrocks::{Db, Error, ErrorKind, ReadOptions, WriteOptions};

fn refused(options: &RateLimiterOptions) -> &'static str {
    match RateLimiter::with(options) {
        Err(Error::InvalidInput { what, .. }) => what,
        other => panic!("{options:?} was not refused: {other:?}"),
    }
}

/// Each value that would make RocksDB wait for ever (refills of 0 bytes), divide by zero
/// (fairness 0, an auto-tuned rate whose twentieth is 0) or overflow (periods, rates and
/// bursts past i64).
#[test]
fn every_setting_rocksdb_would_hang_or_crash_on_is_refused() {
    let base = RateLimiterOptions::new(1 << 20);
    let with = |change: &dyn Fn(&mut RateLimiterOptions)| {
        let mut options = base;
        change(&mut options);
        options
    };
    assert_eq!(refused(&with(&|o| o.bytes_per_sec = 9)), "rate limit");
    assert_eq!(
        refused(&with(&|o| o.bytes_per_sec = u64::MAX)),
        "rate limit"
    );
    // 1 ms periods need 1,000 B/s to refill one byte each.
    let fast = |rate| {
        with(&move |o: &mut RateLimiterOptions| {
            o.refill_period = Duration::from_millis(1);
            o.bytes_per_sec = rate;
        })
    };
    assert_eq!(refused(&fast(999)), "rate limit");
    assert!(RateLimiter::with(&fast(1000)).is_ok());
    // Auto-tuned: down to a twentieth, which must refill a byte too.
    let tuned = |rate| {
        with(&move |o: &mut RateLimiterOptions| {
            o.auto_tuned = true;
            o.bytes_per_sec = rate;
        })
    };
    assert_eq!(refused(&tuned(199)), "rate limit");
    assert!(RateLimiter::with(&tuned(200)).is_ok());
    assert_eq!(
        refused(&with(&|o| o.refill_period = Duration::ZERO)),
        "rate limiter refill period"
    );
    assert_eq!(
        refused(&with(&|o| o.refill_period = Duration::from_nanos(999))),
        "rate limiter refill period"
    );
    assert_eq!(
        refused(&with(&|o| o.refill_period = Duration::from_secs(11))),
        "rate limiter refill period"
    );
    assert_eq!(refused(&with(&|o| o.fairness = 0)), "rate limiter fairness");
    assert_eq!(
        refused(&with(&|o| o.fairness = 101)),
        "rate limiter fairness"
    );
    assert_eq!(
        refused(&with(&|o| o.single_burst_bytes = u64::MAX)),
        "rate limiter burst"
    );
    // At run time too.
    let limiter = RateLimiter::with(&fast(1000)).unwrap();
    for rate in [0, 999, u64::MAX] {
        assert!(
            matches!(
                limiter.set_bytes_per_second(rate),
                Err(Error::InvalidInput {
                    what: "rate limit",
                    ..
                })
            ),
            "{rate}"
        );
    }
    assert_eq!(limiter.bytes_per_second(), 1000);
    assert!(limiter.set_single_burst_bytes(u64::MAX).is_err());
}

#[test]
fn the_rate_and_burst_change_at_run_time() {
    let mut options = RateLimiterOptions::new(8 << 20);
    options.single_burst_bytes = 4096;
    let limiter = RateLimiter::with(&options).unwrap();
    assert_eq!(
        (limiter.bytes_per_second(), limiter.single_burst_bytes()),
        (8 << 20, 4096)
    );
    limiter.set_bytes_per_second(1 << 20).unwrap();
    limiter.set_single_burst_bytes(0).unwrap();
    // Burst 0: one refill's bytes, a tenth of the rate every 100 ms.
    assert_eq!(
        (limiter.bytes_per_second(), limiter.single_burst_bytes()),
        (1 << 20, (1 << 20) / 10)
    );
    // Auto-tuned limiters start at half the rate.
    let mut tuned = RateLimiterOptions::new(8 << 20);
    tuned.auto_tuned = true;
    assert_eq!(
        RateLimiter::with(&tuned).unwrap().bytes_per_second(),
        4 << 20
    );
}

/// A flush's writes go through the limiter at high priority; nothing else asked.
#[test]
fn a_flush_is_charged_at_high_priority() {
    let limiter = RateLimiter::new(64 << 20).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut options = crate::common::create_options();
    options.rate_limiter(&limiter);
    let db = Db::open(&options, dir.path()).unwrap();
    for i in 0..100u32 {
        db.put(&i.to_be_bytes(), &crate::common::patterned(1000, i as u8))
            .unwrap();
    }
    assert_eq!(limiter.total_requests(IoPriority::Total), 0);
    db.flush().unwrap();
    // Every byte of the table file the flush wrote, charged at flush priority.
    let high = limiter.total_bytes_through(IoPriority::High);
    assert_eq!(high, crate::metrics::db_file_bytes(dir.path()));
    assert_eq!(limiter.total_bytes_through(IoPriority::Total), high);
    assert_eq!(limiter.total_requests(IoPriority::Low), 0);
    assert_eq!(limiter.total_requests(IoPriority::User), 0);
    assert_eq!(limiter.pending_requests(IoPriority::Total), 0);
}

/// A read asks the limiter only with a priority, and only one whose mode covers reads.
#[test]
fn reads_are_charged_at_the_priority_they_ask_for() {
    let mut settings = RateLimiterOptions::new(64 << 20);
    settings.mode = RateLimiterMode::ReadsOnly;
    let limiter = RateLimiter::with(&settings).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut options = crate::common::create_options();
    options.rate_limiter(&limiter);
    let db = Db::open(&options, dir.path()).unwrap();
    db.put(b"a", b"first").unwrap();
    db.put(b"b", b"second").unwrap();
    db.flush().unwrap();
    let mut uncached = ReadOptions::new();
    uncached.fill_cache(false);
    let read =
        |options: &ReadOptions, key: &[u8]| db.reader().options(options).get(key).unwrap().unwrap();
    assert_eq!(read(&uncached, b"a"), b"first");
    assert_eq!(limiter.total_requests(IoPriority::User), 0);
    uncached.rate_limiter_priority(IoPriority::User);
    assert_eq!(read(&uncached, b"b"), b"second");
    assert_eq!(limiter.total_requests(IoPriority::User), 1);
    assert!(limiter.total_bytes_through(IoPriority::User) > 0);
}

/// WAL writes: charged at `User`; RocksDB refuses every other priority but `Total`, and any
/// priority without the WAL, with an error and nothing written.
#[test]
fn wal_writes_are_charged_at_user_priority_and_others_refused() {
    let limiter = RateLimiter::new(64 << 20).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut options = crate::common::create_options();
    options.rate_limiter(&limiter);
    let db = Db::open(&options, dir.path()).unwrap();
    let mut charged = WriteOptions::new();
    charged.rate_limiter_priority(IoPriority::User);
    db.writer().options(&charged).put(b"k", b"v").unwrap();
    assert_eq!(limiter.total_requests(IoPriority::User), 1);
    assert_eq!(db.get(b"k").unwrap().as_deref(), Some(&b"v"[..]));
    for (priority, no_wal) in [
        (IoPriority::Low, false),
        (IoPriority::High, false),
        (IoPriority::User, true),
    ] {
        let mut refused = WriteOptions::new();
        refused.rate_limiter_priority(priority).disable_wal(no_wal);
        let error = db
            .writer()
            .options(&refused)
            .put(b"k", b"other")
            .unwrap_err();
        assert_eq!(
            error.kind(),
            Some(ErrorKind::InvalidArgument),
            "{priority:?}"
        );
    }
    assert_eq!(db.get(b"k").unwrap().as_deref(), Some(&b"v"[..]));
}

//! Misuses from the third soundness pass (issue 21), each written as the user program that
//! crashed, hung, stopped the database or answered wrongly, and asserting that it is now
//! refused with a typed error (nothing written, nothing lost) or harmless. Owners dropped
//! after their database are compile errors now: the `compile_fail` doctests on
//! `ColumnFamily`, `PinnedValue` and the others prove those. Memory ones run under memcheck
//! (`scripts/memcheck.sh`); hangs are bounded here, by a deadline in the test.
//!
//! Long because: one regression test per misuse of the third soundness pass, each a whole user
//! program.

use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use crate::common::{create_options, limit_address_space, open_db, run_child, test_path};
use pinrocks::admin::BackupEngine;
use pinrocks::options::{RateLimiter, TransactionDbOptions, TransactionOptions};
use pinrocks::{Db, Error, ErrorKind, Options, WriteOptions};

fn txn_db(path: &std::path::Path, families: &[&str], txn_options: &TransactionDbOptions) -> Db {
    let options = create_options();
    Db::open_transaction_db(
        &options,
        txn_options,
        path,
        families.iter().map(|name| (*name, &options)),
    )
    .unwrap()
}

/// Runs `work` on a thread and waits for it at most `bound`: a hang fails the test instead
/// of stopping the suite.
fn within<T: Send + 'static>(bound: Duration, work: impl FnOnce() -> T + Send + 'static) -> T {
    let (done, result) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = done.send(work());
    });
    result
        .recv_timeout(bound)
        .unwrap_or_else(|_| panic!("did not finish within {bound:?}"))
}

/// 1. Owners that outlive their database: what used to compile and crash now compiles
///    only in the order that is safe. (The unsafe orders are `compile_fail` doctests.)
#[test]
fn column_families_and_guards_drop_before_their_database() {
    let (_dir, db) = open_db(&["x"]);
    let cf = db.cf("x").unwrap();
    cf.writer().put(b"k", b"value").unwrap();
    cf.flush().unwrap();
    let guard = cf.reader().pin(b"k").unwrap().unwrap();
    assert_eq!(&guard[..], b"value");
    drop(guard);
    drop(cf);
    db.close().unwrap();
}

/// 2. `prepared_transactions` never hands out a live transaction, and each recovered one
///    once: listing after `prepare`, twice after a reopen, and dropping the lists.
#[test]
fn prepared_transactions_have_one_owner_each() {
    let dir = tempfile::tempdir().unwrap();
    {
        let db = txn_db(dir.path(), &["side"], &TransactionDbOptions::new());
        let mut txn = db.begin().unwrap();
        txn.set_name("live").unwrap();
        txn.writer().put(b"live", b"1").unwrap();
        txn.prepare().unwrap();
        assert_eq!(
            db.prepared_transactions().unwrap().len(),
            0,
            "live, owned by `txn`"
        );
        txn.commit().unwrap();
        assert_eq!(db.get(b"live").unwrap().as_deref(), Some(&b"1"[..]));

        let side = db.cf("side").unwrap();
        let mut left = db.begin().unwrap();
        left.set_name("left").unwrap();
        left.writer().cf(&side).put(b"left", b"2").unwrap();
        left.prepare().unwrap();
        // Dropped prepared: it stays prepared in the WAL for the next open.
        drop(left);
    }
    let db = txn_db(dir.path(), &["side"], &TransactionDbOptions::new());
    let first = db.prepared_transactions().unwrap();
    let second = db.prepared_transactions().unwrap();
    assert_eq!((first.len(), second.len()), (1, 0));
    drop(second);
    // The recovered transaction writes to "side": not droppable until it ends.
    assert!(
        matches!(db.drop_cf("side"), Err(Error::ColumnFamilyInUse { ref name }) if name == "side")
    );
    for txn in first {
        txn.commit().unwrap();
    }
    let side = db.cf("side").unwrap();
    assert_eq!(
        side.reader().get(b"left").unwrap().as_deref(),
        Some(&b"2"[..])
    );
    drop(side);
    db.drop_cf("side").unwrap();
}

/// 3. A TTL call on a database that is not TTL: the C API would cast it unchecked.
#[test]
fn ttl_calls_are_refused_on_other_kinds() {
    let (_dir, db) = open_db(&[]);
    let result = db.create_cf_with_ttl("t", &Options::new(), Duration::from_secs(60));
    assert!(
        matches!(
            result,
            Err(Error::WrongKind {
                operation: "create_cf_with_ttl",
                needs: "TTL"
            })
        ),
        "{result:?}"
    );
    let dir = tempfile::tempdir().unwrap();
    let txn = txn_db(dir.path(), &[], &TransactionDbOptions::new());
    let result = txn.create_cf_with_ttl("t", &Options::new(), Duration::from_secs(60));
    assert!(matches!(result, Err(Error::WrongKind { .. })), "{result:?}");
    // Nothing was created; the databases are whole.
    assert_eq!(db.cf_names(), ["default"]);
    assert_eq!(txn.cf_names(), ["default"]);
    txn.put(b"k", b"v").unwrap();
    assert_eq!(txn.get(b"k").unwrap().as_deref(), Some(&b"v"[..]));
}

/// 4. A transaction's commit after `drop_cf` of a family it wrote: refused before RocksDB,
///    which would fail it inside and then refuse every write until reopen.
#[test]
fn a_commit_to_a_dropped_family_is_refused_and_the_database_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let db = txn_db(dir.path(), &["tmp", "other"], &TransactionDbOptions::new());
    let tmp = db.cf("tmp").unwrap();
    let mut txn = db.begin().unwrap();
    txn.writer().cf(&tmp).put(b"k", b"lost").unwrap();
    txn.writer().put(b"also", b"lost").unwrap();
    db.drop_cf("tmp").unwrap();
    let result = txn.commit();
    assert!(
        matches!(result, Err(Error::ColumnFamilyDropped { ref name }) if name == "tmp"),
        "{result:?}"
    );
    assert_eq!(db.get(b"also").unwrap(), None, "nothing of it was written");
    // Every family still takes writes.
    db.put(b"after", b"ok").unwrap();
    db.cf("other")
        .unwrap()
        .writer()
        .put(b"after", b"ok")
        .unwrap();
    assert_eq!(db.get(b"after").unwrap().as_deref(), Some(&b"ok"[..]));

    // Two-phase: a prepared transaction keeps its families; drop_cf waits its turn.
    let other = db.cf("other").unwrap();
    let mut txn = db.begin().unwrap();
    txn.set_name("two-phase").unwrap();
    txn.writer().cf(&other).put(b"k", b"kept").unwrap();
    txn.prepare().unwrap();
    assert!(matches!(
        db.drop_cf("other"),
        Err(Error::ColumnFamilyInUse { .. })
    ));
    txn.commit().unwrap();
    assert_eq!(
        other.reader().get(b"k").unwrap().as_deref(),
        Some(&b"kept"[..])
    );
    db.drop_cf("other").unwrap();
    db.put(b"last", b"ok").unwrap();
}

/// 5. No pinrocks lock held across a RocksDB wait: B waits for A's row lock in family
///    `tmp`, `drop_cf("tmp")` waits for B, and neither A nor a writer of a third family
///    waits behind them.
#[test]
fn a_write_waiting_for_a_row_lock_holds_up_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let mut txn_options = TransactionDbOptions::new();
    txn_options.transaction_lock_timeout(Duration::from_secs(20));
    let db = Arc::new(txn_db(dir.path(), &["tmp", "third"], &txn_options));
    let tmp = db.cf("tmp").unwrap();
    let mut a = db.begin().unwrap();
    a.writer().cf(&tmp).put(b"row", b"a").unwrap();
    drop(tmp);

    let (b_started, b_waiting) = mpsc::channel();
    let b_db = Arc::clone(&db);
    let b = std::thread::spawn(move || {
        let db = b_db;
        let tmp = db.cf("tmp").unwrap();
        let mut b = db.begin().unwrap();
        b_started.send(()).unwrap();
        let put = b.writer().cf(&tmp).put(b"row", b"b"); // waits for A's lock
        (
            put.map_err(|e| e.to_string()),
            b.commit().map_err(|e| e.to_string()),
        )
    });
    b_waiting.recv().unwrap();
    std::thread::sleep(Duration::from_millis(200)); // B is in RocksDB's lock wait
    let drop_db = Arc::clone(&db);
    let dropping = std::thread::spawn(move || drop_db.drop_cf("tmp"));
    std::thread::sleep(Duration::from_millis(200)); // drop_cf waits for B

    let started = Instant::now();
    let third_db = Arc::clone(&db);
    within(Duration::from_secs(5), move || {
        let db = third_db;
        db.cf("third")
            .unwrap()
            .writer()
            .put(b"unrelated", b"fast")
            .unwrap();
        db.put(b"default", b"fast").unwrap();
    });
    // A's commit names the family being dropped: refused at once, and A ends.
    assert!(matches!(a.commit(), Err(Error::ColumnFamilyDropped { .. })));
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    let dropped = within(Duration::from_secs(5), move || dropping.join().unwrap());
    assert!(dropped.is_ok(), "{dropped:?}");
    let (put, commit) = within(Duration::from_secs(5), move || b.join().unwrap());
    // B got the lock once A ended, before the drop; its commit comes after the drop.
    assert_eq!(put, Ok(()));
    assert_eq!(commit, Err("column family dropped: tmp".to_owned()));
    assert_eq!(
        db.cf("third")
            .unwrap()
            .reader()
            .get(b"unrelated")
            .unwrap()
            .as_deref(),
        Some(&b"fast"[..])
    );
}

/// 6. WAL tailing over a two-phase commit: RocksDB's iterator would report the rolled-back
///    write as a put and skip the committed one. Refused, never short.
#[test]
fn updates_since_refuses_two_phase_commit_batches() {
    let dir = tempfile::tempdir().unwrap();
    let db = txn_db(dir.path(), &[], &TransactionDbOptions::new());
    let mut txn = db.begin().unwrap();
    txn.set_name("rolled-back").unwrap();
    txn.writer().put(b"k1", b"never").unwrap();
    txn.prepare().unwrap();
    txn.rollback().unwrap();
    db.put(b"k2", b"committed").unwrap();
    let items: Vec<_> = db.updates_since(1).unwrap().collect();
    assert_eq!(items.len(), 1, "ends at the prepare batch");
    assert!(
        matches!(items[0], Err(Error::TwoPhaseCommitInLog { sequence: 1 })),
        "{:?}",
        items[0].as_ref().map(|b| b.sequence())
    );
    // Without two-phase commit, every write is there.
    let (_dir, plain) = open_db(&[]);
    plain.put(b"a", b"1").unwrap();
    plain.put(b"b", b"2").unwrap();
    let sequences: Vec<u64> = plain
        .updates_since(1)
        .unwrap()
        .map(|b| b.unwrap().sequence())
        .collect();
    assert_eq!(sequences, [1, 2]);
    // 0 means "from the first", as RocksDB takes it.
    let from_zero: Vec<u64> = plain
        .updates_since(0)
        .unwrap()
        .map(|b| b.unwrap().sequence())
        .collect();
    assert_eq!(from_zero, [1, 2]);
}

/// 7. The child: a value that fits in memory once but not twice, put through a transaction
///    (into its own batch: RocksDB's write queue is not entered). `std::bad_alloc` inside
///    RocksDB must come back as an error.
#[test]
#[ignore = "run by a_put_too_big_to_copy_is_an_error in a child process"]
fn big_put_child() {
    let Ok(dir) = std::env::var("PINROCKS_BIG_PUT_DIR") else {
        return;
    };
    let txn_db = txn_db(
        std::path::Path::new(&dir),
        &[],
        &TransactionDbOptions::new(),
    );
    let mut txn = txn_db.begin().unwrap();
    let value = vec![7u8; 400 << 20];
    limit_address_space(200 << 20);
    let in_txn = txn.writer().put(b"big", &value).map_err(|e| e.kind());
    println!("txn {in_txn:?}");
    drop(value);
    // Nothing was written; it still works.
    let small = txn.writer().put(b"small", b"ok");
    let found = txn.reader().get(b"big").unwrap().is_some();
    println!("after {:?} found {found}", small.map_err(|e| e.to_string()));
}

/// 7. No C++ exception crosses into Rust from a write into a transaction.
#[test]
#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
fn a_put_too_big_to_copy_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let (lived, stdout, status) = run_child(
        &test_path(module_path!(), "big_put_child"),
        "PINROCKS_BIG_PUT_DIR",
        dir.path(),
    );
    assert!(lived, "the child died: {status}\n{stdout}");
    assert!(stdout.contains("txn Err(Some(MemoryLimit))"), "{stdout}");
    assert!(stdout.contains("after Ok(()) found false"), "{stdout}");
}

/// 7. The child: a value put into the database, whose `DB::Put` copies it into a batch of its
///    own (which fits under the cap) and then into the memtable, inside RocksDB's write queue
///    (which does not).
#[test]
#[ignore = "run by a_single_put_that_throws_inside_rocksdb_ends_the_process in a child process"]
fn big_single_put_child() {
    let Ok(dir) = std::env::var("PINROCKS_BIG_SINGLE_PUT_DIR") else {
        return;
    };
    let db = Db::open(&create_options(), &dir).unwrap();
    let value = vec![7u8; 128 << 20];
    limit_address_space(200 << 20);
    let result = db.put(b"big", &value);
    println!("not reached: {result:?}");
}

/// 7. A single write that throws ends the process: the throw may come from inside RocksDB's
///    write queue, which would keep a writer gone with its stack (the copy into `DB::Put`'s
///    own batch, before the queue, cannot be told apart from it).
#[test]
#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
fn a_single_put_that_throws_inside_rocksdb_ends_the_process() {
    let dir = tempfile::tempdir().unwrap();
    crate::common::aborts_in_child(
        module_path!(),
        "big_single_put_child",
        "PINROCKS_BIG_SINGLE_PUT_DIR",
        dir.path(),
        "pinrocks: a single write threw inside RocksDB (std::bad_alloc): its write queue may \
         keep a writer that is gone, so the process ends",
    );
}

/// 8. Durations RocksDB multiplies: "for ever" is RocksDB's own "no limit", not an
///    overflow (`Duration::MAX` expired at once, or waited the database's 1 s).
#[test]
fn durations_too_long_for_rocksdb_mean_no_limit() {
    let dir = tempfile::tempdir().unwrap();
    let db = Arc::new(txn_db(dir.path(), &[], &TransactionDbOptions::new()));
    let mut forever = TransactionOptions::new();
    forever
        .expiration(Duration::MAX)
        .lock_timeout(Duration::MAX);
    let mut txn = db.transaction(&WriteOptions::new(), &forever).unwrap();
    txn.writer().put(b"k", b"first").unwrap();
    txn.commit().unwrap();
    assert_eq!(db.get(b"k").unwrap().as_deref(), Some(&b"first"[..]));

    // A waiter with lock_timeout(MAX) still waits after the database's 1 s default.
    let mut holder = db.begin().unwrap();
    holder.writer().put(b"k", b"holder").unwrap();
    let waiter_db = Arc::clone(&db);
    let waiter = std::thread::spawn(move || {
        let db = waiter_db;
        let mut forever = TransactionOptions::new();
        forever.lock_timeout(Duration::MAX);
        let mut txn = db.transaction(&WriteOptions::new(), &forever).unwrap();
        let started = Instant::now();
        let put = txn.writer().put(b"k", b"waiter").map_err(|e| e.to_string());
        (
            put,
            started.elapsed(),
            txn.commit().map_err(|e| e.to_string()),
        )
    });
    std::thread::sleep(Duration::from_millis(1500));
    holder.commit().unwrap();
    let (put, waited, commit) = within(Duration::from_secs(5), move || waiter.join().unwrap());
    assert_eq!((put, commit), (Ok(()), Ok(())));
    assert!(
        waited >= Duration::from_millis(1400),
        "gave up after {waited:?}"
    );
    assert_eq!(db.get(b"k").unwrap().as_deref(), Some(&b"waiter"[..]));
}

/// 9. A rate RocksDB refills as zero bytes a period: refused, not a flush that never ends.
#[test]
fn a_rate_limit_rocksdb_cannot_serve_is_refused() {
    for rate in [0, 1, 9] {
        let result = RateLimiter::new(rate);
        assert!(
            matches!(
                result,
                Err(Error::InvalidInput {
                    what: "rate limit",
                    ..
                })
            ),
            "{rate}"
        );
    }
    // The smallest rate served still flushes (one byte per 100 ms: a tiny memtable here).
    let limiter = RateLimiter::new(RateLimiter::MIN_BYTES_PER_SEC).unwrap();
    drop(limiter);
    let limiter = RateLimiter::new(1 << 20).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut options = create_options();
    options.rate_limiter(&limiter);
    let db = Db::open(&options, dir.path()).unwrap();
    db.put(b"k", b"v").unwrap();
    within(Duration::from_secs(10), move || db.flush().unwrap());
}

/// 10. A new TTL database expires its default family as asked.
#[test]
fn a_new_ttl_database_expires() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open_with_ttl(&create_options(), dir.path(), Duration::from_secs(1)).unwrap();
    db.put(b"k", b"short-lived").unwrap();
    assert_eq!(db.get(b"k").unwrap().as_deref(), Some(&b"short-lived"[..]));
    std::thread::sleep(Duration::from_millis(2100));
    db.flush().unwrap();
    db.compact_range(None, None).unwrap();
    assert_eq!(db.get(b"k").unwrap(), None, "expired at compaction");
}

/// 11. A restore into the directory of a live database: refused, however the path is
///     spelled; the database and its later writes survive, and it reopens.
#[test]
fn a_restore_into_a_live_database_is_refused() {
    let (dir, db) = open_db(&[]);
    db.put(b"before", b"backed up").unwrap();
    let backups_dir = tempfile::tempdir().unwrap();
    let backups = BackupEngine::open(&Options::new(), backups_dir.path()).unwrap();
    backups.create_backup(&db, true).unwrap();
    db.put(b"after", b"not in the backup").unwrap();
    let spelled_otherwise = dir.path().join(".").join("");
    for target in [dir.path().to_path_buf(), spelled_otherwise] {
        let result = backups.restore_latest(&target);
        assert!(
            matches!(result, Err(Error::DatabaseOpenThere { .. })),
            "{target:?}: {result:?}"
        );
    }
    db.put(b"later", b"kept").unwrap();
    drop(db);
    let db = Db::open(&create_options(), dir.path()).unwrap();
    assert_eq!(
        db.get(b"after").unwrap().as_deref(),
        Some(&b"not in the backup"[..])
    );
    assert_eq!(db.get(b"later").unwrap().as_deref(), Some(&b"kept"[..]));
    drop(db);
    // Closed, it restores.
    backups.restore_latest(dir.path()).unwrap();
    let db = Db::open(&create_options(), dir.path()).unwrap();
    assert_eq!(
        db.get(b"before").unwrap().as_deref(),
        Some(&b"backed up"[..])
    );
    assert_eq!(db.get(b"after").unwrap(), None);
    let _ = ErrorKind::IoError;
}

/// Calls back into the database from inside a callback RocksDB runs within its own work: a
/// merge operator's write (inside a write, a flush or a compaction it could wait for the
/// work running it) and a backup progress callback's call to its own engine (it runs under
/// the engine's lock) are refused, and so is a read from a merge operator (RocksDB's
/// nested read on the reading thread crashed: SIGSEGV in `DBImpl::GetImpl`).
#[test]
fn calls_that_could_deadlock_inside_a_callback_are_refused() {
    use std::sync::{Mutex, OnceLock, Weak};
    static SEEN: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let slot: Arc<OnceLock<Weak<Db>>> = Arc::new(OnceLock::new());
    let in_merge = Arc::clone(&slot);
    let operator = pinrocks::callbacks::MergeOperator::new("calls back", move |input, out| {
        if let Some(db) = in_merge.get().and_then(Weak::upgrade) {
            let write = db.put(b"from-merge", b"x").map_err(|e| e.to_string());
            let read = db.get(b"plain").map_err(|e| e.to_string());
            SEEN.lock().unwrap().push(format!("{write:?} {read:?}"));
        }
        out.set(input.operands.iter().last().unwrap_or(&[][..]))
    });
    let dir = tempfile::tempdir().unwrap();
    let mut options = create_options();
    options.merge_operator(&operator);
    let db = Arc::new(Db::open(&options, dir.path()).unwrap());
    slot.set(Arc::downgrade(&db)).unwrap();
    db.put(b"plain", b"p").unwrap();
    db.merge(b"m", b"operand").unwrap();
    assert_eq!(db.get(b"m").unwrap().as_deref(), Some(&b"operand"[..]));
    let seen = SEEN.lock().unwrap().clone();
    assert_eq!(
        seen,
        [concat!(
            r#"Err("put refused inside a merge operator: RocksDB is running it and cannot be "#,
            r#"re-entered from there") Err("read refused inside a merge operator: RocksDB is "#,
            r#"running it and cannot be re-entered from there")"#
        )]
    );
    assert_eq!(db.get(b"from-merge").unwrap(), None, "nothing written");
    db.put(b"outside", b"fine").unwrap(); // the flag is gone after the callback

    let backups_dir = tempfile::tempdir().unwrap();
    let backups = BackupEngine::open(&Options::new(), backups_dir.path()).unwrap();
    let mut inside = Vec::new();
    // Progress is reported about every 4 MiB copied: 12 MiB that do not compress.
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let big: Vec<u8> = (0..12 << 20)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as u8
        })
        .collect();
    db.put(b"big", &big).unwrap();
    backups
        .create_backup_with_progress(&db, true, |_| {
            inside.push(backups.purge_old_backups(1).map_err(|e| e.to_string()));
            true
        })
        .unwrap();
    assert!(!inside.is_empty());
    let refused = Err(
        "a backup engine call refused inside a backup progress callback: RocksDB is running \
         it and cannot be re-entered from there"
            .to_owned(),
    );
    assert!(inside.iter().all(|r| *r == refused), "{inside:?}");
    backups.purge_old_backups(1).unwrap();
}

/// The owners safe code may drop after their database (docs/drop-order.md): each keeps
/// alive what it needs or needs nothing of the database; run clean under memcheck.
#[test]
fn owners_dropped_after_their_database_are_harmless() {
    let dir = tempfile::tempdir().unwrap();
    let sst_path = dir.path().join("load.sst");
    let (bytes, snapshot, batch, cache, statistics, limiter, options, sst, backups, perf);
    let db = {
        cache = pinrocks::options::Cache::lru(1 << 20);
        limiter = RateLimiter::new(1 << 30).unwrap();
        let mut o = create_options();
        o.block_cache(&cache)
            .rate_limiter(&limiter)
            .enable_statistics();
        options = o;
        Db::open(&options, dir.path().join("db")).unwrap()
    };
    statistics = db.statistics().unwrap();
    db.put(b"k", b"value").unwrap();
    db.flush().unwrap();
    bytes = db.reader().get_bytes(b"k").unwrap().unwrap();
    snapshot = db.snapshot();
    let mut b = pinrocks::WriteBatch::new();
    b.writer()
        .cf(&db.create_cf("side", &Options::new()).unwrap())
        .put(b"k2", b"v2")
        .unwrap();
    batch = b;
    let mut writer = pinrocks::admin::SstFileWriter::create(&options, &sst_path).unwrap();
    writer.put(b"s", b"sst").unwrap();
    sst = writer;
    backups = BackupEngine::open(&Options::new(), dir.path().join("backups")).unwrap();
    backups.create_backup(&db, true).unwrap();
    perf = pinrocks::options::PerfContext::enable(pinrocks::options::PerfLevel::EnableCount);
    drop(db); // the Bytes and the snapshot keep it open until they drop
    assert_eq!(&bytes[..], b"value");
    assert!(statistics.ticker(pinrocks::options::Ticker::BytesWritten) > 0);
    let db = Db::open(&options, dir.path().join("other")).unwrap();
    assert!(matches!(
        db.write(&batch),
        Err(Error::ForeignColumnFamily { .. })
    ));
    drop((
        db, snapshot, bytes, batch, cache, limiter, sst, backups, perf, statistics, options,
    ));
}

/// A named transaction whose commit fails (RocksDB refuses a sync write without a WAL):
/// RocksDB unregisters it in the failed commit and again in its destructor, which corrupted
/// the heap (`std::map::erase(end())`). The commit's error is all that happens.
#[test]
fn a_named_transaction_whose_commit_fails_is_freed_once() {
    let dir = tempfile::tempdir().unwrap();
    let db = txn_db(dir.path(), &[], &TransactionDbOptions::new());
    let mut refused = WriteOptions::new();
    refused.sync(true).disable_wal(true);
    for name in ["first", "second"] {
        let mut txn = db
            .transaction(&refused, &TransactionOptions::new())
            .unwrap();
        txn.set_name(name).unwrap();
        txn.writer().put(name.as_bytes(), b"v").unwrap();
        let result = txn.commit();
        assert!(
            matches!(result, Err(Error::RocksDb { kind: ErrorKind::InvalidArgument, ref message }) if message.contains("WAL")),
            "{result:?}"
        );
    }
    // The same names are free again, and the database works.
    let mut txn = db.begin().unwrap();
    txn.set_name("first").unwrap();
    txn.writer().put(b"k", b"ok").unwrap();
    txn.prepare().unwrap();
    txn.commit().unwrap();
    assert_eq!(db.get(b"k").unwrap().as_deref(), Some(&b"ok"[..]));
    assert_eq!(db.get(b"first").unwrap(), None);
}

/// A prepared transaction dropped without commit or rollback stays prepared in the WAL:
/// its families stay undroppable for the rest of the open (a drop would crash the next
/// open's recovery), and it comes back at the reopen. Writes after a prepare are refused
/// (they would not be in the WAL's prepare section).
#[test]
fn a_prepared_transaction_left_behind_keeps_its_families_until_it_ends() {
    let dir = tempfile::tempdir().unwrap();
    {
        let db = txn_db(dir.path(), &["x", "y"], &TransactionDbOptions::new());
        let (x, y) = (db.cf("x").unwrap(), db.cf("y").unwrap());
        let mut txn = db.begin().unwrap();
        txn.set_name("left").unwrap();
        txn.writer().cf(&x).put(b"k", b"prepared").unwrap();
        txn.prepare().unwrap();
        let late = txn.writer().cf(&y).put(b"late", b"lost at a crash");
        assert!(matches!(
            late,
            Err(Error::InvalidInput {
                what: "transaction write",
                ..
            })
        ));
        drop(txn);
        assert!(matches!(
            db.drop_cf("x"),
            Err(Error::ColumnFamilyInUse { .. })
        ));
        drop((x, y));
        db.drop_cf("y").unwrap(); // it never wrote "y"
    }
    let db = txn_db(dir.path(), &["x"], &TransactionDbOptions::new());
    let recovered = db.prepared_transactions().unwrap();
    assert_eq!(recovered.len(), 1);
    assert!(matches!(
        db.drop_cf("x"),
        Err(Error::ColumnFamilyInUse { .. })
    ));
    for txn in recovered {
        txn.commit().unwrap();
    }
    assert_eq!(
        db.cf("x").unwrap().reader().get(b"k").unwrap().as_deref(),
        Some(&b"prepared"[..])
    );
    db.drop_cf("x").unwrap();
}

/// A tailer starting after a prepare: RocksDB's iterator skipped the commit's batch (it
/// logs no records) and went on with the next, silently. The iteration now ends with an
/// error wherever a batch is missing (`LogGap`: pinrocks checks that each batch starts
/// where the last ended); a WAL-less write is such a gap too.
#[test]
fn updates_since_never_ends_short_without_saying_so() {
    let dir = tempfile::tempdir().unwrap();
    let db = txn_db(dir.path(), &[], &TransactionDbOptions::new());
    db.put(b"a", b"1").unwrap(); // seq 1
    let mut txn = db.begin().unwrap();
    txn.set_name("t").unwrap();
    txn.writer().put(b"k", b"v").unwrap();
    txn.prepare().unwrap();
    db.put(b"b", b"2").unwrap(); // seq 2
    let start = db.latest_sequence_number() + 1;
    txn.commit().unwrap(); // "k" at seq 3, its batch logged with no records
    db.put(b"c", b"3").unwrap(); // seq 4
    let first = db.updates_since(start).unwrap().next().unwrap();
    assert!(
        matches!(
            first,
            Err(Error::TwoPhaseCommitInLog { .. }) | Err(Error::LogGap { .. })
        ),
        "{:?}",
        first.map(|b| b.sequence())
    );

    let (_dir, plain) = open_db(&[]);
    plain.put(b"a", b"1").unwrap();
    let mut no_wal = WriteOptions::new();
    no_wal.disable_wal(true);
    plain
        .writer()
        .options(&no_wal)
        .put(b"b", b"not logged")
        .unwrap();
    plain.put(b"c", b"3").unwrap();
    let items: Vec<_> = plain.updates_since(1).unwrap().collect();
    assert_eq!(items.len(), 2, "the first batch, then the gap");
    assert_eq!(items[0].as_ref().unwrap().sequence(), 1);
    // RocksDB's own iterator sees this gap (it reads the next batch's sequence number).
    assert!(
        matches!(&items[1], Err(Error::RocksDb { kind: ErrorKind::NotFound, message }) if message.contains("Gap in sequence numbers")),
        "{:?}",
        items[1].as_ref().map(|b| b.sequence())
    );
}

/// From a compaction filter: waiting for compactions would wait for its own, and the last
/// owner of the database dropped there would close it on the compaction's own thread
/// (`~DBImpl` waits for that compaction). The wait is refused; the close happens on a
/// thread of its own.
#[test]
fn a_compaction_filter_cannot_wait_for_itself_nor_close_under_itself() {
    use std::sync::{Mutex, OnceLock};
    static WAITED: Mutex<Vec<String>> = Mutex::new(Vec::new());
    static LAST_OWNER: Mutex<Option<pinrocks::Snapshot>> = Mutex::new(None);
    static DB: OnceLock<std::sync::Weak<Db>> = OnceLock::new();
    let filter = pinrocks::callbacks::CompactionFilterFactory::from_fn("waits", |_, key, _, _| {
        if key == b"wait" {
            if let Some(db) = DB.get().and_then(std::sync::Weak::upgrade) {
                let waited = db.wait_for_compact(false).map_err(|e| e.to_string());
                WAITED.lock().unwrap().push(format!("{waited:?}"));
            }
        }
        if key == b"close" {
            // The last owner of the database, dropped on the compaction's thread.
            drop(LAST_OWNER.lock().unwrap().take());
        }
        pinrocks::callbacks::Decision::Keep
    });
    let dir = tempfile::tempdir().unwrap();
    let mut options = create_options();
    options.compaction_filter(&filter);
    let db = Arc::new(Db::open(&options, dir.path()).unwrap());
    DB.set(Arc::downgrade(&db)).unwrap();
    db.put(b"wait", b"1").unwrap();
    db.flush().unwrap();
    within(Duration::from_secs(20), {
        let db = Arc::clone(&db);
        move || db.compact_range(None, None).unwrap()
    });
    assert_eq!(
        WAITED.lock().unwrap().as_slice(),
        [
            r#"Err("wait_for_compact refused inside a compaction filter: RocksDB is running it and cannot be re-entered from there")"#
        ]
    );
    // Now the close: the snapshot is the database's last owner when the filter drops it.
    db.delete(b"wait").unwrap();
    db.put(b"close", b"1").unwrap();
    db.flush().unwrap();
    *LAST_OWNER.lock().unwrap() = Some(db.snapshot());
    let Ok(db) = Arc::try_unwrap(db) else {
        panic!("not the only Arc");
    };
    let (done, finished) = mpsc::channel();
    let compacting = std::thread::spawn(move || {
        let compacted = db.compact_range(None, None);
        drop(db); // the snapshot (in the filter's static) still holds the database
        done.send(compacted.map_err(|e| e.to_string())).unwrap();
    });
    let compacted = finished
        .recv_timeout(Duration::from_secs(20))
        .expect("hung");
    assert_eq!(compacted, Ok(()));
    compacting.join().unwrap();
    // The close runs on its own thread: the directory's lock is free soon after.
    let started = Instant::now();
    let reopened = loop {
        match Db::open(&create_options(), dir.path()) {
            Ok(db) => break db,
            Err(_) if started.elapsed() < Duration::from_secs(20) => {
                std::thread::sleep(Duration::from_millis(20))
            }
            Err(e) => panic!("never closed: {e}"),
        }
    };
    assert_eq!(reopened.get(b"close").unwrap().as_deref(), Some(&b"1"[..]));
}

//! Transactions: reads through every tier that see the transaction's own writes first,
//! locks and lock timeouts, deadlocks, optimistic conflicts, savepoints, merges, owned
//! values that outlive the transaction, and two-phase commit across a SIGKILL.
//!
//! Long because: one test per transaction property, plus the models of two interleaved
//! transactions.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::{Arc, Barrier};
use std::time::Duration;

use crate::common::every_tier;
use pinrocks::callbacks::MergeOperator;
use pinrocks::codec::BigEndian;
use pinrocks::options::{OptimisticTransactionOptions, TransactionDbOptions, TransactionOptions};
use pinrocks::{Db, Error, ErrorKind, Options, WriteOptions};
use proptest::prelude::*;

fn txn_db(path: &std::path::Path) -> Db {
    let mut txn_options = TransactionDbOptions::new();
    txn_options
        .transaction_lock_timeout(Duration::from_millis(200))
        .default_lock_timeout(Duration::from_millis(200));
    let options = crate::common::create_options();
    Db::open_transaction_db(
        &options,
        &txn_options,
        path,
        [("default", &options), ("side", &options)],
    )
    .unwrap()
}

#[test]
fn reads_see_the_transactions_own_writes_first_through_every_tier() {
    let dir = tempfile::tempdir().unwrap();
    let db = txn_db(dir.path());
    let side = db.cf("side").unwrap();
    let stored = crate::common::patterned(5000, 1);
    db.put(b"from-db", &stored).unwrap();
    db.flush().unwrap();
    let mut txn = db.begin().unwrap();
    // Before it writes anything (pinrocks then reads the database directly), and after.
    assert_eq!(every_tier(txn.reader(), b"from-db"), Some(stored.clone()));
    assert_eq!(every_tier(txn.reader(), b"own"), None);
    txn.writer().put(b"own", b"mine").unwrap();
    txn.writer().cf(&side).put(b"own", b"side").unwrap();
    txn.writer().delete(b"from-db-2").unwrap();
    assert_eq!(every_tier(txn.reader(), b"own"), Some(b"mine".to_vec()));
    assert_eq!(
        every_tier(txn.reader().cf(&side), b"own"),
        Some(b"side".to_vec())
    );
    assert_eq!(every_tier(txn.reader(), b"from-db"), Some(stored.clone()));
    assert_eq!(
        every_tier(
            txn.reader_for_update(pinrocks::write::Lock::Shared),
            b"from-db"
        ),
        Some(stored.clone())
    );
    assert_eq!(every_tier(db.reader(), b"own"), None, "not committed");
    // Iteration merges the transaction's writes over the database's.
    let keys: Vec<Vec<u8>> = txn
        .reader()
        .scan(.., |k, _| k.to_vec())
        .collect::<pinrocks::Result<_>>()
        .unwrap();
    assert_eq!(keys, [b"from-db".to_vec(), b"own".to_vec()]);
    // An owned value outlives the transaction, and crosses threads.
    let bytes = txn.reader().get_bytes(b"own").unwrap().unwrap();
    let from_db = txn.reader().get_bytes(b"from-db").unwrap().unwrap();
    txn.commit().unwrap();
    let (bytes, from_db) = std::thread::spawn(move || (bytes, from_db)).join().unwrap();
    assert_eq!(&bytes[..], b"mine");
    assert_eq!(&from_db[..], &stored[..]);
    assert_eq!(every_tier(db.reader(), b"own"), Some(b"mine".to_vec()));
    assert_eq!(every_tier(side.reader(), b"own"), Some(b"side".to_vec()));
}

#[test]
fn a_locked_key_times_out_for_other_writers_and_is_retryable() {
    let dir = tempfile::tempdir().unwrap();
    let db = txn_db(dir.path());
    db.put(b"k", b"0").unwrap();
    let mut holder = db.begin().unwrap();
    assert_eq!(
        holder
            .reader_for_update(pinrocks::write::Lock::Exclusive)
            .get(b"k")
            .unwrap()
            .as_deref(),
        Some(&b"0"[..])
    );
    let mut options = TransactionOptions::new();
    options.lock_timeout(Duration::from_millis(50));
    let mut other = db.transaction(&WriteOptions::new(), &options).unwrap();
    let err = other.writer().put(b"k", b"other").unwrap_err();
    assert_eq!(err.kind(), Some(ErrorKind::LockTimeout), "{err}");
    assert!(err.is_retryable());
    // A plain write waits for the same lock (the database's default timeout).
    let err = db.put(b"k", b"plain").unwrap_err();
    assert_eq!(err.kind(), Some(ErrorKind::LockTimeout), "{err}");
    holder.writer().put(b"k", b"1").unwrap();
    holder.commit().unwrap();
    other.writer().put(b"k", b"2").unwrap();
    other.commit().unwrap();
    assert_eq!(db.get(b"k").unwrap().as_deref(), Some(&b"2"[..]));
}

#[test]
fn a_deadlock_is_detected_and_is_retryable() {
    let dir = tempfile::tempdir().unwrap();
    let db = txn_db(dir.path());
    let mut options = TransactionOptions::new();
    options
        .deadlock_detect(true)
        .lock_timeout(Duration::from_secs(5));
    let barrier = Arc::new(Barrier::new(2));
    let results: Vec<pinrocks::Result<()>> = std::thread::scope(|s| {
        let handles: Vec<_> = [(b"a", b"b"), (b"b", b"a")]
            .into_iter()
            .map(|(first, second)| {
                let (db, options, barrier) = (&db, &options, barrier.clone());
                s.spawn(move || {
                    let mut txn = db.transaction(&WriteOptions::new(), options).unwrap();
                    txn.writer().put(first, b"x").unwrap();
                    barrier.wait();
                    let outcome = txn.writer().put(second, b"y");
                    if outcome.is_ok() {
                        txn.commit().unwrap();
                    }
                    outcome
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let deadlocks: Vec<&Error> = results.iter().filter_map(|r| r.as_ref().err()).collect();
    assert_eq!(deadlocks.len(), 1, "{results:?}");
    assert_eq!(
        deadlocks[0].kind(),
        Some(ErrorKind::Deadlock),
        "{}",
        deadlocks[0]
    );
    assert!(deadlocks[0].is_retryable());
}

#[test]
fn optimistic_commits_fail_with_busy_when_a_read_key_changed() {
    let dir = tempfile::tempdir().unwrap();
    let options = crate::common::create_options();
    let db = Db::open_optimistic_transaction_db(&options, dir.path(), []).unwrap();
    db.put(b"k", b"0").unwrap();
    let mut txn = db.begin().unwrap();
    assert_eq!(
        every_tier(
            txn.reader_for_update(pinrocks::write::Lock::Exclusive),
            b"k"
        ),
        Some(b"0".to_vec())
    );
    txn.writer().put(b"k", b"txn").unwrap();
    db.put(b"k", b"outside").unwrap();
    let err = txn.commit().unwrap_err();
    assert_eq!(err.kind(), Some(ErrorKind::Busy), "{err}");
    assert!(err.is_retryable());
    assert_eq!(db.get(b"k").unwrap().as_deref(), Some(&b"outside"[..]));
    // Without interference it commits; with a snapshot set at begin, a change made after
    // begin to a key written later conflicts too.
    let mut txn = db.begin().unwrap();
    txn.writer().put(b"k", b"retried").unwrap();
    txn.commit().unwrap();
    let mut snap = OptimisticTransactionOptions::new();
    snap.set_snapshot(true);
    let mut txn = db
        .optimistic_transaction(&WriteOptions::new(), &snap)
        .unwrap();
    db.put(b"j", b"after begin").unwrap();
    txn.writer().put(b"j", b"txn").unwrap();
    assert_eq!(txn.commit().unwrap_err().kind(), Some(ErrorKind::Busy));
    assert_eq!(db.get(b"k").unwrap().as_deref(), Some(&b"retried"[..]));
}

#[test]
fn savepoints_roll_back_and_pop() {
    let dir = tempfile::tempdir().unwrap();
    let db = txn_db(dir.path());
    let mut txn = db.begin().unwrap();
    txn.writer().put(b"a", b"1").unwrap();
    txn.set_savepoint().unwrap();
    txn.writer().put(b"b", b"2").unwrap();
    txn.writer().delete(b"a").unwrap();
    txn.rollback_to_savepoint().unwrap();
    assert_eq!(every_tier(txn.reader(), b"a"), Some(b"1".to_vec()));
    assert_eq!(every_tier(txn.reader(), b"b"), None);
    assert_eq!(
        txn.rollback_to_savepoint().unwrap_err().kind(),
        Some(ErrorKind::NotFound)
    );
    txn.set_savepoint().unwrap();
    txn.writer().put(b"c", b"3").unwrap();
    txn.pop_savepoint().unwrap();
    assert_eq!(
        txn.pop_savepoint().unwrap_err().kind(),
        Some(ErrorKind::NotFound)
    );
    txn.commit().unwrap();
    assert_eq!(db.get(b"c").unwrap().as_deref(), Some(&b"3"[..]));
    assert_eq!(db.get(b"b").unwrap(), None);
    // Rolled back (and dropped without a commit): nothing written.
    let mut txn = db.begin().unwrap();
    txn.writer().put(b"gone", b"x").unwrap();
    txn.rollback().unwrap();
    {
        let mut txn = db.begin().unwrap();
        txn.writer().put(b"dropped", b"x").unwrap();
    }
    assert_eq!(db.get(b"gone").unwrap(), None);
    assert_eq!(db.get(b"dropped").unwrap(), None);
}

#[test]
fn merges_in_a_transaction_read_merged() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = crate::common::create_options();
    options.merge_operator(&MergeOperator::fold::<BigEndian<u64>>("add", |a, b| a + b));
    let db =
        Db::open_transaction_db(&options, &TransactionDbOptions::new(), dir.path(), []).unwrap();
    db.put(b"n", &5u64.to_be_bytes()).unwrap();
    let mut txn = db.begin().unwrap();
    txn.writer().merge(b"n", &2u64.to_be_bytes()).unwrap();
    txn.writer().merge(b"n", &3u64.to_be_bytes()).unwrap();
    assert_eq!(
        every_tier(txn.reader(), b"n"),
        Some(10u64.to_be_bytes().to_vec())
    );
    txn.commit().unwrap();
    assert_eq!(
        every_tier(db.reader(), b"n"),
        Some(10u64.to_be_bytes().to_vec())
    );
}

#[test]
fn a_plain_database_has_no_transactions() {
    let (_dir, db) = crate::common::open_db(&[]);
    assert!(matches!(
        db.begin(),
        Err(Error::WrongKind {
            needs: "transaction",
            ..
        })
    ));
}

/// The child: prepares a named transaction, says so, and waits to be killed.
#[test]
#[ignore = "run by a_prepared_transaction_survives_a_crash in a child process"]
fn prepare_child() {
    let Ok(dir) = std::env::var("PINROCKS_TXN_DIR") else {
        return;
    };
    let db = txn_db(std::path::Path::new(&dir));
    let side = db.cf("side").unwrap();
    let mut txn = db.begin().unwrap();
    txn.set_name("xid-1").unwrap();
    txn.writer().put(b"k1", b"v1").unwrap();
    txn.writer().cf(&side).put(b"k2", b"v2").unwrap();
    txn.prepare().unwrap();
    println!("prepared");
    std::thread::sleep(Duration::from_secs(60));
}

#[test]
fn a_prepared_transaction_survives_a_crash_and_commits_with_exactly_its_writes() {
    let dir = tempfile::tempdir().unwrap();
    drop(txn_db(dir.path()));
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            crate::common::test_path(module_path!(), "prepare_child").as_str(),
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("PINROCKS_TXN_DIR", dir.path())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    // libtest prints "test prepare_child ... " first, on the same line.
    assert!(stdout.lines().any(|l| l.unwrap().ends_with("prepared")));
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let db = txn_db(dir.path());
    assert_eq!(db.get(b"k1").unwrap(), None, "prepared, not committed");
    let prepared = db.prepared_transactions().unwrap();
    assert_eq!(prepared.len(), 1);
    for txn in prepared {
        txn.commit().unwrap();
    }
    assert_eq!(every_tier(db.reader(), b"k1"), Some(b"v1".to_vec()));
    assert_eq!(
        every_tier(db.cf("side").unwrap().reader(), b"k2"),
        Some(b"v2".to_vec())
    );
    drop(db);
    let db = txn_db(dir.path());
    assert!(db.prepared_transactions().unwrap().is_empty());
    assert_eq!(db.get(b"k1").unwrap().as_deref(), Some(&b"v1"[..]));
}

#[derive(Debug, Clone)]
enum Step {
    /// Transaction `t` reads key `k` for update.
    Read(usize, u8),
    /// Transaction `t` writes key `k`.
    Write(usize, u8, u8),
    /// A plain write outside the transactions.
    Plain(u8, u8),
    /// Transaction `t` commits (and a new one begins in its place).
    Commit(usize),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        (0usize..2, 0u8..3).prop_map(|(t, k)| Step::Read(t, k)),
        (0usize..2, 0u8..3, any::<u8>()).prop_map(|(t, k, v)| Step::Write(t, k, v)),
        (0u8..3, any::<u8>()).prop_map(|(k, v)| Step::Plain(k, v)),
        (0usize..2).prop_map(Step::Commit),
    ]
}

/// What the model keeps of one optimistic transaction: each key it tracked, with the
/// version it saw first, and its writes.
#[derive(Default)]
struct ModelTxn {
    tracked: std::collections::BTreeMap<u8, u64>,
    writes: std::collections::BTreeMap<u8, u8>,
}

proptest! {
    #![proptest_config(crate::common::proptest_config(48))]

    /// Two optimistic transactions and plain writes, interleaved: a commit fails with
    /// `Busy` exactly when a key it read for update or wrote changed since it first
    /// touched it, and every committed state matches the model.
    #[test]
    fn optimistic_interleavings_match_their_model(steps in proptest::collection::vec(step(), 1..30)) {
        let dir = tempfile::tempdir().unwrap();
        let options: Options = crate::common::create_options();
        let db = Db::open_optimistic_transaction_db(&options, dir.path(), []).unwrap();
        let mut values: [Option<u8>; 3] = [None; 3];
        let mut versions = [0u64; 3];
        let mut txns = [db.begin().unwrap(), db.begin().unwrap()];
        let mut models = [ModelTxn::default(), ModelTxn::default()];
        for step in steps {
            match step {
                Step::Read(t, k) => {
                    let seen = txns[t].reader_for_update(pinrocks::write::Lock::Exclusive).get(&[k]).unwrap();
                    let own = models[t].writes.get(&k).copied();
                    let expected = own.or(values[k as usize]);
                    prop_assert_eq!(seen, expected.map(|v| vec![v]));
                    models[t].tracked.entry(k).or_insert(versions[k as usize]);
                }
                Step::Write(t, k, v) => {
                    txns[t].writer().put(&[k], &[v]).unwrap();
                    models[t].tracked.entry(k).or_insert(versions[k as usize]);
                    models[t].writes.insert(k, v);
                }
                Step::Plain(k, v) => {
                    db.put(&[k], &[v]).unwrap();
                    values[k as usize] = Some(v);
                    versions[k as usize] += 1;
                }
                Step::Commit(t) => {
                    let txn = std::mem::replace(&mut txns[t], db.begin().unwrap());
                    let model = std::mem::take(&mut models[t]);
                    let conflict = model.tracked.iter().any(|(k, v)| versions[*k as usize] != *v);
                    match txn.commit() {
                        Ok(()) => {
                            prop_assert!(!conflict, "committed over a conflict");
                            for (k, v) in model.writes {
                                values[k as usize] = Some(v);
                                versions[k as usize] += 1;
                            }
                        }
                        Err(e) => {
                            prop_assert!(conflict, "refused without a conflict: {}", e);
                            prop_assert_eq!(e.kind(), Some(ErrorKind::Busy));
                        }
                    }
                }
            }
            for k in 0u8..3 {
                prop_assert_eq!(db.get(&[k]).unwrap(), values[k as usize].map(|v| vec![v]));
            }
        }
    }
}

#[test]
fn a_typed_table_reads_and_writes_inside_a_transaction() {
    use pinrocks::codec::{LittleEndian, Utf8};
    use pinrocks::Table;
    let dir = tempfile::tempdir().unwrap();
    let mut options = crate::common::create_options();
    options.merge_operator(&MergeOperator::fold::<BigEndian<u64>>("add", |a, b| a + b));
    let db = Db::open_transaction_db(
        &options,
        &TransactionDbOptions::new(),
        dir.path(),
        [("default", &options), ("names", &options)],
    )
    .unwrap();
    let names: Table<LittleEndian<u32>, Utf8> = Table::new(db.cf("names").unwrap());
    let counts: Table<Utf8, BigEndian<u64>> = Table::new(db.default_cf());
    names.put(&1, "Ada").unwrap();
    counts.put("visits", &10).unwrap();
    let mut txn = db.begin().unwrap();
    // Reads borrow the transaction shared, writes exclusively: each view is made for a call.
    assert_eq!(
        names.read(txn.reader()).get(&1, |s: &str| s.len()).unwrap(),
        Some(3)
    );
    names.write(txn.writer()).put(&2, "Alan").unwrap();
    names.write(txn.writer()).delete(&1).unwrap();
    counts.write(txn.writer()).merge("visits", &5).unwrap();
    assert_eq!(
        counts
            .read(txn.reader_for_update(pinrocks::write::Lock::Exclusive))
            .get("visits", |v: u64| v)
            .unwrap(),
        Some(15)
    );
    let n = names.read(txn.reader());
    assert_eq!(n.get_owned(&2).unwrap().as_deref(), Some("Alan"));
    assert_eq!(n.get_owned(&1).unwrap(), None);
    assert_eq!(
        names.get_owned(&1).unwrap().as_deref(),
        Some("Ada"),
        "not committed"
    );
    txn.commit().unwrap();
    assert_eq!(names.get_owned(&1).unwrap(), None);
    assert_eq!(names.get_owned(&2).unwrap().as_deref(), Some("Alan"));
    assert_eq!(counts.get_owned("visits").unwrap(), Some(15));
}

#[derive(Debug, Clone)]
enum Locked {
    /// Transaction `t` reads key `k` for update (exclusive lock).
    Read(usize, u8),
    /// Transaction `t` writes key `k`.
    Write(usize, u8, u8),
    /// A plain write outside the transactions.
    Plain(u8, u8),
    /// Transaction `t` commits, or rolls back, and a new one begins in its place.
    End(usize, bool),
}

fn locked_step() -> impl Strategy<Value = Locked> {
    prop_oneof![
        (0usize..2, 0u8..3).prop_map(|(t, k)| Locked::Read(t, k)),
        (0usize..2, 0u8..3, any::<u8>()).prop_map(|(t, k, v)| Locked::Write(t, k, v)),
        (0u8..3, any::<u8>()).prop_map(|(k, v)| Locked::Plain(k, v)),
        (0usize..2, any::<bool>()).prop_map(|(t, c)| Locked::End(t, c)),
    ]
}

proptest! {
    #![proptest_config(crate::common::proptest_config(32))]

    /// Two pessimistic transactions and plain writes, interleaved on one thread: a lock
    /// held by one transaction makes the other's read for update or write, and a plain
    /// write, time out (and change nothing) exactly as the model says; commits apply
    /// exactly the transaction's writes, rollbacks none.
    #[test]
    fn pessimistic_interleavings_match_their_model(steps in proptest::collection::vec(locked_step(), 1..25)) {
        let dir = tempfile::tempdir().unwrap();
        let mut txn_options = TransactionDbOptions::new();
        txn_options
            .transaction_lock_timeout(Duration::from_millis(2))
            .default_lock_timeout(Duration::from_millis(2));
        let options = crate::common::create_options();
        let db = Db::open_transaction_db(&options, &txn_options, dir.path(), []).unwrap();
        let mut values: [Option<u8>; 3] = [None; 3];
        let mut holder: [Option<usize>; 3] = [None; 3];
        let mut writes: [std::collections::BTreeMap<u8, u8>; 2] = Default::default();
        let mut txns = [db.begin().unwrap(), db.begin().unwrap()];
        for step in steps {
            match step {
                Locked::Read(t, k) | Locked::Write(t, k, _) if holder[k as usize].is_some_and(|h| h != t) => {
                    let outcome = match step {
                        Locked::Read(..) => txns[t].reader_for_update(pinrocks::write::Lock::Exclusive).get(&[k]).map(|_| ()),
                        Locked::Write(_, _, v) => txns[t].writer().put(&[k], &[v]),
                        _ => unreachable!(),
                    };
                    let err = outcome.unwrap_err();
                    prop_assert_eq!(err.kind(), Some(ErrorKind::LockTimeout));
                }
                Locked::Read(t, k) => {
                    let seen = txns[t].reader_for_update(pinrocks::write::Lock::Exclusive).get(&[k]).unwrap();
                    let expected = writes[t].get(&k).copied().or(values[k as usize]);
                    prop_assert_eq!(seen, expected.map(|v| vec![v]));
                    holder[k as usize] = Some(t);
                }
                Locked::Write(t, k, v) => {
                    txns[t].writer().put(&[k], &[v]).unwrap();
                    writes[t].insert(k, v);
                    holder[k as usize] = Some(t);
                }
                Locked::Plain(k, v) => {
                    let outcome = db.put(&[k], &[v]);
                    if holder[k as usize].is_some() {
                        prop_assert_eq!(outcome.unwrap_err().kind(), Some(ErrorKind::LockTimeout));
                    } else {
                        outcome.unwrap();
                        values[k as usize] = Some(v);
                    }
                }
                Locked::End(t, commit) => {
                    let txn = std::mem::replace(&mut txns[t], db.begin().unwrap());
                    let written = std::mem::take(&mut writes[t]);
                    if commit {
                        txn.commit().unwrap();
                        for (k, v) in written {
                            values[k as usize] = Some(v);
                        }
                    } else {
                        txn.rollback().unwrap();
                    }
                    for h in holder.iter_mut() {
                        if *h == Some(t) {
                            *h = None;
                        }
                    }
                }
            }
            for k in 0u8..3 {
                prop_assert_eq!(db.get(&[k]).unwrap(), values[k as usize].map(|v| vec![v]));
            }
        }
    }
}

#[test]
fn an_owned_value_read_in_a_transaction_outlives_the_transaction_and_the_database() {
    let dir = tempfile::tempdir().unwrap();
    let stored = crate::common::patterned(5000, 7);
    let (from_db, own) = {
        let db = txn_db(dir.path());
        db.put(b"k", &stored).unwrap();
        db.flush().unwrap();
        let mut txn = db.begin().unwrap();
        txn.writer()
            .put(b"own", b"written in the transaction")
            .unwrap();
        let values = (
            txn.reader().get_bytes(b"k").unwrap().unwrap(),
            txn.reader().get_bytes(b"own").unwrap().unwrap(),
        );
        drop(txn);
        values
    }; // transaction and `Db` dropped: the values keep the database open
    assert_eq!(&from_db[..], &stored[..]);
    assert_eq!(&own[..], b"written in the transaction");
    let err = Db::open(&crate::common::create_options(), dir.path()).unwrap_err();
    assert_eq!(
        err.kind(),
        Some(ErrorKind::IoError),
        "still open (locked): {err}"
    );
    drop((from_db, own));
    let db = txn_db(dir.path());
    assert_eq!(db.get(b"k").unwrap(), Some(stored));
    assert_eq!(db.get(b"own").unwrap(), None, "never committed");
}

#[test]
fn a_refreshed_snapshot_moves_repeatable_reads_and_conflict_checks_forward() {
    let dir = tempfile::tempdir().unwrap();
    let db = txn_db(dir.path());
    let first = crate::common::patterned(4000, 5);
    let second = crate::common::patterned(4000, 6);
    db.put(b"k", &first).unwrap();
    db.flush().unwrap();
    let mut options = TransactionOptions::new();
    options.set_snapshot(true);
    let mut txn = db.transaction(&WriteOptions::new(), &options).unwrap();
    db.put(b"k", &second).unwrap(); // after the transaction's snapshot
    let at = txn.snapshot_options();
    assert_eq!(
        every_tier(txn.reader().options(at), b"k"),
        Some(first.clone())
    );
    assert_eq!(
        every_tier(db.reader().options(at), b"k"),
        Some(first.clone())
    );
    assert_eq!(
        every_tier(txn.reader(), b"k"),
        Some(second.clone()),
        "the latest"
    );
    let err = txn
        .reader_for_update(pinrocks::write::Lock::Exclusive)
        .get(b"k")
        .unwrap_err();
    assert_eq!(err.kind(), Some(ErrorKind::Busy), "{err}");
    assert!(err.is_retryable());

    txn.set_snapshot().unwrap();
    let at = txn.snapshot_options();
    assert_eq!(
        every_tier(txn.reader().options(at), b"k"),
        Some(second.clone())
    );
    assert_eq!(
        txn.reader_for_update(pinrocks::write::Lock::Exclusive)
            .options(at)
            .get(b"k")
            .unwrap(),
        Some(second.clone())
    );
    txn.writer().put(b"k", b"third").unwrap();
    txn.commit().unwrap();
    assert_eq!(db.get(b"k").unwrap().as_deref(), Some(&b"third"[..]));
}

#[test]
fn a_savepoint_rollback_restores_the_snapshot_it_saw() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open_optimistic_transaction_db(&crate::common::create_options(), dir.path(), [])
        .unwrap();
    db.put(b"k", b"1").unwrap();
    let mut txn = db.begin().unwrap();
    txn.set_snapshot().unwrap();
    txn.set_savepoint().unwrap();
    db.put(b"k", b"2").unwrap();
    txn.set_snapshot().unwrap();
    let newer = txn
        .reader()
        .options(txn.snapshot_options())
        .get(b"k")
        .unwrap();
    assert_eq!(newer.as_deref(), Some(&b"2"[..]));
    txn.rollback_to_savepoint().unwrap();
    let older = txn
        .reader()
        .options(txn.snapshot_options())
        .get(b"k")
        .unwrap();
    assert_eq!(older.as_deref(), Some(&b"1"[..]));
}

#[test]
fn an_expired_transaction_cannot_commit_and_may_be_retried() {
    let dir = tempfile::tempdir().unwrap();
    let db = txn_db(dir.path());
    let mut options = TransactionOptions::new();
    options.expiration(Duration::from_millis(1));
    let mut txn = db.transaction(&WriteOptions::new(), &options).unwrap();
    txn.writer().put(b"k", b"late").unwrap();
    std::thread::sleep(Duration::from_millis(30));
    let err = txn.commit().unwrap_err();
    assert_eq!(err.kind(), Some(ErrorKind::Expired), "{err}");
    assert!(err.is_retryable());
    assert_eq!(db.get(b"k").unwrap(), None, "nothing was committed");
    let mut retry = db.begin().unwrap();
    retry.writer().put(b"k", b"in time").unwrap();
    retry.commit().unwrap();
    assert_eq!(db.get(b"k").unwrap().as_deref(), Some(&b"in time"[..]));
}

#[test]
fn a_multi_get_for_update_locks_or_tracks_every_key() {
    // Pessimistic: another transaction waits for each key's lock, then times out.
    let dir = tempfile::tempdir().unwrap();
    let db = txn_db(dir.path());
    db.put(b"a", b"1").unwrap();
    db.put(b"b", b"2").unwrap();
    let holder = db.begin().unwrap();
    let mut seen = vec![None; 3];
    holder
        .reader_for_update(pinrocks::write::Lock::Exclusive)
        .multi_get_pinned(&[b"a", b"b", b"c"], |i, v| seen[i] = v.map(<[u8]>::to_vec))
        .unwrap();
    assert_eq!(seen, [Some(b"1".to_vec()), Some(b"2".to_vec()), None]);
    let mut other = db.begin().unwrap();
    for key in [b"a", b"b", b"c"] {
        let err = other.writer().put(key, b"other").unwrap_err();
        assert_eq!(err.kind(), Some(ErrorKind::LockTimeout), "{key:?}: {err}");
    }
    drop(holder);
    other.writer().put(b"a", b"other").unwrap();

    // Optimistic: a key read for update and changed since fails the commit.
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open_optimistic_transaction_db(&crate::common::create_options(), dir.path(), [])
        .unwrap();
    db.put(b"a", b"1").unwrap();
    let mut txn = db.begin().unwrap();
    txn.reader_for_update(pinrocks::write::Lock::Exclusive)
        .multi_get_pinned(&[b"a"], |_, v| assert_eq!(v, Some(&b"1"[..])))
        .unwrap();
    db.put(b"a", b"changed").unwrap();
    txn.writer().put(b"z", b"mine").unwrap();
    let err = txn.commit().unwrap_err();
    assert_eq!(err.kind(), Some(ErrorKind::Busy), "{err}");
}

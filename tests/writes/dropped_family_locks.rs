//! A pessimistic transaction that holds row locks in a column family dropped under it, and in
//! others: however it ends, the other families' rows are free again. RocksDB 11.8.1's
//! `PointLockManager::UnLock` stops at the first family whose lock map is gone (`return`
//! where it means `continue`), so, depending on the order its hash map gives, the locks of
//! the families after it were kept until the database closed: every later write to those
//! rows timed out (or, with no timeout, waited for ever). Found by the `pin_owners` fuzz
//! target once its databases lived across inputs.

use std::time::Duration;

use pinrocks::options::TransactionDbOptions;
use pinrocks::write::Lock;
use pinrocks::{Db, Error, ErrorKind};

/// Families that may come before or after the dropped one in RocksDB's order (a hash map
/// keyed by family id): the test drops each in turn.
const FAMILIES: [&str; 4] = ["a", "b", "c", "d"];

fn txn_db(path: &std::path::Path) -> Db {
    let mut txn_options = TransactionDbOptions::new();
    // A locked row is refused at once, not after a wait.
    txn_options
        .transaction_lock_timeout(Duration::ZERO)
        .default_lock_timeout(Duration::ZERO);
    let options = crate::common::create_options();
    Db::open_transaction_db(
        &options,
        &txn_options,
        path,
        std::iter::once(("default", &options)).chain(FAMILIES.iter().map(|n| (*n, &options))),
    )
    .unwrap()
}

#[derive(Clone, Copy, Debug)]
enum End {
    Commit,
    Rollback,
    Drop,
}

/// Locks a row in every family (by a write, or by a read for update in the one dropped,
/// so a commit stays possible), drops `gone`, ends the transaction, then writes every row
/// of the families left from outside it and from another transaction.
fn rows_are_free_after(gone: &str, end: End) {
    let dir = tempfile::tempdir().unwrap();
    let db = txn_db(dir.path());
    let mut txn = db.begin().unwrap();
    let write_in_gone = !matches!(end, End::Commit);
    for name in FAMILIES {
        let cf = db.cf(name).unwrap();
        if name == gone && !write_in_gone {
            let reader = txn.reader_for_update(Lock::Exclusive).cf(&cf);
            assert_eq!(reader.get(b"row").unwrap(), None);
        } else {
            txn.writer().cf(&cf).put(b"row", name.as_bytes()).unwrap();
        }
    }
    txn.writer().put(b"row", b"default").unwrap();
    // Locked now, from outside.
    let refused = db.cf("a").unwrap().writer().put(b"row", b"outside");
    let refused = if gone == "a" {
        db.cf("b").unwrap().writer().put(b"row", b"outside")
    } else {
        refused
    };
    assert!(
        matches!(
            refused,
            Err(Error::RocksDb {
                kind: ErrorKind::LockTimeout,
                ..
            })
        ),
        "{refused:?}"
    );
    db.drop_cf(gone).unwrap();
    match end {
        End::Commit => txn.commit().unwrap(),
        End::Rollback => txn.rollback().unwrap(),
        End::Drop => drop(txn),
    }
    for name in FAMILIES.iter().filter(|n| **n != gone) {
        let cf = db.cf(name).unwrap();
        let expected = match end {
            End::Commit => Some(name.as_bytes()),
            _ => None,
        };
        assert_eq!(
            cf.reader().get(b"row").unwrap().as_deref(),
            expected,
            "{name}"
        );
        cf.writer().put(b"row", b"after").unwrap_or_else(|e| {
            panic!("{gone} dropped, {end:?}: row of {name} still locked: {e:?}")
        });
        let mut other = db.begin().unwrap();
        other.writer().cf(&cf).put(b"row", b"other").unwrap();
        other.commit().unwrap();
        assert_eq!(
            cf.reader().get(b"row").unwrap().as_deref(),
            Some(&b"other"[..])
        );
    }
    db.put(b"row", b"after")
        .unwrap_or_else(|e| panic!("{gone} dropped, {end:?}: default row still locked: {e:?}"));
}

#[test]
fn a_transaction_ending_after_a_family_it_locked_was_dropped_frees_the_other_rows() {
    for end in [End::Commit, End::Rollback, End::Drop] {
        for gone in FAMILIES {
            rows_are_free_after(gone, end);
        }
    }
}

/// A commit refused because the transaction wrote to the dropped family (pinrocks refuses
/// it before RocksDB sees it): the transaction is dropped, and its rows elsewhere are free.
#[test]
fn a_refused_commit_frees_the_rows_of_the_families_left() {
    for gone in FAMILIES {
        let dir = tempfile::tempdir().unwrap();
        let db = txn_db(dir.path());
        let mut txn = db.begin().unwrap();
        for name in FAMILIES {
            let cf = db.cf(name).unwrap();
            txn.writer().cf(&cf).put(b"row", name.as_bytes()).unwrap();
        }
        db.drop_cf(gone).unwrap();
        let result = txn.commit();
        assert!(
            matches!(result, Err(Error::ColumnFamilyDropped { ref name }) if name == gone),
            "{result:?}"
        );
        for name in FAMILIES.iter().filter(|n| **n != gone) {
            db.cf(name)
                .unwrap()
                .writer()
                .put(b"row", b"after")
                .unwrap_or_else(|e| panic!("{gone} dropped: row of {name} still locked: {e:?}"));
        }
    }
}

fn locked(result: pinrocks::Result<()>) -> bool {
    matches!(
        result,
        Err(Error::RocksDb {
            kind: ErrorKind::LockTimeout,
            ..
        })
    )
}

/// A rollback to a savepoint unlocks the rows locked since (through the same unlock that
/// stops at a dropped family) and forgets them: freed there, or never.
#[test]
fn a_rollback_to_a_savepoint_after_a_drop_frees_the_rows_since() {
    for gone in FAMILIES {
        let dir = tempfile::tempdir().unwrap();
        let db = txn_db(dir.path());
        let mut txn = db.begin().unwrap();
        txn.writer().put(b"before", b"kept").unwrap();
        txn.set_savepoint().unwrap();
        for name in FAMILIES {
            let cf = db.cf(name).unwrap();
            txn.writer().cf(&cf).put(b"row", name.as_bytes()).unwrap();
        }
        db.drop_cf(gone).unwrap();
        txn.rollback_to_savepoint().unwrap();
        for name in FAMILIES.iter().filter(|n| **n != gone) {
            let put = db.cf(name).unwrap().writer().put(b"row", b"after");
            assert!(
                put.is_ok(),
                "{gone} dropped: row of {name} still locked: {put:?}"
            );
        }
        // The row locked before the savepoint stays locked until the end. (A commit is
        // refused: the transaction wrote to the dropped family, and pinrocks does not
        // forget a family at a rollback to a savepoint.)
        assert!(locked(db.put(b"before", b"outside")));
        txn.rollback().unwrap();
        db.put(b"before", b"outside").unwrap();
    }
}

/// Shared locks (reads for update, `Lock::Shared`) taken by two transactions: the one that
/// ends after the drop frees its own, never the other's.
#[test]
fn only_the_ending_transactions_shared_locks_are_freed() {
    for gone in FAMILIES {
        let dir = tempfile::tempdir().unwrap();
        let db = txn_db(dir.path());
        let txn = db.begin().unwrap();
        let other = db.begin().unwrap();
        for name in FAMILIES {
            let cf = db.cf(name).unwrap();
            let read = txn.reader_for_update(Lock::Shared).cf(&cf).get(b"row");
            assert_eq!(read.unwrap(), None);
            if name != gone {
                let read = other.reader_for_update(Lock::Shared).cf(&cf).get(b"row");
                assert_eq!(read.unwrap(), None);
            }
        }
        db.drop_cf(gone).unwrap();
        txn.commit().unwrap();
        for name in FAMILIES.iter().filter(|n| **n != gone) {
            let put = db.cf(name).unwrap().writer().put(b"row", b"x");
            assert!(
                locked(put),
                "{gone} dropped: the other's lock on {name} was freed"
            );
        }
        other.rollback().unwrap();
        for name in FAMILIES.iter().filter(|n| **n != gone) {
            db.cf(name).unwrap().writer().put(b"row", b"x").unwrap();
        }
    }
}

/// A prepared transaction (its written families held: `drop_cf` refuses them) that read a
/// family for update, dropped before its commit.
#[test]
fn a_prepared_transaction_committed_after_a_drop_frees_its_rows() {
    for gone in FAMILIES {
        let dir = tempfile::tempdir().unwrap();
        let db = txn_db(dir.path());
        let mut txn = db.begin().unwrap();
        txn.set_name("two-phase").unwrap();
        for name in FAMILIES {
            let cf = db.cf(name).unwrap();
            if name == gone {
                let read = txn.reader_for_update(Lock::Exclusive).cf(&cf).get(b"row");
                assert_eq!(read.unwrap(), None);
            } else {
                txn.writer().cf(&cf).put(b"row", name.as_bytes()).unwrap();
            }
        }
        txn.prepare().unwrap();
        db.drop_cf(gone).unwrap();
        txn.commit().unwrap();
        for name in FAMILIES.iter().filter(|n| **n != gone) {
            let cf = db.cf(name).unwrap();
            assert_eq!(
                cf.reader().get(b"row").unwrap().as_deref(),
                Some(name.as_bytes())
            );
            cf.writer().put(b"row", b"after").unwrap();
        }
    }
}

/// Transactions that lock rows in a family while it is being dropped, and in another: a
/// drop waits for the ends under way when it began, and an end that begins after it frees
/// its rows one by one, so whatever the interleaving no row of the other family stays
/// locked. Raced 200 times, the read and the end starting earlier or later each round.
#[test]
fn transactions_racing_a_drop_leave_nothing_locked() {
    let dir = tempfile::tempdir().unwrap();
    let db = txn_db(dir.path());
    let options = crate::common::create_options();
    let other = db.cf("a").unwrap();
    for round in 0..200u32 {
        let name = format!("x{round}");
        let x = db.create_cf(&name, &options).unwrap();
        let key = format!("row{round}");
        let (go, started) = std::sync::mpsc::channel::<()>();
        std::thread::scope(|s| {
            let (db, name) = (&db, &name);
            let dropping = s.spawn(move || {
                started.recv().unwrap();
                db.drop_cf(name).unwrap();
            });
            let mut txn = db.begin().unwrap();
            txn.writer().cf(&other).put(key.as_bytes(), b"v").unwrap();
            go.send(()).unwrap();
            // The read before, during or after the drop (which takes milliseconds: it
            // writes the OPTIONS file), the end before or after it returned.
            std::thread::sleep(Duration::from_micros(u64::from(round % 10) * 400));
            let _ = txn.reader_for_update(Lock::Exclusive).cf(&x).get(b"k");
            let dropping = if round % 3 == 0 {
                dropping.join().unwrap();
                None
            } else {
                std::thread::sleep(Duration::from_micros(u64::from(round % 7) * 300));
                Some(dropping)
            };
            if round % 2 == 0 {
                txn.commit().unwrap();
            } else {
                txn.rollback().unwrap();
            }
            if let Some(dropping) = dropping {
                dropping.join().unwrap();
            }
            let put = other.writer().put(key.as_bytes(), b"after");
            assert!(put.is_ok(), "round {round}: row still locked: {put:?}");
        });
    }
}

//! A pessimistic transaction that holds row locks in a column family dropped under it, and in
//! others: however it ends, the other families' rows are free again. RocksDB 11.8.1's
//! `PointLockManager::UnLock` stops at the first family whose lock map is gone (`return`
//! where it means `continue`), so, depending on the order its hash map gives, the locks of
//! the families after it were kept until the database closed: every later write to those
//! rows timed out (or, with no timeout, waited for ever). Found by the `pin_owners` fuzz
//! target once its databases lived across inputs.

use std::time::Duration;

use pinrocks::{Db, Error, ErrorKind, Lock, TransactionDbOptions};

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

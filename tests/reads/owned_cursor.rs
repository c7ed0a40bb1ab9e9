//! The owned cursor: what it keeps alive by ownership (database, family, snapshot, its
//! options' bounds), on another thread, and what it refuses to borrow.

use pinrocks::{Db, Error, OwnedCursor, ReadOptions};

fn sent<T: Send + 'static>(value: T) -> T {
    value
}

fn entries(cursor: &mut OwnedCursor) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut out = Vec::new();
    while let Some((key, value)) = cursor.entry() {
        out.push((key.to_vec(), value.to_vec()));
        cursor.next();
    }
    cursor.status().unwrap();
    out
}

fn pairs(keys: &[&[u8]], seed: u8) -> Vec<(Vec<u8>, Vec<u8>)> {
    keys.iter()
        .enumerate()
        .map(|(i, key)| (key.to_vec(), crate::common::patterned(64, seed + i as u8)))
        .collect()
}

/// Everything it read from dropped by its owners first: the `Db`, the family handle (and the
/// family itself), the read options that set its bounds. It still reads the same entries,
/// values pinned in place, on another thread.
#[test]
fn an_owned_cursor_outlives_the_db_its_family_and_its_options() {
    let (dir, db) = crate::common::open_db(&["logs"]);
    let expected = pairs(&[b"a", b"b", b"c", b"d"], 10);
    let logs = db.cf("logs").unwrap();
    for (key, value) in &expected {
        logs.writer().put(key, value).unwrap();
    }
    logs.flush().unwrap();
    let mut bounded = ReadOptions::new();
    bounded.iterate_upper_bound(b"d");
    let cursor = sent(logs.reader().options(&bounded).owned_range(b"b"..).unwrap());
    drop(bounded);
    drop(logs);
    db.drop_cf("logs").unwrap();
    drop(db);
    let mut cursor = std::thread::spawn(move || cursor).join().unwrap();
    assert_eq!(entries(&mut cursor), expected[1..3]);
    cursor.seek_to_last();
    assert_eq!(cursor.key(), Some(&b"c"[..]));
    cursor.seek(b"a"); // before the range
    assert_eq!(cursor.key(), None);
    // Still open: its directory is locked.
    assert!(Db::open(&crate::common::create_options(), dir.path()).is_err());
    drop(cursor);
    Db::open(&crate::common::create_options(), dir.path()).unwrap();
}

/// A database snapshot in the options is the cursor's own (a clone): later writes unseen
/// after the options and the snapshot are dropped; `close` waits for the cursor.
#[test]
fn an_owned_cursor_keeps_its_snapshot_and_the_database_open() {
    let (_dir, db) = crate::common::open_db(&[]);
    let before = pairs(&[b"k1", b"k2"], 1);
    for (key, value) in &before {
        db.put(key, value).unwrap();
    }
    let snapshot = db.snapshot();
    let mut at = ReadOptions::new();
    at.snapshot(&snapshot);
    let mut cursor = db.reader().options(&at).owned_iter().unwrap();
    drop((at, snapshot));
    db.put(b"k1", b"overwritten").unwrap();
    db.put(b"k3", b"new").unwrap();
    cursor.seek_to_first();
    assert_eq!(entries(&mut cursor), before);
    cursor.refresh().unwrap();
    cursor.seek(b"k3");
    assert_eq!(cursor.entry(), Some((&b"k3"[..], &b"new"[..])));
    // Held twice: by the cursor, and by the snapshot its options keep.
    match db.close() {
        Err(Error::DatabaseInUse { holders }) => assert_eq!(holders, 2),
        other => panic!("closed under an owned cursor: {other:?}"),
    }
    // Closed, unreported, when the cursor (the last holder) drops.
    drop(cursor);
}

/// A transaction's snapshot belongs to the transaction: an owned cursor cannot take it.
#[test]
fn an_owned_cursor_refuses_a_transaction_s_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open_optimistic_transaction_db(&crate::common::create_options(), dir.path(), [])
        .unwrap();
    db.put(b"k", b"v").unwrap();
    let mut txn = db.begin().unwrap();
    txn.set_snapshot().unwrap();
    let refused = db.reader().options(txn.snapshot_options()).owned_iter();
    assert!(matches!(
        refused,
        Err(Error::InvalidInput {
            what: "owned cursor",
            ..
        })
    ));
    // With a snapshot of the database's own, it reads.
    let snapshot = db.snapshot();
    let mut at = ReadOptions::new();
    at.snapshot(&snapshot);
    let mut cursor = db.reader().options(&at).owned_iter().unwrap();
    cursor.seek_to_first();
    assert_eq!(entries(&mut cursor), vec![(b"k".to_vec(), b"v".to_vec())]);
}

/// The std-iterator face, owned: handed to a thread as a stream, backward too.
#[test]
fn owned_entries_stream_on_another_thread() {
    let (_dir, db) = crate::common::open_db(&[]);
    let expected = pairs(&[b"x1", b"x2", b"x3", b"y"], 40);
    for (key, value) in &expected {
        db.put(key, value).unwrap();
    }
    let forward = sent(
        db.reader()
            .owned_range(b"x"..b"y")
            .unwrap()
            .forward(|k, v| (k.to_vec(), v.to_vec())),
    );
    let mut backward_cursor = db.reader().owned_iter().unwrap();
    backward_cursor.seek_to_last();
    let backward = sent(backward_cursor.backward(|k, _| k.to_vec()));
    drop(db);
    let (got, keys) = std::thread::spawn(move || {
        let got: Vec<_> = forward.collect::<pinrocks::Result<_>>().unwrap();
        let keys: Vec<_> = backward.collect::<pinrocks::Result<_>>().unwrap();
        (got, keys)
    })
    .join()
    .unwrap();
    assert_eq!(got, expected[..3]);
    let reversed: Vec<Vec<u8>> = expected.iter().rev().map(|(k, _)| k.clone()).collect();
    assert_eq!(keys, reversed);
}

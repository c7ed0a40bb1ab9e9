//! WAL filters: each batch the WAL replays at an open, shown whole and decided on; the
//! filter kept alive by the database; a panic aborts.

use std::sync::{Arc, Mutex};

use pinrocks::callbacks::{WalAction, WalFilter};
use pinrocks::write::BatchRecord;
use pinrocks::{Db, Error, ErrorKind, WriteBatch};

use crate::common::{create_options, newest_options_file};

/// A database whose WAL holds three batches, nothing flushed: `a=1`; `b=2` with a delete of
/// `a`; `c=3`.
fn three_batches_logged() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(&create_options(), dir.path()).unwrap();
    db.put(b"a", b"1").unwrap();
    let mut batch = WriteBatch::new();
    batch.writer().put(b"b", b"2").unwrap();
    batch.writer().delete(b"a").unwrap();
    db.write(&batch).unwrap();
    db.put(b"c", b"3").unwrap();
    drop(db);
    dir
}

/// One batch as the filter saw it: first sequence number and its records, rendered.
type Seen = (u64, Vec<String>);

/// A filter that notes each batch and answers `action` for the one that writes `b`.
fn noting(action: WalAction) -> (WalFilter, Arc<Mutex<Vec<Seen>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let noted = seen.clone();
    let filter = WalFilter::new("noting", move |record| {
        let mut records = Vec::new();
        let mut writes_b = false;
        record
            .for_each(|r| {
                records.push(match r {
                    BatchRecord::Put { cf, key, value } => {
                        writes_b |= key == b"b";
                        format!("put {cf} {} {}", show(key), show(value))
                    }
                    BatchRecord::Delete { cf, key } => format!("delete {cf} {}", show(key)),
                    other => format!("{other:?}"),
                })
            })
            .unwrap();
        assert_eq!(record.len(), records.len());
        assert!(
            record.file().to_str().unwrap().ends_with(".log"),
            "{record:?}"
        );
        noted.lock().unwrap().push((record.sequence(), records));
        if writes_b {
            action
        } else {
            WalAction::Replay
        }
    });
    (filter, seen)
}

fn show(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn value(db: &Db, key: &[u8]) -> Option<Vec<u8>> {
    db.get(key).unwrap().map(|v| v.to_vec())
}

/// Every batch, whole and in order, each with its first sequence number.
fn all_three() -> Vec<Seen> {
    vec![
        (1, vec!["put 0 a 1".to_owned()]),
        (2, vec!["put 0 b 2".to_owned(), "delete 0 a".to_owned()]),
        (4, vec!["put 0 c 3".to_owned()]),
    ]
}

#[test]
fn replayed_batches_are_seen_whole_in_order() {
    let dir = three_batches_logged();
    let (filter, seen) = noting(WalAction::Replay);
    let mut options = create_options();
    options.wal_filter(&filter);
    let db = Db::open(&options, dir.path()).unwrap();
    assert_eq!(*seen.lock().unwrap(), all_three());
    assert_eq!(value(&db, b"a"), None);
    assert_eq!(value(&db, b"b").as_deref(), Some(&b"2"[..]));
    assert_eq!(value(&db, b"c").as_deref(), Some(&b"3"[..]));
}

#[test]
fn a_skipped_batch_is_left_out_and_the_replay_goes_on() {
    let dir = three_batches_logged();
    let (filter, seen) = noting(WalAction::Skip);
    let mut options = create_options();
    options.wal_filter(&filter);
    let db = Db::open(&options, dir.path()).unwrap();
    assert_eq!(*seen.lock().unwrap(), all_three());
    assert_eq!(value(&db, b"a").as_deref(), Some(&b"1"[..]));
    assert_eq!(value(&db, b"b"), None);
    assert_eq!(value(&db, b"c").as_deref(), Some(&b"3"[..]));
    // Writes go on after the batches replayed.
    db.put(b"d", b"4").unwrap();
    assert_eq!(value(&db, b"d").as_deref(), Some(&b"4"[..]));
}

#[test]
fn a_stop_leaves_out_the_batch_and_all_after_it() {
    let dir = three_batches_logged();
    let (filter, seen) = noting(WalAction::Stop);
    let mut options = create_options();
    options.wal_filter(&filter);
    let db = Db::open(&options, dir.path()).unwrap();
    assert_eq!(*seen.lock().unwrap(), all_three()[..2]);
    assert_eq!(value(&db, b"a").as_deref(), Some(&b"1"[..]));
    assert_eq!(value(&db, b"b"), None);
    assert_eq!(value(&db, b"c"), None);
}

#[test]
fn a_batch_reported_corrupt_fails_an_absolutely_consistent_open() {
    let dir = three_batches_logged();
    let (filter, _seen) = noting(WalAction::Corrupted);
    let mut options = create_options();
    options
        .wal_recovery_mode(pinrocks::options::WalRecoveryMode::AbsoluteConsistency)
        .wal_filter(&filter);
    match Db::open(&options, dir.path()) {
        Err(Error::RocksDb {
            kind: ErrorKind::Corruption,
            message,
        }) => assert!(message.contains("noting"), "{message}"),
        Err(other) => panic!("expected Corruption, got {other}"),
        Ok(_) => panic!("expected Corruption, got an open database"),
    }
    // Nothing was lost: without the filter the whole WAL replays.
    let db = Db::open(&create_options(), dir.path()).unwrap();
    assert_eq!(value(&db, b"a"), None);
    assert_eq!(value(&db, b"b").as_deref(), Some(&b"2"[..]));
    assert_eq!(value(&db, b"c").as_deref(), Some(&b"3"[..]));
}

/// RocksDB keeps a raw pointer to the filter: the database keeps it alive after the options
/// and the `WalFilter` are gone (its name is read whenever the options are serialized). By
/// name it is refused; an OPTIONS file that names it loads, without it.
#[test]
fn the_database_keeps_its_filter() {
    let dir = three_batches_logged();
    let (filter, seen) = noting(WalAction::Replay);
    let mut options = create_options();
    options.wal_filter(&filter);
    let db = Db::open(&options, dir.path()).unwrap();
    drop((options, filter));
    let in_force = db.options_in_force().unwrap();
    assert_eq!(in_force.get("wal_filter"), Some("noting"));
    assert_eq!(seen.lock().unwrap().len(), 3);

    let mut by_name = create_options();
    assert!(matches!(
        by_name.set_by_name(&[("wal_filter", "noting")]),
        Err(Error::OptionRejected { .. })
    ));
    drop(db);
    let file = std::fs::read_to_string(newest_options_file(dir.path())).unwrap();
    assert!(file.contains("wal_filter=noting"), "{file}");
    let stored =
        pinrocks::options::StoredOptions::load(dir.path(), &pinrocks::options::Cache::lru(1 << 20))
            .unwrap();
    let db = Db::open(&stored.db, dir.path()).unwrap();
    assert_eq!(
        db.options_in_force().unwrap().get("wal_filter"),
        Some("nullptr")
    );
    assert_eq!(value(&db, b"c").as_deref(), Some(&b"3"[..]));
}

/// The child: replays a WAL through a filter that panics.
#[test]
#[ignore = "run by a_panicking_wal_filter_aborts_with_a_message in a child process"]
fn panicking_wal_filter_child() {
    let Ok(dir) = std::env::var("PINROCKS_WAL_FILTER_DIR") else {
        return;
    };
    let db = Db::open(&create_options(), &dir).unwrap();
    db.put(b"a", b"1").unwrap();
    drop(db);
    let mut options = create_options();
    options.wal_filter(&WalFilter::new("explosive", |_| panic!("cannot judge")));
    let _db = Db::open(&options, &dir);
    println!("not reached");
}

#[test]
fn a_panicking_wal_filter_aborts_with_a_message() {
    let dir = tempfile::tempdir().unwrap();
    crate::common::aborts_in_child(
        module_path!(),
        "panicking_wal_filter_child",
        "PINROCKS_WAL_FILTER_DIR",
        dir.path(),
        "pinrocks: WAL filter \"explosive\" panicked (cannot judge)",
    );
    // The WAL is as it was: the write replays without the filter.
    let db = Db::open(&create_options(), dir.path()).unwrap();
    assert_eq!(value(&db, b"a").as_deref(), Some(&b"1"[..]));
}

/// Where RocksDB keeps the WAL past the open (two-phase commit, no flush at recovery), the
/// next open would replay what the filter left out: refused, the WAL untouched.
#[test]
fn a_filter_whose_decisions_would_not_last_is_refused() {
    let dir = three_batches_logged();
    let (filter, seen) = noting(WalAction::Skip);
    let refused = |result: pinrocks::Result<Db>, by: &str| match result {
        Err(Error::InvalidInput { what, detail }) => {
            assert_eq!(what, "wal_filter");
            assert!(detail.contains(by), "{detail}");
        }
        Err(other) => panic!("{by}: expected InvalidInput, got {other}"),
        Ok(_) => panic!("{by}: opened"),
    };
    for name in ["allow_2pc", "avoid_flush_during_recovery"] {
        let mut options = create_options();
        options.set_by_name(&[(name, "true")]).unwrap();
        options.wal_filter(&filter);
        refused(Db::open(&options, dir.path()), name);
    }
    let mut options = create_options();
    options.wal_filter(&filter);
    refused(
        Db::open_transaction_db(
            &options,
            &pinrocks::options::TransactionDbOptions::new(),
            dir.path(),
            [],
        ),
        "pessimistic transaction database",
    );
    assert!(seen.lock().unwrap().is_empty());
    let db = Db::open(&create_options(), dir.path()).unwrap();
    assert_eq!(value(&db, b"b").as_deref(), Some(&b"2"[..]));
}

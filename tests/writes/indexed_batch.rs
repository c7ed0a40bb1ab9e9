//! Indexed batches (`WriteBatchWithIndex`): every read tier over the batch alone and over the
//! database, in each family's key order, merges, savepoints, writing, owned values that
//! outlive the batch, what a batch refuses, and a model of batch-over-database reads.
//!
//! Long because: one test per property of a batch read or write, and the model they share.

use std::collections::BTreeMap;
use std::time::Duration;

use crate::common::every_tier;
use pinrocks::callbacks::Comparator;
use pinrocks::{Db, Error, ErrorKind, Options};
use proptest::prelude::*;

fn keys_of<S: pinrocks::read::ReadSource>(reader: pinrocks::Reader<'_, S>) -> Vec<Vec<u8>> {
    reader
        .scan(.., |k, _| k.to_vec())
        .collect::<pinrocks::Result<_>>()
        .unwrap()
}

#[test]
fn reads_see_the_batch_first_then_the_database_through_every_tier() {
    let (_dir, db) = crate::common::open_db(&["side"]);
    let side = db.cf("side").unwrap();
    let stored = crate::common::patterned(5000, 1);
    let replaced = crate::common::patterned(3000, 2);
    db.put(b"from-db", &stored).unwrap();
    db.put(b"replaced", b"old").unwrap();
    db.put(b"deleted", b"gone soon").unwrap();
    db.flush().unwrap();

    let mut batch = db.indexed_batch().unwrap();
    // An empty batch reads the database (pinrocks then skips the batch lookup).
    assert_eq!(every_tier(batch.reader(), b"from-db"), Some(stored.clone()));
    assert_eq!(every_tier(batch.batch_reader(), b"from-db"), None);
    batch.writer().put(b"replaced", &replaced).unwrap();
    batch.writer().put(b"own", b"mine").unwrap();
    batch.writer().cf(&side).put(b"own", b"side").unwrap();
    batch.writer().delete(b"deleted").unwrap();
    assert_eq!(batch.len(), 4);

    let over = batch.reader();
    assert_eq!(every_tier(over, b"from-db"), Some(stored.clone()));
    assert_eq!(every_tier(over, b"replaced"), Some(replaced.clone()));
    assert_eq!(every_tier(over, b"own"), Some(b"mine".to_vec()));
    assert_eq!(every_tier(over, b"deleted"), None);
    assert_eq!(every_tier(over, b"absent"), None);
    assert_eq!(every_tier(over.cf(&side), b"own"), Some(b"side".to_vec()));
    assert_eq!(every_tier(over.cf(&side), b"from-db"), None);

    let only = batch.batch_reader();
    assert_eq!(
        every_tier(only, b"from-db"),
        None,
        "the database is not read"
    );
    assert_eq!(every_tier(only, b"replaced"), Some(replaced.clone()));
    assert_eq!(every_tier(only, b"deleted"), None);
    assert_eq!(every_tier(only.cf(&side), b"own"), Some(b"side".to_vec()));

    // Iteration merges the batch's entries over the database's, both ways; alone, the
    // batch's (a delete hides its key).
    let merged = [b"from-db".to_vec(), b"own".to_vec(), b"replaced".to_vec()];
    assert_eq!(keys_of(over), merged);
    let backward: Vec<Vec<u8>> = over
        .scan_rev(.., |k, _| k.to_vec())
        .collect::<pinrocks::Result<_>>()
        .unwrap();
    assert_eq!(backward, merged.iter().rev().cloned().collect::<Vec<_>>());
    assert_eq!(keys_of(only), [b"own".to_vec(), b"replaced".to_vec()]);
    let mut it = over.range(b"o".as_slice()..b"q".as_slice());
    assert_eq!(it.entry(), Some((&b"own"[..], &b"mine"[..])));
    it.next();
    assert_eq!(it.key(), None, "\"replaced\" is outside the range");
    drop(it); // the batch can change only once no iterator points into it
    let prefixed: Vec<(Vec<u8>, Vec<u8>)> = over
        .prefix_iter(b"re")
        .forward(|k, v| (k.to_vec(), v.to_vec()))
        .collect::<pinrocks::Result<_>>()
        .unwrap();
    assert_eq!(prefixed, [(b"replaced".to_vec(), replaced.clone())]);

    // Nothing is in the database until the batch is written.
    assert_eq!(db.get(b"own").unwrap(), None);
    batch.write().unwrap();
    assert_eq!(db.get(b"own").unwrap().as_deref(), Some(&b"mine"[..]));
    assert_eq!(db.get(b"replaced").unwrap(), Some(replaced));
    assert_eq!(db.get(b"deleted").unwrap(), None);
    assert_eq!(
        side.reader().get(b"own").unwrap().as_deref(),
        Some(&b"side"[..])
    );
    assert!(batch.is_empty(), "written, then emptied for reuse");
    assert_eq!(every_tier(batch.batch_reader(), b"own"), None);
    assert_eq!(every_tier(batch.reader(), b"own"), Some(b"mine".to_vec()));
    batch.writer().put(b"again", b"1").unwrap();
    batch.clear();
    assert!(batch.is_empty());
    assert_eq!(every_tier(batch.reader(), b"again"), None);
}

#[test]
fn a_multi_get_beyond_32_keys_mixes_batch_database_and_absent_keys() {
    let (_dir, db) = crate::common::open_db(&[]);
    for i in 0..40u32 {
        db.put(format!("k{i:02}").as_bytes(), format!("db{i}").as_bytes())
            .unwrap();
    }
    db.flush().unwrap();
    let mut batch = db.indexed_batch().unwrap();
    for i in (0..40u32).step_by(3) {
        batch
            .writer()
            .put(
                format!("k{i:02}").as_bytes(),
                format!("batch{i}").as_bytes(),
            )
            .unwrap();
    }
    batch.writer().delete(b"k01").unwrap();
    let keys: Vec<String> = (0..45u32).map(|i| format!("k{i:02}")).collect();
    let expected = |i: usize, batch_only: bool| -> Option<Vec<u8>> {
        if i.is_multiple_of(3) && i < 40 {
            Some(format!("batch{i}").into_bytes())
        } else if i == 1 || i >= 40 || batch_only {
            None
        } else {
            Some(format!("db{i}").into_bytes())
        }
    };
    for (reader, batch_only) in [(batch.reader(), false), (batch.batch_reader(), true)] {
        let mut seen = vec![None; keys.len()];
        reader
            .multi_get_pinned(&keys, |i, v| seen[i] = v.map(<[u8]>::to_vec))
            .unwrap();
        for (i, value) in seen.iter().enumerate() {
            assert_eq!(
                value,
                &expected(i, batch_only),
                "key {i}, batch only: {batch_only}"
            );
        }
    }
}

#[test]
fn merges_in_the_batch_use_the_familys_operator() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = crate::common::create_options();
    options.merge_operator(&crate::common::counter());
    let db = Db::open(&options, dir.path()).unwrap();
    let n = |x: u64| x.to_be_bytes();
    db.put(b"count", &n(10)).unwrap();
    db.flush().unwrap();
    let mut batch = db.indexed_batch().unwrap();
    batch.writer().merge(b"count", &n(5)).unwrap();
    batch.writer().merge(b"count", &n(1)).unwrap();
    batch.writer().merge(b"fresh", &n(7)).unwrap();
    assert_eq!(every_tier(batch.reader(), b"count"), Some(n(16).to_vec()));
    assert_eq!(every_tier(batch.reader(), b"fresh"), Some(n(7).to_vec()));
    // Alone, the batch reads as if over an empty database: its operands merged with no
    // existing value, by point reads and iteration alike.
    assert_eq!(
        every_tier(batch.batch_reader(), b"count"),
        Some(n(6).to_vec())
    );
    let alone: Vec<(Vec<u8>, Vec<u8>)> = batch
        .batch_reader()
        .scan(.., |k, v| (k.to_vec(), v.to_vec()))
        .collect::<pinrocks::Result<_>>()
        .unwrap();
    let expected = [
        (b"count".to_vec(), n(6).to_vec()),
        (b"fresh".to_vec(), n(7).to_vec()),
    ];
    assert_eq!(alone, expected);
    // A put in the batch under operands answers alone.
    batch.writer().put(b"base", &n(100)).unwrap();
    batch.writer().merge(b"base", &n(2)).unwrap();
    assert_eq!(
        every_tier(batch.batch_reader(), b"base"),
        Some(n(102).to_vec())
    );
    batch.write().unwrap();
    assert_eq!(db.get(b"count").unwrap(), Some(n(16).to_vec()));
    assert_eq!(db.get(b"base").unwrap(), Some(n(102).to_vec()));
    // The written batch is empty: its merges are not applied a second time.
    assert_eq!(every_tier(batch.reader(), b"count"), Some(n(16).to_vec()));
}

#[test]
fn the_index_orders_each_family_like_the_database() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = crate::common::create_options();
    options.comparator(&Comparator::reverse_bytewise());
    let plain = crate::common::create_options();
    let db = Db::open_with(
        &options,
        dir.path(),
        [("default", &options), ("plain", &plain)],
    )
    .unwrap();
    let plain_cf = db.cf("plain").unwrap();
    for k in [b"a", b"c"] {
        db.put(k, b"db").unwrap();
        plain_cf.writer().put(k, b"db").unwrap();
    }
    let mut batch = db.indexed_batch().unwrap();
    for k in [b"b", b"d"] {
        batch.writer().put(k, b"batch").unwrap();
        batch.writer().cf(&plain_cf).put(k, b"batch").unwrap();
    }
    let k = |s: &[&[u8]]| s.iter().map(|k| k.to_vec()).collect::<Vec<_>>();
    assert_eq!(keys_of(batch.reader()), k(&[b"d", b"c", b"b", b"a"]));
    assert_eq!(keys_of(batch.batch_reader()), k(&[b"d", b"b"]));
    assert_eq!(
        keys_of(batch.reader().cf(&plain_cf)),
        k(&[b"a", b"b", b"c", b"d"])
    );
    assert_eq!(
        keys_of(batch.batch_reader().cf(&plain_cf)),
        k(&[b"b", b"d"])
    );
    // A range is in the family's order: from "c" down to "b".
    let ranged: Vec<Vec<u8>> = batch
        .reader()
        .scan(b"c".as_slice()..=b"b".as_slice(), |k, _| k.to_vec())
        .collect::<pinrocks::Result<_>>()
        .unwrap();
    assert_eq!(ranged, k(&[b"c", b"b"]));
    assert_eq!(
        batch.reader().get(b"b").unwrap().as_deref(),
        Some(&b"batch"[..])
    );
}

#[test]
fn savepoints_undo_what_follows_them() {
    let (_dir, db) = crate::common::open_db(&[]);
    db.put(b"k", b"db").unwrap();
    let mut batch = db.indexed_batch().unwrap();
    batch.writer().put(b"kept", b"1").unwrap();
    batch.set_savepoint().unwrap();
    batch.writer().put(b"k", b"batch").unwrap();
    batch.writer().put(b"undone", b"2").unwrap();
    assert_eq!(
        batch.reader().get(b"k").unwrap().as_deref(),
        Some(&b"batch"[..])
    );
    batch.rollback_to_savepoint().unwrap();
    assert_eq!(
        batch.reader().get(b"k").unwrap().as_deref(),
        Some(&b"db"[..])
    );
    assert_eq!(batch.reader().get(b"undone").unwrap(), None);
    assert_eq!(batch.len(), 1);
    let err = batch.rollback_to_savepoint().unwrap_err();
    assert_eq!(err.kind(), Some(ErrorKind::NotFound), "{err}");
    batch.set_savepoint().unwrap();
    batch.writer().put(b"after", b"3").unwrap();
    batch.pop_savepoint().unwrap();
    assert_eq!(
        batch.pop_savepoint().unwrap_err().kind(),
        Some(ErrorKind::NotFound)
    );
    assert_eq!(
        keys_of(batch.batch_reader()),
        [b"after".to_vec(), b"kept".to_vec()]
    );
}

#[test]
fn owned_values_outlive_the_batch_and_the_database_handle() {
    let (_dir, db) = crate::common::open_db(&[]);
    let stored = crate::common::patterned(10_000, 3);
    db.put(b"from-db", &stored).unwrap();
    db.flush().unwrap();
    let mut batch = db.indexed_batch().unwrap();
    batch.writer().put(b"own", b"mine").unwrap();
    let own = batch.reader().get_bytes(b"own").unwrap().unwrap();
    let from_db = batch.reader().get_bytes(b"from-db").unwrap().unwrap();
    let only = batch.batch_reader().get_bytes(b"own").unwrap().unwrap();
    batch
        .writer()
        .put(b"own", b"changed after the read")
        .unwrap();
    drop(batch);
    drop(db);
    let (own, from_db, only) = std::thread::spawn(move || (own, from_db, only))
        .join()
        .unwrap();
    assert_eq!(&own[..], b"mine");
    assert_eq!(&only[..], b"mine");
    assert_eq!(&from_db[..], &stored[..]);
}

#[test]
fn a_write_is_refused_whole_for_a_dropped_family_or_a_read_only_database() {
    let (dir, db) = crate::common::open_db(&["doomed"]);
    let doomed = db.cf("doomed").unwrap();
    let mut batch = db.indexed_batch().unwrap();
    batch.writer().put(b"k", b"v").unwrap();
    batch.writer().cf(&doomed).put(b"k", b"v").unwrap();
    db.drop_cf("doomed").unwrap();
    let err = batch.write().unwrap_err();
    assert!(
        matches!(err, Error::ColumnFamilyDropped { ref name } if name == "doomed"),
        "{err}"
    );
    assert_eq!(
        db.get(b"k").unwrap(),
        None,
        "nothing of the batch was written"
    );
    assert_eq!(batch.len(), 2, "a refused batch keeps its entries");
    drop(batch);
    drop(doomed);
    drop(db);

    let read_only = Db::open_read_only(&Options::new(), dir.path()).unwrap();
    let mut batch = read_only.indexed_batch().unwrap();
    batch.writer().put(b"k", b"v").unwrap();
    assert_eq!(
        batch.reader().get(b"k").unwrap().as_deref(),
        Some(&b"v"[..])
    );
    assert!(matches!(batch.write().unwrap_err(), Error::ReadOnly { .. }));
}

#[test]
fn a_ttl_database_refuses_indexed_batches() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open_with_ttl(
        &crate::common::create_options(),
        dir.path(),
        Duration::from_secs(60),
    )
    .unwrap();
    let err = db.indexed_batch().unwrap_err();
    assert!(
        matches!(
            err,
            Error::WrongKind {
                operation: "indexed_batch",
                needs: "non-TTL"
            }
        ),
        "{err}"
    );
}

#[test]
fn a_transaction_databases_batch_writes_through_its_locks() {
    let dir = tempfile::tempdir().unwrap();
    let mut txn_options = pinrocks::options::TransactionDbOptions::new();
    txn_options.default_lock_timeout(Duration::from_millis(100));
    let db = Db::open_transaction_db(
        &crate::common::create_options(),
        &txn_options,
        dir.path(),
        [],
    )
    .unwrap();
    let mut txn = db.begin().unwrap();
    txn.writer().put(b"locked", b"txn").unwrap();
    let mut batch = db.indexed_batch().unwrap();
    batch.writer().put(b"locked", b"batch").unwrap();
    let err = batch.write().unwrap_err();
    assert_eq!(err.kind(), Some(ErrorKind::LockTimeout), "{err}");
    txn.commit().unwrap();
    batch.write().unwrap();
    assert_eq!(db.get(b"locked").unwrap().as_deref(), Some(&b"batch"[..]));
}

#[test]
fn a_transactions_prefix_iteration_sees_its_own_writes() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open_optimistic_transaction_db(&crate::common::create_options(), dir.path(), [])
        .unwrap();
    db.put(b"p:db", b"1").unwrap();
    db.put(b"q:db", b"1").unwrap();
    let mut txn = db.begin().unwrap();
    txn.writer().put(b"p:own", b"2").unwrap();
    txn.writer().delete(b"p:db").unwrap();
    let keys: Vec<Vec<u8>> = txn
        .reader()
        .prefix_iter(b"p:")
        .forward(|k, _| k.to_vec())
        .collect::<pinrocks::Result<_>>()
        .unwrap();
    assert_eq!(keys, [b"p:own".to_vec()]);
}

/// One step of the model test.
#[derive(Debug, Clone)]
enum Step {
    BatchPut(u8, u8),
    BatchDelete(u8),
    BatchMerge(u8, u8),
    DbPut(u8, u8),
    DbDelete(u8),
    DbMerge(u8, u8),
    Savepoint,
    Rollback,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => (0..12u8, any::<u8>()).prop_map(|(k, v)| Step::BatchPut(k, v)),
        2 => (0..12u8).prop_map(Step::BatchDelete),
        2 => (0..12u8, any::<u8>()).prop_map(|(k, v)| Step::BatchMerge(k, v)),
        3 => (0..12u8, any::<u8>()).prop_map(|(k, v)| Step::DbPut(k, v)),
        1 => (0..12u8).prop_map(Step::DbDelete),
        1 => (0..12u8, any::<u8>()).prop_map(|(k, v)| Step::DbMerge(k, v)),
        1 => Just(Step::Savepoint),
        1 => Just(Step::Rollback),
    ]
}

type Model = BTreeMap<Vec<u8>, Vec<u8>>;

/// What the batch holds for a key: a put or a delete under it (`Some(None)`: a delete;
/// `None`: neither, so its operands apply to whatever is under the batch), then operands.
#[derive(Debug, Clone, Default)]
struct Entry {
    base: Option<Option<Vec<u8>>>,
    operands: Vec<u8>,
}

type Overlay = BTreeMap<Vec<u8>, Entry>;

fn key(k: u8) -> Vec<u8> {
    format!("key{k:02}").into_bytes()
}

fn value(k: u8, v: u8) -> Vec<u8> {
    let mut value = crate::common::patterned(usize::from(v) * 7, k);
    value.extend_from_slice(&[k, v]);
    value
}

/// The batch laid over `under` (the database's model, or nothing for the batch alone).
fn merged(under: &Model, overlay: &Overlay) -> Model {
    let mut view = under.clone();
    for (k, entry) in overlay {
        let start = match &entry.base {
            Some(base) => base.clone(),
            None => under.get(k).cloned(),
        };
        let result = match (start, entry.operands.is_empty()) {
            (start, true) => start,
            (start, false) => {
                let mut v = start.unwrap_or_default();
                v.extend_from_slice(&entry.operands);
                Some(v)
            }
        };
        match result {
            Some(v) => view.insert(k.clone(), v),
            None => view.remove(k),
        };
    }
    view
}

fn check<S: pinrocks::read::ReadSource>(reader: pinrocks::Reader<'_, S>, expected: &Model) {
    for k in 0..12u8 {
        assert_eq!(
            every_tier(reader, &key(k)),
            expected.get(&key(k)).cloned(),
            "key {k}"
        );
    }
    let forward: Vec<(Vec<u8>, Vec<u8>)> = reader
        .scan(.., |k, v| (k.to_vec(), v.to_vec()))
        .collect::<pinrocks::Result<_>>()
        .unwrap();
    assert_eq!(forward, expected.clone().into_iter().collect::<Vec<_>>());
    let backward: Vec<Vec<u8>> = reader
        .scan_rev(.., |k, _| k.to_vec())
        .collect::<pinrocks::Result<_>>()
        .unwrap();
    assert_eq!(backward, expected.keys().rev().cloned().collect::<Vec<_>>());
}

proptest! {
    #![proptest_config(crate::common::proptest_config(24))]

    /// Batch puts, deletes and merges interleaved with database writes: the batch over the
    /// database reads as the model's database with the batch's entries laid over it, the
    /// batch alone as its entries over nothing, savepoints restore the entries they saw,
    /// and the write leaves the database as the overlay said.
    #[test]
    fn batch_over_database_matches_its_model(steps in proptest::collection::vec(step(), 1..40)) {
        let dir = tempfile::tempdir().unwrap();
        let mut options = crate::common::create_options();
        options.merge_operator(&crate::common::append());
        let db = Db::open(&options, dir.path()).unwrap();
        let mut batch = db.indexed_batch().unwrap();
        let mut db_model = Model::new();
        let mut overlay = Overlay::new();
        let mut savepoints: Vec<Overlay> = Vec::new();
        for (i, step) in steps.iter().enumerate() {
            match *step {
                Step::BatchPut(k, v) => {
                    batch.writer().put(&key(k), &value(k, v)).unwrap();
                    overlay.insert(key(k), Entry { base: Some(Some(value(k, v))), operands: vec![] });
                }
                Step::BatchDelete(k) => {
                    batch.writer().delete(&key(k)).unwrap();
                    overlay.insert(key(k), Entry { base: Some(None), operands: vec![] });
                }
                Step::BatchMerge(k, v) => {
                    batch.writer().merge(&key(k), &[k, v]).unwrap();
                    overlay.entry(key(k)).or_default().operands.extend_from_slice(&[k, v]);
                }
                Step::DbPut(k, v) => {
                    db.put(&key(k), &value(k, v)).unwrap();
                    db_model.insert(key(k), value(k, v));
                }
                Step::DbDelete(k) => {
                    db.delete(&key(k)).unwrap();
                    db_model.remove(&key(k));
                }
                Step::DbMerge(k, v) => {
                    db.merge(&key(k), &[v]).unwrap();
                    db_model.entry(key(k)).or_default().push(v);
                }
                Step::Savepoint => {
                    batch.set_savepoint().unwrap();
                    savepoints.push(overlay.clone());
                }
                Step::Rollback => match savepoints.pop() {
                    Some(saved) => {
                        batch.rollback_to_savepoint().unwrap();
                        overlay = saved;
                    }
                    None => prop_assert!(batch.rollback_to_savepoint().is_err()),
                },
            }
            if i % 7 == 3 {
                db.flush().unwrap();
            }
            check(batch.reader(), &merged(&db_model, &overlay));
            check(batch.batch_reader(), &merged(&Model::new(), &overlay));
        }
        batch.write().unwrap();
        check(db.reader(), &merged(&db_model, &overlay));
        prop_assert!(batch.is_empty());
    }
}

#[test]
fn a_family_named_only_after_a_rolled_back_savepoint_does_not_block_the_write() {
    let (_dir, db) = crate::common::open_db(&["doomed"]);
    let doomed = db.cf("doomed").unwrap();
    let mut batch = db.indexed_batch().unwrap();
    batch.writer().put(b"k", b"v").unwrap();
    batch.set_savepoint().unwrap();
    batch.writer().cf(&doomed).put(b"k", b"v").unwrap();
    batch.rollback_to_savepoint().unwrap();
    db.drop_cf("doomed").unwrap();
    batch.write().unwrap();
    assert_eq!(db.get(b"k").unwrap().as_deref(), Some(&b"v"[..]));
}

#[test]
#[should_panic(expected = "prefix_same_as_start applies to the database's keys only")]
fn prefix_same_as_start_is_refused_through_a_batch() {
    let (_dir, db) = crate::common::open_db(&[]);
    let batch = db.indexed_batch().unwrap();
    let mut options = pinrocks::ReadOptions::new();
    options.prefix_same_as_start(true);
    let _ = batch.reader().options(&options);
}

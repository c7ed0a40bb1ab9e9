//! Model-based property test: random sequences of writes, batches, flushes, compactions
//! and reopens, checked after every step against a `BTreeMap` through every read path.
//! proptest keeps shrunk failures in `tests/writes/model.proptest-regressions` and replays them
//! first on every run.

use std::collections::BTreeMap;

use crate::common::create_options;
use pinrocks::codec::Raw;
use pinrocks::{CopyResult, Db, Table, WriteBatch};
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Op {
    Put(Vec<u8>, Vec<u8>),
    Delete(Vec<u8>),
    DeleteRange(Vec<u8>, Vec<u8>),
    Batch(Vec<(Vec<u8>, Option<Vec<u8>>)>),
    BatchWithRange(Vec<u8>, Vec<u8>, Vec<u8>, Vec<u8>),
    Flush,
    Compact,
    Reopen,
}

/// Keys from a small space (so operations collide), including the empty key and NULs.
fn key() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(
        prop_oneof![Just(0u8), Just(1), Just(b'a'), Just(0xFF)],
        0..3,
    )
}

fn value() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..16),
        prop::collection::vec(any::<u8>(), 0..3000),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (key(), value()).prop_map(|(k, v)| Op::Put(k, v)),
        2 => key().prop_map(Op::Delete),
        1 => (key(), key()).prop_map(|(a, b)| Op::DeleteRange(a, b)),
        2 => prop::collection::vec((key(), prop::option::of(value())), 0..6).prop_map(Op::Batch),
        1 => (key(), value(), key(), key()).prop_map(|(k, v, a, b)| Op::BatchWithRange(k, v, a, b)),
        1 => Just(Op::Flush),
        1 => Just(Op::Compact),
        1 => Just(Op::Reopen),
    ]
}

/// Every key the strategy can produce.
fn all_keys() -> Vec<Vec<u8>> {
    let alphabet = [0u8, 1, b'a', 0xFF];
    let mut keys = vec![vec![]];
    for &a in &alphabet {
        keys.push(vec![a]);
        for &b in &alphabet {
            keys.push(vec![a, b]);
        }
    }
    keys
}

fn apply(db: &Db, model: &mut BTreeMap<Vec<u8>, Vec<u8>>, op: &Op) {
    match op {
        Op::Put(k, v) => {
            db.put(k, v).unwrap();
            model.insert(k.clone(), v.clone());
        }
        Op::Delete(k) => {
            db.delete(k).unwrap();
            model.remove(k);
        }
        Op::DeleteRange(a, b) => {
            // A range whose start is after its end is refused (and must not poison later
            // writes: the next step's writes check that); an empty one is a no-op.
            if a <= b {
                db.delete_range(a, b).unwrap();
                model.retain(|k, _| !(a <= k && k < b));
            } else {
                let err = db.delete_range(a, b).unwrap_err();
                assert!(
                    matches!(err, pinrocks::Error::InvertedRange { .. }),
                    "{err}"
                );
            }
        }
        Op::Batch(ops) => {
            let mut batch = WriteBatch::new();
            for (k, v) in ops {
                match v {
                    Some(v) => batch.writer().put(k, v),
                    None => batch.writer().delete(k),
                }
                .unwrap();
            }
            db.write(&batch).unwrap();
            for (k, v) in ops {
                match v {
                    Some(v) => model.insert(k.clone(), v.clone()),
                    None => model.remove(k),
                };
            }
        }
        Op::BatchWithRange(k, v, a, b) => {
            let mut batch = WriteBatch::new();
            batch.writer().put(k, v).unwrap();
            batch.writer().delete_range(a, b).unwrap();
            if a <= b {
                db.write(&batch).unwrap();
                model.insert(k.clone(), v.clone());
                model.retain(|key, _| !(a <= key && key < b));
            } else {
                // Refused whole: not even the put lands.
                let err = db.write(&batch).unwrap_err();
                assert!(
                    matches!(err, pinrocks::Error::InvertedRange { .. }),
                    "{err}"
                );
            }
        }
        Op::Flush => db.flush().unwrap(),
        Op::Compact => db.compact_range(None, None).unwrap(),
        Op::Reopen => unreachable!("handled by the caller"),
    }
}

fn check(db: &Db, model: &BTreeMap<Vec<u8>, Vec<u8>>) {
    let keys = all_keys();
    let table: Table<Raw, Raw> = Table::new(db.default_cf());
    let mut buf = vec![0u8; 4096];
    for k in &keys {
        let expected = model.get(k).cloned();
        assert_eq!(db.get(k).unwrap(), expected, "Vec {k:?}");
        assert_eq!(
            db.get_pinned(k, <[u8]>::to_vec).unwrap(),
            expected,
            "pinned {k:?}"
        );
        assert_eq!(
            db.reader().pin(k).unwrap().map(|g| g.to_vec()),
            expected,
            "v2 {k:?}"
        );
        assert_eq!(
            db.reader().get_bytes(k).unwrap().map(|b| b.to_vec()),
            expected,
            "bytes {k:?}"
        );
        assert_eq!(table.get_owned(k).unwrap(), expected, "typed {k:?}");
        let copied = match db.get_into(k, &mut buf).unwrap() {
            CopyResult::Copied(n) => Some(buf[..n].to_vec()),
            CopyResult::NotFound => None,
            CopyResult::NotEnoughCapacity { required } => panic!("{required} > 4096"),
        };
        assert_eq!(copied, expected, "buffer {k:?}");
    }
    let mut multi = vec![None; keys.len()];
    db.reader()
        .multi_get_pinned(&keys, |i, v| multi[i] = v.map(<[u8]>::to_vec))
        .unwrap();
    let expected: Vec<_> = keys.iter().map(|k| model.get(k).cloned()).collect();
    assert_eq!(multi, expected, "multi-get");

    let scanned: Vec<_> = db
        .reader()
        .scan(.., |k, v| (k.to_vec(), v.to_vec()))
        .collect::<pinrocks::Result<_>>()
        .unwrap();
    let expected: Vec<_> = model.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    assert_eq!(scanned, expected, "iterator");
}

proptest! {
    #![proptest_config(ProptestConfig {
        // 128, or PROPTEST_CASES (memcheck runs 4; a soak runs 10,000): an explicit
        // `cases` would override the environment.
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(128),
        failure_persistence: Some(Box::new(
            proptest::test_runner::FileFailurePersistence::Direct("tests/writes/model.proptest-regressions"),
        )),
        ..ProptestConfig::default()
    })]

    #[test]
    fn every_read_path_matches_a_btreemap(ops in prop::collection::vec(op(), 1..40)) {
        let dir = tempfile::tempdir().unwrap();
        let options = create_options();
        let mut db = Db::open(&options, dir.path()).unwrap();
        let mut model = BTreeMap::new();
        for op in &ops {
            if let Op::Reopen = op {
                drop(db);
                db = Db::open(&options, dir.path()).unwrap();
            } else {
                apply(&db, &mut model, op);
            }
            check(&db, &model);
        }
    }
}

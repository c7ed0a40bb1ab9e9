//! Merge operators: results read back through every tier, from the memtable, SST files and
//! compactions; failures and panics reported with the operator's name; a model of a counter
//! and of an append-only list under random puts, merges, deletes, flushes, compactions and
//! reopens.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crate::common::every_tier;
use pinrocks::callbacks::{MergeError, MergeOperator};
use pinrocks::codec::BigEndian;
use pinrocks::{Db, Error, ErrorKind, Options, ReadOptions, Table, WriteBatch};
use proptest::prelude::*;

fn options_with(op: &MergeOperator) -> Options {
    let mut options = crate::common::create_options();
    options.merge_operator(op);
    options
}

fn open(path: &Path, default: &Options, list: &Options) -> Db {
    Db::open_with(default, path, [("default", default), ("list", list)]).unwrap()
}

fn be(n: u64) -> [u8; 8] {
    n.to_be_bytes()
}

#[test]
fn a_counter_merges_in_the_memtable_in_files_and_in_compactions() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(&options_with(&crate::common::counter()), dir.path()).unwrap();
    let cf = db.default_cf();
    db.put(b"k", &be(10)).unwrap();
    db.merge(b"k", &be(1)).unwrap();
    assert_eq!(every_tier(db.reader(), b"k"), Some(be(11).to_vec()));
    cf.flush().unwrap();
    db.merge(b"k", &be(5)).unwrap();
    assert_eq!(every_tier(db.reader(), b"k"), Some(be(16).to_vec()));
    cf.flush().unwrap();
    assert_eq!(every_tier(db.reader(), b"k"), Some(be(16).to_vec()));
    cf.compact_range(None, None).unwrap();
    assert_eq!(every_tier(db.reader(), b"k"), Some(be(16).to_vec()));
    // No base value: the first operand starts the fold.
    db.merge(b"fresh", &be(7)).unwrap();
    db.merge(b"fresh", &be(8)).unwrap();
    assert_eq!(every_tier(db.reader(), b"fresh"), Some(be(15).to_vec()));
    // A delete ends the history: the next operand starts again.
    db.delete(b"k").unwrap();
    db.merge(b"k", &be(2)).unwrap();
    assert_eq!(every_tier(db.reader(), b"k"), Some(be(2).to_vec()));
}

#[test]
fn merges_reach_every_writer_a_batch_and_a_typed_table() {
    let dir = tempfile::tempdir().unwrap();
    let options = options_with(&crate::common::counter());
    let db = Db::open_cf(&options, dir.path(), ["hits"]).unwrap();
    let hits = db.cf("hits").unwrap();
    hits.writer().merge(b"a", &be(1)).unwrap();
    let mut batch = WriteBatch::new();
    batch.writer().cf(&hits).merge(b"a", &be(2)).unwrap();
    batch.writer().merge(b"b", &be(3)).unwrap();
    db.write(&batch).unwrap();
    let table: Table<pinrocks::codec::Raw, BigEndian<u64>> = Table::new(hits.clone());
    table.merge(b"a", &4).unwrap();
    assert_eq!(table.get_owned(b"a").unwrap(), Some(7));
    assert_eq!(every_tier(hits.reader(), b"a"), Some(be(7).to_vec()));
    assert_eq!(every_tier(db.reader(), b"b"), Some(be(3).to_vec()));
    // The batch recorded the merges as merges.
    let mut merges = 0;
    batch
        .for_each(|r| {
            if let pinrocks::write::BatchRecord::Merge { .. } = r {
                merges += 1;
            }
        })
        .unwrap();
    assert_eq!(merges, 2);
}

#[test]
fn merge_without_an_operator_is_refused() {
    let (_dir, db) = crate::common::open_db(&[]);
    let err = db.merge(b"k", b"x").unwrap_err();
    assert_eq!(err.kind(), Some(ErrorKind::NotSupported), "{err}");
    assert_eq!(db.get(b"k").unwrap(), None);
}

#[test]
fn a_result_can_be_an_input_without_a_copy() {
    // Last writer wins: the result is the newest operand itself.
    let last = MergeOperator::new("last", |input, out| {
        out.use_operand(input.operands.len() - 1)
    });
    // Keep the first: the existing value itself when there is one.
    let first = MergeOperator::new("first", |input, out| match input.existing {
        Some(_) => out.use_existing(),
        None => out.use_operand(0),
    });
    for (op, expected) in [(last, b"c"), (first, b"a")] {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(&options_with(&op), dir.path()).unwrap();
        db.put(b"k", b"a").unwrap();
        db.merge(b"k", b"b").unwrap();
        db.merge(b"k", b"c").unwrap();
        assert_eq!(
            every_tier(db.reader(), b"k"),
            Some(expected.to_vec()),
            "{op:?}"
        );
        db.default_cf().flush().unwrap();
        db.compact_range(None, None).unwrap();
        assert_eq!(
            every_tier(db.reader(), b"k"),
            Some(expected.to_vec()),
            "{op:?}"
        );
    }
    // Naming an input that is not there fails the merge.
    let bad = MergeOperator::new("bad", |_, out| out.use_existing());
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(&options_with(&bad), dir.path()).unwrap();
    db.merge(b"k", b"x").unwrap();
    match db.get(b"k") {
        Err(Error::MergeFailed { operator, reason }) => {
            assert_eq!(operator, "bad");
            assert_eq!(reason, "no existing value");
        }
        other => panic!("{other:?}"),
    }
}

fn boom_operator(calls: Arc<AtomicUsize>) -> MergeOperator {
    MergeOperator::new("boom", move |input, out| {
        calls.fetch_add(1, Ordering::Relaxed);
        for op in input.operands.iter() {
            if op == b"panic" {
                panic!("operand says panic");
            }
            if op == b"fail" {
                return Err(MergeError::new("operand says fail"));
            }
        }
        out.set(input.operands.get(input.operands.len() - 1).unwrap())
    })
}

#[test]
fn a_failing_or_panicking_merge_fails_the_read_and_names_the_operator_100_times() {
    let dir = tempfile::tempdir().unwrap();
    let calls = Arc::new(AtomicUsize::new(0));
    let db = Db::open(&options_with(&boom_operator(calls.clone())), dir.path()).unwrap();
    db.merge(b"bad", b"panic").unwrap();
    db.merge(b"worse", b"fail").unwrap();
    db.merge(b"good", b"fine").unwrap();
    for round in 0..100 {
        for (key, expected_reason) in [
            (&b"bad"[..], "panicked: operand says panic"),
            (b"worse", "operand says fail"),
        ] {
            match db.get(key) {
                Err(Error::MergeFailed { operator, reason }) => {
                    assert_eq!(operator, "boom");
                    assert_eq!(reason, expected_reason, "round {round}");
                }
                other => panic!("round {round}: {other:?}"),
            }
            let pinned = db.reader().get_pinned(key, |v| v.len());
            assert!(
                matches!(pinned, Err(Error::MergeFailed { .. })),
                "{pinned:?}"
            );
            // Iteration reports it as the scan's error (RocksDB's status, message only).
            let scanned: Vec<_> = db.reader().scan(key..=key, |_, v| v.to_vec()).collect();
            assert!(scanned.last().unwrap().is_err(), "{scanned:?}");
        }
        assert_eq!(db.get(b"good").unwrap(), Some(b"fine".to_vec()));
    }
    // Flushes and compactions keep the failing operands; the database stays writable.
    db.default_cf().flush().unwrap();
    db.compact_range(None, None).unwrap();
    db.put(b"after", b"ok").unwrap();
    assert_eq!(db.get(b"after").unwrap(), Some(b"ok".to_vec()));
    assert!(matches!(db.get(b"bad"), Err(Error::MergeFailed { .. })));
    // Overwriting the key ends its failing history.
    db.put(b"bad", b"fixed").unwrap();
    assert_eq!(every_tier(db.reader(), b"bad"), Some(b"fixed".to_vec()));
    assert!(calls.load(Ordering::Relaxed) >= 400);
}

#[test]
fn the_operator_lives_until_the_last_column_family_using_it_is_gone() {
    let dir = tempfile::tempdir().unwrap();
    let calls = Arc::new(AtomicUsize::new(0));
    let db = {
        // Options and operator dropped at once: the database's copy keeps it alive.
        let options = options_with(&boom_operator(calls.clone()));
        Db::open(&options, dir.path()).unwrap()
    };
    db.merge(b"k", b"v").unwrap();
    assert_eq!(db.get(b"k").unwrap(), Some(b"v".to_vec()));
    // Each `install` holds one reference to the operator's closure (and so to `calls`):
    // once the database has closed, only ours is left.
    assert!(Arc::strong_count(&calls) > 1);
    drop(db);
    assert_eq!(Arc::strong_count(&calls), 1);
}

#[test]
fn partial_merges_combine_operands_above_a_snapshot() {
    let partials = Arc::new(AtomicUsize::new(0));
    let seen = partials.clone();
    let op = MergeOperator::new("sum", |input, out| {
        let start = input
            .existing
            .map_or(0, |e| u64::from_be_bytes(e.try_into().unwrap()));
        let sum = input
            .operands
            .iter()
            .map(|o| u64::from_be_bytes(o.try_into().unwrap()))
            .fold(start, u64::wrapping_add);
        out.set(&sum.to_be_bytes())
    })
    .with_partial(move |_key, operands, out| {
        seen.fetch_add(1, Ordering::Relaxed);
        let sum = operands
            .iter()
            .map(|o| u64::from_be_bytes(o.try_into().unwrap()))
            .fold(0, u64::wrapping_add);
        out.set(&sum.to_be_bytes()).is_ok()
    });
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(&options_with(&op), dir.path()).unwrap();
    db.merge(b"k", &be(1)).unwrap();
    let snapshot = db.snapshot();
    for i in 2..=5 {
        db.merge(b"k", &be(i)).unwrap();
    }
    db.default_cf().flush().unwrap();
    db.compact_range(None, None).unwrap();
    assert!(partials.load(Ordering::Relaxed) > 0, "no partial merge ran");
    assert_eq!(every_tier(db.reader(), b"k"), Some(be(15).to_vec()));
    let mut at_snapshot = ReadOptions::new();
    at_snapshot.snapshot(&snapshot);
    assert_eq!(
        every_tier(db.reader().options(&at_snapshot), b"k"),
        Some(be(1).to_vec())
    );
}

#[derive(Debug, Clone)]
enum Step {
    Put(u8, u64),
    Merge(u8, u64),
    Delete(u8),
    Flush,
    Compact,
    Reopen,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        3 => (0u8..4, any::<u64>()).prop_map(|(k, v)| Step::Put(k, v)),
        6 => (0u8..4, 0u64..1000).prop_map(|(k, v)| Step::Merge(k, v)),
        2 => (0u8..4).prop_map(Step::Delete),
        1 => Just(Step::Flush),
        1 => Just(Step::Compact),
        1 => Just(Step::Reopen),
    ]
}

proptest! {
    #![proptest_config(crate::common::proptest_config(48))]

    /// A counter (default family) and an append-only list ("list" family) against a model,
    /// every key read through every tier after each step.
    #[test]
    fn counter_and_list_match_their_model(steps in proptest::collection::vec(step(), 1..40)) {
        let dir = tempfile::tempdir().unwrap();
        let default = options_with(&crate::common::counter());
        let list_options = options_with(&crate::common::append());
        let mut db = open(dir.path(), &default, &list_options);
        let mut counters: BTreeMap<u8, u64> = BTreeMap::new();
        let mut lists: BTreeMap<u8, Vec<u8>> = BTreeMap::new();
        for step in steps {
            match step {
                Step::Put(k, v) => {
                    db.put(&[k], &be(v)).unwrap();
                    db.cf("list").unwrap().writer().put(&[k], &be(v)).unwrap();
                    counters.insert(k, v);
                    lists.insert(k, be(v).to_vec());
                }
                Step::Merge(k, v) => {
                    db.merge(&[k], &be(v)).unwrap();
                    let record = [k, (v % 256) as u8];
                    db.cf("list").unwrap().writer().merge(&[k], &record).unwrap();
                    let sum = counters.get(&k).map_or(v, |s| s.wrapping_add(v));
                    counters.insert(k, sum);
                    lists.entry(k).or_default().extend_from_slice(&record);
                }
                Step::Delete(k) => {
                    db.delete(&[k]).unwrap();
                    db.cf("list").unwrap().writer().delete(&[k]).unwrap();
                    counters.remove(&k);
                    lists.remove(&k);
                }
                Step::Flush => {
                    db.default_cf().flush().unwrap();
                    db.cf("list").unwrap().flush().unwrap();
                }
                Step::Compact => {
                    db.compact_range(None, None).unwrap();
                    db.cf("list").unwrap().compact_range(None, None).unwrap();
                }
                Step::Reopen => {
                    drop(db);
                    db = open(dir.path(), &default, &list_options);
                }
            }
            let list = db.cf("list").unwrap();
            for k in 0u8..4 {
                prop_assert_eq!(every_tier(db.reader(), &[k]), counters.get(&k).map(|v| be(*v).to_vec()));
                prop_assert_eq!(every_tier(list.reader(), &[k]), lists.get(&k).cloned());
            }
        }
    }
}

#[test]
fn a_merged_value_is_built_not_pinned_from_a_block() {
    let cache = pinrocks::options::Cache::lru(64 << 20);
    let mut options = options_with(&crate::common::append());
    options.block_cache(&cache).disable_auto_compactions(true);
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(&options, dir.path()).unwrap();
    let base = crate::common::patterned(8192, 1);
    let operand = crate::common::patterned(4096, 2);
    db.put(b"plain", &base).unwrap();
    db.put(b"merged", &base).unwrap();
    db.default_cf().flush().unwrap();
    db.merge(b"merged", &operand).unwrap();
    db.default_cf().flush().unwrap(); // base and operand in two files: merged at read time
    let mut expected = base.clone();
    expected.extend_from_slice(&operand);
    // Warm the cache, so that pinned usage is all that changes during a read.
    assert_eq!(every_tier(db.reader(), b"merged"), Some(expected.clone()));
    assert_eq!(every_tier(db.reader(), b"plain"), Some(base.clone()));
    let before = cache.pinned_usage();
    let during_plain = db
        .get_pinned(b"plain", |_| cache.pinned_usage())
        .unwrap()
        .unwrap();
    let during_merged = db
        .get_pinned(b"merged", |v| {
            assert_eq!(v, &expected[..]);
            cache.pinned_usage()
        })
        .unwrap()
        .unwrap();
    assert!(during_plain >= before + 8192, "{before} -> {during_plain}");
    // The result lives in the PinnableSlice's own buffer: no block stays pinned for it.
    assert_eq!(during_merged, before);
    assert_eq!(cache.pinned_usage(), before);
}

#[test]
fn an_associative_operator_names_the_same_inputs_in_partial_merges() {
    // Last writer wins, written as an associative operator that names its result.
    let last = MergeOperator::associative("last", |input, out| {
        if input.operands.is_empty() {
            out.use_existing()
        } else {
            out.use_operand(input.operands.len() - 1)
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(&options_with(&last), dir.path()).unwrap();
    for (i, v) in [&b"a"[..], b"b", b"c"].iter().enumerate() {
        db.merge(b"k", v).unwrap();
        let snapshot = db.snapshot(); // keeps each operand apart until a partial merge
        if i == 1 {
            db.default_cf().flush().unwrap(); // a flush is never bottommost: partial merges
        }
        drop(snapshot);
    }
    assert_eq!(every_tier(db.reader(), b"k"), Some(b"c".to_vec()));
    db.default_cf().flush().unwrap();
    assert_eq!(every_tier(db.reader(), b"k"), Some(b"c".to_vec()));
    db.compact_range(None, None).unwrap();
    assert_eq!(every_tier(db.reader(), b"k"), Some(b"c".to_vec()));
    db.merge(b"two", b"x").unwrap();
    db.merge(b"two", b"y").unwrap();
    db.default_cf().flush().unwrap();
    assert_eq!(every_tier(db.reader(), b"two"), Some(b"y".to_vec()));
}

/// An owned cursor is `'static`, so it can be taken into a merge operator: a move there
/// (inside the read that runs the merge) is refused, and the cursor reads as ended with
/// the reason, instead of re-entering the reading thread's RocksDB state.
#[test]
fn an_owned_cursor_moved_inside_a_merge_operator_is_refused() {
    type Slot = Arc<std::sync::Mutex<Option<pinrocks::OwnedCursor>>>;
    let slot: Slot = Arc::default();
    let seen: Arc<std::sync::Mutex<Vec<String>>> = Arc::default();
    let op = {
        let (slot, seen) = (Arc::clone(&slot), Arc::clone(&seen));
        MergeOperator::new("moves-a-cursor", move |input, out| {
            if let Ok(mut held) = slot.try_lock() {
                if let Some(cursor) = held.as_mut() {
                    cursor.seek(b"a");
                    let key = cursor.key().map(<[u8]>::to_vec);
                    seen.lock()
                        .unwrap()
                        .push(format!("{key:?} {:?}", cursor.status()));
                }
            }
            out.set(input.operands.get(input.operands.len() - 1).unwrap())
        })
    };
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(&options_with(&op), dir.path()).unwrap();
    db.put(b"a", b"1").unwrap();
    db.merge(b"m", b"x").unwrap();
    let mut cursor = db.reader().owned_iter().unwrap();
    cursor.seek_to_first();
    assert_eq!(cursor.key(), Some(&b"a"[..]));
    *slot.lock().unwrap() = Some(cursor);
    assert_eq!(db.get(b"m").unwrap().as_deref(), Some(&b"x"[..]));
    let seen = seen.lock().unwrap().clone();
    assert!(!seen.is_empty(), "the operator ran");
    for line in &seen {
        assert_eq!(
            line,
            "None Err(InsideCallback { operation: \"a cursor's move\", callback: \"merge operator\" })"
        );
    }
    // Outside the callback, the cursor stays ended and says why.
    let mut cursor = slot.lock().unwrap().take().unwrap();
    cursor.seek_to_first();
    assert_eq!(cursor.key(), None);
    assert!(matches!(
        cursor.status(),
        Err(Error::InsideCallback {
            callback: "merge operator",
            ..
        })
    ));
}

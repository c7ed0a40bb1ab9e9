//! Compaction filters: exactly the entries a rule names are removed or changed by a
//! compaction (a model under random data), each compaction gets its own filter with its
//! context, typed filters decode through codecs, and panics keep entries.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use crate::common::every_tier;
use pinrocks::callbacks::{
    CompactionContext, CompactionFilterFactory, Decision, NewValue, TypedDecision,
};
use pinrocks::codec::{BigEndian, Utf8};
use pinrocks::{Db, Options};
use proptest::prelude::*;

fn open_with(factory: &CompactionFilterFactory) -> (tempfile::TempDir, Db) {
    let dir = tempfile::tempdir().unwrap();
    let mut options = crate::common::create_options();
    options.compaction_filter(factory);
    let db = Db::open(&options, dir.path()).unwrap();
    (dir, db)
}

/// The rule under test: values starting with `r` are removed, values starting with `c`
/// become `C` followed by the rest reversed, the rest stay. Idempotent, as a filter must
/// be: an entry meets it again in every later compaction.
fn rule(_level: u32, _key: &[u8], value: &[u8], out: &mut NewValue<'_>) -> Decision {
    match value.first() {
        Some(b'r') => Decision::Remove,
        Some(b'c') => {
            out.set(b"C").unwrap();
            for &b in value[1..].iter().rev() {
                out.extend(&[b]).unwrap();
            }
            Decision::Change
        }
        _ => Decision::Keep,
    }
}

fn expected(value: &[u8]) -> Option<Vec<u8>> {
    match value.first() {
        Some(b'r') => None,
        Some(b'c') => Some(
            b"C".iter()
                .chain(value[1..].iter().rev())
                .copied()
                .collect(),
        ),
        _ => Some(value.to_vec()),
    }
}

#[test]
fn filters_see_compactions_not_flushes_nor_reads() {
    let (_dir, db) = open_with(&CompactionFilterFactory::from_fn("rule", rule));
    db.put(b"a", b"remove me").unwrap();
    db.put(b"b", b"change me").unwrap();
    db.put(b"c", b"keep me").unwrap();
    db.default_cf().flush().unwrap();
    // Flushed, not compacted: untouched.
    assert_eq!(every_tier(db.reader(), b"a"), Some(b"remove me".to_vec()));
    assert_eq!(every_tier(db.reader(), b"b"), Some(b"change me".to_vec()));
    db.compact_range(None, None).unwrap();
    assert_eq!(every_tier(db.reader(), b"a"), None);
    assert_eq!(every_tier(db.reader(), b"b"), Some(b"Cem egnah".to_vec()));
    assert_eq!(every_tier(db.reader(), b"c"), Some(b"keep me".to_vec()));
}

#[test]
fn each_compaction_gets_its_own_filter_and_context() {
    let contexts = Arc::new(Mutex::new(Vec::<CompactionContext>::new()));
    let seen = contexts.clone();
    // A stateful filter: it counts what it saw, and reports when its compaction drops it.
    let totals = Arc::new(Mutex::new(Vec::<usize>::new()));
    let reported = totals.clone();
    struct Counting {
        seen: usize,
        report: Arc<Mutex<Vec<usize>>>,
    }
    impl pinrocks::callbacks::CompactionFilter for Counting {
        fn filter(&mut self, _: u32, _: &[u8], _: &[u8], _: &mut NewValue<'_>) -> Decision {
            self.seen += 1;
            Decision::Keep
        }
    }
    impl Drop for Counting {
        fn drop(&mut self) {
            self.report.lock().unwrap().push(self.seen);
        }
    }
    let factory = CompactionFilterFactory::new("counting", move |ctx| {
        seen.lock().unwrap().push(*ctx);
        Some(Counting {
            seen: 0,
            report: reported.clone(),
        })
    });
    let (_dir, db) = open_with(&factory);
    for round in 0..2u8 {
        for i in 0..10u8 {
            db.put(&[round, i], b"v").unwrap();
        }
        db.default_cf().flush().unwrap();
        db.compact_range(None, None).unwrap();
    }
    // The first round is one full compaction of L0. The second compacts L0 into the
    // bottom level, then the bottom level again (RocksDB's default for manual compactions
    // when a filter is set).
    let contexts = contexts.lock().unwrap();
    assert_eq!(contexts.len(), 3, "{contexts:?}");
    assert!(contexts[0].is_full_compaction, "{contexts:?}");
    assert_eq!(contexts[0].input_start_level, Some(0));
    assert_eq!(contexts[2].input_start_level, Some(6));
    for ctx in contexts.iter() {
        assert!(ctx.is_manual_compaction, "{ctx:?}");
        assert_eq!(ctx.column_family_id, 0);
    }
    // Each filter saw its compaction's entries and was dropped when it ended.
    // The bottom-level pass skips files written by the same manual compaction, so it
    // rewrites only the first round's file.
    assert_eq!(*totals.lock().unwrap(), [10, 10, 10]);
}

#[test]
fn typed_filters_decode_keys_and_values_and_encode_changes() {
    // Counters under string keys: drop zeros, cap at 100; undecodable values stay.
    let factory = CompactionFilterFactory::typed::<Utf8, BigEndian<u64>>("cap", |key, n| {
        assert!(key.starts_with("n:"));
        match n {
            0 => TypedDecision::Remove,
            n if n > 100 => TypedDecision::Change(100),
            _ => TypedDecision::Keep,
        }
    });
    let (_dir, db) = open_with(&factory);
    db.put(b"n:zero", &0u64.to_be_bytes()).unwrap();
    db.put(b"n:big", &5000u64.to_be_bytes()).unwrap();
    db.put(b"n:small", &7u64.to_be_bytes()).unwrap();
    db.put(b"n:odd", b"not a u64").unwrap();
    db.compact_range(None, None).unwrap();
    assert_eq!(every_tier(db.reader(), b"n:zero"), None);
    assert_eq!(
        every_tier(db.reader(), b"n:big"),
        Some(100u64.to_be_bytes().to_vec())
    );
    assert_eq!(
        every_tier(db.reader(), b"n:small"),
        Some(7u64.to_be_bytes().to_vec())
    );
    assert_eq!(
        every_tier(db.reader(), b"n:odd"),
        Some(b"not a u64".to_vec())
    );
}

#[test]
fn a_panicking_filter_keeps_every_entry_100_times() {
    let calls = Arc::new(AtomicUsize::new(0));
    let counted = calls.clone();
    let factory = CompactionFilterFactory::from_fn("panics", move |_, key, _, out| {
        counted.fetch_add(1, Ordering::Relaxed);
        out.set(b"half written").unwrap();
        if key.ends_with(b"!") {
            // Quietly (`resume_unwind` runs no panic hook): 5,000 of these otherwise print
            // a backtrace each into the test log.
            std::panic::resume_unwind(Box::new(format!("filter panics on {key:?}")));
        }
        Decision::Remove
    });
    let (_dir, db) = open_with(&factory);
    for round in 0..100u32 {
        db.put(format!("{round}!").as_bytes(), b"kept").unwrap();
        db.put(format!("{round}.").as_bytes(), b"removed").unwrap();
        db.default_cf().flush().unwrap();
        db.compact_range(None, None).unwrap();
        assert_eq!(
            db.get(format!("{round}!").as_bytes()).unwrap(),
            Some(b"kept".to_vec())
        );
        assert_eq!(db.get(format!("{round}.").as_bytes()).unwrap(), None);
    }
    // Every earlier panicking key is still there, as written.
    for round in 0..100u32 {
        assert_eq!(
            every_tier(db.reader(), format!("{round}!").as_bytes()),
            Some(b"kept".to_vec())
        );
    }
    assert!(calls.load(Ordering::Relaxed) >= 100 * 2);
}

#[test]
fn a_panicking_factory_makes_no_filter_and_the_compaction_keeps_everything() {
    let factory = CompactionFilterFactory::new("factory panics", |_: &CompactionContext| {
        if true {
            panic!("no filter today");
        }
        Some(|_: u32, _: &[u8], _: &[u8], _: &mut NewValue<'_>| Decision::Remove)
    });
    let (_dir, db) = open_with(&factory);
    db.put(b"k", b"v").unwrap();
    db.compact_range(None, None).unwrap();
    assert_eq!(every_tier(db.reader(), b"k"), Some(b"v".to_vec()));
}

#[test]
fn the_factory_is_freed_with_the_database() {
    let marker = Arc::new(());
    let held = marker.clone();
    let factory = CompactionFilterFactory::from_fn("marker", move |_, _, _, _| {
        let _ = &held;
        Decision::Keep
    });
    let db = {
        let mut options = crate::common::create_options();
        options.compaction_filter(&factory);
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(&options, dir.path()).unwrap();
        (dir, db)
    };
    drop(factory);
    assert!(Arc::strong_count(&marker) > 1);
    drop(db);
    assert_eq!(Arc::strong_count(&marker), 1);
}

proptest! {
    #![proptest_config(crate::common::proptest_config(32))]

    /// Random values over several flushes, then a full compaction: the filter removed and
    /// changed exactly what its rule names, in every family that has it and none other.
    #[test]
    fn the_filter_does_exactly_what_its_rule_says(
        writes in proptest::collection::vec(
            (0u8..32, proptest::collection::vec(prop_oneof![Just(b'r'), Just(b'c'), Just(b'k'), any::<u8>()], 0..12)),
            1..60,
        ),
        flush_every in 1usize..20,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let mut filtered = crate::common::create_options();
        // Automatic compactions may move a file to another level without rewriting it
        // (a trivial move), which no filter sees, and the manual compaction then skips it.
        filtered
            .compaction_filter(&CompactionFilterFactory::from_fn("rule", rule))
            .disable_auto_compactions(true);
        let plain = Options::new();
        let db = Db::open_with(&filtered, dir.path(), [("default", &filtered), ("plain", &plain)]).unwrap();
        let other = db.cf("plain").unwrap();
        let mut model = BTreeMap::new();
        for (i, (key, value)) in writes.iter().enumerate() {
            db.put(&[*key], value).unwrap();
            other.writer().put(&[*key], value).unwrap();
            model.insert(*key, value.clone());
            if i % flush_every == 0 {
                db.default_cf().flush().unwrap();
            }
        }
        db.default_cf().flush().unwrap();
        db.compact_range(None, None).unwrap();
        other.compact_range(None, None).unwrap();
        for key in 0u8..32 {
            let written = model.get(&key);
            prop_assert_eq!(every_tier(db.reader(), &[key]), written.and_then(|v| expected(v)));
            prop_assert_eq!(every_tier(other.reader(), &[key]), written.cloned());
        }
    }
}

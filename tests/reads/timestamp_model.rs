//! Versions against a model: puts and deletes at rising timestamps with merges, or with range
//! deletes and history trimmed by `full_history_ts_low`, flushed, compacted, reopened; after each
//! step every key read as of random timestamps (at or above the trimmed history) through
//! every tier, with the value's timestamp, a scan, and a history cursor.

use std::collections::BTreeMap;

use proptest::prelude::*;

use crate::common::{append, create_options, every_tier, proptest_config};
use pinrocks::read::VersionKind;
use pinrocks::{Db, Options, ReadOptions};

const KEYS: u8 = 5;

#[derive(Debug, Clone)]
enum Step {
    Put(u8, Vec<u8>),
    Merge(u8, Vec<u8>),
    Delete(u8),
    DeleteRange(u8, u8),
    Flush,
    Compact,
    Reopen,
    /// Trims history up to this fraction (in 1/4) of the way from the bound to now.
    Trim(u8),
}

/// What was written to a key at a timestamp.
#[derive(Debug, Clone, PartialEq)]
enum Version {
    Value(Vec<u8>),
    Merge(Vec<u8>),
    Deleted,
}

fn step() -> impl Strategy<Value = Step> {
    let bytes = || proptest::collection::vec(any::<u8>(), 0..12);
    prop_oneof![
        4 => (0..KEYS, bytes()).prop_map(|(k, v)| Step::Put(k, v)),
        3 => (0..KEYS, bytes()).prop_map(|(k, v)| Step::Merge(k, v)),
        2 => (0..KEYS).prop_map(Step::Delete),
        1 => (0..KEYS, 0..KEYS).prop_map(|(a, b)| Step::DeleteRange(a.min(b), a.max(b))),
        1 => Just(Step::Flush),
        1 => Just(Step::Compact),
        1 => Just(Step::Reopen),
        1 => (1u8..=4).prop_map(Step::Trim),
    ]
}

fn key(k: u8) -> Vec<u8> {
    vec![b'k', k]
}

fn versioned() -> Options {
    let mut options = create_options();
    options.u64_timestamps().merge_operator(&append());
    options
}

fn open(dir: &std::path::Path) -> Db {
    Db::open_with(&create_options(), dir, [("versions", &versioned())]).unwrap()
}

/// Each key's versions, oldest first, by timestamp.
type Model = BTreeMap<u8, Vec<(u64, Version)>>;

/// The value of `k` as of `ts` and the timestamp of the version that gave it.
fn value_at(model: &Model, k: u8, ts: u64) -> Option<(Vec<u8>, u64)> {
    let versions = model.get(&k)?;
    let visible: Vec<_> = versions.iter().filter(|(t, _)| *t <= ts).collect();
    let &&(newest, _) = visible.last()?;
    let mut value: Option<Vec<u8>> = None;
    for (_, version) in visible {
        value = match version {
            Version::Value(v) => Some(v.clone()),
            Version::Deleted => None,
            Version::Merge(operand) => {
                let mut merged = value.unwrap_or_default();
                merged.extend_from_slice(operand);
                Some(merged)
            }
        };
    }
    value.map(|v| (v, newest))
}

/// What a history cursor from `start` to `ts` shows of `k` (never merged), newest first:
/// each version.
fn history_of(model: &Model, k: u8, start: u64, ts: u64) -> Vec<(u64, VersionKind, Vec<u8>)> {
    let mut seen = Vec::new();
    let Some(versions) = model.get(&k) else {
        return seen;
    };
    for (t, version) in versions
        .iter()
        .rev()
        .filter(|(t, _)| (start..=ts).contains(t))
    {
        match version {
            Version::Value(v) => seen.push((*t, VersionKind::Value, v.clone())),
            Version::Deleted => seen.push((*t, VersionKind::Deletion, Vec::new())),
            Version::Merge(_) => unreachable!("a merged key's history is not modelled"),
        }
    }
    seen
}

/// Asserts that `got` is the timestamp RocksDB may report for `k` read as of `ts`, whose
/// newest version at `ts` was written at `newest`: that one, or (when it is a merge) that of
/// any version below it, whichever ended the merge where RocksDB found it; and below
/// `full_history_ts_low`, 0 as well, since compaction zeroes the timestamps it collapses.
fn assert_timestamp(model: &Model, k: u8, ts: u64, low: u64, got: u64, newest: u64) {
    let versions = &model[&k];
    let merged = versions
        .iter()
        .any(|(t, v)| *t == newest && matches!(v, Version::Merge(_)));
    let allowed = |t: u64| t == newest || (merged && t < newest && t <= ts);
    let known = versions.iter().any(|(t, _)| *t == got && allowed(got));
    let zeroed = got == 0 && versions.iter().any(|(t, _)| *t < low && allowed(*t));
    assert!(
        known || zeroed,
        "key {k} at {ts}: timestamp {got}, newest version at {newest} (merge: {merged}), \
         history from {low}"
    );
}

fn check(db: &Db, model: &Model, low: u64, now: u64, probes: &[u64], unmodelled: &[bool]) {
    let cf = db.cf("versions").unwrap();
    for &probe in probes {
        let ts = low + probe % (now - low + 2);
        let mut options = ReadOptions::new();
        options.timestamp(ts);
        let reader = cf.reader().options(&options);
        let mut scan_want = Vec::new();
        for k in 0..KEYS {
            let want = value_at(model, k, ts);
            let got = every_tier(reader, &key(k));
            assert_eq!(
                got,
                want.as_ref().map(|(v, _)| v.clone()),
                "key {k} at {ts}"
            );
            let with_ts = reader
                .get_with_timestamp(&key(k), |v, t| (v.to_vec(), t))
                .unwrap();
            assert_eq!(
                with_ts.as_ref().map(|(v, _)| v),
                want.as_ref().map(|(v, _)| v),
                "key {k} at {ts}"
            );
            if let (Some((_, got)), Some((_, newest))) = (with_ts, &want) {
                assert_timestamp(model, k, ts, low, got, *newest);
            }
            if let Some((v, newest)) = want {
                scan_want.push((key(k), v, newest));
            }
        }
        let mut cursor = reader.iter();
        cursor.seek_to_first();
        let mut scanned = Vec::new();
        while let Some((k, v)) = cursor.entry() {
            scanned.push((k.to_vec(), v.to_vec(), cursor.timestamp().unwrap()));
            cursor.next();
        }
        cursor.status().unwrap();
        assert_eq!(scanned.len(), scan_want.len(), "scan at {ts}");
        for ((k, v, got), (want_k, want_v, newest)) in scanned.into_iter().zip(scan_want) {
            assert_eq!((&k, &v), (&want_k, &want_v), "scan at {ts}");
            assert_timestamp(model, k[1], ts, low, got, newest);
        }
        let start = ts - (ts - low) / 2;
        let mut history_options = ReadOptions::new();
        history_options.timestamp(ts).iter_start_timestamp(start);
        let mut cursor = cf.reader().options(&history_options).iter();
        cursor.seek_to_first();
        let mut history = Vec::new();
        while let Some(version) = cursor.version() {
            let (k, v) = cursor.entry().unwrap();
            if !unmodelled[usize::from(k[1])] {
                history.push((k.to_vec(), version.timestamp, version.kind, v.to_vec()));
            }
            cursor.next();
        }
        cursor.status().unwrap();
        let want: Vec<_> = (0..KEYS)
            .filter(|&k| !unmodelled[usize::from(k)])
            .flat_map(|k| {
                history_of(model, k, start, ts)
                    .into_iter()
                    .map(move |(t, kind, v)| (key(k), t, kind, v))
            })
            .collect();
        assert_eq!(history, want, "history from {start} to {ts}");
    }
}

proptest! {
    #![proptest_config(proptest_config(24))]

    #[test]
    fn versions_match_the_model_at_every_timestamp(
        steps in proptest::collection::vec((step(), 1u64..4), 1..40),
        probes in proptest::collection::vec(any::<u64>(), 3),
        merging in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let mut db = open(dir.path());
        let mut model = Model::new();
        let (mut now, mut low) = (1u64, 1u64);
        // Keys whose history the model does not know: a range tombstone hides versions from
        // a history without being one, and which versions below a merge a history lists
        // again is RocksDB's choice (the merge itself reads merged, `timestamps.rs`).
        let mut unmodelled = [false; KEYS as usize];
        for (step, advance) in steps {
            now += advance;
            // Merges, or range deletes and trimmed history, not both: RocksDB's flush lets
            // a range tombstone drop the merges it covers, and a merge above
            // `full_history_ts_low` absorb the version below it, though reads at older
            // timestamps still need them (`timestamps.rs` shows both).
            let step = match step {
                Step::Merge(k, v) if !merging => Step::Put(k, v),
                Step::DeleteRange(a, _) if merging => Step::Delete(a),
                Step::Trim(_) if merging => Step::Flush,
                step => step,
            };
            {
                let cf = db.cf("versions").unwrap();
                let mut writer = cf.writer().at(now);
                let mut record = |k: u8, v: Version| model.entry(k).or_default().push((now, v));
                match &step {
                    Step::Put(k, v) => {
                        writer.put(&key(*k), v).unwrap();
                        record(*k, Version::Value(v.clone()));
                    }
                    Step::Merge(k, v) => {
                        writer.merge(&key(*k), v).unwrap();
                        unmodelled[usize::from(*k)] = true;
                        record(*k, Version::Merge(v.clone()));
                    }
                    Step::Delete(k) => {
                        writer.delete(&key(*k)).unwrap();
                        record(*k, Version::Deleted);
                    }
                    Step::DeleteRange(a, b) => {
                        writer.delete_range(&key(*a), &key(*b)).unwrap();
                        for k in *a..*b {
                            unmodelled[usize::from(k)] = true;
                            record(k, Version::Deleted);
                        }
                    }
                    Step::Flush => cf.flush().unwrap(),
                    Step::Compact => cf.compact_range(None, None).unwrap(),
                    Step::Trim(quarter) => {
                        low += (now - low) * u64::from(*quarter) / 4;
                        cf.increase_full_history_ts_low(low).unwrap();
                        prop_assert_eq!(cf.full_history_ts_low().unwrap(), Some(low));
                    }
                    Step::Reopen => {}
                }
            }
            if matches!(step, Step::Reopen) {
                drop(db);
                db = open(dir.path());
            }
            check(&db, &model, low, now, &probes, &unmodelled);
        }
    }
}

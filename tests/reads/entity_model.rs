//! Entities and plain values mixed against a model: put as entities or plain values,
//! overwritten, deleted, merged (the append operator: on an entity it appends to the default
//! column and keeps the others), flushed, compacted and reopened, every key read after each
//! step through every entity tier, every value tier and a cursor's columns.

use std::collections::BTreeMap;

use proptest::prelude::*;

use crate::common::{append, create_options, every_tier};
use crate::entities::{entity, Owned};
use pinrocks::{Db, Options};

/// A key's state: its columns by name (a plain value is the one column `""`).
type Model = BTreeMap<Vec<u8>, Vec<u8>>;

#[derive(Debug, Clone)]
enum Step {
    Entity(u8, Vec<(u8, Vec<u8>)>),
    Put(u8, Vec<u8>),
    Merge(u8, Vec<u8>),
    Delete(u8),
    Flush,
    Compact,
    Reopen,
}

/// Column names: the default one and three others.
const NAMES: [&[u8]; 4] = [b"", b"a", b"bb", b"name"];

fn bytes() -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(any::<u8>(), 0..24)
}

fn step() -> impl Strategy<Value = Step> {
    let columns = proptest::collection::vec((0u8..4, bytes()), 0..5);
    prop_oneof![
        3 => (0u8..6, columns).prop_map(|(k, c)| Step::Entity(k, c)),
        2 => (0u8..6, bytes()).prop_map(|(k, v)| Step::Put(k, v)),
        3 => (0u8..6, bytes()).prop_map(|(k, v)| Step::Merge(k, v)),
        1 => (0u8..6).prop_map(Step::Delete),
        1 => Just(Step::Flush),
        1 => Just(Step::Compact),
        1 => Just(Step::Reopen),
    ]
}

fn options() -> Options {
    let mut options = create_options();
    options.merge_operator(&append());
    options
}

fn sorted(model: &Model) -> Owned {
    model.iter().map(|(n, v)| (n.clone(), v.clone())).collect()
}

/// Every key of `model` (and the absent ones) read through every tier, and a scan's
/// columns and values in key order.
fn check(db: &Db, model: &BTreeMap<u8, Model>) {
    for k in 0u8..6 {
        let want = model.get(&k);
        assert_eq!(entity(db.reader(), &[k]), want.map(sorted), "entity {k}");
        let default = want.map(|m| m.get(&b""[..]).cloned().unwrap_or_default());
        assert_eq!(every_tier(db.reader(), &[k]), default, "value {k}");
    }
    let mut it = db.reader().iter();
    it.seek_to_first();
    let mut scanned = Vec::new();
    while let Some(columns) = it.columns() {
        let key = it.key().unwrap()[0];
        let value = it.value().unwrap().to_vec();
        scanned.push((key, columns.to_vec(), value));
        it.next();
    }
    it.status().unwrap();
    let want: Vec<(u8, Owned, Vec<u8>)> = model
        .iter()
        .map(|(k, m)| (*k, sorted(m), m.get(&b""[..]).cloned().unwrap_or_default()))
        .collect();
    assert_eq!(scanned, want, "scan");
}

proptest! {
    #![proptest_config(crate::common::proptest_config(32))]

    #[test]
    fn entities_and_values_match_their_model(steps in proptest::collection::vec(step(), 1..40)) {
        let dir = tempfile::tempdir().unwrap();
        let options = options();
        let mut db = Db::open(&options, dir.path()).unwrap();
        let mut model: BTreeMap<u8, Model> = BTreeMap::new();
        for step in steps {
            match step {
                Step::Entity(k, columns) => {
                    // A name given twice is refused; the model takes the columns as given.
                    let named: Vec<(&[u8], &[u8])> =
                        columns.iter().map(|(n, v)| (NAMES[*n as usize], &v[..])).collect();
                    let mut entity = Model::new();
                    let mut twice = false;
                    for (name, value) in &named {
                        twice |= entity.insert(name.to_vec(), value.to_vec()).is_some();
                    }
                    let written = db.writer().put_entity(&[k], &named);
                    prop_assert_eq!(written.is_err(), twice);
                    if !twice {
                        model.insert(k, entity);
                    }
                }
                Step::Put(k, v) => {
                    db.put(&[k], &v).unwrap();
                    model.insert(k, Model::from([(Vec::new(), v)]));
                }
                Step::Merge(k, v) => {
                    db.merge(&[k], &v).unwrap();
                    let entry = model.entry(k).or_default();
                    entry.entry(Vec::new()).or_default().extend_from_slice(&v);
                }
                Step::Delete(k) => {
                    db.delete(&[k]).unwrap();
                    model.remove(&k);
                }
                Step::Flush => db.flush().unwrap(),
                Step::Compact => db.compact_range(None, None).unwrap(),
                Step::Reopen => {
                    drop(db);
                    db = Db::open(&options, dir.path()).unwrap();
                }
            }
            check(&db, &model);
        }
    }
}

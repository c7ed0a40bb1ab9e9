//! Table-properties collectors: what they see of each file a flush or compaction writes, the
//! properties they leave in it (read back beside RocksDB's own counts), panics caught, and
//! when the factory is freed.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use pinrocks::callbacks::{EntryKind, TablePropertiesCollector, TablePropertiesCollectorFactory};
use pinrocks::options::StoredOptions;
use pinrocks::{Db, Options};

use crate::common::create_options;

/// Counts each kind of entry and keeps the first and last key.
#[derive(Default)]
struct Census {
    kinds: BTreeMap<String, u64>,
    first: Option<Vec<u8>>,
    last: Vec<u8>,
    panic_on: Option<&'static [u8]>,
}

impl TablePropertiesCollector for Census {
    fn add(&mut self, key: &[u8], _value: &[u8], kind: EntryKind) {
        if self.panic_on == Some(key) {
            panic!("collector told to panic");
        }
        *self.kinds.entry(format!("census.{kind:?}")).or_default() += 1;
        self.first.get_or_insert_with(|| key.to_vec());
        self.last = key.to_vec();
    }

    fn finish(&mut self) -> Vec<(String, Vec<u8>)> {
        if self.panic_on == Some(b"finish") {
            panic!("collector told to panic in finish");
        }
        let mut out: Vec<(String, Vec<u8>)> = self
            .kinds
            .iter()
            .map(|(name, n)| (name.clone(), n.to_string().into_bytes()))
            .collect();
        out.push((
            "census.first".into(),
            self.first.clone().unwrap_or_default(),
        ));
        out.push(("census.last".into(), self.last.clone()));
        // One of RocksDB's own, which it reads back when the file opens: left out.
        out.push((
            "rocksdb.external_sst_file.global_seqno".into(),
            vec![0xFF; 3],
        ));
        out
    }
}

fn census(panic_on: Option<&'static [u8]>) -> TablePropertiesCollectorFactory {
    TablePropertiesCollectorFactory::new("census", move |_| {
        Some(Census {
            panic_on,
            ..Census::default()
        })
    })
}

/// The census's properties of a file (RocksDB's own collectors add theirs, `rocksdb.*`).
fn census_of(file: &pinrocks::admin::TableProperties) -> BTreeMap<String, Vec<u8>> {
    file.user
        .iter()
        .filter(|(k, _)| k.starts_with("census."))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

fn user(pairs: &[(&str, &str)]) -> BTreeMap<String, Vec<u8>> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.as_bytes().to_vec()))
        .collect()
}

/// Every kind of entry in one flushed file: the collector's counts and keys beside
/// RocksDB's; after a compaction, the one output file's.
#[test]
fn a_collector_counts_every_entry_of_each_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = create_options();
    options.table_properties_collector(&census(None));
    let db = Db::open(&options, dir.path()).unwrap();
    for key in [b"b", b"c", b"d", b"e"] {
        db.put(key, b"v").unwrap();
    }
    db.delete(b"f").unwrap();
    db.delete_range(b"x", b"z").unwrap();
    db.writer().put_entity(b"g", &[(b"col", b"1")]).unwrap();
    db.flush().unwrap();
    let files = db.default_cf().table_properties().unwrap();
    assert_eq!(files.len(), 1);
    let file = &files[0];
    assert_eq!(
        (file.entries, file.deletions, file.range_deletions),
        (7, 2, 1),
        "RocksDB's counts (a range deletion counts as a deletion and an entry)"
    );
    assert_eq!(file.user["rocksdb.deleted.keys"], [2]);
    assert!(!file
        .user
        .contains_key("rocksdb.external_sst_file.global_seqno"));
    assert_eq!(
        census_of(file),
        user(&[
            ("census.Delete", "1"),
            ("census.Entity", "1"),
            ("census.Put", "4"),
            ("census.RangeDeletion", "1"),
            ("census.first", "b"),
            ("census.last", "x"),
        ])
    );
    assert!(file.path.ends_with(".sst"), "{}", file.path);

    // The file opens and reads (a collector's global sequence number would corrupt it).
    drop(db);
    let db = Db::open(&options, dir.path()).unwrap();
    assert_eq!(db.get(b"c").unwrap().as_deref(), Some(&b"v"[..]));
    db.put(b"a", b"v").unwrap();
    db.flush().unwrap();
    assert_eq!(db.default_cf().table_properties().unwrap().len(), 2);
    db.compact_range(None, None).unwrap();
    // The compaction's output files, whatever their number: the live entries, counted once.
    let files = db.default_cf().table_properties().unwrap();
    let count = |kind: &str| -> u64 {
        files
            .iter()
            .filter_map(|f| census_of(f).get(kind).cloned())
            .map(|n| String::from_utf8(n).unwrap().parse::<u64>().unwrap())
            .sum()
    };
    assert_eq!((count("census.Put"), count("census.Entity")), (5, 1));
    assert_eq!(
        files.iter().map(|f| f.entries).sum::<u64>(),
        files
            .iter()
            .map(|f| {
                census_of(f)
                    .iter()
                    .filter(|(k, _)| !k.ends_with(".first") && !k.ends_with(".last"))
                    .map(|(_, n)| {
                        String::from_utf8(n.clone())
                            .unwrap()
                            .parse::<u64>()
                            .unwrap()
                    })
                    .sum::<u64>()
            })
            .sum::<u64>(),
        "the collectors saw every entry RocksDB wrote"
    );
}

/// A panic in `add` leaves that entry out; a panic in `finish` leaves the file's
/// properties out. The flush succeeds either way, and the data reads back.
#[test]
fn a_panicking_collector_loses_its_properties_not_the_data() {
    for (panic_on, expected) in [
        (
            &b"c"[..],
            Some(user(&[
                ("census.Put", "2"),
                ("census.first", "b"),
                ("census.last", "d"),
            ])),
        ),
        (&b"finish"[..], None),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let mut options = create_options();
        options.table_properties_collector(&census(Some(panic_on)));
        let db = Db::open(&options, dir.path()).unwrap();
        for key in [b"b", b"c", b"d"] {
            db.put(key, b"v").unwrap();
        }
        db.flush().unwrap();
        let files = db.default_cf().table_properties().unwrap();
        assert_eq!(census_of(&files[0]), expected.unwrap_or_default());
        assert_eq!(db.get(b"c").unwrap().as_deref(), Some(&b"v"[..]));
    }
}

/// The factory is told the family; one that makes no collector for a family leaves its
/// files without properties. Freed with the last options and database that hold it.
#[test]
fn the_factory_is_told_the_family_and_freed_with_its_last_holder() {
    let made_for: Arc<std::sync::Mutex<Vec<u32>>> = Arc::default();
    let alive = Arc::new(AtomicUsize::new(0));
    struct Alive(Arc<AtomicUsize>);
    impl Drop for Alive {
        fn drop(&mut self) {
            self.0.fetch_sub(1, Ordering::SeqCst);
        }
    }
    let factory = {
        let (made_for, guard) = (Arc::clone(&made_for), Alive(Arc::clone(&alive)));
        alive.fetch_add(1, Ordering::SeqCst);
        TablePropertiesCollectorFactory::new("only-default", move |family| {
            let _keep = &guard;
            made_for.lock().unwrap().push(family);
            (family == 0).then(Census::default)
        })
    };
    let dir = tempfile::tempdir().unwrap();
    let mut options = create_options();
    options.table_properties_collector(&factory);
    drop(factory);
    let db = Db::open(&options, dir.path()).unwrap();
    let other = db.create_cf("other", &options).unwrap();
    drop(options);
    db.put(b"k", b"v").unwrap();
    other.writer().put(b"k", b"v").unwrap();
    db.flush().unwrap();
    other.flush().unwrap();
    assert_eq!(*made_for.lock().unwrap(), vec![0, other.id()]);
    assert_eq!(
        db.default_cf().table_properties().unwrap()[0].user["census.Put"],
        b"1"
    );
    assert!(census_of(&other.table_properties().unwrap()[0]).is_empty());
    // The database's OPTIONS file names the collector; it still loads.
    let cache = pinrocks::options::Cache::lru(1 << 20);
    StoredOptions::load(dir.path(), &cache).unwrap();
    assert_eq!(alive.load(Ordering::SeqCst), 1, "held by the database");
    drop(other);
    drop(db);
    assert_eq!(alive.load(Ordering::SeqCst), 0, "freed with the database");
}

/// Options cannot take a collector by name (RocksDB would make a NULL one).
#[test]
fn a_collector_by_name_is_refused() {
    let mut options = Options::new();
    assert!(options
        .set_by_name(&[("table_properties_collectors", "nullptr")])
        .is_err());
}

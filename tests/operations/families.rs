//! Several column families created in one call; cheap checkpoints that copy the WAL
//! instead of flushing; range tombstones in SST files for ingest; `key_may_exist` that
//! hands back the value it found in memory.

use crate::common::{create_options, entries, open_db};
use pinrocks::admin::{IngestOptions, MayExist, SstFileWriter};
use pinrocks::callbacks::Comparator;
use pinrocks::{Db, Error, Options};

#[test]
fn several_families_are_created_in_one_call_each_with_its_options() {
    let (dir, db) = open_db(&[]);
    let reversed = {
        let mut options = Options::new();
        options.comparator(&Comparator::reverse_bytewise());
        options
    };
    let families = db
        .create_cfs(&[("plain", &Options::new()), ("reversed", &reversed)])
        .unwrap();
    assert_eq!(
        families.iter().map(|f| f.name()).collect::<Vec<_>>(),
        ["plain", "reversed"]
    );
    for family in &families {
        for key in [&b"a"[..], b"b", b"c"] {
            family.writer().put(key, family.name().as_bytes()).unwrap();
        }
    }
    let keys = |family: &pinrocks::ColumnFamily<'_>| -> Vec<Vec<u8>> {
        family
            .reader()
            .scan(.., |k, _| k.to_vec())
            .collect::<pinrocks::Result<_>>()
            .unwrap()
    };
    assert_eq!(
        keys(&families[0]),
        [b"a".to_vec(), b"b".to_vec(), b"c".to_vec()]
    );
    assert_eq!(
        keys(&families[1]),
        [b"c".to_vec(), b"b".to_vec(), b"a".to_vec()]
    );
    assert_eq!(db.cf_names(), ["default", "plain", "reversed"]);
    // Nothing at all: nothing created.
    assert!(db.create_cfs(&[]).unwrap().is_empty());
    // One name twice: refused before anything is created.
    let err = db
        .create_cfs(&[("twice", &Options::new()), ("twice", &Options::new())])
        .unwrap_err();
    assert!(matches!(err, Error::InvalidInput { .. }), "{err}");
    // A name that exists: refused before anything is created.
    let err = db
        .create_cfs(&[("new", &Options::new()), ("plain", &Options::new())])
        .unwrap_err();
    assert!(matches!(err, Error::ColumnFamilyExists { .. }), "{err}");
    assert_eq!(db.cf_names(), ["default", "plain", "reversed"]);
    drop(families);
    drop(db);

    // They were made for good, the comparator's name with them.
    let mut options = create_options();
    options.comparator(&Comparator::reverse_bytewise());
    let db = Db::open_with(
        &create_options(),
        dir.path(),
        [("plain", &Options::new()), ("reversed", &options)],
    )
    .unwrap();
    let reversed = db.cf("reversed").unwrap();
    assert_eq!(
        keys(&reversed),
        [b"c".to_vec(), b"b".to_vec(), b"a".to_vec()]
    );
    assert_eq!(
        reversed.reader().get(b"a").unwrap().as_deref(),
        Some(&b"reversed"[..])
    );
}

#[test]
fn a_checkpoint_below_its_log_size_copies_the_wal_instead_of_flushing() {
    let (dir, db) = open_db(&[]);
    db.put(b"k", b"in the WAL").unwrap();
    let sst_files = |path: &std::path::Path| {
        std::fs::read_dir(path)
            .unwrap()
            .flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "sst"))
            .count()
    };
    // Below the threshold: no flush, the WAL is copied.
    db.checkpoint_with(dir.path().join("cheap"), 1 << 30)
        .unwrap();
    assert_eq!(
        sst_files(dir.path()),
        0,
        "the live database was not flushed"
    );
    assert_eq!(sst_files(&dir.path().join("cheap")), 0);
    // 0: always flush first.
    db.checkpoint_with(dir.path().join("flushed"), 0).unwrap();
    assert_eq!(sst_files(dir.path()), 1, "flushed before the copy");
    for copy in ["cheap", "flushed"] {
        let opened = Db::open(&Options::new(), dir.path().join(copy)).unwrap();
        assert_eq!(
            opened.get(b"k").unwrap().as_deref(),
            Some(&b"in the WAL"[..]),
            "{copy}"
        );
    }
}

#[test]
fn a_range_tombstone_in_an_sst_file_hides_older_keys_once_ingested() {
    let (dir, db) = open_db(&[]);
    for key in [&b"a"[..], b"b", b"c", b"d"] {
        db.put(key, b"old").unwrap();
    }
    db.flush().unwrap();
    let path = dir.path().join("load.sst");
    let mut sst = SstFileWriter::create(&Options::new(), &path).unwrap();
    // Ranges need not follow the keys' order.
    sst.put(b"x", b"new").unwrap();
    sst.delete_range(b"b", b"d").unwrap();
    sst.delete_range(b"a", b"a").unwrap(); // empty: nothing
    assert!(matches!(
        sst.delete_range(b"z", b"y"),
        Err(Error::InvertedRange { .. })
    ));
    assert_eq!(sst.entries(), 3);
    sst.finish().unwrap();
    db.ingest(&[&path], &IngestOptions::new()).unwrap();
    assert_eq!(
        entries(db.reader()),
        [
            (b"a".to_vec(), b"old".to_vec()),
            (b"d".to_vec(), b"old".to_vec()),
            (b"x".to_vec(), b"new".to_vec()),
        ]
    );
}

#[test]
fn key_may_exist_hands_back_a_value_found_in_memory() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = create_options();
    options.bloom_filter(10.0);
    let db = Db::open(&options, dir.path()).unwrap();
    let cf = db.default_cf();
    db.put(b"mem", b"in the memtable").unwrap();
    assert_eq!(
        cf.key_may_exist_value(b"mem"),
        MayExist::Found(b"in the memtable".to_vec())
    );
    assert_eq!(cf.key_may_exist_value(b"absent"), MayExist::No);
    assert!(!cf.key_may_exist(b"absent"));
    drop(cf);
    db.flush().unwrap();
    drop(db);
    // Reopened: the value is only in the file, whose data block is not cached yet.
    let db = Db::open(&options, dir.path()).unwrap();
    let cf = db.default_cf();
    assert_eq!(cf.key_may_exist_value(b"mem"), MayExist::Maybe);
    assert!(cf.key_may_exist(b"mem"));
    // A read caches the block: now the answer comes with the value.
    assert_eq!(
        db.get(b"mem").unwrap().as_deref(),
        Some(&b"in the memtable"[..])
    );
    assert_eq!(
        cf.key_may_exist_value(b"mem"),
        MayExist::Found(b"in the memtable".to_vec())
    );
    assert_eq!(
        cf.key_may_exist_value(b"absent"),
        MayExist::No,
        "the bloom filter"
    );
}

/// On a transaction or TTL database, `key_may_exist_value` answers as on a plain one (the
/// TTL database's value without its timestamp); and `create_cfs` works on every kind.
#[test]
fn key_may_exist_and_create_cfs_on_every_kind_of_database() {
    let options = create_options();
    let dirs: Vec<tempfile::TempDir> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let dbs = [
        Db::open_transaction_db(
            &options,
            &pinrocks::options::TransactionDbOptions::new(),
            dirs[0].path(),
            [],
        )
        .unwrap(),
        Db::open_optimistic_transaction_db(&options, dirs[1].path(), []).unwrap(),
        Db::open_with_ttl(
            &options,
            dirs[2].path(),
            std::time::Duration::from_secs(3600),
        )
        .unwrap(),
    ];
    for db in &dbs {
        db.put(b"k", b"value").unwrap();
        assert_eq!(
            db.default_cf().key_may_exist_value(b"k"),
            MayExist::Found(b"value".to_vec())
        );
        assert_eq!(db.default_cf().key_may_exist_value(b"other"), MayExist::No);
        let families = db
            .create_cfs(&[("one", &Options::new()), ("two", &Options::new())])
            .unwrap();
        families[1].writer().put(b"in two", b"2").unwrap();
        assert_eq!(
            families[1].reader().get(b"in two").unwrap().as_deref(),
            Some(&b"2"[..])
        );
        assert_eq!(db.cf_names(), ["default", "one", "two"]);
    }
}

/// RocksDB refusing a family part way (its options need a database setting this one does
/// not have): the families made before it stay and are usable, the error is returned.
#[test]
fn a_create_cfs_that_fails_part_way_keeps_the_families_made_before() {
    let (_dir, db) = open_db(&[]);
    let mut hashed = Options::new();
    hashed
        .prefix_extractor(pinrocks::options::PrefixExtractor::Fixed(2))
        .memtable(pinrocks::options::Memtable::HashLinkList { buckets: 100 });
    // A hash memtable takes no concurrent writes, which this database allows.
    let err = db
        .create_cfs(&[("first", &Options::new()), ("hashed", &hashed)])
        .unwrap_err();
    assert_eq!(
        err.kind(),
        Some(pinrocks::ErrorKind::InvalidArgument),
        "{err}"
    );
    assert_eq!(db.cf_names(), ["default", "first"]);
    let first = db.cf("first").unwrap();
    first.writer().put(b"k", b"v").unwrap();
    assert_eq!(
        first.reader().get(b"k").unwrap().as_deref(),
        Some(&b"v"[..])
    );
}

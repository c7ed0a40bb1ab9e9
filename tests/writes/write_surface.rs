//! One write surface: the same sequence of writes, with the same calls, into the
//! database, a transaction, a batch and an indexed batch, each read back and compared with
//! a model; typed scans through a transaction and an indexed batch compared with a
//! `BTreeMap`.

use std::collections::BTreeMap;

use pinrocks::callbacks::MergeOperator;
use pinrocks::codec::{BigEndian, Utf8};
use pinrocks::options::TransactionDbOptions;
use pinrocks::{ColumnFamily, Db, Options, WriteBatch};

/// The writes every target takes, through `w` (a writer of any target, made per call).
/// Applied to `model` too: default family in `model.0`, the named one in `model.1`.
macro_rules! the_sequence {
    ($writer:expr, $cf:expr, $model:expr) => {{
        let cf: &ColumnFamily<'_> = $cf;
        let (default, named): &mut (BTreeMap<Vec<u8>, Vec<u8>>, BTreeMap<Vec<u8>, Vec<u8>>) =
            $model;
        for i in 0..20u8 {
            $writer.put(&[b'k', i], &[i; 3]).unwrap();
            default.insert(vec![b'k', i], vec![i; 3]);
        }
        for i in (0..20u8).step_by(3) {
            $writer.delete(&[b'k', i]).unwrap();
            default.remove(&vec![b'k', i]);
        }
        $writer.cf(cf).put(b"named", b"one").unwrap();
        $writer.cf(cf).put(b"gone", b"soon").unwrap();
        $writer.cf(cf).delete(b"gone").unwrap();
        named.insert(b"named".to_vec(), b"one".to_vec());
        // The named family concatenates merge operands.
        $writer.cf(cf).merge(b"list", b"a").unwrap();
        $writer.cf(cf).merge(b"list", b"b").unwrap();
        named.insert(b"list".to_vec(), b"a,b".to_vec());
        $writer
            .typed::<BigEndian<u32>, Utf8>()
            .put(&7, "seven")
            .unwrap();
        default.insert(7u32.to_be_bytes().to_vec(), b"seven".to_vec());
    }};
}

fn options() -> (Options, Options) {
    let mut db_options = Options::new();
    db_options
        .create_if_missing(true)
        .create_missing_column_families(true);
    let mut named = Options::new();
    // Concatenates operands with commas: `a`, then `b`, reads `a,b`.
    named.merge_operator(&MergeOperator::new("concat", |input, out| {
        let mut first = input.existing.is_none();
        if let Some(existing) = input.existing {
            out.extend(existing)?;
        }
        for operand in input.operands.iter() {
            if !first {
                out.extend(b",")?;
            }
            out.extend(operand)?;
            first = false;
        }
        Ok(())
    }));
    (db_options, named)
}

fn contents(
    reader: pinrocks::Reader<'_, impl pinrocks::read::ReadSource>,
) -> BTreeMap<Vec<u8>, Vec<u8>> {
    reader
        .scan(.., |k, v| (k.to_vec(), v.to_vec()))
        .map(Result::unwrap)
        .collect()
}

/// A plain database with the default family and "named" (the concatenating merge).
fn open_plain(db_options: &Options, named: &Options, path: &std::path::Path) -> Db {
    Db::open_with(
        db_options,
        path,
        [("default", db_options), ("named", named)],
    )
    .unwrap()
}

type Model = (BTreeMap<Vec<u8>, Vec<u8>>, BTreeMap<Vec<u8>, Vec<u8>>);

fn assert_db_holds(db: &Db, model: &Model, target: &str) {
    let named = db.cf("named").unwrap();
    assert_eq!(contents(db.reader()), model.0, "default family, {target}");
    assert_eq!(contents(named.reader()), model.1, "named family, {target}");
}

#[test]
fn the_same_writes_through_every_target_leave_the_same_database() {
    let (db_options, named_options) = options();
    let mut expected = None;

    // The database.
    let dir = tempfile::tempdir().unwrap();
    let db = open_plain(&db_options, &named_options, dir.path());
    let named = db.cf("named").unwrap();
    let mut model = Model::default();
    the_sequence!(db.writer(), &named, &mut model);
    assert_db_holds(&db, &model, "database");
    expected.get_or_insert(model.clone());

    // A batch, then written.
    let dir = tempfile::tempdir().unwrap();
    let db = open_plain(&db_options, &named_options, dir.path());
    let named = db.cf("named").unwrap();
    let mut batch = WriteBatch::new();
    let mut model = Model::default();
    the_sequence!(batch.writer(), &named, &mut model);
    assert_eq!(
        contents(db.reader()),
        BTreeMap::new(),
        "nothing before the write"
    );
    db.write(&batch).unwrap();
    assert_db_holds(&db, &model, "batch");
    assert_eq!(Some(&model), expected.as_ref());

    // An indexed batch: read through it before it is written, then written.
    let dir = tempfile::tempdir().unwrap();
    let db = open_plain(&db_options, &named_options, dir.path());
    let named = db.cf("named").unwrap();
    let mut indexed = db.indexed_batch().unwrap();
    let mut model = Model::default();
    the_sequence!(indexed.writer(), &named, &mut model);
    assert_eq!(
        contents(indexed.reader()),
        model.0,
        "through the indexed batch"
    );
    assert_eq!(
        contents(indexed.reader().cf(&named)),
        model.1,
        "named family through the indexed batch"
    );
    indexed.write().unwrap();
    drop(indexed);
    assert_db_holds(&db, &model, "indexed batch");
    assert_eq!(Some(&model), expected.as_ref());

    // A transaction: read through it before the commit, then committed.
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open_transaction_db(
        &db_options,
        &TransactionDbOptions::new(),
        dir.path(),
        [("default", &db_options), ("named", &named_options)],
    )
    .unwrap();
    let named = db.cf("named").unwrap();
    let mut txn = db.begin().unwrap();
    let mut model = Model::default();
    the_sequence!(txn.writer(), &named, &mut model);
    assert_eq!(contents(txn.reader()), model.0, "through the transaction");
    assert_eq!(
        contents(db.reader()),
        BTreeMap::new(),
        "nothing before the commit"
    );
    txn.commit().unwrap();
    assert_db_holds(&db, &model, "transaction");
    assert_eq!(Some(&model), expected.as_ref());
}

/// Every entry of `range` through `reader`, decoded.
fn scan<S: pinrocks::read::ReadSource>(
    reader: pinrocks::typed::TypedReader<'_, BigEndian<u32>, Utf8, S>,
    range: std::ops::Range<u32>,
) -> Vec<(u32, String)> {
    reader
        .scan(&range.start..&range.end, |id, name: &str| {
            (id, name.to_owned())
        })
        .unwrap()
        .collect::<pinrocks::Result<Vec<_>>>()
        .unwrap()
}

/// Typed writes of `entries` through `write`, then a typed scan through `read`, against a
/// `BTreeMap` of what each source should see.
#[test]
fn typed_scans_through_a_transaction_and_an_indexed_batch_match_a_btreemap() {
    let (db_options, _) = options();
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open_optimistic_transaction_db(&db_options, dir.path(), []).unwrap();
    let table: pinrocks::Table<BigEndian<u32>, Utf8> = pinrocks::Table::new(db.default_cf());
    let mut committed = BTreeMap::new();
    for id in (0..40u32).step_by(2) {
        table.put(&id, &format!("db-{id}")).unwrap();
        committed.insert(id, format!("db-{id}"));
    }

    let expected = |model: &BTreeMap<u32, String>, range: std::ops::Range<u32>| {
        model
            .range(range)
            .map(|(k, v)| (*k, v.clone()))
            .collect::<Vec<_>>()
    };

    // Through a transaction: its own writes over the database's.
    let mut txn = db.begin().unwrap();
    let mut seen = committed.clone();
    for id in (0..40u32).step_by(3) {
        table
            .write(txn.writer())
            .put(&id, &format!("txn-{id}"))
            .unwrap();
        seen.insert(id, format!("txn-{id}"));
    }
    table.write(txn.writer()).delete(&4).unwrap();
    seen.remove(&4);
    assert_eq!(
        scan(table.read(txn.reader()), 0..40),
        expected(&seen, 0..40)
    );
    assert_eq!(
        scan(table.read(txn.reader()), 5..17),
        expected(&seen, 5..17)
    );
    let backward: Vec<u32> = table
        .read(txn.reader())
        .scan_rev(.., |id, _| id)
        .unwrap()
        .collect::<pinrocks::Result<_>>()
        .unwrap();
    assert_eq!(backward, seen.keys().rev().copied().collect::<Vec<_>>());
    assert_eq!(scan(table.reader(), 0..40), expected(&committed, 0..40));
    txn.rollback().unwrap();

    // Through an indexed batch: its entries over the database's, and alone.
    let mut batch = db.indexed_batch().unwrap();
    let mut seen = committed.clone();
    let mut alone = BTreeMap::new();
    for id in (1..40u32).step_by(4) {
        table
            .write(batch.writer())
            .put(&id, &format!("batch-{id}"))
            .unwrap();
        seen.insert(id, format!("batch-{id}"));
        alone.insert(id, format!("batch-{id}"));
    }
    assert_eq!(
        scan(table.read(batch.reader()), 0..40),
        expected(&seen, 0..40)
    );
    assert_eq!(
        scan(table.read(batch.reader()), 9..30),
        expected(&seen, 9..30)
    );
    assert_eq!(
        scan(table.read(batch.batch_reader()), 0..40),
        expected(&alone, 0..40)
    );
}

/// Where RocksDB supports it, a range delete and write options go through the same writer:
/// the database's and a batch's (a transaction and an indexed batch have no range delete:
/// `Writer::delete_range` does not exist there, a compile error).
#[test]
fn range_deletes_and_write_options_through_the_database_and_a_batch() {
    let (db_options, named_options) = options();
    let dir = tempfile::tempdir().unwrap();
    let db = open_plain(&db_options, &named_options, dir.path());
    let named = db.cf("named").unwrap();
    let mut synced = pinrocks::WriteOptions::new();
    synced.sync(true);
    let mut model = BTreeMap::new();
    for i in 0..10u8 {
        db.writer()
            .cf(&named)
            .options(&synced)
            .put(&[i], &[i])
            .unwrap();
        model.insert(vec![i], vec![i]);
    }
    db.writer()
        .cf(&named)
        .options(&synced)
        .delete_range(&[2], &[5])
        .unwrap();
    model.retain(|k, _| !(vec![2]..vec![5]).contains(k));
    let mut batch = WriteBatch::new();
    batch.writer().cf(&named).delete_range(&[7], &[9]).unwrap();
    batch.writer().cf(&named).put(b"after", b"range").unwrap();
    db.writer().options(&synced).write(&batch).unwrap();
    model.retain(|k, _| !(vec![7]..vec![9]).contains(k));
    model.insert(b"after".to_vec(), b"range".to_vec());
    assert_eq!(contents(named.reader()), model);
    // An inverted range is refused by both, before it reaches RocksDB.
    assert!(matches!(
        db.writer().cf(&named).delete_range(&[5], &[2]),
        Err(pinrocks::Error::InvertedRange { .. })
    ));
    let mut inverted = WriteBatch::new();
    inverted
        .writer()
        .cf(&named)
        .delete_range(&[5], &[2])
        .unwrap();
    assert!(matches!(
        db.write(&inverted),
        Err(pinrocks::Error::InvertedRange { .. })
    ));
    assert_eq!(
        contents(named.reader()),
        model,
        "nothing of either was written"
    );
}

/// A column family of another database is a programming error for every target that
/// writes straight to a database (a panic, as for reads); a batch takes it and its write
/// to the wrong database is refused whole.
#[test]
fn a_family_of_another_database_is_refused_by_every_target() {
    let (db_options, named_options) = options();
    let families = |dir: &std::path::Path| {
        Db::open_transaction_db(
            &db_options,
            &TransactionDbOptions::new(),
            dir,
            [("default", &db_options), ("named", &named_options)],
        )
        .unwrap()
    };
    let (dir, other_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (db, other) = (families(dir.path()), families(other_dir.path()));
    let foreign = other.cf("named").unwrap();
    let panics = |f: &mut dyn FnMut()| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
            .unwrap_err()
            .downcast_ref::<String>()
            .cloned()
            .unwrap_or_default()
    };
    let message = panics(&mut || {
        let _ = db.writer().cf(&foreign);
    });
    assert!(message.contains("belongs to another database"), "{message}");
    let mut txn = db.begin().unwrap();
    let message = panics(&mut || {
        let _ = txn.writer().cf(&foreign);
    });
    assert!(message.contains("belongs to another database"), "{message}");
    drop(txn);
    let mut indexed = db.indexed_batch().unwrap();
    let message = panics(&mut || {
        let _ = indexed.writer().cf(&foreign);
    });
    assert!(message.contains("belongs to another database"), "{message}");
    drop(indexed);
    let mut batch = WriteBatch::new();
    batch.writer().cf(&foreign).put(b"k", b"v").unwrap();
    assert!(matches!(
        db.write(&batch),
        Err(pinrocks::Error::ForeignColumnFamily { .. })
    ));
    assert_eq!(db.cf("named").unwrap().reader().get(b"k").unwrap(), None);
}

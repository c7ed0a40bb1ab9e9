//! Wide-column entities: put through every write target, read back column for column through
//! every read source (the closure tier and cursors), from the memtable, flushed and
//! compacted; plain values and entities read either way; what RocksDB refuses.

use crate::common::{create_options, every_tier, patterned, settle, STAGES};
use pinrocks::options::TransactionDbOptions;
use pinrocks::read::{Columns, ReadSource};
use pinrocks::write::Lock;
use pinrocks::{Db, ErrorKind, Reader, WriteBatch};

pub(crate) type Owned = Vec<(Vec<u8>, Vec<u8>)>;

pub(crate) fn owned<N: AsRef<[u8]>, V: AsRef<[u8]>>(columns: &[(N, V)]) -> Owned {
    let mut v: Owned = columns
        .iter()
        .map(|(n, v)| (n.as_ref().to_vec(), v.as_ref().to_vec()))
        .collect();
    v.sort();
    v
}

/// The columns of `key` through `reader`'s closure tier, each checked against the
/// `Columns` accessors, and the multi-get, guard and owned tiers' equal to them.
pub(crate) fn entity<S: ReadSource>(reader: Reader<'_, S>, key: &[u8]) -> Option<Owned> {
    let closure = closure_tier(reader, key);
    let guard = reader
        .pin_entity(key)
        .unwrap()
        .map(|g| g.columns().to_vec());
    let owned = reader
        .get_entity_owned(key)
        .unwrap()
        .map(|e| e.columns().to_vec());
    let (mut calls, mut multi) = (0, None);
    reader
        .multi_get_entity(&[key], |i, c| {
            assert_eq!(i, 0);
            calls += 1;
            multi = c.map(|c| c.to_vec());
        })
        .unwrap();
    assert_eq!(
        (calls, &multi),
        (1, &closure),
        "the multi-get disagrees at {key:?}"
    );
    assert_eq!(guard, closure, "the guard tier disagrees at {key:?}");
    assert_eq!(owned, closure, "the owned tier disagrees at {key:?}");
    closure
}

fn closure_tier<S: ReadSource>(reader: Reader<'_, S>, key: &[u8]) -> Option<Owned> {
    reader
        .get_entity(key, |columns: Columns<'_>| {
            let all = columns.to_vec();
            assert_eq!(columns.len(), all.len());
            assert_eq!(columns.is_empty(), all.is_empty());
            for (i, (name, value)) in all.iter().enumerate() {
                assert_eq!(columns.at(i), Some((&name[..], &value[..])));
                assert_eq!(columns.get(name), Some(&value[..]), "by name");
            }
            assert_eq!(columns.at(all.len()), None);
            assert_eq!(columns.get(b"\xffno such column"), None);
            let default = all.iter().find(|(n, _)| n.is_empty()).map(|(_, v)| &v[..]);
            assert_eq!(columns.default_value(), default);
            all
        })
        .unwrap()
}

/// Columns of several sizes, a default column, a name that sorts first, unsorted.
pub(crate) fn user(seed: u8) -> Owned {
    vec![
        (b"name".to_vec(), patterned(10, seed)),
        (b"".to_vec(), patterned(3, seed.wrapping_add(1))),
        (b"avatar".to_vec(), patterned(5000, seed.wrapping_add(2))),
        (b"\x00first".to_vec(), Vec::new()),
    ]
}

pub(crate) fn sorted(columns: &Owned) -> Owned {
    let mut v = columns.to_vec();
    v.sort();
    v
}

#[test]
fn entities_read_back_column_for_column_from_memtable_sst_and_after_compaction() {
    let (dir, db) = crate::common::open_db(&["cf"]);
    let cf = db.cf("cf").unwrap();
    let entities: Vec<(Vec<u8>, Owned)> = (0..20u8).map(|i| (vec![b'e', i], user(i))).collect();
    for stage in STAGES {
        for (key, columns) in &entities {
            db.writer().put_entity(key, columns).unwrap();
            cf.writer().put_entity(key, columns).unwrap();
        }
        db.put(b"plain", b"value").unwrap();
        settle(&[&db.default_cf(), &cf], stage);
        for (key, columns) in &entities {
            let want = Some(sorted(columns));
            assert_eq!(entity(db.reader(), key), want, "{stage:?}");
            assert_eq!(entity(cf.reader(), key), want, "{stage:?}");
            // Every value tier reads the default column.
            let default = columns
                .iter()
                .find(|(n, _)| n.is_empty())
                .unwrap()
                .1
                .clone();
            assert_eq!(every_tier(db.reader(), key), Some(default), "{stage:?}");
        }
        assert_eq!(
            entity(db.reader(), b"plain"),
            Some(owned(&[(b"", b"value")])),
            "a plain value is one default column"
        );
        assert_eq!(entity(db.reader(), b"absent"), None);
        // A cursor gives the same columns, both ways.
        let mut it = db.reader().iter();
        it.seek_to_first();
        let mut forward = Vec::new();
        while let Some(columns) = it.columns() {
            forward.push((it.key().unwrap().to_vec(), columns.to_vec()));
            it.next();
        }
        it.status().unwrap();
        let mut want: Vec<(Vec<u8>, Owned)> = entities
            .iter()
            .map(|(k, c)| (k.clone(), sorted(c)))
            .collect();
        want.push((b"plain".to_vec(), owned(&[(b"", b"value")])));
        assert_eq!(forward, want, "{stage:?}");
        let mut backward = Vec::new();
        it.seek_to_last();
        while let Some(columns) = it.columns() {
            backward.push((it.key().unwrap().to_vec(), columns.to_vec()));
            it.prev();
        }
        backward.reverse();
        assert_eq!(backward, want, "{stage:?}");
    }
    drop(cf);
    drop(db);
    let db = Db::open_cf(&create_options(), dir.path(), ["cf"]).unwrap();
    assert_eq!(
        entity(db.cf("cf").unwrap().reader(), &[b'e', 7]),
        Some(sorted(&user(7)))
    );
}

#[test]
fn entities_through_batches_transactions_and_indexed_batches() {
    let dir = tempfile::tempdir().unwrap();
    let options = create_options();
    let db = Db::open_transaction_db(
        &options,
        &TransactionDbOptions::new(),
        dir.path(),
        [("cf", &options)],
    )
    .unwrap();
    let cf = db.cf("cf").unwrap();

    // A batch, to the default family (no handle) and to a named one; then the database's
    // own put_entity on a transaction database.
    let mut batch = WriteBatch::new();
    batch.writer().put_entity(b"b-default", &user(1)).unwrap();
    batch
        .writer()
        .cf(&cf)
        .put_entity(b"b-cf", &user(2))
        .unwrap();
    db.write(&batch).unwrap();
    db.writer().put_entity(b"db", &user(3)).unwrap();
    assert_eq!(entity(db.reader(), b"b-default"), Some(sorted(&user(1))));
    assert_eq!(entity(cf.reader(), b"b-cf"), Some(sorted(&user(2))));
    assert_eq!(entity(cf.reader(), b"b-default"), None);
    assert_eq!(entity(db.reader(), b"db"), Some(sorted(&user(3))));

    // A transaction reads its own entity, the database's, and for update.
    let mut txn = db.begin().unwrap();
    txn.writer().put_entity(b"txn", &user(4)).unwrap();
    assert_eq!(entity(txn.reader(), b"txn"), Some(sorted(&user(4))));
    assert_eq!(entity(txn.reader(), b"db"), Some(sorted(&user(3))));
    assert_eq!(
        entity(txn.reader_for_update(Lock::Exclusive), b"b-default"),
        Some(sorted(&user(1)))
    );
    assert_eq!(
        entity(txn.reader_for_update(Lock::Shared), b"db"),
        Some(sorted(&user(3)))
    );
    assert_eq!(entity(db.reader(), b"txn"), None, "not committed yet");
    let mut it = txn.reader().iter();
    it.seek(b"txn");
    assert_eq!(it.columns().map(|c| c.to_vec()), Some(sorted(&user(4))));
    drop(it);
    txn.commit().unwrap();
    assert_eq!(entity(db.reader(), b"txn"), Some(sorted(&user(4))));

    // An indexed batch: its own entity, over the database and alone.
    let mut indexed = db.indexed_batch().unwrap();
    indexed.writer().put_entity(b"ib", &user(5)).unwrap();
    indexed.writer().put_entity(b"db", &user(6)).unwrap();
    assert_eq!(entity(indexed.reader(), b"ib"), Some(sorted(&user(5))));
    assert_eq!(entity(indexed.reader(), b"db"), Some(sorted(&user(6))));
    assert_eq!(entity(indexed.reader(), b"txn"), Some(sorted(&user(4))));
    assert_eq!(entity(indexed.batch_reader(), b"txn"), None);
    assert_eq!(
        entity(indexed.batch_reader(), b"ib"),
        Some(sorted(&user(5)))
    );
    let mut it = indexed.reader().iter();
    it.seek(b"ib");
    assert_eq!(it.columns().map(|c| c.to_vec()), Some(sorted(&user(5))));
    drop(it);
    indexed.write().unwrap();
    assert_eq!(entity(db.reader(), b"db"), Some(sorted(&user(6))));
}

#[test]
fn defaults_empties_and_refusals() {
    let (_dir, db) = crate::common::open_db(&[]);
    // No default column: plain reads give the empty value.
    db.writer()
        .put_entity(b"no-default", &[("a", "1"), ("b", "2")])
        .unwrap();
    assert_eq!(every_tier(db.reader(), b"no-default"), Some(Vec::new()));
    // No columns at all.
    let none: [(&str, &str); 0] = [];
    db.writer().put_entity(b"empty", &none).unwrap();
    assert_eq!(entity(db.reader(), b"empty"), Some(Vec::new()));
    assert_eq!(every_tier(db.reader(), b"empty"), Some(Vec::new()));
    // A plain put replaces an entity, and an entity a plain value.
    db.put(b"no-default", b"plain").unwrap();
    assert_eq!(
        entity(db.reader(), b"no-default"),
        Some(owned(&[(b"", b"plain")]))
    );
    db.writer()
        .put_entity(b"no-default", &[("x", "y")])
        .unwrap();
    assert_eq!(
        entity(db.reader(), b"no-default"),
        Some(owned(&[(b"x", b"y")]))
    );
    // A name given twice is refused, and nothing is written.
    let err = db
        .writer()
        .put_entity(b"twice", &[("a", "1"), ("a", "2")])
        .unwrap_err();
    assert!(matches!(err, pinrocks::Error::InvalidInput { .. }), "{err}");
    assert!(err.to_string().contains("given twice"), "{err}");
    assert_eq!(entity(db.reader(), b"twice"), None);
    let mut batch = WriteBatch::new();
    assert!(batch
        .writer()
        .put_entity(b"twice", &[("a", "1"), ("a", "2")])
        .is_err());
    assert!(batch.is_empty());
    // More columns than pinrocks keeps on the stack (8): the same checks, the same entity.
    let many: Vec<(String, String)> = (0..20)
        .map(|i| (format!("c{:02}", 19 - i), format!("value {i}")))
        .collect();
    db.writer().put_entity(b"many", &many).unwrap();
    assert_eq!(entity(db.reader(), b"many"), Some(owned(&many)));
    let mut repeated = many.clone();
    repeated.insert(12, ("c03".into(), "again".into()));
    let err = db.writer().put_entity(b"many2", &repeated).unwrap_err();
    assert!(err.to_string().contains("given twice"), "{err}");
    assert_eq!(entity(db.reader(), b"many2"), None);
    // Exactly 8, the last one repeating the first.
    let eight: Vec<(String, &str)> = (0..8).map(|i| (format!("n{}", i % 7), "v")).collect();
    assert!(db.writer().put_entity(b"eight", &eight).is_err());
    assert_eq!(entity(db.reader(), b"eight"), None);
}

#[test]
fn a_ttl_database_refuses_entities() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open_with_ttl(&create_options(), dir.path(), std::time::Duration::ZERO).unwrap();
    db.put(b"k", b"v").unwrap();
    let err = db.writer().put_entity(b"k", &[("a", "1")]).unwrap_err();
    assert!(matches!(err, pinrocks::Error::InvalidInput { .. }), "{err}");
    let err = db.reader().get_entity(b"k", |_| ()).unwrap_err();
    assert!(matches!(err, pinrocks::Error::InvalidInput { .. }), "{err}");
    let mut it = db.reader().iter();
    it.seek_to_first();
    assert_eq!(it.value(), Some(&b"v"[..]));
    assert!(it.columns().is_none());
    // A batch with an entity: RocksDB's TTL layer refuses it whole.
    let mut batch = WriteBatch::new();
    batch.writer().put_entity(b"e", &[("a", "1")]).unwrap();
    batch.writer().put(b"p", b"1").unwrap();
    assert!(db.write(&batch).is_err());
    assert_eq!(db.get(b"p").unwrap(), None);
}

#[test]
fn a_panic_in_the_entity_closure_reaches_the_caller_and_the_database_goes_on() {
    let (_dir, db) = crate::common::open_db(&[]);
    db.writer().put_entity(b"k", &[("a", "1")]).unwrap();
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        db.reader().get_entity(b"k", |_| panic!("inside")).unwrap();
    }));
    assert!(caught.is_err());
    assert_eq!(entity(db.reader(), b"k"), Some(owned(&[(b"a", b"1")])));
}

#[test]
fn an_entity_from_the_block_cache_pins_its_block_until_the_closure_returns() {
    let (_dir, db) = crate::common::open_db(&[]);
    let avatar = patterned(4096, 9);
    db.writer()
        .put_entity(
            b"k",
            &[(&b"avatar"[..], &avatar[..]), (&b""[..], &b"x"[..])],
        )
        .unwrap();
    db.flush().unwrap();
    let pinned = |db: &Db| {
        let usage = db.get_property(&pinrocks::properties::BLOCK_CACHE_PINNED_USAGE);
        usage.unwrap().unwrap()
    };
    let before = pinned(&db);
    let mut during = 0;
    let mut inside = false;
    db.reader()
        .get_entity(b"k", |columns| {
            // The column points into the pinned block: no copy, the block held meanwhile.
            inside = columns.get(b"avatar") == Some(&avatar[..]);
            during = pinned(&db);
        })
        .unwrap()
        .unwrap();
    assert!(inside);
    // The columns are shared borrows: a scoped thread may read them inside the closure.
    let lens = db
        .reader()
        .get_entity(b"k", |columns| {
            std::thread::scope(|s| {
                s.spawn(|| columns.iter().map(|(_, v)| v.len()).sum::<usize>())
                    .join()
            })
            .unwrap()
        })
        .unwrap();
    assert_eq!(lens, Some(4096 + 1));
    assert!(
        during >= before + 4096,
        "the block was not pinned during the closure ({before} -> {during})"
    );
    assert_eq!(pinned(&db), before, "the pin outlived the closure");
}

#[test]
fn reading_an_entity_for_update_locks_or_tracks_the_key() {
    // Pessimistic: an exclusive lock taken by the entity read stops another writer.
    let dir = tempfile::tempdir().unwrap();
    let mut txn_options = TransactionDbOptions::new();
    txn_options
        .transaction_lock_timeout(std::time::Duration::from_millis(100))
        .default_lock_timeout(std::time::Duration::from_millis(100));
    let options = create_options();
    let db = Db::open_transaction_db(&options, &txn_options, dir.path(), []).unwrap();
    db.writer().put_entity(b"k", &[("a", "1")]).unwrap();
    let txn = db.begin().unwrap();
    let read = entity(txn.reader_for_update(Lock::Exclusive), b"k");
    assert_eq!(read, Some(owned(&[("a", "1")])));
    let mut other = db.begin().unwrap();
    let err = other.writer().put(b"k", b"x").unwrap_err();
    assert_eq!(err.kind(), Some(ErrorKind::LockTimeout), "{err}");
    // A plain entity read takes no lock.
    let mut free = db.begin().unwrap();
    db.writer().put_entity(b"j", &[("b", "2")]).unwrap();
    assert!(entity(txn.reader(), b"j").is_some());
    free.writer().put(b"j", b"y").unwrap();
    free.commit().unwrap();
    drop((txn, other));

    // Optimistic: the key read for update is tracked, and its change fails the commit.
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open_optimistic_transaction_db(&options, dir.path(), []).unwrap();
    db.writer().put_entity(b"k", &[("a", "1")]).unwrap();
    let mut txn = db.begin().unwrap();
    assert!(entity(txn.reader_for_update(Lock::Exclusive), b"k").is_some());
    txn.writer().put(b"mine", b"1").unwrap();
    db.writer().put_entity(b"k", &[("a", "2")]).unwrap();
    let err = txn.commit().unwrap_err();
    assert_eq!(err.kind(), Some(ErrorKind::Busy), "{err}");
}

#[test]
fn merges_apply_to_the_default_column_and_keep_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = create_options();
    options.merge_operator(&crate::common::append());
    let db = Db::open(&options, dir.path()).unwrap();
    db.writer()
        .put_entity(b"with", &[("", "a"), ("x", "kept")])
        .unwrap();
    db.writer()
        .put_entity(b"without", &[("x", "kept")])
        .unwrap();
    for stage in STAGES {
        db.merge(b"with", b"b").unwrap();
        db.merge(b"without", b"c").unwrap();
        settle(&[&db.default_cf()], stage);
    }
    // RocksDB's FullMergeV3 runs the operator on the default column (an empty existing
    // value when there is none) and keeps the other columns.
    assert_eq!(
        entity(db.reader(), b"with"),
        Some(owned(&[("", "abbb"), ("x", "kept")]))
    );
    assert_eq!(
        entity(db.reader(), b"without"),
        Some(owned(&[("", "ccc"), ("x", "kept")]))
    );
    assert_eq!(db.get(b"with").unwrap().as_deref(), Some(&b"abbb"[..]));

    // Merge operands alone in an indexed batch, read from the batch alone: merged with no
    // existing value, as the plain read and the batch's cursor give them.
    let mut batch = db.indexed_batch().unwrap();
    batch.writer().merge(b"fresh", b"1").unwrap();
    batch.writer().merge(b"fresh", b"2").unwrap();
    assert_eq!(
        entity(batch.batch_reader(), b"fresh"),
        Some(owned(&[("", "12")]))
    );
    assert_eq!(
        batch.batch_reader().get(b"fresh").unwrap().as_deref(),
        Some(&b"12"[..])
    );
    let mut it = batch.batch_reader().iter();
    it.seek_to_first();
    assert_eq!(it.columns().map(|c| c.to_vec()), Some(owned(&[("", "12")])));
}

#[test]
fn a_batch_holding_entities_survives_its_bytes() {
    let (_dir, db) = crate::common::open_db(&["cf"]);
    let cf = db.cf("cf").unwrap();
    let mut batch = WriteBatch::new();
    batch.writer().put_entity(b"d", &user(1)).unwrap();
    batch.writer().cf(&cf).put_entity(b"c", &user(2)).unwrap();
    batch.writer().put(b"p", b"plain").unwrap();
    let mut rebuilt = WriteBatch::from_bytes(&db, batch.as_bytes()).unwrap();
    assert_eq!(rebuilt.as_bytes(), batch.as_bytes());
    db.write(&rebuilt).unwrap();
    assert_eq!(entity(db.reader(), b"d"), Some(sorted(&user(1))));
    assert_eq!(entity(cf.reader(), b"c"), Some(sorted(&user(2))));
    assert_eq!(db.get(b"p").unwrap().as_deref(), Some(&b"plain"[..]));
}

/// A name whose `as_ref` counts its calls.
struct Counted<'a>(&'a [u8], &'a std::cell::Cell<usize>);

impl AsRef<[u8]> for Counted<'_> {
    fn as_ref(&self) -> &[u8] {
        self.1.set(self.1.get() + 1);
        self.0
    }
}

#[test]
fn each_name_and_value_is_asked_for_once() {
    let (_dir, db) = crate::common::open_db(&[]);
    let calls = std::cell::Cell::new(0);
    let columns = [
        (Counted(b"a", &calls), Counted(b"1", &calls)),
        (Counted(b"b", &calls), Counted(b"2", &calls)),
    ];
    db.writer().put_entity(b"k", &columns).unwrap();
    assert_eq!(calls.get(), 4);
    assert_eq!(
        entity(db.reader(), b"k"),
        Some(owned(&[("a", "1"), ("b", "2")]))
    );
    let twice = [
        (Counted(b"a", &calls), Counted(b"1", &calls)),
        (Counted(b"a", &calls), Counted(b"2", &calls)),
    ];
    assert!(db.writer().put_entity(b"t", &twice).is_err());
    assert_eq!(calls.get(), 8);
}

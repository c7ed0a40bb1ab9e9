//! The entity tiers beyond the closure: the guard and the owned entity (what each keeps
//! alive, how long it outlives its source), and multi-get of entities past the inline batch
//! through every source.

use crate::common::{create_options, patterned};
use crate::entities::{owned, sorted, user, Owned};
use pinrocks::options::TransactionDbOptions;
use pinrocks::read::ReadSource;
use pinrocks::write::Lock;
use pinrocks::{Db, Reader};

#[test]
fn an_owned_entity_outlives_the_db_and_its_dropped_family_and_crosses_threads() {
    let (_dir, db) = crate::common::open_db(&[]);
    let options = create_options();
    let cf = db.create_cf("people", &options).unwrap();
    let avatar = patterned(100_000, 11);
    cf.writer()
        .put_entity(
            b"ada",
            &[(&b"avatar"[..], &avatar[..]), (&b"name"[..], &b"Ada"[..])],
        )
        .unwrap();
    let from_memtable = cf.reader().get_entity_owned(b"ada").unwrap().unwrap();
    cf.flush().unwrap();
    let pinned = |cf: &pinrocks::ColumnFamily<'_>| {
        let usage = cf.get_property(&pinrocks::properties::BLOCK_CACHE_PINNED_USAGE);
        usage.unwrap().unwrap()
    };
    let before = pinned(&cf);
    let from_block = cf.reader().get_entity_owned(b"ada").unwrap().unwrap();
    // It holds the block, not a copy: the cache's pinned usage carries it while it lives.
    assert!(
        pinned(&cf) >= before + 100_000,
        "{before} -> {}",
        pinned(&cf)
    );
    let guard = cf.reader().pin_entity(b"ada").unwrap().unwrap();
    assert_eq!(guard.columns().get(b"avatar"), Some(&avatar[..]));
    drop(guard);
    drop(cf);
    db.drop_cf("people").unwrap();
    drop(db);
    for owned in [from_memtable, from_block] {
        let avatar = avatar.clone();
        std::thread::spawn(move || {
            assert_eq!(owned.columns().get(b"avatar"), Some(&avatar[..]));
            assert_eq!(owned.columns().get(b"name"), Some(&b"Ada"[..]));
            assert_eq!(owned.columns().len(), 2);
        })
        .join()
        .unwrap();
    }
}

#[test]
fn owned_entities_read_through_a_transaction_or_a_batch_outlive_it() {
    let dir = tempfile::tempdir().unwrap();
    let options = create_options();
    let db =
        Db::open_transaction_db(&options, &TransactionDbOptions::new(), dir.path(), []).unwrap();
    db.writer().put_entity(b"db", &[("a", "stored")]).unwrap();
    let mut txn = db.begin().unwrap();
    txn.writer().put_entity(b"t", &[("a", "first")]).unwrap();
    let own = txn.reader().get_entity_owned(b"t").unwrap().unwrap();
    let stored = txn.reader().get_entity_owned(b"db").unwrap().unwrap();
    txn.writer().put_entity(b"t", &[("a", "second")]).unwrap();
    txn.commit().unwrap(); // consumes the transaction
    assert_eq!(own.columns().to_vec(), owned(&[("a", "first")]));
    assert_eq!(stored.columns().to_vec(), owned(&[("a", "stored")]));

    let mut batch = db.indexed_batch().unwrap();
    batch.writer().put_entity(b"b", &[("x", "one")]).unwrap();
    let from_batch = batch
        .batch_reader()
        .get_entity_owned(b"b")
        .unwrap()
        .unwrap();
    let guard_value = batch
        .reader()
        .pin_entity(b"b")
        .unwrap()
        .unwrap()
        .columns()
        .to_vec();
    batch.writer().put_entity(b"b", &[("x", "two")]).unwrap();
    drop(batch);
    drop(db);
    assert_eq!(from_batch.columns().to_vec(), owned(&[("x", "one")]));
    assert_eq!(guard_value, owned(&[("x", "one")]));
}

#[test]
fn multi_get_of_entities_beyond_the_inline_batch_through_every_source() {
    let dir = tempfile::tempdir().unwrap();
    let options = create_options();
    let mut txn_options = TransactionDbOptions::new();
    txn_options
        .transaction_lock_timeout(std::time::Duration::from_millis(100))
        .default_lock_timeout(std::time::Duration::from_millis(100));
    let db = Db::open_transaction_db(&options, &txn_options, dir.path(), []).unwrap();
    // 40 keys (past the 32 held inline): entities, plain values and absent keys.
    let keys: Vec<Vec<u8>> = (0..40u8).map(|i| vec![b'k', i]).collect();
    let mut want: Vec<Option<Owned>> = Vec::new();
    for (i, key) in keys.iter().enumerate() {
        match i % 3 {
            0 => {
                db.writer().put_entity(key, &user(i as u8)).unwrap();
                want.push(Some(sorted(&user(i as u8))));
            }
            1 => {
                db.put(key, &[i as u8]).unwrap();
                want.push(Some(owned(&[(&b""[..], &[i as u8][..])])));
            }
            _ => want.push(None),
        }
    }
    db.flush().unwrap();
    let read = |reader: Reader<'_>| multi(reader, &keys);
    assert_eq!(read(db.reader()), want);
    let mut cache_only = pinrocks::ReadOptions::new();
    cache_only.read_tier(pinrocks::read::ReadTier::BlockCache);
    // All cached by the read above: the cache-only, key-by-key path answers the same.
    assert_eq!(read(db.reader().options(&cache_only)), want, "key by key");

    let mut txn = db.begin().unwrap();
    txn.writer()
        .put_entity(&keys[2], &[("own", "write")])
        .unwrap();
    want[2] = Some(owned(&[("own", "write")]));
    assert_eq!(multi(txn.reader(), &keys), want);
    let for_update = multi(txn.reader_for_update(Lock::Exclusive), &keys);
    assert_eq!(for_update, want, "for update, key by key");
    // Each key was locked: another transaction cannot write one.
    let mut other = db.begin().unwrap();
    let err = other.writer().put(&keys[39], b"x").unwrap_err();
    assert_eq!(err.kind(), Some(pinrocks::ErrorKind::LockTimeout), "{err}");
    drop(other);
    txn.rollback().unwrap();
    want[2] = None;

    let mut batch = db.indexed_batch().unwrap();
    batch.writer().put_entity(&keys[5], &[("b", "1")]).unwrap();
    want[5] = Some(owned(&[("b", "1")]));
    assert_eq!(multi(batch.reader(), &keys), want);
    let alone = multi(batch.batch_reader(), &keys);
    let only_five: Vec<Option<Owned>> = (0..keys.len())
        .map(|i| (i == 5).then(|| owned(&[("b", "1")])))
        .collect();
    assert_eq!(alone, only_five, "from the batch alone");

    // A panic stops the batch and reaches the caller; the database goes on.
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        db.reader()
            .multi_get_entity(&keys, |i, _| assert!(i < 3, "stop"))
            .unwrap();
    }));
    assert!(caught.is_err());
    assert_eq!(read(db.reader())[0], Some(sorted(&user(0))));
}

/// Every key's columns through `reader`'s multi-get, in key order.
fn multi<S: ReadSource>(reader: Reader<'_, S>, keys: &[Vec<u8>]) -> Vec<Option<Owned>> {
    let mut got = vec![None; keys.len()];
    reader
        .multi_get_entity(keys, |i, c| got[i] = c.map(|c| c.to_vec()))
        .unwrap();
    got
}

#[test]
fn a_cache_only_entity_multi_get_of_an_uncached_block_is_not_in_cache() {
    // RocksDB's batched read would fetch an uncached block from its file even with a
    // cache-only tier: every source reads key by key then, and answers `NotInCache`.
    let dir = tempfile::tempdir().unwrap();
    let options = create_options();
    let txn_options = TransactionDbOptions::new();
    {
        let db = Db::open_transaction_db(&options, &txn_options, dir.path(), []).unwrap();
        db.writer().put_entity(b"disk", &[("a", "1")]).unwrap();
        db.flush().unwrap();
        db.close().unwrap();
    }
    let db = Db::open_transaction_db(&options, &txn_options, dir.path(), []).unwrap();
    let mut cache_only = pinrocks::ReadOptions::new();
    cache_only.read_tier(pinrocks::read::ReadTier::BlockCache);
    let not_in_cache = |result: pinrocks::Result<()>| {
        let kind = result.unwrap_err().kind();
        assert_eq!(kind, Some(pinrocks::ErrorKind::NotInCache));
    };
    let keys = [b"disk"];
    not_in_cache(
        db.reader()
            .options(&cache_only)
            .multi_get_entity(&keys, |_, _| ()),
    );
    let txn = db.begin().unwrap();
    not_in_cache(
        txn.reader()
            .options(&cache_only)
            .multi_get_entity(&keys, |_, _| ()),
    );
    drop(txn);
    let batch = db.indexed_batch().unwrap();
    not_in_cache(
        batch
            .reader()
            .options(&cache_only)
            .multi_get_entity(&keys, |_, _| ()),
    );
    drop(batch);
    // Once a read that may do I/O cached the block, memory answers.
    let count = db.reader().get_entity(b"disk", |c| c.len()).unwrap();
    assert_eq!(count, Some(1));
    let mut cached = None;
    db.reader()
        .options(&cache_only)
        .multi_get_entity(&keys, |_, c| cached = c.map(|c| c.len()))
        .unwrap();
    assert_eq!(cached, Some(1));
}

//! A write batch as bytes and back: what comes back is the same batch (same bytes, same
//! effect), its families found by id in the database it is rebuilt for; bytes that are
//! malformed, that name a family the database does not have, or that hold what a
//! `WriteBatch` cannot are refused before anything is written. And a range delete on an
//! optimistic transaction database, through its base database.

use crate::common::entries as contents;
use pinrocks::write::BatchRecord;
use pinrocks::{Db, Error, ErrorKind, WriteBatch};

/// Opens a database with the family `named` at `dir/name`, with the append merge operator.
fn open_with_named(dir: &std::path::Path, name: &str) -> Db {
    let mut options = crate::common::create_options();
    options.merge_operator(&crate::common::append());
    Db::open_cf(&options, dir.join(name), ["named"]).unwrap()
}

#[test]
fn a_batch_rebuilt_from_its_bytes_is_the_same_batch() {
    let dir = tempfile::tempdir().unwrap();
    let source = open_with_named(dir.path(), "source");
    let copy = open_with_named(dir.path(), "copy");
    for db in [&source, &copy] {
        db.put(b"gone", b"old").unwrap();
        db.put(b"r2", b"in the range").unwrap();
    }
    let named = source.cf("named").unwrap();
    let mut batch = WriteBatch::new();
    batch.writer().put(b"a", b"1").unwrap();
    batch.writer().delete(b"gone").unwrap();
    batch.writer().single_delete(b"never").unwrap();
    batch.writer().delete_range(b"r1", b"r3").unwrap();
    batch.writer().merge(b"m", b"x").unwrap();
    batch.writer().put_log_data(b"for the WAL alone").unwrap();
    batch.writer().cf(&named).put(b"n", b"named").unwrap();
    batch.writer().cf(&named).merge(b"n", b"y").unwrap();

    let bytes = batch.as_bytes().to_vec();
    let mut rebuilt = WriteBatch::from_bytes(&copy, &bytes).unwrap();
    assert_eq!(rebuilt.as_bytes(), &bytes[..], "the same bytes");
    assert_eq!(rebuilt.len(), batch.len());
    let mut records = Vec::new();
    rebuilt
        .for_each(|r| records.push(format!("{r:?}")))
        .unwrap();
    let mut expected = Vec::new();
    batch.for_each(|r| expected.push(format!("{r:?}"))).unwrap();
    assert_eq!(records, expected);

    source.write(&batch).unwrap();
    copy.write(&rebuilt).unwrap();
    assert_eq!(contents(copy.reader()), contents(source.reader()));
    let copy_named = copy.cf("named").unwrap();
    assert_eq!(contents(copy_named.reader()), contents(named.reader()));
    assert_eq!(
        contents(copy.reader()),
        [
            (b"a".to_vec(), b"1".to_vec()),
            (b"m".to_vec(), b"x".to_vec())
        ]
    );
    assert_eq!(
        contents(copy_named.reader()),
        [(b"n".to_vec(), b"namedy".to_vec())]
    );
}

#[test]
fn bytes_a_batch_cannot_hold_are_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let with_family = open_with_named(dir.path(), "with");
    let plain = Db::open(&crate::common::create_options(), dir.path().join("plain")).unwrap();
    let named = with_family.cf("named").unwrap();
    let mut batch = WriteBatch::new();
    batch.writer().put(b"k", b"v").unwrap();
    batch.writer().cf(&named).put(b"n", b"v").unwrap();
    let bytes = batch.as_bytes().to_vec();

    // A family id the database does not have: a write naming it would stop the database.
    let err = WriteBatch::from_bytes(&plain, &bytes).unwrap_err();
    assert!(matches!(err, Error::ColumnFamilyNotFound { .. }), "{err}");
    // Too short for the header, and cut inside a record: Corruption.
    for cut in [&bytes[..5], &bytes[..bytes.len() - 1]] {
        let err = WriteBatch::from_bytes(&with_family, cut).unwrap_err();
        assert_eq!(err.kind(), Some(ErrorKind::Corruption), "{err}");
    }
    // A count that says more records than there are.
    let mut miscounted = bytes.clone();
    miscounted[8] += 1;
    let err = WriteBatch::from_bytes(&with_family, &miscounted).unwrap_err();
    assert_eq!(err.kind(), Some(ErrorKind::Corruption), "{err}");
    // A transaction marker (a Noop, tag 0x0D) after the records: not a batch's.
    let mut marked = bytes.clone();
    marked.push(0x0D);
    let err = WriteBatch::from_bytes(&with_family, &marked).unwrap_err();
    assert_eq!(err.kind(), Some(ErrorKind::NotSupported), "{err}");
    assert!(plain.get(b"k").unwrap().is_none());
    assert!(with_family.get(b"k").unwrap().is_none());
    // The good bytes still make a batch that writes.
    with_family
        .write(&WriteBatch::from_bytes(&with_family, &bytes).unwrap())
        .unwrap();
    assert_eq!(
        named.reader().get(b"n").unwrap().as_deref(),
        Some(&b"v"[..])
    );
    let mut seen = Vec::new();
    WriteBatch::from_bytes(&with_family, &bytes)
        .unwrap()
        .for_each(|r| {
            if let BatchRecord::Put { cf, .. } = r {
                seen.push(cf)
            }
        })
        .unwrap();
    assert_eq!(seen, [0, named.id()]);
}

/// RocksDB's optimistic transaction database refuses `DeleteRange` itself; pinrocks sends
/// it to the base database. A transaction that read a key in the range fails its commit:
/// RocksDB's conflict check sees the range's tombstone, whether the key's last version is
/// in the memtable or flushed, and whether the tombstone is still in the memtable or not.
#[test]
fn a_range_delete_on_an_optimistic_database_deletes_and_conflicts() {
    let options = crate::common::create_options();
    for (flush_the_keys, flush_the_range) in [(false, false), (true, false), (true, true)] {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open_optimistic_transaction_db(&options, dir.path(), []).unwrap();
        for key in [&b"a"[..], b"b", b"c", b"d"] {
            db.put(key, b"v").unwrap();
        }
        if flush_the_keys {
            db.flush().unwrap();
        }
        let mut txn = db.begin().unwrap();
        assert_eq!(
            txn.reader_for_update(pinrocks::write::Lock::Exclusive)
                .get(b"b")
                .unwrap()
                .as_deref(),
            Some(&b"v"[..])
        );
        txn.writer().put(b"b", b"txn").unwrap();
        db.delete_range(b"b", b"d").unwrap();
        if flush_the_range {
            db.flush().unwrap();
        }
        assert_eq!(
            contents(db.reader()),
            [
                (b"a".to_vec(), b"v".to_vec()),
                (b"d".to_vec(), b"v".to_vec())
            ]
        );
        let err = txn.commit().unwrap_err();
        assert!(err.is_retryable(), "{err}");
        assert_eq!(
            db.get(b"b").unwrap(),
            None,
            "{flush_the_keys} {flush_the_range}"
        );
        // Inverted ranges are refused there too, before RocksDB.
        assert!(matches!(
            db.delete_range(b"d", b"a"),
            Err(Error::InvertedRange { .. })
        ));
    }
    // A pessimistic transaction database says what RocksDB says.
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open_transaction_db(
        &options,
        &pinrocks::options::TransactionDbOptions::new(),
        dir.path(),
        [],
    )
    .unwrap();
    let err = db.delete_range(b"a", b"b").unwrap_err();
    assert_eq!(err.kind(), Some(ErrorKind::NotSupported), "{err}");
}

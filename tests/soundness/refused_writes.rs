//! Writes RocksDB refuses, or that throw, leave their batch (or indexed batch, or
//! transaction) whole: what it held before, and nothing of the refused write. A value over
//! 4 GiB is refused by RocksDB (the C API's batch calls drop that status); an allocation that
//! fails halfway through a record would leave a torn record, which stops the database when
//! the batch is written (`rocksdb-c/torn_records.h`).

use crate::common::{create_options, limit_address_space, open_db, run_child, test_path};
use pinrocks::{Db, Error, ErrorKind, WriteBatch};

/// RocksDB refuses a value over 4 GiB in a batch; the C API drops that refusal. The batch
/// must report it, keep its other entries, and write what it holds.
#[test]
#[cfg(target_pointer_width = "64")]
fn a_batch_reports_a_value_rocksdb_refuses() {
    let (_dir, db) = open_db(&[]);
    // Zeroed pages the kernel maps lazily: nothing is touched before RocksDB refuses it.
    let huge = vec![0u8; u32::MAX as usize + 1];
    let mut batch = WriteBatch::new();
    batch.writer().put(b"small", b"v").unwrap();
    let err = batch.writer().put(b"huge", &huge).unwrap_err();
    assert_eq!(err.kind(), Some(ErrorKind::InvalidArgument), "{err}");
    assert!(err.to_string().contains("value is too large"), "{err}");
    assert!(batch.writer().delete_range(&huge, b"").is_err());
    assert_eq!(batch.len(), 1);
    db.write(&batch).unwrap();
    assert_eq!(db.get(b"small").unwrap().as_deref(), Some(&b"v"[..]));
    assert_eq!(db.get(b"huge").unwrap(), None);
    // The plain write path reports it too.
    let err = db.put(b"huge", &huge).unwrap_err();
    assert_eq!(err.kind(), Some(ErrorKind::InvalidArgument), "{err}");
    // So does an indexed batch (the C API's rocksdb_writebatch_wi_put drops the status),
    // and its index stays as it was.
    let mut indexed = db.indexed_batch().unwrap();
    indexed.writer().put(b"small", b"w").unwrap();
    let err = indexed.writer().put(b"huge", &huge).unwrap_err();
    assert_eq!(err.kind(), Some(ErrorKind::InvalidArgument), "{err}");
    assert_eq!(indexed.len(), 1);
    assert_eq!(indexed.batch_reader().get(b"huge").unwrap(), None);
    assert_eq!(
        indexed.reader().get(b"small").unwrap().as_deref(),
        Some(&b"w"[..])
    );
}

/// The same refusal through a named family's handle (each target's put takes another
/// entry for it) and through a transaction, whose batch keeps nothing of it.
#[test]
#[cfg(target_pointer_width = "64")]
fn every_put_reports_a_value_rocksdb_refuses() {
    let (_dir, db) = open_db(&["named"]);
    let named = db.cf("named").unwrap();
    let huge = vec![0u8; u32::MAX as usize + 1];
    let too_large = |err: Error| {
        assert_eq!(err.kind(), Some(ErrorKind::InvalidArgument), "{err}");
        assert!(err.to_string().contains("value is too large"), "{err}");
    };
    let mut batch = WriteBatch::new();
    too_large(batch.writer().cf(&named).put(b"huge", &huge).unwrap_err());
    batch.writer().cf(&named).put(b"small", b"v").unwrap();
    assert_eq!(batch.len(), 1);
    let mut indexed = db.indexed_batch().unwrap();
    too_large(indexed.writer().cf(&named).put(b"huge", &huge).unwrap_err());
    assert_eq!(indexed.len(), 0);
    db.write(&batch).unwrap();
    assert_eq!(
        named.reader().get(b"small").unwrap().as_deref(),
        Some(&b"v"[..])
    );

    let dir = tempfile::tempdir().unwrap();
    let txn_db = Db::open_optimistic_transaction_db(&create_options(), dir.path(), []).unwrap();
    let mut txn = txn_db.begin().unwrap();
    too_large(txn.writer().put(b"huge", &huge).unwrap_err());
    txn.writer().put(b"small", b"t").unwrap();
    txn.commit().unwrap();
    assert_eq!(txn_db.get(b"huge").unwrap(), None);
    assert_eq!(txn_db.get(b"small").unwrap().as_deref(), Some(&b"t"[..]));
}

/// The child: puts a value into a batch, an indexed batch and a transaction under a capped
/// address space, each put failing to copy it (`std::bad_alloc`); then writes what each held.
#[test]
#[ignore = "run by a_put_that_throws_leaves_its_batch_whole in a child process"]
fn puts_out_of_memory_child() {
    let Ok(dir) = std::env::var("PINROCKS_PUT_OOM_DIR") else {
        return;
    };
    let db = Db::open(&create_options(), &dir).unwrap();
    let txn_dir = tempfile::tempdir().unwrap();
    let txn_db = Db::open_optimistic_transaction_db(&create_options(), txn_dir.path(), []).unwrap();
    // Mapped before the cap (untouched: zeroed pages), copied after it.
    let big = vec![0u8; 1 << 30];
    // The batch carries protection info (a DB::Write with it adds it, and Clear keeps it),
    // which the cut rebuilds.
    let mut protected = pinrocks::WriteOptions::new();
    // SAFETY: a live handle of ours, nothing writing with it; 8 is RocksDB's one size.
    unsafe {
        pinrocks::ffi::rocksdb_writeoptions_set_protection_bytes_per_key(protected.as_raw(), 8)
    };
    let mut batch = WriteBatch::new();
    batch.writer().put(b"before", b"0").unwrap();
    db.writer().options(&protected).write(&batch).unwrap();
    batch.clear();
    limit_address_space(800 << 20);
    let print = |what: &str, result: pinrocks::Result<()>| match result {
        Err(Error::RocksDb { kind, message }) => println!("{what} error {kind:?}: {message}"),
        other => println!("{what} unexpected {:?}", other.map_err(|e| e.to_string())),
    };

    batch.writer().put(b"before", b"1").unwrap();
    print("batch", batch.writer().put(b"big", &big));
    let mut indexed = db.indexed_batch().unwrap();
    indexed.writer().put(b"before", b"2").unwrap();
    print("indexed", indexed.writer().put(b"big", &big));
    assert_eq!((batch.len(), indexed.len()), (1, 1));
    // The index was rebuilt from what is left.
    let in_batch = indexed.batch_reader();
    assert_eq!(in_batch.get(b"before").unwrap().as_deref(), Some(&b"2"[..]));
    assert_eq!(in_batch.get(b"big").unwrap(), None);
    db.writer().options(&protected).write(&batch).unwrap();
    assert_eq!(db.get(b"before").unwrap().as_deref(), Some(&b"1"[..]));
    indexed.write().unwrap();
    assert_eq!(db.get(b"before").unwrap().as_deref(), Some(&b"2"[..]));
    db.put(b"after", b"3").unwrap();
    assert_eq!(db.get(b"big").unwrap(), None);

    let mut txn = txn_db.begin().unwrap();
    txn.writer().put(b"before", b"4").unwrap();
    print("transaction", txn.writer().put(b"big", &big));
    txn.commit().unwrap();
    assert_eq!(txn_db.get(b"before").unwrap().as_deref(), Some(&b"4"[..]));
    assert_eq!(txn_db.get(b"big").unwrap(), None);
    println!("written");
}

/// A put that throws halfway through appending its record (an allocation failure) is an
/// error, and leaves its batch, indexed batch or transaction as it was: written afterwards,
/// each writes what it held, and the database takes later writes.
#[test]
#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
fn a_put_that_throws_leaves_its_batch_whole() {
    let dir = tempfile::tempdir().unwrap();
    let (lived, stdout, status) = run_child(
        &test_path(module_path!(), "puts_out_of_memory_child"),
        "PINROCKS_PUT_OOM_DIR",
        dir.path(),
    );
    assert!(lived, "the child died: {status}\n{stdout}");
    assert!(stdout.contains("\nwritten\n"), "{stdout}");
    for what in ["batch", "indexed", "transaction"] {
        let line = stdout
            .lines()
            .find(|line| line.contains(&format!("{what} error ")))
            .unwrap_or_else(|| panic!("no {what} error: {stdout}"));
        assert!(
            line.contains(&format!("{what} error MemoryLimit: "))
                && line.contains("std::bad_alloc"),
            "{stdout}"
        );
    }
}

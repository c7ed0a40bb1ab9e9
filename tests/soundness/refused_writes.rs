//! Writes RocksDB refuses, or that throw, leave their batch (or indexed batch, or
//! transaction) whole: what it held before, and nothing of the refused write. A value over
//! 4 GiB is refused by RocksDB (the C API's batch calls drop that status); an allocation that
//! fails halfway through a record would leave a torn record, which stops the database when
//! the batch is written (`rocksdb-c/torn_records.h`). One that fails inside RocksDB's write
//! of a batch ends the process (`rocksdb-c/writes.cc`).

use crate::common::{
    create_options, limit_address_space, open_db, open_without_flushes, run_child, test_path,
};
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

/// A key and value each within RocksDB's own limits but over 4 GiB together: RocksDB's
/// memtable would size the entry in 32 bits, wrap, and copy 4 GiB into a few bytes (and the
/// WAL would replay that at every open). Refused by pinrocks before RocksDB sees it, through
/// every target and every kind of write; nothing is kept, and later writes go on.
#[test]
#[cfg(target_pointer_width = "64")]
fn a_key_and_value_over_4_gib_together_are_refused() {
    let (_dir, db) = open_db(&[]);
    // Zeroed pages the kernel maps lazily: nothing is touched before the refusal.
    let huge = vec![0u8; u32::MAX as usize - 2];
    let half = vec![0u8; 1 << 31];
    let mut above = vec![0u8; (1 << 31) + 64];
    above[0] = 1;
    let refused = |what: &str, result: pinrocks::Result<()>| match result {
        Err(Error::InvalidInput { what: w, detail }) => {
            assert_eq!(w, what, "{detail}");
            assert!(detail.contains("32 bits"), "{detail}");
        }
        other => panic!("{what}: {other:?}"),
    };
    let mut unlogged = pinrocks::WriteOptions::new();
    unlogged.disable_wal(true);
    let mut w = db.writer().options(&unlogged);
    refused("put", w.put(b"k", &huge));
    refused("merge", w.merge(b"k", &huge));
    // Serialized with its name and lengths, within 4 GiB (RocksDB refuses more itself).
    let column = &huge[..u32::MAX as usize - 30];
    refused("put_entity", w.put_entity(b"k", &[("", column)]));
    // The bytes within 4 GiB, their serialized bound over it: refused on the bound.
    let key = vec![0u8; 1 << 30];
    let column = &huge[..u32::MAX as usize - 15];
    refused("put_entity", w.put_entity(&key, &[("", column)]));
    // Within RocksDB's key limit (4 GiB - 8), its entry is not.
    let long_key = vec![0u8; u32::MAX as usize - 9];
    refused("delete", w.delete(&long_key));
    refused("single_delete", w.single_delete(&long_key));
    refused("delete_range", w.delete_range(&half, &above));

    let mut batch = WriteBatch::new();
    batch.writer().put(b"small", b"v").unwrap();
    refused("put", batch.writer().put(b"k", &huge));
    refused("delete_range", batch.writer().delete_range(&half, &above));
    assert_eq!(batch.len(), 1);
    let mut indexed = db.indexed_batch().unwrap();
    refused("merge", indexed.writer().merge(b"k", &huge));
    assert_eq!(indexed.len(), 0);
    let txn_dir = tempfile::tempdir().unwrap();
    let txn_db = Db::open_optimistic_transaction_db(&create_options(), txn_dir.path(), []).unwrap();
    let mut txn = txn_db.begin().unwrap();
    refused("put", txn.writer().put(b"k", &huge));
    txn.writer().put(b"t", b"1").unwrap();
    txn.commit().unwrap();
    assert_eq!(txn_db.get(b"t").unwrap().as_deref(), Some(&b"1"[..]));

    db.write(&batch).unwrap();
    db.put(b"after", b"w").unwrap();
    assert_eq!(db.get(b"small").unwrap().as_deref(), Some(&b"v"[..]));
    assert_eq!(db.get(b"after").unwrap().as_deref(), Some(&b"w"[..]));
    assert_eq!(db.get(b"k").unwrap(), None);
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

/// The child: a batch holding a value that fits in memory once (its copy into the memtable
/// does not), written under a capped address space.
#[test]
#[ignore = "run by a_batch_write_that_throws_inside_rocksdb_ends_the_process in a child process"]
fn batch_write_out_of_memory_child() {
    let Ok(dir) = std::env::var("PINROCKS_WRITE_OOM_DIR") else {
        return;
    };
    // The value goes to the memtable, whose arena allocates its size.
    let db = open_without_flushes(&dir);
    let mut batch = WriteBatch::new();
    batch.writer().put(b"big", &vec![7u8; 128 << 20]).unwrap();
    limit_address_space(32 << 20);
    let result = db.write(&batch);
    println!("not reached: {result:?}");
}

/// A `std::bad_alloc` inside `DB::Write` (the memtable's copy of a value, inside the write
/// group): caught, it left RocksDB's write queue linked to the call's `Writer`, gone with its
/// stack, for the next write to wait on or read. The process ends instead, saying why.
#[test]
#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
fn a_batch_write_that_throws_inside_rocksdb_ends_the_process() {
    let dir = tempfile::tempdir().unwrap();
    crate::common::aborts_in_child(
        module_path!(),
        "batch_write_out_of_memory_child",
        "PINROCKS_WRITE_OOM_DIR",
        dir.path(),
        "pinrocks: DB::Write of a batch threw inside RocksDB (std::bad_alloc): its write \
         queue may keep a writer that is gone, so the process ends",
    );
}

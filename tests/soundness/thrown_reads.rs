//! Reads that RocksDB leaves by an exception (memory exhausted halfway): what the read took of
//! RocksDB's per-thread state must be given back, or the thread's next read goes through it.
//! The children run with their address space capped (`limit_address_space`).

use crate::common::{limit_address_space, open_without_flushes, run_child, test_path};
use pinrocks::options::TransactionDbOptions;
use pinrocks::{Db, Error};

/// The child: multi-gets that run out of memory after RocksDB took the thread's
/// SuperVersion (copying a value out of the memtable), each followed by a read on the same
/// thread and family, which RocksDB would otherwise make through a slot still marked in use.
#[test]
#[ignore = "run by a_multi_get_out_of_memory_leaves_reads_working in a child process"]
fn multi_get_out_of_memory_midway_child() {
    let Ok(dir) = std::env::var("PINROCKS_OOM_MIDWAY_DIR") else {
        return;
    };
    let db = open_without_flushes(&dir);
    let big = vec![7u8; 128 << 20];
    db.put(b"big", &big).unwrap();
    db.writer()
        .put_entity(b"wide", &[(b"column".as_slice(), big.as_slice())])
        .unwrap();
    db.put(b"small", b"v").unwrap();
    drop(big);
    limit_address_space(32 << 20);
    let show = |r: pinrocks::Result<()>| match r {
        Err(Error::RocksDb { kind, .. }) => format!("error {kind:?}"),
        other => format!("unexpected {other:?}"),
    };
    let reader = db.reader();
    let values = reader.multi_get_pinned(&[b"big", b"big"], |_, _| {});
    println!("values: {}", show(values));
    println!("after values: {:?}", db.get(b"small").unwrap());
    let entities = reader.multi_get_entity(&[b"wide", b"wide"], |_, _| {});
    println!("entities: {}", show(entities));
    println!("after entities: {:?}", db.get(b"small").unwrap());
    let mut found = Vec::new();
    reader
        .multi_get_pinned(&[b"small".as_slice(), b"none"], |i, v| {
            found.push((i, v.map(<[u8]>::to_vec)))
        })
        .unwrap();
    println!("multi after: {found:?}");
    // A new SuperVersion (a live option change) scrapes every slot, the one given back too,
    // and releases the reference each holds; reads go on through the new one.
    db.set_options(&[("disable_auto_compactions", "true")])
        .unwrap();
    println!("after a new SuperVersion: {:?}", db.get(b"small").unwrap());
}

/// A `std::bad_alloc` inside RocksDB's multi-get, after the read took the thread's
/// SuperVersion: RocksDB returns it by a plain call the exception skips, so the slot stayed
/// marked in use and the thread's next read of the family read a dummy as its SuperVersion.
#[test]
#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
fn a_multi_get_out_of_memory_leaves_reads_working() {
    let dir = tempfile::tempdir().unwrap();
    let (lived, stdout, status) = run_child(
        &test_path(module_path!(), "multi_get_out_of_memory_midway_child"),
        "PINROCKS_OOM_MIDWAY_DIR",
        dir.path(),
    );
    assert!(lived, "the child died: {status}\n{stdout}");
    let expected = "values: error MemoryLimit\n\
                    after values: Some([118])\n\
                    entities: error MemoryLimit\n\
                    after entities: Some([118])\n\
                    multi after: [(0, Some([118])), (1, None)]\n\
                    after a new SuperVersion: Some([118])\n";
    assert!(stdout.contains(expected), "{stdout}");
}

/// The child: a pessimistic transaction at a snapshot writes a key whose value (128 MiB, in
/// an SST file, not cached) RocksDB reads to check for a conflict after it locks
/// (`TransactionUtil::CheckKeyForConflicts`, which returns the thread's SuperVersion by a
/// plain call), with the address space capped; then reads on the same thread. The check
/// reads files only when the memtables kept do not reach back to the snapshot: a
/// transaction database keeps flushed memtables as history unless told to keep less (then
/// it keeps the last flushed one), so two flushes after the snapshot leave only memtables
/// begun after it. No compaction: it would read the value on a background thread, past the
/// cap, and end the process there.
#[test]
#[ignore = "run by a_conflict_check_out_of_memory_leaves_reads_working in a child process"]
fn conflict_check_out_of_memory_child() {
    let Ok(dir) = std::env::var("PINROCKS_OOM_CONFLICT_DIR") else {
        return;
    };
    let mut options = crate::common::create_options();
    options
        .set_by_name(&[
            ("max_write_buffer_size_to_maintain", "1"),
            ("disable_auto_compactions", "true"),
        ])
        .unwrap();
    let txn_db = Db::open_transaction_db(&options, &TransactionDbOptions::new(), &dir, []).unwrap();
    txn_db.put(b"big", &vec![7u8; 128 << 20]).unwrap();
    let mut txn = txn_db.begin().unwrap();
    txn.set_snapshot().unwrap();
    txn_db.put(b"small", b"v").unwrap();
    txn_db.flush().unwrap();
    txn_db.put(b"later", b"l").unwrap();
    txn_db.flush().unwrap();
    limit_address_space(32 << 20);
    match txn.writer().put(b"big", b"x") {
        Err(Error::RocksDb { kind, .. }) => println!("conflict check: error {kind:?}"),
        other => println!("conflict check: unexpected {other:?}"),
    }
    println!("after: {:?}", txn_db.get(b"small").unwrap());
    println!(
        "in the transaction: {:?}",
        txn.reader().get(b"small").unwrap()
    );
}

/// A `std::bad_alloc` in a pessimistic transaction's conflict check, after it took the
/// thread's SuperVersion: the write reports it, and the thread's reads go on.
#[test]
#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
fn a_conflict_check_out_of_memory_leaves_reads_working() {
    let dir = tempfile::tempdir().unwrap();
    let (lived, stdout, status) = run_child(
        &test_path(module_path!(), "conflict_check_out_of_memory_child"),
        "PINROCKS_OOM_CONFLICT_DIR",
        dir.path(),
    );
    assert!(lived, "the child died: {status}\n{stdout}");
    let expected = "conflict check: error MemoryLimit\n\
                    after: Some([118])\n\
                    in the transaction: Some([118])\n";
    assert!(stdout.contains(expected), "{stdout}");
}

//! Reads that RocksDB leaves by an exception (memory exhausted halfway): what the read took of
//! RocksDB's per-thread state must be given back, or the thread's next read goes through it.
//! The children run with their address space capped (`limit_address_space`).

use crate::common::{
    lift_address_space_cap, limit_address_space, not_reached_unless_within_5_s,
    open_without_flushes, run_child, test_path,
};
use pinrocks::options::TransactionDbOptions;
use pinrocks::{Db, Error, WriteBatch};

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

/// The child: a million range deletions in the active memtable, not yet read, then a read
/// with the address space capped: RocksDB fragments the memtable's tombstones for the read
/// under a mutex it locks and unlocks by hand (memtable.cc:935-944), and runs out of memory
/// in between. Should the read come back, a second one, on another thread, is given five
/// seconds.
#[test]
#[ignore = "run by a_read_that_keeps_a_tombstone_lock_ends_the_process in a child process"]
fn tombstone_cache_out_of_memory_child() {
    let Ok(dir) = std::env::var("PINROCKS_OOM_TOMBSTONES_DIR") else {
        return;
    };
    let db = std::sync::Arc::new(open_without_flushes(&dir));
    let mut batch = WriteBatch::new();
    {
        let mut writer = batch.writer();
        for i in 0..1_000_000u64 {
            let from = (2 * i).to_be_bytes();
            let to = (2 * i + 1).to_be_bytes();
            writer.delete_range(&from, &to).unwrap();
        }
    }
    db.write(&batch).unwrap();
    drop(batch);
    db.put(b"small", b"v").unwrap();
    limit_address_space(16 << 20);
    let first = db.get(b"small");
    println!("not reached: {first:?}");
    let reader = std::sync::Arc::clone(&db);
    not_reached_unless_within_5_s("the next read", move || reader.get(b"small"));
}

/// A `std::bad_alloc` while RocksDB fragments the active memtable's range tombstones for a
/// read, under the cache mutex it locks and unlocks by plain calls: caught and reported, it
/// left the mutex locked, and every later read of the memtable waited on it forever (or, on
/// the same thread, locked it twice). The process ends instead, saying why.
#[test]
#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
fn a_read_that_keeps_a_tombstone_lock_ends_the_process() {
    let dir = tempfile::tempdir().unwrap();
    crate::common::aborts_in_child(
        module_path!(),
        "tombstone_cache_out_of_memory_child",
        "PINROCKS_OOM_TOMBSTONES_DIR",
        dir.path(),
        "pinrocks: a read threw inside RocksDB (std::bad_alloc): RocksDB may keep a memtable's \
         range-tombstone cache, locked by hand, locked, so the process ends",
    );
}

/// The child: a pessimistic transaction writes a 64 MiB key with the address space capped so
/// that `TryLock`'s copy of the key fits and the lock manager's (into the stripe's map, under
/// the stripe's mutex) does not. Should the write come back, a second transaction, on another
/// thread, locks the key with five seconds given.
#[test]
#[ignore = "run by a_write_that_keeps_a_lock_stripe_ends_the_process in a child process"]
fn lock_stripe_out_of_memory_child() {
    let Ok(dir) = std::env::var("PINROCKS_OOM_STRIPE_DIR") else {
        return;
    };
    let txn_db = std::sync::Arc::new(
        Db::open_transaction_db(
            &crate::common::create_options(),
            &TransactionDbOptions::new(),
            &dir,
            [],
        )
        .unwrap(),
    );
    let key = std::sync::Arc::new(vec![7u8; 64 << 20]);
    let mut txn = txn_db.begin().unwrap();
    limit_address_space(96 << 20);
    let first = txn.writer().put(&key, b"v");
    println!("not reached: {first:?}");
    lift_address_space_cap();
    let (db, key) = (std::sync::Arc::clone(&txn_db), std::sync::Arc::clone(&key));
    not_reached_unless_within_5_s("the next lock", move || {
        let mut second = db.begin().unwrap();
        second.writer().put(&key, b"w")
    });
}

/// A `std::bad_alloc` inside RocksDB's lock manager, under a stripe mutex it locks and unlocks
/// by plain calls: reported, it left the stripe locked, and every later lock of a row in it
/// waited forever. The process ends instead, saying why.
#[test]
#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
fn a_write_that_keeps_a_lock_stripe_ends_the_process() {
    let dir = tempfile::tempdir().unwrap();
    crate::common::aborts_in_child(
        module_path!(),
        "lock_stripe_out_of_memory_child",
        "PINROCKS_OOM_STRIPE_DIR",
        dir.path(),
        "pinrocks: a call that locks a transaction's row threw inside RocksDB (std::bad_alloc): \
         RocksDB keeps a stripe of its lock manager, locked by hand, locked, so the process ends",
    );
}

/// The child: a pessimistic transaction writes a 64 MiB key with the address space capped so
/// that the key's first two copies fit (`TryLock`'s, the lock manager's: the row is locked)
/// and the third, the transaction's record of the rows it locked, does not; then, the cap
/// lifted, a second transaction writes the key and commits.
#[test]
#[ignore = "run by a_write_that_locked_an_untracked_row_lets_it_go in a child process"]
fn untracked_row_out_of_memory_child() {
    let Ok(dir) = std::env::var("PINROCKS_OOM_ROW_DIR") else {
        return;
    };
    let mut txn_db_options = TransactionDbOptions::new();
    txn_db_options.transaction_lock_timeout(std::time::Duration::from_millis(200));
    let txn_db =
        Db::open_transaction_db(&crate::common::create_options(), &txn_db_options, &dir, [])
            .unwrap();
    let key = vec![7u8; 64 << 20];
    let mut first = txn_db.begin().unwrap();
    limit_address_space(160 << 20);
    match first.writer().put(&key, b"v") {
        Err(Error::RocksDb { kind, .. }) => println!("first: error {kind:?}"),
        other => println!("first: unexpected {other:?}"),
    }
    lift_address_space_cap();
    let mut second = txn_db.begin().unwrap();
    match second.writer().put(&key, b"w") {
        Ok(()) => println!("second: written"),
        Err(e) => println!("second: {:?}", e.kind()),
    }
    second.commit().unwrap();
    println!("read: {:?}", txn_db.get(&key).unwrap());
    first.commit().unwrap();
    println!("first committed");
}

/// A `std::bad_alloc` in a pessimistic transaction's write after RocksDB locked the row and
/// before the transaction tracked it: the row stayed locked with nothing to unlock it, and
/// every later writer of the row timed out while the database was open. It is let go: the
/// write reports the failure, and a second transaction writes the row.
#[test]
#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
fn a_write_that_locked_an_untracked_row_lets_it_go() {
    let dir = tempfile::tempdir().unwrap();
    let (lived, stdout, status) = run_child(
        &test_path(module_path!(), "untracked_row_out_of_memory_child"),
        "PINROCKS_OOM_ROW_DIR",
        dir.path(),
    );
    assert!(lived, "the child died: {status}\n{stdout}");
    let expected = "first: error MemoryLimit\n\
                    second: written\n\
                    read: Some([119])\n\
                    first committed\n";
    assert!(stdout.contains(expected), "{stdout}");
}

/// The child: a seek of a tailing iterator to a 64 MiB target, which the iterator copies,
/// with the address space capped below that copy.
#[test]
#[ignore = "run by a_tailing_move_that_throws_ends_the_process in a child process"]
fn tailing_seek_out_of_memory_child() {
    let Ok(dir) = std::env::var("PINROCKS_OOM_TAILING_DIR") else {
        return;
    };
    let db = open_without_flushes(&dir);
    db.put(b"a", b"1").unwrap();
    let target = vec![7u8; 64 << 20];
    let mut tailing = pinrocks::ReadOptions::new();
    tailing.tailing(true);
    let reader = db.reader().options(&tailing);
    let mut it = reader.iter();
    limit_address_space(32 << 20);
    it.seek(&target);
    println!("not reached: {:?}", it.status());
}

/// A `std::bad_alloc` in a tailing iterator's move, which may free SuperVersions and purge
/// files inside RocksDB, counting the purge pending until it ends (a close waits for it):
/// the process ends, saying why, where an iterator that is not tailing reports the failure
/// from its status.
#[test]
#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
fn a_tailing_move_that_throws_ends_the_process() {
    let dir = tempfile::tempdir().unwrap();
    crate::common::aborts_in_child(
        module_path!(),
        "tailing_seek_out_of_memory_child",
        "PINROCKS_OOM_TAILING_DIR",
        dir.path(),
        "pinrocks: a tailing iterator's move threw inside RocksDB (std::bad_alloc): RocksDB may \
         have left its purge of obsolete files counted as pending, which a close would wait on \
         forever, so the process ends",
    );
}

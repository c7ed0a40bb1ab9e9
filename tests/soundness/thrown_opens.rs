//! Calls that RocksDB cannot leave by an exception (a failed open's destructor takes the mutex
//! the open still holds): out of memory inside one ends the process where the allocation
//! fails (`rocksdb-c/out_of_memory.h`). The children run with their address space capped.

use crate::common::{
    aborts_in_child, limit_address_space, not_reached_unless_within_5_s, open_without_flushes,
};

/// The child: a database closed with a 128 MiB value in its WAL only, opened again with the
/// address space capped below the record the replay reads. Should the open come back (or
/// hang), five seconds are given.
#[test]
#[ignore = "run by an_open_out_of_memory_in_its_wal_replay_ends_the_process in a child process"]
fn wal_replay_out_of_memory_child() {
    let Ok(dir) = std::env::var("PINROCKS_OOM_OPEN_DIR") else {
        return;
    };
    {
        let db = open_without_flushes(&dir);
        db.put(b"big", &vec![7u8; 128 << 20]).unwrap();
    } // closed: the value stays in the WAL (a close flushes only what the WAL lacks)
    limit_address_space(64 << 20);
    // One thread to open table files (RocksDB starts 15 more otherwise, whose stacks the
    // cap would refuse before the replay is reached).
    let mut options = crate::common::create_options();
    options
        .set_by_name(&[("max_file_opening_threads", "1")])
        .unwrap();
    not_reached_unless_within_5_s("the open", move || {
        pinrocks::Db::open(&options, &dir).map(|_| ())
    });
}

/// A `std::bad_alloc` in the WAL replay of an open, under the database mutex the open locks by
/// hand: unwinding, the open's `DBImpl` was destroyed, and its destructor took that mutex
/// again and waited on itself forever. The process ends where the allocation fails instead.
#[test]
#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
fn an_open_out_of_memory_in_its_wal_replay_ends_the_process() {
    let dir = tempfile::tempdir().unwrap();
    aborts_in_child(
        module_path!(),
        "wal_replay_out_of_memory_child",
        "PINROCKS_OOM_OPEN_DIR",
        dir.path(),
        "pinrocks: out of memory inside RocksDB's DB::Open, which an exception would leave \
         broken, so the process ends",
    );
}

//! What a write costs (issue 49, a first slice): single puts and batches of 64 puts, WAL on
//! (no sync) and WAL off, through pinrocks, the `rocksdb` crate (the peer) and the C API's
//! `rocksdb_put` on pinrocks' own database (the floor), each on a database of its own,
//! timed paired and interleaved (`paired.rs`). Writes overwrite the same keys in a random
//! order, with 64 MiB write buffers, so flushes and compactions run during the run (alike
//! for every way) and the files stay the size of one copy of the keys.
//!
//! `sweep writes [--quick]`: a markdown table, time per put (a batch's divided by 64).

use std::collections::HashMap;
use std::time::Duration;

use pinrocks::{ffi, Db, WriteBatch, WriteOptions};

use crate::paired::{self, Ratio, Read};
use crate::tiers;

/// Puts per batch.
const BATCH: usize = 64;

fn pinrocks_db(dir: &std::path::Path) -> Db {
    let mut options = tiers::pinrocks_options();
    options.write_buffer_size(64 << 20);
    Db::open(&options, dir).unwrap()
}

fn peer_db(dir: &std::path::Path) -> rocksdb::DB {
    let mut options = tiers::peer_options();
    options.set_write_buffer_size(64 << 20);
    rocksdb::DB::open(&options, dir).unwrap()
}

pub fn main(quick: bool) {
    let (rounds, slice, sizes) = if quick {
        (2, Duration::from_millis(1), vec![16, 4096])
    } else {
        (36, Duration::from_millis(8), vec![16, 128, 4096, 65536])
    };
    println!(
        "| write | WAL | size | pinrocks | rocksdb crate | C API floor | pinrocks vs rocksdb | \
         pinrocks vs floor |"
    );
    println!("|---|---|---|---:|---:|---:|---|---|");
    for size in crate::progress::steps("writes", sizes.into_iter()) {
        let count = if quick { 64 } else { tiers::key_count(size) };
        let keys = tiers::random_keys(count);
        let value = tiers::value(7, size);
        for wal in [true, false] {
            let dirs: Vec<tempfile::TempDir> =
                (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
            let (ours, floor) = (pinrocks_db(dirs[0].path()), pinrocks_db(dirs[2].path()));
            let peer = peer_db(dirs[1].path());
            let mut options = WriteOptions::new();
            options.disable_wal(!wal);
            let mut peer_options = rocksdb::WriteOptions::default();
            peer_options.disable_wal(!wal);
            let (raw_db, _) = floor.as_raw();
            let mut floor_options = WriteOptions::new();
            floor_options.disable_wal(!wal);
            let raw_options = floor_options.as_raw();

            let mut writer = ours.writer().options(&options);
            let mut ours_put = |k: &[u8]| {
                writer.put(k, &value).unwrap();
                1
            };
            let mut peer_put = |k: &[u8]| {
                peer.put_opt(k, &value, &peer_options).unwrap();
                1
            };
            let mut floor_put = |k: &[u8]| {
                raw_put(raw_db, raw_options, k, &value);
                1
            };
            let mut ways: [Read<'_>; 3] = [&mut ours_put, &mut peer_put, &mut floor_put];
            let (r, _) = paired::run(&mut ways, &keys, rounds, slice);
            row("put", wal, size, &r, 1);

            // Batches of 64 consecutive keys (from the one written): ours reused, cleared;
            // the peer's `write_opt` takes its batch by value, so a new one per write.
            let mut batch = WriteBatch::new();
            let index: HashMap<Vec<u8>, usize> = (0..count).map(|i| (tiers::key(i), i)).collect();
            let batches: HashMap<&[u8], Vec<Vec<u8>>> = keys
                .iter()
                .map(|k| {
                    let start = index[k];
                    let run = (0..BATCH)
                        .map(|j| tiers::key((start + j) % count))
                        .collect();
                    (&k[..], run)
                })
                .collect();
            let batch_keys = |k: &[u8]| batches[k].iter();
            let mut ours_batch = |k: &[u8]| {
                batch.clear();
                for key in batch_keys(k) {
                    batch.writer().put(key, &value).unwrap();
                }
                ours.writer().options(&options).write(&batch).unwrap();
                1
            };
            let mut peer_batch = |k: &[u8]| {
                let mut batch = rocksdb::WriteBatch::default();
                for key in batch_keys(k) {
                    batch.put(key, &value);
                }
                peer.write_opt(batch, &peer_options).unwrap();
                1
            };
            let mut ways: [Read<'_>; 2] = [&mut ours_batch, &mut peer_batch];
            let (r, _) = paired::run(&mut ways, &keys, rounds, slice);
            row("batch of 64 puts", wal, size, &r, BATCH);
        }
    }
    println!(
        "\n{} rounds of {} ms per way, interleaved in a balanced order; time per put (a \
         batch's over its 64 puts), median of rounds; \"A vs B\": how many times faster A \
         is, median of per-round ratios [95% bootstrap interval] (first half / second half); \
         `~`: the interval includes 1. The floor is the C API's `rocksdb_put` on a pinrocks \
         database; batches have no floor yet.",
        rounds.next_multiple_of(paired::cycle(3)),
        slice.as_millis(),
    );
}

/// `reads` single puts of `size`-byte values over `keys` through `name`'s way (`put`,
/// `rocksdb_put`, `raw_put`), for valgrind's per-operation counts (`per_read.rs`); each
/// counts as its value's length, as a read does.
pub fn per_put(
    name: &str,
    dir: &std::path::Path,
    size: usize,
    keys: &[Vec<u8>],
    reads: usize,
) -> u64 {
    let value = tiers::value(3, size);
    let key = |i: usize| &keys[i % keys.len()][..];
    match name {
        "put" => {
            let db = pinrocks_db(dir);
            crate::callgrind::counted(reads, |i| {
                db.put(key(i), &value).unwrap();
                value.len() as u64
            })
        }
        "rocksdb_put" => {
            let db = peer_db(dir);
            crate::callgrind::counted(reads, |i| {
                db.put(key(i), &value).unwrap();
                value.len() as u64
            })
        }
        "raw_put" => {
            let db = pinrocks_db(dir);
            let (raw_db, _) = db.as_raw();
            let mut options = WriteOptions::new();
            let raw_options = options.as_raw();
            crate::callgrind::counted(reads, |i| {
                raw_put(raw_db, raw_options, key(i), &value);
                value.len() as u64
            })
        }
        _ => per_batch(name, dir, &value, keys, reads),
    }
}

/// `reads` batches of 64 puts (each counted once: divide by 64 for a put) through `name`'s
/// way: `batch64` (a pinrocks `WriteBatch`, reused), `rocksdb_batch64` (the `rocksdb`
/// crate's, made per write as its `write` takes it by value) or `raw_batch64` (the C API's
/// batch, reused, and `rocksdb_write`).
fn per_batch(
    name: &str,
    dir: &std::path::Path,
    value: &[u8],
    keys: &[Vec<u8>],
    reads: usize,
) -> u64 {
    let run = |i: usize| (0..BATCH).map(move |j| &keys[(i * BATCH + j) % keys.len()][..]);
    match name {
        "batch64" => {
            let db = pinrocks_db(dir);
            let mut batch = WriteBatch::new();
            crate::callgrind::counted(reads, |i| {
                batch.clear();
                for key in run(i) {
                    batch.writer().put(key, value).unwrap();
                }
                db.write(&batch).unwrap();
                value.len() as u64
            })
        }
        "rocksdb_batch64" => {
            let db = peer_db(dir);
            crate::callgrind::counted(reads, |i| {
                let mut batch = rocksdb::WriteBatch::default();
                for key in run(i) {
                    batch.put(key, value);
                }
                db.write(batch).unwrap();
                value.len() as u64
            })
        }
        "raw_batch64" => {
            let db = pinrocks_db(dir);
            let (raw_db, _) = db.as_raw();
            let mut options = WriteOptions::new();
            let raw_options = options.as_raw();
            // SAFETY: a new batch, ours; destroyed below.
            let batch = unsafe { ffi::rocksdb_writebatch_create() };
            let total = crate::callgrind::counted(reads, |i| {
                let mut err = std::ptr::null_mut();
                // SAFETY: a live batch, database and options; the C API copies the bytes.
                unsafe {
                    ffi::rocksdb_writebatch_clear(batch);
                    for key in run(i) {
                        ffi::rocksdb_writebatch_put(
                            batch,
                            key.as_ptr().cast(),
                            key.len(),
                            value.as_ptr().cast(),
                            value.len(),
                        );
                    }
                    ffi::rocksdb_write(raw_db, raw_options, batch, &mut err);
                }
                assert!(err.is_null(), "rocksdb_write failed");
                value.len() as u64
            });
            // SAFETY: created above, no longer used.
            unsafe { ffi::rocksdb_writebatch_destroy(batch) };
            total
        }
        other => panic!("no write path {other}"),
    }
}

/// The C API's `rocksdb_put`: the floor.
fn raw_put(
    db: *mut ffi::rocksdb_t,
    options: *mut ffi::rocksdb_writeoptions_t,
    key: &[u8],
    value: &[u8],
) {
    let mut err = std::ptr::null_mut();
    // SAFETY: a live database and write options (the callers keep them for the run); the C
    // API copies the key and value into the memtable and the WAL.
    unsafe {
        ffi::rocksdb_put(
            db,
            options,
            key.as_ptr().cast(),
            key.len(),
            value.as_ptr().cast(),
            value.len(),
            &mut err,
        );
    }
    assert!(err.is_null(), "rocksdb_put failed");
}

fn row(write: &str, wal: bool, size: usize, r: &paired::Rounds, per: usize) {
    let ns = |i: usize| {
        r.ns.get(i).map_or("–".to_string(), |n| {
            format!("{:.0} ns", paired::median(&mut n.clone()) / per as f64)
        })
    };
    let floor = if r.ns.len() > 2 {
        Ratio::of(&r.ns[2], &r.ns[0]).cell()
    } else {
        "–".to_string()
    };
    println!(
        "| {write} | {} | {size} B | {} | {} | {} | {} | {floor} |",
        if wal { "on" } else { "off" },
        ns(0),
        ns(1),
        ns(2),
        Ratio::of(&r.ns[1], &r.ns[0]).cell(),
    );
}

//! Performs one warm-up read and then N reads at one value size from the block cache, for
//! counting heap allocations or instructions per read under valgrind (both sides of the
//! FFI boundary). `scripts/count-per-read.sh` runs it at two N and divides the difference,
//! so opening, populating and closing cancel out.
//!
//! A "read" is one value through a sweep tier, or through one of the other paths:
//! `multi_get` (one key of a pinned multi-get of 8 distinct keys), `iterate` (one forward
//! step of a cursor, which seeks back to the first key from the last), `iterate_back` (one
//! backward step, seeking back to the last key from the first), `rocksdb_iterate` and
//! `rocksdb_iterate_std` (one forward step of the `rocksdb` crate's raw iterator and of its
//! std iterator, seeking back the same way), `seek` (one seek and its
//! entry), `typed` (one `Table::get`), and reads inside a transaction of a transaction
//! database holding the same values: `txn_pinned` (pinrocks' one-call pinned read through
//! the transaction) and `rocksdb_txn_get_pinned` (the `rocksdb` crate's
//! `Transaction::get_pinned`); and reads through an indexed batch: `batch_pinned` (a
//! database value read through a batch holding one other entry, so RocksDB looks in the
//! batch first) and `batch_own_pinned` (the batch's own entries, read from it alone); the
//! pinned read of a database with the hot-read profile (`base::hot_options`: row-cache
//! hits), `hot_pinned` for pinrocks and `rocksdb_hot_get_pinned` for the `rocksdb` crate;
//! writes, WAL on, one "read" each (`write_<kind>_<side>`, `write_ways.rs`: `sweep
//! write-paths` lists them; N a multiple of the way's writes per call); and
//! reads of values in blob files ([`BLOB_PATHS`]); and typed reads of records
//! (`typed_<format>_<consumer>`, `typed.rs`).
//!
//! `sweep per-read <tier or path> <value size> <reads>` (the bench binary; see main.rs)

use pinrocks::codec::Raw;
use pinrocks::Table;

use crate::blobs;
use crate::callgrind::counted;
use crate::tiers::{self, Consumer, Regime, Tier};

/// The paths beyond the tiers.
pub const PATHS: [&str; 13] = [
    "multi_get",
    "iterate",
    "iterate_back",
    "rocksdb_iterate",
    "rocksdb_iterate_std",
    "seek",
    "typed",
    "txn_pinned",
    "rocksdb_txn_get_pinned",
    "batch_pinned",
    "batch_own_pinned",
    "hot_pinned",
    "rocksdb_hot_get_pinned",
];

/// Reads of values in blob files (`blobs.rs`'s databases): pinrocks' pinned read and the
/// `rocksdb` crate's `get_pinned`, from a blob cache holding them all and from the file.
pub const BLOB_PATHS: [&str; 4] = [
    "blob_cached_pinned",
    "blob_file_pinned",
    "rocksdb_blob_cached_get_pinned",
    "rocksdb_blob_file_get_pinned",
];

/// Keys per multi-get: reads are counted per key.
const BATCH: usize = 8;

pub fn main(name: &str, size: usize, reads: usize) {
    let dir = tempfile::tempdir().expect("temporary directory");
    // Few keys, so that populating under valgrind stays quick; the differencing removes
    // its cost anyway.
    let count = 16;
    if name.starts_with("typed_") {
        // Records, not the sweep's values: `typed.rs` reads and checks them.
        crate::typed_paths::per_read(name, size, reads);
        return;
    }
    let keys = tiers::random_keys(count);
    let total: u64 = if BLOB_PATHS.contains(&name) {
        let cached = name.contains("cached");
        let keyed = |i: usize| &keys[i % keys.len()];
        if name.starts_with("rocksdb") {
            let db = blobs::peer_blob_db(dir.path(), cached, size, count);
            counted(reads, |i| {
                db.get_pinned(keyed(i)).unwrap().unwrap().len() as u64
            })
        } else {
            let db = blobs::pinrocks_blob_db(dir.path(), cached, size, count);
            let reader = db.reader();
            counted(reads, |i| {
                reader
                    .get_pinned(keyed(i), |v| v.len() as u64)
                    .unwrap()
                    .unwrap()
            })
        }
    } else if matches!(name, "rocksdb_iterate" | "rocksdb_iterate_std") {
        let db = tiers::open_peer(dir.path(), Regime::BlockCache, size, count);
        peer_steps(&db, name == "rocksdb_iterate_std", count, reads)
    } else if name.starts_with("write_") {
        crate::write_ways::per_write(name, dir.path(), size, reads)
    } else if matches!(name, "hot_pinned" | "rocksdb_hot_get_pinned") {
        hot_reads(name, dir.path(), size, count, reads, &keys)
    } else if matches!(name, "txn_pinned" | "rocksdb_txn_get_pinned") {
        transaction_reads(name, dir.path(), size, count, reads, &keys)
    } else if let Some(tier) = Tier::from_name(name) {
        if tier.is_peer() {
            let db = tiers::open_peer(dir.path(), Regime::BlockCache, size, count);
            let mut read = tiers::peer_tier(&db, tier, Consumer::Len);
            counted(reads, |i| read(&keys[i % keys.len()]))
        } else {
            let db = tiers::open_pinrocks(dir.path(), Regime::BlockCache, size, count);
            let mut read = tiers::pinrocks_tier(&db, tier, size, Consumer::Len);
            counted(reads, |i| read(&keys[i % keys.len()]))
        }
    } else {
        let db = tiers::open_pinrocks(dir.path(), Regime::BlockCache, size, count);
        let reader = db.reader();
        match name {
            "multi_get" => {
                assert_eq!(reads % BATCH, 0, "reads must be a multiple of {BATCH}");
                let mut total = 0u64;
                // A warm-up batch, then reads / BATCH batches.
                // Distinct keys in each batch: `count` is a multiple of `BATCH`.
                let ordered: Vec<Vec<u8>> = (0..count).map(tiers::key).collect();
                counted(reads / BATCH, |b| {
                    let batch = &ordered[(b * BATCH) % count..][..BATCH];
                    reader
                        .multi_get_pinned(batch, |_, v| total += v.expect("present").len() as u64)
                        .unwrap();
                    0
                });
                total - (size * (BATCH - 1)) as u64
            }
            "iterate" | "iterate_back" => {
                // One cursor; each read is one step. From the last key it seeks back to the
                // first (backward: from the first to the last) without running off the end:
                // past the end RocksDB's level iterator lets go of its file iterator, and a
                // seek then builds a new one (docs/zero-allocation-reads.md).
                let (first, last) = (tiers::key(0), tiers::key(count - 1));
                let back = name == "iterate_back";
                let mut it = reader.iter();
                let (start, end) = if back {
                    (&last, &first)
                } else {
                    (&first, &last)
                };
                let restart = |it: &mut pinrocks::Cursor<'_>| {
                    if back {
                        it.seek_for_prev(start)
                    } else {
                        it.seek(start)
                    }
                };
                restart(&mut it);
                let total = counted(reads, |_| {
                    let (key, value) = it.entry().expect("an entry");
                    let len = value.len() as u64;
                    if key == &end[..] {
                        restart(&mut it);
                    } else if back {
                        it.prev();
                    } else {
                        it.next();
                    }
                    len
                });
                it.status().unwrap();
                total
            }
            "seek" => {
                let mut it = reader.iter();
                counted(reads, |i| {
                    it.seek(&keys[i % keys.len()]);
                    it.value().expect("an entry").len() as u64
                })
            }
            "typed" => {
                let table: Table<Raw, Raw> = Table::new(db.default_cf());
                counted(reads, |i| {
                    table
                        .get(&keys[i % keys.len()], |v: &[u8]| v.len() as u64)
                        .unwrap()
                        .expect("present")
                })
            }
            "batch_pinned" | "batch_own_pinned" => {
                let mut batch = db.indexed_batch().unwrap();
                let own = name == "batch_own_pinned";
                if own {
                    for i in 0..count {
                        batch
                            .writer()
                            .put(&tiers::key(i), &tiers::value(i, size))
                            .unwrap();
                    }
                } else {
                    batch.writer().put(b"another key", b"x").unwrap();
                }
                let reader = if own {
                    batch.batch_reader()
                } else {
                    batch.reader()
                };
                counted(reads, |i| {
                    reader
                        .get_pinned(&keys[i % keys.len()], |v| v.len() as u64)
                        .unwrap()
                        .expect("present")
                })
            }
            other => panic!("no tier or path {other}"),
        }
    };
    assert_eq!(total, (size * (reads + 1)) as u64);
}

/// `reads + 1` forward steps through the `rocksdb` crate's raw iterator (`std`: its std
/// iterator, which boxes each key and value), seeking back to the first key from the last
/// as `iterate` does.
fn peer_steps(db: &rocksdb::DB, std: bool, count: usize, reads: usize) -> u64 {
    let (first, last) = (tiers::key(0), tiers::key(count - 1));
    let from_first = rocksdb::IteratorMode::From(&first, rocksdb::Direction::Forward);
    if std {
        let mut it = db.iterator(from_first);
        return counted(reads, |_| {
            let (key, value) = it.next().expect("an entry").unwrap();
            if key[..] == last[..] {
                it.set_mode(from_first);
            }
            value.len() as u64
        });
    }
    let mut it = db.raw_iterator();
    it.seek(&first);
    let total = counted(reads, |_| {
        let (key, value) = it.item().expect("an entry");
        let len = value.len() as u64;
        if key == &last[..] {
            it.seek(&first);
        } else {
            it.next();
        }
        len
    });
    it.status().unwrap();
    total
}

/// Pinned reads of a database with the hot-read profile (64 MiB of caches), every key
/// read once before: each counted read is a row-cache hit.
fn hot_reads(
    name: &str,
    dir: &std::path::Path,
    size: usize,
    count: usize,
    reads: usize,
    keys: &[Vec<u8>],
) -> u64 {
    let (ours, peer) = crate::base::hot_options(64 << 20);
    if name == "hot_pinned" {
        let db = pinrocks::Db::open(&ours, dir).unwrap();
        tiers::fill_pinrocks(&db, size, count);
        let mut read = tiers::pinrocks_tier(&db, Tier::Pinned, size, Consumer::Len);
        counted(reads, |i| read(&keys[i % keys.len()]))
    } else {
        let db = rocksdb::DB::open(&peer, dir).unwrap();
        tiers::fill_peer(&db, size, count);
        let mut read = tiers::peer_tier(&db, Tier::RocksdbGetPinned, Consumer::Len);
        counted(reads, |i| read(&keys[i % keys.len()]))
    }
}

/// One read per key through a transaction, after the values were written through the plain
/// database, flushed and read once (block cache).
fn transaction_reads(
    name: &str,
    dir: &std::path::Path,
    size: usize,
    count: usize,
    reads: usize,
    keys: &[Vec<u8>],
) -> u64 {
    let path = dir.join("txn");
    if name == "txn_pinned" {
        let db = pinrocks::Db::open_transaction_db(
            &tiers::pinrocks_options(),
            &pinrocks::options::TransactionDbOptions::new(),
            &path,
            [],
        )
        .unwrap();
        tiers::fill_pinrocks(&db, size, count);
        let txn = db.begin().unwrap();
        let reader = txn.reader();
        counted(reads, |i| {
            reader
                .get_pinned(&keys[i % keys.len()], |v| v.len() as u64)
                .unwrap()
                .unwrap()
        })
    } else {
        let db: rocksdb::TransactionDB = rocksdb::TransactionDB::open(
            &tiers::peer_options(),
            &rocksdb::TransactionDBOptions::default(),
            &path,
        )
        .unwrap();
        for i in 0..count {
            db.put(tiers::key(i), tiers::value(i, size)).unwrap();
        }
        db.flush().unwrap();
        for i in 0..count {
            db.get_pinned(tiers::key(i)).unwrap().unwrap();
        }
        let txn = db.transaction();
        counted(reads, |i| {
            txn.get_pinned(&keys[i % keys.len()])
                .unwrap()
                .unwrap()
                .len() as u64
        })
    }
}

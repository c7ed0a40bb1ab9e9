//! What a pin guarantees: the bytes stay the value that was read, whatever other threads
//! do meanwhile, and the pin is released when the closure returns or panics.

use std::panic::{self, AssertUnwindSafe};
use std::sync::mpsc;

use crate::common::{open_db, patterned};
use pinrocks::{Db, Reader};

const PINNED_USAGE: &str = "rocksdb.block-cache-pinned-usage";

/// Both pinned paths, by name, so each test covers both.
type PinnedRead = fn(Reader<'_>, &[u8], &mut dyn FnMut(&[u8])) -> pinrocks::Result<Option<()>>;

const PATHS: [(&str, PinnedRead); 2] = [
    ("native", |r, k, f| r.get_pinned(k, |v| f(v))),
    ("v2 handle (guard)", |r, k, f| {
        Ok(r.pin(k)?.map(|guard| f(&guard)))
    }),
];

fn pinned_usage(db: &Db) -> u64 {
    db.property_int(PINNED_USAGE).unwrap().expect(PINNED_USAGE)
}

/// While the closure holds the value, another thread overwrites it, deletes it, flushes
/// and compacts. The slice must still hold exactly the bytes read.
fn hold_while_other_thread_mutates(in_block_cache: bool) {
    for (path, read) in PATHS {
        let (_dir, db) = open_db(&[]);
        let original = patterned(64 << 10, 9);
        db.put(b"k", &original).unwrap();
        if in_block_cache {
            db.flush().unwrap();
            db.compact_range(None, None).unwrap();
        }
        let (go_tx, go_rx) = mpsc::channel::<()>();
        let (done_tx, done_rx) = mpsc::channel::<()>();
        std::thread::scope(|s| {
            let db = &db;
            s.spawn(move || {
                go_rx.recv().unwrap();
                db.put(b"k", &patterned(64 << 10, 200)).unwrap();
                db.flush().unwrap();
                db.delete(b"k").unwrap();
                db.put(b"other", &patterned(1 << 20, 1)).unwrap();
                db.flush().unwrap();
                db.compact_range(None, None).unwrap();
                done_tx.send(()).unwrap();
            });
            let found = read(db.reader(), b"k", &mut |value| {
                assert_eq!(value, &original[..], "{path}: wrong value read");
                go_tx.send(()).unwrap();
                done_rx.recv().unwrap();
                assert_eq!(
                    value,
                    &original[..],
                    "{path}: pinned bytes changed under the pin"
                );
            })
            .unwrap();
            assert_eq!(found, Some(()), "{path}");
        });
        assert_eq!(
            db.get(b"k").unwrap(),
            None,
            "{path}: the delete took effect"
        );
    }
}

#[test]
fn pinned_bytes_survive_concurrent_overwrite_delete_flush_from_memtable() {
    hold_while_other_thread_mutates(false);
}

#[test]
fn pinned_bytes_survive_concurrent_overwrite_delete_flush_from_block_cache() {
    hold_while_other_thread_mutates(true);
}

#[test]
fn a_block_cache_hit_pins_a_block_until_the_closure_returns() {
    for (path, read) in PATHS {
        let (_dir, db) = open_db(&[]);
        db.put(b"k", &patterned(4096, 4)).unwrap();
        db.flush().unwrap();
        // RocksDB pins a few bytes of its own; the value's block comes on top of them.
        let before = pinned_usage(&db);
        let mut during = 0;
        read(db.reader(), b"k", &mut |v| {
            assert_eq!(v, &patterned(4096, 4)[..]);
            during = pinned_usage(&db);
        })
        .unwrap();
        assert!(
            during >= before + 4096,
            "{path}: the block was not pinned during the closure ({before} -> {during})"
        );
        assert_eq!(
            pinned_usage(&db),
            before,
            "{path}: the pin outlived the closure"
        );
    }
}

#[test]
fn a_panicking_closure_releases_the_pin_and_the_panic_continues() {
    for (path, read) in PATHS {
        let (_dir, db) = open_db(&[]);
        db.put(b"k", &patterned(4096, 5)).unwrap();
        db.flush().unwrap();
        let before = pinned_usage(&db);
        for _ in 0..100 {
            let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
                read(db.reader(), b"k", &mut |v| {
                    assert!(pinned_usage(&db) >= before + 4096);
                    panic!("closure saw {} bytes", v.len())
                })
            }));
            let payload = outcome.expect_err("the panic must reach the caller");
            let message = payload
                .downcast_ref::<String>()
                .expect("a formatted panic message");
            assert_eq!(message, "closure saw 4096 bytes", "{path}");
            assert_eq!(pinned_usage(&db), before, "{path}: a panic leaked the pin");
        }
        // The database is still fully usable.
        db.put(b"after", b"panic").unwrap();
        assert_eq!(db.get(b"after").unwrap().as_deref(), Some(&b"panic"[..]));
        assert_eq!(db.get(b"k").unwrap(), Some(patterned(4096, 5)));
        db.flush().unwrap();
    }
}

#[test]
fn the_closure_is_not_called_for_a_missing_key() {
    let (_dir, db) = open_db(&[]);
    for (path, read) in PATHS {
        let mut calls = 0;
        let found = read(db.reader(), b"missing", &mut |_| calls += 1).unwrap();
        assert_eq!((found, calls), (None, 0), "{path}");
    }
}

#[test]
fn the_closure_result_is_returned() {
    let (_dir, db) = open_db(&[]);
    db.put(b"n", &1234u64.to_be_bytes()).unwrap();
    let n = db
        .get_pinned(b"n", |v| u64::from_be_bytes(v.try_into().unwrap()))
        .unwrap();
    assert_eq!(n, Some(1234));
    let owned: Option<String> = db.reader().pin(b"n").unwrap().map(|v| format!("{:?}", &*v));
    assert_eq!(owned.as_deref(), Some("[0, 0, 0, 0, 0, 0, 4, 210]"));
}

#[test]
fn a_memtable_hit_pins_no_block() {
    for (path, read) in PATHS {
        let (_dir, db) = open_db(&[]);
        db.put(b"on disk", &patterned(4096, 1)).unwrap();
        db.flush().unwrap();
        db.put(b"k", &patterned(4096, 6)).unwrap(); // still in the memtable
        let before = pinned_usage(&db);
        let mut during = u64::MAX;
        read(db.reader(), b"k", &mut |v| {
            assert_eq!(v, &patterned(4096, 6)[..]);
            during = pinned_usage(&db);
        })
        .unwrap();
        assert_eq!(
            during, before,
            "{path}: a memtable value is copied, not block-pinned"
        );
    }
}

#[test]
fn a_held_guard_keeps_its_block_through_cache_churn() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = crate::common::create_options();
    options.block_cache_size(1 << 20);
    let db = Db::open(&options, dir.path()).unwrap();
    for i in 0u32..200 {
        db.put(&i.to_be_bytes(), &patterned(16 << 10, i as u8))
            .unwrap();
    }
    db.flush().unwrap();
    let before = pinned_usage(&db);
    let guard = db.reader().pin(&0u32.to_be_bytes()).unwrap().unwrap();
    // Read 3 MiB through a 1 MiB cache: every unpinned block is evicted meanwhile.
    for i in 1u32..200 {
        let len = db.get_pinned(&i.to_be_bytes(), <[u8]>::len).unwrap();
        assert_eq!(len, Some(16 << 10));
    }
    assert!(
        pinned_usage(&db) >= before + (16 << 10),
        "the guard's block stays pinned"
    );
    assert_eq!(&guard[..], &patterned(16 << 10, 0)[..]);
    drop(guard);
    assert_eq!(
        pinned_usage(&db),
        before,
        "dropping the guard releases the block"
    );
}

/// A pinned multi-get of keys spread over the data blocks of SST files, with a cold block
/// cache: RocksDB reads the blocks together (`MultiRead`, through io_uring when the
/// `io-uring` feature is on: `scripts/features.sh` watches for it), and every value comes
/// back exact, in the order asked.
#[test]
fn a_multi_get_reads_many_blocks_from_files_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let options = crate::common::create_options();
    let keys: Vec<[u8; 4]> = (0..2_000u32).map(u32::to_be_bytes).collect();
    {
        let db = Db::open(&options, dir.path()).unwrap();
        for (i, k) in keys.iter().enumerate() {
            db.put(k, &patterned(4096, i as u8)).unwrap();
        }
        db.flush().unwrap();
    }
    let db = Db::open(&options, dir.path()).unwrap(); // a cold block cache
    let asked: Vec<[u8; 4]> = keys.iter().step_by(37).copied().collect();
    let mut got = Vec::new();
    db.reader()
        .multi_get_pinned(&asked, |i, v| got.push((i, v.map(<[u8]>::to_vec))))
        .unwrap();
    let want: Vec<(usize, Option<Vec<u8>>)> = (0..asked.len())
        .map(|i| (i, Some(patterned(4096, (i * 37) as u8))))
        .collect();
    assert_eq!(got, want);
}

/// Keys already in order (with repeats and absent keys) and the same keys out of order read
/// the same values, through a database, a transaction and an indexed batch: pinrocks tells
/// RocksDB's MultiGet when a batch is sorted (so it skips its sort), and only then.
#[test]
fn sorted_and_unsorted_batches_read_the_same_values() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open_transaction_db(
        &crate::common::create_options(),
        &pinrocks::options::TransactionDbOptions::new(),
        dir.path(),
        [],
    )
    .unwrap();
    for i in 0..200u32 {
        db.put(&i.to_be_bytes(), &patterned(100, i as u8)).unwrap();
    }
    db.flush().unwrap();
    let mut sorted: Vec<[u8; 4]> = [0u32, 0, 1, 5, 5, 64, 199, 250, 251]
        .into_iter()
        .chain(100..140)
        .map(u32::to_be_bytes)
        .collect();
    sorted.sort();
    let reversed: Vec<[u8; 4]> = sorted.iter().rev().copied().collect();
    let expect = |keys: &[[u8; 4]]| -> Vec<Option<Vec<u8>>> {
        keys.iter()
            .map(|k| {
                let i = u32::from_be_bytes(*k);
                (i < 200).then(|| patterned(100, i as u8))
            })
            .collect()
    };
    let txn = db.begin().unwrap();
    let mut batch = db.indexed_batch().unwrap();
    batch.writer().put(b"another key", b"x").unwrap();
    for keys in [&sorted, &reversed] {
        assert!(sorted.len() > 32, "beyond the inline batch too");
        assert_eq!(read_batch(db.reader(), keys), expect(keys));
        assert_eq!(read_batch(txn.reader(), keys), expect(keys));
        assert_eq!(read_batch(batch.reader(), keys), expect(keys));
    }
}

fn read_batch<S: pinrocks::read::ReadSource>(
    reader: Reader<'_, S>,
    keys: &[[u8; 4]],
) -> Vec<Option<Vec<u8>>> {
    let mut got = vec![None; keys.len()];
    reader
        .multi_get_pinned(keys, |i, v| got[i] = v.map(<[u8]>::to_vec))
        .unwrap();
    got
}

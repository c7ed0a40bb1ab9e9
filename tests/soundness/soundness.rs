//! Misuses that safe code can write, each once a way to read freed memory, race, or lose an
//! acknowledged write (issue 9). Each test is written as a user would write the misuse, and
//! asserts that it is now refused with an error (nothing written, nothing lost) or harmless.
//! The memory ones also run under valgrind memcheck (`scripts/memcheck.sh`).

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::common::{
    create_options, limit_address_space, open_db, patterned, run_child, test_path,
};
use pinrocks::{Db, Error, ErrorKind, Options, WriteBatch};

/// A column family "cached" with a block cache of its own (its options dropped, so the
/// family's table factory and cache are the family's alone), holding `value` at `k` in an
/// SST file: reads of `k` pin a block of that cache.
fn family_with_its_own_cache<'db>(db: &'db Db, value: &[u8]) -> pinrocks::ColumnFamily<'db> {
    let mut cf_options = Options::new();
    cf_options
        .block_cache_size(1 << 20)
        .block_cache_shard_bits(0);
    let cf = db.create_cf("cached", &cf_options).unwrap();
    drop(cf_options);
    cf.writer().put(b"k", value).unwrap();
    cf.flush().unwrap();
    cf
}

/// 1. `Bytes` from a column family with its own block cache, the `ColumnFamily` dropped,
///    the family dropped: the bytes live in a block of that cache, so the `Bytes` must keep
///    the column family (its table factory, its cache) alive.
#[test]
fn bytes_keep_their_column_family_and_its_block_cache_alive() {
    let (_dir, db) = open_db(&[]);
    let value = patterned(3000, 7);
    let cf = family_with_its_own_cache(&db, &value);
    let bytes = cf.reader().get_bytes(b"k").unwrap().unwrap();
    let clone = bytes.clone();
    drop(cf);
    db.drop_cf("cached").unwrap();
    // Reuse what the family freed, if it was freed.
    let churn: Vec<Vec<u8>> = (0..64).map(|i| vec![i as u8; 4096]).collect();
    assert_eq!(&bytes[..], &value[..]);
    drop(bytes);
    drop(churn);
    assert_eq!(&clone[..], &value[..]);
    drop(clone);
    // The database is still whole.
    db.put(b"after", b"ok").unwrap();
    assert_eq!(db.get(b"after").unwrap().as_deref(), Some(&b"ok"[..]));
}

/// The guard and the iterator borrow their column family, so the family cannot be dropped
/// from under them by safe code; a dropped family's data stays readable through them.
#[test]
fn guards_and_iterators_read_a_dropped_family_they_borrow() {
    let (_dir, db) = open_db(&[]);
    let value = patterned(3000, 9);
    let cf = family_with_its_own_cache(&db, &value);
    let reader = cf.reader();
    let guard = reader.pin(b"k").unwrap().unwrap();
    let mut it = reader.iter();
    it.seek_to_first();
    db.drop_cf("cached").unwrap();
    assert_eq!(&guard[..], &value[..]);
    assert_eq!(it.entry(), Some((&b"k"[..], &value[..])));
    it.next();
    assert_eq!(it.entry(), None);
    it.status().unwrap();
}

/// A key type whose `as_ref` answers an 8-byte slice the first time and a 64 KiB one after.
struct Fickle {
    calls: Cell<usize>,
    short: [u8; 8],
}

static LONG: [u8; 65536] = [b'x'; 65536];

impl AsRef<[u8]> for Fickle {
    fn as_ref(&self) -> &[u8] {
        let n = self.calls.get();
        self.calls.set(n + 1);
        if n == 0 {
            &self.short
        } else {
            &LONG
        }
    }
}

/// 2. A user's `AsRef` feeds a pointer and a length to RocksDB: it must be called once per
///    key, or the two can disagree.
#[test]
fn multi_get_calls_each_keys_as_ref_once() {
    let (_dir, db) = open_db(&[]);
    db.put(b"shortkey", b"found").unwrap();
    let keys: Vec<Fickle> = (0..4)
        .map(|_| Fickle {
            calls: Cell::new(0),
            short: *b"shortkey",
        })
        .collect();
    let mut seen = Vec::new();
    db.reader()
        .multi_get_pinned(&keys, |i, v| seen.push((i, v.map(<[u8]>::to_vec))))
        .unwrap();
    assert_eq!(
        seen,
        (0..4)
            .map(|i| (i, Some(b"found".to_vec())))
            .collect::<Vec<_>>()
    );
    for key in &keys {
        assert_eq!(key.calls.get(), 1);
    }
}

/// 4. The child: opens a database, caps its address space, and asks for a multi-get whose
///    native vectors cannot be allocated. `std::bad_alloc` must come back as an error.
#[test]
#[ignore = "run by multi_get_out_of_memory_is_an_error in a child process"]
fn out_of_memory_child() {
    let Ok(dir) = std::env::var("PINROCKS_OOM_DIR") else {
        return;
    };
    let db = Db::open(&create_options(), &dir).unwrap();
    db.put(b"k", b"v").unwrap();
    // Zero-sized keys: the slice of 12 million costs nothing on the Rust side but the keys'
    // own slices (16 bytes each); the native side needs about 130 bytes per key.
    #[derive(Clone, Copy)]
    struct K;
    impl AsRef<[u8]> for K {
        fn as_ref(&self) -> &[u8] {
            b"k"
        }
    }
    let keys = vec![K; 12_000_000];
    limit_address_space(800 << 20);
    let result = db.reader().multi_get_pinned(&keys, |_, _| {});
    match result {
        Err(Error::RocksDb { kind, message }) => println!("error {kind:?}: {message}"),
        other => println!("unexpected {:?}", other.map_err(|e| e.to_string())),
    }
}

/// 4. No C++ exception crosses into Rust: an allocation failure inside the native multi-get
///    is an error, and the process lives on.
#[test]
#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
fn multi_get_out_of_memory_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let (lived, stdout, status) = run_child(
        &test_path(module_path!(), "out_of_memory_child"),
        "PINROCKS_OOM_DIR",
        dir.path(),
    );
    assert!(lived, "the child died: {status}\n{stdout}");
    assert!(
        stdout.contains("error MemoryLimit: ") && stdout.contains("std::bad_alloc"),
        "{stdout}"
    );
}

/// 5. A batch naming a column family of a database that is closed since: every database
///    opened later (one of them perhaps at the freed address of the first) must refuse it.
#[test]
fn a_batch_of_a_closed_database_is_refused_by_the_next_ones() {
    let (_dir_a, a) = open_db(&["secret"]);
    let mut batch = WriteBatch::new();
    batch
        .writer()
        .cf(&a.cf("secret").unwrap())
        .put(b"leak", b"secret value")
        .unwrap();
    drop(a);
    let mut later = Vec::new();
    for _ in 0..40 {
        let (dir, b) = open_db(&["other"]);
        let result = b.write(&batch);
        assert!(
            matches!(result, Err(Error::ForeignColumnFamily { ref name }) if name == "secret"),
            "{result:?}"
        );
        assert_eq!(b.cf("other").unwrap().reader().get(b"leak").unwrap(), None);
        assert_eq!(b.get(b"leak").unwrap(), None);
        later.push((dir, b)); // kept open: each takes a new address
    }
}

/// 6. Nothing mutates through a read-only open, whatever RocksDB would allow: RocksDB's
///    read-only DB does not refuse `DropColumnFamily`.
#[test]
fn a_read_only_open_refuses_every_change() {
    let (dir, db) = open_db(&["keep"]);
    let keep = db.cf("keep").unwrap();
    keep.writer().put(b"k", b"v").unwrap();
    keep.flush().unwrap();
    drop(keep);
    {
        let ro = Db::open_read_only(&Options::new(), dir.path()).unwrap();
        let is_read_only = |r: pinrocks::Result<()>| matches!(r, Err(Error::ReadOnly { .. }));
        assert!(is_read_only(ro.drop_cf("keep")));
        assert!(matches!(
            ro.create_cf("new", &Options::new()),
            Err(Error::ReadOnly { .. })
        ));
        assert!(is_read_only(ro.put(b"x", b"y")));
        assert!(is_read_only(ro.delete(b"k")));
        assert!(is_read_only(ro.delete_range(b"a", b"z")));
        let mut batch = WriteBatch::new();
        batch.writer().put(b"x", b"y").unwrap();
        assert!(is_read_only(ro.write(&batch)));
        assert!(is_read_only(ro.flush()));
        assert!(is_read_only(ro.compact_range(None, None)));
        let cf = ro.cf("keep").unwrap();
        assert!(is_read_only(cf.writer().put(b"x", b"y")));
        assert!(is_read_only(cf.flush()));
        assert_eq!(cf.reader().get(b"k").unwrap().as_deref(), Some(&b"v"[..]));
    }
    drop(db);
    let db = Db::open(&Options::new(), dir.path()).unwrap();
    assert_eq!(db.cf_names(), ["default", "keep"]);
    let keep = db.cf("keep").unwrap();
    assert_eq!(keep.reader().get(b"k").unwrap().as_deref(), Some(&b"v"[..]));
}

fn is_dropped(result: pinrocks::Result<()>) -> bool {
    matches!(result, Err(Error::ColumnFamilyDropped { ref name }) if name == "doomed")
}

/// 7. A column family kept after `drop_cf`: writes to it are refused before they reach
///    RocksDB (which would take them into the WAL, fail them in the memtable, and then
///    refuse every later write), and the database goes on taking writes.
#[test]
fn writes_to_a_dropped_column_family_are_refused_and_harm_nothing() {
    let (dir, db) = open_db(&["doomed"]);
    let cf = db.cf("doomed").unwrap();
    cf.writer().put(b"before", b"1").unwrap();
    let table: pinrocks::Table<pinrocks::codec::Raw, pinrocks::codec::Raw> =
        pinrocks::Table::new(cf.clone());
    db.drop_cf("doomed").unwrap();

    assert!(is_dropped(cf.writer().put(b"k", b"v")));
    assert!(is_dropped(cf.writer().delete(b"k")));
    assert!(is_dropped(cf.writer().delete_range(b"a", b"z")));
    assert!(is_dropped(table.put(b"k", b"v")));
    let mut batch = WriteBatch::new();
    batch.writer().put(b"in batch", b"1").unwrap();
    batch.writer().cf(&cf).put(b"k", b"v").unwrap();
    assert!(is_dropped(db.write(&batch)));
    assert_eq!(
        db.get(b"in batch").unwrap(),
        None,
        "a refused batch writes nothing"
    );
    // Still readable through the handle kept.
    assert_eq!(
        cf.reader().get(b"before").unwrap().as_deref(),
        Some(&b"1"[..])
    );

    db.put(b"after", b"ok").unwrap();
    assert_eq!(db.get(b"after").unwrap().as_deref(), Some(&b"ok"[..]));
    drop((table, cf));
    drop(db);
    let db = Db::open(&Options::new(), dir.path()).unwrap();
    assert_eq!(db.cf_names(), ["default"]);
    assert_eq!(db.get(b"after").unwrap().as_deref(), Some(&b"ok"[..]));
}

/// 7. The same race as users meet it: writers of other families keep going while one
///    family is dropped under its own writer. Every acknowledged write is readable at once
///    and after reopen; the dropped family's writer gets `ColumnFamilyDropped`.
#[test]
fn dropping_a_family_under_concurrent_writers_loses_no_acknowledged_write() {
    let (dir, db) = open_db(&[]);
    let next = AtomicU64::new(0);
    let mut acked = Vec::new();
    for round in 0..20 {
        let name = format!("doomed{round}");
        let cf = db.create_cf(&name, &Options::new()).unwrap();
        let stop = AtomicBool::new(false);
        let doomed_writes = AtomicU64::new(0);
        let others_before = next.load(Ordering::Relaxed);
        let round_acked = std::thread::scope(|s| {
            let doomed_writer = s.spawn(|| {
                let mut i = 0u64;
                loop {
                    match cf.writer().put(&i.to_be_bytes(), b"x") {
                        Ok(()) => {
                            i += 1;
                            doomed_writes.store(i, Ordering::Relaxed);
                        }
                        Err(Error::ColumnFamilyDropped { name: n }) if n == name => return i,
                        Err(e) => panic!("{e}"),
                    }
                }
            });
            let writers: Vec<_> = (0..2)
                .map(|_| {
                    s.spawn(|| {
                        let mut mine = Vec::new();
                        while !stop.load(Ordering::Relaxed) {
                            let i = next.fetch_add(1, Ordering::Relaxed);
                            db.put(&i.to_be_bytes(), &i.to_le_bytes()).unwrap();
                            mine.push(i);
                        }
                        mine
                    })
                })
                .collect();
            // Drop the family while its writer is writing (whatever the machine's load):
            // once it has written, and while the others run.
            while doomed_writes.load(Ordering::Relaxed) < 10
                || next.load(Ordering::Relaxed) < others_before + 10
            {
                std::thread::yield_now();
            }
            db.drop_cf(&name).unwrap();
            std::thread::sleep(std::time::Duration::from_millis(2));
            stop.store(true, Ordering::Relaxed);
            assert!(doomed_writer.join().unwrap() >= 10);
            writers
                .into_iter()
                .flat_map(|w| w.join().unwrap())
                .collect::<Vec<_>>()
        });
        for &i in &round_acked {
            assert_eq!(
                db.get(&i.to_be_bytes()).unwrap(),
                Some(i.to_le_bytes().to_vec()),
                "acknowledged write {i} of round {round}"
            );
        }
        acked.extend(round_acked);
    }
    drop(db);
    let db = Db::open(&Options::new(), dir.path()).unwrap();
    for &i in &acked {
        assert_eq!(
            db.get(&i.to_be_bytes()).unwrap(),
            Some(i.to_le_bytes().to_vec())
        );
    }
}

/// A transaction's snapshot in the read options of another database is refused too.
#[test]
#[should_panic(expected = "snapshot of another database")]
fn a_transactions_snapshot_is_refused_by_another_database() {
    let dir = tempfile::tempdir().unwrap();
    let a = Db::open_optimistic_transaction_db(&create_options(), dir.path(), []).unwrap();
    let (_dir_b, b) = open_db(&[]);
    let mut txn = a.begin().unwrap();
    txn.set_snapshot().unwrap();
    let _ = b.reader().options(txn.snapshot_options()).get(b"k");
}

/// A snapshot of one database in the read options of another is refused, like a column
/// family of another database.
#[test]
#[should_panic(expected = "snapshot of another database")]
fn a_snapshot_of_another_database_is_refused() {
    let (_dir_a, a) = open_db(&[]);
    let (_dir_b, b) = open_db(&[]);
    let mut options = pinrocks::ReadOptions::new();
    options.snapshot(&a.snapshot());
    let _ = b.reader().options(&options).get(b"k");
}

/// Which public types cross threads (those not `Sync`: `compile_fail` doctests on them).
#[test]
fn send_and_sync_of_every_public_type() {
    use pinrocks::codec::Raw;
    fn send_sync<T: Send + Sync>() {}
    fn send<T: Send>() {}
    send_sync::<Db>();
    send_sync::<pinrocks::ColumnFamily<'static>>();
    send_sync::<pinrocks::Reader<'static>>();
    send_sync::<pinrocks::Writer<'static>>();
    send_sync::<Options>();
    send_sync::<pinrocks::ReadOptions>();
    send_sync::<pinrocks::WriteOptions>();
    send_sync::<pinrocks::Snapshot>();
    send_sync::<pinrocks::PinnedValue<'static>>();
    send_sync::<bytes::Bytes>();
    send_sync::<pinrocks::Table<'static, Raw, pinrocks::codec::Utf8>>();
    send_sync::<Error>();
    send_sync::<pinrocks::CopyResult>();
    send_sync::<pinrocks::callbacks::MergeOperator>();
    send_sync::<pinrocks::callbacks::CompactionFilterFactory>();
    send_sync::<pinrocks::callbacks::Comparator>();
    send_sync::<pinrocks::options::RateLimiter>();
    send_sync::<pinrocks::options::Statistics>();
    send_sync::<pinrocks::options::StoredOptions>();
    send_sync::<pinrocks::options::TransactionDbOptions>();
    send_sync::<pinrocks::options::TransactionOptions>();
    send_sync::<pinrocks::options::OptimisticTransactionOptions>();
    send::<pinrocks::Transaction<'static>>();
    send::<WriteBatch>();
    send::<pinrocks::Cursor<'static>>();
    send::<pinrocks::typed::TypedIter<'static, Raw, Raw>>();
    // Sources, targets and typed views: shared like the database, or moved with their owner.
    send_sync::<pinrocks::read::DbSource>();
    send_sync::<pinrocks::write::DbTarget<'static>>();
    send_sync::<pinrocks::typed::TypedReader<'static, Raw, Raw>>();
    send_sync::<pinrocks::typed::TypedWriter<'static, Raw, Raw>>();
    send::<pinrocks::Writer<'static, pinrocks::write::TransactionTarget<'static, 'static>>>();
    send::<pinrocks::Writer<'static, pinrocks::write::BatchTarget<'static>>>();
    send::<pinrocks::IndexedBatch<'static>>();
    send::<pinrocks::Writer<'static, pinrocks::write::IndexedBatchTarget<'static, 'static>>>();
    send::<pinrocks::admin::LoggedBatch>();
}

/// A setting that RocksDB drops without an error through the C API (an LRU cache of 20 or
/// more shard bits becomes a default cache) is refused at open.
#[test]
fn block_cache_shard_bits_rocksdb_would_ignore_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = create_options();
    options.block_cache_size(1 << 20).block_cache_shard_bits(20);
    let err = Db::open(&options, dir.path()).unwrap_err();
    assert!(
        matches!(err, Error::InvalidInput { what: "options", ref detail } if detail.contains("20")),
        "{err}"
    );
    let db = {
        let mut fine = create_options();
        fine.block_cache_size(1 << 20).block_cache_shard_bits(4);
        Db::open(&fine, dir.path()).unwrap()
    };
    assert!(db.create_cf("refused", &options).is_err());
    assert_eq!(db.cf_names(), ["default"]);
}

/// The default column family cannot be dropped; asking is an error that changes nothing.
#[test]
fn the_default_column_family_cannot_be_dropped() {
    let (_dir, db) = open_db(&[]);
    assert!(db.drop_cf("default").is_err());
    db.put(b"k", b"v").unwrap();
    assert_eq!(db.get(b"k").unwrap().as_deref(), Some(&b"v"[..]));
}

/// Read options holding a snapshot keep its database open (a snapshot must be released on
/// its own database before it closes): the lock stays held until the options drop.
#[test]
fn read_options_with_a_snapshot_keep_the_database_open() {
    let (dir, db) = open_db(&[]);
    db.put(b"k", b"before").unwrap();
    let mut options = pinrocks::ReadOptions::new();
    options.snapshot(&db.snapshot());
    db.put(b"k", b"after").unwrap();
    assert_eq!(
        db.reader().options(&options).get(b"k").unwrap().as_deref(),
        Some(&b"before"[..])
    );
    drop(db);
    let err = Db::open(&Options::new(), dir.path()).unwrap_err();
    assert_eq!(err.kind(), Some(ErrorKind::IoError), "{err}");
    drop(options);
    let db = Db::open(&Options::new(), dir.path()).unwrap();
    assert_eq!(db.get(b"k").unwrap().as_deref(), Some(&b"after"[..]));
}

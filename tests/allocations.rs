//! Heap allocations made on the Rust side per read, counted by a global allocator: zero
//! for the buffer tier and the one-call pinned path, one (the `Vec`) for the Vec tier, none
//! for records read in place through the record codecs.
//! C++-side allocations are measured separately (see docs/allocations.md).

mod common;
#[cfg(feature = "flatbuffers")]
#[path = "../examples/flat_records/order.rs"]
mod order;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

use bytes::BytesMut;
use common::{open_db, patterned};
use pinrocks::CopyResult;

struct Counting;

thread_local! {
    /// Counting the allocations of this thread, the one that reads: not those of other
    /// threads of the process (the test harness prints "has been running for over 60
    /// seconds" from its own thread, which under memcheck counted 2).
    static COUNTING: Cell<bool> = const { Cell::new(false) };
}
static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

/// Whether this thread is counting (false on a thread being torn down).
fn counting() -> bool {
    COUNTING.try_with(Cell::get).unwrap_or(false)
}

// SAFETY: forwards to the system allocator and only adds a counter.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if counting() {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: the caller's contract is passed on unchanged.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract is passed on unchanged.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if counting() {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: the caller's contract is passed on unchanged.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const READS: usize = 1000;

/// Rust-side allocations made by `READS` calls of `read`. One test thread only: the
/// counter is global, so the tests run in one test function.
fn count(mut read: impl FnMut()) -> usize {
    read(); // warm up: caches, lazily sized buffers
    ALLOCATIONS.store(0, Ordering::SeqCst);
    COUNTING.set(true);
    for _ in 0..READS {
        read();
    }
    COUNTING.set(false);
    ALLOCATIONS.load(Ordering::SeqCst)
}

#[test]
fn rust_side_allocations_per_read() {
    let (_dir, db) = open_db(&[]);
    for size in [8usize, 4096, 1 << 20] {
        let key = format!("k{size}").into_bytes();
        let value = patterned(size, 9);
        db.put(&key, &value).unwrap();
        db.flush().unwrap();
        let reader = db.reader();

        let mut buf = vec![0u8; size];
        assert_eq!(
            count(|| assert_eq!(
                reader.get_into(&key, &mut buf).unwrap(),
                CopyResult::Copied(size)
            )),
            0,
            "buffer tier, {size} B"
        );
        assert_eq!(buf, value);

        let mut grown = BytesMut::new();
        assert_eq!(
            count(|| assert!(reader.get_into_bytes(&key, &mut grown).unwrap())),
            0,
            "growing buffer tier after the first read, {size} B"
        );

        let mut sum = 0u64;
        let pinned = count(|| {
            sum += reader
                .get_pinned(&key, |v| v.iter().map(|&b| b as u64).sum::<u64>())
                .unwrap()
                .unwrap()
        });
        assert_eq!(pinned, 0, "one-call pinned path, {size} B");
        let expected: u64 = value.iter().map(|&b| b as u64).sum();
        assert_eq!(sum, expected * (READS as u64 + 1));

        assert_eq!(
            count(|| assert_eq!(reader.get(&key).unwrap().unwrap().len(), size)),
            READS,
            "Vec tier: exactly the Vec, {size} B"
        );
    }

    // Iteration: stepping over entries allocates nothing on the Rust side.
    let mut it = db.reader().iter();
    let mut total = 0usize;
    let stepped = count(|| {
        it.seek_to_first();
        while let Some((_, value)) = it.entry() {
            total += value.len();
            it.next();
        }
    });
    assert_eq!(stepped, 0, "iteration");

    // Multi-get: batches of up to 32 keys are described on the stack; larger ones take one
    // allocation per batch, for the key descriptions.
    let reader = db.reader();
    let sizes = [8usize, 4096, 1 << 20];
    let keys: Vec<Vec<u8>> = (0..33)
        .map(|i| format!("k{}", sizes[i % 3]).into_bytes())
        .collect();
    for (batch, expected) in [(1, 0), (32, 0), (33, READS)] {
        let mut seen = 0usize;
        let allocations = count(|| {
            reader
                .multi_get_pinned(&keys[..batch], |_, v| seen += v.map_or(0, <[u8]>::len))
                .unwrap()
        });
        assert_eq!(allocations, expected, "multi-get of {batch} keys");
        let per_batch: usize = (0..batch).map(|i| sizes[i % 3]).sum();
        assert_eq!(
            seen,
            per_batch * (READS + 1),
            "multi-get of {batch} keys read every value"
        );
    }
    assert_eq!(total, (8 + 4096 + (1 << 20)) * (READS + 1));
    drop(it);
    drop(db);
    transaction_reads();
    batch_reads();
    blob_reads();
    entity_reads();
    timestamp_reads();
    #[cfg(all(feature = "postcard", feature = "rkyv", feature = "flatbuffers"))]
    record_reads();
}

/// Reads as of a timestamp: the pinned tier, the one that hands over the version's
/// timestamp, and a cursor's timestamp allocate nothing on the Rust side. (Called from the
/// test above.)
fn timestamp_reads() {
    let dir = tempfile::tempdir().unwrap();
    let db = pinrocks::Db::open(&common::create_options(), dir.path()).unwrap();
    let mut versioned = common::create_options();
    versioned.u64_timestamps();
    let cf = db.create_cf("versions", &versioned).unwrap();
    cf.writer().at(10).put(b"k", &patterned(4096, 3)).unwrap();
    cf.writer().at(20).put(b"k", &patterned(100, 4)).unwrap();
    cf.flush().unwrap();
    let mut options = pinrocks::ReadOptions::new();
    options.timestamp(15);
    let reader = cf.reader().options(&options);
    let mut seen = (0, 0);
    let pinned = count(|| seen.0 = reader.get_pinned(b"k", |v| v.len()).unwrap().unwrap());
    let with_ts = count(|| {
        seen = reader
            .get_with_timestamp(b"k", |v, ts| (v.len(), ts as usize))
            .unwrap()
            .unwrap()
    });
    assert_eq!(
        (pinned, with_ts, seen),
        (0, 0, (4096, 10)),
        "reads at a timestamp"
    );
    let mut it = reader.iter();
    it.seek(b"k");
    let mut ts = 0;
    let from_cursor = count(|| ts = it.timestamp().unwrap());
    assert_eq!((from_cursor, ts), (0, 10), "cursor timestamp");
}

/// A wide-column entity read in the closure tier and its columns from a cursor: the columns
/// are RocksDB's, borrowed, so the Rust side allocates nothing. (Called from the test above.)
fn entity_reads() {
    let dir = tempfile::tempdir().unwrap();
    let db = pinrocks::Db::open(&common::create_options(), dir.path()).unwrap();
    let columns = [("", patterned(100, 1)), ("name", patterned(4096, 2))];
    db.writer().put_entity(b"entity", &columns).unwrap();
    db.flush().unwrap();
    let reader = db.reader();
    let mut total = 0;
    let read = count(|| {
        total = reader
            .get_entity(b"entity", |c| {
                c.iter().map(|(n, v)| n.len() + v.len()).sum::<usize>()
            })
            .unwrap()
            .unwrap()
    });
    assert_eq!((read, total), (0, 100 + 4 + 4096), "entity read");
    let mut it = reader.iter();
    it.seek(b"entity");
    let mut name = 0;
    let from_cursor = count(|| name = it.columns().unwrap().get(b"name").unwrap().len());
    assert_eq!((from_cursor, name), (0, 4096), "cursor columns");
}

/// Values in blob files, with a blob cache and without: the pinned and buffer tiers
/// allocate nothing on the Rust side; the C++ side is counted by the sweep
/// (`blob-allocations.md`). (Called from the test above: the counter is global.)
fn blob_reads() {
    // One shard, so the 1 MiB blob stays cached: the cached case reads hits.
    for cache in [
        None,
        Some(pinrocks::options::Cache::lru_sharded(16 << 20, 0).unwrap()),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let mut options = common::create_options();
        options.enable_blob_files(true).min_blob_size(1024);
        if let Some(cache) = &cache {
            options.blob_cache(cache);
        }
        let db = pinrocks::Db::open(&options, dir.path()).unwrap();
        let value = patterned(1 << 20, 7);
        db.put(b"blob", &value).unwrap();
        db.flush().unwrap();
        let reader = db.reader();
        reader.get_pinned(b"blob", |_| ()).unwrap().unwrap(); // into the blob cache, if any
        let context = if cache.is_some() {
            "blob cache"
        } else {
            "blob file"
        };
        let mut len = 0;
        let pinned = count(|| len = reader.get_pinned(b"blob", <[u8]>::len).unwrap().unwrap());
        assert_eq!((pinned, len), (0, value.len()), "pinned, {context}");
        let mut buf = vec![0u8; value.len()];
        let copied = count(|| {
            assert_eq!(
                reader.get_into(b"blob", &mut buf).unwrap(),
                CopyResult::Copied(value.len())
            )
        });
        assert_eq!(copied, 0, "buffer, {context}");
        assert_eq!(buf, value, "{context}");
    }
}

/// Through a transaction: the one-call pinned read and read for update, and the buffer
/// tier, allocate nothing on the Rust side either, from the database and from the
/// transaction's own writes. (Called from the test above: the counter is global.)
fn transaction_reads() {
    let dir = tempfile::tempdir().unwrap();
    let options = common::create_options();
    let db = pinrocks::Db::open_transaction_db(
        &options,
        &pinrocks::options::TransactionDbOptions::new(),
        dir.path(),
        [],
    )
    .unwrap();
    db.put(b"stored", &patterned(4096, 3)).unwrap();
    db.flush().unwrap();
    let mut txn = db.begin().unwrap();
    txn.writer().put(b"own", &patterned(4096, 4)).unwrap();
    let mut buf = vec![0u8; 4096];
    for key in [&b"stored"[..], b"own"] {
        let reader = txn.reader();
        let mut len = 0;
        assert_eq!(
            count(|| len += reader.get_pinned(key, |v| v.len()).unwrap().unwrap()),
            0,
            "transaction pinned read of {key:?}"
        );
        assert_eq!(len, 4096 * (READS + 1));
        assert_eq!(
            count(|| assert_eq!(
                reader.get_into(key, &mut buf).unwrap(),
                CopyResult::Copied(4096)
            )),
            0,
            "transaction buffer read of {key:?}"
        );
    }
    let for_update = txn.reader_for_update(pinrocks::write::Lock::Exclusive);
    for key in [&b"stored"[..], b"own"] {
        // The first read locks the key (RocksDB tracks it); the repeats allocate nothing.
        assert_eq!(
            count(|| assert_eq!(for_update.get_pinned(key, |v| v.len()).unwrap(), Some(4096))),
            0,
            "transaction read for update of {key:?}"
        );
    }
}

/// Through an indexed batch, over the database and alone: the one-call pinned read, the
/// buffer tier and the pinned multi-get allocate nothing on the Rust side, for a value in
/// the batch and one in the database. (Called from the test above.)
fn batch_reads() {
    let (_dir, db) = open_db(&[]);
    db.put(b"stored", &patterned(4096, 3)).unwrap();
    db.flush().unwrap();
    let mut batch = db.indexed_batch().unwrap();
    batch.writer().put(b"own", &patterned(4096, 4)).unwrap();
    let mut buf = vec![0u8; 4096];
    for (reader, keys) in [
        (batch.reader(), &[&b"stored"[..], b"own"][..]),
        (batch.batch_reader(), &[&b"own"[..]][..]),
    ] {
        for &key in keys {
            let mut len = 0;
            assert_eq!(
                count(|| len += reader.get_pinned(key, |v| v.len()).unwrap().unwrap()),
                0,
                "batch pinned read of {key:?}"
            );
            assert_eq!(len, 4096 * (READS + 1));
            assert_eq!(
                count(|| assert_eq!(
                    reader.get_into(key, &mut buf).unwrap(),
                    CopyResult::Copied(4096)
                )),
                0,
                "batch buffer read of {key:?}"
            );
        }
        let mut total = 0;
        assert_eq!(
            count(|| reader
                .multi_get_pinned(keys, |_, v| total += v.map_or(0, <[u8]>::len))
                .unwrap()),
            0,
            "batch multi-get"
        );
        assert_eq!(total, 4096 * keys.len() * (READS + 1));
    }
}

/// Records read through the record codecs, from an SST block: what the Rust side allocates
/// per read. A postcard record's borrowed fields and an rkyv archive (read in place, or on
/// the thread's reused aligned copy) and a FlatBuffers table (the verifier, then offsets)
/// allocate nothing; a postcard `Vec` field is its one allocation. (Called from the test
/// above.)
#[cfg(all(feature = "postcard", feature = "rkyv", feature = "flatbuffers"))]
fn record_reads() {
    use order::{Order, OrderArgs};
    use pinrocks::codec::{BigEndian, Flat, Postcard, Record, Rkyv};
    use pinrocks::Table;

    #[derive(serde::Serialize, serde::Deserialize)]
    struct Borrowed<'a> {
        id: u64,
        name: &'a str,
        tag: &'a [u8],
        lines: Vec<u32>,
    }
    impl Record for Borrowed<'static> {
        type Of<'a> = Borrowed<'a>;
    }
    #[derive(rkyv::Archive, rkyv::Serialize, rkyv::Deserialize)]
    struct Account {
        id: u64,
        name: String,
        lines: Vec<u32>,
    }

    let (_dir, db) = open_db(&["postcard", "rkyv", "flat"]);
    let postcard: Table<BigEndian<u8>, Postcard<Borrowed<'static>>> =
        Table::new(db.cf("postcard").unwrap());
    let name = "x".repeat(300);
    for (key, lines) in [(0u8, vec![]), (1, vec![7u32; 40])] {
        let record = Borrowed {
            id: 5,
            name: &name,
            tag: b"tag",
            lines,
        };
        postcard.put(&key, &record).unwrap();
    }
    let archived: Table<BigEndian<u8>, Rkyv<Account>> = Table::new(db.cf("rkyv").unwrap());
    for key in 0..8u8 {
        let value = Account {
            id: key.into(),
            name: name.clone(),
            lines: vec![9; 40],
        };
        archived.put(&key, &value).unwrap();
    }
    let flat: Table<BigEndian<u8>, Flat<Order<'static>>> = Table::new(db.cf("flat").unwrap());
    let mut builder = flatbuffers::FlatBufferBuilder::new();
    let customer = builder.create_string(&name);
    let order = Order::create(
        &mut builder,
        &OrderArgs {
            id: 3,
            customer: Some(customer),
            ..Default::default()
        },
    );
    builder.finish(order, None);
    flat.put(&0, builder.finished_data()).unwrap();
    for family in ["postcard", "rkyv", "flat"] {
        db.cf(family).unwrap().flush().unwrap();
    }

    let mut seen = 0usize;
    let no_vec = count(|| {
        seen += postcard
            .get(&0, |r| r.name.len() + r.tag.len())
            .unwrap()
            .unwrap()
    });
    let one_vec = count(|| seen += postcard.get(&1, |r| r.lines.len()).unwrap().unwrap());
    let before = pinrocks::codec::realigned_copies();
    let rkyv_reads = count(|| {
        for key in 0..8u8 {
            seen += archived
                .get(&key, |a| a.name.len() + a.lines.len())
                .unwrap()
                .unwrap();
        }
    });
    let copied = pinrocks::codec::realigned_copies() - before;
    let flat_reads = count(|| {
        seen += flat
            .get(&0, |o| o.customer().unwrap().len())
            .unwrap()
            .unwrap()
    });
    assert_eq!(
        (no_vec, one_vec, rkyv_reads, flat_reads),
        (0, READS, 0, 0),
        "postcard borrowed, postcard with a Vec, rkyv ({copied} aligned copies), flatbuffers"
    );
    assert_eq!(seen, (303 + 40 + 8 * 340 + 300) * (READS + 1));
}

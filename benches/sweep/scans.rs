//! Scans: one iterator step (and its entry's key and value, lengths only) through each way
//! of iterating, forward and backward, over 8 B to 64 KB values, in a block cache that
//! holds them all and with no block cache (each block from the OS page cache). Timed paired
//! and interleaved (`paired.rs`): a "read" is one step. Every way runs on a long-lived
//! iterator and, at the end of the data, goes back to the first entry (the last, backward),
//! so the rare seek is amortized alike over the database's thousands of entries.
//!
//! Ways: pinrocks' [`Cursor`](pinrocks::Cursor), its std-`Iterator` scan
//! ([`Reader::scan`](pinrocks::Reader::scan), made anew at each end) and the typed scan
//! (`Raw` codecs); the C API's iterator called directly; a C++ loop over `rocksdb::Iterator`
//! (`rocksdb-c-dev/bench_floor.cc`, one step per call, so its one FFI call per step is the floor's
//! only binding cost); the `rocksdb` crate's raw iterator and its std iterator (which boxes
//! every key and value).
//!
//! `sweep scans [--quick]`: a markdown table per regime and direction.

use std::time::Duration;

use pinrocks::codec::Raw;
use pinrocks::{ffi, Db};

use crate::paired::{self, Ratio, Read};
use crate::tiers;

pub const SIZES: [usize; 5] = [8, 128, 1024, 4096, 65536];
const WAYS: [&str; 7] = [
    "cursor",
    "scan",
    "typed scan",
    "C API",
    "C++ loop",
    "rocksdb raw",
    "rocksdb iter",
];

unsafe extern "C" {
    /// `rocksdb-c-dev/bench_floor.cc`.
    fn pinrocks_bench_iter_steps(
        iter: *mut ffi::rocksdb_iterator_t,
        steps: usize,
        backward: i32,
    ) -> u64;
}

/// A C API iterator the bench owns: destroyed on drop, before its database.
struct RawIter(*mut ffi::rocksdb_iterator_t);

impl RawIter {
    fn new(db: &Db, backward: bool) -> RawIter {
        let (raw_db, raw_options) = db.as_raw();
        // SAFETY: live handles from `Db::as_raw`; the iterator is destroyed before `db`
        // (it is dropped within the borrow of `db`).
        let it = unsafe { ffi::rocksdb_create_iterator(raw_db, raw_options) };
        assert!(!it.is_null());
        // SAFETY: a live iterator.
        unsafe {
            if backward {
                ffi::rocksdb_iter_seek_to_last(it)
            } else {
                ffi::rocksdb_iter_seek_to_first(it)
            }
        };
        RawIter(it)
    }

    /// One step through the C API, as a binding without a safe layer makes it.
    fn step(&mut self, backward: bool) -> u64 {
        let it = self.0;
        let (mut klen, mut vlen) = (0usize, 0usize);
        // SAFETY: a live, positioned iterator; key and value are read while it stays put.
        unsafe {
            if backward {
                ffi::rocksdb_iter_prev(it);
                if ffi::rocksdb_iter_valid(it) == 0 {
                    ffi::rocksdb_iter_seek_to_last(it);
                    assert!(ffi::rocksdb_iter_valid(it) != 0, "an empty database");
                }
            } else {
                ffi::rocksdb_iter_next(it);
                if ffi::rocksdb_iter_valid(it) == 0 {
                    ffi::rocksdb_iter_seek_to_first(it);
                    assert!(ffi::rocksdb_iter_valid(it) != 0, "an empty database");
                }
            }
            let k = ffi::rocksdb_iter_key(it, &mut klen);
            let v = ffi::rocksdb_iter_value(it, &mut vlen);
            std::hint::black_box((k, v));
        }
        (klen + vlen) as u64
    }

    /// One step in C++ (`pinrocks_bench_iter_steps`).
    fn cpp_step(&mut self, backward: bool) -> u64 {
        // SAFETY: a live, positioned iterator.
        unsafe { pinrocks_bench_iter_steps(self.0, 1, backward as i32) }
    }
}

impl Drop for RawIter {
    fn drop(&mut self) {
        // SAFETY: ours, destroyed once.
        unsafe { ffi::rocksdb_iter_destroy(self.0) };
    }
}

fn entry_len(k: &[u8], v: &[u8]) -> u64 {
    (k.len() + v.len()) as u64
}

/// One step of a std iterator over entries per call, made anew by `make` at its end.
fn steps_of<'a, I>(make: impl Fn() -> I + 'a) -> tiers::ReadFn<'a>
where
    I: Iterator<Item = pinrocks::Result<u64>> + 'a,
{
    let mut it = make();
    Box::new(move |_| {
        it.next()
            .unwrap_or_else(|| {
                it = make();
                it.next().unwrap()
            })
            .unwrap()
    })
}

/// Times every way over `db` and `peer` (holding the same entries) in one direction.
fn measure(
    db: &Db,
    peer: &rocksdb::DB,
    backward: bool,
    rounds: usize,
    slice: Duration,
) -> paired::Rounds {
    let reader = db.reader();
    let mut cursor = reader.iter();
    if backward {
        cursor.seek_to_last()
    } else {
        cursor.seek_to_first()
    }
    let mut cursor_step = |_: &[u8]| {
        if backward {
            cursor.prev();
        } else {
            cursor.next();
        }
        if let Some((k, v)) = cursor.entry() {
            return entry_len(k, v);
        }
        if backward {
            cursor.seek_to_last();
        } else {
            cursor.seek_to_first();
        }
        let (k, v) = cursor.entry().unwrap();
        entry_len(k, v)
    };
    let new_scan = || {
        if backward {
            reader.scan_rev(.., entry_len)
        } else {
            reader.scan(.., entry_len)
        }
    };
    let mut scan = new_scan();
    let mut scan_step = |_: &[u8]| {
        scan.next()
            .unwrap_or_else(|| {
                scan = new_scan();
                scan.next().unwrap()
            })
            .unwrap()
    };
    let typed = reader.typed::<Raw, Raw>();
    let mut typed_step = if backward {
        steps_of(|| typed.scan_rev(.., entry_len).unwrap())
    } else {
        steps_of(|| typed.scan(.., entry_len).unwrap())
    };
    let mut c_api = RawIter::new(db, backward);
    let mut c_step = |_: &[u8]| c_api.step(backward);
    let mut cpp = RawIter::new(db, backward);
    let mut cpp_step = |_: &[u8]| cpp.cpp_step(backward);
    let mut peer_raw = peer.raw_iterator();
    if backward {
        peer_raw.seek_to_last()
    } else {
        peer_raw.seek_to_first()
    }
    let mut peer_raw_step = |_: &[u8]| {
        if backward {
            peer_raw.prev();
            if !peer_raw.valid() {
                peer_raw.seek_to_last();
            }
        } else {
            peer_raw.next();
            if !peer_raw.valid() {
                peer_raw.seek_to_first();
            }
        }
        let (k, v) = peer_raw.item().unwrap();
        entry_len(k, v)
    };
    let mode = || {
        if backward {
            rocksdb::IteratorMode::End
        } else {
            rocksdb::IteratorMode::Start
        }
    };
    let mut peer_iter = peer.iterator(mode());
    let mut peer_iter_step = |_: &[u8]| {
        let (k, v) = peer_iter
            .next()
            .unwrap_or_else(|| {
                peer_iter.set_mode(mode());
                peer_iter.next().unwrap()
            })
            .unwrap();
        entry_len(&k, &v)
    };
    let mut ways: [Read<'_>; 7] = [
        &mut cursor_step,
        &mut scan_step,
        &mut *typed_step,
        &mut c_step,
        &mut cpp_step,
        &mut peer_raw_step,
        &mut peer_iter_step,
    ];
    // Every way sees entries of the same length (the keys are all as long).
    let one = (tiers::key(0).len() + db.get(&tiers::key(0)).unwrap().unwrap().len()) as u64;
    for read in ways.iter_mut() {
        assert_eq!(read(b""), one);
    }
    // The keys only set how often `run` moves to the next one: the steps ignore them.
    let keys = [Vec::new()];
    paired::run(&mut ways, &keys, rounds, slice).0
}

fn table(
    regime: &str,
    backward: bool,
    rows: &[(usize, paired::Rounds)],
    rounds: usize,
    slice: Duration,
) {
    let direction = if backward { "backward" } else { "forward" };
    println!("#### {regime}, {direction}\n");
    println!(
        "| size | cursor | C++ loop | entries/s, cursor | cursor vs C++ loop | cursor vs C API | cursor vs rocksdb raw | scan vs cursor | typed scan vs cursor | cursor vs rocksdb iter |"
    );
    println!("|---|---:|---:|---:|---|---|---|---|---|---|");
    for (size, r) in rows {
        let ns = |i: usize| paired::median(&mut r.ns[i].clone());
        println!(
            "| {size} B | {:.1} ns | {:.1} ns | {:.1} M | {} | {} | {} | {} | {} | {} |",
            ns(0),
            ns(4),
            1e3 / ns(0),
            Ratio::of(&r.ns[4], &r.ns[0]).cell(),
            Ratio::of(&r.ns[3], &r.ns[0]).cell(),
            Ratio::of(&r.ns[5], &r.ns[0]).cell(),
            Ratio::of(&r.ns[0], &r.ns[1]).cell(),
            Ratio::of(&r.ns[0], &r.ns[2]).cell(),
            Ratio::of(&r.ns[6], &r.ns[0]).cell(),
        );
    }
    println!(
        "{}",
        paired::footnote(rounds, slice, &WAYS, "a read is one step and its entry")
    );
}

pub fn main(quick: bool) {
    let (rounds, slice, sizes) = if quick {
        (2, Duration::from_millis(1), vec![8, 4096])
    } else {
        (28, Duration::from_millis(8), SIZES.to_vec())
    };
    let mut cached = [Vec::new(), Vec::new()];
    let mut uncached = [Vec::new(), Vec::new()];
    for &size in crate::progress::steps("scans", sizes.iter()) {
        let count = if quick {
            tiers::key_count(size).min(64)
        } else {
            tiers::key_count(size)
        };
        let (ours_dir, peer_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        {
            let db = tiers::open_pinrocks(ours_dir.path(), tiers::Regime::BlockCache, size, count);
            let peer = tiers::open_peer(peer_dir.path(), tiers::Regime::BlockCache, size, count);
            for (back, rows) in cached.iter_mut().enumerate() {
                rows.push((size, measure(&db, &peer, back == 1, rounds, slice)));
            }
        }
        let (options, peer_options) = tiers::uncached_options();
        let db = Db::open(&options, ours_dir.path()).unwrap();
        let peer = rocksdb::DB::open(&peer_options, peer_dir.path()).unwrap();
        for (back, rows) in uncached.iter_mut().enumerate() {
            rows.push((size, measure(&db, &peer, back == 1, rounds, slice)));
        }
        eprintln!("sweep: scans {size} B done");
    }
    for (regime, rows) in [
        ("Block cache", &cached),
        ("No block cache (page cache)", &uncached),
    ] {
        for (back, rows) in rows.iter().enumerate() {
            table(regime, back == 1, rows, rounds, slice);
        }
    }
}

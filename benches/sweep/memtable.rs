//! Large values still in the memtable: `DB::Get` copies them (`MemTable::Get` assigns the
//! value to the PinnableSlice's own string), so a pinned read of a 1 MB memtable value costs
//! a 1 MB copy where one from the block cache costs none. Two public C++ routes return the
//! memtable's own bytes instead, timed here against the pinned read, paired and interleaved
//! (`paired.rs`), in the memtable and, for what each costs where `Get` already pins, from
//! the block cache:
//! * `DB::GetMergeOperands` limited to one operand (`rocksdb-c-dev/bench_floor.cc`; not in the C
//!   API): a Put's value is its one operand, pinned in place from 32 KiB on (RocksDB's
//!   `ShouldReferenceSuperVersion` threshold), copied below;
//! * an iterator kept for the run, refreshed, sought to the key and checked
//!   ([`Cursor`](pinrocks::Cursor)): `value()` points into the arena.
//!
//! `sweep memtable [--quick]`: a markdown table per regime.

use std::ffi::{c_char, c_void};
use std::time::Duration;

use pinrocks::{ffi, Db};

use crate::paired::{self, Ratio, Read};
use crate::tiers::{self, Consumer, Regime, Tier};

pub const SIZES: [usize; 6] = [4096, 16384, 32768, 65536, 262_144, 1 << 20];
const WAYS: [&str; 3] = ["pinned", "operand pin", "cursor seek"];

type ValueFn = extern "C" fn(*mut c_void, *const c_char, usize);

unsafe extern "C" {
    /// `rocksdb-c-dev/bench_floor.cc`.
    fn pinrocks_bench_get_operand_pinned(
        db: *mut ffi::rocksdb_t,
        options: *const ffi::rocksdb_readoptions_t,
        key: *const c_char,
        keylen: usize,
        f: ValueFn,
        ctx: *mut c_void,
    ) -> i32;
}

extern "C" fn value_len(ctx: *mut c_void, _data: *const c_char, len: usize) {
    // SAFETY: `ctx` is the `u64` `operand_pin` passes, live for the call.
    unsafe { *ctx.cast::<u64>() = len as u64 };
}

/// The value's length through `GetMergeOperands`, and whether RocksDB pinned it.
fn operand_pin(db: &Db, key: &[u8]) -> (u64, bool) {
    let (raw_db, raw_options) = db.as_raw();
    let mut len = 0u64;
    // SAFETY: live handles from `Db::as_raw`; `key` and `len` are borrowed for the call.
    let found = unsafe {
        pinrocks_bench_get_operand_pinned(
            raw_db,
            raw_options,
            key.as_ptr().cast(),
            key.len(),
            value_len,
            (&mut len as *mut u64).cast(),
        )
    };
    assert!(found > 0, "GetMergeOperands answered {found}");
    (len, found == 2)
}

struct Row {
    size: usize,
    pinned_in_place: bool,
    rounds: paired::Rounds,
}

fn measure(db: &Db, size: usize, keys: &[Vec<u8>], rounds: usize, slice: Duration) -> Row {
    let mut pinned = tiers::pinrocks_tier(db, Tier::Pinned, size, Consumer::Len);
    let mut operand = |k: &[u8]| operand_pin(db, k).0;
    let mut cursor = db.reader().iter();
    let mut seek = |k: &[u8]| {
        // A lookup sees the database as it is now: the refresh is cheap while nothing was
        // written (RocksDB only moves the sequence number), a rebuild after a flush.
        cursor.refresh().unwrap();
        cursor.seek(k);
        match cursor.entry() {
            Some((key, value)) if key == k => value.len() as u64,
            other => panic!("no entry at the key: {other:?}"),
        }
    };
    let mut ways: [Read<'_>; 3] = [&mut *pinned, &mut operand, &mut seek];
    for read in ways.iter_mut() {
        assert_eq!(read(&keys[0]), size as u64);
    }
    let pinned_in_place = operand_pin(db, &keys[0]).1;
    let (rounds, _) = paired::run(&mut ways, keys, rounds, slice);
    Row {
        size,
        pinned_in_place,
        rounds,
    }
}

fn table(title: &str, rows: &[Row], rounds: usize, slice: Duration) {
    println!("#### {title}\n");
    println!(
        "| size | pinned | operand pin | cursor seek | operand pinned in place | operand pin vs pinned | cursor seek vs pinned |"
    );
    println!("|---|---:|---:|---:|---|---|---|");
    for row in rows {
        let r = &row.rounds;
        let ns = |i: usize| paired::median(&mut r.ns[i].clone());
        println!(
            "| {} KiB | {:.2} µs | {:.2} µs | {:.2} µs | {} | {} | {} |",
            row.size / 1024,
            ns(0) / 1e3,
            ns(1) / 1e3,
            ns(2) / 1e3,
            if row.pinned_in_place {
                "yes"
            } else {
                "no (copied)"
            },
            Ratio::of(&r.ns[0], &r.ns[1]).cell(),
            Ratio::of(&r.ns[0], &r.ns[2]).cell(),
        );
    }
    println!(
        "{}",
        paired::footnote(rounds, slice, &WAYS, "the consumer reads the length")
    );
}

pub fn main(quick: bool) {
    let (rounds, slice, sizes) = if quick {
        (2, Duration::from_millis(1), vec![4096, 65536])
    } else {
        (24, Duration::from_millis(8), SIZES.to_vec())
    };
    let (mut memtable, mut cached) = (Vec::new(), Vec::new());
    for size in crate::progress::steps("memtable", sizes.into_iter()) {
        let count = if quick { 16 } else { tiers::key_count(size) };
        let keys = tiers::random_keys(count);
        let dir = tempfile::tempdir().unwrap();
        let db = tiers::open_pinrocks(dir.path(), Regime::Memtable, size, count);
        memtable.push(measure(&db, size, &keys, rounds, slice));
        tiers::settle_pinrocks(&db, count);
        cached.push(measure(&db, size, &keys, rounds, slice));
        eprintln!("sweep: memtable {size} B done");
    }
    table("Values in the memtable", &memtable, rounds, slice);
    table(
        "The same values flushed, from the block cache",
        &cached,
        rounds,
        slice,
    );
}

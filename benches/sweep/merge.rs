//! Reads of merged keys: a `u64` counter with 1, 10 or 100 operands pending in the memtable
//! over a base value, read through pinrocks (its merge operator, `MergeOperator::fold`, and
//! the pinned and Vec tiers) and through the `rocksdb` crate (its associative merge operator,
//! `get_pinned` and `get`), both on the same RocksDB build. Every read merges.
//!
//! * `sweep merge [--quick]`: paired, interleaved timing (`paired.rs`), a markdown table.
//! * `sweep merge-per-read <ours|peer> <operands> <reads>`: reads for valgrind's counts
//!   (`scripts/count-merge-reads.sh`).

use std::time::Duration;

use pinrocks::callbacks::MergeOperator;
use pinrocks::codec::BigEndian;
use pinrocks::Db;

use crate::callgrind::counted;
use crate::paired::{self, Ratio};
use crate::tiers;

/// Operands pending per key in the report.
pub const OPERANDS: [usize; 3] = [1, 10, 100];
/// Keys per database (every read merges one of them).
const KEYS: usize = 256;

fn base(i: usize) -> u64 {
    i as u64 * 1000
}

/// What a key reads as: its base plus operands 1, 2, ..., n.
fn expected(i: usize, operands: usize) -> u64 {
    base(i) + (operands * (operands + 1) / 2) as u64
}

pub fn open_ours(dir: &std::path::Path, operands: usize) -> Db {
    let mut options = tiers::pinrocks_options();
    options.merge_operator(&MergeOperator::fold::<BigEndian<u64>>("add", |a, b| {
        a.wrapping_add(b)
    }));
    let db = Db::open(&options, dir).unwrap();
    for i in 0..KEYS {
        db.put(&tiers::key(i), &base(i).to_be_bytes()).unwrap();
        for n in 1..=operands {
            db.merge(&tiers::key(i), &(n as u64).to_be_bytes()).unwrap();
        }
    }
    db
}

fn add(_key: &[u8], existing: Option<&[u8]>, operands: &rocksdb::MergeOperands) -> Option<Vec<u8>> {
    let decode = |b: &[u8]| u64::from_be_bytes(b.try_into().unwrap());
    let sum = operands
        .into_iter()
        .map(decode)
        .fold(existing.map_or(0, decode), u64::wrapping_add);
    Some(sum.to_be_bytes().to_vec())
}

pub fn open_peer(dir: &std::path::Path, operands: usize) -> rocksdb::DB {
    let mut options = tiers::peer_options();
    options.set_merge_operator_associative("add", add);
    let db = rocksdb::DB::open(&options, dir).unwrap();
    for i in 0..KEYS {
        db.put(tiers::key(i), base(i).to_be_bytes()).unwrap();
        for n in 1..=operands {
            db.merge(tiers::key(i), (n as u64).to_be_bytes()).unwrap();
        }
    }
    db
}

fn decode(value: &[u8]) -> u64 {
    u64::from_be_bytes(value.try_into().expect("an 8-byte counter"))
}

/// The four ways of reading, in report order.
const READS: [&str; 4] = ["pinned", "vec", "rocksdb_get_pinned", "rocksdb_get"];

pub fn main(quick: bool) {
    let (rounds, slice) = if quick {
        (4, Duration::from_millis(2))
    } else {
        (32, Duration::from_millis(19)) // whole cycles of the balanced order for 4 reads
    };
    let keys = tiers::random_keys(KEYS);
    println!(
        "| operands | pinned ns/read | rocksdb `get_pinned` ns/read | rocksdb `get_pinned` / pinned | rocksdb `get` / Vec | Vec / pinned |"
    );
    println!("|---:|---:|---:|---|---|---|");
    for operands in crate::progress::steps("merge", OPERANDS.into_iter()) {
        let (ours_dir, peer_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let db = open_ours(ours_dir.path(), operands);
        let peer = open_peer(peer_dir.path(), operands);
        let reader = db.reader();
        let mut pinned = |k: &[u8]| reader.get_pinned(k, decode).unwrap().unwrap();
        let mut vec = |k: &[u8]| decode(&reader.get(k).unwrap().unwrap());
        let mut peer_pinned = |k: &[u8]| decode(&peer.get_pinned(k).unwrap().unwrap());
        let mut peer_get = |k: &[u8]| decode(&peer.get(k).unwrap().unwrap());
        // Every way reads the same values: check once per key before timing.
        for i in 0..KEYS {
            let want = expected(i, operands);
            for read in [
                &mut pinned as paired::Read<'_>,
                &mut vec,
                &mut peer_pinned,
                &mut peer_get,
            ] {
                assert_eq!(read(&tiers::key(i)), want);
            }
        }
        let (r, _) = paired::run(
            &mut [&mut pinned, &mut vec, &mut peer_pinned, &mut peer_get],
            &keys,
            rounds,
            slice,
        );
        let ns = |i: usize| paired::median(&mut r.ns[i].clone());
        let vs_peer = Ratio::of(&r.ns[2], &r.ns[0]);
        assert_eq!(vs_peer.rounds, rounds);
        println!(
            "| {operands} | {:.0} | {:.0} | {} | {} | {} |",
            ns(0),
            ns(2),
            vs_peer.cell(),
            Ratio::of(&r.ns[3], &r.ns[1]).cell(),
            Ratio::of(&r.ns[1], &r.ns[0]).cell(),
        );
    }
    println!(
        "\n{rounds} rounds of {} ms per way of reading ({READS:?}), interleaved, in a balanced \
         order (Williams); ratios: median of per-round ratios [95% bootstrap interval] (first half / second \
         half); `~`: the interval includes 1.",
        slice.as_millis()
    );
}

pub fn per_read(side: &str, operands: usize, reads: usize) {
    let dir = tempfile::tempdir().unwrap();
    let keys: Vec<Vec<u8>> = (0..KEYS).map(tiers::key).collect();
    let total: u64 = match side {
        "ours" => {
            let db = open_ours(dir.path(), operands);
            let reader = db.reader();
            counted(reads, |i| {
                reader.get_pinned(&keys[i % KEYS], decode).unwrap().unwrap()
            })
        }
        "peer" => {
            let db = open_peer(dir.path(), operands);
            counted(reads, |i| {
                decode(&db.get_pinned(&keys[i % KEYS]).unwrap().unwrap())
            })
        }
        other => panic!("ours or peer, not {other}"),
    };
    let want: u64 = (0..=reads).map(|i| expected(i % KEYS, operands)).sum();
    assert_eq!(total, want);
}

//! Reads inside a transaction: pinrocks' pinned, buffer and Vec tiers through a
//! `Transaction` (its own C++ one-call read), beside pinrocks' plain pinned read of the same
//! database and the `rocksdb` crate's `Transaction::get_pinned` and `get`, on databases
//! holding the same values in the block cache. Timed paired and interleaved (`paired.rs`).
//!
//! `sweep txn [--quick]`: a markdown table.

use std::time::Duration;

use pinrocks::options::TransactionDbOptions;
use pinrocks::{CopyResult, Db};

use crate::paired::{self, Ratio, Read};
use crate::tiers;

pub const SIZES: [usize; 4] = [8, 4096, 65536, 1 << 20];
const WAYS: [&str; 6] = [
    "txn pinned",
    "txn buffer",
    "txn vec",
    "plain pinned",
    "rocksdb txn get_pinned",
    "rocksdb txn get",
];

pub fn main(quick: bool) {
    let (rounds, slice) = if quick {
        (2, Duration::from_millis(1))
    } else {
        (30, Duration::from_millis(10))
    };
    println!(
        "| size | txn pinned | plain pinned | txn pinned vs plain pinned | txn pinned vs rocksdb txn `get_pinned` | txn buffer vs txn vec | rocksdb txn `get` vs txn vec |"
    );
    println!("|---|---:|---:|---|---|---|---|");
    for size in crate::progress::steps("txn", SIZES.into_iter()) {
        let count = if quick {
            tiers::key_count(size).min(64)
        } else {
            tiers::key_count(size)
        };
        let keys = tiers::random_keys(count);
        let (ours_dir, peer_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let db = Db::open_transaction_db(
            &tiers::pinrocks_options(),
            &TransactionDbOptions::new(),
            ours_dir.path(),
            [],
        )
        .unwrap();
        for i in 0..count {
            db.put(&tiers::key(i), &tiers::value(i, size)).unwrap();
        }
        tiers::settle_pinrocks(&db, count);
        let peer: rocksdb::TransactionDB = rocksdb::TransactionDB::open(
            &tiers::peer_options(),
            &rocksdb::TransactionDBOptions::default(),
            peer_dir.path(),
        )
        .unwrap();
        for i in 0..count {
            peer.put(tiers::key(i), tiers::value(i, size)).unwrap();
        }
        peer.flush().unwrap();
        for i in 0..count {
            peer.get_pinned(tiers::key(i)).unwrap().unwrap();
        }
        let txn = db.begin().unwrap();
        let peer_txn = peer.transaction();
        let reader = txn.reader();
        let plain = db.reader();
        let mut buf = vec![0u8; size];
        let mut txn_pinned = |k: &[u8]| reader.get_pinned(k, |v| v.len() as u64).unwrap().unwrap();
        let mut txn_buffer = |k: &[u8]| match reader.get_into(k, &mut buf).unwrap() {
            CopyResult::Copied(n) => n as u64,
            other => panic!("{other:?}"),
        };
        let mut txn_vec = |k: &[u8]| reader.get(k).unwrap().unwrap().len() as u64;
        let mut plain_pinned = |k: &[u8]| plain.get_pinned(k, |v| v.len() as u64).unwrap().unwrap();
        let mut peer_pinned = |k: &[u8]| peer_txn.get_pinned(k).unwrap().unwrap().len() as u64;
        let mut peer_get = |k: &[u8]| peer_txn.get(k).unwrap().unwrap().len() as u64;
        let mut ways: [Read<'_>; 6] = [
            &mut txn_pinned,
            &mut txn_buffer,
            &mut txn_vec,
            &mut plain_pinned,
            &mut peer_pinned,
            &mut peer_get,
        ];
        for read in ways.iter_mut() {
            assert_eq!(read(&tiers::key(0)), size as u64);
        }
        let (r, _) = paired::run(&mut ways, &keys, rounds, slice);
        let ns = |i: usize| paired::median(&mut r.ns[i].clone());
        println!(
            "| {size} B | {:.0} ns | {:.0} ns | {} | {} | {} | {} |",
            ns(0),
            ns(3),
            Ratio::of(&r.ns[3], &r.ns[0]).cell(),
            Ratio::of(&r.ns[4], &r.ns[0]).cell(),
            Ratio::of(&r.ns[2], &r.ns[1]).cell(),
            Ratio::of(&r.ns[2], &r.ns[5]).cell(),
        );
    }
    println!(
        "\n{} rounds of {} ms per way of reading ({WAYS:?}), interleaved, in a balanced \
         order (Williams); block cache; \"A vs B\": how many times faster A is, median of per-round ratios \
         [95% bootstrap interval] (first half / second half); `~`: the interval includes 1.",
        rounds.next_multiple_of(paired::cycle(WAYS.len())),
        slice.as_millis()
    );
}

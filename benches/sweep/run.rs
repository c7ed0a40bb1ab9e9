//! The sweep's timing run, paired and interleaved (`paired.rs`): in each cell (a regime, a
//! consumer, a value size) every tier runs in the same rounds, a short slice each, in a
//! balanced order (a Williams design, see paired.rs), so a ratio between two tiers compares
//! slices milliseconds apart.
//!
//! Regimes: values in the **memtable**; flushed and compacted, read from a **block cache**
//! that holds them all; the same files read with **no block cache** (each read takes its
//! block from the OS page cache, checks and decompresses it); and **concurrent readers**
//! (`concurrent.rs`: each thread count of `--threads` on three cache setups).
//!
//! `sweep run <out dir> [--quick]` writes `<out dir>/samples.tsv`: one line per tier and
//! round, `group size tier round ns-per-read`, which `sweep report` reads.

use std::fmt::Write as _;
use std::time::Duration;

use pinrocks::Db;

use crate::paired::{self, Read};
use crate::tiers::{self, Consumer, ReadFn, Regime, Tier};

pub const SIZES: [usize; 7] = [8, 16, 128, 1024, 4096, 65536, 1 << 20];

struct Plan {
    rounds: usize,
    slice: Duration,
    sizes: Vec<usize>,
    concurrent_sizes: Vec<usize>,
    quick: bool,
    /// The regimes to time (`PINROCKS_REGIMES`, `config.rs`).
    regimes: Vec<&'static str>,
}

impl Plan {
    fn runs(&self, regime: &str) -> bool {
        self.regimes.contains(&regime)
    }
}

fn measure(
    out: &mut String,
    group: &str,
    size: usize,
    names: &[Tier],
    reads: &mut [ReadFn<'_>],
    keys: &[Vec<u8>],
    plan: &Plan,
) {
    let mut refs: Vec<Read<'_>> = reads.iter_mut().map(|r| &mut **r as Read<'_>).collect();
    let (rounds, _) = paired::run(&mut refs, keys, plan.rounds, plan.slice);
    record(out, group, size, names, &rounds.ns);
    eprintln!("sweep: {group} {size} B done");
}

pub fn record(out: &mut String, group: &str, size: usize, names: &[Tier], ns: &[Vec<f64>]) {
    for (tier, rounds) in names.iter().zip(ns) {
        for (round, ns) in rounds.iter().enumerate() {
            writeln!(out, "{group}\t{size}\t{}\t{round}\t{ns:.2}", tier.name()).unwrap();
        }
    }
}

/// Every tier of both libraries over `db` and `peer`.
fn all_tiers<'a>(
    db: &'a Db,
    peer: &'a rocksdb::DB,
    size: usize,
    consumer: Consumer,
    peer_options: &'a rocksdb::ReadOptions,
) -> Vec<ReadFn<'a>> {
    Tier::ALL
        .iter()
        .map(|&tier| {
            if tier.is_peer() {
                tiers::peer_tier_with(peer, tier, consumer, peer_options)
            } else {
                tiers::pinrocks_tier(db, tier, size, consumer)
            }
        })
        .collect()
}

fn sweep_size(out: &mut String, size: usize, plan: &Plan) {
    let count = if plan.quick {
        tiers::key_count(size).min(64)
    } else {
        tiers::key_count(size)
    };
    let keys = tiers::random_keys(count);
    let (ours_dir, peer_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let peer_read = rocksdb::ReadOptions::default();
    {
        // Loaded in turns, one value each: the database loaded second would otherwise get
        // its memtable's large values in other memory, which alone made 1 MB reads from it
        // 1.2-1.4x faster (whichever library it was).
        let db = tiers::open_pinrocks(ours_dir.path(), Regime::Memtable, size, 0);
        let peer = tiers::open_peer(peer_dir.path(), Regime::Memtable, size, 0);
        for i in 0..count {
            db.put(&tiers::key(i), &tiers::value(i, size)).unwrap();
            peer.put(tiers::key(i), tiers::value(i, size)).unwrap();
        }
        for consumer in Consumer::ALL.into_iter().filter(|_| plan.runs("memtable")) {
            let mut reads = all_tiers(&db, &peer, size, consumer, &peer_read);
            let group = format!("memtable/{}", consumer.name());
            measure(out, &group, size, &Tier::ALL, &mut reads, &keys, plan);
        }
        tiers::settle_pinrocks(&db, count);
        tiers::settle_peer(&peer, count);
        for consumer in Consumer::ALL
            .into_iter()
            .filter(|_| plan.runs("block_cache"))
        {
            let mut reads = all_tiers(&db, &peer, size, consumer, &peer_read);
            let group = format!("block_cache/{}", consumer.name());
            measure(out, &group, size, &Tier::ALL, &mut reads, &keys, plan);
        }
    }
    if !plan.runs("page_cache") {
        return;
    }
    // The same files, no block cache: every read takes its block from the page cache.
    let (options, peer_options) = tiers::uncached_options();
    let db = Db::open(&options, ours_dir.path()).unwrap();
    let peer = rocksdb::DB::open(&peer_options, peer_dir.path()).unwrap();
    for consumer in Consumer::ALL {
        let mut reads = all_tiers(&db, &peer, size, consumer, &peer_read);
        let group = format!("page_cache/{}", consumer.name());
        measure(out, &group, size, &Tier::ALL, &mut reads, &keys, plan);
    }
}

pub fn main(out_dir: &std::path::Path, quick: bool) {
    let regimes = crate::config::regimes(crate::cli::settings().regimes.as_deref())
        .unwrap_or_else(|e| panic!("--regimes: {e}"));
    let plan = if quick {
        Plan {
            rounds: 2,
            slice: Duration::from_millis(1),
            sizes: vec![8, 4096],
            concurrent_sizes: vec![4096],
            quick,
            regimes,
        }
    } else {
        // 36 rounds: whole cycles of the balanced order for 2, 3, 4, 6 or 9 tiers; 8 ms
        // slices keep the time of the 30 rounds of 10 ms before it.
        Plan {
            rounds: 36,
            slice: Duration::from_millis(8),
            sizes: crate::sizes(),
            concurrent_sizes: crate::concurrent::SIZES.to_vec(),
            quick,
            regimes,
        }
    };
    let mut out = String::from("group\tsize\ttier\tround\tns\n");
    let concurrent_sizes = if plan.runs("concurrent") {
        &plan.concurrent_sizes[..]
    } else {
        &[]
    };
    let cells = plan.sizes.iter().map(|&s| (s, false));
    let cells = cells.chain(concurrent_sizes.iter().map(|&s| (s, true)));
    let cells: Vec<(usize, bool)> = cells.collect();
    for (size, threads) in crate::progress::steps("run", cells.into_iter()) {
        if threads {
            crate::concurrent::regime(&mut out, size, plan.quick, plan.rounds, plan.slice);
        } else {
            sweep_size(&mut out, size, &plan);
        }
    }
    std::fs::create_dir_all(out_dir).unwrap();
    let path = out_dir.join("samples.tsv");
    std::fs::write(&path, out).unwrap();
    eprintln!(
        "sweep: {} rounds (rounded up to whole cycles of the balanced order) of {} ms per \
         tier and cell; wrote {}",
        plan.rounds,
        plan.slice.as_millis(),
        path.display()
    );
}

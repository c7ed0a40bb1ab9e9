//! The concurrent-readers regime: N threads read the same database at once, for each
//! thread count of `--threads` (default 1 and 2), on three setups: an LRU block cache in
//! RocksDB's default shards, a HyperClockCache, and the hot-read profile (a row cache in
//! front of a HyperClockCache, `base::hot_options`); pinrocks' pinned, buffer and vec
//! reads beside the `rocksdb` crate's `get_pinned` on a database with the same settings.
//! Every tier of a cell runs in the same rounds (paired); thread counts are measured apart.
//!
//! Part of `sweep run` (regime `concurrent`), and alone as `sweep concurrent OUT`, which
//! also writes its table (reads per second, scaling from one thread) to OUT/concurrent.md.

use std::path::Path;
use std::time::Duration;

use pinrocks::options::Cache;
use pinrocks::Db;

use crate::tiers::{self, Consumer, Tier};

/// Sizes of the regime.
pub const SIZES: [usize; 3] = [128, 4096, 65536];
/// Tiers of the regime: pinrocks' own three, and the peer's pinned read.
pub const TIERS: [Tier; 4] = [
    Tier::Pinned,
    Tier::Buffer,
    Tier::Vec,
    Tier::RocksdbGetPinned,
];
/// The setups compared, as the report names them.
pub const SETUPS: [&str; 3] = ["lru", "hyper_clock", "hot_reads"];

/// The thread counts asked for (`--threads`, `PINROCKS_THREADS`), 1 and 2 by default.
pub fn thread_counts() -> Vec<usize> {
    let asked = &crate::cli::settings().threads;
    if asked.is_empty() {
        return vec![1, 2];
    }
    asked.iter().map(|&n| usize::from(n)).collect()
}

/// Both libraries' options for `setup`, with the user's options after the sweep's.
pub fn options(setup: &str) -> (pinrocks::Options, rocksdb::Options) {
    let (mut ours, mut peer) = match setup {
        "hot_reads" => crate::base::hot_options(tiers::CACHE_BYTES),
        "lru" | "hyper_clock" => {
            let (cache, peer_cache) = if setup == "lru" {
                let peer = rocksdb::Cache::new_lru_cache(tiers::CACHE_BYTES);
                (Cache::lru(tiers::CACHE_BYTES), peer)
            } else {
                let peer = rocksdb::Cache::new_hyper_clock_cache(tiers::CACHE_BYTES, 0);
                (Cache::hyper_clock(tiers::CACHE_BYTES, 0), peer)
            };
            let mut ours = crate::base::base_pinrocks_options();
            ours.block_cache(&cache);
            let mut table = rocksdb::BlockBasedOptions::default();
            table.set_block_cache(&peer_cache);
            let mut peer = crate::base::base_peer_options();
            peer.set_block_based_table_factory(&table);
            (ours, peer)
        }
        other => panic!("no setup {other}"),
    };
    let user = tiers::user_options();
    if !user.is_empty() {
        ours.set_from_string(user)
            .unwrap_or_else(|e| panic!("your options ({user}): {e}"));
        peer = peer
            .get_options_from_string(user)
            .unwrap_or_else(|e| panic!("your options ({user}), for the rocksdb crate: {e}"));
    }
    (ours, peer)
}

/// Times every thread count of every setup at `size`, appending samples to `out`.
pub fn regime(out: &mut String, size: usize, quick: bool, rounds: usize, slice: Duration) {
    let count = if quick {
        tiers::key_count(size).min(64)
    } else {
        tiers::key_count(size)
    };
    let keys = tiers::random_keys(count);
    for setup in SETUPS {
        let (ours_dir, peer_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let (ours, peer_options) = options(setup);
        let db = Db::open(&ours, ours_dir.path()).unwrap();
        let peer = rocksdb::DB::open(&peer_options, peer_dir.path()).unwrap();
        tiers::fill_pinrocks(&db, size, count);
        tiers::fill_peer(&peer, size, count);
        for threads in thread_counts() {
            let ns = crate::paired::run_threads(
                TIERS.len(),
                threads,
                |tier| match TIERS[tier] {
                    t if t.is_peer() => tiers::peer_tier(&peer, t, Consumer::Len),
                    t => tiers::pinrocks_tier(&db, t, size, Consumer::Len),
                },
                &keys,
                rounds,
                slice,
            );
            let group = format!("concurrent/{setup}/{threads}");
            crate::run::record(out, &group, size, &TIERS, &ns);
            eprintln!("sweep: {group} {size} B done");
        }
    }
}

/// `sweep concurrent OUT [--quick]`: the regime alone, its samples and its table.
pub fn section(out_dir: &Path, quick: bool) {
    let (sizes, rounds, slice) = if quick {
        (vec![4096], 2, Duration::from_millis(1))
    } else {
        (SIZES.to_vec(), 36, Duration::from_millis(8))
    };
    let mut out = String::from("group\tsize\ttier\tround\tns\n");
    for size in crate::progress::steps("concurrent", sizes.into_iter()) {
        regime(&mut out, size, quick, rounds, slice);
    }
    std::fs::create_dir_all(out_dir).unwrap();
    std::fs::write(out_dir.join("samples.tsv"), &out).unwrap();
    let samples = crate::report::parse_samples(&out);
    let table = crate::report::concurrent_table(&samples, &mut (0, 0));
    std::fs::write(out_dir.join("concurrent.md"), &table).unwrap();
    print!("{table}");
    eprintln!(
        "sweep: threads {:?}, {rounds} rounds of {} ms per tier and cell; wrote {}",
        thread_counts(),
        slice.as_millis(),
        out_dir.join("concurrent.md").display()
    );
}

//! Performs one warm-up read and then N reads of one tier at one value size from the block
//! cache, for counting heap allocations or instructions per read under valgrind (both
//! sides of the FFI boundary). `scripts/count-per-read.sh` runs it at two N and divides
//! the difference, so opening, populating and closing cancel out.
//!
//! `cargo run --release --example per_read -- <tier> <value size> <reads>`

#[path = "../bench-support/tiers.rs"]
mod tiers;

use tiers::{Consumer, Regime, TIERS};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [tier, size, reads] = &args[..] else {
        eprintln!("usage: per_read <tier> <value size> <reads>; tiers: {TIERS:?}");
        std::process::exit(2);
    };
    let size: usize = size.parse().expect("value size");
    let reads: usize = reads.parse().expect("reads");
    let dir = tempfile::tempdir().expect("temporary directory");
    // Few keys, so that populating under valgrind stays quick; the differencing removes
    // its cost anyway.
    let count = 16;
    let keys = tiers::random_keys(count);
    let total: u64 = if tier.starts_with("rocksdb_") {
        let db = tiers::open_peer(dir.path(), Regime::BlockCache, size, count);
        let mut read = tiers::peer_tier(&db, tier, Consumer::Len);
        (0..=reads).map(|i| read(&keys[i % keys.len()])).sum()
    } else {
        let db = tiers::open_pinrocks(dir.path(), Regime::BlockCache, size, count);
        let mut read = tiers::pinrocks_tier(&db, tier, size, Consumer::Len);
        (0..=reads).map(|i| read(&keys[i % keys.len()])).sum()
    };
    assert_eq!(total, (size * (reads + 1)) as u64);
}

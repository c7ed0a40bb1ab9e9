//! Performs one warm-up read and then N reads of one tier at one value size from the block
//! cache, for counting heap allocations or instructions per read under valgrind (both
//! sides of the FFI boundary). `scripts/count-per-read.sh` runs it at two N and divides
//! the difference, so opening, populating and closing cancel out.
//!
//! `sweep per-read <tier> <value size> <reads>` (the bench binary; see main.rs)

use crate::tiers::{self, Consumer, Regime, Tier, TIER_NAMES};

pub fn main(args: &[String]) {
    let [tier, size, reads] = args else {
        eprintln!("usage: sweep per-read <tier> <value size> <reads>; tiers: {TIER_NAMES:?}");
        std::process::exit(2);
    };
    let tier = Tier::from_name(tier).unwrap_or_else(|| panic!("no tier {tier}"));
    let size: usize = size.parse().expect("value size");
    let reads: usize = reads.parse().expect("reads");
    let dir = tempfile::tempdir().expect("temporary directory");
    // Few keys, so that populating under valgrind stays quick; the differencing removes
    // its cost anyway.
    let count = 16;
    let keys = tiers::random_keys(count);
    let total: u64 = if tier.is_peer() {
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

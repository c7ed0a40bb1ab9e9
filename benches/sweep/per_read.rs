//! Performs one warm-up read and then N reads at one value size from the block cache, for
//! counting heap allocations or instructions per read under valgrind (both sides of the
//! FFI boundary). `scripts/count-per-read.sh` runs it at two N and divides the difference,
//! so opening, populating and closing cancel out.
//!
//! A "read" is one value through a sweep tier, or through one of the other paths:
//! `multi_get` (one key of a pinned multi-get of 8 keys), `iterate` (one step of a cursor,
//! back and forth over the keys with no seek), `seek` (one seek and its entry) and `typed`
//! (one `Table::get`).
//!
//! `sweep per-read <tier or path> <value size> <reads>` (the bench binary; see main.rs)

use pinrocks::codec::Raw;
use pinrocks::Table;

use crate::tiers::{self, Consumer, Regime, Tier, TIER_NAMES};

/// The paths beyond the tiers.
pub const PATHS: [&str; 4] = ["multi_get", "iterate", "seek", "typed"];

/// Keys per multi-get: reads are counted per key.
const BATCH: usize = 8;

pub fn main(args: &[String]) {
    let [name, size, reads] = args else {
        eprintln!(
            "usage: sweep per-read <tier or path> <value size> <reads>; tiers: {TIER_NAMES:?}, \
             paths: {PATHS:?}"
        );
        std::process::exit(2);
    };
    let size: usize = size.parse().expect("value size");
    let reads: usize = reads.parse().expect("reads");
    let dir = tempfile::tempdir().expect("temporary directory");
    // Few keys, so that populating under valgrind stays quick; the differencing removes
    // its cost anyway.
    let count = 16;
    let keys = tiers::random_keys(count);
    let total: u64 = if let Some(tier) = Tier::from_name(name) {
        if tier.is_peer() {
            let db = tiers::open_peer(dir.path(), Regime::BlockCache, size, count);
            let mut read = tiers::peer_tier(&db, tier, Consumer::Len);
            (0..=reads).map(|i| read(&keys[i % keys.len()])).sum()
        } else {
            let db = tiers::open_pinrocks(dir.path(), Regime::BlockCache, size, count);
            let mut read = tiers::pinrocks_tier(&db, tier, size, Consumer::Len);
            (0..=reads).map(|i| read(&keys[i % keys.len()])).sum()
        }
    } else {
        let db = tiers::open_pinrocks(dir.path(), Regime::BlockCache, size, count);
        let reader = db.reader();
        match name.as_str() {
            "multi_get" => {
                assert_eq!(reads % BATCH, 0, "reads must be a multiple of {BATCH}");
                let mut total = 0u64;
                // A warm-up batch, then reads / BATCH batches.
                for b in 0..=reads / BATCH {
                    let batch = &keys[(b * BATCH) % keys.len()..][..BATCH];
                    reader
                        .multi_get_pinned(batch, |_, v| total += v.expect("present").len() as u64)
                        .unwrap();
                }
                total - (size * (BATCH - 1)) as u64
            }
            "iterate" => {
                // One iterator, one seek; then each read is one step, forward to the last
                // key and back to the first, over and over.
                let mut it = reader.iter();
                it.seek_to_first();
                let mut total = 0u64;
                let mut forward = true;
                let mut at = 0;
                for _ in 0..=reads {
                    total += it.value().expect("an entry").len() as u64;
                    if forward && at == count - 1 {
                        forward = false;
                    } else if !forward && at == 0 {
                        forward = true;
                    }
                    if forward {
                        it.next();
                        at += 1;
                    } else {
                        it.prev();
                        at -= 1;
                    }
                }
                it.status().unwrap();
                total
            }
            "seek" => {
                let mut it = reader.iter();
                (0..=reads)
                    .map(|i| {
                        it.seek(&keys[i % keys.len()]);
                        it.value().expect("an entry").len() as u64
                    })
                    .sum()
            }
            "typed" => {
                let table: Table<Raw, Raw> = Table::new(db.default_cf());
                (0..=reads)
                    .map(|i| {
                        table
                            .get(&keys[i % keys.len()], |v: &[u8]| v.len() as u64)
                            .unwrap()
                            .expect("present")
                    })
                    .sum()
            }
            other => panic!("no tier or path {other}"),
        }
    };
    assert_eq!(total, (size * (reads + 1)) as u64);
}

//! Reads values of several sizes through each tier from the block cache and prints the
//! median time per read. A quick look, not the benchmark: `benches/sweep/` is that.
//!
//! `cargo run --release --example tiers -- --sizes 8,4096,1048576`

use std::time::Instant;

use bytes::BytesMut;
use pinrocks::{CopyResult, Db, Options};

const KEYS: usize = 64;
const ROUNDS: usize = 7;

fn median_ns(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

/// Median over `ROUNDS` of the mean time of one read, each round reading every key.
fn time_reads(
    reads_per_round: usize,
    mut read: impl FnMut(&[u8]) -> usize,
    keys: &[Vec<u8>],
) -> (f64, usize) {
    let mut checksum = 0usize;
    let samples = (0..ROUNDS)
        .map(|_| {
            let start = Instant::now();
            for i in 0..reads_per_round {
                checksum = checksum.wrapping_add(read(&keys[i % keys.len()]));
            }
            start.elapsed().as_nanos() as f64 / reads_per_round as f64
        })
        .collect();
    (median_ns(samples), checksum)
}

fn main() -> pinrocks::Result<()> {
    let sizes: Vec<usize> = std::env::args()
        .skip_while(|a| a != "--sizes")
        .nth(1)
        .map(|list| {
            list.split(',')
                .map(|s| s.parse().expect("a size in bytes"))
                .collect()
        })
        .unwrap_or_else(|| vec![8, 128, 1024, 4096, 65536, 1 << 20]);

    println!(
        "| value size | Vec ns/read | buffer ns/read | pinned ns/read | pinned/Vec speed-up |"
    );
    println!("|---:|---:|---:|---:|---:|");
    for size in sizes {
        let dir = tempfile::tempdir().expect("temporary directory");
        let mut options = Options::new();
        // One shard: a 1 MiB block must never be evicted because its shard is full.
        options
            .create_if_missing(true)
            .block_cache_size(256 << 20)
            .block_cache_shard_bits(0);
        let db = Db::open(&options, dir.path())?;
        let keys: Vec<Vec<u8>> = (0..KEYS)
            .map(|i| format!("key-{i:04}").into_bytes())
            .collect();
        for (i, key) in keys.iter().enumerate() {
            db.put(key, &vec![i as u8; size])?;
        }
        db.flush()?;
        db.compact_range(None, None)?;

        let reads = (64 << 20) / size.max(1024);
        let reads = reads.clamp(256, 200_000);
        let (vec_ns, a) = time_reads(reads, |k| db.get(k).unwrap().map_or(0, |v| v.len()), &keys);
        let mut buf = BytesMut::with_capacity(size);
        let (buf_ns, b) = time_reads(
            reads,
            |k| {
                db.reader().get_into_bytes(k, &mut buf).unwrap();
                buf.len()
            },
            &keys,
        );
        let (pin_ns, c) = time_reads(
            reads,
            |k| db.get_pinned(k, <[u8]>::len).unwrap().unwrap_or(0),
            &keys,
        );
        assert!(a == b && b == c, "every tier must read the same lengths");
        let mut probe = vec![0u8; size];
        assert_eq!(db.get_into(&keys[0], &mut probe)?, CopyResult::Copied(size));
        println!(
            "| {size} B | {vec_ns:.0} | {buf_ns:.0} | {pin_ns:.0} | {:.2}x |",
            vec_ns / pin_ns
        );
    }
    Ok(())
}

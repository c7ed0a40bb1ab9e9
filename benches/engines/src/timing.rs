//! The timing loop: `paired::run_checking`'s (the sweep's), with each way's `begin` and `end`
//! inside its slice, which `paired::run` has no place for and the LMDB way with a
//! transaction per slice needs. Same order (`paired::order`, whole cycles), same warm-up,
//! same key sequence and clock checks; its results go to paired's statistics.

use std::hint::black_box;
use std::time::{Duration, Instant};

use crate::data::Consumer;
use crate::paired::{cycle, order};
use crate::ways::Way;

/// Nanoseconds per read of each way in each round (`ns[way][round]`), and the checksum of
/// every read (returned so the reads cannot be optimized away). `rounds` is rounded up to
/// whole cycles; the clock is read every `per_check` reads.
pub fn run(
    ways: &mut [Box<dyn Way + '_>],
    keys: &[Vec<u8>],
    consumer: Consumer,
    rounds: usize,
    slice: Duration,
    per_check: u64,
) -> (Vec<Vec<f64>>, u64) {
    assert!(rounds >= 2, "two halves need at least two rounds");
    let count = ways.len();
    let rounds = rounds.next_multiple_of(cycle(count));
    let mut ns = vec![Vec::with_capacity(rounds); count];
    let mut checksum = 0u64;
    let mut next = 0usize;
    // A warm-up pass over every way, not recorded.
    for way in ways.iter_mut() {
        way.begin();
        for key in keys.iter().take(64) {
            checksum = checksum.wrapping_add(way.read(key, consumer));
        }
        way.end();
    }
    for round in 0..rounds {
        for index in order(round, count) {
            let way = &mut ways[index];
            let start = Instant::now();
            way.begin();
            let mut reads = 0u64;
            loop {
                for _ in 0..per_check {
                    next = (next + 1) % keys.len();
                    checksum = checksum
                        .wrapping_add(black_box(way.read(black_box(&keys[next]), consumer)));
                }
                reads += per_check;
                if start.elapsed() >= slice {
                    break;
                }
            }
            way.end();
            ns[index].push(start.elapsed().as_nanos() as f64 / reads as f64);
        }
    }
    (ns, checksum)
}

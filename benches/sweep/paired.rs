//! Paired, interleaved timing: every tier of a cell runs in the same rounds, each for a short
//! slice, in an order that changes from round to round (a Williams design: over a cycle of
//! rounds each tier runs first equally often and follows every other tier equally often, so
//! what one tier leaves in the caches weighs on every other alike), so a ratio between two tiers
//! compares slices measured milliseconds apart (this kind of VM switches between a fast
//! and a slow state within seconds; tiers timed a minute apart compare two machine states).
//!
//! A ratio is the median of the per-round ratios, with a 95% bootstrap interval of that
//! median (deterministic: a fixed-seed generator), and the medians of the run's first and
//! second halves side by side, to show whether it holds when measured again.
//! `tests/sweep_stats.rs` checks this code on synthetic samples with known answers.

use std::time::{Duration, Instant};

/// One way of reading: a key in, something computed from the value out.
pub type Read<'a> = &'a mut dyn FnMut(&[u8]) -> u64;

/// Nanoseconds per read of each tier in each round: `ns[tier][round]`.
pub struct Rounds {
    pub ns: Vec<Vec<f64>>,
}

/// The order of the `tiers` tiers in round `round`: row `round` of a Williams design. Rows
/// are the sequence 0, 1, n-1, 2, n-2, ... shifted by the row number; for an odd number of
/// tiers the second n rows are the first n reversed. Over `cycle(tiers)` consecutive rounds
/// every tier holds every position equally often and immediately follows every other tier
/// equally often (once per cycle for even n, twice for odd), which a plain rotation does
/// not: there each tier always follows the same one.
pub fn order(round: usize, tiers: usize) -> Vec<usize> {
    let base: Vec<usize> = (0..tiers)
        .map(|i| {
            if i % 2 == 1 {
                i.div_ceil(2)
            } else {
                (tiers - i / 2) % tiers
            }
        })
        .collect();
    let shift = round % tiers;
    let mut row: Vec<usize> = base.iter().map(|b| (b + shift) % tiers).collect();
    if !tiers.is_multiple_of(2) && !(round / tiers).is_multiple_of(2) {
        row.reverse();
    }
    row
}

/// Rounds in one full cycle of [`order`].
pub fn cycle(tiers: usize) -> usize {
    if tiers.is_multiple_of(2) {
        tiers
    } else {
        2 * tiers
    }
}

/// Runs `reads` (one closure per tier, each reading one key) in `rounds` rounds of `slice`
/// per tier, in the [`order`] of each round; `rounds` is rounded up to whole [`cycle`]s, so
/// that the order is balanced. Each closure's results are summed into a
/// checksum so the reads cannot be optimized away; it is returned for the caller to check.
pub fn run(
    reads: &mut [Read<'_>],
    keys: &[Vec<u8>],
    rounds: usize,
    slice: Duration,
) -> (Rounds, u64) {
    // Check the clock every 16 reads: cheap, and fine-grained enough for slices of
    // milliseconds even at a millisecond per read.
    run_checking(reads, keys, rounds, slice, 16)
}

/// [`run`], looking at the clock every `per_check` reads: 1 for reads long enough that 16
/// of them would overrun the slice (a batch of a thousand keys from disk).
pub fn run_checking(
    reads: &mut [Read<'_>],
    keys: &[Vec<u8>],
    rounds: usize,
    slice: Duration,
    per_check: u64,
) -> (Rounds, u64) {
    run_ways(
        reads,
        keys,
        rounds,
        slice,
        per_check,
        |_, _| {},
        |read, key| read(key),
    )
}

/// [`run_checking`] over any kind of way: `read(way, key)` reads one key, and
/// `around(way, true)` and `around(way, false)` run before and after each of the way's
/// slices (and its warm-up), inside the slice's time: a way that holds a read transaction
/// per slice (the engines bench's LMDB) opens and ends it there.
pub fn run_ways<W>(
    ways: &mut [W],
    keys: &[Vec<u8>],
    rounds: usize,
    slice: Duration,
    per_check: u64,
    mut around: impl FnMut(&mut W, bool),
    mut read: impl FnMut(&mut W, &[u8]) -> u64,
) -> (Rounds, u64) {
    assert!(rounds >= 2, "two halves need at least two rounds");
    let tiers = ways.len();
    let rounds = rounds.next_multiple_of(cycle(tiers));
    let mut ns = vec![Vec::with_capacity(rounds); tiers];
    let mut checksum = 0u64;
    let mut next = 0usize;
    // A warm-up pass over every tier, not recorded.
    for way in ways.iter_mut() {
        around(way, true);
        for key in keys.iter().take(64) {
            checksum = checksum.wrapping_add(read(way, key));
        }
        around(way, false);
    }
    for round in 0..rounds {
        for tier in order(round, tiers) {
            let way = &mut ways[tier];
            let start = Instant::now();
            around(way, true);
            let mut ops = 0u64;
            loop {
                for _ in 0..per_check {
                    next = (next + 1) % keys.len();
                    checksum = checksum.wrapping_add(std::hint::black_box(read(
                        way,
                        std::hint::black_box(&keys[next]),
                    )));
                }
                ops += per_check;
                if start.elapsed() >= slice {
                    break;
                }
            }
            around(way, false);
            ns[tier].push(start.elapsed().as_nanos() as f64 / ops as f64);
        }
    }
    (Rounds { ns }, checksum)
}

/// Like [`run`] with `threads` threads reading at once: in each round, each of `tiers`
/// tiers (made per thread by `make`) runs on every thread for one slice; the time per read
/// is the slice over the reads of all threads (so 2 threads that do not contend halve it).
/// Starting the threads (tens of microseconds) counts in the slice, alike for every tier.
/// `rounds` is rounded up to whole [`cycle`]s, as in [`run`].
pub fn run_threads<'a, F>(
    tiers: usize,
    threads: usize,
    make: F,
    keys: &[Vec<u8>],
    rounds: usize,
    slice: Duration,
) -> Vec<Vec<f64>>
where
    F: Fn(usize) -> Box<dyn FnMut(&[u8]) -> u64 + 'a> + Sync,
{
    let rounds = rounds.next_multiple_of(cycle(tiers));
    let mut ns = vec![Vec::with_capacity(rounds); tiers];
    for round in 0..rounds {
        for tier in order(round, tiers) {
            let start = Instant::now();
            let ops: u64 = std::thread::scope(|scope| {
                let handles: Vec<_> = (0..threads)
                    .map(|t| {
                        let make = &make;
                        scope.spawn(move || {
                            let mut read = make(tier);
                            let mut next = t * 7919;
                            let mut ops = 0u64;
                            let mut sum = 0u64;
                            while start.elapsed() < slice {
                                for _ in 0..16 {
                                    next = (next + 1) % keys.len();
                                    sum = sum.wrapping_add(read(std::hint::black_box(&keys[next])));
                                }
                                ops += 16;
                            }
                            std::hint::black_box(sum);
                            ops
                        })
                    })
                    .collect();
                handles.into_iter().map(|h| h.join().unwrap()).sum()
            });
            ns[tier].push(start.elapsed().as_nanos() as f64 / ops as f64);
        }
    }
    ns
}

/// The median of `xs` (which it sorts).
pub fn median(xs: &mut [f64]) -> f64 {
    assert!(!xs.is_empty(), "median of nothing");
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    if n % 2 == 1 {
        xs[n / 2]
    } else {
        (xs[n / 2 - 1] + xs[n / 2]) / 2.0
    }
}

/// A ratio between two tiers measured in the same rounds.
#[derive(Debug, Clone, Copy)]
pub struct Ratio {
    /// Median of the per-round ratios.
    pub median: f64,
    /// 95% bootstrap interval of that median.
    pub low: f64,
    pub high: f64,
    /// Medians of the first and the second half of the rounds.
    pub first_half: f64,
    pub second_half: f64,
    pub rounds: usize,
}

impl Ratio {
    /// `numer[i] / denom[i]` per round. With times per read, `ratio(slow, fast)` is how
    /// many times faster `fast` is.
    pub fn of(numer: &[f64], denom: &[f64]) -> Ratio {
        assert_eq!(numer.len(), denom.len(), "tiers from the same rounds");
        let ratios: Vec<f64> = numer.iter().zip(denom).map(|(a, b)| a / b).collect();
        let rounds = ratios.len();
        let (low, high) = bootstrap_interval(&ratios, 2000, 0x5eed);
        let half = rounds / 2;
        Ratio {
            median: median(&mut ratios.clone()),
            low,
            high,
            first_half: median(&mut ratios[..half.max(1)].to_vec()),
            second_half: median(&mut ratios[half.min(rounds - 1)..].to_vec()),
            rounds,
        }
    }

    /// Whether the interval excludes 1: a difference, not noise.
    pub fn is_clear(&self) -> bool {
        self.low > 1.0 || self.high < 1.0
    }

    /// `1.23x [1.20-1.26]` with halves `(1.22 | 1.24)`.
    pub fn cell(&self) -> String {
        format!(
            "{:.2}x [{:.2}-{:.2}]{} ({:.2} / {:.2})",
            self.median,
            self.low,
            self.high,
            if self.is_clear() { "" } else { " ~" },
            self.first_half,
            self.second_half
        )
    }
}

/// The 2.5% and 97.5% quantiles of the median of `resamples` resamplings of `xs`.
pub fn bootstrap_interval(xs: &[f64], resamples: usize, seed: u64) -> (f64, f64) {
    let mut state = seed;
    let mut medians = Vec::with_capacity(resamples);
    let mut sample = vec![0.0; xs.len()];
    for _ in 0..resamples {
        for s in sample.iter_mut() {
            *s = xs[(splitmix64(&mut state) % xs.len() as u64) as usize];
        }
        medians.push(median(&mut sample));
    }
    medians.sort_by(f64::total_cmp);
    let at = |q: f64| medians[((resamples as f64 - 1.0) * q).round() as usize];
    (at(0.025), at(0.975))
}

/// SplitMix64: a small, good, deterministic generator (no dependency needed).
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The note under a table of ways timed with [`run`]: rounds (rounded up to whole cycles),
/// slice, the ways, `what` a read is, and how to read a ratio cell.
pub fn footnote(rounds: usize, slice: Duration, ways: &[&str], what: &str) -> String {
    format!(
        "\n{} rounds of {} ms per way ({ways:?}) and cell, interleaved in a balanced order \
         (Williams); {what}. \"A vs B\": how many times faster A is, median of per-round \
         ratios [95% bootstrap interval] (first half / second half); `~`: the interval \
         includes 1.\n",
        rounds.next_multiple_of(cycle(ways.len())),
        slice.as_millis()
    )
}

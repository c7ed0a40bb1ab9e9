//! The sweep's statistics (`benches/sweep/paired.rs`) on synthetic samples whose answers are
//! known: medians, per-round ratios, the bootstrap interval, the two halves.

#[allow(dead_code)] // the timing loop is the bench's; the statistics are tested here
#[path = "../benches/sweep/paired.rs"]
mod paired;

use paired::{bootstrap_interval, cycle, median, order, Ratio};

#[test]
fn medians_of_odd_and_even_counts() {
    assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
    assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), 2.5);
    assert_eq!(median(&mut [7.0]), 7.0);
}

#[test]
fn a_constant_ratio_is_exact_whatever_the_machine_state() {
    // The machine flips between a fast and a slow state from round to round; tier A always
    // takes twice tier B's time in the same round. Paired ratios see exactly 2; comparing
    // medians measured apart would not.
    let b: Vec<f64> = (0..40)
        .map(|i| if i % 3 == 0 { 900.0 } else { 500.0 })
        .collect();
    let a: Vec<f64> = b.iter().map(|x| x * 2.0).collect();
    let r = Ratio::of(&a, &b);
    assert_eq!(r.median, 2.0);
    assert_eq!((r.low, r.high), (2.0, 2.0));
    assert_eq!((r.first_half, r.second_half), (2.0, 2.0));
    assert_eq!(r.rounds, 40);
    assert!(r.is_clear());
}

#[test]
fn noise_around_one_is_not_a_win() {
    // Ratios alternating 0.9 and 1.1: median 1, interval spanning 1.
    let b = vec![100.0; 50];
    let a: Vec<f64> = (0..50)
        .map(|i| if i % 2 == 0 { 90.0 } else { 110.0 })
        .collect();
    let r = Ratio::of(&a, &b);
    assert!((r.median - 1.0).abs() < 0.11, "{r:?}");
    assert!(r.low < 1.0 && r.high > 1.0, "{r:?}");
    assert!(!r.is_clear());
}

#[test]
fn the_halves_show_a_drift() {
    // The first 10 rounds at ratio 1.5, the last 10 at 1.0.
    let b = vec![100.0; 20];
    let a: Vec<f64> = (0..20)
        .map(|i| if i < 10 { 150.0 } else { 100.0 })
        .collect();
    let r = Ratio::of(&a, &b);
    assert_eq!((r.first_half, r.second_half), (1.5, 1.0));
}

#[test]
fn the_bootstrap_interval_brackets_the_median_and_is_repeatable() {
    let xs: Vec<f64> = (1..=101).map(f64::from).collect(); // median 51
    let (low, high) = bootstrap_interval(&xs, 2000, 7);
    assert!(low < 51.0 && 51.0 < high, "{low} {high}");
    // The median of 101 uniform values moves by about ±10 at 95%.
    assert!(low > 35.0 && high < 67.0, "{low} {high}");
    assert_eq!(
        bootstrap_interval(&xs, 2000, 7),
        (low, high),
        "a fixed seed"
    );
}

#[test]
fn the_round_order_balances_positions_and_predecessors() {
    for tiers in 1..=9usize {
        let rounds = cycle(tiers);
        let mut first = vec![vec![0usize; tiers]; tiers]; // [tier][position]
        let mut follows = vec![vec![0usize; tiers]; tiers]; // [before][after]
        for round in 0..rounds {
            let row = order(round, tiers);
            let mut sorted = row.clone();
            sorted.sort_unstable();
            assert_eq!(
                sorted,
                (0..tiers).collect::<Vec<_>>(),
                "round {round} of {tiers}: {row:?}"
            );
            for (position, &tier) in row.iter().enumerate() {
                first[tier][position] += 1;
            }
            for pair in row.windows(2) {
                follows[pair[0]][pair[1]] += 1;
            }
        }
        let per_position = rounds / tiers;
        for (tier, positions) in first.iter().enumerate() {
            assert!(
                positions.iter().all(|&n| n == per_position),
                "{tiers} tiers: tier {tier} positions {positions:?}"
            );
        }
        let per_pair = if tiers.is_multiple_of(2) { 1 } else { 2 };
        for (a, row) in follows.iter().enumerate() {
            for (b, &n) in row.iter().enumerate() {
                let expected = if a == b { 0 } else { per_pair };
                assert_eq!(n, expected, "{tiers} tiers: {b} after {a}");
            }
        }
    }
}

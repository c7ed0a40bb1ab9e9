//! What a write costs (issue 49): every kind of write (`write_ways.rs`: puts, deletes,
//! merges, entities; batches of 1 to 1,024 puts, of 64 deletes, of 64 merges; an indexed
//! batch; pessimistic and
//! optimistic transactions) through pinrocks, the `rocksdb` crate (the peer), the C API on a
//! pinrocks database (the floor) and a C++ loop (no crossing per write), each on a database
//! of its own, timed paired and interleaved (`paired.rs`); WAL on (no sync) and off, then
//! synced writes apart (they measure the disk). Writes overwrite the same keys in a random
//! order (a batch: the keys after the one the harness gives), with 64 MiB write buffers, so
//! flushes and compactions run during the run, alike for every way, and the files stay the
//! size of one copy of the keys.
//!
//! `sweep writes OUT [--quick]`: markdown tables, time per write (a batch's or a
//! transaction's over its writes), in OUT/writes.md, and a plot of puts and batches of 64
//! against the value size, OUT/writes.svg.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

use crate::paired::{self, Ratio, Read};
use crate::tiers;
use crate::write_kinds::{Kind, Record, Side, SIDES};
use crate::write_ways::{Dbs, Durability, Runs};

/// A line of the plot: its name, then (size, median, 2.5%, 97.5% of rounds) per size.
type Lines = BTreeMap<String, Vec<(usize, f64, f64, f64)>>;

pub fn main(out_dir: &Path, quick: bool) {
    let (rounds, slice, sizes) = if quick {
        (2, Duration::from_millis(1), vec![16, 4096])
    } else {
        (24, Duration::from_millis(8), vec![16, 128, 4096, 65536])
    };
    let parent = tempfile::tempdir().unwrap();
    let mut out = header();
    let mut lines = Lines::new();
    for size in crate::progress::steps("writes", sizes.into_iter()) {
        let count = if quick { 64 } else { tiers::key_count(size) };
        for wal in [true, false] {
            for kind in Kind::all(size, count) {
                let (ns, sides) =
                    measure(kind, size, count, wal, false, rounds, slice, parent.path());
                row(
                    &mut out,
                    kind,
                    if wal { "on" } else { "off" },
                    size,
                    &ns,
                    &sides,
                );
                if wal && matches!(kind, Kind::Put | Kind::Batch(Record::Put, 64)) {
                    plot_points(&mut lines, kind, size, &ns, &sides);
                }
            }
        }
    }
    writeln!(
        out,
        "\n{} rounds of {} ms per way, interleaved in a balanced order; time per write (a \
         batch's or a transaction's over its writes; the C++ loop's over its {} writes a \
         crossing), median of rounds; \"A vs B\": how many times faster A is, median of \
         per-round ratios [95% bootstrap interval] (first half / second half); `~`: the \
         interval includes 1; `–`: the library has no such write (the `rocksdb` crate: \
         entities, indexed batches; the C API: entities, whose floor is one C++ call each, \
         and transactions of a pinrocks database).",
        rounds,
        slice.as_millis(),
        crate::write_kinds::LOOP_RUN,
    )
    .unwrap();
    // Synced: fsync per write group, on the file system of the temporary directory.
    let (rounds, slice, sizes) = if quick {
        (2, Duration::from_millis(2), vec![16, 4096])
    } else {
        (12, Duration::from_millis(40), vec![16, 128, 4096, 65536])
    };
    out.push_str("\nSynced writes (WAL on, `sync`: each write waits for the disk):\n\n");
    out.push_str(&header());
    for size in crate::progress::steps("synced", sizes.into_iter()) {
        let count = if quick { 64 } else { tiers::key_count(size) };
        for kind in [
            Kind::Put,
            Kind::Batch(Record::Put, 64),
            Kind::Txn {
                optimistic: false,
                puts: 1,
            },
        ] {
            let (ns, sides) = measure(kind, size, count, true, true, rounds, slice, parent.path());
            row(&mut out, kind, "synced", size, &ns, &sides);
        }
    }
    writeln!(
        out,
        "\n{rounds} rounds of {} ms per way, in {}; as above.",
        slice.as_millis(),
        parent.path().display()
    )
    .unwrap();
    std::fs::create_dir_all(out_dir).unwrap();
    std::fs::write(out_dir.join("writes.md"), &out).unwrap();
    std::fs::write(out_dir.join("writes.svg"), plot(&lines)).unwrap();
    print!("{out}");
}

/// Adds each side's median and 2.5%-97.5% range of rounds at `size` to its line.
fn plot_points(lines: &mut Lines, kind: Kind, size: usize, ns: &[Vec<f64>], sides: &[Side]) {
    for (ns, side) in ns.iter().zip(sides) {
        let mut sorted = ns.clone();
        let med = paired::median(&mut sorted);
        let q = |p: f64| sorted[((sorted.len() - 1) as f64 * p).round() as usize];
        lines
            .entry(format!("{}: {}", kind.name(), side.name()))
            .or_default()
            .push((size, med, q(0.025), q(0.975)));
    }
}

fn plot(lines: &Lines) -> String {
    let points: crate::plot::Points<'_> = lines
        .iter()
        .map(|(name, pts)| (name.as_str(), pts.clone()))
        .collect();
    let sizes: Vec<usize> = lines.values().flatten().map(|p| p.0).collect();
    crate::plot::plot(
        "Time per write, WAL on: puts and batches of 64 (median of rounds; bars: 2.5%-97.5%)",
        "ns per write",
        &points,
        &crate::plot::ticks(&sizes, crate::report::size_name),
    )
}

fn header() -> String {
    "| write | WAL | size | pinrocks | rocksdb crate | C API floor | C++ loop | pinrocks vs \
     rocksdb | pinrocks vs C API | pinrocks vs C++ loop |\n\
     |---|---|---|---:|---:|---:|---:|---|---|---|\n"
        .to_string()
}

/// Each side's nanoseconds per write in each round (`None`: no such way), paired.
#[allow(clippy::too_many_arguments)]
fn measure(
    kind: Kind,
    size: usize,
    count: usize,
    wal: bool,
    sync: bool,
    rounds: usize,
    slice: Duration,
    parent: &std::path::Path,
) -> (Vec<Vec<f64>>, Vec<Side>) {
    let dbs = Dbs::open(kind, parent);
    let durability = Durability::new(wal, sync);
    let value = tiers::value(7, size);
    let runs = Runs::new(count);
    let keys = tiers::random_keys(count);
    let sides: Vec<Side> = SIDES.into_iter().filter(|&s| kind.has(s)).collect();
    let mut ways: Vec<_> = sides
        .iter()
        .map(|&side| crate::write_ways::way(kind, side, &dbs, &durability, &value, &runs))
        .collect();
    let mut reads: Vec<Read<'_>> = ways.iter_mut().map(|w| &mut **w as Read<'_>).collect();
    // A call of a megabyte or more: check the clock after each, not after 16.
    let per_check = if kind.ops() * size >= 1 << 20 || sync {
        1
    } else {
        16
    };
    let (r, _) = paired::run_checking(&mut reads, &keys, rounds, slice, per_check);
    let ns =
        r.ns.into_iter()
            .zip(&sides)
            .map(|(ns, &side)| {
                let per = kind.ops_of(side) as f64;
                ns.into_iter().map(|n| n / per).collect()
            })
            .collect();
    (ns, sides)
}

fn row(out: &mut String, kind: Kind, wal: &str, size: usize, ns: &[Vec<f64>], sides: &[Side]) {
    let of = |side: Side| sides.iter().position(|&s| s == side).map(|i| &ns[i]);
    let time = |side: Side| {
        of(side).map_or("–".to_string(), |n| {
            format!("{:.0} ns", paired::median(&mut n.clone()))
        })
    };
    let ours = of(Side::Ours).expect("pinrocks' way");
    let vs = |side: Side| of(side).map_or("–".to_string(), |n| Ratio::of(n, ours).cell());
    writeln!(
        out,
        "| {} | {wal} | {size} B | {} | {} | {} | {} | {} | {} | {} |",
        kind.name(),
        time(Side::Ours),
        time(Side::Peer),
        time(Side::Floor),
        time(Side::Loop),
        vs(Side::Peer),
        vs(Side::Floor),
        vs(Side::Loop),
    )
    .unwrap();
}

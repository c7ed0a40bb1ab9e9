//! Builds the sweep's report from the paired samples of `sweep run` (`samples.tsv`): per
//! regime and consumer, time per read of every tier (median of its rounds) and ratios
//! between tiers as medians of per-round ratios with a 95% bootstrap interval and the two
//! halves of the run side by side; the goals; the concurrent readers; the per-read counts
//! made under valgrind, and the other sections' tables; and two log-log plots (time per
//! read, and ratio to the `rocksdb` crate's `get`, `plot.rs`), with intervals drawn.
//!
//! `sweep report <samples dir> <output dir> [machine]` (the bench binary; see main.rs)

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use crate::paired::{median, Ratio};
use crate::plot::{ratio_plot, time_plot};
use crate::tiers::TIER_NAMES;

/// group -> size -> tier -> ns per read, one per round in order.
pub type Samples = BTreeMap<String, BTreeMap<usize, BTreeMap<String, Vec<f64>>>>;

fn read_samples(path: &Path) -> Samples {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    parse_samples(&text)
}

/// Samples from the text of a samples.tsv.
pub fn parse_samples(text: &str) -> Samples {
    let mut samples = Samples::new();
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        let [group, size, tier, _round, ns] = f[..] else {
            panic!("bad line {line:?}");
        };
        samples
            .entry(group.to_string())
            .or_default()
            .entry(size.parse().unwrap())
            .or_default()
            .entry(tier.to_string())
            .or_default()
            .push(ns.parse().unwrap());
    }
    samples
}

pub fn size_name(size: usize) -> String {
    match size {
        s if s >= 1 << 20 && s % (1 << 20) == 0 => format!("{} MB", s >> 20),
        s if s >= 1024 && s % 1024 == 0 => format!("{} KB", s >> 10),
        s => format!("{s} B"),
    }
}

fn time(ns: f64) -> String {
    match ns {
        x if x >= 1e6 => format!("{:.2} ms", x / 1e6),
        x if x >= 1e3 => format!("{:.2} µs", x / 1e3),
        x => format!("{x:.0} ns"),
    }
}

/// How closely the two halves of a run must agree: ±5% from 4 KB up, ±10% below.
fn tolerance(size: usize) -> f64 {
    if size >= 4096 {
        0.05
    } else {
        0.10
    }
}

fn agrees(r: &Ratio, size: usize) -> bool {
    let mean = (r.first_half + r.second_half) / 2.0;
    (r.first_half - r.second_half).abs() / mean <= tolerance(size)
}

/// "how many times faster `fast` is than `slow`", from times per read.
pub fn speedup(cells: &BTreeMap<String, Vec<f64>>, fast: &str, slow: &str) -> Option<Ratio> {
    Some(Ratio::of(cells.get(slow)?, cells.get(fast)?))
}

fn ratio_cell(r: Option<Ratio>, size: usize, tally: &mut (usize, usize)) -> String {
    match r {
        Some(r) => {
            tally.1 += 1;
            let ok = agrees(&r, size);
            if ok {
                tally.0 += 1;
            }
            format!("{}{}", r.cell(), if ok { "" } else { " ✗" })
        }
        None => "–".into(),
    }
}

/// The ratios reported per cell: (faster tier, slower tier, heading).
const RATIOS: [(&str, &str, &str); 7] = [
    ("pinned", "vec", "pinned vs vec"),
    ("buffer", "vec", "buffer vs vec"),
    ("bytes", "vec", "bytes vs vec"),
    (
        "pinned",
        "rocksdb_get_pinned",
        "pinned vs rocksdb `get_pinned`",
    ),
    ("vec", "rocksdb_get", "vec vs rocksdb `get`"),
    ("pinned", "raw_pinned", "pinned vs raw one-call pin"),
    ("vec", "raw_get", "vec vs C API `rocksdb_get`"),
];

/// Report order: memtable, block cache, no block cache; length-only consumer first.
fn group_rank(group: &str) -> (usize, bool) {
    let regime = ["memtable", "block_cache", "page_cache"]
        .iter()
        .position(|r| group.starts_with(r))
        .unwrap_or(3);
    (regime, !group.ends_with("/len"))
}

fn tier_tables(samples: &Samples, tally: &mut (usize, usize)) -> String {
    let mut out = String::new();
    let mut groups: Vec<_> = samples
        .iter()
        .filter(|(g, _)| !g.starts_with("concurrent"))
        .collect();
    groups.sort_by_key(|(g, _)| group_rank(g));
    for (group, by_size) in groups {
        let (regime, consumer) = group.split_once('/').unwrap_or((group, ""));
        let rounds = by_size
            .values()
            .flat_map(|t| t.values())
            .map(Vec::len)
            .max()
            .unwrap_or(0);
        let regime = match regime {
            "memtable" => "Memtable",
            "block_cache" => "Block cache",
            "page_cache" => "No block cache (blocks from the OS page cache)",
            other => other,
        };
        writeln!(
            out,
            "### {regime}, consumer reads {}\n",
            if consumer == "len" {
                "the length only"
            } else {
                "every byte"
            }
        )
        .unwrap();
        writeln!(out, "Time per read, median [min–max] of {rounds} rounds.\n").unwrap();
        write!(out, "| size |").unwrap();
        for tier in TIER_NAMES {
            write!(out, " {tier} |").unwrap();
        }
        write!(out, "\n|---|").unwrap();
        for _ in TIER_NAMES {
            write!(out, "---:|").unwrap();
        }
        writeln!(out).unwrap();
        for (size, cells) in by_size {
            write!(out, "| {} |", size_name(*size)).unwrap();
            for tier in TIER_NAMES {
                match cells.get(tier) {
                    Some(ns) => {
                        let mut sorted = ns.clone();
                        let med = median(&mut sorted);
                        let (lo, hi) = (sorted[0], sorted[sorted.len() - 1]);
                        write!(out, " {} [{}–{}] |", time(med), time(lo), time(hi)).unwrap()
                    }
                    None => write!(out, " – |").unwrap(),
                }
            }
            writeln!(out).unwrap();
        }
        writeln!(
            out,
            "\nSpeed-ups (how many times faster the first is), median of per-round ratios \
             [95% bootstrap interval] (first half / second half); `~`: the interval includes \
             1; ✗: the halves differ by more than ±5% (4 KB and up) or ±10% (below).\n"
        )
        .unwrap();
        write!(out, "| size |").unwrap();
        for (_, _, heading) in RATIOS {
            write!(out, " {heading} |").unwrap();
        }
        write!(out, "\n|---|").unwrap();
        for _ in RATIOS {
            write!(out, "---|").unwrap();
        }
        writeln!(out).unwrap();
        for (size, cells) in by_size {
            write!(out, "| {} |", size_name(*size)).unwrap();
            for (fast, slow, _) in RATIOS {
                let cell = ratio_cell(speedup(cells, fast, slow), *size, tally);
                write!(out, " {cell} |").unwrap();
            }
            writeln!(out).unwrap();
        }
        writeln!(out).unwrap();
    }
    out
}

/// The concurrent readers' table: per size, setup and thread count, time per read over all
/// threads, the pinned read's reads per second and its scaling from one thread, and the
/// pinned read against the `rocksdb` crate's `get_pinned` (paired).
pub fn concurrent_table(samples: &Samples, tally: &mut (usize, usize)) -> String {
    /// A cell: size, setup, threads, and its tiers' samples.
    type Cell<'s> = (usize, &'s str, usize, &'s BTreeMap<String, Vec<f64>>);
    let mut cells: Vec<Cell<'_>> = Vec::new();
    for (group, by_size) in samples.iter().filter(|(g, _)| g.starts_with("concurrent/")) {
        let mut parts = group.split('/').skip(1);
        let setup = parts.next().unwrap_or("");
        let threads: usize = parts.next().and_then(|t| t.parse().ok()).unwrap_or(0);
        for (size, tiers) in by_size {
            cells.push((*size, setup, threads, tiers));
        }
    }
    if cells.is_empty() {
        return String::new();
    }
    cells.sort_by_key(|&(size, setup, threads, _)| (size, setup_rank(setup), threads));
    let mut out = String::from(
        "### Concurrent readers, block cache, consumer reads the length only\n\n\
         Setups: `lru` (an LRU block cache in RocksDB's default shards), `hyper_clock` (a \
         HyperClockCache), `hot_reads` (the hot-read profile: a row cache before a \
         HyperClockCache); the `rocksdb` crate reads a database with the same settings. Time \
         per read over all threads (a slice's length over the reads every thread made); \
         pinned vs the peer paired as above. Thread counts are measured apart (not paired): \
         the scaling column is a plain ratio of the pinned read's medians, one thread over \
         N.\n\n\
         | size | setup | threads | pinned | buffer | vec | peer pinned | pinned reads/s | scaling from 1 thread | pinned vs peer |\n\
         |---|---|---:|---:|---:|---:|---:|---:|---:|---|\n",
    );
    let pinned_median = |size: usize, setup: &str, threads: usize| {
        let group = format!("concurrent/{setup}/{threads}");
        let ns = samples.get(&group)?.get(&size)?.get("pinned")?;
        Some(median(&mut ns.clone()))
    };
    for (size, setup, threads, tiers) in cells {
        let m = |tier: &str| tiers.get(tier).map(|ns| median(&mut ns.clone()));
        let pinned = m("pinned");
        let scaling = pinned_median(size, setup, 1)
            .zip(pinned)
            .map(|(one, n)| format!("{:.2}x", one / n))
            .unwrap_or_default();
        let per_second = pinned.map_or("–".into(), |ns| format!("{:.2} M", 1e3 / ns));
        let r = ratio_cell(speedup(tiers, "pinned", "rocksdb_get_pinned"), size, tally);
        writeln!(
            out,
            "| {} | {setup} | {threads} | {} | {} | {} | {} | {per_second} | {scaling} | {r} |",
            size_name(size),
            pinned.map_or("–".into(), time),
            m("buffer").map_or("–".into(), time),
            m("vec").map_or("–".into(), time),
            m("rocksdb_get_pinned").map_or("–".into(), time),
        )
        .unwrap();
    }
    out.push('\n');
    out
}

/// The report's order of the concurrent setups.
fn setup_rank(setup: &str) -> usize {
    crate::concurrent::SETUPS
        .iter()
        .position(|s| *s == setup)
        .unwrap_or(usize::MAX)
}

fn goals(samples: &Samples) -> String {
    let Some(cells) = samples.get("block_cache/len") else {
        return String::new();
    };
    let mut out = String::from(
        "### Goals (block cache, length-only consumer)\n\n\
         | goal | measured | met |\n|---|---|---|\n",
    );
    let goal = |out: &mut String, size: usize, at_least: f64| {
        if let Some(r) = cells.get(&size).and_then(|c| speedup(c, "pinned", "vec")) {
            let met = if r.low >= at_least {
                "yes (interval above)"
            } else if r.high < at_least {
                "no"
            } else {
                "within the interval"
            };
            writeln!(
                out,
                "| pinned vs vec ≥ {at_least}x at {} | {} | {met} |",
                size_name(size),
                r.cell()
            )
            .unwrap();
        }
    };
    goal(&mut out, 8, 1.0);
    goal(&mut out, 16, 1.0);
    goal(&mut out, 4096, 1.4);
    goal(&mut out, 65536, 5.0);
    goal(&mut out, 1 << 20, 100.0);
    out.push('\n');
    out
}

pub fn main(samples_dir: &Path, out_dir: &Path, machine: &str) {
    let samples = read_samples(&samples_dir.join("samples.tsv"));
    assert!(
        !samples.is_empty(),
        "no samples in {}",
        samples_dir.display()
    );
    let mut report = String::from("# pinrocks value-size sweep\n\n");
    if !machine.is_empty() {
        writeln!(report, "Machine: {machine}\n").unwrap();
    }
    report.push_str(
        "Every number below comes from `sweep run` (paired, interleaved rounds: in each cell \
         every tier reads for one slice per round, in an order balanced for position and \
         predecessor: a Williams design) unless its section names valgrind. Times are \
         medians of rounds; ratios are medians of per-round ratios between tiers of the same \
         round.\n\n",
    );
    let mut tally = (0usize, 0usize);
    let tables = tier_tables(&samples, &mut tally);
    let concurrent = concurrent_table(&samples, &mut tally);
    writeln!(
        report,
        "Reproducibility: the two halves of the run agree (±5% from 4 KB, ±10% below) for \
         {} of {} ratios.\n",
        tally.0, tally.1
    )
    .unwrap();
    report.push_str(&goals(&samples));
    report.push_str(&tables);
    report.push_str(&concurrent);
    for (file, title) in [
        ("instructions.md", "Instructions per read (callgrind)"),
        ("allocations.md", "Heap allocations per read, both sides (valgrind)"),
        (
            "zero-alloc.md",
            "Heap allocations per read: default build / clang + libc++ build",
        ),
        (
            "scans.md",
            "Scans: one iterator step and its entry, every way of iterating, paired ratios",
        ),
        (
            "batches.md",
            "Batches: pinned multi-get against single reads and the rocksdb crate's, per key, paired ratios",
        ),
        (
            "memtable.md",
            "Large values in the memtable: the pinned read (a copy) against two routes that pin them in place, paired ratios",
        ),
        (
            "scale.md",
            "Scale: reads against the number of keys, four cache regimes (plot: scale.svg)",
        ),
        (
            "blobs.md",
            "Values in blob files, with a blob cache and without (from the file), beside inline values: ns per read and paired ratios",
        ),
        (
            "blob-allocations.md",
            "Heap allocations per read of a value in a blob file, both sides (valgrind)",
        ),
        (
            "txn.md",
            "Reads inside a transaction (block cache): ns per read and paired ratios",
        ),
        (
            "merge.md",
            "Reads of merged keys (a u64 counter, operands pending in the memtable): ns per read and paired ratios",
        ),
        (
            "watched.md",
            "With an event listener and the info log in Rust, against neither: ns per operation and paired ratios",
        ),
        (
            "writes.md",
            "Writes: every kind, WAL on, off and synced, beside the rocksdb crate, the C API and a C++ loop, paired ratios (plot: writes.svg)",
        ),
        (
            "write-instructions.md",
            "Instructions per write, WAL on (callgrind; a batch's or a transaction's over its writes)",
        ),
        (
            "write-allocations.md",
            "Heap allocations per write, WAL on, every layer (valgrind)",
        ),
        (
            "concurrent-writes.md",
            "Writers across cores under RocksDB's write-group settings, and readers beside a writer",
        ),
        (
            "typed.md",
            "Typed reads of records: each format, one field and every field, beside the pinned read (plot: typed.svg)",
        ),
        (
            "typed-allocations.md",
            "Heap allocations per typed read of a record, every layer (valgrind)",
        ),
        (
            "typed-instructions.md",
            "Instructions per typed read of a record (callgrind)",
        ),
        (
            "merge-allocations.md",
            "Heap allocations per read of a merged key, both sides (valgrind)",
        ),
    ] {
        if let Ok(text) = std::fs::read_to_string(out_dir.join(file)) {
            writeln!(report, "### {title}\n\n{text}").unwrap();
        }
    }
    std::fs::create_dir_all(out_dir).unwrap();
    std::fs::write(out_dir.join("report.md"), &report).unwrap();
    std::fs::write(
        out_dir.join("sweep.svg"),
        time_plot(&samples, "block_cache/len"),
    )
    .unwrap();
    std::fs::write(
        out_dir.join("ratio.svg"),
        ratio_plot(&samples, "block_cache/len"),
    )
    .unwrap();
    print!("{report}");
    eprintln!(
        "wrote {0}/report.md, {0}/sweep.svg and {0}/ratio.svg",
        out_dir.display()
    );
}

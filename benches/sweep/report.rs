//! Builds the sweep's report from criterion's raw samples: a markdown table per regime and
//! consumer (ops/s as median [min-max] over criterion's samples, ratios between tiers
//! measured in the same run), the per-read counts made under valgrind, and a log-log SVG
//! of ops/s against value size, one line per tier.
//!
//! `sweep report <criterion dir> <output dir> [machine]` (the bench binary; see main.rs)

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use crate::tiers::{Consumer, Regime, TIER_NAMES};

/// Ops/s of each criterion sample (one sample = many iterations).
#[derive(Debug, Clone)]
struct Cell {
    median: f64,
    min: f64,
    max: f64,
    samples: usize,
}

fn read_cell(path: &Path) -> Option<Cell> {
    let text = std::fs::read_to_string(path).ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).ok()?;
    let iters = json["iters"].as_array()?;
    let times = json["times"].as_array()?;
    let mut ops: Vec<f64> = iters
        .iter()
        .zip(times)
        .filter_map(|(i, t)| Some(i.as_f64()? * 1e9 / t.as_f64()?))
        .collect();
    if ops.is_empty() {
        return None;
    }
    ops.sort_by(f64::total_cmp);
    let n = ops.len();
    let median = if n % 2 == 1 {
        ops[n / 2]
    } else {
        (ops[n / 2 - 1] + ops[n / 2]) / 2.0
    };
    Some(Cell {
        median,
        min: ops[0],
        max: ops[n - 1],
        samples: n,
    })
}

fn human(ops: f64) -> String {
    match ops {
        x if x >= 1e6 => format!("{:.2}M", x / 1e6),
        x if x >= 1e3 => format!("{:.1}K", x / 1e3),
        x => format!("{x:.0}"),
    }
}

fn size_name(size: usize) -> String {
    match size {
        s if s >= 1 << 20 && s % (1 << 20) == 0 => format!("{} MB", s >> 20),
        s if s >= 1024 && s % 1024 == 0 => format!("{} KB", s >> 10),
        s => format!("{s} B"),
    }
}

type Results = BTreeMap<(String, String), BTreeMap<usize, BTreeMap<String, Cell>>>;

fn collect(criterion: &Path) -> Results {
    let mut results = Results::new();
    for regime in Regime::ALL {
        for consumer in Consumer::ALL {
            let prefix = format!("{}_{}_", regime.name(), consumer.name());
            let Ok(entries) = std::fs::read_dir(criterion) else {
                continue;
            };
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                let Some(size) = name.strip_prefix(&prefix).and_then(|s| s.parse().ok()) else {
                    continue;
                };
                for tier in &TIER_NAMES {
                    let path = entry.path().join(tier).join("new/sample.json");
                    if let Some(cell) = read_cell(&path) {
                        results
                            .entry((regime.name().into(), consumer.name().into()))
                            .or_default()
                            .entry(size)
                            .or_default()
                            .insert(tier.to_string(), cell);
                    }
                }
            }
        }
    }
    results
}

/// "1.42x", with a mark where the ranges do not overlap (the difference is not noise).
fn ratio(a: &Cell, b: &Cell) -> String {
    let r = a.median / b.median;
    let clear = if a.min > b.max {
        " ▲"
    } else if a.max < b.min {
        " ▼"
    } else {
        ""
    };
    format!("{r:.2}x{clear}")
}

fn tables(results: &Results) -> String {
    let mut out = String::new();
    for ((regime, consumer), by_size) in results {
        let samples = by_size
            .values()
            .flat_map(|t| t.values())
            .map(|c| c.samples)
            .max()
            .unwrap_or(0);
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
        writeln!(
            out,
            "ops/s, median [min–max] over {samples} criterion samples per cell.\n"
        )
        .unwrap();
        write!(out, "| size |").unwrap();
        for tier in &TIER_NAMES {
            write!(out, " {tier} |").unwrap();
        }
        write!(out, "\n|---|").unwrap();
        for _ in &TIER_NAMES {
            write!(out, "---:|").unwrap();
        }
        writeln!(out).unwrap();
        for (size, cells) in by_size {
            write!(out, "| {} |", size_name(*size)).unwrap();
            for tier in &TIER_NAMES {
                match cells.get(*tier) {
                    Some(c) => write!(
                        out,
                        " {} [{}–{}] |",
                        human(c.median),
                        human(c.min),
                        human(c.max)
                    )
                    .unwrap(),
                    None => write!(out, " – |").unwrap(),
                }
            }
            writeln!(out).unwrap();
        }
        writeln!(
            out,
            "\nRatios of medians in the same run (▲/▼: the min–max ranges do not overlap).\n"
        )
        .unwrap();
        let pairs = [
            ("pinned", "vec"),
            ("buffer", "vec"),
            ("bytes", "vec"),
            ("pinned", "raw_pinned"),
            ("pinned", "rocksdb_get_pinned"),
            ("vec", "rocksdb_get"),
            ("vec", "raw_get"),
        ];
        write!(out, "| size |").unwrap();
        for (a, b) in pairs {
            write!(out, " {a} / {b} |").unwrap();
        }
        write!(out, " zero-copy wins |\n|---|").unwrap();
        for _ in pairs {
            write!(out, "---:|").unwrap();
        }
        writeln!(out, "---|").unwrap();
        for (size, cells) in by_size {
            write!(out, "| {} |", size_name(*size)).unwrap();
            for (a, b) in pairs {
                match (cells.get(a), cells.get(b)) {
                    (Some(a), Some(b)) => write!(out, " {} |", ratio(a, b)).unwrap(),
                    _ => write!(out, " – |").unwrap(),
                }
            }
            let wins = match (cells.get("pinned"), cells.get("vec")) {
                (Some(p), Some(v)) if p.min > v.max => "yes",
                (Some(p), Some(v)) if p.max < v.min => "no (slower)",
                _ => "not distinguishable",
            };
            writeln!(out, " {wins} |").unwrap();
        }
        writeln!(out).unwrap();
    }
    out
}

const COLORS: [&str; 9] = [
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
    "#17becf",
];

/// One log-log panel per regime and consumer, one polyline per tier.
fn svg(results: &Results) -> String {
    let (panel_w, panel_h, margin) = (520.0, 360.0, 60.0);
    let panels: Vec<_> = results.iter().collect();
    let cols = 2;
    let rows = panels.len().div_ceil(cols).max(1);
    let (w, h) = (cols as f64 * panel_w, rows as f64 * panel_h + 40.0);
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\" font-size=\"11\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    );
    for (i, ((regime, consumer), by_size)) in panels.iter().enumerate() {
        let (ox, oy) = ((i % cols) as f64 * panel_w, (i / cols) as f64 * panel_h);
        let all: Vec<f64> = by_size
            .values()
            .flat_map(|t| t.values())
            .map(|c| c.median)
            .collect();
        let (lo, hi) = all
            .iter()
            .fold((f64::MAX, f64::MIN), |(l, h), &v| (l.min(v), h.max(v)));
        let (ylo, yhi) = (
            lo.log10().floor(),
            hi.log10().ceil().max(lo.log10().floor() + 1.0),
        );
        let sizes: Vec<usize> = by_size.keys().copied().collect();
        let (xlo, xhi) = (
            (*sizes.first().unwrap_or(&8) as f64).log2(),
            (*sizes.last().unwrap_or(&8) as f64).log2().max(4.0),
        );
        let (pw, ph) = (panel_w - 2.0 * margin, panel_h - 2.0 * margin);
        let x = |s: usize| ox + margin + ((s as f64).log2() - xlo) / (xhi - xlo).max(1.0) * pw;
        let y = |v: f64| oy + margin + ph - (v.log10() - ylo) / (yhi - ylo) * ph;
        writeln!(
            out,
            "<text x=\"{}\" y=\"{}\" font-size=\"13\">{regime}, {consumer} (ops/s, log-log)</text>",
            ox + margin,
            oy + 30.0
        )
        .unwrap();
        writeln!(out, "<rect x=\"{}\" y=\"{}\" width=\"{pw}\" height=\"{ph}\" fill=\"none\" stroke=\"#999\"/>", ox + margin, oy + margin).unwrap();
        for decade in (ylo as i32)..=(yhi as i32) {
            let v = 10f64.powi(decade);
            writeln!(
                out,
                "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
                ox + margin - 4.0,
                y(v) + 4.0,
                human(v)
            )
            .unwrap();
            writeln!(
                out,
                "<line x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\" stroke=\"#eee\"/>",
                ox + margin,
                ox + margin + pw,
                y(v),
                y(v)
            )
            .unwrap();
        }
        for &s in &sizes {
            writeln!(
                out,
                "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
                x(s),
                oy + margin + ph + 14.0,
                size_name(s)
            )
            .unwrap();
        }
        for (t, tier) in TIER_NAMES.iter().enumerate() {
            let points: Vec<String> = by_size
                .iter()
                .filter_map(|(s, cells)| {
                    cells
                        .get(*tier)
                        .map(|c| format!("{:.1},{:.1}", x(*s), y(c.median)))
                })
                .collect();
            if points.is_empty() {
                continue;
            }
            let dash = if tier.starts_with("rocksdb_") || tier.starts_with("raw_") {
                " stroke-dasharray=\"4 3\""
            } else {
                ""
            };
            writeln!(
                out,
                "<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.6\"{dash}/>",
                points.join(" "),
                COLORS[t % COLORS.len()]
            )
            .unwrap();
        }
    }
    for (t, tier) in TIER_NAMES.iter().enumerate() {
        let lx = 20.0 + t as f64 * (w - 40.0) / TIER_NAMES.len() as f64;
        writeln!(out, "<rect x=\"{lx}\" y=\"{}\" width=\"12\" height=\"3\" fill=\"{}\"/><text x=\"{}\" y=\"{}\">{tier}</text>", h - 22.0, COLORS[t % COLORS.len()], lx + 16.0, h - 17.0).unwrap();
    }
    out.push_str("</svg>\n");
    out
}

pub fn main(args: &[String]) {
    let (criterion, out_dir) = match args {
        [c, o, ..] => (Path::new(c), Path::new(o)),
        _ => {
            eprintln!("usage: sweep report <criterion dir> <output dir> [machine]");
            std::process::exit(2);
        }
    };
    let machine = args.get(2).cloned().unwrap_or_default();
    let results = collect(criterion);
    assert!(
        !results.is_empty(),
        "no criterion samples under {}",
        criterion.display()
    );
    let mut report = String::from("# pinrocks value-size sweep\n\n");
    if !machine.is_empty() {
        writeln!(report, "Machine: {machine}\n").unwrap();
    }
    report.push_str(&tables(&results));
    for (file, title) in [
        ("instructions.md", "Instructions per read (callgrind)"),
        (
            "allocations.md",
            "Heap allocations per read, both sides (valgrind)",
        ),
        (
            "zero-alloc.md",
            "Heap allocations per read: default build / clang + libc++ build",
        ),
        (
            "merge.md",
            "Reads of merged keys (a u64 counter, operands pending in the memtable): ns per read and paired ratios",
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
    std::fs::write(out_dir.join("sweep.svg"), svg(&results)).unwrap();
    print!("{report}");
    eprintln!("wrote {0}/report.md and {0}/sweep.svg", out_dir.display());
}

//! The sweep's two log-log plots, as SVG: time per read of every tier, and each tier's
//! speed-up over the `rocksdb` crate's `get`, with the intervals drawn.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::paired::median;
use crate::report::{size_name, speedup, Samples};
use crate::tiers::TIER_NAMES;

const COLORS: [&str; 9] = [
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
    "#17becf",
];

/// The x axis' ticks: each distinct value of `xs` once, in order, with its label.
pub fn ticks(xs: &[usize], label: impl Fn(usize) -> String) -> Vec<(usize, String)> {
    let mut xs = xs.to_vec();
    xs.sort_unstable();
    xs.dedup();
    xs.into_iter().map(|x| (x, label(x))).collect()
}

/// A log-log plot of one value per line and x with an interval (`(x, value, low, high)`),
/// the x axis marked at `ticks`.
pub fn plot(
    title: &str,
    y_label: &str,
    points: &BTreeMap<&str, Vec<(usize, f64, f64, f64)>>,
    ticks: &[(usize, String)],
) -> String {
    let (w, h, m) = (760.0, 460.0, 70.0);
    let all: Vec<&(usize, f64, f64, f64)> = points.values().flatten().collect();
    if all.is_empty() {
        return String::new();
    }
    let lx = |s: usize| (s as f64).log10();
    let (x0, x1) = all.iter().fold((f64::MAX, f64::MIN), |(a, b), p| {
        (a.min(lx(p.0)), b.max(lx(p.0)))
    });
    let (y0, y1) = all.iter().fold((f64::MAX, f64::MIN), |(a, b), p| {
        (a.min(p.2.max(1e-9).log10()), b.max(p.3.max(1e-9).log10()))
    });
    let (y0, y1) = (y0.floor(), y1.ceil().max(y0.floor() + 1.0));
    let sx = |x: f64| m + (x - x0) / (x1 - x0).max(1e-9) * (w - 2.0 * m);
    let sy = |y: f64| h - m - (y.max(1e-9).log10() - y0) / (y1 - y0) * (h - 2.0 * m);
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{}\" font-family=\"sans-serif\" font-size=\"11\">\n\
         <text x=\"{m}\" y=\"20\" font-size=\"14\">{title}</text>\n\
         <text x=\"12\" y=\"{}\" transform=\"rotate(-90 12 {})\">{y_label}</text>\n",
        h + 30.0,
        h / 2.0,
        h / 2.0
    );
    for decade in (y0 as i32)..=(y1 as i32) {
        let y = sy(10f64.powi(decade));
        writeln!(out, "<line x1=\"{m}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\" stroke=\"#ddd\"/><text x=\"{}\" y=\"{}\" text-anchor=\"end\">1e{decade}</text>", w - m, m - 4.0, y + 4.0).unwrap();
    }
    for (tick, label) in ticks {
        let x = sx(lx(*tick));
        writeln!(out, "<line x1=\"{x}\" y1=\"{}\" x2=\"{x}\" y2=\"{m}\" stroke=\"#eee\"/><text x=\"{x}\" y=\"{}\" text-anchor=\"middle\">{label}</text>", h - m, h - m + 16.0).unwrap();
    }
    for (i, (tier, pts)) in points.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let line: Vec<String> = pts
            .iter()
            .map(|p| format!("{:.1},{:.1}", sx(lx(p.0)), sy(p.1)))
            .collect();
        writeln!(
            out,
            "<polyline fill=\"none\" stroke=\"{color}\" stroke-width=\"1.5\" points=\"{}\"/>",
            line.join(" ")
        )
        .unwrap();
        for p in pts {
            let x = sx(lx(p.0)) + (i as f64 - 4.0) * 1.5;
            writeln!(
                out,
                "<line x1=\"{x:.1}\" y1=\"{:.1}\" x2=\"{x:.1}\" y2=\"{:.1}\" stroke=\"{color}\"/>",
                sy(p.2),
                sy(p.3)
            )
            .unwrap();
        }
        let ly = h + 8.0 + (i / 5) as f64 * 14.0;
        let lxp = m + (i % 5) as f64 * 135.0;
        writeln!(out, "<rect x=\"{lxp}\" y=\"{}\" width=\"12\" height=\"3\" fill=\"{color}\"/><text x=\"{}\" y=\"{}\">{tier}</text>", ly - 4.0, lxp + 16.0, ly).unwrap();
    }
    out.push_str("</svg>\n");
    out
}

/// Time per read of every tier in `group`, with the 2.5%–97.5% range of its rounds.
pub fn time_plot(samples: &Samples, group: &str) -> String {
    let mut points: BTreeMap<&str, Vec<(usize, f64, f64, f64)>> = BTreeMap::new();
    if let Some(by_size) = samples.get(group) {
        for tier in TIER_NAMES {
            for (size, cells) in by_size {
                if let Some(ns) = cells.get(tier) {
                    let mut sorted = ns.clone();
                    let med = median(&mut sorted);
                    let q = |p: f64| sorted[((sorted.len() - 1) as f64 * p).round() as usize];
                    points
                        .entry(tier)
                        .or_default()
                        .push((*size, med, q(0.025), q(0.975)));
                }
            }
        }
    }
    plot(
        &format!("Time per read, {group} (median of rounds; bars: 2.5%-97.5% of rounds)"),
        "ns per read",
        &points,
        &ticks(&crate::run::SIZES, size_name),
    )
}

/// Every tier's speed-up over the `rocksdb` crate's `get`, with its bootstrap interval.
pub fn ratio_plot(samples: &Samples, group: &str) -> String {
    let mut points: BTreeMap<&str, Vec<(usize, f64, f64, f64)>> = BTreeMap::new();
    if let Some(by_size) = samples.get(group) {
        for tier in TIER_NAMES.iter().filter(|t| **t != "rocksdb_get") {
            for (size, cells) in by_size {
                if let Some(r) = speedup(cells, tier, "rocksdb_get") {
                    points
                        .entry(tier)
                        .or_default()
                        .push((*size, r.median, r.low, r.high));
                }
            }
        }
    }
    plot(
        &format!("Speed-up over the rocksdb crate's get, {group} (bars: 95% bootstrap interval)"),
        "times faster than rocksdb get",
        &points,
        &ticks(&crate::run::SIZES, size_name),
    )
}

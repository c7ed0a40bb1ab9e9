//! The sweep's log-log plots, as SVG drawn by plotters: time per read of every tier, each
//! tier's speed-up over the `rocksdb` crate's `get`, and reads against database size; each
//! point with its interval as an error bar.

use std::collections::BTreeMap;

use plotters::prelude::*;

use crate::paired::median;
use crate::report::{size_name, speedup, Samples};
use crate::tiers::TIER_NAMES;

/// One line's points: x, the value, and its interval (low, high).
pub type Points<'a> = BTreeMap<&'a str, Vec<(usize, f64, f64, f64)>>;

/// The x axis' ticks: each distinct value of `xs` once, in order, with its label.
pub fn ticks(xs: &[usize], label: impl Fn(usize) -> String) -> Vec<(usize, String)> {
    let mut xs = xs.to_vec();
    xs.sort_unstable();
    xs.dedup();
    xs.into_iter().map(|x| (x, label(x))).collect()
}

/// A log-log plot of one line per name, each point with its interval drawn as an error bar,
/// the x axis marked at `ticks` (an empty string when there is nothing to plot).
pub fn plot(title: &str, y_label: &str, points: &Points<'_>, ticks: &[(usize, String)]) -> String {
    // Only finite, positive points fit a log axis (plotters loops forever on an infinite
    // range): a samples file edited by hand may hold others.
    let fits = |p: &&(usize, f64, f64, f64)| {
        p.0 > 0 && [p.1, p.2, p.3].iter().all(|v| v.is_finite() && *v > 0.0)
    };
    let points: Points<'_> = points
        .iter()
        .map(|(name, pts)| (*name, pts.iter().filter(fits).copied().collect()))
        .collect();
    let points = &points;
    let all: Vec<&(usize, f64, f64, f64)> = points.values().flatten().collect();
    if all.is_empty() {
        return String::new();
    }
    let x = |p: &(usize, f64, f64, f64)| p.0 as f64;
    let (x0, x1) = all
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(x(p)), b.max(x(p))));
    let (y0, y1) = all.iter().fold((f64::MAX, f64::MIN), |(a, b), p| {
        (a.min(p.2.min(p.1)), b.max(p.3.max(p.1)))
    });
    let (y0, y1) = (y0.max(1e-9) / 1.5, y1.max(1e-9) * 1.5);
    let mut svg = String::new();
    draw(&mut svg, title, y_label, points, ticks, (x0, x1), (y0, y1))
        .unwrap_or_else(|e| panic!("plot {title:?}: {e}"));
    svg
}

/// [`plot`]'s drawing, with plotters' errors returned.
fn draw(
    svg: &mut String,
    title: &str,
    y_label: &str,
    points: &Points<'_>,
    ticks: &[(usize, String)],
    (x0, x1): (f64, f64),
    (y0, y1): (f64, f64),
) -> Result<(), Box<dyn std::error::Error>> {
    let root = SVGBackend::with_string(svg, (900, 500)).into_drawing_area();
    root.fill(&WHITE)?;
    // The legend in a column of its own, right of the plot: it hides no point.
    let (left, legend) = root.split_horizontally(700);
    let keys: Vec<f64> = ticks.iter().map(|(t, _)| *t as f64).collect();
    let label = |v: &f64| {
        ticks
            .iter()
            .find(|(t, _)| ((*t as f64) / v - 1.0).abs() < 1e-6)
            .map_or_else(String::new, |(_, l)| l.clone())
    };
    let mut chart = ChartBuilder::on(&left)
        .caption(title, ("sans-serif", 14))
        .margin(12)
        .x_label_area_size(32)
        .y_label_area_size(72)
        .build_cartesian_2d(
            (x0 / 1.3..x1 * 1.3).log_scale().with_key_points(keys),
            (y0..y1).log_scale(),
        )?;
    chart
        .configure_mesh()
        .y_desc(y_label)
        .x_label_formatter(&label)
        .y_label_formatter(&|v| short(*v))
        .light_line_style(WHITE)
        .draw()?;
    let n = points.len() as f64;
    for (i, (name, pts)) in points.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        // Each line a little apart, so that bars at one x do not hide each other.
        let shift = 10f64.powf((i as f64 - (n - 1.0) / 2.0) * 0.006);
        chart.draw_series(LineSeries::new(
            pts.iter().map(|p| (p.0 as f64 * shift, p.1)),
            color.stroke_width(2),
        ))?;
        chart.draw_series(pts.iter().map(|p| {
            ErrorBar::new_vertical(p.0 as f64 * shift, p.2, p.1, p.3, color.filled(), 6)
        }))?;
        let y = 40 + 18 * i as i32;
        legend.draw(&PathElement::new(
            vec![(4, y), (24, y)],
            color.stroke_width(2),
        ))?;
        legend.draw(&Text::new(
            name.to_string(),
            (30, y - 7),
            ("sans-serif", 12),
        ))?;
    }
    root.present()?;
    Ok(())
}

/// A tick label of a log axis: as few digits as its size needs.
fn short(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 1.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

/// Time per read of every tier in `group`, with the 2.5%–97.5% range of its rounds.
pub fn time_plot(samples: &Samples, group: &str) -> String {
    let mut points = Points::new();
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
    let mut points = Points::new();
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

//! Every ticker and histogram of a database's statistics, or every perf metric of a thread,
//! read at once and kept: typed lookups, and what changed between two.

use std::fmt;

use crate::options::metrics::{Histogram, PerfMetric, Ticker};
use crate::raw::statistics::RawHistogram;

/// A histogram's summary.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct HistogramData {
    /// Samples.
    pub count: u64,
    /// Their sum.
    pub sum: u64,
    /// Smallest.
    pub min: f64,
    /// Largest.
    pub max: f64,
    /// Mean.
    pub average: f64,
    /// Median.
    pub median: f64,
    /// 95th percentile.
    pub p95: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Standard deviation.
    pub std_dev: f64,
}

impl HistogramData {
    pub(crate) fn from_raw(raw: &RawHistogram) -> HistogramData {
        HistogramData {
            count: raw.count,
            sum: raw.sum,
            min: raw.min,
            max: raw.max,
            average: raw.average,
            median: raw.median,
            p95: raw.p95,
            p99: raw.p99,
            std_dev: raw.std_dev,
        }
    }
}

/// Every ticker and histogram of a [`Statistics`](crate::options::Statistics), read by
/// [`Statistics::snapshot`](crate::options::Statistics::snapshot).
#[derive(Clone, PartialEq)]
pub struct StatisticsSnapshot {
    tickers: Box<[u64]>,
    histograms: Box<[HistogramData]>,
}

impl StatisticsSnapshot {
    /// `tickers` and `histograms` hold one entry per `Ticker` and `Histogram`, in order.
    pub(crate) fn new(tickers: Box<[u64]>, histograms: Box<[HistogramData]>) -> Self {
        assert_eq!(
            (tickers.len(), histograms.len()),
            (Ticker::COUNT, Histogram::COUNT)
        );
        StatisticsSnapshot {
            tickers,
            histograms,
        }
    }

    /// A ticker's count.
    pub fn ticker(&self, ticker: Ticker) -> u64 {
        self.tickers[ticker.index()]
    }

    /// A histogram's summary.
    pub fn histogram(&self, histogram: Histogram) -> HistogramData {
        self.histograms[histogram.index()]
    }

    /// Every ticker and its count, in RocksDB's order.
    pub fn tickers(&self) -> impl Iterator<Item = (Ticker, u64)> + '_ {
        Ticker::ALL
            .iter()
            .copied()
            .zip(self.tickers.iter().copied())
    }

    /// Every histogram and its summary, in RocksDB's order.
    pub fn histograms(&self) -> impl Iterator<Item = (Histogram, HistogramData)> + '_ {
        Histogram::ALL
            .iter()
            .copied()
            .zip(self.histograms.iter().copied())
    }

    /// What was counted between `earlier` and this snapshot: each ticker's increase and each
    /// histogram's new samples (their count and sum; percentiles do not subtract). A value
    /// that went down (statistics reset in between) counts as 0.
    #[doc(alias = "diff")]
    pub fn since(&self, earlier: &StatisticsSnapshot) -> StatisticsDelta {
        let tickers = self
            .tickers
            .iter()
            .zip(earlier.tickers.iter())
            .map(|(now, then)| now.saturating_sub(*then))
            .collect();
        let histograms = self
            .histograms
            .iter()
            .zip(earlier.histograms.iter())
            .map(|(now, then)| HistogramDelta {
                count: now.count.saturating_sub(then.count),
                sum: now.sum.saturating_sub(then.sum),
            })
            .collect();
        StatisticsDelta {
            tickers,
            histograms,
        }
    }
}

/// Lists the tickers and histograms that are not zero, by RocksDB's names.
impl fmt::Debug for StatisticsSnapshot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        by_name(
            f,
            self.tickers().filter(|(_, count)| *count != 0),
            self.histograms().filter(|(_, data)| data.count != 0),
        )
    }
}

/// `tickers` and `histograms` as one map, by RocksDB's names.
fn by_name<C: fmt::Debug, H: fmt::Debug>(
    f: &mut fmt::Formatter<'_>,
    tickers: impl Iterator<Item = (Ticker, C)>,
    histograms: impl Iterator<Item = (Histogram, H)>,
) -> fmt::Result {
    f.debug_map()
        .entries(tickers.map(|(ticker, count)| (ticker.name(), count)))
        .entries(histograms.map(|(histogram, data)| (histogram.name(), data)))
        .finish()
}

/// The samples a histogram gained between two snapshots.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HistogramDelta {
    /// Samples added.
    pub count: u64,
    /// Their sum.
    pub sum: u64,
}

/// What two [`StatisticsSnapshot`]s differ by: [`StatisticsSnapshot::since`].
#[derive(Clone, PartialEq, Eq)]
pub struct StatisticsDelta {
    tickers: Box<[u64]>,
    histograms: Box<[HistogramDelta]>,
}

impl StatisticsDelta {
    /// How much a ticker went up.
    pub fn ticker(&self, ticker: Ticker) -> u64 {
        self.tickers[ticker.index()]
    }

    /// The samples a histogram gained.
    pub fn histogram(&self, histogram: Histogram) -> HistogramDelta {
        self.histograms[histogram.index()]
    }

    /// The tickers that went up, and by how much, in RocksDB's order.
    pub fn tickers(&self) -> impl Iterator<Item = (Ticker, u64)> + '_ {
        Ticker::ALL
            .iter()
            .copied()
            .zip(self.tickers.iter().copied())
            .filter(|(_, count)| *count != 0)
    }

    /// The histograms that gained samples, in RocksDB's order.
    pub fn histograms(&self) -> impl Iterator<Item = (Histogram, HistogramDelta)> + '_ {
        Histogram::ALL
            .iter()
            .copied()
            .zip(self.histograms.iter().copied())
            .filter(|(_, delta)| delta.count != 0)
    }
}

/// Lists what changed, by RocksDB's names.
impl fmt::Debug for StatisticsDelta {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        by_name(f, self.tickers(), self.histograms())
    }
}

/// Every perf metric of a thread, read by
/// [`PerfContext::snapshot`](crate::options::PerfContext::snapshot) (no allocation: it is
/// an array), or what changed between two ([`PerfSnapshot::since`]).
#[derive(Clone, PartialEq, Eq)]
pub struct PerfSnapshot {
    values: [u64; PerfMetric::COUNT],
}

impl PerfSnapshot {
    pub(crate) fn new(values: [u64; PerfMetric::COUNT]) -> Self {
        PerfSnapshot { values }
    }

    /// A metric's value.
    pub fn get(&self, metric: PerfMetric) -> u64 {
        self.values[metric.index()]
    }

    /// The metrics that are not zero, in the C API's order.
    pub fn nonzero(&self) -> impl Iterator<Item = (PerfMetric, u64)> + '_ {
        PerfMetric::ALL
            .iter()
            .copied()
            .zip(self.values.iter().copied())
            .filter(|(_, value)| *value != 0)
    }

    /// How much each metric went up since `earlier` (0 for one that went down: a reset in
    /// between).
    #[doc(alias = "diff")]
    pub fn since(&self, earlier: &PerfSnapshot) -> PerfSnapshot {
        let mut values = self.values;
        for (value, then) in values.iter_mut().zip(earlier.values.iter()) {
            *value = value.saturating_sub(*then);
        }
        PerfSnapshot { values }
    }
}

/// Lists the metrics that are not zero, by name.
impl fmt::Debug for PerfSnapshot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.nonzero().map(|(metric, value)| (metric.name(), value)))
            .finish()
    }
}

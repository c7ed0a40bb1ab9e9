//! Every one of RocksDB's tickers, histograms and perf-context metrics, typed. The lists are
//! not written here: `build/metrics.rs` reads them from the sources of the RocksDB being
//! linked (`statistics.h` and `statistics.cc`, `c.h` and `perf_context.h`) at build time,
//! with RocksDB's comment on each, so they cannot drift from it.

/// An enum of RocksDB's own numbering (`$variant = n`, dense from 0), its names and lookups.
macro_rules! metric_enum {
    ($(#[$outer:meta])* $name:ident,
     $($(#[$doc:meta])* $variant:ident = $value:literal => $text:literal,)*) => {
        $(#[$outer])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        #[repr(u32)]
        pub enum $name {
            $($(#[$doc])* $variant = $value,)*
        }

        impl $name {
            /// Every one, in RocksDB's order: `ALL[i]` is number `i`.
            pub const ALL: &'static [$name] = &[$($name::$variant,)*];

            /// How many this build of RocksDB has.
            pub const COUNT: usize = Self::ALL.len();

            /// RocksDB's name for it.
            pub fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)*
                }
            }

            /// The one RocksDB names `name`, if any.
            pub fn from_name(name: &str) -> Option<$name> {
                Self::ALL.iter().copied().find(|it| it.name() == name)
            }

            /// Its number in RocksDB's enum, and its place in [`Self::ALL`].
            pub fn index(self) -> usize {
                self as usize
            }
        }
    };
}

// `with_tickers!`, `with_histograms!`, `with_perf_metrics!`: each hands its whole list to
// `metric_enum!` after the tokens it is given.
include!(concat!(env!("OUT_DIR"), "/metric_lists.rs"));

with_tickers! {
    /// A statistics counter (RocksDB's `Tickers`): every one this build of RocksDB has,
    /// documented with RocksDB's own comment and named as RocksDB names it. Read one with
    /// [`Statistics::ticker`](crate::options::Statistics::ticker), all at once with
    /// [`Statistics::snapshot`](crate::options::Statistics::snapshot).
    Ticker,
}

with_histograms! {
    /// A statistics histogram (RocksDB's `Histograms`): every one this build of RocksDB has.
    /// Read one with [`Statistics::histogram`](crate::options::Statistics::histogram), all at
    /// once with [`Statistics::snapshot`](crate::options::Statistics::snapshot).
    Histogram,
}

with_perf_metrics! {
    /// A perf context counter: every one RocksDB's C API lists (`rocksdb_perfcontext_metric`),
    /// named as `PerfContext`'s fields. Per-level counters and the IO stats context are not
    /// among them.
    PerfMetric,
}

/// The names these tickers had before every ticker was typed (they are RocksDB's now).
#[allow(non_upper_case_globals)]
impl Ticker {
    /// Keys written.
    #[deprecated(note = "named as RocksDB names it now: `Ticker::NumberKeysWritten`")]
    pub const KeysWritten: Ticker = Ticker::NumberKeysWritten;
    /// Keys read.
    #[deprecated(note = "named as RocksDB names it now: `Ticker::NumberKeysRead`")]
    pub const KeysRead: Ticker = Ticker::NumberKeysRead;
    /// Iterator seeks.
    #[deprecated(note = "named as RocksDB names it now: `Ticker::NumberDbSeek`")]
    pub const DbSeek: Ticker = Ticker::NumberDbSeek;
    /// Table files opened.
    #[deprecated(note = "named as RocksDB names it now: `Ticker::NoFileOpens`")]
    pub const FileOpens: Ticker = Ticker::NoFileOpens;
    /// Merges that failed.
    #[deprecated(note = "named as RocksDB names it now: `Ticker::NumberMergeFailures`")]
    pub const MergeFailures: Ticker = Ticker::NumberMergeFailures;
    /// WAL syncs.
    #[deprecated(note = "named as RocksDB names it now: `Ticker::WalFileSynced`")]
    pub const WalSynced: Ticker = Ticker::WalFileSynced;
    /// Bytes written to the WAL.
    #[deprecated(note = "named as RocksDB names it now: `Ticker::WalFileBytes`")]
    pub const WalBytes: Ticker = Ticker::WalFileBytes;
    /// Blocks compressed.
    #[deprecated(note = "named as RocksDB names it now: `Ticker::NumberBlockCompressed`")]
    pub const BlocksCompressed: Ticker = Ticker::NumberBlockCompressed;
    /// Times the rate limiter ran dry.
    #[deprecated(note = "named as RocksDB names it now: `Ticker::NumberRateLimiterDrains`")]
    pub const RateLimiterDrains: Ticker = Ticker::NumberRateLimiterDrains;
}

/// The name this histogram had before every histogram was typed.
#[allow(non_upper_case_globals)]
impl Histogram {
    /// Microseconds per multi-get.
    #[deprecated(note = "named as RocksDB names it now: `Histogram::DbMultiget`")]
    pub const DbMultiGet: Histogram = Histogram::DbMultiget;
}

#[cfg(test)]
mod tests {
    use super::{Histogram, PerfMetric, Ticker};

    #[test]
    fn every_list_is_numbered_as_rocksdb_numbers_it() {
        for (i, ticker) in Ticker::ALL.iter().enumerate() {
            assert_eq!(ticker.index(), i);
            assert_eq!(Ticker::from_name(ticker.name()), Some(*ticker));
        }
        for (i, histogram) in Histogram::ALL.iter().enumerate() {
            assert_eq!(histogram.index(), i);
            assert_eq!(Histogram::from_name(histogram.name()), Some(*histogram));
        }
        for (i, metric) in PerfMetric::ALL.iter().enumerate() {
            assert_eq!(metric.index(), i);
            assert_eq!(PerfMetric::from_name(metric.name()), Some(*metric));
        }
        // A few fixed points of RocksDB 11.8.1's numbering and names.
        assert_eq!(Ticker::BlockCacheMiss.index(), 0);
        assert_eq!(Ticker::BlockCacheMiss.name(), "rocksdb.block.cache.miss");
        assert_eq!(Histogram::DbGet.index(), 0);
        assert_eq!(Histogram::DbMultiget.name(), "rocksdb.db.multiget.micros");
        assert_eq!(PerfMetric::BlockReadCount.index(), 2);
        assert_eq!(PerfMetric::BlobCacheReadByte.name(), "blob_cache_read_byte");
        assert_eq!(Ticker::from_name("rocksdb.no.such.ticker"), None);
    }
}

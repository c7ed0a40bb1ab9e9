//! What is set before a database opens: database and column family options, blob files, the block
//! cache, compression, compaction styles, rate limiters, table and memtable formats, shared
//! budgets, recovery from background errors, a profile for hot point reads, statistics, user-defined timestamps, file systems in memory, and options loaded from a database's own OPTIONS file.

pub(crate) mod blob_files;
pub(crate) mod budgets;
pub(crate) mod by_name;
pub(crate) mod cache;
pub(crate) mod compaction_style;
pub(crate) mod compression;
pub(crate) mod contract;
pub(crate) mod contract_rules;
pub(crate) mod contract_table;
pub(crate) mod db_options;
pub(crate) mod env_owner;
pub(crate) mod error_recovery;
#[cfg(feature = "fault-injection")]
pub(crate) mod fault_fs;
pub(crate) mod formats;
pub(crate) mod hot_reads;
pub(crate) mod mem_env;
pub(crate) mod metric_snapshots;
pub(crate) mod metrics;
pub(crate) mod optimistic_db_options;
pub(crate) mod rate_limiter;
pub(crate) mod statistics;
pub(crate) mod stored_options;
pub(crate) mod table_options;
pub(crate) mod table_settings;
pub(crate) mod timestamps;
pub(crate) mod transaction_options;
pub(crate) mod tuning;

pub use budgets::{CpuPriority, Env, SstFileManager, ThreadPool, WriteBufferManager};
pub use cache::{Cache, HyperClockCacheOptions, LruCacheOptions};
pub use compaction_style::{CompactionStyle, FifoOptions, UniversalOptions};
pub use compression::{Compression, CompressionOptions};
pub use contract::{option_contracts, OptionContract};
pub use contract_rules::MAX_POOL_THREADS;
pub use db_options::WalRecoveryMode;
#[cfg(feature = "fault-injection")]
#[cfg_attr(docsrs, doc(cfg(feature = "fault-injection")))]
pub use fault_fs::{FaultFs, FaultKind, StopError};
pub use formats::{Memtable, PlainTableOptions, PrefixExtractor};
pub use hot_reads::HotReads;
pub use mem_env::MemEnv;
pub use metric_snapshots::{
    HistogramData, HistogramDelta, PerfSnapshot, StatisticsDelta, StatisticsSnapshot,
};
pub use metrics::{Histogram, PerfMetric, Ticker};
pub use optimistic_db_options::{OccLockBuckets, OccValidation, OptimisticTransactionDbOptions};
pub use rate_limiter::{IoPriority, RateLimiter, RateLimiterMode, RateLimiterOptions};
pub use statistics::{crc32c_mode, LevelPerf, PerfContext, PerfLevel, Statistics, StatsLevel};
pub use stored_options::StoredOptions;
pub use table_options::{
    BlockBasedOptions, ChecksumType, DataBlockIndexType, FilterPolicy, IndexType,
};
pub use transaction_options::{
    OptimisticTransactionOptions, TransactionDbOptions, TransactionOptions,
};

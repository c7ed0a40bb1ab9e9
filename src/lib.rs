//! # pinrocks
//!
//! RocksDB with zero-copy reads that the compiler polices.
//!
//! Three read tiers, on every column family and with any read options (see [`Reader`]):
//!
//! * **Vec** — [`Reader::get`]: a new `Vec<u8>` per read, one copy.
//! * **buffer** — [`Reader::get_into`]: one copy into the caller's memory, no allocation,
//!   answered by a [`CopyResult`].
//! * **pinned** — [`Reader::get_pinned`]: a closure reads the bytes where RocksDB holds
//!   them; the pin ends when the closure returns, and the borrow checker rejects any use of
//!   the bytes after that.
//!
//! ```
//! use pinrocks::{Db, Options};
//!
//! # fn main() -> pinrocks::Result<()> {
//! let dir = tempfile::tempdir().unwrap();
//! let mut options = Options::new();
//! options.create_if_missing(true);
//! let db = Db::open(&options, dir.path())?;
//!
//! db.put(b"greeting", b"hello, world")?;
//! let first_word = db.get_pinned(b"greeting", |v| v.split(|&b| b == b',').next().map(<[u8]>::len))?;
//! assert_eq!(first_word, Some(Some(5)));
//! # Ok(()) }
//! ```
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]

// The static RocksDB library comes from librocksdb-sys; we only use its build.
use librocksdb_sys as _;

mod admin;
mod callbacks;
pub mod codec;
mod db;
mod options;
mod raw;
mod read;
mod typed;
mod write;

pub use admin::backup::{BackupEngine, BackupInfo};
pub use admin::live_options::MemoryUsage;
pub use admin::maintenance::BackgroundError;
pub use admin::maintenance_options::{
    BlobGarbageCollection, Bottommost, CompactOptions, FlushOptions,
};
pub use admin::metadata::{
    BlobFileMetadata, ColumnFamilyMetadata, LevelMetadata, LiveFile, MayExist, SstFileMetadata,
};
pub use admin::properties::{MemtableStats, Property, PropertyMap, PropertyValue};
pub use admin::property_names as properties;
pub use admin::sst::{verify_sst_file, IngestOptions, SstFileWriter};
pub use admin::updates::{LoggedBatch, Updates};
pub use callbacks::compaction_filter::{
    CompactionContext, CompactionFilter, CompactionFilterFactory, Decision, TypedDecision,
};
pub use callbacks::comparator::Comparator;
pub use callbacks::event_info::{
    BackgroundErrorInfo, CompactionInfo, FlushInfo, IngestionInfo, MemtableInfo, RecoveryInfo,
    StallCondition, StallInfo, TableFileInfo, TableFileReason,
};
pub use callbacks::event_listener::{EventListener, Events};
pub use callbacks::info_log::{InfoLog, LogLevel};
pub use callbacks::merge::{MergeError, MergeInput, MergeOperands, MergeOperator, MergeOutput};
pub use callbacks::prefix_extractor::CustomPrefix;
pub use db::column_family::ColumnFamily;
pub use db::database::Db;
pub use db::family_handle::DEFAULT_COLUMN_FAMILY;
pub use db::snapshot::Snapshot;
pub use options::budgets::{Env, SstFileManager, ThreadPool, WriteBufferManager};
pub use options::cache::{Cache, LruCacheOptions};
pub use options::compaction_style::{CompactionStyle, FifoOptions, UniversalOptions};
pub use options::compression::{Compression, CompressionOptions};
pub use options::contract::{option_contracts, OptionContract};
pub use options::contract_rules::MAX_POOL_THREADS;
pub use options::db_options::{Options, WalRecoveryMode};
#[cfg(feature = "fault-injection")]
#[cfg_attr(docsrs, doc(cfg(feature = "fault-injection")))]
pub use options::fault_fs::{FaultFs, FaultKind, StopError};
pub use options::formats::{Memtable, PlainTableOptions, PrefixExtractor};
pub use options::mem_env::MemEnv;
pub use options::optimistic_db_options::{
    OccLockBuckets, OccValidation, OptimisticTransactionDbOptions,
};
pub use options::rate_limiter::RateLimiter;
pub use options::statistics::{
    crc32c_mode, Histogram, HistogramData, PerfContext, PerfLevel, PerfMetric, Statistics,
    StatsLevel, Ticker,
};
pub use options::stored_options::StoredOptions;
pub use options::table_options::{
    BlockBasedOptions, ChecksumType, DataBlockIndexType, FilterPolicy, IndexType,
};
pub use options::transaction_options::{
    OptimisticTransactionOptions, TransactionDbOptions, TransactionOptions,
};
pub use raw::batch_records::BatchRecord;
pub use raw::error::{Error, ErrorKind, ErrorSeverity, Result};
pub use raw::ffi;
pub use raw::new_value::{NewValue, OutOfMemory};
pub use read::columns::Columns;
pub use read::cursor::Cursor;
pub use read::entity::{Entity, PinnedEntity};
pub use read::entries::Entries;
pub use read::key_range::{KeyBounds, KeyRange};
pub use read::pinned_value::PinnedValue;
pub use read::read_controls::ReadTier;
pub use read::read_options::ReadOptions;
pub use read::reader::{CopyResult, Reader};
pub use read::source::{BatchSource, DbSource, ReadSource, TransactionSource};
pub use read::timestamps::{KeyVersion, VersionKind};
pub use typed::entity_table::{EncodedColumns, EntityCodec, EntityTable};
pub use typed::iter::TypedIter;
pub use typed::reader::TypedReader;
pub use typed::table::Table;
pub use typed::writer::TypedWriter;
pub use write::batch::BatchTarget;
pub use write::batch::WriteBatch;
pub use write::indexed_batch::IndexedBatch;
pub use write::indexed_batch::IndexedBatchTarget;
pub use write::target::{DbTarget, LogDataTarget, WriteTarget};
pub use write::transaction::Transaction;
pub use write::transaction::{Lock, TransactionTarget};
pub use write::write_options::WriteOptions;
pub use write::writer::Writer;

/// What outlives what: the drop orders safe code can write, each refused by the compiler
/// (`compile_fail`) or safe at run time (docs/drop-order.md).
#[cfg(doctest)]
#[doc = include_str!("../docs/drop-order.md")]
pub struct DropOrderDoctests;

/// The guide's examples (docs/guide.md), compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/guide.md")]
pub struct GuideDoctests;

/// The transactions page's examples (docs/transactions.md), as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/transactions.md")]
pub struct TransactionsDoctests;

/// The callbacks page's examples (docs/callbacks.md), as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/callbacks.md")]
pub struct CallbacksDoctests;

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

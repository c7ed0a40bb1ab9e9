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
#![deny(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]

// The static RocksDB library comes from librocksdb-sys; we only use its build.
use librocksdb_sys as _;

mod backup;
mod batch;
mod cache;
pub mod codec;
mod column_family;
mod compaction_filter;
mod compaction_style;
mod comparator;
mod compression;
mod db;
mod error;
pub mod ffi;
mod handles;
mod indexed_batch;
mod iter;
#[cfg(test)]
mod layout_tests;
mod live_options;
mod merge;
mod metadata;
mod new_value;
mod open;
mod options;
mod pinned;
mod pinned_value;
mod rate_limiter;
mod read;
mod reentry;
mod snapshot;
mod source;
mod sst;
mod statistics;
mod stored_options;
mod table;
mod table_batch;
mod table_options;
mod table_transaction;
mod transaction;
mod updates;
mod write;

pub use backup::{BackupEngine, BackupInfo};
pub use batch::{BatchRecord, WriteBatch};
pub use cache::{Cache, LruCacheOptions};
pub use column_family::ColumnFamily;
pub use compaction_filter::{
    CompactionContext, CompactionFilter, CompactionFilterFactory, Decision, TypedDecision,
};
pub use compaction_style::{CompactionStyle, FifoOptions, UniversalOptions};
pub use comparator::Comparator;
pub use compression::{Compression, CompressionOptions};
pub use db::Db;
pub use error::{Error, ErrorKind, Result};
pub use handles::DEFAULT_COLUMN_FAMILY;
pub use indexed_batch::IndexedBatch;
pub use iter::{DbIterator, Entries, KeyBounds, KeyRange};
pub use live_options::MemoryUsage;
pub use merge::{MergeError, MergeInput, MergeOperands, MergeOperator, MergeOutput};
pub use metadata::{ColumnFamilyMetadata, LevelMetadata, LiveFile, SstFileMetadata};
pub use new_value::{NewValue, OutOfMemory};
pub use options::{Options, PrefixExtractor, ReadOptions, WalRecoveryMode, WriteOptions};
pub use pinned_value::PinnedValue;
pub use rate_limiter::RateLimiter;
pub use read::{CopyResult, Reader};
pub use snapshot::Snapshot;
pub use source::{FromBatch, FromDb, FromTransaction};
pub use sst::{IngestOptions, SstFileWriter};
pub use statistics::{
    crc32c_mode, Histogram, HistogramData, PerfContext, PerfLevel, PerfMetric, Statistics, Ticker,
};
pub use stored_options::StoredOptions;
pub use table::{Table, TypedIter};
pub use table_batch::BatchTable;
pub use table_options::{
    BlockBasedOptions, ChecksumType, DataBlockIndexType, FilterPolicy, IndexType,
};
pub use table_transaction::TransactionTable;
pub use transaction::{
    OptimisticTransactionOptions, Transaction, TransactionDbOptions, TransactionOptions,
};
pub use updates::{LoggedBatch, Updates};
pub use write::Writer;

/// What outlives what: the drop orders safe code can write, each refused by the compiler
/// (`compile_fail`) or safe at run time (docs/drop-order.md).
#[cfg(doctest)]
#[doc = include_str!("../docs/drop-order.md")]
pub struct DropOrderDoctests;

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

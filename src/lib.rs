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
//!
//! The everyday names are here at the root; the rest is where one looks for it:
//! [`options`] (caches, compression, table formats, statistics, transaction databases'
//! options, the option table), [`read`] (sources, ranges, entities, read tiers),
//! [`write`](mod@write) (write targets, transaction locks, batch records), [`typed`] (typed readers,
//! writers and entity tables over [`codec`]s), [`callbacks`] (merge operators, compaction
//! filters, comparators, event listeners, the info log) and [`admin`] (backups, SST files,
//! metadata, properties, maintenance, the WAL's updates).
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]

// The static RocksDB library comes from librocksdb-sys; we only use its build.
use librocksdb_sys as _;

pub mod admin;
pub mod callbacks;
pub mod codec;
mod db;
pub mod options;
mod raw;
pub mod read;
pub mod typed;
pub mod write;

pub use admin::property_names as properties;
pub use db::column_family::ColumnFamily;
pub use db::database::Db;
pub use db::family_handle::DEFAULT_COLUMN_FAMILY;
pub use db::snapshot::Snapshot;
pub use options::db_options::Options;
pub use raw::error::{Error, ErrorKind, ErrorSeverity, Result};
pub use raw::ffi;
pub use read::cursor::Cursor;
pub use read::owned_cursor::OwnedCursor;
pub use read::pinned_value::PinnedValue;
pub use read::read_options::ReadOptions;
pub use read::reader::{CopyResult, Reader};
pub use typed::table::Table;
pub use write::batch::WriteBatch;
pub use write::indexed_batch::IndexedBatch;
pub use write::transaction::Transaction;
pub use write::write_options::WriteOptions;
pub use write::writer::Writer;

/// The RocksDB version pinrocks is built on and links, as its headers name it: `11.8.1`
/// (`librocksdb-sys =0.19.0`), or `11.12.0` in the build `scripts/rocksdb-11.12.sh` tests.
///
/// ```
/// assert_eq!(pinrocks::ROCKSDB_VERSION.split('.').count(), 3);
/// ```
pub const ROCKSDB_VERSION: &str = env!("PINROCKS_ROCKSDB_VERSION");

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

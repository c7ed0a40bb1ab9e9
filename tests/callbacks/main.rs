//! User code RocksDB calls: merge operators, compaction filters, comparators,
//! table-properties collectors, WAL filters.
//!
//! One test binary per concept (each links a static RocksDB): its files are modules.

#[path = "../common/mod.rs"]
mod common;

mod compaction_filter;
mod comparator;
mod merge;
mod table_properties;
mod wal_filter;

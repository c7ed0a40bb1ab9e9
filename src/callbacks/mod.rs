//! The user's code that RocksDB calls: merge operators, compaction filters, comparators.
//! Each trait's trampolines catch panics at the FFI boundary and keep the database going.

pub(crate) mod compaction_filter;
pub(crate) mod comparator;
pub(crate) mod merge;

//! The user's code that RocksDB calls: merge operators, compaction filters, comparators,
//! prefix extractors, table-properties collectors, WAL filters, the info log, event
//! listeners (and what their events tell). Each trait's trampolines catch panics at the FFI boundary and keep
//! the database going, or (where RocksDB cannot go on without an answer) abort with a
//! message.

pub(crate) mod compaction_filter;
pub(crate) mod comparator;
pub(crate) mod event_info;
pub(crate) mod event_listener;
pub(crate) mod info_log;
pub(crate) mod merge;
pub(crate) mod prefix_extractor;
pub(crate) mod table_properties;
pub(crate) mod wal_filter;

pub use crate::raw::new_value::{NewValue, OutOfMemory};
pub use compaction_filter::{
    CompactionContext, CompactionFilter, CompactionFilterFactory, Decision, TypedDecision,
};
pub use comparator::Comparator;
pub use event_info::{
    BackgroundErrorInfo, CompactionInfo, FlushInfo, IngestionInfo, MemtableInfo, RecoveryInfo,
    StallCondition, StallInfo, TableFileInfo, TableFileReason,
};
pub use event_listener::{EventListener, Events};
pub use info_log::{InfoLog, LogLevel};
pub use merge::{MergeError, MergeInput, MergeOperands, MergeOperator, MergeOutput};
pub use prefix_extractor::CustomPrefix;
pub use table_properties::{EntryKind, TablePropertiesCollector, TablePropertiesCollectorFactory};
pub use wal_filter::{WalAction, WalFilter, WalRecord};

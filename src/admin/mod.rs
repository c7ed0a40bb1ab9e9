//! Running a database: backups, SST files, file and level metadata, the write-ahead log's
//! updates, and options changed while it is open.

pub(crate) mod backup;
pub(crate) mod live_options;
pub(crate) mod metadata;
pub(crate) mod sst;
pub(crate) mod updates;

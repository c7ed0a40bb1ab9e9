//! Running a database: backups, SST files, file and level metadata, typed properties, the write-ahead log's
//! updates, options changed while it is open, the history a family with timestamps keeps, and maintenance (manual compactions and
//! flushes, background work, destroy and repair).

pub(crate) mod backup;
pub(crate) mod export_import;
pub(crate) mod live_options;
pub(crate) mod maintenance;
pub(crate) mod maintenance_options;
pub(crate) mod metadata;
pub(crate) mod properties;
pub mod property_names;
pub(crate) mod sst;
pub(crate) mod timestamp_history;
pub(crate) mod tracing;
pub(crate) mod updates;

pub use backup::{BackupEngine, BackupInfo};
pub use export_import::ExportedFamily;
pub use live_options::{MemoryUsage, OptionsInForce};
pub use maintenance::BackgroundError;
pub use maintenance_options::{BlobGarbageCollection, Bottommost, CompactOptions, FlushOptions};
pub use metadata::{
    BlobFileMetadata, ColumnFamilyMetadata, LevelMetadata, LiveFile, MayExist, SstFileMetadata,
    TableProperties,
};
pub use properties::{MemtableStats, Property, PropertyMap, PropertyValue};
pub use sst::{verify_sst_file, IngestOptions, SstFileWriter};
pub use tracing::TraceOptions;
pub use updates::{LoggedBatch, Updates};

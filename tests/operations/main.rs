//! Running a database: every kind of open, configuration, caches, data in and out, administration.
//!
//! One test binary per concept (each links a static RocksDB): its files are modules.

#[path = "../common/mod.rs"]
mod common;

mod admin;
mod background_faults;
mod budgets;
mod cache;
mod configuration;
mod corruption;
mod corruption_files;
mod crash_workload;
mod data_in_out;
mod events;
mod export_import;
mod families;
mod faults;
mod formats;
mod info_log;
mod kinds;
mod maintenance;
mod mem_env;
mod metrics;
mod numbers;
mod option_fields;
mod placement;
mod rate_limits;
mod recovery_hangs;
mod row_cache;
mod small_disk;
mod tracing;

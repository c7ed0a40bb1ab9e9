//! Writes: one surface into every target, transactions, indexed batches, and a model of them.
//!
//! One test binary per concept (each links a static RocksDB): its files are modules.

#[path = "../common/mod.rs"]
mod common;

mod batch_bytes;
mod dropped_family_locks;
mod indexed_batch;
mod model;
mod optimistic_options;
mod transactions;
mod write_surface;

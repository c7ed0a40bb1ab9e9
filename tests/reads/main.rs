//! Reads: every tier through every source, scans, zero-copy proofs and typed reads.
//!
//! One test binary per concept (each links a static RocksDB): its files are modules.

#[path = "../common/mod.rs"]
mod common;

mod blob_gc;
mod blobs;
mod controls;
mod entities;
mod entity_model;
mod entity_tiers;
mod entity_typed;
mod owned_cursor;
mod pinned;
mod scans;
mod tiers;
mod timestamp_files;
mod timestamp_history;
mod timestamp_model;
mod timestamps;
mod typed;
mod typed_flat;
mod typed_records;
mod typed_rkyv;
mod typed_rkyv_depth;
mod zero_copy;

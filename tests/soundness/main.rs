//! What safe code cannot break: owners, drop orders at run time, out-of-memory, and errors.
//!
//! One test binary per concept (each links a static RocksDB): its files are modules.

#[path = "../common/mod.rs"]
mod common;

mod errors;
mod option_contract;
mod option_fuzz;
mod refused_writes;
mod soundness;
mod soundness_owners;
mod thrown_opens;
mod thrown_reads;

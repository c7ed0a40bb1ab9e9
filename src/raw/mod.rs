//! The raw core, at the bottom of the house: the generated bindings, RocksDB's error
//! pointer and status codes as [`Error`](crate::Error), the pins the C API hands out, the
//! guard against calls from inside callbacks, and buffers RocksDB frees. Imports nothing
//! above it.

pub(crate) mod backup;
pub(crate) mod batch;
pub(crate) mod batch_records;
pub(crate) mod block_based;
pub(crate) mod budgets;
pub(crate) mod c_consts;
pub(crate) mod c_types;
pub(crate) mod cache;
pub(crate) mod callback_objects;
pub(crate) mod cstr;
pub(crate) mod db;
pub(crate) mod db_families;
pub(crate) mod db_state;
pub(crate) mod entity;
pub(crate) mod envs;
pub(crate) mod error;
pub(crate) mod family;
pub mod ffi;
pub(crate) mod handle_calls;
pub(crate) mod indexed_batch;
pub(crate) mod iterator;
#[cfg(test)]
mod layout_tests;
pub(crate) mod metadata;
pub(crate) mod new_value;
pub(crate) mod open;
pub(crate) mod options_callbacks;
pub(crate) mod options_handle;
pub(crate) mod options_text;
pub(crate) mod owned;
pub(crate) mod pairs;
pub(crate) mod pinned;
pub(crate) mod read_options;
pub(crate) mod read_source;
pub(crate) mod recovered;
pub(crate) mod reentry;
pub(crate) mod setter;
pub(crate) mod sst;
pub(crate) mod statistics;
pub(crate) mod table_properties;
pub(crate) mod tracing;
pub(crate) mod trampoline;
pub(crate) mod transaction;
pub(crate) mod transaction_options;
pub(crate) mod wal;
pub(crate) mod write_ops;

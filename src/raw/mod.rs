//! The raw core, at the bottom of the house: the generated bindings, RocksDB's error
//! pointer and status codes as [`Error`](crate::Error), the pins the C API hands out, the
//! guard against calls from inside callbacks, and buffers RocksDB frees. Imports nothing
//! above it.

pub(crate) mod batch_records;
pub(crate) mod cstr;
pub(crate) mod entity;
pub(crate) mod error;
pub mod ffi;
#[cfg(test)]
mod layout_tests;
pub(crate) mod metadata;
pub(crate) mod new_value;
pub(crate) mod owned;
pub(crate) mod pairs;
pub(crate) mod pinned;
pub(crate) mod read_source;
pub(crate) mod reentry;
pub(crate) mod setter;
pub(crate) mod trampoline;

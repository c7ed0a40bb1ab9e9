//! Reads through one [`Reader`](crate::Reader) over the database, a transaction or an
//! indexed batch: every tier (Vec, buffer, pinned, guard, owned bytes, multi-get) and the
//! iterators.

pub(crate) mod columns;
pub(crate) mod cursor;
pub(crate) mod entity;
pub(crate) mod entries;
pub(crate) mod gate;
pub(crate) mod key_range;
pub(crate) mod pinned_value;
pub(crate) mod read_controls;
pub(crate) mod read_options;
pub(crate) mod reader;
pub(crate) mod refusal;
pub(crate) mod source;
pub(crate) mod timestamps;

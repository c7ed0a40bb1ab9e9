//! Reads through one [`Reader`](crate::Reader) over the database, a transaction or an
//! indexed batch: every tier (Vec, buffer, pinned, guard, owned bytes, multi-get) and the
//! iterators.

pub(crate) mod columns;
pub(crate) mod cursor;
pub(crate) mod entity;
pub(crate) mod entries;
pub(crate) mod gate;
pub(crate) mod key_range;
pub(crate) mod owned_cursor;
pub(crate) mod pinned_value;
pub(crate) mod read_controls;
pub(crate) mod read_options;
pub(crate) mod reader;
pub(crate) mod refusal;
pub(crate) mod source;
pub(crate) mod timestamps;

pub use columns::Columns;
pub use entity::{Entity, PinnedEntity};
pub use entries::Entries;
pub use key_range::{KeyBounds, KeyRange};
pub use owned_cursor::{OwnedCursor, OwnedEntries};
pub use read_controls::ReadTier;
pub use source::{BatchSource, DbSource, ReadSource, TransactionSource};
pub use timestamps::{KeyVersion, VersionKind};

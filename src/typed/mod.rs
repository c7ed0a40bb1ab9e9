//! Typed keys and values over the byte API, through the [`codec`](crate::codec)s: one
//! typed reader over any source, one typed writer into any target, `Table<K, V>`, and
//! `EntityTable<K, E>` for entities whose fields are columns.

pub(crate) mod encoding;
pub(crate) mod entity_table;
pub(crate) mod iter;
pub(crate) mod pinned;
pub(crate) mod reader;
pub(crate) mod table;
pub(crate) mod writer;

pub use entity_table::{EncodedColumns, EntityCodec, EntityTable};
pub use iter::TypedIter;
pub use pinned::TypedPin;
pub use reader::TypedReader;
pub use writer::TypedWriter;

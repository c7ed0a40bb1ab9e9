//! Writes: one at a time, in a batch, in an indexed batch that can be read before it is
//! written, and in a transaction.

pub(crate) mod batch;
pub(crate) mod batch_bytes;
pub(crate) mod entry_size;
pub(crate) mod indexed_batch;
pub(crate) mod target;
pub(crate) mod transaction;
pub(crate) mod write_options;
pub(crate) mod writer;

pub use crate::raw::batch_records::BatchRecord;
pub use batch::BatchTarget;
pub use indexed_batch::IndexedBatchTarget;
pub use target::{DbTarget, LogDataTarget, WriteTarget};
pub use transaction::{Lock, TransactionTarget};

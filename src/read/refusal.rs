//! Why pinrocks refuses a read before RocksDB sees it, kept by a cursor to report from its
//! `status` (its reads of families with timestamps, `timestamps.rs`, and its moves inside a
//! callback).

use crate::raw::error::Error;

/// Why pinrocks refused a read: for its timestamps, or for where it was made.
#[derive(Debug, Clone)]
pub(crate) enum Refusal {
    /// The family's timestamp size and the read's differ.
    Mismatch {
        family: String,
        expected: usize,
        given: usize,
    },
    /// A family with timestamps through a transaction or an indexed batch.
    Source,
    /// A family with timestamps on a TTL database.
    Ttl,
    /// A history cursor moved backward.
    Backward,
    /// A cursor moved inside a callback RocksDB runs inside a read (its thread's RocksDB
    /// state in use).
    InsideCallback { callback: &'static str },
}

impl Refusal {
    pub(crate) fn error(&self) -> Error {
        match self {
            Refusal::Mismatch {
                family,
                expected,
                given,
            } => Error::TimestampMismatch {
                family: family.clone(),
                expected: *expected,
                given: *given,
            },
            Refusal::Source => Error::invalid("timestamp", SOURCE_REFUSAL),
            Refusal::Ttl => Error::WrongKind {
                operation: "a read of a family with timestamps",
                needs: "non-TTL",
            },
            Refusal::InsideCallback { callback } => Error::InsideCallback {
                operation: "a cursor's move",
                callback,
            },
            Refusal::Backward => Error::invalid(
                "history cursor",
                "a history read moves forward only: backward, RocksDB lists versions before \
                 the window's start and merge operands unmerged",
            ),
        }
    }
}

/// pinrocks reads and writes families with timestamps only on the database itself.
pub(crate) const SOURCE_REFUSAL: &str =
    "a column family with timestamps is read and written through the database, not through a \
     transaction or an indexed batch";

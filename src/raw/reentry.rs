//! Which of pinrocks' callbacks this thread is inside, so that calls back into RocksDB that
//! would deadlock there are refused with [`Error::InsideCallback`] instead.
//!
//! RocksDB runs user code inside its own locks and threads: a comparator under the
//! database mutex, a merge operator inside a write (with `max_successive_merges`), a flush
//! or a compaction, a compaction filter on the compaction thread, a backup's progress
//! callback under the backup engine's lock. A write, a flush, a compaction or a change of
//! column families from there can wait for the very work that is running it. Reads are not
//! A read is refused inside a merge operator or a comparator: those run inside a read on
//! the reading thread, whose RocksDB state (the thread's `SuperVersion` slot) is in use,
//! and a nested read there crashes RocksDB. A compaction filter runs on a compaction
//! thread and may read.

use std::cell::Cell;

use crate::raw::error::{Error, Result};

thread_local! {
    static INSIDE: Cell<Option<&'static str>> = const { Cell::new(None) };
}

/// Runs `f` (user code called by RocksDB) marked as inside `callback`.
pub(crate) fn inside<R>(callback: &'static str, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<&'static str>);
    impl Drop for Restore {
        fn drop(&mut self) {
            // A thread being torn down has nothing left to refuse.
            let _ = INSIDE.try_with(|inside| inside.set(self.0));
        }
    }
    let outer = INSIDE
        .try_with(|inside| inside.replace(Some(callback)))
        .ok()
        .flatten();
    let _restore = Restore(outer);
    f()
}

/// `Err(InsideCallback)` if this thread is inside a callback that RocksDB runs inside a
/// read or under its database mutex (a merge operator, a comparator, a prefix extractor, the
/// info log, an event listener): a read from there would re-enter the reading
/// thread's RocksDB state. One thread-local load on the read path.
#[inline]
pub(crate) fn refuse_read_inside(operation: &'static str) -> Result<()> {
    match current() {
        Some(
            callback @ (MERGE_OPERATOR | COMPARATOR | PREFIX_EXTRACTOR | INFO_LOG | EVENT_LISTENER),
        ) => Err(Error::InsideCallback {
            operation,
            callback,
        }),
        _ => Ok(()),
    }
}

/// `Err(InsideCallback)` if this thread is inside a callback RocksDB may run under its
/// database mutex (a comparator, the info log) or inside a read (a merge operator, a prefix
/// extractor), for a call that takes that mutex or the thread's cached `SuperVersion` (a
/// property, file metadata, size estimates): it would wait for itself, or use the slot the
/// read holds.
pub(crate) fn refuse_under_mutex(operation: &'static str) -> Result<()> {
    match current() {
        Some(callback @ (COMPARATOR | INFO_LOG | MERGE_OPERATOR | PREFIX_EXTRACTOR)) => {
            Err(Error::InsideCallback {
                operation,
                callback,
            })
        }
        _ => Ok(()),
    }
}

/// The callback this thread is inside, if any (none on a thread being torn down).
#[inline]
fn current() -> Option<&'static str> {
    INSIDE.try_with(Cell::get).ok().flatten()
}

/// The callbacks RocksDB runs inside reads.
pub(crate) const MERGE_OPERATOR: &str = "merge operator";
pub(crate) const COMPARATOR: &str = "comparator";
pub(crate) const PREFIX_EXTRACTOR: &str = "prefix extractor";
/// RocksDB logs from anywhere, often under its database mutex.
pub(crate) const INFO_LOG: &str = "info log";
/// RocksDB calls listeners on its own threads, a background error under its mutex.
pub(crate) const EVENT_LISTENER: &str = "event listener";

/// Whether this thread is inside one of pinrocks' callbacks.
#[inline]
pub(crate) fn is_inside() -> bool {
    current().is_some()
}

/// `Err(InsideCallback)` if this thread is inside one of pinrocks' callbacks.
#[inline]
pub(crate) fn refuse_inside(operation: &'static str) -> Result<()> {
    match current() {
        Some(callback) => Err(Error::InsideCallback {
            operation,
            callback,
        }),
        None => Ok(()),
    }
}

//! Point-in-time views of a database.

use std::sync::Arc;

use crate::db::handles::DbInner;
use crate::raw::db::{snapshot_sequence_number, SnapshotPtr};

/// A consistent view of the database at the moment it was taken. Use it through
/// [`ReadOptions::snapshot`](crate::ReadOptions::snapshot). Cheap to clone; released when
/// the last clone drops. It keeps the database open until then.
///
/// ```
/// # fn main() -> pinrocks::Result<()> {
/// # let dir = tempfile::tempdir().unwrap();
/// # let mut opts = pinrocks::Options::new();
/// # opts.create_if_missing(true);
/// # let db = pinrocks::Db::open(&opts, dir.path())?;
/// db.put(b"balance", b"100")?;
/// let mut then = pinrocks::ReadOptions::new();
/// then.snapshot(&db.snapshot()); // the options keep the snapshot
/// db.put(b"balance", b"250")?;
/// assert_eq!(db.reader().options(&then).get(b"balance")?.as_deref(), Some(&b"100"[..]));
/// assert_eq!(db.get(b"balance")?.as_deref(), Some(&b"250"[..]));
/// # Ok(()) }
/// ```
#[derive(Clone)]
#[doc(alias = "GetSnapshot")]
#[doc(alias = "ManagedSnapshot")]
pub struct Snapshot {
    inner: Arc<SnapshotInner>,
}

struct SnapshotInner {
    db: Arc<DbInner>,
    raw: SnapshotPtr,
}

// SAFETY: a `SnapshotImpl` is an immutable sequence number in a list that
// `DBImpl::GetSnapshot`/`ReleaseSnapshot` change under the DB mutex, from any thread;
// readers only read its number. It is released on its own database (held by `db`) before
// that database closes, as `DBImpl::Close` requires.
unsafe impl Send for SnapshotInner {}
// SAFETY: see `Send`.
unsafe impl Sync for SnapshotInner {}

impl Snapshot {
    pub(crate) fn new(db: Arc<DbInner>) -> Self {
        let raw = db.raw_db().create_snapshot();
        // The C API's wrapper is never NULL; what it wraps, `DBImpl::GetSnapshot`'s answer,
        // is NULL when a family's memtable cannot do snapshots (`is_snapshot_supported_`),
        // which in RocksDB 11.8.1 means `inplace_update_support` (no memtable kind refuses
        // them): the option table (src/options/contract_table.rs) refuses it at every open
        // and family creation, whatever path set it, so every database pinrocks opens has
        // real snapshots.
        assert!(!raw.is_null(), "RocksDB refused a snapshot");
        Snapshot {
            inner: Arc::new(SnapshotInner { db, raw }),
        }
    }

    /// The sequence number this snapshot reads at: it sees the writes numbered up to this
    /// one (compare [`Db::latest_sequence_number`](crate::Db::latest_sequence_number)).
    pub fn sequence_number(&self) -> u64 {
        // SAFETY: a live snapshot (held by `self`); `GetSequenceNumber` only reads it.
        unsafe { snapshot_sequence_number(self.inner.raw) }
    }

    pub(crate) fn raw(&self) -> SnapshotPtr {
        self.inner.raw
    }

    pub(crate) fn db_id(&self) -> u64 {
        self.inner.db.id
    }
}

impl Drop for SnapshotInner {
    fn drop(&mut self) {
        // SAFETY: the snapshot belongs to `self.db`, still open because we hold it.
        unsafe { self.db.raw_db().release_snapshot(self.raw) };
    }
}

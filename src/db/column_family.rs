//! Column families: named key spaces inside one database.

use std::ffi::CString;
use std::sync::Arc;

use crate::db::handles::{CfHandle, DbInner};
use crate::raw::db_state;
use crate::raw::error::{Error, Result};
use crate::raw::ffi;

/// A column family of an open [`Db`](crate::Db). Borrowing the `Db`, it cannot outlive it.
///
/// Read and write through [`reader`](Self::reader) and [`writer`](Self::writer) (defined
/// beside [`Reader`](crate::Reader) and [`Writer`](crate::Writer)); flush, compact and read
/// properties here.
///
/// ```
/// # fn main() -> pinrocks::Result<()> {
/// # let dir = tempfile::tempdir().unwrap();
/// # let mut opts = pinrocks::Options::new();
/// # opts.create_if_missing(true);
/// # let db = pinrocks::Db::open(&opts, dir.path())?;
/// let logs = db.create_cf("logs", &pinrocks::Options::new())?;
/// logs.writer().put(b"2026-12-01", b"started")?;
/// logs.flush()?;
/// assert_eq!(logs.property("rocksdb.num-files-at-level0")?.as_deref(), Some("1"));
/// assert_eq!(logs.property_int("rocksdb.estimate-num-keys")?, Some(1));
/// assert_eq!(db.cf("logs")?.reader().get(b"2026-12-01")?.as_deref(), Some(&b"started"[..]));
/// # Ok(()) }
/// ```
///
/// It cannot be dropped after its database, however the code is ordered:
///
/// ```compile_fail,E0597
/// # fn main() -> pinrocks::Result<()> {
/// # let dir = tempfile::tempdir().unwrap();
/// # let mut opts = pinrocks::Options::new();
/// # opts.create_if_missing(true);
/// let cf;
/// let db = pinrocks::Db::open(&opts, dir.path())?;
/// cf = db.create_cf("x", &pinrocks::Options::new())?; // error: `db` dropped while borrowed
/// # Ok(()) }
/// ```
///
/// ```compile_fail,E0597
/// # fn main() -> pinrocks::Result<()> {
/// # let dir = tempfile::tempdir().unwrap();
/// # let mut opts = pinrocks::Options::new();
/// # opts.create_if_missing(true);
/// let created = {
///     let db = pinrocks::Db::open(&opts, dir.path())?;
///     match db.create_cf("cf1", &pinrocks::Options::new()) {
///         Ok(_) => true, // the temporary would drop after `db`: error
///         Err(_) => false,
///     }
/// };
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct ColumnFamily<'db> {
    pub(crate) db: &'db Arc<DbInner>,
    handle: Arc<CfHandle>,
}

impl<'db> ColumnFamily<'db> {
    pub(crate) fn new(db: &'db Arc<DbInner>, handle: Arc<CfHandle>) -> Self {
        ColumnFamily { db, handle }
    }

    pub(crate) fn handle(&self) -> &Arc<CfHandle> {
        &self.handle
    }

    /// The handle, after checking that this column family belongs to `db`. RocksDB would
    /// otherwise run one database's read or write on another's column family data, under
    /// the wrong locks: that is a programming error, so it panics, like an index out of
    /// bounds.
    pub(crate) fn handle_for(&self, db: &DbInner) -> &Arc<CfHandle> {
        assert!(
            self.handle.db_id == db.id,
            "column family {:?} belongs to another database",
            self.handle.name
        );
        &self.handle
    }

    /// The raw `rocksdb_column_family_handle_t`, for the C API in [`ffi`](crate::ffi) with
    /// [`Db::as_raw`](crate::Db::as_raw)'s database. Valid while `self` lives (borrowed:
    /// pinrocks owns it). Do not destroy it or drop the family through it, and do not
    /// write through it: pinrocks refuses writes to a family being dropped, RocksDB would
    /// not.
    pub fn as_raw(&self) -> *mut ffi::rocksdb_column_family_handle_t {
        self.handle.raw()
    }

    /// The column family's name.
    pub fn name(&self) -> &str {
        &self.handle.name
    }

    /// The column family's id in its database: what write batches and the WAL name it by
    /// ([`BatchRecord`](crate::write::BatchRecord)). The default family is 0.
    pub fn id(&self) -> u32 {
        self.handle.id()
    }

    /// Flushes this column family's memtable to an SST file and waits for it, and for the
    /// event listeners' `on_flush_completed`.
    pub fn flush(&self) -> Result<()> {
        self.db.check_writable("flush")?;
        // SAFETY: a live handle of this database, for the call.
        unsafe { self.db.raw_db().flush(&[self.handle.raw()], true, false) }
    }

    /// A RocksDB property of this column family (for example `rocksdb.stats`), or `None`
    /// if RocksDB does not know the property.
    #[doc(alias = "GetProperty")]
    pub fn property(&self, name: &str) -> Result<Option<String>> {
        crate::raw::reentry::refuse_under_mutex("property")?;
        let name = CString::new(name).map_err(|e| Error::invalid("property name", e))?;
        // SAFETY: a live database and a handle of it, for the call.
        unsafe { db_state::property_text(self.db.raw(), self.handle.raw(), &name) }
    }

    /// An integer property of this column family (for example
    /// `rocksdb.estimate-num-keys`), or `None` if RocksDB has no integer for it.
    #[doc(alias = "GetIntProperty")]
    pub fn property_int(&self, name: &str) -> Result<Option<u64>> {
        crate::raw::reentry::refuse_under_mutex("property_int")?;
        let name = CString::new(name).map_err(|e| Error::invalid("property name", e))?;
        // SAFETY: a live database and a handle of it, for the call.
        unsafe { db_state::property_int(self.db.raw(), self.handle.raw(), &name) }
    }
}

/// Not a no-op for the borrow checker: a type with a destructor must not outlive what it
/// borrows, so a `ColumnFamily` (which owns a handle whose destructor locks the database's
/// mutex) cannot be dropped after its `Db` closes, not even by `let cf; let db = ..;` or as
/// a block's tail temporary. Without it the compiler may drop the borrow last.
impl Drop for ColumnFamily<'_> {
    fn drop(&mut self) {}
}

impl std::fmt::Debug for ColumnFamily<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("ColumnFamily")
            .field(&self.handle.name)
            .finish()
    }
}

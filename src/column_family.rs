//! Column families: named key spaces inside one database.

use std::ffi::CString;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::db::{Db, DbInner};
use crate::error::{ErrPtr, Result};
use crate::ffi;
use crate::read::Reader;
use crate::write::Writer;

/// Owns one `rocksdb_column_family_handle_t`, and with it the column family's
/// `ColumnFamilyData` (`ColumnFamilyHandleImpl`'s destructor unrefs it): its options, table
/// factory and block cache, which pinned blocks live in. Every owner of a pin holds an
/// `Arc<CfHandle>` for that reason. The handle must be destroyed while its database is open:
/// `DbInner` drops its handles before closing, and every other owner of an `Arc<CfHandle>`
/// also owns (or borrows) the `DbInner`, dropped after it.
pub(crate) struct CfHandle {
    raw: NonNull<ffi::rocksdb_column_family_handle_t>,
    pub(crate) name: String,
    /// The `DbInner::id` of the database it belongs to.
    pub(crate) db_id: u64,
    is_default: bool,
    /// Set by `Db::drop_cf` while it holds the database's family lock exclusively; writers
    /// read it under the same lock held shared (`DbInner::live_family`).
    dropped: AtomicBool,
}

// SAFETY: `ColumnFamilyHandleImpl` (db/column_family.h) is immutable after creation (a
// `ColumnFamilyData*`, the `DBImpl*` and the mutex pointer); RocksDB's reads, writes and
// `DropColumnFamily` take it by pointer from any thread. It is destroyed only by `Drop`.
unsafe impl Send for CfHandle {}
// SAFETY: see `Send`.
unsafe impl Sync for CfHandle {}

impl CfHandle {
    pub(crate) fn new(
        raw: *mut ffi::rocksdb_column_family_handle_t,
        name: String,
        db_id: u64,
    ) -> Self {
        CfHandle {
            raw: NonNull::new(raw).expect("RocksDB returned a NULL column family handle"),
            is_default: name == crate::db::DEFAULT_COLUMN_FAMILY,
            name,
            db_id,
            dropped: AtomicBool::new(false),
        }
    }

    pub(crate) fn raw(&self) -> *mut ffi::rocksdb_column_family_handle_t {
        self.raw.as_ptr()
    }

    /// The default family cannot be dropped (RocksDB refuses), so writes to it need no lock.
    pub(crate) fn is_default(&self) -> bool {
        self.is_default
    }

    /// Whether `Db::drop_cf` dropped it. Exact only under the database's family lock.
    pub(crate) fn is_dropped(&self) -> bool {
        self.dropped.load(Ordering::Acquire)
    }

    pub(crate) fn mark_dropped(&self) {
        self.dropped.store(true, Ordering::Release);
    }
}

impl Drop for CfHandle {
    fn drop(&mut self) {
        // SAFETY: owned by `self`, destroyed once, while its database is still open (see
        // the type's comment).
        unsafe { ffi::rocksdb_column_family_handle_destroy(self.raw.as_ptr()) };
    }
}

/// A column family of an open [`Db`]. Borrowing the `Db`, it cannot outlive it.
///
/// Read and write through [`reader`](Self::reader) and [`writer`](Self::writer); flush,
/// compact and read properties here.
#[derive(Clone)]
pub struct ColumnFamily<'db> {
    db: &'db Db,
    handle: Arc<CfHandle>,
}

impl<'db> ColumnFamily<'db> {
    pub(crate) fn new(db: &'db Db, handle: Arc<CfHandle>) -> Self {
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

    /// The column family's name.
    pub fn name(&self) -> &str {
        &self.handle.name
    }

    /// Reads from this column family with default read options.
    pub fn reader(&self) -> Reader<'_> {
        Reader::new(self.db.inner(), &self.handle)
    }

    /// Writes to this column family with default write options.
    pub fn writer(&self) -> Writer<'_> {
        Writer::new(self.db.inner(), &self.handle)
    }

    /// Flushes this column family's memtable to an SST file and waits for it.
    pub fn flush(&self) -> Result<()> {
        self.db.inner().check_writable("flush")?;
        // SAFETY: plain constructor/destructor pair around one flush of a live handle.
        unsafe {
            let options = ffi::rocksdb_flushoptions_create();
            ffi::rocksdb_flushoptions_set_wait(options, 1);
            let mut err = ErrPtr::new();
            ffi::rocksdb_flush_cf(
                self.db.inner().raw(),
                options,
                self.handle.raw(),
                err.as_out(),
            );
            ffi::rocksdb_flushoptions_destroy(options);
            err.check()
        }
    }

    /// Compacts keys in `[from, to)` (`None`: unbounded) and waits for it. Unlike the C
    /// API's `rocksdb_compact_range`, a failure is reported.
    pub fn compact_range(&self, from: Option<&[u8]>, to: Option<&[u8]>) -> Result<()> {
        self.db.inner().check_writable("compact_range")?;
        let (from_ptr, from_len) = from.map_or((std::ptr::null(), 0), |k| (k.as_ptr(), k.len()));
        let (to_ptr, to_len) = to.map_or((std::ptr::null(), 0), |k| (k.as_ptr(), k.len()));
        let mut err = ErrPtr::new();
        let mut code = 0;
        // SAFETY: live db and handle; the bounds are borrowed for the call only.
        unsafe {
            ffi::pinrocks_compact_range(
                self.db.inner().raw(),
                self.handle.raw(),
                from_ptr.cast(),
                from_len,
                to_ptr.cast(),
                to_len,
                &mut code,
                err.as_out(),
            )
        };
        err.check_with_code(Some(code))
    }

    /// A RocksDB property of this column family (for example `rocksdb.stats`), or `None`
    /// if RocksDB does not know the property.
    pub fn property(&self, name: &str) -> Result<Option<String>> {
        let name = CString::new(name).map_err(|e| crate::Error::invalid("property name", e))?;
        // SAFETY: live db and handle; the result is a malloc'd C string or NULL, copied
        // and then freed with rocksdb_free.
        unsafe {
            let value = ffi::rocksdb_property_value_cf(
                self.db.inner().raw(),
                self.handle.raw(),
                name.as_ptr(),
            );
            if value.is_null() {
                return Ok(None);
            }
            let text = std::ffi::CStr::from_ptr(value)
                .to_string_lossy()
                .into_owned();
            ffi::rocksdb_free(value.cast());
            Ok(Some(text))
        }
    }

    /// An integer property of this column family (for example
    /// `rocksdb.estimate-num-keys`), or `None` if RocksDB has no integer for it.
    pub fn property_int(&self, name: &str) -> Result<Option<u64>> {
        let name = CString::new(name).map_err(|e| crate::Error::invalid("property name", e))?;
        let mut value = 0u64;
        // SAFETY: live db and handle; `value` is written only on success (return 0).
        let rc = unsafe {
            ffi::rocksdb_property_int_cf(
                self.db.inner().raw(),
                self.handle.raw(),
                name.as_ptr(),
                &mut value,
            )
        };
        Ok((rc == 0).then_some(value))
    }
}

impl std::fmt::Debug for ColumnFamily<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("ColumnFamily")
            .field(&self.handle.name)
            .finish()
    }
}

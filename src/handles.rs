//! The owned native handles that every API type stands on: the open database (`DbInner`,
//! owning the `rocksdb_t`) and its column family handles (`CfHandle`). Everything above
//! (reads, writes, column families, `Db`) borrows or shares these; this module imports
//! nothing of the API above it.
//!
//! What must outlive what (RocksDB 11.8.1): a column family handle must be destroyed while
//! its database is open (`~ColumnFamilyHandleImpl` locks the DB mutex), and a pinned
//! block-cache block lives in its column family's cache, which dies with the family's last
//! handle once the family is dropped. Owners of pins therefore hold `Arc<CfHandle>` and
//! `Arc<DbInner>`, dropped in that order.

use std::collections::HashMap;
use std::ffi::CString;
use std::path::PathBuf;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock, RwLockReadGuard, RwLockWriteGuard};

use crate::comparator::Comparator;
use crate::error::{ErrPtr, Error, Result};
use crate::ffi;
use crate::statistics::Statistics;

/// The name RocksDB gives the column family every database has.
pub const DEFAULT_COLUMN_FAMILY: &str = "default";

/// What the open database is, shared by everything that must keep it open.
///
/// Field order is drop order: the column family handles must be destroyed before `raw`
/// closes the database. Every other owner of a `CfHandle` also owns or borrows the
/// `DbInner`, so when this drops the handles below hold the last references to them.
pub(crate) struct DbInner {
    /// Unique for the life of the process (never an address, which a later open can
    /// reuse): what column families, batches and snapshots name their database by.
    pub(crate) id: u64,
    /// How it was opened: read-only and secondary instances refuse every change
    /// (`check_writable`), a TTL database refuses files without its timestamps.
    pub(crate) kind: DbKind,
    /// Held shared by every write that names a column family, for the whole write, and
    /// exclusively by `drop_cf`: a write never reaches RocksDB for a family that is being or
    /// has been dropped.
    family_lock: RwLock<()>,
    pub(crate) default_cf: Arc<CfHandle>,
    column_families: RwLock<HashMap<String, Arc<CfHandle>>>,
    pub(crate) path: PathBuf,
    /// The statistics of the options it was opened with, if they collect any.
    pub(crate) statistics: Option<Statistics>,
    raw: RawDb,
    /// The comparators of its column families, which RocksDB holds by raw pointer until the
    /// database has closed: after `raw` in drop order.
    comparators: Mutex<Vec<Comparator>>,
}

/// What pinrocks needs to know of a column family's options to read it right: its key
/// order (for the bounds it checks itself).
#[derive(Clone, Default)]
pub(crate) struct FamilyTraits {
    pub(crate) order: Option<Comparator>,
}

/// How a database was opened, which decides what pinrocks lets through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DbKind {
    ReadWrite,
    ReadOnly,
    /// A secondary instance following a primary: read-only, catches up on demand.
    Secondary,
    /// Every value stored with a 4-byte write time after it (`DBWithTTL`).
    Ttl,
}

/// Owns the open database; closes it on drop. A transaction database is reached through a
/// C API `rocksdb_t` whose `rep` is the transaction database itself (rocksdb-c/), so every
/// C API call on `handle` goes through it (plain writes take its locks).
pub(crate) enum RawDb {
    Plain(NonNull<ffi::rocksdb_t>),
    Transaction {
        handle: NonNull<ffi::rocksdb_t>,
        txn_db: NonNull<ffi::rocksdb_transactiondb_t>,
    },
    Optimistic {
        handle: NonNull<ffi::rocksdb_t>,
        txn_db: NonNull<ffi::rocksdb_optimistictransactiondb_t>,
    },
}

impl RawDb {
    fn handle(&self) -> NonNull<ffi::rocksdb_t> {
        match self {
            RawDb::Plain(h) => *h,
            RawDb::Transaction { handle, .. } | RawDb::Optimistic { handle, .. } => *handle,
        }
    }
}

impl Drop for RawDb {
    fn drop(&mut self) {
        // SAFETY: owned by `self` and closed exactly once, after the handles (field order
        // in `DbInner`) and after every snapshot, iterator, transaction and pin (their
        // owners hold or borrow the `DbInner`). A transaction database's `rocksdb_t` is
        // only a wrapper: freed first, then the database closed.
        unsafe {
            match self {
                RawDb::Plain(db) => ffi::rocksdb_close(db.as_ptr()),
                RawDb::Transaction { handle, txn_db } => {
                    ffi::rocksdb_transactiondb_close_base_db(handle.as_ptr());
                    ffi::rocksdb_transactiondb_close(txn_db.as_ptr());
                }
                RawDb::Optimistic { handle, txn_db } => {
                    ffi::rocksdb_optimistictransactiondb_close_base_db(handle.as_ptr());
                    ffi::rocksdb_optimistictransactiondb_close(txn_db.as_ptr());
                }
            }
        }
    }
}

impl RawDb {
    /// `DB::Close` (rocksdb-c/), reporting its status; the `Drop` that follows then only
    /// frees. `NotSupported` (a database that closes in its destructor) counts as closed.
    fn close(&self) -> Result<()> {
        let mut err = ErrPtr::new();
        let mut code = 0;
        // SAFETY: the open database, owned; closed once here and then only freed by `Drop`
        // (`DB::Close` is idempotent and the destructor does nothing more after it).
        unsafe { ffi::pinrocks_db_close(self.handle().as_ptr(), &mut code, err.as_out()) };
        match err.check_with_code(Some(code)) {
            Err(e) if e.kind() == Some(crate::error::ErrorKind::NotSupported) => Ok(()),
            other => other,
        }
    }
}

/// Source of `DbInner::id`: a 64-bit counter does not wrap in the life of a process.
static NEXT_DB_ID: AtomicU64 = AtomicU64::new(1);

// SAFETY: `rocksdb::DB` is thread-safe: RocksDB documents (include/rocksdb/db.h) that all its
// methods may be called concurrently from several threads without external synchronization.
// The column family map is behind a `RwLock`; the rest is immutable after open.
unsafe impl Send for DbInner {}
// SAFETY: see `Send`.
unsafe impl Sync for DbInner {}

impl DbInner {
    /// Takes ownership of a freshly opened `rocksdb_t` and its handles, one per name in
    /// order (what `rocksdb_open_column_families` fills in).
    pub(crate) fn new(
        raw: RawDb,
        path: PathBuf,
        names: &[CString],
        handles: &[*mut ffi::rocksdb_column_family_handle_t],
        traits: &[FamilyTraits],
        kind: DbKind,
        statistics: Option<Statistics>,
    ) -> Arc<DbInner> {
        let id = NEXT_DB_ID.fetch_add(1, Ordering::Relaxed);
        let column_families: HashMap<String, Arc<CfHandle>> = names
            .iter()
            .zip(handles)
            .zip(traits)
            .map(|((name, &handle), traits)| {
                let name = name.to_string_lossy().into_owned();
                let handle = CfHandle::new(handle, name.clone(), id, traits.clone());
                (name, Arc::new(handle))
            })
            .collect();
        let default_cf = Arc::clone(&column_families[DEFAULT_COLUMN_FAMILY]);
        Arc::new(DbInner {
            id,
            kind,
            family_lock: RwLock::new(()),
            default_cf,
            column_families: RwLock::new(column_families),
            path,
            statistics,
            raw,
            comparators: Mutex::new(traits.iter().filter_map(|t| t.order.clone()).collect()),
        })
    }

    pub(crate) fn raw(&self) -> *mut ffi::rocksdb_t {
        self.raw.handle().as_ptr()
    }

    /// Closes the database as dropping it would (column family handles first, comparators
    /// last), but reports what RocksDB's `DB::Close` says.
    pub(crate) fn close(self) -> Result<()> {
        let DbInner {
            id: _,
            kind: _,
            family_lock,
            default_cf,
            column_families,
            path: _,
            statistics,
            raw,
            comparators,
        } = self;
        drop((family_lock, default_cf, column_families, statistics));
        let closed = raw.close();
        drop(raw);
        drop(comparators);
        closed
    }

    /// The transaction database, if it is one.
    pub(crate) fn raw_db(&self) -> &RawDb {
        &self.raw
    }

    // A panic while the lock was held cannot leave the map half-changed (each change is
    // one insert or remove), so a poisoned lock is still usable.
    pub(crate) fn column_families(&self) -> RwLockReadGuard<'_, HashMap<String, Arc<CfHandle>>> {
        self.column_families
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn column_families_mut(&self) -> RwLockWriteGuard<'_, HashMap<String, Arc<CfHandle>>> {
        self.column_families
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// `Err(ReadOnly)` for a change to a database opened read-only (or as a secondary).
    pub(crate) fn check_writable(&self, operation: &'static str) -> Result<()> {
        if matches!(self.kind, DbKind::ReadOnly | DbKind::Secondary) {
            return Err(Error::ReadOnly { operation });
        }
        Ok(())
    }

    /// Blocks `drop_cf` for as long as the guard lives; see `live_family`.
    pub(crate) fn lock_families(&self) -> RwLockReadGuard<'_, ()> {
        // The lock guards no data, so a poisoned one is as good as a clean one.
        self.family_lock
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// `Ok` if a write may name `cf`: it belongs to this database and is not dropped. Call it
    /// with `lock_families` held and keep that guard until the write has returned.
    pub(crate) fn live_family(&self, cf: &CfHandle) -> Result<()> {
        if cf.db_id != self.id {
            return Err(Error::ForeignColumnFamily {
                name: cf.name.clone(),
            });
        }
        if cf.is_dropped() {
            return Err(Error::ColumnFamilyDropped(cf.name.clone()));
        }
        Ok(())
    }

    /// Runs `write` (anything that changes `cf`) on a writable database, with `cf` alive:
    /// of this database, not dropped, and not droppable until `write` returns. The
    /// default family cannot be dropped, so writes to it take no lock.
    pub(crate) fn with_live_family<R>(
        &self,
        operation: &'static str,
        cf: &CfHandle,
        write: impl FnOnce() -> R,
    ) -> Result<R> {
        self.check_writable(operation)?;
        if cf.is_default() && cf.db_id == self.id {
            return Ok(write());
        }
        let _families = self.lock_families();
        self.live_family(cf)?;
        Ok(write())
    }

    /// Creates a column family (`rocksdb_create_column_family`) and keeps its handle.
    pub(crate) fn create_cf(
        &self,
        name: &str,
        options: *const ffi::rocksdb_options_t,
        traits: FamilyTraits,
    ) -> Result<Arc<CfHandle>> {
        self.create_cf_with(name, traits, |db, name, err| {
            // SAFETY: live database (owned) and options (borrowed by the caller); RocksDB
            // copies the options and the name. The result is a new handle, owned by us.
            unsafe { ffi::rocksdb_create_column_family(db, options, name, err) }
        })
    }

    /// Creates a column family with `create` (one of RocksDB's creation calls: database,
    /// name, errptr; a new handle or NULL) and keeps its handle; `traits` are those of the
    /// options given to `create`.
    pub(crate) fn create_cf_with(
        &self,
        name: &str,
        traits: FamilyTraits,
        create: impl FnOnce(
            *mut ffi::rocksdb_t,
            *const std::ffi::c_char,
            *mut *mut std::ffi::c_char,
        ) -> *mut ffi::rocksdb_column_family_handle_t,
    ) -> Result<Arc<CfHandle>> {
        self.check_writable("create_cf")?;
        let c_name = CString::new(name).map_err(|e| Error::invalid("column family name", e))?;
        let mut map = self.column_families_mut();
        if map.contains_key(name) {
            return Err(Error::ColumnFamilyExists(name.to_owned()));
        }
        // Kept before RocksDB sees it, whatever the outcome: RocksDB can fail after the
        // family exists (writing the OPTIONS file), and then still points to it.
        if let Some(order) = &traits.order {
            self.comparators
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .push(order.clone());
        }
        let mut err = ErrPtr::new();
        let raw = create(self.raw(), c_name.as_ptr(), err.as_out());
        err.check()?;
        let handle = Arc::new(CfHandle::new(raw, name.to_owned(), self.id, traits));
        map.insert(name.to_owned(), Arc::clone(&handle));
        Ok(handle)
    }

    /// Drops a column family (`rocksdb_drop_column_family`) once no write naming a column
    /// family is in flight; every later write sees it dropped.
    pub(crate) fn drop_cf(&self, name: &str) -> Result<()> {
        self.check_writable("drop_cf")?;
        let _no_writes = self
            .family_lock
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let mut map = self.column_families_mut();
        let handle = map
            .get(name)
            .ok_or_else(|| Error::ColumnFamilyNotFound(name.to_owned()))?;
        if handle.is_default() {
            return Err(Error::DefaultColumnFamily);
        }
        let mut err = ErrPtr::new();
        // SAFETY: live database and handle (both owned here).
        unsafe { ffi::rocksdb_drop_column_family(self.raw(), handle.raw(), err.as_out()) };
        // `DBImpl::DropColumnFamily` can fail after the drop is committed (writing the
        // OPTIONS file), so a failure may mean dropped or not. Either way no write may reach
        // the family again in this open: a write to a dropped family stops the database.
        // If it was not dropped after all, it is back, whole, at the next open.
        handle.mark_dropped();
        map.remove(name);
        err.check()
    }
}

/// Owns one `rocksdb_column_family_handle_t`, and with it the column family's
/// `ColumnFamilyData` (`ColumnFamilyHandleImpl`'s destructor unrefs it): its options, table
/// factory and block cache, which pinned blocks live in.
pub(crate) struct CfHandle {
    raw: NonNull<ffi::rocksdb_column_family_handle_t>,
    pub(crate) name: String,
    /// The `DbInner::id` of the database it belongs to.
    pub(crate) db_id: u64,
    is_default: bool,
    /// Set by `DbInner::drop_cf` while it holds the family lock exclusively; writers read it
    /// under the same lock held shared (`DbInner::live_family`).
    dropped: AtomicBool,
    /// Its key order, when not bytewise; the `DbInner` keeps it alive for RocksDB.
    pub(crate) order: Option<Comparator>,
}

// SAFETY: `ColumnFamilyHandleImpl` (db/column_family.h) is immutable after creation (a
// `ColumnFamilyData*`, the `DBImpl*` and the mutex pointer); RocksDB's reads, writes and
// `DropColumnFamily` take it by pointer from any thread. It is destroyed only by `Drop`.
unsafe impl Send for CfHandle {}
// SAFETY: see `Send`.
unsafe impl Sync for CfHandle {}

impl CfHandle {
    fn new(
        raw: *mut ffi::rocksdb_column_family_handle_t,
        name: String,
        db_id: u64,
        traits: FamilyTraits,
    ) -> Self {
        CfHandle {
            raw: NonNull::new(raw).expect("RocksDB returned a NULL column family handle"),
            is_default: name == DEFAULT_COLUMN_FAMILY,
            name,
            db_id,
            dropped: AtomicBool::new(false),
            order: traits.order,
        }
    }

    pub(crate) fn raw(&self) -> *mut ffi::rocksdb_column_family_handle_t {
        self.raw.as_ptr()
    }

    /// The default family cannot be dropped (RocksDB refuses), so writes to it need no lock.
    pub(crate) fn is_default(&self) -> bool {
        self.is_default
    }

    /// Whether `drop_cf` dropped it. Exact only under the database's family lock.
    pub(crate) fn is_dropped(&self) -> bool {
        self.dropped.load(Ordering::Acquire)
    }

    fn mark_dropped(&self) {
        self.dropped.store(true, Ordering::Release);
    }
}

impl Drop for CfHandle {
    fn drop(&mut self) {
        // SAFETY: owned by `self`, destroyed once, while its database is still open (see
        // the module's comment).
        unsafe { ffi::rocksdb_column_family_handle_destroy(self.raw.as_ptr()) };
    }
}

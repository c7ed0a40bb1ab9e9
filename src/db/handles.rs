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
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock, RwLockReadGuard, RwLockWriteGuard};

use crate::callbacks::comparator::Comparator;
pub(crate) use crate::db::dirs_in_use::{DirInUse, DirUse};
use crate::db::drops_and_ends::DropsAndEnds;
pub(crate) use crate::db::family_handle::{CfHandle, Writing, WritingAll, DEFAULT_COLUMN_FAMILY};
use crate::db::recovered_txn::RecoveredTxn;
use crate::options::db_options::FamilyTraits;
use crate::options::env_owner::DatabaseOnEnv;
use crate::options::statistics::Statistics;
pub(crate) use crate::raw::db::RawDb;
use crate::raw::db::{DbPtr, FamilyPtr};
use crate::raw::error::{Error, Result};

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
    pub(crate) default_cf: Arc<CfHandle>,
    /// The open column families by name. Lock: held only to look up, insert or remove
    /// (never across a RocksDB call: `create_cf` checks, releases, creates, inserts;
    /// `drop_cf` removes before RocksDB drops), and never the last owner of a handle
    /// while held (whose destructor could delete a dropped family's files).
    column_families: RwLock<HashMap<String, Arc<CfHandle>>>,
    pub(crate) path: PathBuf,
    /// The transactions RocksDB recovered as prepared at open (a pessimistic transaction
    /// database), not yet handed out: each is handed out once, by
    /// `Db::prepared_transactions`. Before `raw`: RocksDB deletes those left at close.
    /// Lock: held to fill it at open and to take it whole; no RocksDB call under it.
    pub(crate) recovered: Mutex<Vec<RecoveredTxn>>,
    /// Its column family drops and pessimistic transaction ends, ordered: a transaction
    /// that may meet a dropped family at its end frees its rows one by one (RocksDB's
    /// unlock stops at a dropped family; `Transaction::free_rows_of`).
    pub(crate) drops_and_ends: DropsAndEnds,
    /// The statistics of the options it was opened with, if they collect any.
    pub(crate) statistics: Option<Statistics>,
    /// Whether it was opened with a row cache, which refuses range deletes.
    pub(crate) row_cache: bool,
    /// Held across a live option change's check and its `SetOptions` / `SetDBOptions`, so
    /// two changes are never each checked against what the other is replacing. Lock: no
    /// other pinrocks lock is taken under it; RocksDB's `SetDBOptions` may wait for the
    /// writes in flight, so another option change may wait behind a write stall (reads and
    /// writes never take it).
    pub(crate) option_changes: Mutex<()>,
    /// The database itself, last.
    native: Closer,
}

/// The open database and what must live until it has closed: closed in this order.
struct Native {
    raw: RawDb,
    /// The comparators of its column families, which RocksDB holds by raw pointer until the
    /// database has closed: after `raw` in drop order. Lock: held to push one; no RocksDB
    /// call under it.
    comparators: Mutex<Vec<Comparator>>,
    /// What it holds until it has closed: the owner of the `Env` it was opened on, when not
    /// RocksDB's default (held by raw pointer too, so after `raw`), and its place in a
    /// shared memtable budget.
    _holds: Vec<DatabaseOnEnv>,
    /// Its directory claimed in the process's list, until it has closed.
    _dir: DirInUse,
}

// SAFETY: as `DbInner`'s: RocksDB's `DB` may be used and closed from any thread; the rest
// is Rust data behind locks or immutable.
unsafe impl Send for Native {}

/// Closes the database when dropped, on a thread of its own if this one is inside a
/// callback RocksDB runs (a compaction filter that held the last `Bytes` or `Snapshot`):
/// there, `~DBImpl` would wait for the very work running the callback, for ever.
struct Closer(std::mem::ManuallyDrop<Native>);

impl Closer {
    fn into_inner(self) -> Native {
        let mut this = std::mem::ManuallyDrop::new(self);
        // SAFETY: `this` is never dropped, so the `Native` is taken out exactly once.
        unsafe { std::mem::ManuallyDrop::take(&mut this.0) }
    }
}

impl std::ops::Deref for Closer {
    type Target = Native;

    fn deref(&self) -> &Native {
        &self.0
    }
}

impl Drop for Closer {
    fn drop(&mut self) {
        // SAFETY: taken once, here, and never touched again.
        let native = unsafe { std::mem::ManuallyDrop::take(&mut self.0) };
        if crate::raw::reentry::is_inside() {
            let (sender, receiver) = std::sync::mpsc::channel::<Native>();
            let spawned = std::thread::Builder::new()
                .name("pinrocks-close".to_owned())
                .spawn(move || drop(receiver.recv()));
            match spawned {
                Ok(_) => {
                    let _ = sender.send(native);
                }
                // No thread to be had: leaving the database open (its memory and files
                // held until the process ends) is better than a close that never returns.
                Err(_) => std::mem::forget(native),
            }
        } else {
            drop(native);
        }
    }
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

/// Source of `DbInner::id`: a 64-bit counter does not wrap in the life of a process.
static NEXT_DB_ID: AtomicU64 = AtomicU64::new(1);

// SAFETY: `rocksdb::DB` is thread-safe: RocksDB documents (include/rocksdb/db.h) that all its
// methods may be called concurrently from several threads without external synchronization.
// The column family map, the recovered transactions and the comparators are behind locks
// (each held only for a map or list operation); the rest is immutable after open.
unsafe impl Send for DbInner {}
// SAFETY: see `Send`.
unsafe impl Sync for DbInner {}

impl DbInner {
    /// Holds the database's one option change (check and apply) at a time.
    pub(crate) fn one_option_change(&self) -> std::sync::MutexGuard<'_, ()> {
        self.option_changes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// Takes ownership of a freshly opened `rocksdb_t` and its handles, one per name in
    /// order (what `rocksdb_open_column_families` fills in).
    // Each argument is one thing the open produced; a struct to carry them would be built
    // in one place and taken apart in the next.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        raw: RawDb,
        path: PathBuf,
        names: &[CString],
        handles: &[FamilyPtr],
        traits: &[FamilyTraits],
        kind: DbKind,
        statistics: Option<Statistics>,
        row_cache: bool,
        holds: Vec<DatabaseOnEnv>,
        dir: DirInUse,
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
            default_cf,
            column_families: RwLock::new(column_families),
            path,
            recovered: Mutex::new(Vec::new()),
            drops_and_ends: DropsAndEnds::default(),
            statistics,
            row_cache,
            option_changes: Mutex::new(()),
            native: Closer(std::mem::ManuallyDrop::new(Native {
                raw,
                comparators: Mutex::new(traits.iter().filter_map(|t| t.order.clone()).collect()),
                _holds: holds,
                _dir: dir,
            })),
        })
    }

    pub(crate) fn raw(&self) -> DbPtr {
        self.native.raw.as_ptr()
    }

    /// Closes the database as dropping it would (column family handles first, comparators
    /// last), but reports what RocksDB's `DB::Close` says.
    pub(crate) fn close(self) -> Result<()> {
        let DbInner {
            id: _,
            kind: _,
            default_cf,
            column_families,
            path: _,
            recovered,
            drops_and_ends: _,
            statistics,
            row_cache: _,
            option_changes: _,
            native,
        } = self;
        drop((default_cf, column_families, recovered, statistics));
        let Native {
            raw,
            comparators,
            _holds,
            _dir,
        } = native.into_inner();
        let closed = raw.close(); // closes and frees the database
        drop((comparators, _holds, _dir)); // then the comparators, its Env, its entry
        closed
    }

    /// The transaction database, if it is one.
    pub(crate) fn raw_db(&self) -> &RawDb {
        &self.native.raw
    }

    // A panic while the lock was held cannot leave the map half-changed (each change is
    // one insert or remove), so a poisoned lock is still usable.
    pub(crate) fn column_families(&self) -> RwLockReadGuard<'_, HashMap<String, Arc<CfHandle>>> {
        self.column_families
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub(super) fn column_families_mut(
        &self,
    ) -> RwLockWriteGuard<'_, HashMap<String, Arc<CfHandle>>> {
        self.column_families
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Keeps `order` alive until the database has closed (RocksDB holds it by pointer).
    pub(super) fn keep_comparator(&self, order: &Comparator) {
        self.native
            .comparators
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .push(order.clone());
    }

    /// `Err(ReadOnly)` for a change to a database opened read-only (or as a secondary).
    #[inline]
    pub(crate) fn check_writable(&self, operation: &'static str) -> Result<()> {
        crate::raw::reentry::refuse_inside(operation)?;
        if matches!(self.kind, DbKind::ReadOnly | DbKind::Secondary) {
            return Err(Error::ReadOnly { operation });
        }
        Ok(())
    }

    /// `Ok` if a write may name `cf`: it belongs to this database.
    #[inline]
    pub(crate) fn own_family(&self, cf: &CfHandle) -> Result<()> {
        if cf.db_id != self.id {
            return Err(foreign(cf));
        }
        Ok(())
    }

    /// Runs `write` (anything that changes `cf`) on a writable database, with `cf` alive
    /// (`live_family`): for the calls beside the writes (ingest, option changes, ...).
    pub(crate) fn with_live_family<R>(
        &self,
        operation: &'static str,
        cf: &CfHandle,
        write: impl FnOnce() -> R,
    ) -> Result<R> {
        let _writing = self.live_family(operation, cf)?;
        Ok(write())
    }

    /// `Ok` on a writable database with `cf` alive: of this database, not dropped, and not
    /// droppable while what is returned lives (`drop_cf` waits for it; no lock is held
    /// meanwhile, so a write that waits inside RocksDB, for a row lock or a stall, holds up
    /// nothing but a drop of its own family). The default family cannot be dropped, so
    /// writes to it skip the gate (`None`).
    // Inlined whole into each write, its refusals out of line, and no closure between it and
    // the write: a put's checks are then a few compares, its result written once (measured:
    // ~90 instructions a put in calls and copies of the 72-byte `Result` otherwise).
    #[inline(always)]
    pub(crate) fn live_family<'c>(
        &self,
        operation: &'static str,
        cf: &'c CfHandle,
    ) -> Result<Option<Writing<'c>>> {
        self.check_writable(operation)?;
        self.own_family(cf)?;
        if cf.is_default() {
            Ok(None)
        } else {
            cf.enter().map(Some)
        }
    }

    /// Drops a column family (`rocksdb_drop_column_family`): from the start no write may
    /// name it, then it waits for the writes already in flight, and drops it. Refused while
    /// a prepared transaction writes to it (its commit would stop the database). No lock is
    /// held across the wait or RocksDB's drop.
    pub(crate) fn drop_cf(&self, name: &str) -> Result<()> {
        self.check_writable("drop_cf")?;
        let handle = self.column_families().get(name).cloned().ok_or_else(|| {
            Error::ColumnFamilyNotFound {
                name: name.to_owned(),
            }
        })?;
        if handle.is_default() {
            return Err(Error::DefaultColumnFamily);
        }
        handle.close_for_drop()?;
        // Until RocksDB's drop has returned (error or not).
        let _dropping = self.drops_and_ends.drop_begins();
        {
            let mut map = self.column_families_mut();
            if map.get(name).is_some_and(|h| Arc::ptr_eq(h, &handle)) {
                map.remove(name);
            }
        }
        // `DBImpl::DropColumnFamily` can fail after the drop is committed (writing the
        // OPTIONS file), so a failure may mean dropped or not. Either way no write may reach
        // the family again in this open: a write to a dropped family stops the database.
        // If it was not dropped after all, it is back, whole, at the next open.
        // SAFETY: a live handle of this database (owned here).
        unsafe { self.native.raw.drop_column_family(handle.raw()) }
    }
}

/// The refusal of a write naming another database's family, out of the writes' way.
#[cold]
#[inline(never)]
fn foreign(cf: &CfHandle) -> Error {
    Error::ForeignColumnFamily {
        name: cf.name.clone(),
    }
}

//! A column family's native handle (`CfHandle`) and its write gate: who is writing to the
//! family, and whether `drop_cf` may drop it.

use std::sync::{Arc, Condvar, Mutex};

use crate::callbacks::comparator::Comparator;
use crate::options::db_options::FamilyTraits;
use crate::raw::error::{Error, ErrorKind, Result};
use crate::raw::family::{FamilyHandle, FamilyPtr, CAN_DELETE_RANGES, CAN_MERGE};

/// The name RocksDB gives the column family every database has.
pub const DEFAULT_COLUMN_FAMILY: &str = "default";

/// Who is writing to a column family, and whether it may still be written: the gate that
/// `drop_cf` closes. A counter under a mutex held only to change it, never across a call
/// into RocksDB; `drop_cf` waits on the condition variable, holding nothing.
#[derive(Default)]
struct Gate {
    /// Writes in flight (single writes, batches, transaction writes, prepares, commits).
    writers: usize,
    /// Prepared transactions that write to it: their commit needs it.
    prepared: usize,
    /// Prepares in flight that write to it (counted in `writers` too): they may become
    /// prepared, so `drop_cf` refuses while there are any.
    preparing: usize,
    /// Set by `drop_cf` before it waits for `writers`: no write enters after it.
    dropped: bool,
}

/// One write in flight to a column family, for as long as it lives (`CfHandle::enter`).
pub(crate) struct Writing<'h>(&'h CfHandle);

impl Drop for Writing<'_> {
    fn drop(&mut self) {
        self.0.leave_counted(false);
    }
}

/// Writes in flight to several column families at once (a batch, a commit, a prepare:
/// then `true`), each its own handle kept: entered all or none.
pub(crate) struct WritingAll(Vec<Arc<CfHandle>>, bool);

impl WritingAll {
    /// Enters every family in `families` (the default one needs no gate), or none if one
    /// of them is dropped.
    pub(crate) fn enter(families: impl IntoIterator<Item = Arc<CfHandle>>) -> Result<Self> {
        Self::enter_as(families, false)
    }

    /// As `enter`, for a transaction's prepare: `drop_cf` refuses these families from now
    /// (not only once the prepare has succeeded), so it never closes a gate it must reopen.
    pub(crate) fn enter_preparing(
        families: impl IntoIterator<Item = Arc<CfHandle>>,
    ) -> Result<Self> {
        Self::enter_as(families, true)
    }

    fn enter_as(
        families: impl IntoIterator<Item = Arc<CfHandle>>,
        preparing: bool,
    ) -> Result<Self> {
        let mut entered = WritingAll(Vec::new(), preparing);
        for handle in families {
            if handle.is_default() {
                continue;
            }
            handle.enter_counted(preparing)?;
            entered.0.push(handle);
        }
        Ok(entered)
    }
}

impl Drop for WritingAll {
    fn drop(&mut self) {
        for handle in &self.0 {
            handle.leave_counted(self.1);
        }
    }
}

/// Owns one `rocksdb_column_family_handle_t`, and with it the column family's
/// `ColumnFamilyData` (`ColumnFamilyHandleImpl`'s destructor unrefs it): its options, table
/// factory and block cache, which pinned blocks live in.
pub(crate) struct CfHandle {
    raw: FamilyHandle,
    pub(crate) name: String,
    /// The `DbInner::id` of the database it belongs to.
    pub(crate) db_id: u64,
    is_default: bool,
    /// Lock: held only to change or read the counters (`enter`, `leave`, `note_prepared`,
    /// `close_for_drop`), never across a RocksDB call; `drop_cf` waits on `idle`, which
    /// releases it.
    gate: Mutex<Gate>,
    /// Notified when the last write in flight leaves a family being dropped.
    idle: Condvar,
    /// Its key order, when not bytewise; the `DbInner` keeps it alive for RocksDB.
    pub(crate) order: Option<Comparator>,
    /// What its options let it hold (`PINROCKS_CF_*`, fixed for the life of the open).
    capabilities: u8,
    /// The size of the timestamp its comparator appends to each key (0: none), as RocksDB
    /// reports it: whichever options opened it (typed, by name, an OPTIONS file).
    pub(crate) timestamp_size: usize,
}

impl CfHandle {
    /// Takes over `raw`, a new handle of a database that outlives it (its owners hold the
    /// database longer: see `db::handles`' module comment).
    pub(crate) fn new(raw: FamilyPtr, name: String, db_id: u64, traits: FamilyTraits) -> Self {
        // SAFETY: a new handle RocksDB just made, ours alone; its database outlives it.
        let raw = unsafe { FamilyHandle::own(raw) };
        CfHandle {
            is_default: name == DEFAULT_COLUMN_FAMILY,
            name,
            db_id,
            gate: Mutex::new(Gate::default()),
            idle: Condvar::new(),
            order: traits.order,
            capabilities: raw.capabilities(),
            timestamp_size: raw.timestamp_size(),
            raw,
        }
    }

    /// `Err(NotSupported)` for a merge into this family without a merge operator, as
    /// `DB::Merge` refuses it. In a batch or a transaction RocksDB would take it into the
    /// WAL, fail it in the memtable, and then refuse every later write until a reopen.
    #[inline]
    pub(crate) fn check_merge(&self) -> Result<()> {
        self.check_can(CAN_MERGE, "Provide a merge_operator when opening DB")
    }

    /// `Err(NotSupported)` for a range delete into a plain-table family: RocksDB would take
    /// it, then fail every flush that meets it and stop the database.
    pub(crate) fn check_range_delete(&self) -> Result<()> {
        self.check_can(
            CAN_DELETE_RANGES,
            "Range deletion unsupported by the plain table format",
        )
    }

    #[inline]
    fn check_can(&self, capability: u32, refusal: &str) -> Result<()> {
        if u32::from(self.capabilities) & capability != 0 {
            return Ok(());
        }
        Err(self.cannot(refusal))
    }

    /// RocksDB's words for what this family cannot do, out of the writes' way.
    #[cold]
    #[inline(never)]
    fn cannot(&self, refusal: &str) -> Error {
        Error::RocksDb {
            kind: ErrorKind::NotSupported,
            message: format!("Not implemented: {refusal} (column family {:?})", self.name),
        }
    }

    /// The typed error of a read or write giving this family a `given`-byte timestamp (0:
    /// none) where it takes `timestamp_size` bytes.
    pub(crate) fn timestamp_mismatch(&self, given: usize) -> Error {
        Error::TimestampMismatch {
            family: self.name.clone(),
            expected: self.timestamp_size,
            given,
        }
    }

    pub(crate) fn raw(&self) -> FamilyPtr {
        self.raw.as_ptr()
    }

    /// Its native handle, for the calls in `raw/` that take one.
    pub(crate) fn handle(&self) -> &FamilyHandle {
        &self.raw
    }

    /// Its id, as RocksDB numbers families.
    pub(crate) fn id(&self) -> u32 {
        self.raw.id()
    }

    /// The default family cannot be dropped (RocksDB refuses), so writes to it need no lock.
    pub(crate) fn is_default(&self) -> bool {
        self.is_default
    }

    // Every change to the gate is a whole step (no panic while it is held), so a
    // poisoned lock is still consistent.
    fn gate(&self) -> std::sync::MutexGuard<'_, Gate> {
        self.gate
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A write to this family starts: `Err(ColumnFamilyDropped)` once `drop_cf` began.
    pub(crate) fn enter(&self) -> Result<Writing<'_>> {
        self.enter_counted(false)?;
        Ok(Writing(self))
    }

    fn enter_counted(&self, preparing: bool) -> Result<()> {
        let mut gate = self.gate();
        if gate.dropped {
            return Err(Error::ColumnFamilyDropped {
                name: self.name.clone(),
            });
        }
        gate.writers += 1;
        gate.preparing += usize::from(preparing);
        Ok(())
    }

    fn leave_counted(&self, preparing: bool) {
        let mut gate = self.gate();
        gate.writers -= 1;
        gate.preparing -= usize::from(preparing);
        if gate.writers == 0 && gate.dropped {
            self.idle.notify_all();
        }
    }

    /// A transaction that writes to this family was prepared (`+1`) or has ended (`-1`).
    /// Called while the transaction is entered (prepare) or after it (end).
    pub(crate) fn note_prepared(&self, prepared: bool) {
        let mut gate = self.gate();
        if prepared {
            gate.prepared += 1;
        } else {
            // Every -1 follows its own +1 (`Transaction` counts a family once, when it is
            // prepared or written after); never wrap, whatever happens.
            debug_assert!(
                gate.prepared > 0,
                "prepared count of {:?} below zero",
                self.name
            );
            gate.prepared = gate.prepared.saturating_sub(1);
        }
    }

    /// For `drop_cf`: closes the gate and waits for the writes in flight. Refused, with
    /// the gate left open, while a prepared transaction writes to the family or a prepare
    /// that does is in flight: once closed, the gate is never reopened (no write in
    /// between is refused for a family that stays).
    pub(crate) fn close_for_drop(&self) -> Result<()> {
        let mut gate = self.gate();
        if gate.dropped {
            return Err(Error::ColumnFamilyNotFound {
                name: self.name.clone(),
            });
        }
        if gate.prepared + gate.preparing > 0 {
            return Err(Error::ColumnFamilyInUse {
                name: self.name.clone(),
            });
        }
        gate.dropped = true;
        while gate.writers > 0 {
            gate = self
                .idle
                .wait(gate)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
        }
        Ok(())
    }
}

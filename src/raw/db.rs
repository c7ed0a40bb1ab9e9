//! The open database's native handle (`RawDb`): its `rocksdb_t` (and, for a transaction
//! database, the transaction database behind it), the controls of its background work,
//! and its close.

use std::ptr::NonNull;

use crate::raw::error::{with_code, ErrPtr, Error, Result};
use crate::raw::ffi;

/// The controls of a database's background work, as `pinrocks_db_background` takes them.
pub(crate) mod bg {
    pub(crate) use crate::raw::ffi::{
        PINROCKS_BG_CANCEL as CANCEL, PINROCKS_BG_CANCEL_AND_WAIT as CANCEL_AND_WAIT,
        PINROCKS_BG_CONTINUE as CONTINUE, PINROCKS_BG_DISABLE_DELETIONS as DISABLE_DELETIONS,
        PINROCKS_BG_ENABLE_DELETIONS as ENABLE_DELETIONS, PINROCKS_BG_PAUSE as PAUSE,
        PINROCKS_BG_RESUME as RESUME, PINROCKS_BG_VERIFY_CHECKSUM as VERIFY_CHECKSUM,
        PINROCKS_BG_VERIFY_FILE_CHECKSUMS as VERIFY_FILE_CHECKSUMS,
    };
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

    /// The database's `rocksdb_t`, live while `self` is.
    pub(crate) fn as_ptr(&self) -> *mut ffi::rocksdb_t {
        self.handle().as_ptr()
    }

    /// Reads what the primary has written since; RocksDB refuses (NotSupported) a
    /// database that is not a secondary instance.
    pub(crate) fn try_catch_up_with_primary(&self) -> Result<()> {
        // SAFETY: the open database, owned; guarded (it replays the primary's new WAL
        // records), so no C++ exception leaves the call.
        with_code(|code, err| unsafe {
            ffi::pinrocks_guarded_try_catch_up_with_primary(code, self.as_ptr(), err)
        })
    }

    /// One control of the database's background work (`op`: a `bg::*`).
    pub(crate) fn background(&self, op: u32) -> Result<()> {
        // SAFETY: the open database, owned; no C++ exception leaves the call.
        with_code(|code, err| unsafe {
            ffi::pinrocks_db_background(self.handle().as_ptr(), op as i32, code, err)
        })
    }

    /// The background error that stops writes, with its severity
    /// (`pinrocks_db_background_error`): `Ok(None)` while writes go on, `Err` if the probe
    /// failed or cannot be made.
    pub(crate) fn stopped_by(&self) -> Result<Option<(i32, Error)>> {
        let (mut severity, mut code, mut err) = (0, 0, ErrPtr::new());
        // SAFETY: the open database, owned; no C++ exception leaves the call.
        let stopped = unsafe {
            ffi::pinrocks_db_background_error(
                self.handle().as_ptr(),
                &mut severity,
                &mut code,
                err.as_out(),
            )
        };
        match err.check_with_code(Some(code)) {
            Err(error) if stopped != 0 => Ok(Some((severity, error))),
            Err(error) => Err(error),
            Ok(()) => Ok(None),
        }
    }

    /// Readies the database for its close, so that the close cannot wait for ever:
    /// undoes every `pause_background_work` in force (a close may flush and wait; RocksDB
    /// refuses a continue when nothing is paused), then, if a flush or compaction failed
    /// in this open, marks the shutdown.
    ///
    /// The mark is RocksDB 11.8.1's `CancelAllBackgroundWork(false)`, which `DB::Close`
    /// calls too, but only after it has joined RocksDB's own recovery thread
    /// (`ErrorHandler::EndAutoRecovery`). That thread can wait for ever in
    /// `WaitForFlushMemTables` for a flush request RocksDB dropped (counted as a failed
    /// flush; `recovery_hangs.rs`, `docs/faults.md`). The mark wakes that wait, which returns
    /// `ShutdownInProgress`, and the close joins the thread. The cost, only after a failed
    /// flush or compaction: a recovery still running is cut short instead of awaited, so
    /// what was written without the WAL since the error may be lost, as in a crash. Last,
    /// the database leaves its `SstFileManager`'s space recovery, which RocksDB's close
    /// can free it under (`rocksdb-c/space_recovery.cc`).
    fn ready_to_close(&self) {
        for _ in 0..=u32::from(u16::MAX) {
            if self.background(ffi::PINROCKS_BG_CONTINUE).is_err() {
                break;
            }
        }
        // A failure leaves the close as RocksDB orders it; nobody to report to.
        let _ = self.background(ffi::PINROCKS_BG_READY_TO_CLOSE);
    }

    /// Frees the database: for a transaction database its `rocksdb_t` wrapper first, then
    /// the database; closes it first if `DB::Close` has not (the destructor closes).
    /// Guarded: a failure here has no one to report to, and only the exception must not
    /// reach Rust.
    fn free(&mut self) {
        let (mut code, mut err) = (0, ErrPtr::new());
        // SAFETY: owned by `self` and freed exactly once (by `Drop`, or by `close`, which
        // forgets `self` after), after the handles (field order in `DbInner`) and after
        // every snapshot, iterator, transaction and pin (their owners hold or borrow the
        // `DbInner`).
        unsafe {
            match self {
                RawDb::Plain(db) => {
                    ffi::pinrocks_guarded_close(&mut code, db.as_ptr(), err.as_out())
                }
                RawDb::Transaction { handle, txn_db } => {
                    ffi::pinrocks_guarded_transactiondb_close_base_db(
                        &mut code,
                        handle.as_ptr(),
                        err.as_out(),
                    );
                    ffi::pinrocks_guarded_transactiondb_close(
                        &mut code,
                        txn_db.as_ptr(),
                        err.as_out(),
                    );
                }
                RawDb::Optimistic { handle, txn_db } => {
                    ffi::pinrocks_guarded_optimistictransactiondb_close_base_db(
                        &mut code,
                        handle.as_ptr(),
                        err.as_out(),
                    );
                    ffi::pinrocks_guarded_optimistictransactiondb_close(
                        &mut code,
                        txn_db.as_ptr(),
                        err.as_out(),
                    );
                }
            }
        }
    }

    /// `DB::Close` (rocksdb-c/), reporting its status, then the free: nothing else touches
    /// the closed database (RocksDB's logger and version set are gone after `Close`).
    /// `NotSupported` (a database that closes in its destructor) counts as closed.
    pub(crate) fn close(self) -> Result<()> {
        let mut this = std::mem::ManuallyDrop::new(self);
        this.ready_to_close();
        let mut err = ErrPtr::new();
        let mut code = 0;
        // SAFETY: the open database, owned; closed once here and then only freed
        // (`DB::Close` is idempotent and the destructor does nothing more after it).
        unsafe { ffi::pinrocks_db_close(this.handle().as_ptr(), &mut code, err.as_out()) };
        this.free();
        match err.check_with_code(Some(code)) {
            Err(e) if e.kind() == Some(crate::raw::error::ErrorKind::NotSupported) => Ok(()),
            other => other,
        }
    }
}

impl Drop for RawDb {
    fn drop(&mut self) {
        self.ready_to_close();
        self.free();
    }
}

/// What pinrocks does to a database that is not open (`pinrocks_destroy_or_repair`).
pub(crate) use crate::raw::ffi::{PINROCKS_DESTROY_DB as DESTROY, PINROCKS_REPAIR_DB as REPAIR};

/// Destroys (`DESTROY`) or repairs (`REPAIR`) the database at `path`, which no one has open.
pub(crate) fn destroy_or_repair(
    options: &crate::raw::options_handle::OptionsHandle,
    path: &std::ffi::CStr,
    op: u32,
) -> Result<()> {
    // SAFETY: live options and a NUL-terminated path, borrowed for the call; no C++
    // exception leaves it.
    with_code(|code, err| unsafe {
        ffi::pinrocks_destroy_or_repair(options.as_ptr(), path.as_ptr(), op as i32, code, err)
    })
}

pub(crate) use crate::raw::family::FamilyPtr;

/// An open database's `rocksdb_t`, as the calls on it take it.
pub(crate) type DbPtr = *mut ffi::rocksdb_t;

impl RawDb {
    /// Drops the column family `family` (RocksDB may fail after committing the drop).
    ///
    /// # Safety
    /// `family` must be a live handle of this database.
    pub(crate) unsafe fn drop_column_family(&self, family: FamilyPtr) -> Result<()> {
        // SAFETY: live database and handle (the caller's contract); guarded.
        with_code(|code, err| unsafe {
            ffi::pinrocks_guarded_drop_column_family(code, self.as_ptr(), family, err)
        })
    }

    /// Compacts `[from, to)` (`None`: unbounded) of `family` with `options`.
    ///
    /// # Safety
    /// `family` must be a live handle of this database.
    pub(crate) unsafe fn compact_range(
        &self,
        family: FamilyPtr,
        options: &CompactOptions,
        from: Option<&[u8]>,
        to: Option<&[u8]>,
    ) -> Result<()> {
        let (from_ptr, from_len) = from.map_or((std::ptr::null(), 0), |k| (k.as_ptr(), k.len()));
        let (to_ptr, to_len) = to.map_or((std::ptr::null(), 0), |k| (k.as_ptr(), k.len()));
        // SAFETY: live database and handle (the caller's contract); the bounds and options
        // are borrowed for the call only. No C++ exception leaves it.
        with_code(|code, err| unsafe {
            ffi::pinrocks_compact_range(
                self.as_ptr(),
                options,
                family,
                from_ptr.cast(),
                from_len,
                to_ptr.cast(),
                to_len,
                code,
                err,
            )
        })
    }

    /// Compacts the SST files named into `output_level`: the names of the files written.
    ///
    /// # Safety
    /// `family` must be a live handle of this database.
    pub(crate) unsafe fn compact_files(
        &self,
        family: FamilyPtr,
        files: &[*const std::ffi::c_char],
        output_level: i32,
    ) -> Result<Vec<String>> {
        let mut outputs: Vec<String> = Vec::new();
        // SAFETY: live database and handle (the caller's contract); the names live for the
        // call; `collect` is called during the call only, with `outputs` as its context. No
        // C++ exception leaves the call, and `collect` cannot panic (it pushes a lossily
        // decoded name).
        with_code(|code, err| unsafe {
            ffi::pinrocks_compact_files(
                self.as_ptr(),
                family,
                files.len(),
                files.as_ptr(),
                output_level,
                Some(collect),
                (&mut outputs as *mut Vec<String>).cast(),
                code,
                err,
            )
        })?;
        Ok(outputs)
    }

    /// Flushes the families (each once, at least one), waiting if `wait`.
    ///
    /// # Safety
    /// Each of `families` must be a live handle of this database.
    pub(crate) unsafe fn flush(
        &self,
        families: &[FamilyPtr],
        wait: bool,
        allow_write_stall: bool,
    ) -> Result<()> {
        // SAFETY: live database and handles (the caller's contract). No C++ exception
        // leaves.
        with_code(|code, err| unsafe {
            ffi::pinrocks_flush(
                self.as_ptr(),
                families.len(),
                families.as_ptr(),
                u8::from(wait),
                u8::from(allow_write_stall),
                code,
                err,
            )
        })
    }
}

/// Receives one output file name of `pinrocks_compact_files`.
unsafe extern "C" fn collect(
    ctx: *mut std::ffi::c_void,
    data: *const std::ffi::c_char,
    len: usize,
) {
    // SAFETY: `ctx` is the `Vec<String>` of `compact_files`, alive and unaliased for the
    // call; `data` holds `len` bytes for this call.
    unsafe {
        let outputs = &mut *ctx.cast::<Vec<String>>();
        let name = std::slice::from_raw_parts(data.cast::<u8>(), len);
        // Allocation failure aborts (it does not unwind); nothing else here can panic.
        outputs.push(String::from_utf8_lossy(name).into_owned());
    }
}

/// RocksDB's `CompactRangeOptions`, as `pinrocks_compact_range` takes them.
pub(crate) type CompactOptions = ffi::pinrocks_compact_options;

/// The values of `CompactOptions`' enums.
pub(crate) mod compact {
    pub(crate) use crate::raw::ffi::{
        PINROCKS_BLOB_GC_DISABLE as BLOB_GC_DISABLE, PINROCKS_BLOB_GC_FORCE as BLOB_GC_FORCE,
        PINROCKS_BLOB_GC_USE_DEFAULT as BLOB_GC_USE_DEFAULT,
        PINROCKS_BOTTOMMOST_FORCE as BOTTOMMOST_FORCE,
        PINROCKS_BOTTOMMOST_FORCE_OPTIMIZED as BOTTOMMOST_FORCE_OPTIMIZED,
        PINROCKS_BOTTOMMOST_IF_HAVE_COMPACTION_FILTER as BOTTOMMOST_IF_HAVE_COMPACTION_FILTER,
        PINROCKS_BOTTOMMOST_SKIP as BOTTOMMOST_SKIP,
    };
}

/// Waits until no flush or compaction is running or pending, flushing first if `flush`.
///
/// # Safety
/// `db` must be an open database, for the call.
pub(crate) unsafe fn wait_for_compact(db: *mut ffi::rocksdb_t, flush: bool) -> Result<()> {
    // SAFETY: live database (the caller's contract); the options are created and destroyed
    // around the call; guarded.
    with_code(|code, err| unsafe {
        let options = ffi::rocksdb_wait_for_compact_options_create();
        ffi::rocksdb_wait_for_compact_options_set_flush(options, u8::from(flush));
        ffi::pinrocks_guarded_wait_for_compact(code, db, options, err);
        ffi::rocksdb_wait_for_compact_options_destroy(options);
    })
}

/// Writes the WAL's buffered writes to its file, and fsyncs it if `sync`.
///
/// # Safety
/// `db` must be an open database, for the call.
pub(crate) unsafe fn flush_wal(db: *mut ffi::rocksdb_t, sync: bool) -> Result<()> {
    // SAFETY: live database (the caller's contract); guarded.
    with_code(|code, err| unsafe { ffi::pinrocks_guarded_flush_wal(code, db, u8::from(sync), err) })
}

/// Deletes the SST files of `family` whose keys all lie in `[from, to]`.
///
/// # Safety
/// `db` must be open and `family` one of its live handles, for the call.
pub(crate) unsafe fn delete_files_in_range(
    db: *mut ffi::rocksdb_t,
    family: FamilyPtr,
    from: &[u8],
    to: &[u8],
) -> Result<()> {
    // SAFETY: live database and handle (the caller's contract); the bounds are borrowed for
    // the call (never NULL: a slice's pointer is not, even when empty). No C++ exception
    // leaves the call.
    with_code(|code, err| unsafe {
        ffi::pinrocks_delete_file_in_range_cf(
            db,
            family,
            from.as_ptr().cast(),
            from.len(),
            to.as_ptr().cast(),
            to.len(),
            code,
            err,
        )
    })
}

/// A snapshot of a database, as reads take it.
pub(crate) type SnapshotPtr = *const ffi::rocksdb_snapshot_t;

impl RawDb {
    /// A new snapshot (never NULL: the C API's wrapper; what it wraps may be, see the
    /// caller), to release on this database before it closes.
    pub(crate) fn create_snapshot(&self) -> SnapshotPtr {
        // SAFETY: the open database, owned.
        unsafe { ffi::rocksdb_create_snapshot(self.as_ptr()) }
    }

    /// Releases `snapshot`.
    ///
    /// # Safety
    /// `snapshot` must be one of this database's, released once.
    pub(crate) unsafe fn release_snapshot(&self, snapshot: SnapshotPtr) {
        // SAFETY: the open database and one of its snapshots (the caller's contract).
        unsafe { ffi::rocksdb_release_snapshot(self.as_ptr(), snapshot) };
    }
}

/// The sequence number `snapshot` reads at.
///
/// # Safety
/// `snapshot` must be live.
pub(crate) unsafe fn snapshot_sequence_number(snapshot: SnapshotPtr) -> u64 {
    // SAFETY: the caller's contract; `GetSequenceNumber` only reads it.
    unsafe { ffi::rocksdb_snapshot_get_sequence_number(snapshot) }
}

//! The backup engine's native handle and its calls, the progress callback's trampoline, and
//! checkpoints: copies of a live database made by RocksDB's `Checkpoint` and
//! `BackupEngine`.

use std::ffi::{c_void, CStr};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::raw::error::{with_code, ErrPtr, Result};
use crate::raw::ffi;
use crate::raw::options_handle::OptionsHandle;
use crate::raw::reentry;
use crate::raw::trampoline::Carried;

/// Writes a checkpoint of `db` to `path`, flushing first unless the live WAL files hold
/// fewer than `log_size_for_flush` bytes.
///
/// # Safety
/// `db` must be an open database, borrowed for the call.
pub(crate) unsafe fn checkpoint(
    db: *mut ffi::rocksdb_t,
    path: &CStr,
    log_size_for_flush: u64,
) -> Result<()> {
    let mut err = ErrPtr::new();
    let mut code = 0;
    // SAFETY: live database (the caller's contract); the checkpoint object it creates is
    // destroyed before returning, whatever happened. Guarded calls.
    unsafe {
        let checkpoint =
            ffi::pinrocks_guarded_checkpoint_object_create(&mut code, db, err.as_out());
        if checkpoint.is_null() {
            return err.check_with_code(Some(code));
        }
        ffi::pinrocks_guarded_checkpoint_create(
            &mut code,
            checkpoint,
            path.as_ptr(),
            log_size_for_flush,
            err.as_out(),
        );
        ffi::rocksdb_checkpoint_object_destroy(checkpoint);
    }
    err.check_with_code(Some(code))
}

/// One backup, as [`BackupEngine::backups`](crate::admin::BackupEngine::backups) lists it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BackupInfo {
    /// Its id, increasing from 1.
    pub id: u32,
    /// When it was taken, in seconds since the Unix epoch.
    pub timestamp: i64,
    /// Its size in bytes (files shared with other backups counted in each).
    pub size: u64,
    /// How many files it holds.
    pub files: u32,
}

/// Owns one open `rocksdb_backup_engine_t`, closed by `Drop`.
pub(crate) struct BackupEngineHandle(NonNull<ffi::rocksdb_backup_engine_t>);

// SAFETY: `BackupEngine::Open` returns a `BackupEngineImplThreadSafe`
// (utilities/backup/backup_engine.cc), whose every method takes a read-write lock;
// include/rocksdb/utilities/backup_engine.h documents its operations as thread-safe.
unsafe impl Send for BackupEngineHandle {}
// SAFETY: see `Send`.
unsafe impl Sync for BackupEngineHandle {}

impl Drop for BackupEngineHandle {
    fn drop(&mut self) {
        // SAFETY: owned by `self`, closed once.
        unsafe { ffi::rocksdb_backup_engine_close(self.0.as_ptr()) };
    }
}

/// A backup's progress callback (a panic caught in it is carried by `Carried`).
struct Progress<F> {
    f: F,
    calls: u64,
    /// Whether the backup was asked to stop (which stops the engine for good).
    stopped: bool,
}

/// Called by RocksDB as a backup copies; never unwinds into C++ (a panic stops the backup
/// and is resumed by `BackupEngineHandle::create`).
extern "C" fn progress_trampoline<F: FnMut(u64) -> bool + Send>(ctx: *mut c_void) -> u8 {
    // SAFETY: `ctx` is the `Carried<Progress<F>>` that `create` passed, alive until
    // `CreateNewBackup` returns. RocksDB calls the callback from its one backup worker
    // (`BackupEngineOptions::max_background_operations` is 1, the C API's default) while
    // the caller waits: one call at a time, never beside the caller's use. `F: Send`.
    let carried = unsafe { Carried::<Progress<F>>::from_ctx(ctx) };
    if carried.state.stopped {
        return 1;
    }
    carried.state.calls += 1;
    let calls = carried.state.calls;
    let go_on = carried
        .run(|progress| reentry::inside("backup progress callback", || (progress.f)(calls)))
        .unwrap_or(false);
    carried.state.stopped = !go_on;
    u8::from(!go_on)
}

impl BackupEngineHandle {
    /// Opens (or creates) the backup directory at `path`, on the options' `Env` and logger.
    ///
    /// # Safety
    /// The engine keeps the options' `Env` and info log by raw pointer: they must outlive
    /// the engine.
    pub(crate) unsafe fn open(options: &OptionsHandle, path: &CStr) -> Result<Self> {
        // SAFETY: the options are read for the call; their Env and logger outlive the
        // engine (the caller's contract). The path is copied. Guarded (it starts threads:
        // `std::system_error`).
        let raw = with_code(|code, err| unsafe {
            ffi::pinrocks_guarded_backup_engine_open(code, options.as_ptr(), path.as_ptr(), err)
        })?;
        Ok(BackupEngineHandle(NonNull::new(raw).expect(
            "rocksdb_backup_engine_open returned NULL without an error",
        )))
    }

    /// Backs `db` up, calling `progress` as it goes: the new backup's id. A `false` or a
    /// panic stops the backup, and stops the engine for good: `stopped` is set before the
    /// panic is resumed here.
    ///
    /// # Safety
    /// `db` must be an open database, borrowed for the call.
    pub(crate) unsafe fn create<F: FnMut(u64) -> bool + Send>(
        &self,
        db: *mut ffi::rocksdb_t,
        flush: bool,
        progress: Option<F>,
        stopped: &AtomicBool,
    ) -> Result<u32> {
        // Our C++ closes the callback's gate before the call returns, however
        // `CreateNewBackup` left (an exception too, with copies still queued on its
        // workers): no call reaches `ctx` after the call, so it is freed as usual.
        let mut callback = progress.map(|f| {
            Box::new(Carried::new(Progress {
                f,
                calls: 0,
                stopped: false,
            }))
        });
        let (trampoline, ctx): (ffi::pinrocks_progress_fn, *mut c_void) = match &mut callback {
            Some(c) => (Some(progress_trampoline::<F>), c.as_ctx()),
            None => (None, std::ptr::null_mut()),
        };
        let mut id = 0;
        // SAFETY: live engine and database (the caller's contract); `ctx` is the
        // `Carried<Progress<F>>` that `trampoline` expects, alive until the call returns.
        let made = with_code(|code, err| unsafe {
            ffi::pinrocks_backup_engine_create(
                self.0.as_ptr(),
                db,
                u8::from(flush),
                trampoline,
                ctx,
                &mut id,
                code,
                err,
            )
        });
        if let Some(callback) = callback {
            if callback.state.stopped {
                stopped.store(true, Ordering::Release);
            }
            callback.finish();
        }
        made.map(|()| id)
    }

    /// The backups, oldest first.
    pub(crate) fn backups(&self) -> Result<Vec<BackupInfo>> {
        // SAFETY: live engine; the info is a new object (NULL on a caught failure).
        let info = with_code(|code, err| unsafe {
            ffi::pinrocks_guarded_backup_engine_get_backup_info(code, self.0.as_ptr(), err)
        })?;
        // SAFETY: the info is read and then destroyed here; indexes stay below its count.
        unsafe {
            let count = ffi::rocksdb_backup_engine_info_count(info);
            let backups = (0..count)
                .map(|i| BackupInfo {
                    id: ffi::rocksdb_backup_engine_info_backup_id(info, i),
                    timestamp: ffi::rocksdb_backup_engine_info_timestamp(info, i),
                    size: ffi::rocksdb_backup_engine_info_size(info, i),
                    files: ffi::rocksdb_backup_engine_info_number_files(info, i),
                })
                .collect();
            ffi::rocksdb_backup_engine_info_destroy(info);
            Ok(backups)
        }
    }

    /// Checks backup `id`, reading every byte against its checksums.
    pub(crate) fn verify(&self, id: u32) -> Result<()> {
        // SAFETY: live engine; our C++ reports the status and lets no exception out.
        with_code(|code, err| unsafe {
            ffi::pinrocks_backup_engine_verify(self.0.as_ptr(), id, 1, code, err)
        })
    }

    /// Restores backup `id` (`None`: the newest) into `dir` through the options' `Env`;
    /// with the error, whether the directory's LOCK was held by another open.
    pub(crate) fn restore(
        &self,
        options: &OptionsHandle,
        dir: &CStr,
        id: Option<u32>,
    ) -> (Result<()>, bool) {
        let mut locked_out = 0;
        // SAFETY: live engine and options (whose Env the caller keeps alive with the
        // engine); the path is copied; everything else is made and freed inside.
        let restored = with_code(|code, err| unsafe {
            locked_out = ffi::pinrocks_backup_engine_restore(
                self.0.as_ptr(),
                options.as_ptr(),
                dir.as_ptr(),
                id.unwrap_or(0),
                u8::from(id.is_none()),
                code,
                err,
            )
        });
        (restored, locked_out != 0)
    }

    /// Deletes all but the newest `keep` backups.
    pub(crate) fn purge_old_backups(&self, keep: u32) -> Result<()> {
        // SAFETY: live engine; guarded.
        with_code(|code, err| unsafe {
            ffi::pinrocks_guarded_backup_engine_purge_old_backups(code, self.0.as_ptr(), keep, err)
        })
    }
}

/// The sequence number of the last write to `db`.
///
/// # Safety
/// `db` must be an open database.
pub(crate) unsafe fn latest_sequence_number(db: *mut ffi::rocksdb_t) -> u64 {
    // SAFETY: the caller's contract; an atomic load.
    unsafe { ffi::rocksdb_get_latest_sequence_number(db) }
}

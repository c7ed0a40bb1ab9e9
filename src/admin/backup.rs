//! Copies of a live database: checkpoints (an openable copy, hard-linked where it can be)
//! and backups (a `BackupEngine` directory of incremental backups to verify and restore).

use std::ffi::c_void;
use std::path::Path;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::db::database::Db;
use crate::db::handles::{DirInUse, DirUse};
use crate::options::db_options::Options;
use crate::options::env_owner::EnvOwner;
use crate::raw::cstr::path_to_cstring;
use crate::raw::error::{with_code, ErrPtr, Error, Result};
use crate::raw::ffi;
use crate::raw::owned::Owned;
use crate::raw::reentry;
use crate::raw::trampoline::Carried;

impl Db {
    /// Writes a consistent, openable copy of the database to `path` (which must not exist),
    /// while writers go on: SST files are hard-linked where the file system allows, the
    /// rest copied. The memtables are flushed first, so the copy needs no WAL replay.
    ///
    /// ```
    /// # fn main() -> pinrocks::Result<()> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let mut opts = pinrocks::Options::new();
    /// # opts.create_if_missing(true);
    /// let db = pinrocks::Db::open(&opts, dir.path().join("live"))?;
    /// db.put(b"k", b"v")?;
    /// db.checkpoint(dir.path().join("copy"))?;
    /// let copy = pinrocks::Db::open(&pinrocks::Options::new(), dir.path().join("copy"))?;
    /// assert_eq!(copy.get(b"k")?.as_deref(), Some(&b"v"[..]));
    /// # Ok(()) }
    /// ```
    #[doc(alias = "CreateCheckpoint")]
    #[doc(alias = "Checkpoint")]
    pub fn checkpoint(&self, path: impl AsRef<Path>) -> Result<()> {
        self.checkpoint_with(path, 0)
    }

    /// A checkpoint, as [`checkpoint`](Self::checkpoint), that flushes the memtables only
    /// if the live WAL files hold at least `log_size_for_flush` bytes; below that the WAL
    /// files are copied instead and replayed when the copy opens (a cheaper checkpoint of
    /// a database with small memtables). 0 always flushes.
    #[doc(alias = "log_size_for_flush")]
    pub fn checkpoint_with(&self, path: impl AsRef<Path>, log_size_for_flush: u64) -> Result<()> {
        reentry::refuse_inside("checkpoint")?;
        let c_path = path_to_cstring(path.as_ref())?;
        let (db, _) = self.as_raw();
        let mut err = ErrPtr::new();
        let mut code = 0;
        // SAFETY: live database (borrowed for the call); the checkpoint object it creates
        // is destroyed before returning, whatever happened. Guarded calls.
        unsafe {
            let checkpoint =
                ffi::pinrocks_guarded_checkpoint_object_create(&mut code, db, err.as_out());
            if checkpoint.is_null() {
                return err.check_with_code(Some(code));
            }
            ffi::pinrocks_guarded_checkpoint_create(
                &mut code,
                checkpoint,
                c_path.as_ptr(),
                log_size_for_flush,
                err.as_out(),
            );
            ffi::rocksdb_checkpoint_object_destroy(checkpoint);
        }
        err.check_with_code(Some(code))
    }

    /// The sequence number of the last write.
    pub fn latest_sequence_number(&self) -> u64 {
        // SAFETY: live database.
        unsafe { ffi::rocksdb_get_latest_sequence_number(self.as_raw().0) }
    }
}

/// A directory of backups of a database (`BackupEngine`): each backup is incremental (SST
/// files already backed up are shared), can be verified against its checksums, and
/// restored to a directory. Thread-safe: RocksDB's `BackupEngine` serializes its work
/// with a read-write lock.
///
/// Restore only into a directory no open database uses: RocksDB replaces its files.
///
/// ```
/// use pinrocks::{Db, Options};
/// use pinrocks::admin::BackupEngine;
/// # fn main() -> pinrocks::Result<()> {
/// # let dir = tempfile::tempdir().unwrap();
/// let mut options = Options::new();
/// options.create_if_missing(true);
/// let backups = BackupEngine::open(&options, dir.path().join("backups"))?;
/// {
///     let db = Db::open(&options, dir.path().join("db"))?;
///     db.put(b"k", b"first")?;
///     backups.create_backup(&db, true)?;
///     db.put(b"k", b"second")?;
///     backups.create_backup(&db, true)?;
/// }
/// let ids: Vec<u32> = backups.backups()?.iter().map(|b| b.id).collect();
/// assert_eq!(ids, [1, 2]);
/// backups.verify(1)?;
/// backups.restore(1, dir.path().join("restored"))?;
/// let db = Db::open(&options, dir.path().join("restored"))?;
/// assert_eq!(db.get(b"k")?.as_deref(), Some(&b"first"[..]));
/// # Ok(()) }
/// ```
#[doc(alias = "CreateNewBackup")]
#[doc(alias = "RestoreDBFromBackup")]
pub struct BackupEngine {
    raw: NonNull<ffi::rocksdb_backup_engine_t>,
    /// Set once a progress callback stopped a backup (RocksDB's `StopBackup` is one-way):
    /// every later operation but listing is refused before it reaches RocksDB.
    stopped: AtomicBool,
    /// The owner of the options' `Env`, if not the default (a fault file system): the engine
    /// keeps a raw pointer to it for the database and the backup directory. Dropped after
    /// `Drop` has closed the engine.
    _env: Option<EnvOwner>,
    /// A copy of the options it was opened with: it keeps their info log alive (RocksDB's
    /// `BackupEngineOptions` holds a raw `Logger*`), and gives their `Env` (the one the
    /// engine writes the database through): a restore creates and locks the directory
    /// there too.
    options: Owned<ffi::rocksdb_options_t>,
}

// SAFETY: `BackupEngine::Open` returns a `BackupEngineImplThreadSafe`
// (utilities/backup/backup_engine.cc), whose every method takes a read-write lock;
// include/rocksdb/utilities/backup_engine.h documents its operations as thread-safe. The
// options copy is only read (for its `Env` pointer), by any thread.
unsafe impl Send for BackupEngine {}
// SAFETY: see `Send`.
unsafe impl Sync for BackupEngine {}

/// A backup's progress callback (a panic caught in it is carried by `Carried`).
struct Progress<F> {
    f: F,
    calls: u64,
    /// Whether the backup was asked to stop (which stops the engine for good).
    stopped: bool,
}

/// Called by RocksDB as a backup copies; never unwinds into C++ (a panic stops the backup
/// and is resumed by `BackupEngine::create`).
extern "C" fn progress_trampoline<F: FnMut(u64) -> bool + Send>(ctx: *mut c_void) -> u8 {
    // SAFETY: `ctx` is the `Carried<Progress<F>>` that `BackupEngine::create` passed, alive until
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

/// One backup, as [`BackupEngine::backups`] lists it.
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

impl BackupEngine {
    /// Opens (or creates) the backup directory at `path`. The options give the
    /// environment (the default one) and logger RocksDB uses for it.
    pub fn open(options: &Options, path: impl AsRef<Path>) -> Result<BackupEngine> {
        let c_path = path_to_cstring(path.as_ref())?;
        // SAFETY: the options are read for the call; the engine keeps their Env and info
        // log by raw pointer, which the engine's copy of the options (the logger, by
        // shared_ptr) and `_env` keep alive until `Drop` has closed it. The path is
        // copied. Guarded (it starts threads: `std::system_error`).
        let raw = with_code(|code, err| unsafe {
            ffi::pinrocks_guarded_backup_engine_open(
                code,
                options.raw.as_ptr(),
                c_path.as_ptr(),
                err,
            )
        })?;
        Ok(BackupEngine {
            raw: NonNull::new(raw)
                .expect("rocksdb_backup_engine_open returned NULL without an error"),
            stopped: AtomicBool::new(false),
            _env: options.env_owner.clone(),
            // SAFETY: live options, read only; a new handle, ours alone (NULL only on
            // allocation failure, refused).
            options: unsafe {
                Owned::from_raw(ffi::rocksdb_options_create_copy(options.raw.as_ptr()))
            }
            .expect("a NULL options copy"),
        })
    }

    fn check_running(&self) -> Result<()> {
        // Its progress callback runs under the engine's lock: a call back into the engine
        // from there would wait for itself.
        reentry::refuse_inside("a backup engine call")?;
        if self.stopped.load(Ordering::Acquire) {
            return Err(Error::BackupEngineStopped);
        }
        Ok(())
    }

    /// Backs `db` up as a new backup, flushing its memtables first if `flush` (else the
    /// WAL files are backed up with it). Returns the new backup's id.
    pub fn create_backup(&self, db: &Db, flush: bool) -> Result<u32> {
        self.create(db, flush, None::<fn(u64) -> bool>)
    }

    /// Like [`create_backup`](Self::create_backup), calling `progress(n)` for the n-th
    /// time as the backup goes (RocksDB calls about every 4 MiB copied). `progress`
    /// returning `false` stops the backup: it fails with kind `Incomplete` and keeps
    /// nothing. A panic in `progress` stops it too, then continues in the caller. A stop
    /// is for good (RocksDB's `StopBackup` is one-way): this engine then refuses every
    /// operation but [`backups`](Self::backups) with [`Error::BackupEngineStopped`]
    /// (a restore would empty its target directory and fail); open a new one, which also
    /// clears what the stopped backup left.
    ///
    /// `progress` must not use this engine: the backup holds the engine's lock while it
    /// waits for the worker that runs `progress`, so such a call never returns.
    /// RocksDB calls it from its backup worker thread (one call at a time: the engine has
    /// one worker), hence `Send`.
    pub fn create_backup_with_progress(
        &self,
        db: &Db,
        flush: bool,
        progress: impl FnMut(u64) -> bool + Send,
    ) -> Result<u32> {
        self.create(db, flush, Some(progress))
    }

    fn create<F: FnMut(u64) -> bool + Send>(
        &self,
        db: &Db,
        flush: bool,
        progress: Option<F>,
    ) -> Result<u32> {
        self.check_running()?;
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
        let mut code = 0;
        let mut err = ErrPtr::new();
        // SAFETY: live engine and database (borrowed for the call); `ctx` is the
        // `Carried<Progress<F>>` that `trampoline` expects, alive until the call returns.
        unsafe {
            ffi::pinrocks_backup_engine_create(
                self.raw.as_ptr(),
                db.as_raw().0,
                u8::from(flush),
                trampoline,
                ctx,
                &mut id,
                &mut code,
                err.as_out(),
            )
        };
        if let Some(callback) = callback {
            let stopped = callback.state.stopped;
            if stopped {
                self.stopped.store(true, Ordering::Release);
            }
            callback.finish();
        }
        err.check_with_code(Some(code))?;
        Ok(id)
    }

    /// The backups, oldest first (an error only if RocksDB could not list them).
    #[doc(alias = "GetBackupInfo")]
    pub fn backups(&self) -> Result<Vec<BackupInfo>> {
        let mut err = ErrPtr::new();
        let mut code = 0;
        // SAFETY: the info is a new object (NULL on a caught failure), read and then
        // destroyed here; indexes stay below its count.
        unsafe {
            let info = ffi::pinrocks_guarded_backup_engine_get_backup_info(
                &mut code,
                self.raw.as_ptr(),
                err.as_out(),
            );
            err.check_with_code(Some(code))?;
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

    /// Checks backup `id`: every file present, of its recorded size, and with its recorded
    /// checksum (every byte is read; the C API's own verify compares sizes only). A damaged
    /// backup is an `Err` with kind `Corruption` (`NotFound` for a missing backup or file).
    #[doc(alias = "VerifyBackup")]
    pub fn verify(&self, id: u32) -> Result<()> {
        self.check_running()?;
        // SAFETY: live engine; our C++ reports the status and lets no exception out.
        with_code(|code, err| unsafe {
            ffi::pinrocks_backup_engine_verify(self.raw.as_ptr(), id, 1, code, err)
        })
    }

    /// Restores backup `id` into `db_dir` (its WAL too), replacing what is there.
    ///
    /// Refused ([`Error::DatabaseOpenThere`]) while a database is open at `db_dir`: in this
    /// process (any kind of open, however the path is spelled), or read-write in another
    /// (RocksDB's LOCK file, held by the restore until it starts replacing files). A
    /// read-only or secondary open in another process takes no lock and is not seen.
    /// While it restores, an open of `db_dir` in this process is refused
    /// ([`Error::RestoreInProgress`]).
    pub fn restore(&self, id: u32, db_dir: impl AsRef<Path>) -> Result<()> {
        self.restore_impl(Some(id), db_dir.as_ref())
    }

    /// Restores the newest backup into `db_dir`, replacing what is there.
    pub fn restore_latest(&self, db_dir: impl AsRef<Path>) -> Result<()> {
        self.restore_impl(None, db_dir.as_ref())
    }

    fn restore_impl(&self, id: Option<u32>, db_dir: &Path) -> Result<()> {
        self.check_running()?;
        // Held for the whole restore: no pinrocks open of the directory meanwhile.
        let _restoring = DirInUse::claim(db_dir, DirUse::Restore)?;
        let c_dir = path_to_cstring(db_dir)?;
        let mut err = ErrPtr::new();
        let mut code = 0;
        // SAFETY: live engine and options (whose Env `_env` keeps alive); the path is
        // copied; everything else is made and freed inside.
        let locked_out = unsafe {
            ffi::pinrocks_backup_engine_restore(
                self.raw.as_ptr(),
                self.options.as_ptr(),
                c_dir.as_ptr(),
                id.unwrap_or(0),
                u8::from(id.is_none()),
                &mut code,
                err.as_out(),
            )
        };
        match err.check_with_code(Some(code)) {
            Err(e) if locked_out != 0 => Err(Error::DatabaseOpenThere {
                path: db_dir.to_path_buf(),
                message: e.to_string(),
            }),
            other => other,
        }
    }

    /// Deletes all but the newest `keep` backups (and files no backup still uses).
    pub fn purge_old_backups(&self, keep: u32) -> Result<()> {
        self.check_running()?;
        // SAFETY: live engine; guarded.
        with_code(|code, err| unsafe {
            ffi::pinrocks_guarded_backup_engine_purge_old_backups(
                code,
                self.raw.as_ptr(),
                keep,
                err,
            )
        })
    }
}

impl Drop for BackupEngine {
    fn drop(&mut self) {
        // SAFETY: owned by `self`, closed once.
        unsafe { ffi::rocksdb_backup_engine_close(self.raw.as_ptr()) };
    }
}

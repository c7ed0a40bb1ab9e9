//! Copies of a live database: checkpoints (an openable copy, hard-linked where it can be)
//! and backups (a `BackupEngine` directory of incremental backups to verify and restore).

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::db::database::Db;
use crate::db::handles::{DirInUse, DirUse};
use crate::options::db_options::Options;
use crate::options::env_owner::EnvOwner;
pub use crate::raw::backup::BackupInfo;
use crate::raw::backup::{checkpoint, latest_sequence_number, BackupEngineHandle};
use crate::raw::cstr::path_to_cstring;
use crate::raw::error::{Error, Result};
use crate::raw::options_handle::OptionsHandle;
use crate::raw::reentry;

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
        // SAFETY: live database, borrowed for the call.
        unsafe { checkpoint(self.as_raw().0, &c_path, log_size_for_flush) }
    }

    /// The sequence number of the last write.
    pub fn latest_sequence_number(&self) -> u64 {
        // SAFETY: live database.
        unsafe { latest_sequence_number(self.as_raw().0) }
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
    raw: BackupEngineHandle,
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
    options: OptionsHandle,
}

// SAFETY: the engine handle is `Send` and `Sync` (RocksDB's `BackupEngineImplThreadSafe`
// takes a read-write lock in every method); the options copy is only read (for its `Env`
// pointer, by `restore`), by any thread.
unsafe impl Send for BackupEngine {}
// SAFETY: see `Send`.
unsafe impl Sync for BackupEngine {}

impl BackupEngine {
    /// Opens (or creates) the backup directory at `path`. The options give the
    /// environment (the default one) and logger RocksDB uses for it.
    pub fn open(options: &Options, path: impl AsRef<Path>) -> Result<BackupEngine> {
        let c_path = path_to_cstring(path.as_ref())?;
        // SAFETY: the engine keeps the options' Env and info log by raw pointer, which the
        // engine's copy of the options (the logger, by shared_ptr) and `_env` keep alive
        // until the engine has closed (`raw` is declared first, so it drops first).
        let raw = unsafe { BackupEngineHandle::open(&options.raw, &c_path) }?;
        Ok(BackupEngine {
            raw,
            stopped: AtomicBool::new(false),
            _env: options.env_owner.clone(),
            options: options.raw.copy(),
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
        // SAFETY: live database, borrowed for the call.
        unsafe {
            self.raw
                .create(db.as_raw().0, flush, progress, &self.stopped)
        }
    }

    /// The backups, oldest first (an error only if RocksDB could not list them).
    #[doc(alias = "GetBackupInfo")]
    pub fn backups(&self) -> Result<Vec<BackupInfo>> {
        self.raw.backups()
    }

    /// Checks backup `id`: every file present, of its recorded size, and with its recorded
    /// checksum (every byte is read; the C API's own verify compares sizes only). A damaged
    /// backup is an `Err` with kind `Corruption` (`NotFound` for a missing backup or file).
    #[doc(alias = "VerifyBackup")]
    pub fn verify(&self, id: u32) -> Result<()> {
        self.check_running()?;
        self.raw.verify(id)
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
        let (restored, locked_out) = self.raw.restore(&self.options, &c_dir, id);
        match restored {
            Err(e) if locked_out => Err(Error::DatabaseOpenThere {
                path: db_dir.to_path_buf(),
                message: e.to_string(),
            }),
            other => other,
        }
    }

    /// Deletes all but the newest `keep` backups (and files no backup still uses).
    pub fn purge_old_backups(&self, keep: u32) -> Result<()> {
        self.check_running()?;
        self.raw.purge_old_backups(keep)
    }
}

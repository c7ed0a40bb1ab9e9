//! A file system for tests that loses what was not synced and fails on command (feature
//! `fault-injection`): RocksDB's `FaultInjectionTestFS` over the real file system, so a test
//! can stop the disk as a power loss would, drop what was not synced, and inject I/O errors,
//! then see what the database kept and what it reported.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::options::db_options::Options;
use crate::options::env_owner::{DatabaseOnEnv, EnvKeeper};
use crate::raw::envs::{self as fault, FaultFsHandle};
use crate::raw::error::{Error, Result};

/// Owns the native file system and the `Env` over it.
struct RawFaultFs {
    raw: FaultFsHandle,
    /// Over a file system in memory (`FaultFs::in_memory`).
    in_memory: bool,
    /// Databases open on it (each from before RocksDB opens it until it has closed): a
    /// restart under one would drop data from files it still writes.
    open_databases: AtomicUsize,
}

/// A database open on a [`FaultFs`]: keeps it alive and counted until dropped, after the
/// database has closed.
struct DatabaseOnFaultFs(Arc<RawFaultFs>);

impl Drop for DatabaseOnFaultFs {
    fn drop(&mut self) {
        self.0.open_databases.fetch_sub(1, Ordering::AcqRel);
    }
}

impl EnvKeeper for RawFaultFs {
    fn hold_for_database(self: Arc<Self>) -> DatabaseOnEnv {
        self.open_databases.fetch_add(1, Ordering::AcqRel);
        Box::new(DatabaseOnFaultFs(self))
    }

    fn in_memory(&self) -> bool {
        self.in_memory
    }
}

/// What every file operation fails with while a [`FaultFs`] is stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum StopError {
    /// The machine is gone (a power loss): RocksDB's `Corruption("Not active")`-like error.
    PowerLoss,
    /// The disk fails: `IOError`.
    IoError,
    /// The disk is full: `IOError` with `NoSpace` ([`ErrorKind::NoSpace`](crate::ErrorKind::NoSpace)).
    NoSpace,
}

/// Which file operations [`FaultFs::inject_errors`] fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FaultKind {
    /// Reads of file data.
    Read,
    /// Writes, appends and syncs of file data.
    Write,
    /// Reads of metadata: sizes, listings, existence.
    MetadataRead,
    /// Changes of metadata: create, rename, delete, directory sync.
    MetadataWrite,
}

impl FaultKind {
    fn code(self) -> u32 {
        match self {
            FaultKind::Read => fault::READ,
            FaultKind::Write => fault::WRITE,
            FaultKind::MetadataRead => fault::METADATA_READ,
            FaultKind::MetadataWrite => fault::METADATA_WRITE,
        }
    }
}

/// A file system that loses what was not synced and fails on command, for tests of what a
/// service survives: RocksDB's own `FaultInjectionTestFS` (the one its crash test uses) over
/// the real file system. Open a database on it with [`Options::fault_fs`]. Cheap to clone;
/// every database opened on it keeps it alive.
///
/// Unsynced appends stay in its memory until a sync (a clean close does not sync the WAL):
/// data written without a sync or a flush reaches the real disk only if the process goes
/// on using this `FaultFs`. Sync or flush before dropping it, as before a real power loss.
///
/// ```
/// use pinrocks::{Db, Options, WriteOptions};
/// use pinrocks::options::{FaultFs, StopError};
/// # fn main() -> pinrocks::Result<()> {
/// # let dir = tempfile::tempdir().unwrap();
/// let fs = FaultFs::new()?;
/// let mut options = Options::new();
/// options.create_if_missing(true).fault_fs(&fs);
/// let db = Db::open(&options, dir.path())?;
/// let mut synced = WriteOptions::new();
/// synced.sync(true);
/// db.writer().options(&synced).put(b"kept", b"synced")?;
/// db.put(b"lost", b"not synced")?;
///
/// fs.stop(StopError::PowerLoss); // the machine stops
/// drop(db);
/// fs.restart_after_power_loss()?; // what was not synced is gone
/// let db = Db::open(&options, dir.path())?;
/// assert_eq!(db.get(b"kept")?.as_deref(), Some(&b"synced"[..]));
/// assert_eq!(db.get(b"lost")?, None);
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct FaultFs(Arc<RawFaultFs>);

impl std::fmt::Debug for FaultFs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FaultFs").finish_non_exhaustive()
    }
}

impl FaultFs {
    /// A new fault file system over the real one, running.
    pub fn new() -> Result<FaultFs> {
        Self::create(false)
    }

    /// A new fault file system over a file system in memory of its own (RocksDB's
    /// `MockFileSystem`, as [`MemEnv`](crate::options::MemEnv)), running: nothing reaches the disk, and
    /// opening, syncing and power losses cost no I/O (fuzzers, long crash runs).
    pub fn in_memory() -> Result<FaultFs> {
        Self::create(true)
    }

    fn create(in_memory: bool) -> Result<FaultFs> {
        Ok(FaultFs(Arc::new(RawFaultFs {
            raw: FaultFsHandle::new(in_memory)?,
            in_memory,
            open_databases: AtomicUsize::new(0),
        })))
    }

    /// Stops the file system: from now on every file operation of every database on it
    /// fails with `error`, as a machine that lost power (or a dead or full disk) would.
    pub fn stop(&self, error: StopError) {
        let error = match error {
            StopError::PowerLoss => fault::STOP_POWER_LOSS,
            StopError::IoError => fault::STOP_IO_ERROR,
            StopError::NoSpace => fault::STOP_NO_SPACE,
        };
        // Only a failed allocation could fail this, and then the file system runs on.
        let _ = self.0.raw.stop(error);
    }

    /// RocksDB's sleeps last at most `max` from now on (`None`: as long as RocksDB asks).
    /// After each failed flush or compaction RocksDB sleeps 1 s before its next background
    /// job, so that a failing disk is not hammered: a test or fuzzer that fails them on
    /// purpose spends nearly all its time there. The cap applies to the sleeps RocksDB takes
    /// through the clock of this file system's `Env` (the back-off, the 1 ms steps of a
    /// delayed write); the time it reads is the real time, and its timed waits (the
    /// interval between automatic resumes, `bg_error_resume_retry_interval`; a file
    /// manager's polls for free space) are not shortened: set those options instead. A cap
    /// of zero turns a delayed write's steps and the pause after a busy compaction into busy
    /// loops: a millisecond keeps the back-off's purpose at a thousandth of its wait.
    ///
    /// ```
    /// # fn main() -> pinrocks::Result<()> {
    /// let fs = pinrocks::options::FaultFs::in_memory()?;
    /// fs.cap_sleeps(Some(std::time::Duration::from_millis(1)));
    /// # Ok(()) }
    /// ```
    pub fn cap_sleeps(&self, max: Option<Duration>) {
        let micros = max.map_or(i64::MAX, |max| {
            i64::try_from(max.as_micros()).unwrap_or(i64::MAX)
        });
        self.0.raw.cap_sleeps(micros);
    }

    /// After a [`stop`](Self::stop), what a power loss leaves: drops every file's data
    /// written since its last sync and the files created since their directory's last
    /// sync, then runs again. Close (drop) every database on it first (and let go of what
    /// keeps one open: snapshots, owned values), then reopen them: refused with
    /// [`Error::InvalidInput`] while one is open (its files would lose data it still writes;
    /// an SST writer or a backup engine working on it is not counted: finish them first).
    pub fn restart_after_power_loss(&self) -> Result<()> {
        self.restart(fault::DROP_UNSYNCED, 0)
    }

    /// As [`restart_after_power_loss`](Self::restart_after_power_loss), but of each file's
    /// unsynced data only a random part (chosen by `seed`) is lost, as a disk that wrote
    /// some of its cache before the power went would leave it: a WAL may end in a torn
    /// record.
    pub fn restart_after_partial_power_loss(&self, seed: u32) -> Result<()> {
        self.restart(fault::DROP_RANDOM_UNSYNCED, seed)
    }

    /// After a [`stop`](Self::stop), runs again with nothing lost: the disk is back (space
    /// was freed, the fault is gone). A database still open on it can then
    /// [`resume`](crate::Db::resume). What was not synced stays in this file system's
    /// memory, not on disk: a database reopened on it reads it back (a process that was
    /// killed, its page cache intact), but it is durable only once a flush persists it
    /// (syncing the WAL does not reach a WAL closed before the restart).
    pub fn restart_intact(&self) -> Result<()> {
        self.restart(fault::KEEP_UNSYNCED, 0)
    }

    fn restart(&self, drop: u32, seed: u32) -> Result<()> {
        let open = self.0.open_databases.load(Ordering::Acquire);
        if drop != fault::KEEP_UNSYNCED && open > 0 {
            return Err(Error::invalid(
                if drop == fault::DROP_RANDOM_UNSYNCED {
                    "restart_after_partial_power_loss"
                } else {
                    "restart_after_power_loss"
                },
                format!("{open} database(s) still open on this FaultFs: drop them first"),
            ));
        }
        self.0.raw.restart(drop, seed)
    }

    /// Fails one in `one_in` of this thread's file operations of `kind` (1: every one) with
    /// an `IOError`, marked retryable and data loss as asked, chosen by a generator seeded
    /// with `seed`; `one_in` 0 stops. Only the calling thread's operations: a write's WAL
    /// append and sync run on the thread that leads its write group (the writing thread,
    /// with one writer; with several, whichever leads), flushes and compactions on
    /// RocksDB's own (use [`inject_background_errors`](Self::inject_background_errors) for
    /// those, or [`stop`](Self::stop)).
    pub fn inject_errors(
        &self,
        kind: FaultKind,
        one_in: u32,
        retryable: bool,
        data_loss: bool,
        seed: u32,
    ) {
        self.inject(false, kind, one_in, retryable, data_loss, seed);
    }

    /// Sets what this thread's operations (or, `background`, what flushes and compactions)
    /// of `kind` fail with.
    fn inject(
        &self,
        background: bool,
        kind: FaultKind,
        one_in: u32,
        retryable: bool,
        data_loss: bool,
        seed: u32,
    ) {
        let one_in = i32::try_from(one_in).unwrap_or(i32::MAX);
        // Only a failed allocation could fail this, and then nothing is injected.
        let _ = self
            .0
            .raw
            .inject(background, kind.code(), seed, one_in, retryable, data_loss);
    }

    /// How many errors of `kind` were injected into this thread's operations since the last
    /// call (or since injection began), resetting the count.
    pub fn take_injected_count(&self, kind: FaultKind) -> usize {
        self.0.raw.take_injected(false, kind.code())
    }

    /// Fails one in `one_in` of the file operations of `kind` made by each flush and each
    /// (sub)compaction that begins from now on, on RocksDB's background threads, as
    /// [`inject_errors`](Self::inject_errors) does for the calling thread; `one_in` 0 stops
    /// (for jobs that begin after). What RocksDB 11 makes of the failure: a retryable error
    /// in a flush, with the WAL intact, is soft: writes go on, background work stops (a
    /// flush asked for meanwhile returns the error) and RocksDB retries the flush on its own
    /// ([`Options::max_bgerror_resume_count`]); in a compaction it is soft too and the
    /// compaction runs again later; a compaction's error that is not retryable is `Fatal`
    /// and data loss `Unrecoverable` ([`Db::background_error`](crate::Db::background_error)).
    ///
    /// Armed by an event listener that [`Options::fault_fs`] adds, as RocksDB's own crash
    /// test does: on a job's thread at its begin event, disarmed at its end or at the
    /// background error it meets. A job RocksDB begins and then abandons without either (a
    /// flush skipped while background work is stopped, a shutdown) leaves its thread armed
    /// until that thread's next job event, and the thread's other work meanwhile (deleting
    /// obsolete files, syncing the WAL before the next flush) is hit too.
    pub fn inject_background_errors(
        &self,
        kind: FaultKind,
        one_in: u32,
        retryable: bool,
        data_loss: bool,
        seed: u32,
    ) {
        self.inject(true, kind, one_in, retryable, data_loss, seed);
    }

    /// How many errors of `kind` were injected into flushes and compactions since the last
    /// call, resetting the count. A job's errors are gathered at its end or background-error
    /// event (RocksDB may run that after the call that met the error has returned: wait
    /// for the count rather than read it once), or at its thread's next job if it had
    /// neither.
    pub fn take_background_injected_count(&self, kind: FaultKind) -> usize {
        self.0.raw.take_injected(true, kind.code())
    }
}

impl Options {
    /// Opens on `fs` (the database's `Env`): every file the database reads or writes goes
    /// through it. The options keep it alive, and so does every database opened with them.
    /// Adds the event listener that arms
    /// [`inject_background_errors`](FaultFs::inject_background_errors).
    ///
    /// Scope: database (`env`).
    pub fn fault_fs(&mut self, fs: &FaultFs) -> &mut Self {
        // Only a failed allocation could fail this (the `Env` is set first): then no
        // background injection.
        // SAFETY: RocksDB keeps the `Env` pointer, which `self.env_owner` (then every
        // database opened with these options) keeps alive.
        let _ = unsafe { fs.0.raw.install(&mut self.raw) };
        self.env_owner = Some(fs.0.clone());
        self
    }
}

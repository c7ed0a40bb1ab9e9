//! Maintenance a service schedules itself: manual compactions with RocksDB's options
//! (bottommost level, target level, exclusive, change level) and of chosen files, flushes
//! with options and of several families at once, pausing and cancelling background work,
//! holding file deletions, and destroying or repairing a database that is not open.

use std::ffi::{c_char, CString};
use std::path::Path;

use crate::db::column_family::ColumnFamily;
use crate::db::database::Db;
use crate::db::handles::{DbKind, DirInUse, DirUse};
use crate::options::db_options::Options;
use crate::raw::cstr::path_to_cstring;
use crate::raw::db::{bg, destroy_or_repair as destroy_or_repair_at, FamilyPtr, DESTROY, REPAIR};
use crate::raw::error::{Error, ErrorSeverity, Result};
use crate::raw::reentry;

use crate::admin::maintenance_options::{CompactOptions, FlushOptions};

impl ColumnFamily<'_> {
    /// Compacts keys in `[from, to)` (`None`: unbounded) and waits for it. Unlike the C
    /// API's `rocksdb_compact_range`, a failure is reported.
    pub fn compact_range(&self, from: Option<&[u8]>, to: Option<&[u8]>) -> Result<()> {
        self.compact_range_with(from, to, &CompactOptions::default())
    }

    /// Compacts keys in `[from, to)` (`None`: unbounded) with `options`, and waits for it.
    #[doc(alias = "CompactRange")]
    pub fn compact_range_with(
        &self,
        from: Option<&[u8]>,
        to: Option<&[u8]>,
        options: &CompactOptions,
    ) -> Result<()> {
        self.db.check_writable("compact_range")?;
        options.check()?;
        // SAFETY: a live handle of this database, for the call.
        unsafe {
            self.db
                .raw_db()
                .compact_range(self.handle().raw(), &options.raw, from, to)
        }
    }

    /// Compacts exactly these SST files (names as [`Db::live_files`] gives them, such as
    /// `/000012.sst`) into `output_level`, and returns the names of the files written.
    /// RocksDB refuses files of another family, files already being compacted, and an
    /// output level above an input's.
    #[doc(alias = "CompactFiles")]
    pub fn compact_files(&self, files: &[&str], output_level: i32) -> Result<Vec<String>> {
        self.db.check_writable("compact_files")?;
        let names = files
            .iter()
            .map(|f| {
                CString::new(*f)
                    .map_err(|_| Error::invalid("compact_files", "a file name holds a NUL byte"))
            })
            .collect::<Result<Vec<_>>>()?;
        let pointers: Vec<*const c_char> = names.iter().map(|n| n.as_ptr()).collect();
        // SAFETY: a live handle of this database, for the call.
        unsafe {
            self.db
                .raw_db()
                .compact_files(self.handle().raw(), &pointers, output_level)
        }
    }
}

impl Db {
    /// Flushes the default column family with `options`.
    pub fn flush_with(&self, options: &FlushOptions) -> Result<()> {
        self.flush_families(&[&self.default_cf()], options)
    }

    /// Flushes these column families (each once, however often named; none: nothing) in one
    /// call: with
    /// [`atomic_flush`](crate::Options::atomic_flush), atomically (all their memtables or
    /// none reach SST files, so they stay consistent with each other without the WAL).
    ///
    /// # Panics
    /// If a family is of another database.
    pub fn flush_families(
        &self,
        families: &[&ColumnFamily<'_>],
        options: &FlushOptions,
    ) -> Result<()> {
        self.check_writable("flush")?;
        let mut handles: Vec<FamilyPtr> = families
            .iter()
            .map(|cf| cf.handle_for(self.inner()).raw())
            .collect();
        // RocksDB's atomic flush of a list naming a family twice reads past the memtable
        // ids it gathered (one per family): each family once. An empty list would flush
        // every family there: nothing to do.
        handles.sort_unstable();
        handles.dedup();
        if handles.is_empty() {
            return Ok(());
        }
        // SAFETY: the handles are kept alive by `families` (borrowed for the call) and are
        // of this database (`handle_for` checks).
        unsafe {
            self.inner()
                .raw_db()
                .flush(&handles, options.wait, options.allow_write_stall)
        }
    }

    /// Compacts keys in `[from, to)` of the default column family (`None`: unbounded).
    #[doc(alias = "CompactRange")]
    pub fn compact_range(&self, from: Option<&[u8]>, to: Option<&[u8]>) -> Result<()> {
        self.default_cf().compact_range(from, to)
    }

    /// Compacts keys in `[from, to)` of the default column family with `options`.
    pub fn compact_range_with(
        &self,
        from: Option<&[u8]>,
        to: Option<&[u8]>,
        options: &CompactOptions,
    ) -> Result<()> {
        self.default_cf().compact_range_with(from, to, options)
    }

    /// Stops background flushes and compactions, waiting for those running to finish,
    /// until [`continue_background_work`](Self::continue_background_work) (pauses nest:
    /// each needs its continue). Writes go on until the memtables fill up, then stall.
    /// Meanwhile a flush that waits, a manual compaction and `resume` wait for the
    /// continue too (they need background work); closing or dropping the database
    /// continues it first, so a close cannot wait forever.
    #[doc(alias = "PauseBackgroundWork")]
    pub fn pause_background_work(&self) -> Result<()> {
        self.background(bg::PAUSE, "pause_background_work")
    }

    /// Undoes one [`pause_background_work`](Self::pause_background_work).
    #[doc(alias = "ContinueBackgroundWork")]
    pub fn continue_background_work(&self) -> Result<()> {
        self.background(bg::CONTINUE, "continue_background_work")
    }

    /// Cancels every background flush and compaction for good, waiting for those running
    /// if `wait`: what a service does before closing a database fast. Afterwards flushes
    /// and compactions fail with `ShutdownInProgress`; reads and writes (to the WAL and
    /// memtables) go on, and [`close`](Self::close) works.
    #[doc(alias = "CancelAllBackgroundWork")]
    pub fn cancel_background_work(&self, wait: bool) -> Result<()> {
        let op = if wait {
            bg::CANCEL_AND_WAIT
        } else {
            bg::CANCEL
        };
        self.background(op, "cancel_background_work")
    }

    /// Keeps every obsolete file on disk until
    /// [`enable_file_deletions`](Self::enable_file_deletions) (counted: each disable needs
    /// its enable), so an external copy of the files stays consistent.
    #[doc(alias = "DisableFileDeletions")]
    pub fn disable_file_deletions(&self) -> Result<()> {
        self.background(bg::DISABLE_DELETIONS, "disable_file_deletions")
    }

    /// Undoes one [`disable_file_deletions`](Self::disable_file_deletions); the last one
    /// deletes what became obsolete meanwhile.
    #[doc(alias = "EnableFileDeletions")]
    pub fn enable_file_deletions(&self) -> Result<()> {
        self.background(bg::ENABLE_DELETIONS, "enable_file_deletions")
    }

    /// Recovers from a background error that stopped writes (a failed flush or compaction:
    /// a full disk, the [`SstFileManager`](crate::options::SstFileManager)'s space limit), once its
    /// cause is gone (RocksDB's `Resume`): flushes what is pending and lets writes in
    /// again. `Ok` at once if there is no such error; the error again if the cause is not
    /// gone; `ErrorKind::Busy` while RocksDB's own recovery runs (it starts one for a
    /// retryable I/O error while `max_bgerror_resume_count` allows, and for a no-space
    /// error when an `SstFileManager` is set, polling for space): retry.
    ///
    /// It waits for its flushes, and RocksDB 11.8.1 can leave that wait without an end: a
    /// family whose flush was asked for while the error stopped flushes can have its
    /// request dropped and never flushed (seen in RocksDB's own recovery, which pinrocks'
    /// close ends, and once in a manual resume). Another thread's
    /// [`cancel_background_work`](Self::cancel_background_work) ends such a wait with
    /// `ErrorKind::ShutdownInProgress`; the database must then be reopened for flushes.
    #[doc(alias = "Resume")]
    pub fn resume(&self) -> Result<()> {
        self.background(bg::RESUME, "resume")
    }

    /// Reads every live SST file whole and checks each block's checksum (RocksDB's
    /// `VerifyChecksum`): `Corruption` naming the file if one fails. Reads already check
    /// the blocks they touch; this finds what no read has touched yet. Blob files are not
    /// read (RocksDB checks them whole with
    /// [`verify_file_checksums`](Self::verify_file_checksums)).
    #[doc(alias = "VerifyChecksum")]
    pub fn verify_checksum(&self) -> Result<()> {
        self.background(bg::VERIFY_CHECKSUM, "verify_checksum")
    }

    /// Reads every live SST and blob file whole and checks it against the whole-file
    /// checksum recorded when it was written (RocksDB's `VerifyFileChecksums`):
    /// `Corruption` naming the file if one differs. Needs
    /// [`Options::file_checksums`](crate::Options::file_checksums) on for this open
    /// (`ErrorKind::InvalidArgument` otherwise); a file written while they were off has no
    /// checksum and is passed over, not checked.
    #[doc(alias = "VerifyFileChecksums")]
    pub fn verify_file_checksums(&self) -> Result<()> {
        self.background(bg::VERIFY_FILE_CHECKSUMS, "verify_file_checksums")
    }

    /// The background error that stops this database's writes, if one does: what failed
    /// (a flush or compaction that hit a full disk, an I/O error, corruption) and how bad
    /// it is; `None` while writes go on (a stall is not a stop). A soft error, which lets
    /// writes go on, is seen by an [`EventListener`](crate::callbacks::EventListener)'s
    /// `on_background_error`. Read-only and secondary instances have none.
    ///
    /// RocksDB has no call for this: pinrocks asks the way a write would, with an empty
    /// batch that RocksDB refuses before anything is written when writes are stopped.
    /// Otherwise the batch goes through: it writes an empty WAL record, counts as a write in
    /// the statistics, and changes nothing else. Not available (an `Err`) with
    /// `enable_pipelined_write`, `unordered_write` or `two_write_queues`, where RocksDB
    /// would turn a refused write into a new background error.
    #[doc(alias = "GetBGError")]
    pub fn background_error(&self) -> Result<Option<BackgroundError>> {
        reentry::refuse_inside("background_error")?;
        if matches!(self.inner().kind, DbKind::ReadOnly | DbKind::Secondary) {
            return Ok(None);
        }
        let stopped = self.inner().raw_db().stopped_by()?;
        Ok(stopped.map(|(severity, error)| BackgroundError {
            severity: ErrorSeverity::from_raw(severity).unwrap_or(ErrorSeverity::Hard),
            error,
        }))
    }

    fn background(&self, op: u32, operation: &'static str) -> Result<()> {
        reentry::refuse_inside(operation)?;
        self.inner().raw_db().background(op)
    }

    /// Deletes the database at `path` and every file RocksDB made for it (SST files, WAL,
    /// MANIFEST, OPTIONS, LOG, LOCK), then the directory if it is left empty (RocksDB's
    /// `DestroyDB`; `options` say where the WAL and info log are if elsewhere). Refused with
    /// `Error::DatabaseOpenThere` while this process has it open.
    #[doc(alias = "DestroyDB")]
    pub fn destroy(options: &Options, path: impl AsRef<Path>) -> Result<()> {
        Self::destroy_or_repair(options, path.as_ref(), DESTROY, "destroy")
    }

    /// Rebuilds the MANIFEST of the database at `path` from the SST files and WAL it finds
    /// (RocksDB's `RepairDB`), for a database that no longer opens (a lost or corrupt
    /// MANIFEST). What cannot be read is moved to `lost/`; data may be lost, and keys
    /// deleted may come back. Refused while this process has it open.
    #[doc(alias = "RepairDB")]
    pub fn repair(options: &Options, path: impl AsRef<Path>) -> Result<()> {
        Self::destroy_or_repair(options, path.as_ref(), REPAIR, "repair")
    }

    fn destroy_or_repair(
        options: &Options,
        path: &Path,
        op: u32,
        operation: &'static str,
    ) -> Result<()> {
        reentry::refuse_inside(operation)?;
        options.check()?;
        // Exclusive: no open (of any kind) or restore of `path` in this process meanwhile.
        let _claim = DirInUse::claim(path, DirUse::Restore)?;
        let c_path = path_to_cstring(path)?;
        destroy_or_repair_at(&options.raw, &c_path, op)
    }
}

/// A background error that stops writes ([`Db::background_error`]).
#[derive(Debug)]
#[non_exhaustive]
pub struct BackgroundError {
    /// How bad it is: up to [`ErrorSeverity::Hard`], [`Db::resume`] can clear it once the
    /// cause is gone; beyond, the database must be reopened.
    pub severity: ErrorSeverity,
    /// The error, as writes receive it.
    pub error: Error,
}

//! What each event tells, borrowed from RocksDB for the call: the structs an
//! [`EventListener`](crate::callbacks::EventListener) receives, built from pinrocks.h's views.

use std::cell::Cell;
use std::ffi::{c_char, c_int, CStr};
use std::path::Path;

use crate::raw::c_consts::CODE_EXCEPTION;
use crate::raw::c_types::{
    pinrocks_compaction_info, pinrocks_error_info, pinrocks_flush_info, pinrocks_ingestion_info,
    pinrocks_memtable_info, pinrocks_slice, pinrocks_stall_info, pinrocks_table_file_info,
};
use crate::raw::error::{Error, ErrorSeverity};
use crate::raw::pinned::value_slice;

/// A flush, as RocksDB reports it.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct FlushInfo<'a> {
    /// The column family flushed.
    pub cf_name: &'a str,
    /// The SST file written.
    pub file_path: &'a Path,
    /// RocksDB's job id (the same in the begin and completed events).
    pub job_id: i32,
    /// The smallest and largest sequence numbers in the file.
    pub smallest_seqno: u64,
    /// See `smallest_seqno`.
    pub largest_seqno: u64,
    /// The flush was needed because writes were slowed down, or stopped.
    pub triggered_writes_slowdown: bool,
    /// See `triggered_writes_slowdown`.
    pub triggered_writes_stop: bool,
    /// Why it flushed, as RocksDB names it ("Manual Flush", "Write Buffer Full", ...).
    pub reason: &'a str,
}

/// A compaction, as RocksDB reports it.
#[non_exhaustive]
pub struct CompactionInfo<'a> {
    /// The column family compacted.
    pub cf_name: &'a str,
    /// RocksDB's job id (the same in the begin and completed events).
    pub job_id: i32,
    /// The level of its first input files.
    pub base_input_level: i32,
    /// The level it writes.
    pub output_level: i32,
    /// Why it ran, as RocksDB names it ("ManualCompaction", "LevelL0FilesNum", ...).
    pub reason: &'a str,
    /// How it ended (`Ok` before it began).
    pub status: Result<(), Error>,
    /// Records read and written (0 at the beginning).
    pub input_records: u64,
    /// See `input_records`.
    pub output_records: u64,
    inputs: &'a [pinrocks_slice],
    outputs: &'a [pinrocks_slice],
}

impl std::fmt::Debug for CompactionInfo<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompactionInfo")
            .field("cf_name", &self.cf_name)
            .field("job_id", &self.job_id)
            .field("levels", &(self.base_input_level, self.output_level))
            .field("reason", &self.reason)
            .field("status", &self.status)
            .field("input_files", &self.input_files().collect::<Vec<_>>())
            .field("output_files", &self.output_files().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl<'a> CompactionInfo<'a> {
    /// The SST files it reads.
    pub fn input_files(&self) -> impl Iterator<Item = &'a Path> + 'a {
        self.inputs.iter().map(path_of)
    }

    /// The SST files it wrote (none at the beginning).
    pub fn output_files(&self) -> impl Iterator<Item = &'a Path> + 'a {
        self.outputs.iter().map(path_of)
    }
}

/// A column family's write stall condition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StallCondition {
    /// Writes go at full speed.
    Normal,
    /// Writes are slowed down (to `delayed_write_rate`).
    Delayed,
    /// Writes wait.
    Stopped,
}

/// A change of a column family's write stall condition.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct StallInfo<'a> {
    /// The column family.
    pub cf_name: &'a str,
    /// The condition before.
    pub previous: StallCondition,
    /// The condition now.
    pub current: StallCondition,
}

/// A background error, as RocksDB reports it, with the choice RocksDB offers: suppress it
/// or change its severity.
///
/// RocksDB keeps the choice only for the errors it grades by its table of known errors
/// (`ErrorHandler::HandleKnownErrors`: corruption, out of space, and other errors that are
/// not I/O errors it has already judged), and even there it has decided before asking
/// whether to start its own recovery (with the severity it gave). For an I/O error it has
/// judged itself (retryable: `severity` is `None`; data loss; a WAL write with
/// `manual_wal_flush`) it has set the error before asking, and the choice changes nothing.
/// Suppressing a failed WAL write does not make writes work: the WAL file keeps its error.
/// With several listeners, each sees the choice the earlier ones left; after a
/// suppression the later ones are not called.
#[derive(Debug)]
#[non_exhaustive]
pub struct BackgroundErrorInfo<'a> {
    /// What failed, as RocksDB names it: "flush", "compaction", "write callback",
    /// "memtable", "manifest write", "flush (no WAL)", "manifest write (no WAL)",
    /// "async file open".
    pub reason: &'static str,
    /// The error.
    pub error: Error,
    /// The severity RocksDB gave it (`None` for a retryable I/O error, which RocksDB grades
    /// without telling the listeners).
    pub severity: Option<ErrorSeverity>,
    choice: Option<&'a Cell<c_int>>,
}

impl BackgroundErrorInfo<'_> {
    /// Asks RocksDB to ignore the error: writes and background work go on. RocksDB makes
    /// no promise about when the failed flush or compaction runs again.
    pub fn suppress(&self) {
        if let Some(choice) = self.choice {
            choice.set(0);
        }
    }

    /// Asks RocksDB to treat the error at `severity` (a soft error lets writes go on).
    pub fn set_severity(&self, severity: ErrorSeverity) {
        if let Some(choice) = self.choice {
            choice.set(severity.to_raw());
        }
    }
}

/// RocksDB is about to recover from a background error on its own (a full disk with an
/// [`SstFileManager`](crate::options::SstFileManager), polling for space), with the choice to let it
/// or not. For a retryable I/O error RocksDB asks too but starts its recovery whatever the
/// answer: `max_bgerror_resume_count` 0 (by name, with
/// [`Options::set_by_name`](crate::Options::set_by_name)) turns that one off.
#[derive(Debug)]
#[non_exhaustive]
pub struct RecoveryInfo<'a> {
    /// What failed (see [`BackgroundErrorInfo::reason`]).
    pub reason: &'static str,
    /// The error it recovers from.
    pub error: Error,
    choice: &'a Cell<c_int>,
}

impl RecoveryInfo<'_> {
    /// Stops RocksDB's own recovery: writes stay stopped until
    /// [`Db::resume`](crate::Db::resume) succeeds.
    pub fn disable_auto_recovery(&self) {
        self.choice.set(0);
    }
}

/// A memtable made immutable, to be flushed.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct MemtableInfo<'a> {
    /// The column family.
    pub cf_name: &'a str,
    /// The sequence number of its first entry.
    pub first_seqno: u64,
    /// A sequence number no larger than any that could be in it.
    pub earliest_seqno: u64,
    /// Its entries, deletes among them.
    pub entries: u64,
    /// See `entries`.
    pub deletes: u64,
}

/// Why a table file was created.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TableFileReason {
    /// By a flush.
    Flush,
    /// By a compaction.
    Compaction,
    /// By the recovery of a WAL at open.
    Recovery,
    /// Otherwise (for example an import).
    Misc,
}

/// A table (SST) file created, or deleted.
#[derive(Debug)]
#[non_exhaustive]
pub struct TableFileInfo<'a> {
    /// The column family (empty for a deletion: RocksDB does not say).
    pub cf_name: &'a str,
    /// The file.
    pub file_path: &'a Path,
    /// The flush's or compaction's job id.
    pub job_id: i32,
    /// Why it was created (`None` for a deletion).
    pub reason: Option<TableFileReason>,
    /// Its size and entries (0 for a deletion).
    pub file_size: u64,
    /// See `file_size`.
    pub entries: u64,
    /// Whether the creation or deletion succeeded.
    pub status: Result<(), Error>,
}

/// An external SST file ingested.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct IngestionInfo<'a> {
    /// The column family.
    pub cf_name: &'a str,
    /// The file given to the ingest.
    pub external_file_path: &'a Path,
    /// The file as it is inside the database.
    pub internal_file_path: &'a Path,
    /// The sequence number its keys were given (0: their own).
    pub global_seqno: u64,
    /// Its entries.
    pub entries: u64,
}

impl<'a> FlushInfo<'a> {
    /// # Safety
    /// `raw`'s views must be valid for `'a`.
    pub(crate) unsafe fn from_raw(raw: &'a pinrocks_flush_info) -> Self {
        FlushInfo {
            cf_name: text(&raw.cf_name),
            file_path: path_of(&raw.file_path),
            job_id: raw.job_id,
            smallest_seqno: raw.smallest_seqno,
            largest_seqno: raw.largest_seqno,
            triggered_writes_slowdown: raw.triggered_writes_slowdown != 0,
            triggered_writes_stop: raw.triggered_writes_stop != 0,
            reason: static_name(raw.reason),
        }
    }
}

impl<'a> CompactionInfo<'a> {
    /// # Safety
    /// `raw`'s views and arrays must be valid for `'a`.
    pub(crate) unsafe fn from_raw(raw: &'a pinrocks_compaction_info) -> Self {
        // SAFETY: arrays of `num_*` slices, valid for `'a` (or NULL when empty).
        let (inputs, outputs) = unsafe {
            (
                slices(raw.input_files, raw.num_input_files),
                slices(raw.output_files, raw.num_output_files),
            )
        };
        CompactionInfo {
            cf_name: text(&raw.cf_name),
            job_id: raw.job_id,
            base_input_level: raw.base_input_level,
            output_level: raw.output_level,
            reason: static_name(raw.reason),
            status: status(raw.status_code, &raw.status_message),
            input_records: raw.input_records,
            output_records: raw.output_records,
            inputs,
            outputs,
        }
    }
}

impl<'a> StallInfo<'a> {
    pub(crate) fn from_raw(raw: &'a pinrocks_stall_info) -> Self {
        let condition = |raw: c_int| match raw {
            0 => StallCondition::Delayed,
            1 => StallCondition::Stopped,
            _ => StallCondition::Normal,
        };
        StallInfo {
            cf_name: text(&raw.cf_name),
            previous: condition(raw.previous),
            current: condition(raw.current),
        }
    }
}

impl<'a> BackgroundErrorInfo<'a> {
    /// # Safety
    /// `raw.choice` must be NULL or point to an int only this thread uses for `'a`.
    pub(crate) unsafe fn from_raw(raw: &'a pinrocks_error_info) -> Self {
        BackgroundErrorInfo {
            reason: background_reason(raw.reason),
            error: error_of(raw),
            severity: ErrorSeverity::from_raw(raw.severity),
            // SAFETY: the caller's contract; `Cell<c_int>` has `c_int`'s layout.
            choice: unsafe { raw.choice.cast::<Cell<c_int>>().as_ref() },
        }
    }
}

impl<'a> RecoveryInfo<'a> {
    /// `None` if RocksDB offered no choice.
    ///
    /// # Safety
    /// As [`BackgroundErrorInfo::from_raw`].
    pub(crate) unsafe fn from_raw(raw: &'a pinrocks_error_info) -> Option<Self> {
        // SAFETY: the caller's contract; `Cell<c_int>` has `c_int`'s layout.
        let choice = unsafe { raw.choice.cast::<Cell<c_int>>().as_ref() }?;
        Some(RecoveryInfo {
            reason: background_reason(raw.reason),
            error: error_of(raw),
            choice,
        })
    }
}

impl<'a> MemtableInfo<'a> {
    pub(crate) fn from_raw(raw: &'a pinrocks_memtable_info) -> Self {
        MemtableInfo {
            cf_name: text(&raw.cf_name),
            first_seqno: raw.first_seqno,
            earliest_seqno: raw.earliest_seqno,
            entries: raw.num_entries,
            deletes: raw.num_deletes,
        }
    }
}

impl<'a> TableFileInfo<'a> {
    pub(crate) fn from_raw(raw: &'a pinrocks_table_file_info) -> Self {
        let reason = match raw.reason {
            0 => Some(TableFileReason::Flush),
            1 => Some(TableFileReason::Compaction),
            2 => Some(TableFileReason::Recovery),
            r if r >= 3 => Some(TableFileReason::Misc),
            _ => None,
        };
        TableFileInfo {
            cf_name: text(&raw.cf_name),
            file_path: path_of(&raw.file_path),
            job_id: raw.job_id,
            reason,
            file_size: raw.file_size,
            entries: raw.num_entries,
            status: status(raw.status_code, &raw.status_message),
        }
    }
}

impl<'a> IngestionInfo<'a> {
    pub(crate) fn from_raw(raw: &'a pinrocks_ingestion_info) -> Self {
        IngestionInfo {
            cf_name: text(&raw.cf_name),
            external_file_path: path_of(&raw.external_file_path),
            internal_file_path: path_of(&raw.internal_file_path),
            global_seqno: raw.global_seqno,
            entries: raw.num_entries,
        }
    }
}

/// The error of an error event (the C++ listener passes none with an `Ok` status; should
/// one come, an exception kind stands for it).
fn error_of(raw: &pinrocks_error_info) -> Error {
    status(raw.status_code, &raw.status_message)
        .err()
        .unwrap_or_else(|| Error::from_code_and_message(CODE_EXCEPTION as i32, String::new()))
}

/// The status of an event: `Ok` for code 0.
pub(crate) fn status(code: c_int, message: &pinrocks_slice) -> Result<(), Error> {
    if code == 0 {
        return Ok(());
    }
    Err(Error::from_code_and_message(code, text(message).to_owned()))
}

/// A view of RocksDB's string, for as long as the view is valid.
pub(crate) fn text(slice: &pinrocks_slice) -> &str {
    // SAFETY: RocksDB's string, valid for the event's call (the view's lifetime).
    let bytes = unsafe { value_slice(slice.data, slice.len) };
    std::str::from_utf8(bytes).unwrap_or("(not UTF-8)")
}

fn path_of(slice: &pinrocks_slice) -> &Path {
    // SAFETY: RocksDB's string, valid for the event's call.
    let bytes = unsafe { value_slice(slice.data, slice.len) };
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        Path::new(std::ffi::OsStr::from_bytes(bytes))
    }
    #[cfg(not(unix))]
    {
        Path::new(std::str::from_utf8(bytes).unwrap_or("(not UTF-8)"))
    }
}

fn static_name(name: *const c_char) -> &'static str {
    if name.is_null() {
        return "";
    }
    // SAFETY: RocksDB's reason names are static NUL-terminated strings.
    unsafe { CStr::from_ptr(name) }
        .to_str()
        .unwrap_or("(not UTF-8)")
}

/// `rocksdb::BackgroundErrorReason`'s names, in its order.
fn background_reason(raw: c_int) -> &'static str {
    const NAMES: [&str; 8] = [
        "flush",
        "compaction",
        "write callback",
        "memtable",
        "manifest write",
        "flush (no WAL)",
        "manifest write (no WAL)",
        "async file open",
    ];
    usize::try_from(raw)
        .ok()
        .and_then(|i| NAMES.get(i).copied())
        .unwrap_or("unknown")
}

/// # Safety
/// `data` must point to `len` slices valid for `'a`, or be NULL with `len` 0.
unsafe fn slices<'a>(data: *const pinrocks_slice, len: usize) -> &'a [pinrocks_slice] {
    if len == 0 {
        return &[];
    }
    // SAFETY: the caller's contract.
    unsafe { std::slice::from_raw_parts(data, len) }
}

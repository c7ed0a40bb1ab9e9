//! One error type for the crate. RocksDB failures keep their status kind as data, so callers
//! match on [`ErrorKind`] instead of parsing messages. Not-found is never an error on reads.
//!
//! Long because: one error enum for the whole crate, each variant documented with when it
//! happens, and its mapping from RocksDB's status codes.

use std::ffi::{c_char, c_int, CStr};
use std::fmt;

use crate::raw::ffi;

/// How bad a background error is, as RocksDB grades it (`Status::Severity`): what it stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum ErrorSeverity {
    /// Writes go on; background work may be paused until RocksDB recovers.
    Soft,
    /// Writes are stopped; [`Db::resume`](crate::Db::resume) (or RocksDB's own recovery)
    /// can clear it once the cause is gone.
    Hard,
    /// Writes are stopped until the database is reopened.
    Fatal,
    /// Writes are stopped and data may be lost: reopening may not be enough.
    Unrecoverable,
}

impl ErrorSeverity {
    /// RocksDB's value (1 soft .. 4 unrecoverable), `None` for none.
    pub(crate) fn from_raw(raw: i32) -> Option<Self> {
        match raw {
            1 => Some(ErrorSeverity::Soft),
            2 => Some(ErrorSeverity::Hard),
            3 => Some(ErrorSeverity::Fatal),
            r if r >= 4 => Some(ErrorSeverity::Unrecoverable),
            _ => None,
        }
    }

    pub(crate) fn to_raw(self) -> i32 {
        match self {
            ErrorSeverity::Soft => 1,
            ErrorSeverity::Hard => 2,
            ErrorSeverity::Fatal => 3,
            ErrorSeverity::Unrecoverable => 4,
        }
    }
}

/// The kind of a RocksDB `Status`, as RocksDB's C++ `Status::Code` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// `NotFound`: only for operations where absence is a failure (never on reads).
    NotFound,
    /// Data on disk failed a check: a bad checksum, a truncated file.
    Corruption,
    /// The operation is not implemented for this configuration.
    NotSupported,
    /// Bad options, a missing database without `create_if_missing`, and the like.
    InvalidArgument,
    /// The file system failed, including a database locked by another open.
    IoError,
    /// A merge could not be completed.
    MergeInProgress,
    /// The operation stopped before it was complete.
    Incomplete,
    /// The database is closing.
    ShutdownInProgress,
    /// A deadline passed.
    TimedOut,
    /// The operation was aborted.
    Aborted,
    /// A resource is held by someone else; for a transaction, a write conflict (another
    /// writer changed a key it wrote or read for update). Retrying may succeed.
    Busy,
    /// A TTL or a deadline expired.
    Expired,
    /// A transient failure (a transaction's conflict check could not be done: the
    /// memtable history is too short); retrying may succeed.
    TryAgain,
    /// A compaction output would be too large.
    CompactionTooLarge,
    /// The column family was dropped.
    ColumnFamilyDropped,
    /// A native allocation failed: `std::bad_alloc` was thrown inside RocksDB or pinrocks'
    /// C++ (for example a multi-get of more keys than memory holds) and caught before it
    /// could reach Rust. Nothing was read or written. Not for a call that may have entered
    /// RocksDB's write queue (a write to the database, a commit, a flush, a family made or
    /// dropped, ...) or that lets go of its mutex by hand: those end the process, as a Rust
    /// allocation that fails does, since RocksDB would be left waiting on a writer that is
    /// gone (`rocksdb-c/pinrocks.h`, rule 5, lists them). Nor for a read that may leave held
    /// a lock RocksDB takes by hand (a memtable's range-tombstone cache, the database
    /// mutex), a tailing iterator's move, or a pessimistic transaction's lock that leaves the
    /// lock manager's stripe locked: they end the process too, as no later call could take
    /// that lock.
    MemoryLimit,
    /// Another C++ exception was thrown inside the call and caught before it could reach
    /// Rust; the message is its `what()`.
    NativeException,
    /// A transaction waited longer than its lock timeout for a key another holds
    /// (`TimedOut` with RocksDB's `kLockTimeout`). Retrying may succeed.
    LockTimeout,
    /// Waiting for a lock would deadlock with another transaction (`Busy` with
    /// `kDeadlock`, with deadlock detection on). Retrying may succeed.
    Deadlock,
    /// A read with [`ReadTier::BlockCache`](crate::read::ReadTier::BlockCache) would have had to
    /// read a file: the value may exist, but is not in memory (`Incomplete`, RocksDB's
    /// answer to a read that may do no I/O). Not a miss: a miss is `None`.
    NotInCache,
    /// A write with [`WriteOptions::no_slowdown`](crate::WriteOptions::no_slowdown) (or
    /// [`low_pri`](crate::WriteOptions::low_pri)) would have waited for a write stall, and
    /// was not done (`Incomplete` "Write stall"). Retry later, or write without it.
    WouldStall,
    /// The disk is full or the [`SstFileManager`](crate::options::SstFileManager)'s space limit is
    /// reached (`IOError` with `kNoSpace` or `kSpaceLimit`). Writes stop until space is
    /// freed or the limit raised, then [`Db::resume`](crate::Db::resume).
    NoSpace,
    /// A status RocksDB reported that this version of pinrocks does not know.
    Unknown,
}

impl ErrorKind {
    /// The kind for a `rocksdb::Status::Code` value.
    pub(crate) fn from_code(code: i32) -> Self {
        use ErrorKind::*;
        // Named in rocksdb-c/pinrocks.h, each checked against `rocksdb::Status::Code` by a
        // static_assert in rocksdb-c/guarded.h.
        const CODES: [(u32, ErrorKind); 17] = [
            (ffi::PINROCKS_CODE_NOT_FOUND, NotFound),
            (ffi::PINROCKS_CODE_CORRUPTION, Corruption),
            (ffi::PINROCKS_CODE_NOT_SUPPORTED, NotSupported),
            (ffi::PINROCKS_CODE_INVALID_ARGUMENT, InvalidArgument),
            (ffi::PINROCKS_CODE_IO_ERROR, IoError),
            (ffi::PINROCKS_CODE_MERGE_IN_PROGRESS, MergeInProgress),
            (ffi::PINROCKS_CODE_INCOMPLETE, Incomplete),
            (ffi::PINROCKS_CODE_SHUTDOWN_IN_PROGRESS, ShutdownInProgress),
            (ffi::PINROCKS_CODE_TIMED_OUT, TimedOut),
            (ffi::PINROCKS_CODE_ABORTED, Aborted),
            (ffi::PINROCKS_CODE_BUSY, Busy),
            (ffi::PINROCKS_CODE_EXPIRED, Expired),
            (ffi::PINROCKS_CODE_TRY_AGAIN, TryAgain),
            (ffi::PINROCKS_CODE_COMPACTION_TOO_LARGE, CompactionTooLarge),
            (
                ffi::PINROCKS_CODE_COLUMN_FAMILY_DROPPED,
                ColumnFamilyDropped,
            ),
            (ffi::PINROCKS_CODE_OUT_OF_MEMORY, MemoryLimit),
            (ffi::PINROCKS_CODE_EXCEPTION, NativeException),
        ];
        CODES
            .iter()
            .find(|(c, _)| i64::from(*c) == i64::from(code))
            .map_or(Unknown, |&(_, kind)| kind)
    }

    /// The C API gives only `Status::ToString()`; its prefix names the code.
    pub(crate) fn from_message(message: &str) -> Self {
        use ErrorKind::*;
        const PREFIXES: &[(&str, ErrorKind)] = &[
            ("NotFound: ", NotFound),
            ("Corruption: ", Corruption),
            ("Not implemented: ", NotSupported),
            ("Invalid argument: ", InvalidArgument),
            ("IO error: ", IoError),
            ("Merge in progress: ", MergeInProgress),
            ("Result incomplete: ", Incomplete),
            ("Shutdown in progress: ", ShutdownInProgress),
            ("Operation timed out: ", TimedOut),
            ("Operation aborted: ", Aborted),
            ("Resource busy: ", Busy),
            ("Operation expired: ", Expired),
            ("Operation failed. Try again.: ", TryAgain),
            ("Compaction too large: ", CompactionTooLarge),
            ("Column family dropped: ", ColumnFamilyDropped),
        ];
        PREFIXES
            .iter()
            .find(|(prefix, _)| message.starts_with(prefix))
            .map_or(Unknown, |&(_, kind)| kind)
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

/// Everything that can go wrong in pinrocks.
///
/// ```
/// use pinrocks::{Db, Error, ErrorKind, Options};
/// # let dir = tempfile::tempdir().unwrap();
/// match Db::open(&Options::new(), dir.path().join("absent")) {
///     Err(Error::RocksDb { kind: ErrorKind::InvalidArgument, message }) => {
///         assert!(message.contains("does not exist"), "{message}");
///     }
///     other => panic!("{other:?}"),
/// }
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// RocksDB returned a non-OK status.
    #[error("rocksdb {kind}: {message}")]
    RocksDb {
        /// The status code, as data.
        kind: ErrorKind,
        /// RocksDB's full message, `Status::ToString()`.
        message: String,
    },
    /// A path, name or option RocksDB cannot take: an interior NUL byte, a path that is not
    /// valid UTF-8 where RocksDB needs a C string, a setting RocksDB would silently ignore.
    #[error("invalid {what}: {detail}")]
    InvalidInput {
        /// What was invalid ("path", "column family name", ...).
        what: &'static str,
        /// Why.
        detail: String,
    },
    /// No column family of that name is open in this database.
    #[error("column family not found: {name}")]
    ColumnFamilyNotFound {
        /// The name asked for.
        name: String,
    },
    /// `create_cf` of a name that is already a column family of the database.
    #[error("column family already exists: {name}")]
    ColumnFamilyExists {
        /// The name asked for.
        name: String,
    },
    /// `drop_cf("default")`: RocksDB's default column family cannot be dropped.
    #[error("the default column family cannot be dropped")]
    DefaultColumnFamily,
    /// A `delete_range` whose start sorts after its end. Refused before it reaches RocksDB
    /// (with its whole batch): RocksDB 11.8.1 would log it, fail it in the memtable, and then
    /// refuse every later write until the database is reopened.
    #[error("inverted range: start {start:?} sorts after end {end:?}")]
    InvertedRange {
        /// The range's start (inclusive).
        start: Vec<u8>,
        /// The range's end (exclusive), which sorts before `start`.
        end: Vec<u8>,
    },
    /// A range tombstone and a row cache ([`Options::row_cache`], the
    /// [`HotReads`](crate::options::HotReads) profile with its row cache) in one database:
    /// RocksDB 11.8.1's row cache returns deleted values where a range tombstone exists (a
    /// row cached from a file that also holds a tombstone covering it comes back on the
    /// next read; a multi-get that hits the row cache skips newer tombstones). So a
    /// database with a row cache holds none, and pinrocks refuses, before RocksDB sees it,
    /// what would bring one: a range delete ([`Writer::delete_range`], a [`WriteBatch`]
    /// holding one), the ingest of an SST file holding one, an open of a database whose
    /// files or log hold one, and a read-only or secondary open (which could not keep them
    /// out). Nothing was written, but a refused open has flushed its log into files. To
    /// open such a database with a row cache, open it without one first and compact every
    /// column family with [`Bottommost::Force`](crate::admin::Bottommost::Force) while no
    /// snapshot is held (tombstones leave only at the bottom level, with what they cover;
    /// RocksDB's default compaction leaves bottom-level files as they are). Tombstones are
    /// counted from the files' table properties (`num_range_deletions`): a file whose
    /// writer did not record them counts as none.
    ///
    /// [`Writer::delete_range`]: crate::Writer::delete_range
    /// [`WriteBatch`]: crate::WriteBatch
    /// [`Options::row_cache`]: crate::Options::row_cache
    #[error("{operation} refused: a database with a row cache holds no range tombstone")]
    RowCacheRefusesRanges {
        /// What was refused: `"delete_range"`, `"write"` (a batch), `"ingest"`, `"open"`,
        /// or a read-only or secondary open.
        operation: &'static str,
    },
    /// A write to a column family that was dropped (through [`Db::drop_cf`]) while a
    /// [`ColumnFamily`], a `Table` or a [`WriteBatch`] still named it. Refused before it
    /// reaches RocksDB, which would log it, fail it, and then refuse every later write to the
    /// database until it is reopened. Nothing was written.
    ///
    /// [`Db::drop_cf`]: crate::Db::drop_cf
    /// [`ColumnFamily`]: crate::ColumnFamily
    /// [`WriteBatch`]: crate::WriteBatch
    #[error("column family dropped: {name}")]
    ColumnFamilyDropped {
        /// The column family's name.
        name: String,
    },
    /// A [`WriteBatch`](crate::WriteBatch) names a column family of another database (a
    /// batch stores column family ids, which mean another family there, or none). Refused
    /// whole; nothing was written.
    #[error("column family {name:?} belongs to another database")]
    ForeignColumnFamily {
        /// The column family's name.
        name: String,
    },
    /// A key added to an [`SstFileWriter`](crate::admin::SstFileWriter) that does not sort after
    /// the previous one (bytewise). Refused before RocksDB sees it; the file is unchanged.
    #[error("keys out of order: {key:?} does not sort after {previous:?}")]
    KeyOrder {
        /// The last key added.
        previous: Vec<u8>,
        /// The key refused.
        key: Vec<u8>,
    },
    /// A [`BackupEngine`](crate::admin::BackupEngine) whose backup was stopped (by its progress
    /// callback): RocksDB's stop is for good, and restore and verify copy through the same
    /// machinery, so a restore would empty its target directory and then fail. Open a new
    /// engine on the same directory.
    #[error("the backup engine was stopped; open a new one")]
    BackupEngineStopped,
    /// A change through a database opened read-only. pinrocks refuses every one itself:
    /// RocksDB's read-only mode lets some through (dropping a column family rewrites the
    /// MANIFEST and deletes its files under the read-write instance).
    #[error("{operation} refused: the database is open read-only")]
    ReadOnly {
        /// What was refused, such as `"drop_cf"`.
        operation: &'static str,
    },
    /// A merge failed: the operator's function returned an error or panicked, or a value or
    /// operand did not decode. Only the reads of the merged key fail; flushes and
    /// compactions keep its operands unmerged. The reason is that of the last merge that
    /// failed on the reading thread: in a multi-get with several failing keys it may be
    /// another of them's. (An iterator whose status is read on another thread than the one
    /// that moved it reports RocksDB's plain `Corruption` instead.)
    #[error("merge operator {operator:?} failed: {reason}")]
    MergeFailed {
        /// The merge operator's name.
        operator: String,
        /// What the operator said, or the panic's message.
        reason: String,
    },
    /// The database was created with another comparator than the one configured: RocksDB
    /// cannot read keys sorted in another order. Nothing was opened.
    #[error("comparator {configured:?} does not match the database's {stored:?}")]
    ComparatorMismatch {
        /// The comparator the options name.
        configured: String,
        /// The comparator the database was created with.
        stored: String,
    },
    /// A TTL database opened without a TTL, or a database without TTL opened as one: the
    /// 4-byte write time a TTL database stores after every value would be read as data, or
    /// data as a write time. Nothing was opened.
    #[error("the database was {} with a TTL", if *stored_with_ttl { "written" } else { "not written" })]
    TtlMismatch {
        /// Whether the database's stored options are a TTL database's.
        stored_with_ttl: bool,
    },
    /// RocksDB did not take an option set on a live database (an unknown name, a value out
    /// of range or of the wrong type, an option that cannot change while open). None of
    /// those asked was applied.
    #[error("options {options:?} rejected: {message}")]
    OptionRejected {
        /// The names and values asked.
        options: Vec<(String, String)>,
        /// RocksDB's status kind.
        kind: ErrorKind,
        /// RocksDB's message, naming the option.
        message: String,
    },
    /// A stored value (or key) could not be decoded by its codec.
    #[error("cannot decode {codec} at key {key:?}: {source}")]
    Decode {
        /// The codec's name, such as `BigEndian<u64>`.
        codec: &'static str,
        /// The key whose entry failed, as stored.
        key: Vec<u8>,
        /// Why.
        source: crate::codec::DecodeError,
    },
    /// [`Db::close`](crate::Db::close) found the database still held by values read from
    /// it (owned `Bytes` or `Entity`, snapshots): it stays open until the last of them
    /// drops, and closes then without a report.
    #[error(
        "the database is still held by {holders} value(s) read from it (owned values, \
         snapshots); it closes when they drop"
    )]
    DatabaseInUse {
        /// How many holders there were besides the `Db`.
        holders: usize,
    },
    /// A call that only one kind of database has, made on another: RocksDB's C API would
    /// cast the database to that kind unchecked. Refused before it reaches RocksDB.
    #[error("{operation} needs a {needs} database")]
    WrongKind {
        /// What was refused, such as `"create_cf_with_ttl"`.
        operation: &'static str,
        /// The kind it needs: `"TTL"`, `"transaction"`, ...
        needs: &'static str,
    },
    /// `drop_cf` of a family that a prepared (two-phase) transaction writes to: its commit
    /// would fail inside RocksDB and stop the database. Commit or roll it back first.
    /// Nothing was dropped.
    #[error("column family {name:?} is written by a prepared transaction")]
    ColumnFamilyInUse {
        /// The column family's name.
        name: String,
    },
    /// A restore, destroy or repair of the directory of a database that is open (in this
    /// process or another), or one under way there: it would change the files under the
    /// live database. Nothing was done.
    #[error("{path:?} is in use: {message}")]
    DatabaseOpenThere {
        /// The directory.
        path: std::path::PathBuf,
        /// What locking it said.
        message: String,
    },
    /// [`Db::updates_since`](crate::Db::updates_since) reached a batch of a two-phase
    /// commit (a prepare, commit or rollback marker). Such batches do not use the sequence
    /// numbers their record counts say, so RocksDB's log iterator would report prepared
    /// writes (rolled back or not) as written and skip later batches. The iteration ends
    /// here; nothing at or after `sequence` was reported.
    #[error("the WAL holds a two-phase commit batch at sequence {sequence}, which updates_since cannot follow")]
    TwoPhaseCommitInLog {
        /// The sequence number of that batch.
        sequence: u64,
    },
    /// A call back into RocksDB from inside a callback that RocksDB runs within its own
    /// work, where it could wait for the very work running it or re-enter the thread's
    /// RocksDB state: a change to a database (a write, a flush, a compaction, a column
    /// family created or dropped, a transaction's prepare or commit) from a comparator,
    /// merge operator or compaction filter; a read from a merge operator or comparator; a
    /// backup engine call from its backup's progress callback. Refused, nothing done.
    #[error("{operation} refused inside a {callback}: RocksDB is running it and cannot be re-entered from there")]
    InsideCallback {
        /// What was refused.
        operation: &'static str,
        /// Which callback the thread was in.
        callback: &'static str,
    },
    /// [`Db::updates_since`](crate::Db::updates_since) found a batch that does not start
    /// where the previous one ended (or, first, after the sequence number asked for): the
    /// writes in between are not in the WAL (written with it disabled), or RocksDB's log
    /// iterator skipped a batch it could not place (a two-phase commit's). The iteration
    /// ends here rather than go on short.
    #[error("the WAL has no batch at sequence {expected}; the next starts at {found}")]
    LogGap {
        /// Where the next batch should have started.
        expected: u64,
        /// Where it did.
        found: u64,
    },
    /// An open of a directory that a [`BackupEngine`](crate::admin::BackupEngine) is restoring
    /// into, in this process: it would read a half-restored database. Nothing was opened.
    #[error("cannot open {path:?}: a restore into it is under way")]
    RestoreInProgress {
        /// The directory.
        path: std::path::PathBuf,
    },
    /// A read or write whose timestamp does not fit its column family: none given to a
    /// family created with [`Options::u64_timestamps`](crate::Options::u64_timestamps)
    /// (`given` 0), one given to a family without timestamps (`expected` 0), or one of
    /// another size than its comparator's. Refused before it reaches RocksDB; nothing was
    /// read or written.
    #[error("column family {family:?} takes {expected}-byte timestamps; {given} given")]
    TimestampMismatch {
        /// The column family's name.
        family: String,
        /// Its comparator's timestamp size (0: it has none).
        expected: usize,
        /// The size of the timestamp given (0: none).
        given: usize,
    },
    /// A value could not be encoded by its codec.
    #[error("cannot encode {codec}: {source}")]
    Encode {
        /// The codec's name.
        codec: &'static str,
        /// Why.
        source: crate::codec::EncodeError,
    },
}

/// What RocksDB says of a read that may do no I/O (`kBlockCacheTier`) and would have had
/// to: a block (table/block_based/block_based_table_reader_sync_and_async.h, seen in
/// `tests/reads/controls.rs`), a table not open (db/table_cache.cc, with `max_open_files`
/// set), a blob (db/blob/blob_source.cc) or an embedded blob (block_based_table_reader.cc).
const NOT_IN_CACHE: [&str; 4] = [
    "no blocking io",
    "no_io is set",
    "no disk I/O allowed",
    "block-cache-only mode",
];

impl Error {
    /// Whether retrying the transaction (from its beginning) may succeed: a write conflict,
    /// a lock timeout, a deadlock, RocksDB's "try again", or an expired transaction (a new
    /// one starts a new expiration).
    pub fn is_retryable(&self) -> bool {
        matches!(
            self.kind(),
            Some(
                ErrorKind::Busy
                    | ErrorKind::LockTimeout
                    | ErrorKind::Deadlock
                    | ErrorKind::TryAgain
                    | ErrorKind::Expired
            )
        )
    }

    /// The RocksDB status kind, if this error came from RocksDB (a RocksDB status, or the
    /// refusal of options RocksDB did not take).
    pub fn kind(&self) -> Option<ErrorKind> {
        match self {
            Error::RocksDb { kind, .. } | Error::OptionRejected { kind, .. } => Some(*kind),
            _ => None,
        }
    }

    /// RocksDB's refusal of options it was given, as an [`Error::OptionRejected`] naming
    /// none of them (a string it could not split, a rule joining several); any other error
    /// as it is.
    pub(crate) fn into_option_refusal(self) -> Self {
        match self {
            Error::RocksDb { kind, message } => Error::OptionRejected {
                options: Vec::new(),
                kind,
                message,
            },
            other => other,
        }
    }

    /// The error for a RocksDB status code (`PINROCKS_CODE_*`) and its message.
    pub(crate) fn from_code_and_message(code: i32, message: String) -> Self {
        Error::from_status(ErrorKind::from_code(code), message)
    }

    /// The error for a RocksDB status, in its own variant where pinrocks knows more: a
    /// failed merge (which this thread's merge noted).
    fn from_status(kind: ErrorKind, message: String) -> Self {
        // Subcodes that make a kind of their own (util/status.cc's messages).
        let kind = match kind {
            ErrorKind::TimedOut if message.contains("Timeout waiting to lock key") => {
                ErrorKind::LockTimeout
            }
            ErrorKind::Busy if message.contains("Deadlock") => ErrorKind::Deadlock,
            ErrorKind::Incomplete if message.to_ascii_lowercase().contains("write stall") => {
                ErrorKind::WouldStall
            }
            ErrorKind::Incomplete if NOT_IN_CACHE.iter().any(|m| message.contains(m)) => {
                ErrorKind::NotInCache
            }
            ErrorKind::IoError
                if message.contains("No space left on device")
                    || message.contains("Space limit reached")
                    || message.contains("Max allowed space was reached") =>
            {
                ErrorKind::NoSpace
            }
            other => other,
        };
        if kind == ErrorKind::Corruption && message.contains("Merge operator failed") {
            if let Some((operator, reason)) = MERGE_FAILURE.with(|f| f.borrow_mut().take()) {
                return Error::MergeFailed { operator, reason };
            }
        }
        Error::RocksDb { kind, message }
    }

    /// An open's failure, with a comparator mismatch in its own variant
    /// (db/version_edit_handler.cc: `InvalidArgument(configured, "does not match existing
    /// comparator " + stored)`). Only at open: an ingest says the same of a file.
    pub(crate) fn at_open(self) -> Self {
        const MISMATCH: &str = ": does not match existing comparator ";
        if let Error::RocksDb {
            kind: ErrorKind::InvalidArgument,
            message,
        } = &self
        {
            if let Some((configured, stored)) = message
                .strip_prefix("Invalid argument: ")
                .and_then(|rest| rest.split_once(MISMATCH))
            {
                return Error::ComparatorMismatch {
                    configured: configured.to_owned(),
                    stored: stored.to_owned(),
                };
            }
        }
        self
    }

    pub(crate) fn invalid(what: &'static str, detail: impl fmt::Display) -> Self {
        Error::InvalidInput {
            what,
            detail: detail.to_string(),
        }
    }
}

thread_local! {
    /// The last merge that failed on this thread: a read that needs a merge runs it on the
    /// reading thread, so the read's "Merge operator failed" is this one.
    static MERGE_FAILURE: std::cell::RefCell<Option<(String, String)>> =
        const { std::cell::RefCell::new(None) };
}

/// Notes why a merge failed on this thread, for the read that asked for it.
pub(crate) fn note_merge_failure(operator: &CStr, reason: String) {
    let operator = operator.to_string_lossy().into_owned();
    // A merge on a thread being torn down has no read waiting for it.
    let _ = MERGE_FAILURE.try_with(|f| *f.borrow_mut() = Some((operator, reason)));
}

/// A caught panic's message, when it is a string.
pub(crate) fn panic_message(panic: &(dyn std::any::Any + Send)) -> &str {
    panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(not a string)")
}

/// `Result` with pinrocks' [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The `char** errptr` out-parameter of the C API: starts NULL, and owns (and frees with
/// `rocksdb_free`) whatever message RocksDB leaves in it.
pub(crate) struct ErrPtr(*mut c_char);

impl ErrPtr {
    pub(crate) fn new() -> Self {
        ErrPtr(std::ptr::null_mut())
    }

    pub(crate) fn as_out(&mut self) -> *mut *mut c_char {
        &mut self.0
    }

    /// `Err` if the call failed. `code` is the status code where the callee reports one
    /// (our own C++ does, starting from 0): a non-zero code is an error even without a
    /// message (allocating the message can fail too). Without a code, the kind is read from
    /// the message's prefix.
    // The success path inlined into every call site (no message to free, so no drop), the
    // failure out of line: measured, 28 instructions per pinned read otherwise.
    #[inline]
    pub(crate) fn check_with_code(self, code: Option<i32>) -> Result<()> {
        if self.0.is_null() && code.is_none_or(|c| c == 0) {
            std::mem::forget(self); // NULL: nothing to free
            return Ok(());
        }
        self.failed(code)
    }

    #[cold]
    #[inline(never)]
    fn failed(self, code: Option<i32>) -> Result<()> {
        let failed_code = code.filter(|&c| c != 0);
        let message = if self.0.is_null() {
            String::from("(no message: it could not be allocated)")
        } else {
            // SAFETY: a non-NULL errptr is a NUL-terminated string from strdup in RocksDB
            // or rocksdb-c/, owned by `self` until it drops.
            unsafe { CStr::from_ptr(self.0) }
                .to_string_lossy()
                .into_owned()
        };
        let kind =
            failed_code.map_or_else(|| ErrorKind::from_message(&message), ErrorKind::from_code);
        Err(Error::from_status(kind, message))
    }

    #[inline]
    pub(crate) fn check(self) -> Result<()> {
        self.check_with_code(None)
    }
}

/// Makes a call to pinrocks' C++ (`rocksdb-c/`, which reports a status code and a message
/// through out-parameters, starting from 0 and NULL) and turns what it reported into a
/// `Result`: the one place the code-and-errptr dance is written. `call` gets the two
/// out-parameters to pass on.
#[inline]
pub(crate) fn with_code<T>(call: impl FnOnce(*mut c_int, *mut *mut c_char) -> T) -> Result<T> {
    let (mut code, mut err) = (0, ErrPtr::new());
    let value = call(&mut code, err.as_out());
    err.check_with_code(Some(code)).map(|()| value)
}

/// The same for a call that returns its status code, and sets the message only with a
/// code other than 0 (rocksdb-c/'s `failed` and `caught`): 0 alone says it succeeded.
#[inline(always)]
pub(crate) fn with_returned_code(call: impl FnOnce(*mut *mut c_char) -> c_int) -> Result<()> {
    let mut err = ErrPtr::new();
    let code = call(err.as_out());
    if code == 0 {
        debug_assert!(err.0.is_null(), "a message with status code 0");
        std::mem::forget(err); // NULL: nothing to free
        return Ok(());
    }
    err.failed(Some(code))
}

/// The same for a call of RocksDB's C API, which reports through an errptr only (the kind
/// read from the message's prefix).
#[inline]
pub(crate) fn with_errptr<T>(call: impl FnOnce(*mut *mut c_char) -> T) -> Result<T> {
    let mut err = ErrPtr::new();
    let value = call(err.as_out());
    err.check().map(|()| value)
}

impl Drop for ErrPtr {
    fn drop(&mut self) {
        if !self.0.is_null() {
            // SAFETY: the pointer came from RocksDB's malloc and is freed exactly once.
            unsafe { ffi::rocksdb_free(self.0.cast()) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_prefixes_map_to_kinds() {
        let cases = [
            ("IO error: While lock file: /x/LOCK", ErrorKind::IoError),
            (
                "Invalid argument: /x: does not exist",
                ErrorKind::InvalidArgument,
            ),
            ("Corruption: block checksum mismatch", ErrorKind::Corruption),
            ("Operation failed. Try again.: later", ErrorKind::TryAgain),
            ("Resource busy: ", ErrorKind::Busy),
            ("something else", ErrorKind::Unknown),
        ];
        for (message, kind) in cases {
            assert_eq!(ErrorKind::from_message(message), kind, "{message}");
        }
    }

    #[test]
    fn codes_map_to_kinds() {
        assert_eq!(ErrorKind::from_code(2), ErrorKind::Corruption);
        assert_eq!(ErrorKind::from_code(15), ErrorKind::ColumnFamilyDropped);
        assert_eq!(ErrorKind::from_code(99), ErrorKind::Unknown);
        assert_eq!(ErrorKind::from_code(100), ErrorKind::MemoryLimit);
        assert_eq!(ErrorKind::from_code(101), ErrorKind::NativeException);
    }

    #[test]
    fn a_code_without_a_message_is_still_an_error() {
        let err = ErrPtr::new().check_with_code(Some(100)).unwrap_err();
        assert_eq!(err.kind(), Some(ErrorKind::MemoryLimit));
        assert!(ErrPtr::new().check_with_code(Some(0)).is_ok());
        assert!(ErrPtr::new().check().is_ok());
    }
}

//! WAL filters: user code that sees each write batch RocksDB replays from the WAL as a
//! database opens, and replays it, skips it, stops the replay there or reports it corrupt
//! (audits of what a crash left, dropping poison writes, recovering up to a point).
//! A panic aborts the process: any answer but "replay" may drop what was logged, and none
//! can be taken back once the open goes on.

use std::ffi::{c_char, c_int, c_void, CString};
use std::fmt;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Arc;

use crate::callbacks::merge::c_name;
use crate::raw::batch::BatchView;
use crate::raw::batch_records::BatchRecord;
use crate::raw::c_consts::wal;
use crate::raw::c_types::{pinrocks_batch, pinrocks_wal_record_fn};
use crate::raw::error::{panic_message, Result};
use crate::raw::options_callbacks::WalFilterHandle;
use crate::raw::pinned::value_slice;
use crate::raw::trampoline::drop_in_callback;

/// What the replay does with one logged batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WalAction {
    /// Replay it into the memtables (what happens without a filter).
    Replay,
    /// Leave it out; the replay goes on with the next batch. Its writes are lost once the
    /// open ends (it flushes what it replayed and starts a new WAL).
    Skip,
    /// Leave it and every batch after it out: the database opens as it was just before it
    /// (the writes after it are lost once the open ends).
    Stop,
    /// Report it corrupt. Under [`WalRecoveryMode`](crate::options::WalRecoveryMode)
    /// `AbsoluteConsistency` or `TolerateCorruptedTailRecords` the open fails with
    /// `Corruption`, the WAL kept as it was (nothing lost). Under the others RocksDB leaves
    /// out the rest of that WAL file (`SkipAnyCorruptedRecords`) or everything after it
    /// (`PointInTimeRecovery`, which may also fail the open); with `paranoid_checks` off it
    /// ignores the report and replays the batch.
    Corrupted,
}

impl WalAction {
    fn raw(self) -> c_int {
        (match self {
            WalAction::Replay => wal::REPLAY,
            WalAction::Skip => wal::SKIP,
            WalAction::Stop => wal::STOP,
            WalAction::Corrupted => wal::CORRUPTED,
        }) as c_int
    }
}

/// One write batch read back from the WAL, as the filter sees it: borrowed for the call.
/// Its bytes are RocksDB's, gone when the filter returns: they cannot be kept past it.
///
/// ```compile_fail
/// use pinrocks::callbacks::{WalAction, WalFilter};
/// use std::sync::Mutex;
/// static KEPT: Mutex<Option<&'static [u8]>> = Mutex::new(None);
/// let filter = WalFilter::new("keeper", |record| {
///     *KEPT.lock().unwrap() = Some(record.data()); // would outlive the replay's batch
///     WalAction::Replay
/// });
/// ```
pub struct WalRecord<'a> {
    wal_number: u64,
    file: &'a [u8],
    batch: BatchView<'a>,
}

impl WalRecord<'_> {
    /// The number of the WAL file it was read from.
    pub fn wal_number(&self) -> u64 {
        self.wal_number
    }

    /// The WAL file's path, as RocksDB names it.
    pub fn file(&self) -> &std::path::Path {
        use std::os::unix::ffi::OsStrExt;
        std::path::Path::new(std::ffi::OsStr::from_bytes(self.file))
    }

    /// The sequence number of its first record (the batch header's first 8 bytes).
    pub fn sequence(&self) -> u64 {
        let data = self.data();
        data.get(..8)
            .and_then(|head| head.try_into().ok())
            .map_or(0, u64::from_le_bytes)
    }

    /// How many records it holds.
    pub fn len(&self) -> usize {
        self.batch.count() as usize
    }

    /// Whether it holds no record (a two-phase commit's marker may hold none).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Calls `f` with each record, in order, its bytes borrowed from the batch. Column
    /// families are named by id ([`ColumnFamily::id`](crate::ColumnFamily::id)); a record of
    /// a family already flushed past this WAL is shown too (RocksDB replays it into nothing).
    pub fn for_each(&self, f: impl FnMut(BatchRecord<'_>)) -> Result<()> {
        self.batch.for_each(f)
    }

    /// The batch's bytes (RocksDB's `WriteBatch::Data()`: header, then the records).
    pub fn data(&self) -> &[u8] {
        self.batch.data()
    }
}

impl fmt::Debug for WalRecord<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WalRecord")
            .field("wal_number", &self.wal_number)
            .field("file", &self.file())
            .field("sequence", &self.sequence())
            .field("len", &self.len())
            .finish()
    }
}

type Decide = dyn Fn(&WalRecord<'_>) -> WalAction + Send + Sync;

struct Filter {
    name: CString,
    decide: Box<Decide>,
}

/// A WAL filter, set with [`Options::wal_filter`](crate::Options::wal_filter): called
/// once for each write batch the WAL replays at an open, in the order written, on the
/// opening thread (several opens with one filter call it at once). Only an open that
/// replays a WAL calls it: a database closed cleanly replays what its memtables held.
/// Refused at an open where RocksDB keeps the WAL past the open (a pessimistic transaction
/// database, `allow_2pc`, `avoid_flush_during_recovery`): the next open would replay what
/// the filter left out.
///
/// ```
/// use pinrocks::callbacks::{WalAction, WalFilter};
/// use pinrocks::write::BatchRecord;
/// # fn main() -> pinrocks::Result<()> {
/// # let dir = tempfile::tempdir().unwrap();
/// let mut options = pinrocks::Options::new();
/// options.create_if_missing(true);
/// let db = pinrocks::Db::open(&options, dir.path())?;
/// db.put(b"good", b"1")?;
/// db.put(b"poison", b"2")?;
/// drop(db); // the WAL holds both writes; nothing was flushed
///
/// // Skip every batch that writes the key `poison`.
/// options.wal_filter(&WalFilter::new("skip-poison", |record| {
///     let mut poison = false;
///     let _ = record.for_each(|r| {
///         poison |= matches!(r, BatchRecord::Put { key, .. } if key == b"poison")
///     });
///     if poison { WalAction::Skip } else { WalAction::Replay }
/// }));
/// let db = pinrocks::Db::open(&options, dir.path())?;
/// assert_eq!(db.get(b"good")?.as_deref(), Some(&b"1"[..]));
/// assert_eq!(db.get(b"poison")?, None);
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct WalFilter(Arc<Filter>);

impl WalFilter {
    /// A filter named `name` (RocksDB logs it and writes it into the OPTIONS file, one line
    /// a value: cut at a control character, a NUL or a line break) that decides with
    /// `decide`.
    pub fn new<F>(name: &str, decide: F) -> Self
    where
        F: Fn(&WalRecord<'_>) -> WalAction + Send + Sync + 'static,
    {
        let line = name.split(char::is_control).next().unwrap_or("");
        WalFilter(Arc::new(Filter {
            name: c_name(line),
            decide: Box::new(decide),
        }))
    }

    /// Its name.
    pub fn name(&self) -> &str {
        self.0.name.to_str().unwrap_or("")
    }

    /// A native filter over this one, for options to point at (their owner keeps it).
    pub(crate) fn handle(&self) -> Result<WalFilterHandle> {
        let state = Box::into_raw(Box::new(self.0.clone())).cast::<c_void>();
        let record: pinrocks_wal_record_fn = Some(record_found);
        // SAFETY: `state` is a new box that the C++ filter takes over and frees with
        // `destroy_filter` (also if this fails); `record_found` reads it as that box, and
        // the filter is `Sync`, so any number of opening threads may call it at once.
        unsafe { WalFilterHandle::new(&self.0.name, state, record, Some(destroy_filter)) }
    }
}

impl fmt::Debug for WalFilter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("WalFilter").field(&self.0.name).finish()
    }
}

extern "C" fn record_found(
    state: *mut c_void,
    wal_number: u64,
    file: *const c_char,
    file_len: usize,
    batch: *const pinrocks_batch,
) -> c_int {
    // SAFETY: `state` is the box `handle` made, live while the C++ filter is; the name and
    // the batch are RocksDB's, valid and unchanged for the call.
    let (filter, file, batch) = unsafe {
        (
            &*state.cast::<Arc<Filter>>(),
            value_slice(file, file_len),
            BatchView::new(batch.cast_mut()),
        )
    };
    let record = WalRecord {
        wal_number,
        file,
        batch,
    };
    match panic::catch_unwind(AssertUnwindSafe(|| (filter.decide)(&record))) {
        Ok(action) => action.raw(),
        Err(panic) => {
            // Unwinding into RocksDB is undefined behaviour, and every answer but "replay"
            // may drop logged writes: the open stops here, the WAL as it was.
            eprintln!(
                "pinrocks: WAL filter {:?} panicked ({}); aborting: the replay cannot go on \
                 without an answer",
                filter.name,
                panic_message(&*panic)
            );
            std::process::abort();
        }
    }
}

extern "C" fn destroy_filter(state: *mut c_void) {
    // SAFETY: `state` is the box `handle` made, freed exactly once by the C++ filter.
    let filter = unsafe { Box::from_raw(state.cast::<Arc<Filter>>()) };
    // A panic in the closure's destructor must not unwind into C++.
    drop_in_callback(filter);
}

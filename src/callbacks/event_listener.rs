//! RocksDB's events (its `EventListener`) delivered to a Rust trait: flushes, compactions,
//! write stalls, background errors and the recovery from them, each with its data borrowed
//! from RocksDB for the call.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::panic::{self, AssertUnwindSafe};
use std::path::Path;
use std::sync::Arc;

use crate::raw::error::Error;
use crate::raw::ffi;
use crate::raw::pinned::value_slice;
use crate::raw::reentry;
use crate::raw::trampoline::{discard_panic, drop_in_callback};

/// What a database tells as it works: implement the events you want, the others do
/// nothing. Add one with [`Options::add_event_listener`](crate::Options::add_event_listener)
/// (several may be added; each database opened with the options calls every one).
///
/// RocksDB calls these on its own threads (flushes and compactions run in the background)
/// and on the thread of the call that caused them (a stall change inside a `put` or a
/// `flush`, a recovery's end inside [`Db::resume`](crate::Db::resume)), outside its
/// database mutex; it waits for them. So a listener must be quick, must not wait for a
/// lock a thread calling into the database may hold, and must not call into the database:
/// reads and writes from an event are refused ([`Error::InsideCallback`]). A panic in an
/// event is caught: the database goes on, that event is lost, and the listener is called
/// for the next ones as before. A flush that waits returns after `on_flush_completed` ran.
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use std::sync::Arc;
/// use pinrocks::{Db, EventListener, FlushInfo, Options};
///
/// #[derive(Default)]
/// struct Flushes(AtomicUsize);
/// impl EventListener for Flushes {
///     fn on_flush_completed(&self, info: &FlushInfo<'_>) {
///         assert_eq!(info.cf_name, "default");
///         self.0.fetch_add(1, Ordering::Relaxed);
///     }
/// }
/// # fn main() -> pinrocks::Result<()> {
/// # let dir = tempfile::tempdir().unwrap();
/// let flushes = Arc::new(Flushes::default());
/// let mut options = Options::new();
/// options.create_if_missing(true).add_event_listener(flushes.clone());
/// let db = Db::open(&options, dir.path())?;
/// db.put(b"k", b"v")?;
/// db.flush()?;
/// assert_eq!(flushes.0.load(Ordering::Relaxed), 1);
/// # Ok(()) }
/// ```
#[allow(unused_variables)]
pub trait EventListener: Send + Sync + 'static {
    /// A flush is about to write a memtable to an SST file.
    fn on_flush_begin(&self, info: &FlushInfo<'_>) {}
    /// A flush wrote its SST file (`info.file_path`).
    fn on_flush_completed(&self, info: &FlushInfo<'_>) {}
    /// A compaction is about to start.
    fn on_compaction_begin(&self, info: &CompactionInfo<'_>) {}
    /// A compaction finished (successfully or not: `info.status`).
    fn on_compaction_completed(&self, info: &CompactionInfo<'_>) {}
    /// A column family's writes slowed down, stopped, or went back to normal. RocksDB
    /// notifies from the thread that made the change (a flush's, a compaction's), so two
    /// changes close together can arrive in either order: `info.previous` tells.
    fn on_stall_conditions_changed(&self, info: &StallInfo<'_>) {}
    /// A background error: writes may be stopped until it is cleared
    /// ([`Db::resume`](crate::Db::resume), or RocksDB's own recovery).
    fn on_background_error(&self, info: &BackgroundErrorInfo) {}
    /// RocksDB's recovery from a background error ended, its own or a successful
    /// [`Db::resume`](crate::Db::resume) (inside that call): `error` is what is left
    /// (`None`: recovered, writes go on). A failed `resume` reports nothing here.
    fn on_error_recovery_end(&self, error: Option<&Error>) {}
}

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
    inputs: &'a [ffi::pinrocks_slice],
    outputs: &'a [ffi::pinrocks_slice],
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

/// A background error, as RocksDB reports it.
#[derive(Debug)]
#[non_exhaustive]
pub struct BackgroundErrorInfo {
    /// What failed, as RocksDB names it: "flush", "compaction", "write callback",
    /// "memtable", "manifest write", "flush (no WAL)", "manifest write (no WAL)",
    /// "async file open".
    pub reason: &'static str,
    /// The error.
    pub error: Error,
}

/// The listeners' state behind the C++ listener: freed by `destroy_listener`.
type Listener = Arc<dyn EventListener>;

/// What C++ takes over for one listener.
pub(crate) fn to_raw(listener: Arc<dyn EventListener>) -> *mut c_void {
    Box::into_raw(Box::new(listener)).cast()
}

fn text(slice: &ffi::pinrocks_slice) -> &str {
    // SAFETY: RocksDB's string, valid for the event's call.
    let bytes = unsafe { value_slice(slice.data, slice.len) };
    std::str::from_utf8(bytes).unwrap_or("(not UTF-8)")
}

fn path_of(slice: &ffi::pinrocks_slice) -> &Path {
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

fn status(code: c_int, message: &ffi::pinrocks_slice) -> Result<(), Error> {
    if code == 0 {
        return Ok(());
    }
    Err(Error::from_code_and_message(code, text(message).to_owned()))
}

fn condition(raw: c_int) -> StallCondition {
    match raw {
        0 => StallCondition::Delayed,
        1 => StallCondition::Stopped,
        _ => StallCondition::Normal,
    }
}

/// One event from RocksDB (see `pinrocks_event_fn`).
pub(crate) extern "C" fn on_event(state: *mut c_void, event: c_int, info: *const c_void) {
    // SAFETY: `state` is the box of `to_raw`, live until `destroy_listener`.
    let listener: &Listener = unsafe { &*state.cast::<Listener>() };
    // A panic must not unwind into RocksDB: that event is lost, the next ones delivered.
    discard_panic(panic::catch_unwind(AssertUnwindSafe(|| {
        reentry::inside(reentry::EVENT_LISTENER, || {
            // SAFETY: `info` points to the struct `event` names (pinrocks.h), valid for the
            // call, and its slices to RocksDB's data, valid as long.
            unsafe { deliver(listener.as_ref(), event as u32, info) }
        })
    })));
}

/// Calls the listener's method for `event`.
///
/// # Safety
/// `info` must point to the struct pinrocks.h names for `event`, valid for the call.
unsafe fn deliver(listener: &dyn EventListener, event: u32, info: *const c_void) {
    match event {
        ffi::PINROCKS_EVENT_FLUSH_BEGIN | ffi::PINROCKS_EVENT_FLUSH_COMPLETED => {
            // SAFETY: the caller's contract.
            let raw = unsafe { &*info.cast::<ffi::pinrocks_flush_info>() };
            let info = FlushInfo {
                cf_name: text(&raw.cf_name),
                file_path: path_of(&raw.file_path),
                job_id: raw.job_id,
                smallest_seqno: raw.smallest_seqno,
                largest_seqno: raw.largest_seqno,
                triggered_writes_slowdown: raw.triggered_writes_slowdown != 0,
                triggered_writes_stop: raw.triggered_writes_stop != 0,
                reason: static_name(raw.reason),
            };
            if event == ffi::PINROCKS_EVENT_FLUSH_BEGIN {
                listener.on_flush_begin(&info);
            } else {
                listener.on_flush_completed(&info);
            }
        }
        ffi::PINROCKS_EVENT_COMPACTION_BEGIN | ffi::PINROCKS_EVENT_COMPACTION_COMPLETED => {
            // SAFETY: the caller's contract.
            let raw = unsafe { &*info.cast::<ffi::pinrocks_compaction_info>() };
            // SAFETY: arrays of `num_*` slices, valid for the call (or NULL when empty).
            let (inputs, outputs) = unsafe {
                (
                    slices(raw.input_files, raw.num_input_files),
                    slices(raw.output_files, raw.num_output_files),
                )
            };
            let info = CompactionInfo {
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
            };
            if event == ffi::PINROCKS_EVENT_COMPACTION_BEGIN {
                listener.on_compaction_begin(&info);
            } else {
                listener.on_compaction_completed(&info);
            }
        }
        ffi::PINROCKS_EVENT_STALL_CHANGED => {
            // SAFETY: the caller's contract.
            let raw = unsafe { &*info.cast::<ffi::pinrocks_stall_info>() };
            listener.on_stall_conditions_changed(&StallInfo {
                cf_name: text(&raw.cf_name),
                previous: condition(raw.previous),
                current: condition(raw.current),
            });
        }
        ffi::PINROCKS_EVENT_BACKGROUND_ERROR => {
            // SAFETY: the caller's contract.
            let raw = unsafe { &*info.cast::<ffi::pinrocks_error_info>() };
            let error = status(raw.status_code, &raw.status_message)
                .err()
                .unwrap_or_else(|| {
                    Error::from_code_and_message(ffi::PINROCKS_CODE_EXCEPTION as i32, String::new())
                });
            listener.on_background_error(&BackgroundErrorInfo {
                reason: background_reason(raw.reason),
                error,
            });
        }
        ffi::PINROCKS_EVENT_RECOVERY_END => {
            // SAFETY: the caller's contract.
            let raw = unsafe { &*info.cast::<ffi::pinrocks_error_info>() };
            let left = status(raw.status_code, &raw.status_message).err();
            listener.on_error_recovery_end(left.as_ref());
        }
        _ => {}
    }
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
unsafe fn slices<'a>(data: *const ffi::pinrocks_slice, len: usize) -> &'a [ffi::pinrocks_slice] {
    if len == 0 {
        return &[];
    }
    // SAFETY: the caller's contract.
    unsafe { std::slice::from_raw_parts(data, len) }
}

/// Frees the state of `to_raw`, once, when the last database and options using it are gone.
pub(crate) extern "C" fn destroy_listener(state: *mut c_void) {
    // SAFETY: the box of `to_raw`, freed once by the C++ listener's destructor.
    let state = unsafe { Box::from_raw(state.cast::<Listener>()) };
    drop_in_callback(state);
}

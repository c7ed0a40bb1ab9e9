//! RocksDB's info log (what it writes to `LOG`) delivered to Rust: to the `log` crate, or
//! to a closure (for `tracing` or anything else), instead of a file.

use std::ffi::{c_char, c_int, c_void};
use std::fmt;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Arc;

use crate::raw::pinned::value_slice;
use crate::raw::reentry;
use crate::raw::trampoline::{discard_panic, drop_in_callback};

/// The least severe message the info log (`LOG`) keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum LogLevel {
    /// Everything, debugging details included.
    Debug,
    /// Informational messages and worse (RocksDB's default in release builds).
    Info,
    /// Warnings and worse.
    Warn,
    /// Errors and worse.
    Error,
    /// Fatal errors only.
    Fatal,
    /// Only the header RocksDB writes at open (options, version).
    Header,
}

type LineFn = dyn Fn(LogLevel, &str) + Send + Sync;

/// Where the info log goes: set with [`Options::info_log`](crate::Options::info_log), and
/// databases opened with those options write no `LOG` file. Each line is delivered whole,
/// on the thread that logs, as RocksDB writes it (nothing is buffered, so nothing is lost
/// in a burst). Cheap to clone.
///
/// The function must not call into a database, nor drop one or anything of it (a snapshot,
/// a column family), nor wait for a lock that a thread calling into a database may hold:
/// RocksDB logs from inside its own work, often under its database mutex, and on the
/// thread of the call that logs (an open, a write, a flush). Reads, writes, properties and
/// file metadata from there are refused
/// ([`Error::InsideCallback`](crate::Error::InsideCallback)); taking or dropping a snapshot,
/// or dropping the last handle of a database, would wait for that mutex forever. Hand lines to a
/// channel or a logging framework, as [`InfoLog::to_log`] does. A panic drops that line;
/// later lines are delivered as before. RocksDB's trailing newline is taken off.
///
/// ```
/// use pinrocks::{Db, Options};
/// use pinrocks::callbacks::{InfoLog, LogLevel};
/// # fn main() -> pinrocks::Result<()> {
/// # let dir = tempfile::tempdir().unwrap();
/// let mut options = Options::new();
/// options
///     .create_if_missing(true)
///     .info_log(&InfoLog::to_log("rocksdb::orders"), LogLevel::Info);
/// let db = Db::open(&options, dir.path())?; // its lines go to `log`, target "rocksdb::orders"
/// assert!(!dir.path().join("LOG").exists());
/// # Ok(()) }
/// ```
///
/// A line is borrowed for the call only; keeping it does not compile:
///
/// ```compile_fail
/// use std::sync::Mutex;
/// use pinrocks::callbacks::InfoLog;
///
/// static LAST: Mutex<Option<&'static str>> = Mutex::new(None);
/// let log = InfoLog::new(|_, line| *LAST.lock().unwrap() = Some(line)); // error: escapes
/// ```
#[derive(Clone)]
pub struct InfoLog {
    line: Arc<LineFn>,
}

impl fmt::Debug for InfoLog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InfoLog").finish_non_exhaustive()
    }
}

impl InfoLog {
    /// Each line to the `log` crate under `target`, its level mapped: debug, info, warn
    /// and error as themselves, fatal as error, the header RocksDB writes at open (its
    /// version and options) as info.
    pub fn to_log(target: impl Into<String>) -> Self {
        let target = target.into();
        InfoLog::new(move |level, line| {
            let level = match level {
                LogLevel::Debug => log::Level::Debug,
                LogLevel::Info | LogLevel::Header => log::Level::Info,
                LogLevel::Warn => log::Level::Warn,
                LogLevel::Error | LogLevel::Fatal => log::Level::Error,
            };
            if log::log_enabled!(target: &target, level) {
                log::logger().log(
                    &log::Record::builder()
                        .args(format_args!("{line}"))
                        .level(level)
                        .target(&target)
                        .build(),
                );
            }
        })
    }

    /// Each line to `line`, with its level.
    pub fn new<F>(line: F) -> Self
    where
        F: Fn(LogLevel, &str) + Send + Sync + 'static,
    {
        InfoLog {
            line: Arc::new(line),
        }
    }

    /// What C++ takes over: the state (freed by `destroy_state`) and the line function.
    pub(crate) fn to_raw(&self) -> *mut c_void {
        Box::into_raw(Box::new(Arc::clone(&self.line))).cast()
    }
}

/// One line from RocksDB (see `pinrocks_log_fn`).
pub(crate) extern "C" fn log_line(
    state: *mut c_void,
    level: c_int,
    message: *const c_char,
    len: usize,
) {
    // SAFETY: `state` is the box of `to_raw`, live until `destroy_state`; the message is
    // RocksDB's, valid for the call.
    let (line, message) = unsafe { (&**state.cast::<Arc<LineFn>>(), value_slice(message, len)) };
    let level = match level {
        0 => LogLevel::Debug,
        1 => LogLevel::Info,
        2 => LogLevel::Warn,
        3 => LogLevel::Error,
        4 => LogLevel::Fatal,
        _ => LogLevel::Header,
    };
    // RocksDB ends most lines with a newline of its own.
    let message = message.strip_suffix(b"\n").unwrap_or(message);
    // A panic must not unwind into RocksDB: the line is dropped.
    discard_panic(panic::catch_unwind(AssertUnwindSafe(|| {
        reentry::inside(reentry::INFO_LOG, || {
            line(level, &String::from_utf8_lossy(message))
        })
    })));
}

/// Frees the state of `to_raw`, once, when the last database and options using it are gone.
pub(crate) extern "C" fn destroy_state(state: *mut c_void) {
    // SAFETY: the box of `to_raw`, freed once by the C++ logger's destructor.
    let state = unsafe { Box::from_raw(state.cast::<Arc<LineFn>>()) };
    drop_in_callback(state);
}

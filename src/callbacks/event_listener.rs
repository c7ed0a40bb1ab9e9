//! RocksDB's events (its `EventListener`) delivered to a Rust trait: flushes, compactions,
//! memtables sealed, table files created and deleted, ingests, write stalls, background
//! errors and the recovery from them, column family handles deleted, each with its data
//! borrowed from RocksDB for the call (`event_info.rs`).

use std::ffi::{c_int, c_void};
use std::panic::{self, AssertUnwindSafe};
use std::sync::Arc;

use crate::callbacks::event_info::{
    status, text, BackgroundErrorInfo, CompactionInfo, FlushInfo, IngestionInfo, MemtableInfo,
    RecoveryInfo, StallInfo, TableFileInfo,
};
use crate::raw::error::Error;
use crate::raw::ffi;
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
///
/// An event's data is borrowed for the call only; keeping it does not compile (copy what
/// you keep):
///
/// ```compile_fail
/// use std::sync::Mutex;
/// use pinrocks::{EventListener, FlushInfo};
///
/// struct Keeps(Mutex<Option<&'static str>>);
/// impl EventListener for Keeps {
///     fn on_flush_completed(&self, info: &FlushInfo<'_>) {
///         *self.0.lock().unwrap() = Some(info.cf_name); // error: borrowed data escapes
///     }
/// }
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
    /// A memtable became immutable (full, or a flush asked for it), on the thread of the
    /// write or flush that sealed it.
    fn on_memtable_sealed(&self, info: &MemtableInfo<'_>) {}
    /// A flush, a compaction or a recovery created an SST file (or failed to: `info.status`).
    fn on_table_file_created(&self, info: &TableFileInfo<'_>) {}
    /// An SST file was deleted (obsolete after a compaction, or a dropped family's).
    fn on_table_file_deleted(&self, info: &TableFileInfo<'_>) {}
    /// An external SST file was ingested, inside the ingest call.
    fn on_external_file_ingested(&self, info: &IngestionInfo<'_>) {}
    /// A column family's writes slowed down, stopped, or went back to normal. RocksDB
    /// notifies from the thread that made the change (a flush's, a compaction's), so two
    /// changes close together can arrive in either order: `info.previous` tells.
    fn on_stall_conditions_changed(&self, info: &StallInfo<'_>) {}
    /// A background error: writes may be stopped until it is cleared
    /// ([`Db::resume`](crate::Db::resume), or RocksDB's own recovery). The listener may
    /// suppress it or change its severity ([`BackgroundErrorInfo::suppress`]).
    fn on_background_error(&self, info: &BackgroundErrorInfo<'_>) {}
    /// RocksDB is starting its own recovery from a background error; the listener may stop
    /// it ([`RecoveryInfo::disable_auto_recovery`]).
    fn on_error_recovery_begin(&self, info: &RecoveryInfo<'_>) {}
    /// RocksDB's recovery from a background error ended, its own or a successful
    /// [`Db::resume`](crate::Db::resume) (inside that call): `error` is what is left
    /// (`None`: recovered, writes go on). A failed `resume` reports nothing here.
    fn on_error_recovery_end(&self, error: Option<&Error>) {}
    /// A column family handle is being deleted (a dropped family's, or the database
    /// closing), on the thread that drops it. At close "default" comes twice (pinrocks'
    /// handle and RocksDB's own), and RocksDB's internal families (statistics persisted
    /// to disk) come too.
    fn on_column_family_handle_deleted(&self, cf_name: &str) {}
}

/// The listeners' state behind the C++ listener: freed by `destroy_listener`.
type Listener = Arc<dyn EventListener>;

/// What C++ takes over for one listener.
pub(crate) fn to_raw(listener: Arc<dyn EventListener>) -> *mut c_void {
    Box::into_raw(Box::new(listener)).cast()
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
/// `info` must point to the struct pinrocks.h names for `event`, valid for the call, with
/// its views and arrays (and a choice, only this thread's during the call).
unsafe fn deliver(listener: &dyn EventListener, event: u32, info: *const c_void) {
    /// # Safety
    /// `info` points to a `T` valid for the call.
    unsafe fn raw<'a, T>(info: *const c_void) -> &'a T {
        // SAFETY: the caller's contract.
        unsafe { &*info.cast::<T>() }
    }
    // SAFETY: each `raw` reads the struct pinrocks.h names for `event`, and each
    // `from_raw` its views and choice, valid for the call: the caller's contract.
    unsafe {
        match event {
            ffi::PINROCKS_EVENT_FLUSH_BEGIN => {
                listener.on_flush_begin(&FlushInfo::from_raw(raw(info)))
            }
            ffi::PINROCKS_EVENT_FLUSH_COMPLETED => {
                listener.on_flush_completed(&FlushInfo::from_raw(raw(info)))
            }
            ffi::PINROCKS_EVENT_COMPACTION_BEGIN => {
                listener.on_compaction_begin(&CompactionInfo::from_raw(raw(info)))
            }
            ffi::PINROCKS_EVENT_COMPACTION_COMPLETED => {
                listener.on_compaction_completed(&CompactionInfo::from_raw(raw(info)))
            }
            ffi::PINROCKS_EVENT_MEMTABLE_SEALED => {
                listener.on_memtable_sealed(&MemtableInfo::from_raw(raw(info)))
            }
            ffi::PINROCKS_EVENT_TABLE_FILE_CREATED => {
                listener.on_table_file_created(&TableFileInfo::from_raw(raw(info)))
            }
            ffi::PINROCKS_EVENT_TABLE_FILE_DELETED => {
                listener.on_table_file_deleted(&TableFileInfo::from_raw(raw(info)))
            }
            ffi::PINROCKS_EVENT_FILE_INGESTED => {
                listener.on_external_file_ingested(&IngestionInfo::from_raw(raw(info)))
            }
            ffi::PINROCKS_EVENT_STALL_CHANGED => {
                listener.on_stall_conditions_changed(&StallInfo::from_raw(raw(info)))
            }
            ffi::PINROCKS_EVENT_BACKGROUND_ERROR => {
                listener.on_background_error(&BackgroundErrorInfo::from_raw(raw(info)))
            }
            ffi::PINROCKS_EVENT_RECOVERY_BEGIN => {
                if let Some(info) = RecoveryInfo::from_raw(raw(info)) {
                    listener.on_error_recovery_begin(&info);
                }
            }
            ffi::PINROCKS_EVENT_RECOVERY_END => {
                let raw: &ffi::pinrocks_error_info = raw(info);
                let left = status(raw.status_code, &raw.status_message).err();
                listener.on_error_recovery_end(left.as_ref());
            }
            ffi::PINROCKS_EVENT_CF_HANDLE_DELETED => {
                listener.on_column_family_handle_deleted(text(raw(info)))
            }
            _ => {}
        }
    }
}

/// Frees the state of `to_raw`, once, when the last database and options using it are gone.
pub(crate) extern "C" fn destroy_listener(state: *mut c_void) {
    // SAFETY: the box of `to_raw`, freed once by the C++ listener's destructor.
    let state = unsafe { Box::from_raw(state.cast::<Listener>()) };
    drop_in_callback(state);
}

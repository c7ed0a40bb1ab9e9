//! RocksDB's events (its `EventListener`) delivered to a Rust trait: flushes, compactions,
//! memtables sealed, table files created and deleted, ingests, write stalls, background
//! errors and the recovery from them, column family handles deleted, each with its data
//! borrowed from RocksDB for the call (`event_info.rs`).
//!
//! Every event is written once, in the `events!` list below: it makes the trait's method,
//! the [`Events`] flag, the typed function C++ calls (whose pointer type bindgen takes from
//! `PINROCKS_EVENTS` in pinrocks.h, so an event handed the wrong struct does not compile)
//! and the table a listener hands RocksDB, with no function for an event it does not want.

use std::ffi::c_void;
use std::ops::BitOr;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Arc;

use crate::callbacks::event_info::{
    status, text, BackgroundErrorInfo, CompactionInfo, FlushInfo, IngestionInfo, MemtableInfo,
    RecoveryInfo, StallInfo, TableFileInfo,
};
use crate::raw::c_types::{
    pinrocks_compaction_info, pinrocks_error_info, pinrocks_events, pinrocks_flush_info,
    pinrocks_ingestion_info, pinrocks_memtable_info, pinrocks_slice, pinrocks_stall_info,
    pinrocks_table_file_info,
};
use crate::raw::error::Error;
use crate::raw::reentry;
use crate::raw::trampoline::{discard_panic, drop_in_callback};

/// Which events a listener wants ([`EventListener::events`]): RocksDB's listener calls into
/// Rust for these only, and builds nothing for the others. Flags combine with `|`.
///
/// ```
/// use pinrocks::callbacks::Events;
/// let flushes = Events::FLUSH_BEGIN | Events::FLUSH_COMPLETED;
/// assert!(flushes.contains(Events::FLUSH_COMPLETED));
/// assert!(!flushes.contains(Events::COMPACTION_COMPLETED));
/// assert!(Events::ALL.contains(flushes));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Events(u16);

impl Events {
    /// No event.
    pub const NONE: Events = Events(0);

    /// Whether every event of `other` is in `self`.
    pub const fn contains(self, other: Events) -> bool {
        self.0 & other.0 == other.0
    }
}

impl BitOr for Events {
    type Output = Events;
    fn bitor(self, other: Events) -> Events {
        Events(self.0 | other.0)
    }
}

/// The one list of events: `FLAG = bit: method(argument) <- the struct pinrocks.h hands it
/// => the delivery`, the method's docs above it.
macro_rules! events {
    (
        $(#[$trait_doc:meta])*
        pub trait EventListener {
            $(#[$events_doc:meta])*
            fn events;
            $(
                $(#[$doc:meta])*
                $flag:ident = $bit:literal:
                fn $method:ident(&self, $arg:ident: $arg_ty:ty)
                    <- $raw_ty:ty => |$listener:ident, $raw:ident| $deliver:expr;
            )*
        }
    ) => {
        $(#[$trait_doc])*
        #[allow(unused_variables)]
        pub trait EventListener: Send + Sync + 'static {
            $(#[$events_doc])*
            fn events(&self) -> Events {
                Events::ALL
            }
            $(
                $(#[$doc])*
                fn $method(&self, $arg: $arg_ty) {}
            )*
        }

        impl Events {
            $(
                #[doc = concat!("[`EventListener::", stringify!($method), "`].")]
                pub const $flag: Events = Events(1 << $bit);
            )*
            /// Every event.
            pub const ALL: Events = Events(0 $(| 1 << $bit)*);
        }

        /// The function C++ calls for each event, typed by its struct.
        mod deliveries {
            use super::*;
            $(
                pub(super) extern "C" fn $method(state: *mut c_void, event: *const $raw_ty) {
                    deliver(state, |$listener| {
                        // SAFETY: C++ hands this event's own struct (the pointer's type is
                        // the field's of pinrocks_events), its views, arrays and choice
                        // valid and only this thread's for the call: what each `from_raw`
                        // asks.
                        unsafe {
                            let $raw: &$raw_ty = &*event;
                            $deliver
                        }
                    })
                }
            )*
        }

        /// The table of functions for the events `wanted`.
        fn table(wanted: Events) -> pinrocks_events {
            pinrocks_events {
                $(
                    $method: if wanted.contains(Events::$flag) {
                        Some(deliveries::$method)
                    } else {
                        None
                    },
                )*
            }
        }
    };
}

events! {
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
/// use pinrocks::{Db, Options};
/// use pinrocks::callbacks::{EventListener, FlushInfo};
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
/// use pinrocks::callbacks::{EventListener, FlushInfo};
///
/// struct Keeps(Mutex<Option<&'static str>>);
/// impl EventListener for Keeps {
///     fn on_flush_completed(&self, info: &FlushInfo<'_>) {
///         *self.0.lock().unwrap() = Some(info.cf_name); // error: borrowed data escapes
///     }
/// }
/// ```
pub trait EventListener {
    /// The events this listener wants, asked once when it is added: RocksDB calls it for
    /// those only (all by default). A method overridden for an event left out is not called.
    fn events;
    /// A flush is about to write a memtable to an SST file.
    FLUSH_BEGIN = 0: fn on_flush_begin(&self, info: &FlushInfo<'_>)
        <- pinrocks_flush_info => |l, raw| l.on_flush_begin(&FlushInfo::from_raw(raw));
    /// A flush wrote its SST file (`info.file_path`).
    FLUSH_COMPLETED = 1: fn on_flush_completed(&self, info: &FlushInfo<'_>)
        <- pinrocks_flush_info => |l, raw| l.on_flush_completed(&FlushInfo::from_raw(raw));
    /// A compaction is about to start.
    COMPACTION_BEGIN = 2: fn on_compaction_begin(&self, info: &CompactionInfo<'_>)
        <- pinrocks_compaction_info
        => |l, raw| l.on_compaction_begin(&CompactionInfo::from_raw(raw));
    /// A compaction finished (successfully or not: `info.status`).
    COMPACTION_COMPLETED = 3: fn on_compaction_completed(&self, info: &CompactionInfo<'_>)
        <- pinrocks_compaction_info
        => |l, raw| l.on_compaction_completed(&CompactionInfo::from_raw(raw));
    /// A memtable became immutable (full, or a flush asked for it), on the thread of the
    /// write or flush that sealed it.
    MEMTABLE_SEALED = 4: fn on_memtable_sealed(&self, info: &MemtableInfo<'_>)
        <- pinrocks_memtable_info
        => |l, raw| l.on_memtable_sealed(&MemtableInfo::from_raw(raw));
    /// A flush, a compaction or a recovery created an SST file (or failed to: `info.status`).
    TABLE_FILE_CREATED = 5: fn on_table_file_created(&self, info: &TableFileInfo<'_>)
        <- pinrocks_table_file_info
        => |l, raw| l.on_table_file_created(&TableFileInfo::from_raw(raw));
    /// An SST file was deleted (obsolete after a compaction, or a dropped family's).
    TABLE_FILE_DELETED = 6: fn on_table_file_deleted(&self, info: &TableFileInfo<'_>)
        <- pinrocks_table_file_info
        => |l, raw| l.on_table_file_deleted(&TableFileInfo::from_raw(raw));
    /// An external SST file was ingested, inside the ingest call.
    FILE_INGESTED = 7: fn on_external_file_ingested(&self, info: &IngestionInfo<'_>)
        <- pinrocks_ingestion_info
        => |l, raw| l.on_external_file_ingested(&IngestionInfo::from_raw(raw));
    /// A column family's writes slowed down, stopped, or went back to normal. RocksDB
    /// notifies from the thread that made the change (a flush's, a compaction's), so two
    /// changes close together can arrive in either order: `info.previous` tells.
    STALL_CONDITIONS_CHANGED = 8: fn on_stall_conditions_changed(&self, info: &StallInfo<'_>)
        <- pinrocks_stall_info
        => |l, raw| l.on_stall_conditions_changed(&StallInfo::from_raw(raw));
    /// A background error: writes may be stopped until it is cleared
    /// ([`Db::resume`](crate::Db::resume), or RocksDB's own recovery). The listener may
    /// suppress it or change its severity ([`BackgroundErrorInfo::suppress`]).
    BACKGROUND_ERROR = 9: fn on_background_error(&self, info: &BackgroundErrorInfo<'_>)
        <- pinrocks_error_info
        => |l, raw| l.on_background_error(&BackgroundErrorInfo::from_raw(raw));
    /// RocksDB is starting its own recovery from a background error; the listener may stop
    /// it ([`RecoveryInfo::disable_auto_recovery`]).
    ERROR_RECOVERY_BEGIN = 10: fn on_error_recovery_begin(&self, info: &RecoveryInfo<'_>)
        <- pinrocks_error_info
        => |l, raw| {
            if let Some(info) = RecoveryInfo::from_raw(raw) {
                l.on_error_recovery_begin(&info);
            }
        };
    /// RocksDB's recovery from a background error ended, its own or a successful
    /// [`Db::resume`](crate::Db::resume) (inside that call): `error` is what is left
    /// (`None`: recovered, writes go on). A failed `resume` reports nothing here.
    ERROR_RECOVERY_END = 11: fn on_error_recovery_end(&self, error: Option<&Error>)
        <- pinrocks_error_info
        => |l, raw| {
            let left = status(raw.status_code, &raw.status_message).err();
            l.on_error_recovery_end(left.as_ref());
        };
    /// A column family handle is being deleted (a dropped family's, or the database
    /// closing), on the thread that drops it. At close "default" comes twice (pinrocks'
    /// handle and RocksDB's own), and RocksDB's internal families (statistics persisted
    /// to disk) come too.
    COLUMN_FAMILY_HANDLE_DELETED = 12: fn on_column_family_handle_deleted(&self, cf_name: &str)
        <- pinrocks_slice => |l, raw| l.on_column_family_handle_deleted(text(raw));
}
}

/// The listeners' state behind the C++ listener: freed by `destroy_listener`.
type Listener = Arc<dyn EventListener>;

/// What C++ takes over for one listener: its state, and the table of the events it wants
/// (asked once).
pub(crate) fn to_raw(listener: Arc<dyn EventListener>) -> (*mut c_void, pinrocks_events) {
    let events = table(listener.events());
    (Box::into_raw(Box::new(listener)).cast(), events)
}

/// Runs one event's delivery for the listener behind `state`: a panic must not unwind into
/// RocksDB (that event is lost, the next ones delivered), and the database may not be
/// called from inside.
fn deliver(state: *mut c_void, delivery: impl FnOnce(&dyn EventListener)) {
    // SAFETY: `state` is the box of `to_raw`, live until `destroy_listener`.
    let listener: &Listener = unsafe { &*state.cast::<Listener>() };
    discard_panic(panic::catch_unwind(AssertUnwindSafe(|| {
        reentry::inside(reentry::EVENT_LISTENER, || delivery(listener.as_ref()))
    })));
}

/// Frees the state of `to_raw`, once, when the last database and options using it are gone.
pub(crate) extern "C" fn destroy_listener(state: *mut c_void) {
    // SAFETY: the box of `to_raw`, freed once by the C++ listener's destructor.
    let state = unsafe { Box::from_raw(state.cast::<Listener>()) };
    drop_in_callback(state);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One flag per field of pinrocks.h's table, each wanted field a function and each
    /// other NULL.
    #[test]
    fn the_table_has_a_function_for_each_wanted_event_only() {
        let fields = std::mem::size_of::<pinrocks_events>() / std::mem::size_of::<usize>();
        assert_eq!(fields, 13);
        assert_eq!(Events::ALL.0.count_ones() as usize, fields);
        let as_words = |table: pinrocks_events| -> Vec<usize> {
            // SAFETY: a struct of `fields` optional function pointers, each one word
            // (None is 0), read as words.
            unsafe { std::mem::transmute::<pinrocks_events, [usize; 13]>(table) }.to_vec()
        };
        assert!(as_words(table(Events::ALL)).iter().all(|&f| f != 0));
        assert!(as_words(table(Events::NONE)).iter().all(|&f| f == 0));
        let flushes = as_words(table(Events::FLUSH_BEGIN | Events::FLUSH_COMPLETED));
        assert_eq!(flushes.iter().filter(|&&f| f != 0).count(), 2);
        assert_eq!(flushes[0], deliveries::on_flush_begin as *const () as usize);
        assert_eq!(
            flushes[1],
            deliveries::on_flush_completed as *const () as usize
        );
    }
}

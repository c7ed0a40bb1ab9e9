//! Table-properties collectors: user code that sees every entry a flush or compaction writes
//! into an SST file and leaves properties of its own in the file (counts, key ranges, a
//! sketch), read back with [`ColumnFamily::table_properties`](crate::ColumnFamily::table_properties).
//! A panic is caught: that entry, or that file's properties, are left out.

use std::ffi::{c_char, c_int, c_void, CString};
use std::fmt;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Arc;

use crate::callbacks::merge::c_name;
use crate::raw::c_types::{
    pinrocks_collector_add_fn, pinrocks_collector_finish_fn, pinrocks_create_collector_fn,
    pinrocks_destroy_fn,
};
use crate::raw::pinned::value_slice;
use crate::raw::reentry;
use crate::raw::table_properties::put_user_property;
use crate::raw::trampoline::{discard_panic, drop_in_callback};

/// What an entry of an SST file is (RocksDB's `EntryType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum EntryKind {
    /// A value.
    Put,
    /// A point deletion.
    Delete,
    /// A single deletion.
    SingleDelete,
    /// A merge operand.
    Merge,
    /// A range deletion (its key is the range's start, its value the end).
    RangeDeletion,
    /// A reference to a value in a blob file.
    BlobIndex,
    /// A deletion with a timestamp.
    DeleteWithTimestamp,
    /// A wide-column entity (its value is the serialized entity).
    Entity,
    /// A value with its write time (`TimedPut`).
    TimedPut,
    /// Any other.
    Other,
}

impl EntryKind {
    fn from_raw(kind: c_int) -> EntryKind {
        // RocksDB's EntryType, in its order (include/rocksdb/types.h).
        match kind {
            0 => EntryKind::Put,
            1 => EntryKind::Delete,
            2 => EntryKind::SingleDelete,
            3 => EntryKind::Merge,
            4 => EntryKind::RangeDeletion,
            5 => EntryKind::BlobIndex,
            6 => EntryKind::DeleteWithTimestamp,
            7 => EntryKind::Entity,
            8 => EntryKind::TimedPut,
            _ => EntryKind::Other,
        }
    }
}

/// The collector of one SST file: sees its entries in order, on the one thread that writes
/// the file, then says what to store.
pub trait TablePropertiesCollector: Send {
    /// One entry, in the file's order.
    fn add(&mut self, key: &[u8], value: &[u8], kind: EntryKind);

    /// The properties to store in the file, by name (names should start with the
    /// collector's own prefix: every collector of the family writes into one map). Names
    /// starting with `rocksdb.` are RocksDB's, some read back when the file opens: left out.
    fn finish(&mut self) -> Vec<(String, Vec<u8>)>;
}

type Create = dyn Fn(u32) -> Option<Box<dyn TablePropertiesCollector>> + Send + Sync;

struct Factory {
    name: CString,
    create: Box<Create>,
}

/// Makes a [`TablePropertiesCollector`] for each SST file a flush or compaction writes
/// (called from several at once). Give it to
/// [`Options::table_properties_collector`](crate::Options::table_properties_collector).
///
/// ```
/// use pinrocks::callbacks::{EntryKind, TablePropertiesCollector, TablePropertiesCollectorFactory};
///
/// struct Deletes(u64);
/// impl TablePropertiesCollector for Deletes {
///     fn add(&mut self, _key: &[u8], _value: &[u8], kind: EntryKind) {
///         if kind == EntryKind::Delete {
///             self.0 += 1;
///         }
///     }
///     fn finish(&mut self) -> Vec<(String, Vec<u8>)> {
///         vec![("app.deletes".into(), self.0.to_le_bytes().to_vec())]
///     }
/// }
///
/// # fn main() -> pinrocks::Result<()> {
/// # let dir = tempfile::tempdir().unwrap();
/// let mut options = pinrocks::Options::new();
/// options.create_if_missing(true);
/// options.table_properties_collector(&TablePropertiesCollectorFactory::new("deletes", |_| {
///     Some(Deletes(0))
/// }));
/// let db = pinrocks::Db::open(&options, dir.path())?;
/// db.put(b"a", b"1")?;
/// db.delete(b"b")?;
/// db.flush()?;
/// let files = db.default_cf().table_properties()?;
/// assert_eq!(files[0].user["app.deletes"], 1u64.to_le_bytes());
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct TablePropertiesCollectorFactory {
    factory: Arc<Factory>,
}

impl fmt::Debug for TablePropertiesCollectorFactory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TablePropertiesCollectorFactory")
            .field("name", &self.factory.name)
            .finish_non_exhaustive()
    }
}

impl TablePropertiesCollectorFactory {
    /// A factory named `name` (in RocksDB's LOG and OPTIONS file; cut at a NUL byte) that
    /// makes a collector with `create(column_family_id)`, or none for that file.
    pub fn new<C, F>(name: &str, create: F) -> Self
    where
        C: TablePropertiesCollector + 'static,
        F: Fn(u32) -> Option<C> + Send + Sync + 'static,
    {
        TablePropertiesCollectorFactory {
            factory: Arc::new(Factory {
                name: c_name(name),
                create: Box::new(move |family| {
                    create(family).map(|c| Box::new(c) as Box<dyn TablePropertiesCollector>)
                }),
            }),
        }
    }

    /// The factory's name.
    pub fn name(&self) -> &str {
        self.factory.name.to_str().unwrap_or("(not UTF-8)")
    }

    /// Hands a new reference to the factory to `set`, the C++ factory's constructor, which
    /// owns it from then on.
    pub(crate) fn install(
        &self,
        set: impl FnOnce(
            *const c_char,
            *mut c_void,
            pinrocks_create_collector_fn,
            pinrocks_collector_add_fn,
            pinrocks_collector_finish_fn,
            pinrocks_destroy_fn,
            pinrocks_destroy_fn,
        ),
    ) {
        let state = Box::into_raw(Box::new(Arc::clone(&self.factory))).cast::<c_void>();
        set(
            self.factory.name.as_ptr(),
            state,
            Some(create_collector),
            Some(add_entry),
            Some(finish_file),
            Some(destroy_collector),
            Some(destroy_factory),
        );
    }
}

/// The prefix of RocksDB's own properties, which collectors may not write.
const RESERVED: &str = "rocksdb.";

/// Where the callbacks run, for the calls refused inside them.
const COLLECTOR: &str = "table properties collector";

extern "C" fn destroy_factory(state: *mut c_void) {
    // SAFETY: the box made by `install`, freed once by the C++ factory's destructor.
    let factory = unsafe { Box::from_raw(state.cast::<Arc<Factory>>()) };
    drop_in_callback(factory);
}

extern "C" fn destroy_collector(collector: *mut c_void) {
    // SAFETY: a box made by `create_collector`, freed once by the C++ collector's destructor.
    let collector = unsafe { Box::from_raw(collector.cast::<Box<dyn TablePropertiesCollector>>()) };
    discard_panic(panic::catch_unwind(AssertUnwindSafe(move || {
        reentry::inside(COLLECTOR, || drop(collector))
    })));
}

extern "C" fn create_collector(state: *mut c_void, column_family_id: u32) -> *mut c_void {
    // SAFETY: the C++ factory passes its live state.
    let factory = unsafe { &*state.cast::<Arc<Factory>>() };
    match panic::catch_unwind(AssertUnwindSafe(|| {
        reentry::inside(COLLECTOR, || (factory.create)(column_family_id))
    })) {
        Ok(Some(collector)) => Box::into_raw(Box::new(collector)).cast(),
        Ok(None) | Err(_) => std::ptr::null_mut(),
    }
}

extern "C" fn add_entry(
    collector: *mut c_void,
    key: *const c_char,
    keylen: usize,
    value: *const c_char,
    valuelen: usize,
    kind: c_int,
) {
    // SAFETY: the box `create_collector` made, used by the one thread writing its file, so
    // `&mut` is exclusive; key and value are RocksDB's for this call.
    let (collector, key, value) = unsafe {
        (
            &mut *collector.cast::<Box<dyn TablePropertiesCollector>>(),
            value_slice(key, keylen),
            value_slice(value, valuelen),
        )
    };
    let kind = EntryKind::from_raw(kind);
    discard_panic(panic::catch_unwind(AssertUnwindSafe(|| {
        reentry::inside(COLLECTOR, || collector.add(key, value, kind))
    })));
}

extern "C" fn finish_file(collector: *mut c_void, properties: *mut c_void) {
    // SAFETY: as in `add_entry`; `properties` is RocksDB's map for this call.
    let collector = unsafe { &mut *collector.cast::<Box<dyn TablePropertiesCollector>>() };
    let finished = panic::catch_unwind(AssertUnwindSafe(|| {
        reentry::inside(COLLECTOR, || collector.finish())
    }));
    let Ok(pairs) = finished else {
        return discard_panic(finished);
    };
    // RocksDB reads some of its own `rocksdb.*` properties back when it opens the file (a
    // global sequence number, the index type), and keeps the first value given for a name:
    // a collector's would make the file unreadable. Left out.
    for (name, value) in pairs.iter().filter(|(name, _)| !name.starts_with(RESERVED)) {
        // SAFETY: the map RocksDB handed this call; a property that cannot be allocated is
        // left out (there is no one to tell).
        unsafe { put_user_property(properties, name.as_bytes(), value) };
    }
    drop_in_callback(pairs);
}

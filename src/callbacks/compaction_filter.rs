//! Compaction filters: user code that sees each value a compaction rewrites and keeps it,
//! removes it, or changes it (expiry by content, garbage collection, migrations).

use std::borrow::Borrow;
use std::ffi::{c_char, c_int, c_void, CString};
use std::fmt;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Arc;

use crate::callbacks::merge::c_name;
use crate::codec::Codec;
use crate::raw::c_consts::filter;
use crate::raw::c_types::{
    pinrocks_compaction_context, pinrocks_create_filter_fn, pinrocks_destroy_fn, pinrocks_filter_fn,
};
use crate::raw::new_value::NewValue;
use crate::raw::pinned::value_slice;
use crate::raw::reentry;
use crate::raw::trampoline::{discard_panic, drop_in_callback};

/// What a filter does with one entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Keep it as it is.
    Keep,
    /// Remove it (RocksDB writes a deletion in its place, hiding older versions).
    Remove,
    /// Keep it with the value written into the filter's [`NewValue`].
    Change,
}

/// What a typed filter does with one entry: [`Decision`] with the new value as a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TypedDecision<T> {
    /// Keep it as it is.
    Keep,
    /// Remove it.
    Remove,
    /// Keep it with this value, encoded by the value codec.
    Change(T),
}

/// What the factory learns about the compaction it makes a filter for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct CompactionContext {
    /// The compaction reads every file of the column family.
    pub is_full_compaction: bool,
    /// The compaction was asked for (`compact_range`), not started by RocksDB.
    pub is_manual_compaction: bool,
    /// The lowest level it reads from, if known.
    pub input_start_level: Option<u32>,
    /// The column family it compacts ([`ColumnFamily::id`](crate::ColumnFamily::id)).
    pub column_family_id: u32,
}

/// The filter of one compaction: decides on each value in turn, on one thread.
pub trait CompactionFilter: Send {
    /// Decides on `key`'s `value` at `level`. For [`Decision::Change`], write the new value
    /// into `new_value` first.
    fn filter(
        &mut self,
        level: u32,
        key: &[u8],
        value: &[u8],
        new_value: &mut NewValue<'_>,
    ) -> Decision;
}

impl<F> CompactionFilter for F
where
    F: FnMut(u32, &[u8], &[u8], &mut NewValue<'_>) -> Decision + Send,
{
    fn filter(
        &mut self,
        level: u32,
        key: &[u8],
        value: &[u8],
        new_value: &mut NewValue<'_>,
    ) -> Decision {
        self(level, key, value, new_value)
    }
}

type CreateFn = dyn Fn(&CompactionContext) -> Option<Box<dyn CompactionFilter>> + Send + Sync;

struct Factory {
    name: CString,
    create: Box<CreateFn>,
}

/// Makes a [`CompactionFilter`] for each compaction. Cheap to clone; one factory may be set
/// on many options.
///
/// Compaction filters: user code that sees each value a compaction rewrites and keeps it,
/// removes it, or changes it (expiry by content, garbage collection, migrations).
///
/// A [`CompactionFilterFactory`] makes one filter per compaction, told about the compaction
/// ([`CompactionContext`]); that filter runs on the compaction's thread only, so it may keep
/// mutable state (`Send`, not `Sync`). The factory is shared by every compaction at once
/// (`Send + Sync + 'static`), owned by the options, freed with the last column family that
/// uses it. Keys and values are RocksDB's bytes, borrowed; a changed value is written into
/// RocksDB's string in place ([`NewValue`]).
///
/// Filters see plain values written by `put` (and merge results), not deletions or merge
/// operands, and only in compactions, not flushes (RocksDB's default). Entries that a live
/// snapshot can still see are filtered anyway (RocksDB ignores snapshots for filters).
/// A filter must be idempotent: an entry meets it again in every later compaction. And it
/// sees only files a compaction rewrites: an automatic compaction may move a file to
/// another level as it is (a trivial move), and a `compact_range` running beside it did
/// not rewrite such a file in our tests, so entries can wait for a later compaction
/// (`tests/callbacks/compaction_filter.rs` disables automatic compactions where it needs every entry
/// filtered by one `compact_range`).
///
/// A filter must not own the last handle to a database: dropped on a compaction thread,
/// closing the database would wait for that very compaction to end, forever.
///
/// A filter that panics keeps the entry (and the panic is not seen again: the entry is as
/// it was); a factory that panics makes no filter, so that compaction keeps everything.
///
/// ```
/// use pinrocks::codec::{BigEndian, Utf8};
/// use pinrocks::{Db, Options};
/// use pinrocks::callbacks::{CompactionFilterFactory, TypedDecision};
/// # fn main() -> pinrocks::Result<()> {
/// # let dir = tempfile::tempdir().unwrap();
/// // Values are expiry times; compactions drop what expired before 100.
/// let expiry = CompactionFilterFactory::typed::<Utf8, BigEndian<u64>>("expiry", |_key, expires| {
///     if expires < 100 { TypedDecision::Remove } else { TypedDecision::Keep }
/// });
/// let mut options = Options::new();
/// options.create_if_missing(true).compaction_filter(&expiry);
/// let db = Db::open(&options, dir.path())?;
/// db.put(b"old", &50u64.to_be_bytes())?;
/// db.put(b"new", &500u64.to_be_bytes())?;
/// db.compact_range(None, None)?;
/// assert_eq!(db.get(b"old")?, None);
/// assert!(db.get(b"new")?.is_some());
/// # Ok(()) }
/// ```
///
/// The key and value are RocksDB's memory for the call only: keeping one does not compile.
///
/// ```compile_fail
/// use pinrocks::callbacks::{CompactionFilterFactory, Decision};
/// use std::sync::Mutex;
/// static KEPT: Mutex<Option<&'static [u8]>> = Mutex::new(None);
/// let f = CompactionFilterFactory::from_fn("leak", |_level, key, _value, _new| {
///     *KEPT.lock().unwrap() = Some(key); // error: borrowed data escapes
///     Decision::Keep
/// });
/// ```
///
/// What a filter may do: it runs on a compaction thread of RocksDB's, inside the
/// compaction. Reading the database works; a write, flush, compaction, wait for
/// compactions, checkpoint, column family change or transaction commit from there could
/// wait for the very compaction running it, so pinrocks refuses each
/// ([`Error::InsideCallback`](crate::Error::InsideCallback)). If the filter's state holds the
/// last owner of the database (a `Bytes`, a `Snapshot`), the close it triggers runs on a
/// thread of its own.
#[derive(Clone)]
pub struct CompactionFilterFactory {
    factory: Arc<Factory>,
}

impl fmt::Debug for CompactionFilterFactory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CompactionFilterFactory")
            .field("name", &self.factory.name)
            .finish()
    }
}

impl CompactionFilterFactory {
    /// A factory: `create` makes the filter for one compaction, or `None` for no filtering
    /// in it. A name with a NUL byte is cut at it.
    pub fn new<F, C>(name: &str, create: C) -> Self
    where
        F: CompactionFilter + 'static,
        C: Fn(&CompactionContext) -> Option<F> + Send + Sync + 'static,
    {
        CompactionFilterFactory {
            factory: Arc::new(Factory {
                name: c_name(name),
                create: Box::new(move |ctx| {
                    create(ctx).map(|f| Box::new(f) as Box<dyn CompactionFilter>)
                }),
            }),
        }
    }

    /// One stateless filter for every compaction (called from several at once).
    pub fn from_fn<F>(name: &str, filter: F) -> Self
    where
        F: Fn(u32, &[u8], &[u8], &mut NewValue<'_>) -> Decision + Send + Sync + 'static,
    {
        let filter = Arc::new(filter);
        CompactionFilterFactory::new(name, move |_| {
            let filter = Arc::clone(&filter);
            Some(
                move |level: u32, key: &[u8], value: &[u8], out: &mut NewValue<'_>| {
                    filter(level, key, value, out)
                },
            )
        })
    }

    /// A filter over typed keys and values: `f(key, value)` decides; a changed value is
    /// encoded by `V`. An entry whose key or value does not decode is kept.
    pub fn typed<K, V>(
        name: &str,
        f: impl Fn(K::Decoded<'_>, V::Decoded<'_>) -> TypedDecision<V::Owned> + Send + Sync + 'static,
    ) -> Self
    where
        K: Codec + 'static,
        V: Codec + 'static,
        V::Owned: Borrow<V::Item<'static>>,
    {
        CompactionFilterFactory::from_fn(name, move |_level, key, value, out| {
            // The value through `with_decoded`, as every typed read takes it.
            let decided = V::with_decoded(value, |value| K::decode(key).map(|key| f(key, value)));
            let Ok(Ok(decided)) = decided else {
                return Decision::Keep;
            };
            match decided {
                TypedDecision::Keep => Decision::Keep,
                TypedDecision::Remove => Decision::Remove,
                TypedDecision::Change(new) => {
                    match V::with_encoded(new.borrow(), |bytes| out.set(bytes)) {
                        Ok(Ok(())) => Decision::Change,
                        // Not encodable, or no memory for it: keep the entry as it is.
                        _ => Decision::Keep,
                    }
                }
            }
        })
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
            pinrocks_create_filter_fn,
            pinrocks_filter_fn,
            pinrocks_destroy_fn,
            pinrocks_destroy_fn,
        ),
    ) {
        let state = Box::into_raw(Box::new(Arc::clone(&self.factory))).cast::<c_void>();
        set(
            self.factory.name.as_ptr(),
            state,
            Some(create_filter),
            Some(filter_entry),
            Some(destroy_filter),
            Some(destroy_factory),
        );
    }
}

extern "C" fn destroy_factory(state: *mut c_void) {
    // SAFETY: the box made by `install`, freed once by the C++ factory's destructor.
    let factory = unsafe { Box::from_raw(state.cast::<Arc<Factory>>()) };
    // A panic in a destructor of the user's must not unwind into C++.
    drop_in_callback(factory);
}

extern "C" fn destroy_filter(filter: *mut c_void) {
    // SAFETY: a box made by `create_filter`, freed once by the C++ filter's destructor.
    let filter = unsafe { Box::from_raw(filter.cast::<Box<dyn CompactionFilter>>()) };
    discard_panic(panic::catch_unwind(AssertUnwindSafe(move || {
        reentry::inside("compaction filter", || drop(filter))
    })));
}

extern "C" fn create_filter(
    state: *mut c_void,
    ctx: *const pinrocks_compaction_context,
) -> *mut c_void {
    // SAFETY: the C++ factory passes its live state and a context valid for the call.
    let (factory, ctx) = unsafe { (&*state.cast::<Arc<Factory>>(), &*ctx) };
    let context = CompactionContext {
        is_full_compaction: ctx.is_full_compaction != 0,
        is_manual_compaction: ctx.is_manual_compaction != 0,
        input_start_level: u32::try_from(ctx.input_start_level).ok(),
        column_family_id: ctx.column_family_id,
    };
    match panic::catch_unwind(AssertUnwindSafe(|| {
        reentry::inside("compaction filter factory", || (factory.create)(&context))
    })) {
        Ok(Some(filter)) => Box::into_raw(Box::new(filter)).cast(),
        Ok(None) | Err(_) => std::ptr::null_mut(),
    }
}

extern "C" fn filter_entry(
    filter: *mut c_void,
    level: c_int,
    key: *const c_char,
    keylen: usize,
    value: *const c_char,
    valuelen: usize,
    new_value: *mut c_void,
) -> c_int {
    // SAFETY: the filter is the box `create_filter` made, used by its compaction's thread
    // only (RocksDB's contract for factory-made filters), so `&mut` is exclusive; key,
    // value and the result string are RocksDB's for this call.
    let (filter, key, value, mut out) = unsafe {
        (
            &mut *filter.cast::<Box<dyn CompactionFilter>>(),
            value_slice(key, keylen),
            value_slice(value, valuelen),
            NewValue::new(new_value),
        )
    };
    let level = u32::try_from(level).unwrap_or(0);
    let decision = panic::catch_unwind(AssertUnwindSafe(|| {
        reentry::inside("compaction filter", || {
            filter.filter(level, key, value, &mut out)
        })
    }));
    (match decision {
        Ok(Decision::Remove) => filter::REMOVE,
        Ok(Decision::Change) => filter::CHANGE,
        Ok(Decision::Keep) | Err(_) => filter::KEEP,
    }) as c_int
}

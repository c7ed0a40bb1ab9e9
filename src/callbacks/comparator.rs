//! Comparators: the order of a column family's keys, when it is not RocksDB's bytewise one.

use std::cmp::Ordering;
use std::ffi::{c_char, c_int, c_void, CString};
use std::fmt;
use std::panic::{self, AssertUnwindSafe};
use std::ptr::NonNull;
use std::sync::Arc;

use crate::callbacks::merge::c_name;
use crate::codec::Codec;
use crate::raw::callback_objects::{ComparatorHandle, ComparatorPtr};
use crate::raw::error::panic_message;
use crate::raw::pinned::value_slice;
use crate::raw::reentry;
use crate::raw::trampoline::drop_in_callback;

type CompareFn = dyn Fn(&[u8], &[u8]) -> Ordering + Send + Sync;

struct Order {
    name: CString,
    compare: Box<CompareFn>,
}

/// Owns the C API comparator, which owns the `Order` (freed by `destroy_order`).
struct RawComparator {
    raw: ComparatorHandle,
    /// Points into the state `raw` owns; valid while `raw` lives.
    order: NonNull<Order>,
}

// SAFETY: `rocksdb_comparator_t` is immutable after creation (its callbacks and state), and
// the `Order` it calls is `Send + Sync`; RocksDB calls it from any thread.
unsafe impl Send for RawComparator {}
// SAFETY: see `Send`.
unsafe impl Sync for RawComparator {}

/// A key order for column families. Cheap to clone.
///
/// Comparators: the order of a column family's keys, when it is not RocksDB's bytewise one.
///
/// A comparator is part of the data: RocksDB writes its name into the database, and opening
/// with another name fails with [`Error::ComparatorMismatch`](crate::Error::ComparatorMismatch).
/// It is called from every thread that reads, writes or compacts, so it is
/// `Send + Sync + 'static`, and RocksDB holds only a raw pointer to it: the options and every
/// database opened with it keep it alive until that database has closed.
///
/// pinrocks uses the same order wherever it compares keys itself (range bounds of
/// iterators and scans, inverted `delete_range` checks, the SST writer's order check).
///
/// A comparator must not panic: RocksDB cannot continue a sort half done, so a panic while
/// RocksDB compares aborts the process with a message naming the comparator.
///
/// ```
/// use pinrocks::codec::LittleEndian;
/// use pinrocks::{Db, Options};
/// use pinrocks::callbacks::Comparator;
/// # fn main() -> pinrocks::Result<()> {
/// # let dir = tempfile::tempdir().unwrap();
/// // Little-endian u64 keys, in numeric order.
/// let mut options = Options::new();
/// options
///     .create_if_missing(true)
///     .comparator(&Comparator::typed::<LittleEndian<u64>>("u64le"));
/// let db = Db::open(&options, dir.path())?;
/// for n in [256u64, 1, 2] {
///     db.put(&n.to_le_bytes(), b"")?;
/// }
/// let keys: Vec<u64> = db
///     .reader()
///     .scan(.., |k, _| u64::from_le_bytes(k.try_into().unwrap()))
///     .collect::<pinrocks::Result<_>>()?;
/// assert_eq!(keys, [1, 2, 256]);
/// # Ok(()) }
/// ```
///
/// Keys are RocksDB's memory for the call only: keeping one does not compile.
///
/// ```compile_fail
/// use std::sync::Mutex;
/// static KEPT: Mutex<Option<&'static [u8]>> = Mutex::new(None);
/// let c = pinrocks::callbacks::Comparator::new("leak", |a, b| {
///     *KEPT.lock().unwrap() = Some(a); // error: borrowed data escapes
///     a.cmp(b)
/// });
/// ```
///
/// What a comparator may do: compare, and nothing else. RocksDB calls it inside reads and
/// writes and under its database mutex; every pinrocks call into a database from there is
/// refused ([`Error::InsideCallback`](crate::Error::InsideCallback); an iterator panics,
/// which aborts here).
#[derive(Clone)]
pub struct Comparator {
    raw: Arc<RawComparator>,
}

impl fmt::Debug for Comparator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Comparator").field(&self.name()).finish()
    }
}

impl Comparator {
    /// A comparator named `name` (cut at a NUL byte) ordering keys by `compare`, which must
    /// be a total order and must not panic.
    pub fn new<F>(name: &str, compare: F) -> Self
    where
        F: Fn(&[u8], &[u8]) -> Ordering + Send + Sync + 'static,
    {
        let order = Box::into_raw(Box::new(Order {
            name: c_name(name),
            compare: Box::new(compare),
        }));
        // SAFETY: the comparator takes ownership of `order` and frees it with
        // `destroy_order`; the callbacks take an `Order` and catch panics. It is destroyed
        // after every database using it has closed (each holds a `Comparator` until its
        // `rocksdb_close` returned).
        let raw =
            unsafe { ComparatorHandle::new(order.cast(), destroy_order, compare_keys, order_name) };
        Comparator {
            raw: Arc::new(RawComparator {
                raw,
                // SAFETY: from Box::into_raw above: not null.
                order: unsafe { NonNull::new_unchecked(order) },
            }),
        }
    }

    /// Reverse bytewise order, under the name of RocksDB's own
    /// (`rocksdb.ReverseBytewiseComparator`), so databases made with it by other programs
    /// open with this one.
    pub fn reverse_bytewise() -> Self {
        Comparator::new("rocksdb.ReverseBytewiseComparator", |a, b| b.cmp(a))
    }

    /// The order of the decoded keys of codec `C` (for codecs whose bytes do not sort as
    /// their values, such as [`LittleEndian`](crate::codec::LittleEndian)). Keys that do not
    /// decode sort after all that do, bytewise among themselves, so the order stays total.
    pub fn typed<C>(name: &str) -> Self
    where
        C: Codec + 'static,
        for<'a> C::Decoded<'a>: Ord,
    {
        Comparator::new(name, |a, b| match (C::decode(a), C::decode(b)) {
            (Ok(a), Ok(b)) => a.cmp(&b),
            (Ok(_), Err(_)) => Ordering::Less,
            (Err(_), Ok(_)) => Ordering::Greater,
            (Err(_), Err(_)) => a.cmp(b),
        })
    }

    /// This order reversed, under a new name.
    pub fn reversed(&self, name: &str) -> Self {
        let inner = self.clone();
        Comparator::new(name, move |a, b| inner.compare(b, a))
    }

    /// The name RocksDB stores.
    pub fn name(&self) -> &str {
        self.order().name.to_str().unwrap_or("(not UTF-8)")
    }

    /// Compares two keys in this order.
    pub fn compare(&self, a: &[u8], b: &[u8]) -> Ordering {
        (self.order().compare)(a, b)
    }

    fn order(&self) -> &Order {
        // SAFETY: the `Order` lives as long as the raw comparator, which `self` holds.
        unsafe { self.raw.order.as_ref() }
    }

    pub(crate) fn raw(&self) -> ComparatorPtr {
        self.raw.raw.as_ptr()
    }
}

/// A column family's key order: RocksDB's bytewise one, or a [`Comparator`].
pub(crate) fn compare(order: Option<&Comparator>, a: &[u8], b: &[u8]) -> Ordering {
    match order {
        Some(c) => c.compare(a, b),
        None => a.cmp(b),
    }
}

extern "C" fn destroy_order(state: *mut c_void) {
    // SAFETY: the box made in `Comparator::new`, freed once by `rocksdb_comparator_destroy`.
    let order = unsafe { Box::from_raw(state.cast::<Order>()) };
    // A panic in the closure's destructor must not unwind into C++.
    drop_in_callback(order);
}

extern "C" fn order_name(state: *mut c_void) -> *const c_char {
    // SAFETY: live state (see `destroy_order`); the name lives as long as it.
    unsafe { (*state.cast::<Order>()).name.as_ptr() }
}

extern "C" fn compare_keys(
    state: *mut c_void,
    a: *const c_char,
    alen: usize,
    b: *const c_char,
    blen: usize,
) -> c_int {
    // SAFETY: live state; RocksDB's two keys, valid for the call.
    let (order, a, b) = unsafe {
        (
            &*state.cast::<Order>(),
            value_slice(a, alen),
            value_slice(b, blen),
        )
    };
    match panic::catch_unwind(AssertUnwindSafe(|| {
        reentry::inside(reentry::COMPARATOR, || (order.compare)(a, b))
    })) {
        Ok(ordering) => ordering as c_int,
        Err(panic) => {
            // Unwinding into RocksDB is undefined behaviour, and returning any order would
            // corrupt the sort it is in the middle of.
            eprintln!(
                "pinrocks: comparator {:?} panicked ({}); aborting: RocksDB cannot continue \
                 a sort without an answer",
                order.name,
                panic_message(&*panic)
            );
            std::process::abort();
        }
    }
}

//! Prefix extractors written in Rust: which leading bytes of a key are its prefix, for
//! prefix bloom filters, prefix seeks and the hash memtables.

use std::ffi::{c_char, c_uchar, c_void, CString};
use std::fmt;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Arc;

use crate::callbacks::merge::c_name;
use crate::raw::callback_objects::{new_prefix_extractor, SliceTransformPtr};
use crate::raw::error::panic_message;
use crate::raw::pinned::value_slice;
use crate::raw::reentry;
use crate::raw::trampoline::drop_in_callback;

type PrefixFn = dyn Fn(&[u8]) -> Option<usize> + Send + Sync;

struct Extractor {
    name: CString,
    prefix_len: Box<PrefixFn>,
}

/// A key's prefix, as a Rust function: `Some(n)` says the first `n` bytes are its prefix
/// (more than the key's length is the whole key), `None` that the key has none (it is
/// then filtered by whole key only). Cheap to clone; set with
/// [`Options::custom_prefix_extractor`](crate::Options::custom_prefix_extractor).
///
/// RocksDB stores the name with the data (in each SST file's properties): files written
/// under another name are read without their prefix filters, so a changed function needs a
/// new name. The function must give the same answer for a key every time, and a key's
/// prefix must be the prefix of every key that starts with it (RocksDB documents the rules
/// on `SliceTransform`). It runs on every thread that reads, writes or compacts, so it is
/// `Send + Sync`, and it must not panic: RocksDB cannot go on without an answer, so a panic
/// aborts the process with a message naming the extractor.
///
/// ```
/// use pinrocks::{Db, Options};
/// use pinrocks::callbacks::CustomPrefix;
/// # fn main() -> pinrocks::Result<()> {
/// # let dir = tempfile::tempdir().unwrap();
/// // "user:42:name" has the prefix "user:42:", up to its second colon.
/// let upto_second_colon = CustomPrefix::new("upto-second-colon", |key| {
///     let mut colons = key.iter().enumerate().filter(|(_, b)| **b == b':');
///     colons.nth(1).map(|(i, _)| i + 1)
/// });
/// let mut options = Options::new();
/// options.create_if_missing(true).custom_prefix_extractor(&upto_second_colon);
/// let db = Db::open(&options, dir.path())?;
/// db.put(b"user:42:name", b"ann")?;
/// db.put(b"user:42:mail", b"ann@example.com")?;
/// db.put(b"user:7:name", b"bob")?;
/// let keys: Vec<Vec<u8>> = db
///     .reader()
///     .prefix_iter(b"user:42:")
///     .forward(|k, _| k.to_vec())
///     .collect::<pinrocks::Result<_>>()?;
/// assert_eq!(keys, [b"user:42:mail".to_vec(), b"user:42:name".to_vec()]);
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct CustomPrefix {
    extractor: Arc<Extractor>,
}

impl fmt::Debug for CustomPrefix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("CustomPrefix").field(&self.name()).finish()
    }
}

impl CustomPrefix {
    /// An extractor named `name` (cut at a NUL byte) whose `prefix_len` gives each key's
    /// prefix length, or `None` for a key without one.
    pub fn new<F>(name: &str, prefix_len: F) -> Self
    where
        F: Fn(&[u8]) -> Option<usize> + Send + Sync + 'static,
    {
        CustomPrefix {
            extractor: Arc::new(Extractor {
                name: c_name(name),
                prefix_len: Box::new(prefix_len),
            }),
        }
    }

    /// The name RocksDB stores.
    pub fn name(&self) -> &str {
        self.extractor.name.to_str().unwrap_or("(not UTF-8)")
    }

    /// The prefix of `key` by this extractor, as RocksDB takes it.
    pub fn prefix<'k>(&self, key: &'k [u8]) -> Option<&'k [u8]> {
        (self.extractor.prefix_len)(key).map(|n| &key[..n.min(key.len())])
    }

    /// A new C API extractor calling this one, for options that take it over
    /// (`rocksdb_options_set_prefix_extractor` frees it with the last options using it).
    pub(crate) fn to_raw(&self) -> SliceTransformPtr {
        let state = Box::into_raw(Box::new(Arc::clone(&self.extractor)));
        // SAFETY: the transform takes `state` and frees it with `destroy_extractor`; the
        // callbacks take an `Arc<Extractor>` and do not unwind; the caller hands the result
        // to options that take it over.
        unsafe {
            new_prefix_extractor(
                state.cast(),
                destroy_extractor,
                transform,
                in_domain,
                extractor_name,
            )
        }
    }
}

/// The state behind a C API extractor.
///
/// # Safety
/// `state` must be the box made by `to_raw`, not yet destroyed.
unsafe fn extractor<'a>(state: *mut c_void) -> &'a Extractor {
    // SAFETY: the caller's contract: a live `Box<Arc<Extractor>>`.
    unsafe { &*state.cast::<Arc<Extractor>>() }
}

extern "C" fn destroy_extractor(state: *mut c_void) {
    // SAFETY: the box made by `to_raw`, freed once, by the C API extractor's destructor.
    let state = unsafe { Box::from_raw(state.cast::<Arc<Extractor>>()) };
    // A panic in the closure's destructor must not unwind into C++.
    drop_in_callback(state);
}

extern "C" fn extractor_name(state: *mut c_void) -> *const c_char {
    // SAFETY: live state (see `destroy_extractor`); the name lives as long as it.
    unsafe { extractor(state) }.name.as_ptr()
}

/// The key's prefix length, or `None`; a panic aborts (see `CustomPrefix`).
fn prefix_len(state: *mut c_void, key: *const c_char, len: usize) -> Option<usize> {
    // SAFETY: live state; RocksDB's key, valid for the call.
    let (extractor, key) = unsafe { (extractor(state), value_slice(key, len)) };
    match panic::catch_unwind(AssertUnwindSafe(|| {
        reentry::inside(reentry::PREFIX_EXTRACTOR, || (extractor.prefix_len)(key))
    })) {
        Ok(n) => n.map(|n| n.min(key.len())),
        Err(panic) => {
            eprintln!(
                "pinrocks: prefix extractor {:?} panicked ({}); aborting: RocksDB cannot go \
                 on without a prefix",
                extractor.name,
                panic_message(&*panic)
            );
            std::process::abort();
        }
    }
}

extern "C" fn transform(
    state: *mut c_void,
    key: *const c_char,
    len: usize,
    dst_len: *mut usize,
) -> *mut c_char {
    // RocksDB asks for a prefix only of a key in the domain; one without gives itself.
    let n = prefix_len(state, key, len).unwrap_or(len);
    // SAFETY: RocksDB's out-parameter, valid for the call.
    unsafe { *dst_len = n };
    // The prefix is the key's own first `n` bytes: valid as long as the key RocksDB holds.
    key.cast_mut()
}

extern "C" fn in_domain(state: *mut c_void, key: *const c_char, len: usize) -> c_uchar {
    u8::from(prefix_len(state, key, len).is_some())
}

//! The two ways a value is pinned while Rust code reads it in place.
//!
//! * The one-call native path: `pinrocks_read_pinned` (rocksdb-c/reads.cc) pins into a
//!   `PinnableSlice` on its own stack and calls back into Rust. No heap allocation of its
//!   own and one FFI call per read.
//! * A handle: `pinrocks_read_handle` allocates a `rocksdb_pinnableslice_t` that holds the
//!   pin until `rocksdb_pinnableslice_destroy`; [`PinnableHandle`] owns it.
//!
//! Either way the slice handed to Rust is only borrowed for the callback, so the borrow
//! checker ends every use of the bytes before the pin is released.

use std::ffi::{c_char, c_void};
use std::ptr::NonNull;

use crate::raw::error::{ErrPtr, Result};
use crate::raw::ffi;
use crate::raw::trampoline::Carried;

/// The bytes RocksDB handed over; a NULL or zero-length value is the empty slice.
///
/// # Safety
/// If `len > 0`, `data` must point to `len` readable bytes that stay valid and unchanged
/// for `'a`.
pub(crate) unsafe fn value_slice<'a>(data: *const c_char, len: usize) -> &'a [u8] {
    if len == 0 || data.is_null() {
        &[]
    } else {
        // SAFETY: guaranteed by the caller.
        unsafe { std::slice::from_raw_parts(data.cast(), len) }
    }
}

/// What the native trampoline carries across the C++ frame: the closure to run once, and
/// its value once run.
type Callback<F, R> = Carried<(Option<F>, Option<R>)>;

/// The body of every one-call read's trampoline: runs the closure behind `ctx` once on what
/// `borrow` gives. It never unwinds into C++: a panic is caught here and resumed after the
/// C++ frame has returned.
///
/// # Safety
/// `ctx` must be the `Callback<F, R>` that [`one_call`] passed for this call, exclusively
/// borrowed for its duration, and what `borrow` gives valid until this function returns.
#[inline]
pub(crate) unsafe fn run_once<F, R, A>(ctx: *mut c_void, borrow: impl FnOnce() -> A)
where
    F: FnOnce(A) -> R,
{
    // SAFETY: the caller's contract.
    let callback = unsafe { Callback::<F, R>::from_ctx(ctx) };
    callback.run(|(f, outcome)| {
        if let Some(f) = f.take() {
            *outcome = Some(f(borrow()));
        }
    });
}

/// Called by a one-call pinned read while the value is pinned.
extern "C" fn trampoline<F, R>(ctx: *mut c_void, data: *const c_char, len: usize)
where
    F: FnOnce(&[u8]) -> R,
{
    // SAFETY: `ctx` is `get_pinned_with`'s callback; RocksDB keeps `data[..len]` pinned
    // until this function returns, and the slice's lifetime cannot leave `f` (it is
    // higher-ranked in `F`'s bound).
    unsafe { run_once::<F, R, _>(ctx, || value_slice(data, len)) }
}

/// A native one-call read with a callback of type `C`: `(key, len, callback, ctx,
/// status_code, errptr)` to found (1) or not (0).
pub(crate) type OneCall<'a, C> =
    &'a dyn Fn(*const c_char, usize, C, *mut c_void, &mut i32, *mut *mut c_char) -> u8;

/// Runs `call` for `key` with `trampoline` (which runs [`run_once`]) calling `f`: `f`'s
/// result if found, and a panic in `f` resumed after C++ has returned.
///
/// # Safety
/// `call` must hand its arguments unchanged to one of rocksdb-c/'s one-call reads on live
/// handles, which calls `trampoline(ctx, ..)` at most once, during the call; `trampoline`
/// must take `ctx` as a `Callback<F, R>`.
#[inline]
pub(crate) unsafe fn one_call<F, R, C>(
    call: OneCall<'_, C>,
    trampoline: C,
    key: &[u8],
    f: F,
) -> Result<Option<R>> {
    let mut callback: Callback<F, R> = Carried::new((Some(f), None));
    let mut err = ErrPtr::new();
    let mut code = 0;
    call(
        key.as_ptr().cast(),
        key.len(),
        trampoline,
        callback.as_ctx(),
        &mut code,
        err.as_out(),
    );
    let (_, outcome) = callback.finish();
    err.check_with_code(Some(code))?;
    Ok(outcome)
}

/// A native one-call pinned read: `(key, len, callback, ctx, status_code, errptr)` to
/// found (1) or not (0), calling back while the value is pinned.
pub(crate) type PinnedCall<'a> = OneCall<'a, ffi::pinrocks_value_fn>;

/// Runs `call` (one of rocksdb-c/'s one-call pinned reads) for `key` with `f` as its
/// callback: `f`'s result if found, and a panic in `f` resumed after C++ has returned.
///
/// # Safety
/// `call` must hand its arguments unchanged to one of rocksdb-c/'s one-call pinned reads on
/// live handles: it calls `callback(ctx, ..)` at most once, during the call, with bytes
/// valid for that callback only.
#[inline]
pub(crate) unsafe fn get_pinned_with<F, R>(
    call: PinnedCall<'_>,
    key: &[u8],
    f: F,
) -> Result<Option<R>>
where
    F: FnOnce(&[u8]) -> R,
{
    // SAFETY: the caller's contract; `trampoline::<F, R>` takes `ctx` as `one_call`'s
    // `Callback<F, R>`.
    unsafe { one_call(call, Some(trampoline::<F, R>), key, f) }
}

/// Owns a pinned value handle (`rocksdb_pinnableslice_t`): the pin lasts until this
/// drops, including when a panic unwinds through its owner. A value read from a batch or a
/// transaction's own writes is RocksDB's copy in it; one from the database pins its block.
pub(crate) struct PinnableHandle(NonNull<ffi::rocksdb_pinnableslice_t>);

impl PinnableHandle {
    /// Owns `handle`.
    ///
    /// # Safety
    /// `handle` must be a live `rocksdb_pinnableslice_t` that nothing else owns or frees.
    pub(crate) unsafe fn new(handle: NonNull<ffi::rocksdb_pinnableslice_t>) -> Self {
        PinnableHandle(handle)
    }

    /// The pinned value, borrowed from the handle so it cannot outlive the pin.
    pub(crate) fn value(&self) -> &[u8] {
        let mut len = 0usize;
        // SAFETY: the handle is live; the returned pointer is valid while it is.
        unsafe {
            value_slice(
                ffi::rocksdb_pinnableslice_value(self.0.as_ptr(), &mut len),
                len,
            )
        }
    }
}

impl Drop for PinnableHandle {
    fn drop(&mut self) {
        // SAFETY: owned by `self` and destroyed once.
        unsafe { ffi::rocksdb_pinnableslice_destroy(self.0.as_ptr()) }
    }
}

/// Multi-get callback state: the closure.
pub(crate) type MultiCallback<F> = Carried<F>;

/// Called by a pinned multi-get for each key while the batch is pinned. A panic
/// is caught, stops the batch (return 1) and is resumed after C++ has returned.
extern "C" fn multi_trampoline<F>(
    ctx: *mut c_void,
    index: usize,
    found: u8,
    data: *const c_char,
    len: usize,
) -> u8
where
    F: FnMut(usize, Option<&[u8]>),
{
    // SAFETY: `ctx` is the `MultiCallback<F>` that `multi_get_with` passed for this call.
    let callback = unsafe { MultiCallback::<F>::from_ctx(ctx) };
    // SAFETY: the batch's values stay pinned until the C++ function returns.
    let value = (found != 0).then(|| unsafe { value_slice(data, len) });
    u8::from(callback.run(|f| f(index, value)).is_none())
}

/// Batches up to this many keys are read with no allocation of ours, on either side:
/// RocksDB's own batch size (`MultiGetContext::MAX_BATCH_SIZE`).
const INLINE_KEYS: usize = 32;

/// A native pinned multi-get: `(num_keys, keys, callback, ctx, status_code, errptr)`.
pub(crate) type MultiCall<'a> = ManyCall<'a, ffi::pinrocks_multi_value_fn>;

/// Runs `call` (one of rocksdb-c/'s pinned multi-gets) over `keys` with `f` called back
/// for each key in order.
///
/// # Safety
/// `call` must hand its arguments unchanged to one of rocksdb-c/'s pinned multi-gets on
/// live handles: it calls `callback(ctx, i, ..)` only during the call, for `i` below the
/// number of keys, with bytes valid for that callback only.
pub(crate) unsafe fn multi_get_with<K, F>(call: MultiCall<'_>, keys: &[K], f: F) -> Result<()>
where
    K: AsRef<[u8]>,
    F: FnMut(usize, Option<&[u8]>),
{
    // SAFETY: the caller's contract; `multi_trampoline::<F>` takes `ctx` as `multi_call`'s
    // `MultiCallback<F>`.
    unsafe { multi_call(call, Some(multi_trampoline::<F>), keys, f) }
}

/// A native multi-get with a callback of type `C`: `(num_keys, keys, callback, ctx,
/// status_code, errptr)`.
pub(crate) type ManyCall<'a, C> =
    &'a dyn Fn(usize, *const ffi::pinrocks_slice, C, *mut c_void, &mut i32, *mut *mut c_char);

/// Runs `call` over `keys` with `trampoline` calling back `f` (a `MultiCallback<F>`
/// behind `ctx`) for each key in order.
///
/// # Safety
/// `call` must hand its arguments unchanged to one of rocksdb-c/'s multi-gets on live
/// handles, which calls `trampoline(ctx, i, ..)` only during the call; `trampoline` must take
/// `ctx` as a `MultiCallback<F>`.
pub(crate) unsafe fn multi_call<K, F, C>(
    call: ManyCall<'_, C>,
    trampoline: C,
    keys: &[K],
    f: F,
) -> Result<()>
where
    K: AsRef<[u8]>,
{
    // Each key's `as_ref` is called once: a pointer and a length from two calls of a
    // user's `AsRef` could disagree, and RocksDB would read past the key. Up to
    // `INLINE_KEYS` keys are described on the stack (no allocation), like the native side.
    const EMPTY: ffi::pinrocks_slice = ffi::pinrocks_slice {
        data: std::ptr::null(),
        len: 0,
    };
    let mut inline = [EMPTY; INLINE_KEYS];
    let mut heap = Vec::new();
    let key_slices: &mut [ffi::pinrocks_slice] = if keys.len() <= INLINE_KEYS {
        &mut inline[..keys.len()]
    } else {
        heap.resize(keys.len(), EMPTY);
        &mut heap
    };
    for (slot, key) in key_slices.iter_mut().zip(keys) {
        let key = key.as_ref();
        *slot = ffi::pinrocks_slice {
            data: key.as_ptr().cast(),
            len: key.len(),
        };
    }
    let mut callback: MultiCallback<F> = Carried::new(f);
    let mut err = ErrPtr::new();
    let mut code = 0;
    // Each of `key_slices` describes one key's bytes, borrowed from `keys` for the call.
    call(
        key_slices.len(),
        key_slices.as_ptr(),
        trampoline,
        callback.as_ctx(),
        &mut code,
        err.as_out(),
    );
    callback.finish();
    err.check_with_code(Some(code))
}

// SAFETY: the handle owns a `PinnableSlice`: either a block-cache pin, whose cleanup is one
// `Cache::Release(handle)` (table/block_based/cachable_entry.h; the sharded caches are
// thread-safe), or RocksDB's own copy of a memtable value (`SaveValue` in db/memtable.cc,
// then `PinSelf`). Nothing in it is tied to the thread that read it, and
// `rocksdb_pinnableslice_value` only reads it. What the bytes live in (the column
// family's cache, the database) is kept alive by the handle's owners.
unsafe impl Send for PinnableHandle {}
// SAFETY: see `Send`; `value` only reads.
unsafe impl Sync for PinnableHandle {}

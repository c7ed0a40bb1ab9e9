//! Wide-column entities across the boundary: the one-call entity read (rocksdb-c/entities.cc
//! pins a `PinnableWideColumns` on its stack and calls back with RocksDB's own column array),
//! the entity pinned on the heap for as long as its [`EntityHandle`] lives, and the caller's
//! columns handed to `PutEntity` as views.

use std::ffi::c_void;
use std::mem::MaybeUninit;
use std::ptr::NonNull;

use crate::raw::error::Result;
use crate::raw::ffi;
use crate::raw::pinned::{
    multi_call, one_call, run_once, value_slice, ManyCall, MultiCallback, OneCall,
};

/// RocksDB's column array, as handed to a callback; empty for a NULL or zero count.
///
/// # Safety
/// If `count > 0`, `columns` must point to `count` columns whose bytes stay valid and
/// unchanged for `'a`.
pub(crate) unsafe fn column_slice<'a>(
    columns: *const ffi::pinrocks_column,
    count: usize,
) -> &'a [ffi::pinrocks_column] {
    if count == 0 || columns.is_null() {
        &[]
    } else {
        // SAFETY: guaranteed by the caller.
        unsafe { std::slice::from_raw_parts(columns, count) }
    }
}

/// Columns that fit on the stack: an entity of this many or fewer allocates nothing of
/// pinrocks' own to be written (measured: 2 allocations and ~380 instructions a
/// `put_entity` otherwise, 4% over RocksDB's own `PutEntity`).
const INLINE_COLUMNS: usize = 8;

/// The views of an entity's columns: on the stack up to [`INLINE_COLUMNS`], else on the heap.
// Large on purpose: the inline array is what saves the allocation, and the value lives on
// the stack of one `put_entity` call.
#[allow(clippy::large_enum_variant)]
pub(crate) enum NativeColumns {
    /// The first `usize` initialized (the rest never written: ~100 instructions a
    /// `put_entity` of one column when all eight were).
    Inline([MaybeUninit<ffi::pinrocks_column>; INLINE_COLUMNS], usize),
    Heap(Vec<ffi::pinrocks_column>),
}

impl std::ops::Deref for NativeColumns {
    type Target = [ffi::pinrocks_column];

    #[inline]
    fn deref(&self) -> &[ffi::pinrocks_column] {
        match self {
            // SAFETY: `native_columns` initialized the first `len` (at most INLINE_COLUMNS),
            // and `MaybeUninit<T>` has `T`'s layout.
            NativeColumns::Inline(columns, len) => unsafe {
                std::slice::from_raw_parts(columns.as_ptr().cast(), *len)
            },
            NativeColumns::Heap(columns) => columns,
        }
    }
}

/// The caller's `(name, value)` pairs as views for a `PINROCKS_RECORD_PUT_COLUMNS` write,
/// valid while `columns` is borrowed.
#[inline]
pub(crate) fn native_columns<N: AsRef<[u8]>, V: AsRef<[u8]>>(columns: &[(N, V)]) -> NativeColumns {
    let slice = |bytes: &[u8]| ffi::pinrocks_slice {
        data: bytes.as_ptr().cast(),
        len: bytes.len(),
    };
    let view = |(name, value): &(N, V)| ffi::pinrocks_column {
        name: slice(name.as_ref()),
        value: slice(value.as_ref()),
    };
    if columns.len() > INLINE_COLUMNS {
        return NativeColumns::Heap(columns.iter().map(view).collect());
    }
    let mut inline = [MaybeUninit::uninit(); INLINE_COLUMNS];
    for (to, column) in inline.iter_mut().zip(columns) {
        to.write(view(column));
    }
    NativeColumns::Inline(inline, columns.len())
}

/// A name that `native` (views of `columns`, made by [`native_columns`]) holds twice, if
/// any, copied for the error. Few columns are compared pairwise (no allocation); more are
/// sorted.
#[inline]
pub(crate) fn repeated_name<N, V>(
    native: &[ffi::pinrocks_column],
    _columns: &[(N, V)],
) -> Option<Vec<u8>> {
    if native.len() < 2 {
        return None;
    }
    let names = native
        .iter()
        // SAFETY: each view describes a name borrowed from `_columns`, which stays borrowed
        // while these slices are used (they do not leave this function).
        .map(|c| unsafe { value_slice(c.name.data, c.name.len) });
    if native.len() <= INLINE_COLUMNS {
        let mut seen: [&[u8]; INLINE_COLUMNS] = [&[]; INLINE_COLUMNS];
        for (i, name) in names.enumerate() {
            if seen[..i].contains(&name) {
                return Some(name.to_vec());
            }
            seen[i] = name;
        }
        return None;
    }
    let mut names: Vec<&[u8]> = names.collect();
    names.sort_unstable();
    names
        .windows(2)
        .find(|pair| pair[0] == pair[1])
        .map(|pair| pair[0].to_vec())
}

/// The bytes of `columns`, as a `PINROCKS_RECORD_PUT_COLUMNS` write's value carries them
/// (C++ reads them back as the array: `guarded.h`'s `columns_of`).
pub(crate) fn packed(columns: &[ffi::pinrocks_column]) -> &[u8] {
    // SAFETY: a `pinrocks_column` is two (pointer, length) pairs with no padding, so every
    // byte of the array is initialized; the slice covers exactly the array, borrowed.
    unsafe { std::slice::from_raw_parts(columns.as_ptr().cast(), std::mem::size_of_val(columns)) }
}

/// Called by an entity read while the columns are pinned.
extern "C" fn trampoline<F, R>(ctx: *mut c_void, columns: *const ffi::pinrocks_column, count: usize)
where
    F: FnOnce(&[ffi::pinrocks_column]) -> R,
{
    // SAFETY: `ctx` is `get_entity_with`'s callback; RocksDB keeps the columns pinned
    // until this function returns, and the borrow cannot leave `f` (higher-ranked in `F`'s
    // bound).
    unsafe { run_once::<F, R, _>(ctx, || column_slice(columns, count)) }
}

/// A native one-call entity read: `(key, len, callback, ctx, status_code, errptr)` to found
/// (1) or not (0), calling back while the columns are pinned.
pub(crate) type EntityCall<'a> = OneCall<'a, ffi::pinrocks_columns_fn>;

/// Runs `call` (one of rocksdb-c/entities.cc's entity reads) for `key` with `f` as its
/// callback: `f`'s result if found, and a panic in `f` resumed after C++ has returned.
///
/// # Safety
/// `call` must hand its arguments unchanged to one of rocksdb-c/'s one-call entity reads on
/// live handles: it calls `callback(ctx, ..)` at most once, during the call, with columns
/// valid for that callback only.
pub(crate) unsafe fn get_entity_with<F, R>(
    call: EntityCall<'_>,
    key: &[u8],
    f: F,
) -> Result<Option<R>>
where
    F: FnOnce(&[ffi::pinrocks_column]) -> R,
{
    // SAFETY: the caller's contract; `trampoline::<F, R>` takes `ctx` as `one_call`'s
    // `Callback<F, R>`.
    unsafe { one_call(call, Some(trampoline::<F, R>), key, f) }
}

/// Owns an entity read and pinned on the heap (`pinrocks_entity_t`): the pin lasts until
/// this drops.
pub(crate) struct EntityHandle(NonNull<ffi::pinrocks_entity_t>);

// SAFETY: `~PinnableWideColumns` (defaulted, include/rocksdb/wide_columns.h) frees its
// `backing_` slices, whose cleanups are a block- or blob-cache `Cache::Release(handle)`
// (table/block_based/cachable_entry.h, cache/cache_helpers.h; the caches are thread-safe) or a
// plain delete of a buffer the slice owns (a memtable or batch copy, an owned blob): none is
// tied to the thread that read it. What those live in is kept alive by the handle's owners.
unsafe impl Send for EntityHandle {}
// SAFETY: shared use only calls `PinnableWideColumns::columns() const`
// (`pinrocks_entity_columns`), which reads.
unsafe impl Sync for EntityHandle {}

impl EntityHandle {
    /// Owns `handle`.
    ///
    /// # Safety
    /// `handle` must be a live `pinrocks_entity_t` that nothing else owns or destroys.
    pub(crate) unsafe fn new(handle: NonNull<ffi::pinrocks_entity_t>) -> Self {
        EntityHandle(handle)
    }

    /// The columns, borrowed from the handle so they cannot outlive the pin.
    pub(crate) fn columns(&self) -> &[ffi::pinrocks_column] {
        let (mut columns, mut count) = (std::ptr::null(), 0usize);
        // SAFETY: live handle; the array stays valid and unchanged while it lives.
        unsafe {
            ffi::pinrocks_entity_columns(self.0.as_ptr(), &mut columns, &mut count);
            column_slice(columns, count)
        }
    }
}

impl Drop for EntityHandle {
    fn drop(&mut self) {
        // SAFETY: owned by `self`, destroyed once.
        unsafe { ffi::pinrocks_entity_destroy(self.0.as_ptr()) };
    }
}

/// Called by an entity multi-get for each key while the batch is pinned. A panic is caught,
/// stops the batch (return 1) and is resumed after C++ has returned.
extern "C" fn multi_trampoline<F>(
    ctx: *mut c_void,
    index: usize,
    found: u8,
    columns: *const ffi::pinrocks_column,
    count: usize,
) -> u8
where
    F: FnMut(usize, Option<&[ffi::pinrocks_column]>),
{
    // SAFETY: `ctx` is the `MultiCallback<F>` that `multi_get_entity_with` passed.
    let callback = unsafe { MultiCallback::<F>::from_ctx(ctx) };
    // SAFETY: the batch's entities stay pinned until the C++ function returns.
    let entity = (found != 0).then(|| unsafe { column_slice(columns, count) });
    u8::from(callback.run(|f| f(index, entity)).is_none())
}

/// A native entity multi-get: `(num_keys, keys, callback, ctx, status_code, errptr)`.
pub(crate) type EntityMultiCall<'a> = ManyCall<'a, ffi::pinrocks_multi_columns_fn>;

/// Runs `call` (one of rocksdb-c/entities.cc's multi-gets) over `keys` with `f` called back
/// for each key in order.
///
/// # Safety
/// `call` must hand its arguments unchanged to one of rocksdb-c/'s entity multi-gets on live
/// handles: it calls `callback(ctx, i, ..)` only during the call, for `i` below the number
/// of keys, with columns valid for that callback only.
pub(crate) unsafe fn multi_get_entity_with<K, F>(
    call: EntityMultiCall<'_>,
    keys: &[K],
    f: F,
) -> Result<()>
where
    K: AsRef<[u8]>,
    F: FnMut(usize, Option<&[ffi::pinrocks_column]>),
{
    // SAFETY: the caller's contract; `multi_trampoline::<F>` takes `ctx` as `multi_call`'s
    // `MultiCallback<F>`.
    unsafe { multi_call(call, Some(multi_trampoline::<F>), keys, f) }
}

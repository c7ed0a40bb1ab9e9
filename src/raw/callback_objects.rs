//! The C API objects that call pinrocks' callbacks and are made in Rust: a comparator and a
//! prefix extractor, each given its state and its functions.

use std::ffi::{c_char, c_int, c_uchar, c_void};
use std::ptr::NonNull;

use crate::raw::ffi;

/// A comparator as the options take it.
pub(crate) type ComparatorPtr = *mut ffi::rocksdb_comparator_t;
/// A prefix extractor as the options take it.
pub(crate) type SliceTransformPtr = *mut ffi::rocksdb_slicetransform_t;

/// A key comparison: state, `a`, its length, `b`, its length.
pub(crate) type CompareFn =
    extern "C" fn(*mut c_void, *const c_char, usize, *const c_char, usize) -> c_int;
/// A callback object's name: state.
pub(crate) type NameFn = extern "C" fn(*mut c_void) -> *const c_char;
/// Frees a callback object's state.
pub(crate) type DestroyFn = extern "C" fn(*mut c_void);
/// A prefix: state, key, its length, where the prefix's length goes.
pub(crate) type TransformFn =
    extern "C" fn(*mut c_void, *const c_char, usize, *mut usize) -> *mut c_char;
/// Whether a key is in the extractor's domain: state, key, its length.
pub(crate) type InDomainFn = extern "C" fn(*mut c_void, *const c_char, usize) -> c_uchar;

/// Owns a C API comparator, which owns its state (freed by its `destroy`).
pub(crate) struct ComparatorHandle(NonNull<ffi::rocksdb_comparator_t>);

impl ComparatorHandle {
    /// A comparator calling `compare` and `name` with `state`, which it frees with
    /// `destroy` when dropped.
    ///
    /// # Safety
    /// The functions take `state` as it is and do not unwind; the handle is dropped only
    /// once no database or options use the comparator (RocksDB keeps a bare pointer).
    pub(crate) unsafe fn new(
        state: *mut c_void,
        destroy: DestroyFn,
        compare: CompareFn,
        name: NameFn,
    ) -> Self {
        // SAFETY: the comparator takes ownership of `state`; the callbacks match the C
        // API's signatures (the caller's contract for what they do).
        let raw = unsafe {
            ffi::rocksdb_comparator_create(state, Some(destroy), Some(compare), Some(name))
        };
        ComparatorHandle(NonNull::new(raw).expect("rocksdb_comparator_create returned NULL"))
    }

    /// The comparator, live while `self` is.
    pub(crate) fn as_ptr(&self) -> ComparatorPtr {
        self.0.as_ptr()
    }
}

impl Drop for ComparatorHandle {
    fn drop(&mut self) {
        // SAFETY: owned, destroyed once, when nothing uses it any more (the contract of
        // `new`). Frees its state through `destroy`.
        unsafe { ffi::rocksdb_comparator_destroy(self.0.as_ptr()) };
    }
}

/// A new C API prefix extractor calling `transform`, `in_domain` and `name` with `state`,
/// for options that take it over (`rocksdb_options_set_prefix_extractor` frees it, and
/// `state` through `destroy`, with the last options using it).
///
/// # Safety
/// The functions take `state` as it is and do not unwind; the result is handed to options
/// that take it over.
pub(crate) unsafe fn new_prefix_extractor(
    state: *mut c_void,
    destroy: DestroyFn,
    transform: TransformFn,
    in_domain: InDomainFn,
    name: NameFn,
) -> SliceTransformPtr {
    // SAFETY: the transform takes `state`; the callbacks match the C API's signatures.
    let raw = unsafe {
        ffi::rocksdb_slicetransform_create(
            state,
            Some(destroy),
            Some(transform),
            Some(in_domain),
            Some(name),
        )
    };
    assert!(
        !raw.is_null(),
        "rocksdb_slicetransform_create returned NULL"
    );
    raw
}

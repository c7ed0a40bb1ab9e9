//! [`NewValue`]: the string RocksDB gives a callback for the value it produces (a merge's
//! result, a compaction filter's changed value), written in place through rocksdb-c/, so
//! the callback allocates nothing of its own.

use std::ffi::c_void;
use std::marker::PhantomData;

use crate::raw::ffi;
use crate::raw::pinned::value_slice;

/// A value being produced for RocksDB, written in place into RocksDB's own string (empty
/// when the callback starts). Every write that must grow it can fail when memory runs out;
/// the callback then reports a failure instead of aborting the process.
pub struct NewValue<'a> {
    raw: *mut c_void,
    /// Borrowed from the C++ frame that called back.
    _frame: PhantomData<&'a mut ()>,
}

/// The string could not grow: the allocation failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the new value could not be allocated")]
pub struct OutOfMemory;

impl NewValue<'_> {
    /// # Safety
    /// `raw` must be the `std::string*` RocksDB passed to the running callback.
    pub(crate) unsafe fn new(raw: *mut c_void) -> Self {
        NewValue {
            raw,
            _frame: PhantomData,
        }
    }

    /// The value so far.
    pub fn as_bytes(&self) -> &[u8] {
        let mut len = 0usize;
        // SAFETY: a live std::string (see `new`); its bytes stay unchanged while `self` is
        // borrowed shared.
        unsafe { value_slice(ffi::pinrocks_value_data(self.raw, &mut len), len) }
    }

    /// Appends `bytes`.
    pub fn extend(&mut self, bytes: &[u8]) -> Result<(), OutOfMemory> {
        // SAFETY: live string; `bytes` is copied during the call.
        let ok =
            unsafe { ffi::pinrocks_value_append(self.raw, bytes.as_ptr().cast(), bytes.len()) };
        if ok == 0 {
            return Err(OutOfMemory);
        }
        Ok(())
    }

    /// Makes the value exactly `bytes`.
    pub fn set(&mut self, bytes: &[u8]) -> Result<(), OutOfMemory> {
        self.resize(bytes.len())?.copy_from_slice(bytes);
        Ok(())
    }

    /// Makes the value `len` bytes long (keeping what is there, zero-filling the rest) and
    /// returns it to write in place.
    pub fn resize(&mut self, len: usize) -> Result<&mut [u8], OutOfMemory> {
        // SAFETY: live string; the pointer returned is its buffer of `len` bytes, valid until
        // the string changes, which needs `&mut self` and so ends this borrow first.
        unsafe {
            let data = ffi::pinrocks_value_resize(self.raw, len);
            if data.is_null() {
                return Err(OutOfMemory);
            }
            Ok(if len == 0 {
                &mut []
            } else {
                std::slice::from_raw_parts_mut(data.cast(), len)
            })
        }
    }

    /// Empties the value (never allocates).
    pub fn clear(&mut self) {
        let _ = self.resize(0);
    }
}

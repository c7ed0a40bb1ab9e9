//! One read's source as rocksdb-c/ takes it (`pinrocks_read_source`: the database, a
//! transaction, or an indexed batch over the database or alone) and its native reads, one
//! per tier whatever the source: rocksdb-c/read_source.h alone tells the sources apart.

use std::ffi::c_char;
use std::ptr::{self, NonNull};

use crate::raw::entity::{self, EntityHandle};
use crate::raw::error::{with_code, Result};
use crate::raw::ffi;
use crate::raw::pinned::{self, PinnableHandle};

/// A read's native source: its kind and handles, described for rocksdb-c/'s read calls.
///
/// Every read method is `unsafe` with one contract: the handles the source was made with
/// (database, read options, column family, transaction or batch) are live for the call, a
/// batch unchanged; for an iterator, for as long as the iterator lives.
#[derive(Clone, Copy)]
pub(crate) struct NativeSource(ffi::pinrocks_read_source);

impl NativeSource {
    /// Reads `cf` (NULL: the default) of `db` with `options`.
    #[inline]
    pub(crate) fn database(
        db: *mut ffi::rocksdb_t,
        options: *const ffi::rocksdb_readoptions_t,
        cf: *mut ffi::rocksdb_column_family_handle_t,
    ) -> Self {
        NativeSource(ffi::pinrocks_read_source {
            db,
            options,
            column_family: cf,
            transaction: ptr::null_mut(),
            batch: ptr::null_mut(),
            kind: ffi::PINROCKS_SOURCE_DB as i32,
            mode: ffi::PINROCKS_READ_PLAIN as i32,
        })
    }

    /// Reads through `txn` of `db`, with `mode` a `PINROCKS_READ_*` (plain, or for update,
    /// exclusive or shared).
    pub(crate) fn transaction(
        db: *mut ffi::rocksdb_t,
        options: *const ffi::rocksdb_readoptions_t,
        cf: *mut ffi::rocksdb_column_family_handle_t,
        txn: NonNull<ffi::rocksdb_transaction_t>,
        mode: i32,
    ) -> Self {
        NativeSource(ffi::pinrocks_read_source {
            transaction: txn.as_ptr(),
            kind: ffi::PINROCKS_SOURCE_TRANSACTION as i32,
            mode,
            ..Self::database(db, options, cf).0
        })
    }

    /// Reads through `batch`: its entries over `db`'s, or alone.
    pub(crate) fn batch(
        db: *mut ffi::rocksdb_t,
        options: *const ffi::rocksdb_readoptions_t,
        cf: *mut ffi::rocksdb_column_family_handle_t,
        batch: NonNull<ffi::rocksdb_writebatch_wi_t>,
        alone: bool,
    ) -> Self {
        let kind = if alone {
            ffi::PINROCKS_SOURCE_BATCH_ONLY
        } else {
            ffi::PINROCKS_SOURCE_BATCH
        };
        NativeSource(ffi::pinrocks_read_source {
            batch: batch.as_ptr(),
            kind: kind as i32,
            ..Self::database(db, options, cf).0
        })
    }

    /// The one-call pinned read: `f` on the value of `key`, pinned on the C++ stack.
    ///
    /// # Safety
    /// See the type.
    // Inlined (with `get_pinned_with`) into each read tier, so the call through `&dyn Fn` is
    // a direct one: measured, 46 instructions per read otherwise.
    #[inline]
    pub(crate) unsafe fn get_pinned<F, R>(&self, key: &[u8], f: F) -> Result<Option<R>>
    where
        F: FnOnce(&[u8]) -> R,
    {
        let source = &self.0;
        // SAFETY: the call hands its arguments to `pinrocks_read_pinned`, rocksdb-c/'s
        // one-call pinned read; live handles (the type's contract).
        unsafe {
            pinned::get_pinned_with(
                &|key, len, callback, ctx, code, err| {
                    ffi::pinrocks_read_pinned(source, key, len, callback, ctx, code, err)
                },
                key,
                f,
            )
        }
    }

    /// The value of `key` in a handle that holds the pin until it drops.
    ///
    /// # Safety
    /// See the type.
    pub(crate) unsafe fn pin_handle(&self, key: &[u8]) -> Result<Option<PinnableHandle>> {
        // SAFETY: live handles (the type's contract); `key` is borrowed for the call. The
        // result is a new handle owned by `PinnableHandle`, or NULL; no C++ exception leaves
        // the call.
        let raw = with_code(|code, err| unsafe {
            ffi::pinrocks_read_handle(&self.0, key.as_ptr().cast(), key.len(), code, err)
        })?;
        // After the error check: on error the handle is NULL too, which reads as not found.
        // SAFETY: a new handle, ours to destroy.
        Ok(NonNull::new(raw).map(|h| unsafe { PinnableHandle::new(h) }))
    }

    /// Pinned multi-get: `f(index, value)` for each of `keys`, in order.
    ///
    /// # Safety
    /// See the type.
    pub(crate) unsafe fn multi_get<K, F>(&self, keys: &[K], f: F) -> Result<()>
    where
        K: AsRef<[u8]>,
        F: FnMut(usize, Option<&[u8]>),
    {
        let source = &self.0;
        // SAFETY: the call hands its arguments to `pinrocks_read_multi`, rocksdb-c/'s pinned
        // multi-get; live handles.
        unsafe {
            pinned::multi_get_with(
                &|n, keys, callback, ctx, code, err| {
                    ffi::pinrocks_read_multi(source, n, keys, callback, ctx, code, err)
                },
                keys,
                f,
            )
        }
    }

    /// The one-call entity read: `f` on the columns of `key`, pinned on the C++ stack.
    ///
    /// # Safety
    /// See the type.
    pub(crate) unsafe fn get_entity<F, R>(&self, key: &[u8], f: F) -> Result<Option<R>>
    where
        F: FnOnce(&[ffi::pinrocks_column]) -> R,
    {
        let source = &self.0;
        // SAFETY: the call hands its arguments to `pinrocks_read_entity_pinned`, rocksdb-c/'s
        // one-call entity read; live handles.
        unsafe {
            entity::get_entity_with(
                &|key, len, callback, ctx, code, err| {
                    ffi::pinrocks_read_entity_pinned(source, key, len, callback, ctx, code, err)
                },
                key,
                f,
            )
        }
    }

    /// The entity of `key` in a handle that holds the pin until it drops.
    ///
    /// # Safety
    /// See the type.
    pub(crate) unsafe fn entity_handle(&self, key: &[u8]) -> Result<Option<EntityHandle>> {
        // SAFETY: live handles; `key` is borrowed for the call. The result is a new
        // `pinrocks_entity_t`, or NULL; no C++ exception leaves the call.
        let raw = with_code(|code, err| unsafe {
            ffi::pinrocks_read_entity_handle(&self.0, key.as_ptr().cast(), key.len(), code, err)
        })?;
        // SAFETY: after the error check, a new entity, ours to destroy.
        Ok(NonNull::new(raw).map(|h| unsafe { EntityHandle::new(h) }))
    }

    /// Pinned entity multi-get: `f(index, columns)` for each of `keys`, in order.
    ///
    /// # Safety
    /// See the type.
    pub(crate) unsafe fn multi_get_entity<K, F>(&self, keys: &[K], f: F) -> Result<()>
    where
        K: AsRef<[u8]>,
        F: FnMut(usize, Option<&[ffi::pinrocks_column]>),
    {
        let source = &self.0;
        // SAFETY: the call hands its arguments to `pinrocks_read_entity_multi`; live handles.
        unsafe {
            entity::multi_get_entity_with(
                &|n, keys, callback, ctx, code, err| {
                    ffi::pinrocks_read_entity_multi(source, n, keys, callback, ctx, code, err)
                },
                keys,
                f,
            )
        }
    }

    /// A new RocksDB iterator (NULL with an error in `code`/`err` only when not even an
    /// iterator reporting RocksDB's exception could be made).
    ///
    /// # Safety
    /// See the type (the handles live as long as the iterator); `err` must be an error
    /// out-pointer.
    pub(crate) unsafe fn iterator(
        &self,
        code: &mut i32,
        err: *mut *mut c_char,
    ) -> *mut ffi::rocksdb_iterator_t {
        // SAFETY: live handles (the type's contract); guarded.
        unsafe { ffi::pinrocks_read_iterator(&self.0, code, err) }
    }
}

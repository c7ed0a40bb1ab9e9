//! One read's source as rocksdb-c/ takes it (`pinrocks_read_source`: the database, a
//! transaction, or an indexed batch over the database or alone) and its native reads, one
//! per tier whatever the source: rocksdb-c/read_source.h alone tells the sources apart.

use std::cell::Cell;
use std::ptr::{self, NonNull};

use crate::raw::db::DbPtr;
use crate::raw::entity::{self, EntityHandle};
use crate::raw::error::{with_code, Result};
use crate::raw::family::FamilyPtr;
use crate::raw::ffi;
use crate::raw::iterator::IteratorHandle;
use crate::raw::pinned::{self, PinnableHandle};
use crate::raw::read_options::ReadOptionsPtr;

/// The native handles of one read: the database, the read options and the column family.
/// Each is live for the call (its owner is borrowed by the reader).
#[derive(Clone, Copy)]
pub(crate) struct Handles {
    pub(crate) db: DbPtr,
    pub(crate) options: ReadOptionsPtr,
    pub(crate) cf: FamilyPtr,
}

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

    /// A new RocksDB iterator (an error only when not even an iterator reporting RocksDB's
    /// exception could be made).
    ///
    /// # Safety
    /// See the type (the handles live as long as the iterator).
    pub(crate) unsafe fn iterator(&self) -> Result<IteratorHandle> {
        // SAFETY: live handles (the type's contract); guarded.
        let raw =
            with_code(|code, err| unsafe { ffi::pinrocks_read_iterator(&self.0, code, err) })?;
        // SAFETY: live read options (the type's contract); the C API declares the pointer
        // mutable but only reads the field.
        let tailing =
            unsafe { ffi::rocksdb_readoptions_get_tailing(self.0.options.cast_mut()) } != 0;
        Ok(IteratorHandle::own(raw, self.0.db, tailing))
    }
}

/// The reads only the database has, on its handles (live for the call: the caller's
/// contract, as for [`NativeSource`]).
impl Handles {
    /// The C API's buffer read: the value of `key` copied into `buf` only if it fits
    /// whole. Whether it was found, whether it fit, and its length.
    ///
    /// # Safety
    /// Live handles; `buf` is valid for `capacity` writable bytes.
    #[inline]
    pub(crate) unsafe fn get_into_buffer(
        &self,
        key: &[u8],
        buf: *mut u8,
        capacity: usize,
    ) -> Result<(bool, bool, usize)> {
        let (mut len, mut found) = (0usize, 0u8);
        // SAFETY: live handles and `buf` (the caller's contract); `key` is borrowed for the
        // call; `pinrocks_get_into_buffer_cf` writes `buf` only when the whole value fits.
        // No C++ exception leaves the call.
        let fits = with_code(|code, err| unsafe {
            ffi::pinrocks_get_into_buffer_cf(
                self.db,
                self.options,
                self.cf,
                key.as_ptr().cast(),
                key.len(),
                buf.cast(),
                capacity,
                &mut len,
                &mut found,
                code,
                err,
            )
        })?;
        Ok((found != 0, fits != 0, len))
    }

    /// The one-call pinned read of a family with timestamps: `f` on the value of `key` and
    /// its timestamp (8 bytes, little-endian), pinned on the C++ stack.
    ///
    /// # Safety
    /// Live handles.
    pub(crate) unsafe fn get_pinned_with_timestamp<F, R>(
        &self,
        key: &[u8],
        f: F,
    ) -> Result<Option<R>>
    where
        F: FnOnce(&[u8], [u8; 8]) -> R,
    {
        let ts = Cell::new([0u8; 8]);
        let ts_len = Cell::new(0usize);
        let at = *self;
        // SAFETY: the call hands its arguments to `pinrocks_get_pinned_ts`; the handles are
        // live (the caller's contract), the key and the callback's context for the call.
        // The timestamp cells are written by C++ (at most 8 bytes) before it calls back, and
        // read only by the callback and after the call.
        unsafe {
            pinned::get_pinned_with(
                &|key, len, callback, ctx, code, err| {
                    ffi::pinrocks_get_pinned_ts(
                        at.db,
                        at.options,
                        at.cf,
                        key,
                        len,
                        ts.as_ptr().cast(),
                        8,
                        ts_len.as_ptr(),
                        callback,
                        ctx,
                        code,
                        err,
                    )
                },
                key,
                |value| f(value, ts.get()),
            )
        }
    }
}

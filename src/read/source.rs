//! Where a [`Reader`](crate::Reader) reads from, as a type that carries its native object
//! and its native calls: the database ([`DbSource`]), a transaction
//! ([`TransactionSource`]) or an indexed batch ([`BatchSource`]). Whether a reader, and the
//! iterators it makes, may cross threads follows from the type: a transaction's or batch's
//! source holds a raw pointer, so its readers are neither `Send` nor `Sync`.
//!
//! Long because: each source implements every native read of the sealed trait (the pinned
//! read, its handle, multi-get, the entity read, its handle, entity multi-get, the
//! iterator), each a few lines handing its arguments to its own C function; one source's
//! calls stay together.

use std::ffi::c_char;
use std::marker::PhantomData;
use std::ptr::NonNull;

use crate::raw::entity::{self, EntityHandle};
use crate::raw::error::Result;
use crate::raw::ffi;
use crate::raw::pinned::{self, PinnableHandle};

/// A source a [`Reader`](crate::Reader) reads from (sealed: [`DbSource`],
/// [`TransactionSource`], [`BatchSource`]).
pub trait ReadSource: sealed::Source {}

impl<S: sealed::Source> ReadSource for S {}

/// The native handles of one read: the database, the read options and the column family.
/// Each is live for the call (its owner is borrowed by the reader).
#[derive(Clone, Copy)]
pub(crate) struct Handles {
    pub(crate) db: *mut ffi::rocksdb_t,
    pub(crate) options: *const ffi::rocksdb_readoptions_t,
    pub(crate) cf: *mut ffi::rocksdb_column_family_handle_t,
}

pub(crate) mod sealed {
    use super::*;

    /// The native calls of a source. Not nameable outside the crate.
    ///
    /// Each method's safety contract is the same: `at`'s handles are live for the call,
    /// and so is the source's own native object (the reader borrows its owner for its
    /// lifetime, and a batch is unchanged while borrowed).
    pub trait Source: Copy {
        /// Reads into a caller's buffer with a native call of its own (the C API's buffer
        /// read); without it, one copy out of the pinned value.
        const NATIVE_BUFFER_READ: bool;
        /// Takes `prefix_same_as_start` in its read options: RocksDB would apply it to the
        /// database's keys only, not to a transaction's or batch's own writes.
        const SAME_PREFIX_OPTION: bool;
        /// Reads user-defined timestamps (RocksDB has no timestamped reads of a
        /// transaction's or batch's own writes).
        const TIMESTAMPED_READS: bool;

        /// The one-call pinned read: `f` on the value of `key`, pinned on the C++ stack.
        ///
        /// # Safety
        /// See the trait.
        #[allow(private_interfaces)]
        unsafe fn get_pinned<F: FnOnce(&[u8]) -> R, R>(
            self,
            at: Handles,
            key: &[u8],
            f: F,
        ) -> Result<Option<R>>;

        /// The one-call entity read: `f` on the columns of `key`, pinned on the C++ stack.
        ///
        /// # Safety
        /// See the trait.
        #[allow(private_interfaces)]
        unsafe fn get_entity<F: FnOnce(&[ffi::pinrocks_column]) -> R, R>(
            self,
            at: Handles,
            key: &[u8],
            f: F,
        ) -> Result<Option<R>>;

        /// Pinned entity multi-get: `f(index, columns)` for each of `keys`, in order.
        ///
        /// # Safety
        /// See the trait.
        #[allow(private_interfaces)]
        unsafe fn multi_get_entity<K, F>(self, at: Handles, keys: &[K], f: F) -> Result<()>
        where
            K: AsRef<[u8]>,
            F: FnMut(usize, Option<&[ffi::pinrocks_column]>);

        /// The entity of `key` in a handle that holds the pin until it drops.
        ///
        /// # Safety
        /// See the trait.
        #[allow(private_interfaces)]
        unsafe fn entity_handle(self, at: Handles, key: &[u8]) -> Result<Option<EntityHandle>>;

        /// The value of `key` in a handle that holds the pin until it drops.
        ///
        /// # Safety
        /// See the trait.
        #[allow(private_interfaces)]
        unsafe fn pin_handle(self, at: Handles, key: &[u8]) -> Result<Option<PinnableHandle>>;

        /// Pinned multi-get: `f(index, value)` for each of `keys`, in order.
        ///
        /// # Safety
        /// See the trait.
        #[allow(private_interfaces)]
        unsafe fn multi_get<K: AsRef<[u8]>, F: FnMut(usize, Option<&[u8]>)>(
            self,
            at: Handles,
            keys: &[K],
            f: F,
        ) -> Result<()>;

        /// A new RocksDB iterator (NULL with an error in `code`/`err` on a caught failure).
        ///
        /// # Safety
        /// See the trait; `err` must be an error out-pointer.
        #[allow(private_interfaces)]
        unsafe fn iterator(
            self,
            at: Handles,
            code: &mut i32,
            err: *mut *mut c_char,
        ) -> *mut ffi::rocksdb_iterator_t;
    }
}

/// Reads from the database: what [`Db::reader`](crate::Db::reader) gives. `Send + Sync`,
/// like the database.
#[derive(Debug, Clone, Copy)]
pub struct DbSource;

/// Reads through a transaction (its own writes first, then the database): what
/// [`Transaction::reader`](crate::Transaction::reader) gives. It borrows the transaction,
/// which is used by one thread at a time, so such a reader is neither `Send` nor `Sync`:
///
/// ```compile_fail
/// fn sent<T: Send>(_: T) {}
/// # let dir = tempfile::tempdir().unwrap();
/// # let mut options = pinrocks::Options::new();
/// # options.create_if_missing(true);
/// let db = pinrocks::Db::open_optimistic_transaction_db(&options, dir.path(), []).unwrap();
/// let txn = db.begin().unwrap();
/// sent(txn.reader());
/// ```
#[derive(Debug, Clone, Copy)]
pub struct TransactionSource<'t> {
    txn: NonNull<ffi::rocksdb_transaction_t>,
    /// How it reads: a `PINROCKS_READ_*` (plain, or for update, exclusive or shared).
    mode: i32,
    _txn: PhantomData<&'t ()>,
}

impl TransactionSource<'_> {
    /// Reads through `txn`, alive for the source's lifetime, with `mode` a `PINROCKS_READ_*`.
    pub(crate) fn new(txn: NonNull<ffi::rocksdb_transaction_t>, mode: u32) -> Self {
        TransactionSource {
            txn,
            mode: mode as i32,
            _txn: PhantomData,
        }
    }
}

/// Reads through an [`IndexedBatch`](crate::IndexedBatch): its entries alone, or its entries
/// first and then the database. What [`IndexedBatch::reader`](crate::IndexedBatch::reader)
/// and [`IndexedBatch::batch_reader`](crate::IndexedBatch::batch_reader) give. Like a
/// transaction's, such a reader borrows a batch that one thread uses at a time, so it is
/// neither `Send` nor `Sync`.
#[derive(Debug, Clone, Copy)]
pub struct BatchSource<'b> {
    batch: NonNull<ffi::rocksdb_writebatch_wi_t>,
    batch_only: bool,
    _batch: PhantomData<&'b ()>,
}

impl BatchSource<'_> {
    /// Reads through `batch`, alive and unchanged for the source's lifetime, over the
    /// database or alone.
    pub(crate) fn new(batch: NonNull<ffi::rocksdb_writebatch_wi_t>, batch_only: bool) -> Self {
        BatchSource {
            batch,
            batch_only,
            _batch: PhantomData,
        }
    }
}

#[allow(private_interfaces)]
impl sealed::Source for DbSource {
    const NATIVE_BUFFER_READ: bool = true;
    const SAME_PREFIX_OPTION: bool = true;
    const TIMESTAMPED_READS: bool = true;

    unsafe fn get_pinned<F: FnOnce(&[u8]) -> R, R>(
        self,
        at: Handles,
        key: &[u8],
        f: F,
    ) -> Result<Option<R>> {
        // SAFETY: live handles (the trait's contract).
        unsafe { pinned::get_pinned_native(at.db, at.options, at.cf, key, f) }
    }

    unsafe fn get_entity<F: FnOnce(&[ffi::pinrocks_column]) -> R, R>(
        self,
        at: Handles,
        key: &[u8],
        f: F,
    ) -> Result<Option<R>> {
        let Handles { db, options, cf } = at;
        // SAFETY: the call hands its arguments to `pinrocks_get_entity_pinned`, one of
        // rocksdb-c/'s one-call entity reads; live handles (the trait's contract).
        unsafe {
            entity::get_entity_with(
                &|key, len, callback, ctx, code, err| {
                    ffi::pinrocks_get_entity_pinned(
                        db, options, cf, key, len, callback, ctx, code, err,
                    )
                },
                key,
                f,
            )
        }
    }

    unsafe fn pin_handle(self, at: Handles, key: &[u8]) -> Result<Option<PinnableHandle>> {
        // SAFETY: live handles (the trait's contract).
        unsafe { pinned::get_pinned_handle(at.db, at.options, at.cf, key) }
    }

    unsafe fn multi_get_entity<K, F>(self, at: Handles, keys: &[K], f: F) -> Result<()>
    where
        K: AsRef<[u8]>,
        F: FnMut(usize, Option<&[ffi::pinrocks_column]>),
    {
        let Handles { db, options, cf } = at;
        // SAFETY: the call hands its arguments to `pinrocks_multi_get_entity_pinned`; live
        // handles.
        unsafe {
            entity::multi_get_entity_with(
                &|n, keys, callback, ctx, code, err| {
                    ffi::pinrocks_multi_get_entity_pinned(
                        db, options, cf, n, keys, callback, ctx, code, err,
                    )
                },
                keys,
                f,
            )
        }
    }

    unsafe fn entity_handle(self, at: Handles, key: &[u8]) -> Result<Option<EntityHandle>> {
        let Handles { db, options, cf } = at;
        // SAFETY: the call hands its arguments to `pinrocks_get_entity_handle`; live handles.
        unsafe {
            entity::entity_handle_with(
                &|key, len, code, err| {
                    ffi::pinrocks_get_entity_handle(db, options, cf, key, len, code, err)
                },
                key,
            )
        }
    }

    unsafe fn multi_get<K: AsRef<[u8]>, F: FnMut(usize, Option<&[u8]>)>(
        self,
        at: Handles,
        keys: &[K],
        f: F,
    ) -> Result<()> {
        // SAFETY: live handles (the trait's contract).
        unsafe { pinned::multi_get_pinned(at.db, at.options, at.cf, keys, f) }
    }

    unsafe fn iterator(
        self,
        at: Handles,
        code: &mut i32,
        err: *mut *mut c_char,
    ) -> *mut ffi::rocksdb_iterator_t {
        // SAFETY: live handles (the trait's contract); guarded: NULL and an error on a
        // caught failure.
        unsafe { ffi::pinrocks_guarded_create_iterator_cf(code, at.db, at.options, at.cf, err) }
    }
}

#[allow(private_interfaces)]
impl sealed::Source for TransactionSource<'_> {
    const NATIVE_BUFFER_READ: bool = false;
    const SAME_PREFIX_OPTION: bool = false;
    const TIMESTAMPED_READS: bool = false;

    unsafe fn get_pinned<F: FnOnce(&[u8]) -> R, R>(
        self,
        at: Handles,
        key: &[u8],
        f: F,
    ) -> Result<Option<R>> {
        let Handles { db, options, cf } = at;
        let (txn, mode) = (self.txn.as_ptr(), self.mode);
        // SAFETY: the call hands its arguments to `pinrocks_transaction_get_pinned`, one of
        // rocksdb-c/'s one-call pinned reads; live transaction, options and handle (the
        // trait's contract).
        unsafe {
            pinned::get_pinned_with(
                &|key, len, callback, ctx, code, err| {
                    ffi::pinrocks_transaction_get_pinned(
                        db, txn, options, cf, key, len, mode, callback, ctx, code, err,
                    )
                },
                key,
                f,
            )
        }
    }

    unsafe fn get_entity<F: FnOnce(&[ffi::pinrocks_column]) -> R, R>(
        self,
        at: Handles,
        key: &[u8],
        f: F,
    ) -> Result<Option<R>> {
        let Handles { options, cf, .. } = at;
        let (txn, mode) = (self.txn.as_ptr(), self.mode);
        // SAFETY: the call hands its arguments to `pinrocks_transaction_get_entity_pinned`,
        // one of rocksdb-c/'s one-call entity reads; live transaction, options and handle.
        unsafe {
            entity::get_entity_with(
                &|key, len, callback, ctx, code, err| {
                    ffi::pinrocks_transaction_get_entity_pinned(
                        txn, options, cf, key, len, mode, callback, ctx, code, err,
                    )
                },
                key,
                f,
            )
        }
    }

    unsafe fn multi_get_entity<K, F>(self, at: Handles, keys: &[K], f: F) -> Result<()>
    where
        K: AsRef<[u8]>,
        F: FnMut(usize, Option<&[ffi::pinrocks_column]>),
    {
        let Handles { options, cf, .. } = at;
        let (txn, mode) = (self.txn.as_ptr(), self.mode);
        // SAFETY: the call hands its arguments to
        // `pinrocks_transaction_multi_get_entity_pinned`; live transaction, options and
        // handle.
        unsafe {
            entity::multi_get_entity_with(
                &|n, keys, callback, ctx, code, err| {
                    ffi::pinrocks_transaction_multi_get_entity_pinned(
                        txn, options, cf, n, keys, mode, callback, ctx, code, err,
                    )
                },
                keys,
                f,
            )
        }
    }

    unsafe fn entity_handle(self, at: Handles, key: &[u8]) -> Result<Option<EntityHandle>> {
        let Handles { options, cf, .. } = at;
        let (txn, mode) = (self.txn.as_ptr(), self.mode);
        // SAFETY: the call hands its arguments to `pinrocks_transaction_get_entity_handle`;
        // live transaction, options and handle.
        unsafe {
            entity::entity_handle_with(
                &|key, len, code, err| {
                    ffi::pinrocks_transaction_get_entity_handle(
                        txn, options, cf, key, len, mode, code, err,
                    )
                },
                key,
            )
        }
    }

    unsafe fn pin_handle(self, at: Handles, key: &[u8]) -> Result<Option<PinnableHandle>> {
        // SAFETY: live transaction, options and handle (the trait's contract).
        unsafe {
            pinned::get_pinned_transaction_handle(self.txn, at.options, at.cf, key, self.mode)
        }
    }

    unsafe fn multi_get<K: AsRef<[u8]>, F: FnMut(usize, Option<&[u8]>)>(
        self,
        at: Handles,
        keys: &[K],
        f: F,
    ) -> Result<()> {
        let Handles { options, cf, .. } = at;
        let (txn, mode) = (self.txn.as_ptr(), self.mode);
        // SAFETY: the call hands its arguments to `pinrocks_transaction_multi_get_pinned`,
        // one of rocksdb-c/'s pinned multi-gets; live transaction, options and handle.
        unsafe {
            pinned::multi_get_with(
                &|n, keys, callback, ctx, code, err| {
                    ffi::pinrocks_transaction_multi_get_pinned(
                        txn, options, cf, n, keys, mode, callback, ctx, code, err,
                    )
                },
                keys,
                f,
            )
        }
    }

    unsafe fn iterator(
        self,
        at: Handles,
        code: &mut i32,
        err: *mut *mut c_char,
    ) -> *mut ffi::rocksdb_iterator_t {
        // SAFETY: live transaction, options and handle (the trait's contract); guarded.
        unsafe {
            ffi::pinrocks_guarded_transaction_create_iterator_cf(
                code,
                self.txn.as_ptr(),
                at.options,
                at.cf,
                err,
            )
        }
    }
}

#[allow(private_interfaces)]
impl sealed::Source for BatchSource<'_> {
    const NATIVE_BUFFER_READ: bool = false;
    const SAME_PREFIX_OPTION: bool = false;
    const TIMESTAMPED_READS: bool = false;

    unsafe fn get_pinned<F: FnOnce(&[u8]) -> R, R>(
        self,
        at: Handles,
        key: &[u8],
        f: F,
    ) -> Result<Option<R>> {
        let Handles { db, options, cf } = at;
        let (batch, only) = (self.batch.as_ptr(), u8::from(self.batch_only));
        // SAFETY: the call hands its arguments to `pinrocks_wbwi_get_pinned`, one of
        // rocksdb-c/'s one-call pinned reads; live batch (unchanged while borrowed),
        // database, options and handle.
        unsafe {
            pinned::get_pinned_with(
                &|key, len, callback, ctx, code, err| {
                    ffi::pinrocks_wbwi_get_pinned(
                        db, batch, options, cf, key, len, only, callback, ctx, code, err,
                    )
                },
                key,
                f,
            )
        }
    }

    unsafe fn get_entity<F: FnOnce(&[ffi::pinrocks_column]) -> R, R>(
        self,
        at: Handles,
        key: &[u8],
        f: F,
    ) -> Result<Option<R>> {
        let Handles { db, options, cf } = at;
        let (batch, only) = (self.batch.as_ptr(), u8::from(self.batch_only));
        // SAFETY: the call hands its arguments to `pinrocks_wbwi_get_entity_pinned`, one of
        // rocksdb-c/'s one-call entity reads; live batch (unchanged while borrowed),
        // database, options and handle.
        unsafe {
            entity::get_entity_with(
                &|key, len, callback, ctx, code, err| {
                    ffi::pinrocks_wbwi_get_entity_pinned(
                        db, batch, options, cf, key, len, only, callback, ctx, code, err,
                    )
                },
                key,
                f,
            )
        }
    }

    unsafe fn multi_get_entity<K, F>(self, at: Handles, keys: &[K], f: F) -> Result<()>
    where
        K: AsRef<[u8]>,
        F: FnMut(usize, Option<&[ffi::pinrocks_column]>),
    {
        let Handles { db, options, cf } = at;
        let (batch, only) = (self.batch.as_ptr(), u8::from(self.batch_only));
        // SAFETY: the call hands its arguments to `pinrocks_wbwi_multi_get_entity_pinned`;
        // live batch (unchanged while borrowed), database, options and handle.
        unsafe {
            entity::multi_get_entity_with(
                &|n, keys, callback, ctx, code, err| {
                    ffi::pinrocks_wbwi_multi_get_entity_pinned(
                        db, batch, options, cf, n, keys, only, callback, ctx, code, err,
                    )
                },
                keys,
                f,
            )
        }
    }

    unsafe fn entity_handle(self, at: Handles, key: &[u8]) -> Result<Option<EntityHandle>> {
        let Handles { db, options, cf } = at;
        let (batch, only) = (self.batch.as_ptr(), u8::from(self.batch_only));
        // SAFETY: the call hands its arguments to `pinrocks_wbwi_get_entity_handle`; live
        // batch (unchanged while borrowed), database, options and handle.
        unsafe {
            entity::entity_handle_with(
                &|key, len, code, err| {
                    ffi::pinrocks_wbwi_get_entity_handle(
                        db, batch, options, cf, key, len, only, code, err,
                    )
                },
                key,
            )
        }
    }

    unsafe fn pin_handle(self, at: Handles, key: &[u8]) -> Result<Option<PinnableHandle>> {
        // SAFETY: live batch, database, options and handle (the trait's contract).
        unsafe {
            pinned::get_pinned_batch_handle(
                at.db,
                self.batch,
                at.options,
                at.cf,
                key,
                self.batch_only,
            )
        }
    }

    unsafe fn multi_get<K: AsRef<[u8]>, F: FnMut(usize, Option<&[u8]>)>(
        self,
        at: Handles,
        keys: &[K],
        f: F,
    ) -> Result<()> {
        let Handles { db, options, cf } = at;
        let (batch, only) = (self.batch.as_ptr(), u8::from(self.batch_only));
        // SAFETY: the call hands its arguments to `pinrocks_wbwi_multi_get_pinned`, one of
        // rocksdb-c/'s pinned multi-gets; live batch, database, options and handle.
        unsafe {
            pinned::multi_get_with(
                &|n, keys, callback, ctx, code, err| {
                    ffi::pinrocks_wbwi_multi_get_pinned(
                        db, batch, options, cf, n, keys, only, callback, ctx, code, err,
                    )
                },
                keys,
                f,
            )
        }
    }

    unsafe fn iterator(
        self,
        at: Handles,
        code: &mut i32,
        err: *mut *mut c_char,
    ) -> *mut ffi::rocksdb_iterator_t {
        // SAFETY: live batch, database, options and handle (the trait's contract); guarded.
        unsafe {
            ffi::pinrocks_wbwi_iterator(
                at.db,
                self.batch.as_ptr(),
                at.options,
                at.cf,
                u8::from(self.batch_only),
                code,
                err,
            )
        }
    }
}

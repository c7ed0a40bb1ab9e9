//! A write batch's native handle (`WriteBatch`), a view of any batch's records and bytes,
//! and the database's write of a batch.

use std::ffi::{c_char, c_int};
use std::marker::PhantomData;
use std::ptr::NonNull;

use crate::raw::batch_records::{for_each_record, BatchRecord};
use crate::raw::c_consts::record;
use crate::raw::db::RawDb;
use crate::raw::error::{with_code, with_returned_code, Result};
use crate::raw::family::{FamilyHandle, FamilyPtr};
use crate::raw::ffi;
use crate::raw::owned::Owned;
use crate::raw::write_ops::WriteOptionsHandle;

/// A `WriteBatch` itself, wherever it lives (rocksdb-c/'s `pinrocks_batch`): ours, an
/// indexed batch's or a transaction's, to write, count or iterate it.
pub(crate) type BatchPtr = *mut ffi::pinrocks_batch;

/// Owns a `WriteBatch`: the C API's handle, and the batch inside it.
pub(crate) struct WriteBatchHandle {
    handle: Owned<ffi::rocksdb_writebatch_t>,
    batch: NonNull<ffi::pinrocks_batch>,
}

impl WriteBatchHandle {
    /// An empty batch.
    pub(crate) fn new() -> Self {
        // SAFETY: plain constructor; NULL only on allocation failure.
        let raw = unsafe { ffi::rocksdb_writebatch_create() };
        // SAFETY: a new object, ours alone (or NULL, refused).
        let handle =
            unsafe { Owned::from_raw(raw) }.expect("rocksdb_writebatch_create returned NULL");
        // SAFETY: a live handle; the batch inside it lives as long as it.
        let batch = unsafe { ffi::pinrocks_writebatch_batch(handle.as_ptr()) };
        let batch = NonNull::new(batch).expect("a batch handle holds a batch");
        WriteBatchHandle { handle, batch }
    }

    /// The C API's handle, live while `self` is (its record writes).
    fn as_ptr(&self) -> *mut ffi::rocksdb_writebatch_t {
        self.handle.as_ptr()
    }

    /// The batch, live while `self` is.
    pub(crate) fn batch(&self) -> BatchPtr {
        self.batch.as_ptr()
    }

    /// Its records and bytes, borrowed with it.
    pub(crate) fn view(&self) -> BatchView<'_> {
        // SAFETY: live batch, owned; the view borrows `self`.
        unsafe { BatchView::new(self.batch()) }
    }

    /// One write (`op`: a `record::*`, for a range `value` is its end; an unknown one is
    /// RocksDB's InvalidArgument) to `family` (`None`: the default one, which C++ refuses
    /// with a timestamp), with `ts` for a family that takes timestamps. RocksDB's own
    /// refusals (a key or value over 4 GiB) come back, which the C API's batch calls drop.
    #[inline(always)]
    pub(crate) fn write(
        &mut self,
        family: Option<&FamilyHandle>,
        op: u32,
        key: &[u8],
        value: &[u8],
        ts: Option<&[u8; 8]>,
    ) -> Result<()> {
        if op == record::PUT && ts.is_none() {
            // SAFETY: live batch (owned, `&mut self`), the rest as below.
            return unsafe {
                put_through(
                    self.as_ptr(),
                    family,
                    key,
                    value,
                    ffi::pinrocks_writebatch_put,
                    ffi::pinrocks_writebatch_put_cf,
                )
            };
        }
        if family.is_none() && ts.is_none() && (op == record::DELETE || op == record::MERGE) {
            let (k, k_len) = (key.as_ptr().cast(), key.len());
            let (v, v_len) = (value.as_ptr().cast(), value.len());
            // SAFETY: live batch (owned, `&mut self`); the bytes are copied into the batch
            // during the call; guarded.
            return with_returned_code(|err| unsafe {
                match op {
                    record::DELETE => ffi::pinrocks_writebatch_delete(self.as_ptr(), k, k_len, err),
                    _ => ffi::pinrocks_writebatch_merge(self.as_ptr(), k, k_len, v, v_len, err),
                }
            });
        }
        let family = family.map_or(std::ptr::null_mut(), FamilyHandle::as_ptr);
        let (ts, ts_len) = ts.map_or((std::ptr::null(), 0), |ts| (ts.as_ptr(), ts.len()));
        // SAFETY: live batch (owned, `&mut self`) and handle (borrowed, or NULL); the bytes
        // and the timestamp (or NULL) are copied into the batch during the call; guarded.
        with_code(|code, err| unsafe {
            ffi::pinrocks_writebatch_write(
                self.as_ptr(),
                family,
                op as i32,
                key.as_ptr().cast(),
                key.len(),
                value.as_ptr().cast(),
                value.len(),
                ts.cast(),
                ts_len,
                code,
                err,
            )
        })
    }

    /// Removes every record, keeping the allocation.
    pub(crate) fn clear(&mut self) {
        // SAFETY: live batch, owned, borrowed exclusively.
        unsafe { ffi::rocksdb_writebatch_clear(self.as_ptr()) };
    }
}

/// A put without a timestamp through one of rocksdb-c/'s pair of entries with the fewest
/// arguments (a batch's, an indexed batch's, a transaction's): `default` to the default
/// family (`family` `None`), without a handle, or `named`. Inlined, so each is a direct call.
///
/// # Safety
/// `target` must be live and borrowed exclusively for the call (and the entry's own
/// conditions hold); the bytes are copied in during the call.
#[inline(always)]
pub(crate) unsafe fn put_through<T>(
    target: *mut T,
    family: Option<&FamilyHandle>,
    key: &[u8],
    value: &[u8],
    default: unsafe extern "C" fn(
        *mut T,
        *const c_char,
        usize,
        *const c_char,
        usize,
        ErrOut,
    ) -> c_int,
    named: unsafe extern "C" fn(
        *mut T,
        FamilyPtr,
        *const c_char,
        usize,
        *const c_char,
        usize,
        ErrOut,
    ) -> c_int,
) -> Result<()> {
    let (k, k_len) = (key.as_ptr().cast(), key.len());
    let (v, v_len) = (value.as_ptr().cast(), value.len());
    // SAFETY: the caller's contract; a live handle, or none.
    with_returned_code(|err| unsafe {
        match family {
            None => default(target, k, k_len, v, v_len, err),
            Some(family) => named(target, family.as_ptr(), k, k_len, v, v_len, err),
        }
    })
}

/// Where rocksdb-c/ puts a message.
type ErrOut = *mut *mut c_char;

/// A live batch's records and bytes, borrowed for `'a` from whatever owns the batch.
#[derive(Clone, Copy)]
pub(crate) struct BatchView<'a>(NonNull<ffi::pinrocks_batch>, PhantomData<&'a ()>);

impl BatchView<'_> {
    /// The batch, to write it.
    pub(crate) fn as_ptr(self) -> BatchPtr {
        self.0.as_ptr()
    }

    /// # Safety
    /// `raw` must be a live batch that nothing changes while the view lives.
    pub(crate) unsafe fn new(raw: BatchPtr) -> Self {
        BatchView(
            NonNull::new(raw).expect("a batch handle is never NULL"),
            PhantomData,
        )
    }

    /// How many records it holds (`WriteBatch::Count`, which only reads the header).
    pub(crate) fn count(self) -> u32 {
        // SAFETY: live batch, unchanged while the view lives.
        unsafe { ffi::pinrocks_writebatch_count(self.0.as_ptr()) }
    }

    /// Calls `f` with each record, in order, its bytes borrowed from the batch.
    pub(crate) fn for_each(self, f: impl FnMut(BatchRecord<'_>)) -> Result<()> {
        // SAFETY: live batch, unchanged while the view lives.
        unsafe { for_each_record(self.0.as_ptr(), f) }
    }
}

impl<'a> BatchView<'a> {
    /// Its bytes as RocksDB stores them (`WriteBatch::Data`).
    pub(crate) fn data(self) -> &'a [u8] {
        let mut len = 0;
        // SAFETY: live batch, unchanged for 'a (the view's contract);
        // `pinrocks_writebatch_data` points into its buffer and cannot throw.
        unsafe {
            let data = ffi::pinrocks_writebatch_data(self.0.as_ptr(), &mut len);
            crate::raw::pinned::value_slice(data, len)
        }
    }
}

impl RawDb {
    /// Writes the batch at `batch` atomically (`DB::Write`); an exception inside RocksDB's
    /// write path ends the process (`rocksdb_write` would let it escape; caught, it would
    /// leave the write queue linked to a writer that is gone).
    ///
    /// # Safety
    /// `batch` must be a live batch that no other thread uses during the call: `DB::Write`
    /// writes its sequence number into it (`WriteBatchInternal::SetSequence`).
    pub(crate) unsafe fn write_batch(
        &self,
        options: &WriteOptionsHandle,
        batch: BatchPtr,
    ) -> Result<()> {
        // SAFETY: live database and options; `batch` is live and ours alone for the call
        // (the caller's contract).
        with_returned_code(|err| unsafe {
            ffi::pinrocks_db_write(self.as_ptr(), options.as_ptr(), batch, err)
        })
    }
}

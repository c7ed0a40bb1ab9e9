//! The records of a write batch as RocksDB stores them, read in place through
//! `WriteBatch::Iterate` (our C++): for write batches, indexed batches, a transaction's
//! writes and the WAL's batches alike.

use std::ffi::{c_char, c_int, c_uint, c_void};

use crate::raw::error::{ErrPtr, Result};
use crate::raw::ffi;
use crate::raw::pinned::value_slice;
use crate::raw::trampoline::Carried;

/// One record of a write batch, its bytes borrowed from the batch. `cf` is the column
/// family's id ([`ColumnFamily::id`](crate::ColumnFamily::id); 0 is the default family).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[doc(alias = "WriteBatch::Handler")]
pub enum BatchRecord<'a> {
    /// `key` set to `value`.
    Put {
        /// Column family id.
        cf: u32,
        /// The key.
        key: &'a [u8],
        /// The value.
        value: &'a [u8],
    },
    /// `key` removed.
    Delete {
        /// Column family id.
        cf: u32,
        /// The key.
        key: &'a [u8],
    },
    /// `key` removed by a single delete.
    SingleDelete {
        /// Column family id.
        cf: u32,
        /// The key.
        key: &'a [u8],
    },
    /// Keys in `[start, end)` removed.
    DeleteRange {
        /// Column family id.
        cf: u32,
        /// First key removed.
        start: &'a [u8],
        /// First key kept.
        end: &'a [u8],
    },
    /// A merge operand for `key`.
    Merge {
        /// Column family id.
        cf: u32,
        /// The key.
        key: &'a [u8],
        /// The operand.
        value: &'a [u8],
    },
    /// A wide-column entity for `key`, in RocksDB's serialized form.
    PutEntity {
        /// Column family id.
        cf: u32,
        /// The key.
        key: &'a [u8],
        /// The serialized entity.
        entity: &'a [u8],
    },
    /// A blob logged with the batch, applied to no column family.
    LogData(&'a [u8]),
}

impl BatchRecord<'_> {
    /// The column family id it applies to (`None` for logged data).
    pub fn cf(&self) -> Option<u32> {
        match *self {
            BatchRecord::Put { cf, .. }
            | BatchRecord::Delete { cf, .. }
            | BatchRecord::SingleDelete { cf, .. }
            | BatchRecord::DeleteRange { cf, .. }
            | BatchRecord::Merge { cf, .. }
            | BatchRecord::PutEntity { cf, .. } => Some(cf),
            BatchRecord::LogData(_) => None,
        }
    }
}

/// Called for each record; never unwinds into C++ (a panic stops the iteration and is
/// resumed by `for_each_record`).
extern "C" fn record_trampoline<F: FnMut(BatchRecord<'_>)>(
    ctx: *mut c_void,
    kind: c_int,
    cf: c_uint,
    key: *const c_char,
    key_len: usize,
    value: *const c_char,
    value_len: usize,
) -> u8 {
    // SAFETY: `ctx` is the `Carried<F>` that `for_each_record` passed for this call.
    let callback = unsafe { Carried::<F>::from_ctx(ctx) };
    // SAFETY: RocksDB passes slices of the batch's buffer, valid during this call.
    let (key, value) = unsafe { (value_slice(key, key_len), value_slice(value, value_len)) };
    let record = match kind as u32 {
        ffi::PINROCKS_RECORD_PUT => BatchRecord::Put { cf, key, value },
        ffi::PINROCKS_RECORD_DELETE => BatchRecord::Delete { cf, key },
        ffi::PINROCKS_RECORD_SINGLE_DELETE => BatchRecord::SingleDelete { cf, key },
        ffi::PINROCKS_RECORD_DELETE_RANGE => BatchRecord::DeleteRange {
            cf,
            start: key,
            end: value,
        },
        ffi::PINROCKS_RECORD_MERGE => BatchRecord::Merge { cf, key, value },
        ffi::PINROCKS_RECORD_PUT_ENTITY => BatchRecord::PutEntity {
            cf,
            key,
            entity: value,
        },
        _ => BatchRecord::LogData(key),
    };
    u8::from(callback.run(|f| f(record)).is_none())
}

/// Calls `f` with every record of the batch at `raw`, in order.
/// # Safety
/// `raw` must be a live batch that nothing changes during the call.
pub(crate) unsafe fn for_each_record<F: FnMut(BatchRecord<'_>)>(
    raw: *const ffi::pinrocks_batch,
    f: F,
) -> Result<()> {
    iterate(f, |trampoline, ctx, code, err| {
        // SAFETY: `raw` is live and unchanged during the call (the caller's contract;
        // `WriteBatch::Iterate` only reads it).
        unsafe { ffi::pinrocks_writebatch_iterate(raw, trampoline, ctx, code, err) }
    })
}

/// Calls `f` with every record of the batch whose bytes are `data` (`WriteBatch::Data` of
/// some batch), in order, after RocksDB has checked them: Corruption for malformed bytes,
/// NotSupported for a record a pinrocks batch cannot hold (a transaction marker, a timed
/// put, an entity; a blob index is RocksDB's InvalidArgument).
pub(crate) fn for_each_record_in_bytes<F: FnMut(BatchRecord<'_>)>(data: &[u8], f: F) -> Result<()> {
    iterate(f, |trampoline, ctx, code, err| {
        // SAFETY: `data` is borrowed for the call (C++ copies it into a batch of its own).
        unsafe {
            ffi::pinrocks_writebatch_iterate_bytes(
                data.as_ptr().cast(),
                data.len(),
                trampoline,
                ctx,
                code,
                err,
            )
        }
    })
}

/// Runs one iteration (`call`, given the trampoline for `f`, its context and the status
/// out-parameters) and resumes a panic `f` raised.
fn iterate<F: FnMut(BatchRecord<'_>)>(
    f: F,
    call: impl FnOnce(ffi::pinrocks_record_fn, *mut c_void, &mut c_int, *mut *mut c_char),
) -> Result<()> {
    let mut callback = Carried::new(f);
    let mut err = ErrPtr::new();
    let mut code = 0;
    // `record_trampoline::<F>` matches `callback`'s type.
    call(
        Some(record_trampoline::<F>),
        callback.as_ctx(),
        &mut code,
        err.as_out(),
    );
    callback.finish();
    err.check_with_code(Some(code))
}

//! SST files outside the database: the writer's native handle, the ingest options, the
//! ingest itself and a file's checksum check.

use std::ffi::{c_char, CStr};

use crate::raw::error::{with_code, with_errptr, Result};
use crate::raw::ffi;
use crate::raw::handle_calls::plain_handle;
use crate::raw::options_handle::OptionsHandle;
use crate::raw::owned::Owned;

/// The kinds of entry a writer adds, as `pinrocks_sstfilewriter_write` takes them.
pub(crate) use crate::raw::ffi::{
    PINROCKS_RECORD_DELETE as DELETE, PINROCKS_RECORD_DELETE_RANGE as DELETE_RANGE,
    PINROCKS_RECORD_PUT as PUT,
};

/// Owns one `rocksdb_sstfilewriter_t`. Not `Send` by itself: its owner says.
pub(crate) struct SstWriterHandle(Owned<ffi::rocksdb_sstfilewriter_t>);

impl SstWriterHandle {
    /// A writer with a copy of `options`, writing a new file at `path`.
    ///
    /// # Safety
    /// The copy points at the options' comparator and `Env`: they must outlive the writer.
    pub(crate) unsafe fn create(options: &OptionsHandle, path: &CStr) -> Result<Self> {
        // SAFETY: plain constructor; the writer copies the env options and the options.
        let raw = unsafe {
            let env = ffi::rocksdb_envoptions_create();
            let raw = ffi::rocksdb_sstfilewriter_create(env, options.as_ptr());
            ffi::rocksdb_envoptions_destroy(env);
            raw
        };
        // SAFETY: a new object, ours alone (or NULL).
        let writer = SstWriterHandle(
            unsafe { Owned::from_raw(raw) }.expect("rocksdb_sstfilewriter_create returned NULL"),
        );
        // SAFETY: live writer (owned); the path is copied.
        with_errptr(|err| unsafe {
            ffi::rocksdb_sstfilewriter_open(writer.0.as_ptr(), path.as_ptr(), err)
        })?;
        Ok(writer)
    }

    /// Adds one entry (`PUT`, `DELETE`, `DELETE_RANGE` from `key` to `value`); RocksDB
    /// checks the order.
    pub(crate) fn write(&mut self, op: u32, key: &[u8], value: &[u8]) -> Result<()> {
        // SAFETY: live writer (owned, `&mut self`); the bytes are copied during the call. No
        // C++ exception leaves the call.
        with_code(|code, err| unsafe {
            ffi::pinrocks_sstfilewriter_write(
                self.0.as_ptr(),
                op as i32,
                key.as_ptr().cast(),
                key.len(),
                value.as_ptr().cast(),
                value.len(),
                code,
                err,
            )
        })
    }

    /// Writes the file's index, filter and footer and closes it.
    /// As [`write`](Self::write), at the u64 timestamp `ts` (put, delete, delete range).
    pub(crate) fn write_at(&mut self, op: u32, key: &[u8], ts: u64, value: &[u8]) -> Result<()> {
        // SAFETY: live writer (owned, `&mut self`); the bytes are copied during the call. No
        // C++ exception leaves the call.
        with_code(|code, err| unsafe {
            ffi::pinrocks_sstfilewriter_write_at(
                self.0.as_ptr(),
                op as i32,
                key.as_ptr().cast(),
                key.len(),
                ts,
                value.as_ptr().cast(),
                value.len(),
                code,
                err,
            )
        })
    }

    pub(crate) fn finish(&mut self) -> Result<()> {
        // SAFETY: live writer (owned). No C++ exception leaves the call.
        with_code(|code, err| unsafe {
            ffi::pinrocks_sstfilewriter_finish(self.0.as_ptr(), code, err)
        })
    }
}

plain_handle!(
    /// `IngestExternalFileOptions`.
    IngestOptionsHandle => rocksdb_ingestexternalfileoptions_t,
    rocksdb_ingestexternalfileoptions_create
);

/// Ingests the files at `paths` into the column family `family` of `db`.
///
/// # Safety
/// `db` must be open and `family` one of its live handles, for the call.
pub(crate) unsafe fn ingest(
    db: *mut ffi::rocksdb_t,
    family: *mut ffi::rocksdb_column_family_handle_t,
    paths: &[*const c_char],
    options: &IngestOptionsHandle,
) -> Result<()> {
    // SAFETY: live database, handle (the caller's contract) and options; the paths are
    // borrowed for the call (RocksDB copies them into strings); guarded.
    with_code(|code, err| unsafe {
        ffi::pinrocks_guarded_ingest_external_file_cf(
            code,
            db,
            family,
            paths.as_ptr(),
            paths.len(),
            options.as_ptr(),
            err,
        )
    })
}

/// The range tombstones of the SST file at `path`, read with `options` (its properties).
pub(crate) fn sst_file_range_deletions(options: &OptionsHandle, path: &CStr) -> Result<u64> {
    let mut count = 0u64;
    // SAFETY: live options, copied by the reader; the path is borrowed for the call; guarded.
    with_code(|code, err| unsafe {
        ffi::pinrocks_sst_file_range_deletions(
            options.as_ptr(),
            path.as_ptr(),
            &mut count,
            code,
            err,
        )
    })?;
    Ok(count)
}

/// Reads the SST file at `path` whole with `options`, checking every block's checksum.
pub(crate) fn verify_sst_file(options: &OptionsHandle, path: &CStr) -> Result<()> {
    // SAFETY: live options, copied by the reader; the path is borrowed for the call; guarded.
    with_code(|code, err| unsafe {
        ffi::pinrocks_verify_sst_file(options.as_ptr(), path.as_ptr(), code, err)
    })
}

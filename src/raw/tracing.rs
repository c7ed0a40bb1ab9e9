//! RocksDB's query tracing into a file (rocksdb-c/tracing.cc).

use std::ffi::CStr;

use crate::raw::db::RawDb;
use crate::raw::error::{with_code, Result};
use crate::raw::ffi;

/// What a trace records and how much of it (RocksDB's `TraceOptions`).
pub(crate) struct RawTraceOptions {
    pub(crate) max_trace_file_size: u64,
    pub(crate) sampling_frequency: u64,
    /// RocksDB's `kTraceFilter*` bits of the operations not traced.
    pub(crate) filter: u64,
    pub(crate) preserve_write_order: bool,
}

impl RawDb {
    /// Starts tracing the database's queries into a new file at `path`.
    pub(crate) fn start_trace(&self, path: &CStr, options: &RawTraceOptions) -> Result<()> {
        // SAFETY: live database (owned); the path is read during the call. Guarded.
        with_code(|code, err| unsafe {
            ffi::pinrocks_db_start_trace(
                self.as_ptr(),
                path.as_ptr(),
                options.max_trace_file_size,
                options.sampling_frequency,
                options.filter,
                u8::from(options.preserve_write_order),
                code,
                err,
            )
        })
    }

    /// Ends the trace, closing its file.
    pub(crate) fn end_trace(&self) -> Result<()> {
        // SAFETY: live database (owned). Guarded.
        with_code(|code, err| unsafe { ffi::pinrocks_db_end_trace(self.as_ptr(), code, err) })
    }
}

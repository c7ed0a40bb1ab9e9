//! One write of one record into the database, whatever its kind: the write options' handle
//! and the call that takes them.

use crate::raw::db::RawDb;
use crate::raw::error::{with_code, Result};
use crate::raw::family::FamilyHandle;
use crate::raw::ffi;
use crate::raw::handle_calls::{handle_calls, plain_handle};

plain_handle!(
    /// `WriteOptions`: a plain C++ value, set field by field (`setter!` above).
    WriteOptionsHandle => rocksdb_writeoptions_t,
    rocksdb_writeoptions_create
);

handle_calls!(WriteOptionsHandle {
    /// The I/O priority WAL writes are charged to the rate limiter at (an
    /// `Env::IOPriority`, 0 to 4; RocksDB's writes take 3 or 4).
    fn set_rate_limiter_priority(&mut self, priority: i32) =
        rocksdb_writeoptions_set_rate_limiter_priority;
    /// Checksum bytes per key (RocksDB's writes take 0 or 8).
    fn set_protection_bytes_per_key(&mut self, bytes: usize) =
        rocksdb_writeoptions_set_protection_bytes_per_key;
});

impl RawDb {
    /// One write (`op`: a `record::*`; an unknown one is RocksDB's InvalidArgument) of
    /// `key` and `value` to `family`, with `ts` for a family that takes timestamps. On an
    /// optimistic transaction database a range delete goes through its own call (its
    /// `DB` refuses one).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(crate) fn write_op(
        &self,
        options: &WriteOptionsHandle,
        family: &FamilyHandle,
        op: u32,
        key: &[u8],
        value: &[u8],
        ts: Option<&[u8; 8]>,
    ) -> Result<()> {
        let (ts, ts_len) = ts.map_or((std::ptr::null(), 0), |ts| (ts.as_ptr(), ts.len()));
        match self {
            RawDb::Optimistic { txn_db, .. } if op == ffi::PINROCKS_RECORD_DELETE_RANGE => {
                // SAFETY: as below, on the optimistic transaction database it is (matched);
                // the caller gives no timestamp with it (`check_timestamped_writes`).
                with_code(|code, err| unsafe {
                    ffi::pinrocks_optimistictransactiondb_delete_range(
                        txn_db.as_ptr(),
                        options.as_ptr(),
                        family.as_ptr(),
                        key.as_ptr().cast(),
                        key.len(),
                        value.as_ptr().cast(),
                        value.len(),
                        code,
                        err,
                    )
                })
            }
            // SAFETY: live database, handle and options (borrowed for the call); the bytes
            // and the timestamp (or NULL) are borrowed for the call and copied by RocksDB;
            // guarded (no exception leaves the call).
            _ => with_code(|code, err| unsafe {
                ffi::pinrocks_db_write_op(
                    self.as_ptr(),
                    options.as_ptr(),
                    family.as_ptr(),
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
            }),
        }
    }
}

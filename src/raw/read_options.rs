//! The read options' handle: a plain C++ value, set field by field, some of whose fields
//! RocksDB keeps as pointers (bounds, snapshot, timestamps) that its owner keeps alive.

use crate::raw::db::SnapshotPtr;
use crate::raw::ffi;
use crate::raw::handle_calls::{handle_calls, plain_handle};
use crate::raw::owned::Owned;

/// Read options as the C API passes them, for a read that takes them.
pub(crate) type ReadOptionsPtr = *const ffi::rocksdb_readoptions_t;

plain_handle!(
    /// `ReadOptions`.
    ReadOptionsHandle => rocksdb_readoptions_t,
    rocksdb_readoptions_create
);

handle_calls!(ReadOptionsHandle {
    /// Where reads may look (`ReadTier`: 0 all, 1 block cache, 2 persisted, 3 memtable).
    fn set_read_tier(&mut self, tier: i32) = rocksdb_readoptions_set_read_tier;
    /// Microseconds since the epoch after which a read stops (0: none).
    fn set_deadline(&mut self, micros: u64) = rocksdb_readoptions_set_deadline;
    /// Microseconds each file read may take (0: no limit).
    fn set_io_timeout(&mut self, micros: u64) = rocksdb_readoptions_set_io_timeout;
    /// The I/O priority file reads are charged to the rate limiter at (an
    /// `Env::IOPriority`, 0 to 4; 4 does not charge them).
    fn set_rate_limiter_priority(&mut self, priority: i32) =
        rocksdb_readoptions_set_rate_limiter_priority;
});

impl ReadOptionsHandle {
    /// The options, for a read (live while `self` is).
    #[inline]
    pub(crate) fn as_read_ptr(&self) -> ReadOptionsPtr {
        self.as_ptr()
    }

    /// Whether iterators stop at the end of the seek key's prefix.
    pub(crate) fn prefix_same_as_start(&self) -> bool {
        // SAFETY: live options; the getter only reads them (its pointer is not const in
        // the C header alone).
        unsafe { ffi::rocksdb_readoptions_get_prefix_same_as_start(self.as_ptr()) != 0 }
    }

    /// A copy: the same settings, pointing to the same bound, snapshot and timestamp
    /// storage as these (the caller replaces or keeps those alive).
    pub(crate) fn copy(&self) -> ReadOptionsHandle {
        // SAFETY: live handle; the copy is a new handle we own (NULL only if allocation
        // failed).
        let raw = unsafe { ffi::pinrocks_readoptions_copy(self.as_ptr()) };
        // SAFETY: a new object, ours alone (or NULL, refused).
        ReadOptionsHandle(
            unsafe { Owned::from_raw(raw) }.expect("pinrocks_readoptions_copy returned NULL"),
        )
    }

    /// Reads as of `snapshot`.
    ///
    /// # Safety
    /// The snapshot stays alive while these options can be read with.
    pub(crate) unsafe fn set_snapshot(&mut self, snapshot: SnapshotPtr) {
        // SAFETY: live options; the snapshot's life is the caller's contract.
        unsafe { ffi::rocksdb_readoptions_set_snapshot(self.as_ptr(), snapshot) };
    }

    /// Iterators stop before keys `>= bound`.
    ///
    /// # Safety
    /// RocksDB keeps a pointer into `bound`: it stays alive and unmoved while these options
    /// can be read with (or until replaced).
    pub(crate) unsafe fn set_iterate_upper_bound(&mut self, bound: &[u8]) {
        // SAFETY: live options; `bound`'s life is the caller's contract.
        unsafe {
            ffi::rocksdb_readoptions_set_iterate_upper_bound(
                self.as_ptr(),
                bound.as_ptr().cast(),
                bound.len(),
            )
        };
    }

    /// Iterators start at keys `>= bound`.
    ///
    /// # Safety
    /// As for [`set_iterate_upper_bound`](Self::set_iterate_upper_bound).
    pub(crate) unsafe fn set_iterate_lower_bound(&mut self, bound: &[u8]) {
        // SAFETY: live options; `bound`'s life is the caller's contract.
        unsafe {
            ffi::rocksdb_readoptions_set_iterate_lower_bound(
                self.as_ptr(),
                bound.as_ptr().cast(),
                bound.len(),
            )
        };
    }

    /// Reads as of timestamp `ts`.
    ///
    /// # Safety
    /// As for [`set_iterate_upper_bound`](Self::set_iterate_upper_bound), for `ts`.
    pub(crate) unsafe fn set_timestamp(&mut self, ts: &[u8; 8]) {
        // SAFETY: live options; `ts`'s life is the caller's contract.
        unsafe {
            ffi::rocksdb_readoptions_set_timestamp(self.as_ptr(), ts.as_ptr().cast(), ts.len())
        };
    }

    /// Iterators read the history from timestamp `ts`.
    ///
    /// # Safety
    /// As for [`set_iterate_upper_bound`](Self::set_iterate_upper_bound), for `ts`.
    pub(crate) unsafe fn set_iter_start_ts(&mut self, ts: &[u8; 8]) {
        // SAFETY: live options; `ts`'s life is the caller's contract.
        unsafe {
            ffi::rocksdb_readoptions_set_iter_start_ts(self.as_ptr(), ts.as_ptr().cast(), ts.len())
        };
    }
}

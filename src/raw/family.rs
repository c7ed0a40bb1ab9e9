//! A column family's native handle (`rocksdb_column_family_handle_t`), destroyed by `Drop`,
//! and what RocksDB says of the family through it.

use std::ptr::NonNull;

use crate::raw::ffi;

/// What a family's options let it hold, as `pinrocks_cf_capabilities` reports it.
pub(crate) use crate::raw::ffi::{
    PINROCKS_CF_MERGES as CAN_MERGE, PINROCKS_CF_RANGE_DELETES as CAN_DELETE_RANGES,
};

/// A family's handle, as the calls on a database take it.
pub(crate) type FamilyPtr = *mut ffi::rocksdb_column_family_handle_t;

/// Owns one `rocksdb_column_family_handle_t`, and with it the family's `ColumnFamilyData`
/// (`ColumnFamilyHandleImpl`'s destructor unrefs it). Its owner destroys it while the
/// database is open (`~ColumnFamilyHandleImpl` locks the DB mutex).
pub(crate) struct FamilyHandle(NonNull<ffi::rocksdb_column_family_handle_t>);

// SAFETY: `ColumnFamilyHandleImpl` (db/column_family.h) is immutable after creation (a
// `ColumnFamilyData*`, the `DBImpl*` and the mutex pointer); RocksDB's reads, writes and
// `DropColumnFamily` take it by pointer from any thread. It is destroyed only by `Drop`.
unsafe impl Send for FamilyHandle {}
// SAFETY: see `Send`.
unsafe impl Sync for FamilyHandle {}

impl FamilyHandle {
    /// Takes over a handle RocksDB made.
    ///
    /// # Safety
    /// `raw` must be a live handle nothing else destroys, of a database that stays open
    /// until this drops.
    pub(crate) unsafe fn own(raw: FamilyPtr) -> FamilyHandle {
        FamilyHandle(NonNull::new(raw).expect("RocksDB returned a NULL column family handle"))
    }

    /// The handle, live while `self` is.
    pub(crate) fn as_ptr(&self) -> FamilyPtr {
        self.0.as_ptr()
    }

    /// What its options let it hold (`CAN_*` bits).
    pub(crate) fn capabilities(&self) -> u8 {
        // SAFETY: live handle; guarded.
        unsafe { ffi::pinrocks_cf_capabilities(self.as_ptr()) }
    }

    /// The size of the timestamp its comparator appends to each key (0: none).
    pub(crate) fn timestamp_size(&self) -> usize {
        // SAFETY: live handle; reads the comparator RocksDB holds for the family.
        unsafe { ffi::pinrocks_cf_timestamp_size(self.as_ptr()) }
    }

    /// Its id, as RocksDB numbers families.
    pub(crate) fn id(&self) -> u32 {
        // SAFETY: live handle; reads a field.
        unsafe { ffi::rocksdb_column_family_handle_get_id(self.as_ptr()) }
    }
}

impl Drop for FamilyHandle {
    fn drop(&mut self) {
        // SAFETY: owned by `self`, destroyed once, while its database is still open (the
        // owner's contract, see `own`).
        unsafe { ffi::rocksdb_column_family_handle_destroy(self.as_ptr()) };
    }
}

//! What the options handle is given of the user's code: a comparator, merge operator,
//! compaction filter factory, prefix extractor, info log and event listener, each a state
//! and the C functions over it that the C++ side takes over (and frees), or a pointer the
//! options keep; and the WAL filter, which RocksDB keeps by raw pointer, and its owner.

use std::ffi::{c_char, c_void, CStr};
use std::ptr::NonNull;

use crate::raw::error::{with_code, Error, Result};
use crate::raw::ffi;
use crate::raw::options_handle::OptionsHandle;

impl OptionsHandle {
    /// A user's prefix extractor, which the options take over (and free if this fails).
    ///
    /// # Safety
    /// `extractor` must be a new `rocksdb_slicetransform_t` nothing else frees.
    pub(crate) unsafe fn set_custom_prefix_extractor(
        &mut self,
        extractor: *mut ffi::rocksdb_slicetransform_t,
    ) -> Result<()> {
        // SAFETY: live options; the extractor is taken over (the caller's contract).
        with_code(|code, err| unsafe {
            ffi::pinrocks_options_set_custom_prefix_extractor(self.as_ptr(), extractor, code, err)
        })
    }

    /// A user's comparator, of which RocksDB keeps the pointer.
    ///
    /// # Safety
    /// `comparator` must outlive these options and every database opened with them.
    pub(crate) unsafe fn set_comparator(&mut self, comparator: *mut ffi::rocksdb_comparator_t) {
        // SAFETY: live options; the comparator outlives them (the caller's contract).
        unsafe { ffi::rocksdb_options_set_comparator(self.as_ptr(), comparator) }
    }

    /// A user's merge operator over `state`, which the C++ operator takes (and frees with
    /// `destroy`, also if this fails); the name is copied.
    ///
    /// # Safety
    /// `name` a C string live for the call; `state` what the callbacks expect, nothing else
    /// freeing it.
    pub(crate) unsafe fn set_merge_operator(
        &mut self,
        name: *const c_char,
        state: *mut c_void,
        full: ffi::pinrocks_full_merge_fn,
        partial: ffi::pinrocks_partial_merge_fn,
        destroy: ffi::pinrocks_destroy_fn,
    ) -> Result<()> {
        // SAFETY: live options; the rest is the caller's contract.
        with_code(|code, err| unsafe {
            ffi::pinrocks_options_set_merge_operator(
                self.as_ptr(),
                name,
                state,
                full,
                partial,
                destroy,
                code,
                err,
            )
        })
    }

    /// A user's compaction filter factory over `state`, as the merge operator.
    ///
    /// # Safety
    /// As [`set_merge_operator`](Self::set_merge_operator).
    pub(crate) unsafe fn set_compaction_filter_factory(
        &mut self,
        name: *const c_char,
        state: *mut c_void,
        create: ffi::pinrocks_create_filter_fn,
        filter: ffi::pinrocks_filter_fn,
        destroy_filter: ffi::pinrocks_destroy_fn,
        destroy_factory: ffi::pinrocks_destroy_fn,
    ) -> Result<()> {
        // SAFETY: live options; the rest is the caller's contract.
        with_code(|code, err| unsafe {
            ffi::pinrocks_options_set_compaction_filter_factory(
                self.as_ptr(),
                name,
                state,
                create,
                filter,
                destroy_filter,
                destroy_factory,
                code,
                err,
            )
        })
    }

    /// Appends a user's table-properties collector factory over `state`, as the compaction
    /// filter factory.
    ///
    /// # Safety
    /// As [`set_merge_operator`](Self::set_merge_operator).
    #[allow(clippy::too_many_arguments)] // one per C++ callback, as the C call takes them
    pub(crate) unsafe fn add_table_properties_collector_factory(
        &mut self,
        name: *const c_char,
        state: *mut c_void,
        create: ffi::pinrocks_create_collector_fn,
        add: ffi::pinrocks_collector_add_fn,
        finish: ffi::pinrocks_collector_finish_fn,
        destroy_collector: ffi::pinrocks_destroy_fn,
        destroy_factory: ffi::pinrocks_destroy_fn,
    ) -> Result<()> {
        // SAFETY: live options; the rest is the caller's contract.
        with_code(|code, err| unsafe {
            ffi::pinrocks_options_add_table_properties_collector_factory(
                self.as_ptr(),
                name,
                state,
                create,
                add,
                finish,
                destroy_collector,
                destroy_factory,
                code,
                err,
            )
        })
    }

    /// The info log to a user's logger over `state` (taken, freed with `destroy`, also if
    /// this fails), lines below `level` not formatted.
    ///
    /// # Safety
    /// `state` what `log` expects, nothing else freeing it.
    pub(crate) unsafe fn set_info_log(
        &mut self,
        level: i32,
        state: *mut c_void,
        log: ffi::pinrocks_log_fn,
        destroy: ffi::pinrocks_destroy_fn,
    ) -> Result<()> {
        // SAFETY: live options; the rest is the caller's contract.
        with_code(|code, err| unsafe {
            ffi::pinrocks_options_set_info_log(self.as_ptr(), level, state, log, destroy, code, err)
        })
    }

    /// A user's event listener over `state` (taken, freed with `destroy`, also if this
    /// fails), called for the events whose functions `events` has; the table is copied.
    ///
    /// # Safety
    /// `state` what the table's functions expect, nothing else freeing it.
    pub(crate) unsafe fn add_event_listener(
        &mut self,
        state: *mut c_void,
        events: &ffi::pinrocks_events,
        destroy: ffi::pinrocks_destroy_fn,
    ) -> Result<()> {
        // SAFETY: live options; the rest is the caller's contract.
        with_code(|code, err| unsafe {
            ffi::pinrocks_options_add_event_listener(
                self.as_ptr(),
                state,
                events,
                destroy,
                code,
                err,
            )
        })
    }
}

/// Owns a WAL filter over a user's state (rocksdb-c/'s `pinrocks_wal_filter`). RocksDB keeps
/// a raw pointer to it in the options and in every database opened with them, so the
/// options and each such database share this owner; it is destroyed with the last.
pub(crate) struct WalFilterHandle(NonNull<ffi::pinrocks_wal_filter>);

impl WalFilterHandle {
    /// A filter named `name` over `state` (taken, freed with `destroy`, also if this fails).
    ///
    /// # Safety
    /// `state` what `record` expects, nothing else freeing it; `record` callable from any
    /// thread that opens a database, several at once.
    pub(crate) unsafe fn new(
        name: &CStr,
        state: *mut c_void,
        record: ffi::pinrocks_wal_record_fn,
        destroy: ffi::pinrocks_destroy_fn,
    ) -> Result<Self> {
        // SAFETY: the name is live for the call (copied); the rest the caller's contract.
        let raw = with_code(|code, err| unsafe {
            ffi::pinrocks_wal_filter_create(name.as_ptr(), state, record, destroy, code, err)
        })?;
        NonNull::new(raw)
            .map(WalFilterHandle)
            .ok_or_else(|| Error::invalid("wal_filter", "no filter made, and no error"))
    }
}

impl Drop for WalFilterHandle {
    fn drop(&mut self) {
        // SAFETY: ours, destroyed once; no options or database that points at it is left
        // (each keeps this owner).
        unsafe { ffi::pinrocks_wal_filter_destroy(self.0.as_ptr()) }
    }
}

// SAFETY: the C++ filter (`RustWalFilter`, rocksdb-c/callbacks.cc) holds its name, never
// changed, and the state. RocksDB calls `LogRecordFound` only from
// `DBImpl::InvokeWalFilterIfNeededOnWalRecord`, on the thread that opens a database (several
// opens at once with one filter), and `Name()` (const) when it logs or serializes options;
// the state is a `Send + Sync` Rust filter (the caller's contract in `new`), and the last
// owner frees it on any thread.
unsafe impl Send for WalFilterHandle {}
// SAFETY: as `Send`: shared, only those two calls read it.
unsafe impl Sync for WalFilterHandle {}

impl OptionsHandle {
    /// The WAL filter every database opened with these options replays its WAL through.
    ///
    /// # Safety
    /// `filter` must outlive these options and every database opened with them.
    pub(crate) unsafe fn set_wal_filter(&mut self, filter: &WalFilterHandle) {
        // SAFETY: live options and filter; the filter outlives them (the caller's contract).
        unsafe { ffi::pinrocks_options_set_wal_filter(self.as_ptr(), filter.0.as_ptr()) }
    }
}

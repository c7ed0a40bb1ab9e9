//! A RocksDB iterator's handle: its moves, its entry, columns and timestamp borrowed in
//! place, its status, and its refresh. Every call is one of rocksdb-c/'s guarded ones or a
//! C API call that cannot throw, so a cursor's errors come from its status alone.

use std::ptr::NonNull;

use crate::raw::c_consts::iter;
use crate::raw::c_types::pinrocks_column;
use crate::raw::error::{with_code, with_errptr, Result};
use crate::raw::ffi;
use crate::raw::pinned::value_slice;
use crate::raw::read_options::ReadOptionsHandle;

/// Owns a RocksDB iterator; destroys it on drop. Its owner above keeps alive what it reads
/// (database, options and their bounds, transaction or batch) until then.
pub(crate) struct IteratorHandle(NonNull<ffi::rocksdb_iterator_t>);

impl IteratorHandle {
    /// Takes a new iterator, ours alone.
    pub(crate) fn own(raw: *mut ffi::rocksdb_iterator_t) -> Self {
        IteratorHandle(NonNull::new(raw).expect("rocksdb_create_iterator returned NULL"))
    }

    /// An iterator that is never valid and reports no error (for a read refused).
    pub(crate) fn empty() -> Result<Self> {
        // SAFETY: a new iterator over nothing, ours; guarded.
        let raw = with_code(|code, err| unsafe { ffi::pinrocks_empty_iterator(code, err) })?;
        Ok(Self::own(raw))
    }

    /// The entry it is at: key and value, borrowed until it moves (`None`: not valid).
    #[inline]
    pub(crate) fn entry(&self) -> Option<(&[u8], &[u8])> {
        let (mut key, mut key_len) = (std::ptr::null(), 0usize);
        let (mut value, mut value_len) = (std::ptr::null(), 0usize);
        // SAFETY: live iterator; one call for its validity, key and value (a scan's step is
        // this and the move). A valid iterator's key and value stay unchanged until it
        // moves, which needs `&mut self` and so ends these borrows first.
        unsafe {
            let valid = ffi::pinrocks_iter_entry(
                self.0.as_ptr(),
                &mut key,
                &mut key_len,
                &mut value,
                &mut value_len,
            );
            (valid != 0).then(|| (value_slice(key, key_len), value_slice(value, value_len)))
        }
    }

    /// One move (`op`: an `iter::*`), made only if valid where that matters (the C++
    /// checks); no exception leaves the call: one thrown inside replaces the C++ iterator
    /// with one that is not valid and reports it from [`status`](Self::status).
    #[inline]
    fn step(&mut self, op: u32) {
        // SAFETY: live iterator, borrowed exclusively; guarded.
        unsafe { ffi::pinrocks_iter_move(self.0.as_ptr(), op as i32) };
    }

    /// To the first entry.
    pub(crate) fn seek_to_first(&mut self) {
        self.step(iter::FIRST);
    }

    /// To the last entry.
    pub(crate) fn seek_to_last(&mut self) {
        self.step(iter::LAST);
    }

    /// To the next entry (nothing past the end).
    #[inline]
    pub(crate) fn next(&mut self) {
        self.step(iter::NEXT);
    }

    /// To the previous entry (nothing before the start).
    #[inline]
    pub(crate) fn prev(&mut self) {
        self.step(iter::PREV);
    }

    /// To the first entry with a key `>= key`; guarded as the moves are.
    pub(crate) fn seek(&mut self, key: &[u8]) {
        // SAFETY: live iterator, borrowed exclusively; RocksDB copies what it needs of
        // `key`; guarded.
        unsafe { ffi::pinrocks_iter_seek(self.0.as_ptr(), key.as_ptr().cast(), key.len()) };
    }

    /// To the last entry with a key `<= key`; guarded as the moves are.
    pub(crate) fn seek_for_prev(&mut self, key: &[u8]) {
        // SAFETY: as in `seek`.
        unsafe {
            ffi::pinrocks_iter_seek_for_prev(self.0.as_ptr(), key.as_ptr().cast(), key.len())
        };
    }

    /// The current entry's columns, borrowed until it moves.
    ///
    /// # Safety
    /// The iterator is valid, and one whose `columns()` RocksDB implements (a database
    /// iterator, or a transaction's or indexed batch's base-delta one; not a TTL
    /// database's).
    pub(crate) unsafe fn columns(&self) -> &[pinrocks_column] {
        let (mut columns, mut count) = (std::ptr::null(), 0usize);
        // SAFETY: the caller's contract; it only reads. The columns stay unchanged until
        // the iterator moves, which needs `&mut self` and so ends this borrow first.
        unsafe {
            ffi::pinrocks_iter_columns(self.0.as_ptr(), &mut columns, &mut count);
            crate::raw::entity::column_slice(columns, count)
        }
    }

    /// The current entry's timestamp, borrowed until it moves.
    ///
    /// # Safety
    /// The iterator is valid, over a database (not a transaction or batch).
    pub(crate) unsafe fn timestamp(&self) -> &[u8] {
        let mut len = 0usize;
        // SAFETY: the caller's contract; the slice stays unchanged until the iterator
        // moves, which needs `&mut self`.
        unsafe {
            let data = ffi::rocksdb_iter_timestamp(self.0.as_ptr(), &mut len);
            value_slice(data, len)
        }
    }

    /// The error that stopped it, if any.
    pub(crate) fn status(&self) -> Result<()> {
        // SAFETY: live iterator; `GetError` cannot throw.
        with_errptr(|err| unsafe { ffi::rocksdb_iter_get_error(self.0.as_ptr(), err) })
    }

    /// Points it at the read options' snapshot (none: the latest), guarded.
    ///
    /// # Safety
    /// RocksDB keeps the snapshot pointer: the snapshot lives as long as the iterator (or
    /// until its next refresh succeeds).
    pub(crate) unsafe fn refresh_at(&mut self, at: &ReadOptionsHandle) -> Result<()> {
        // SAFETY: live iterator, borrowed exclusively; `at` lives for the call; the
        // snapshot's life is the caller's contract; guarded.
        with_code(|code, err| unsafe {
            ffi::pinrocks_iter_refresh_at(self.0.as_ptr(), at.as_ptr(), code, err)
        })
    }
}

impl Drop for IteratorHandle {
    fn drop(&mut self) {
        // SAFETY: owned, destroyed once, before what it reads goes (its owner's contract).
        unsafe { ffi::rocksdb_iter_destroy(self.0.as_ptr()) };
    }
}

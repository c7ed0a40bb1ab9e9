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
pub(crate) struct IteratorHandle {
    raw: NonNull<ffi::rocksdb_iterator_t>,
    /// The database it reads (null: none), which its owner keeps alive too: a move or a
    /// refresh that throws inside RocksDB may have left that database's state to mend, or
    /// a lock held that ends the process (rocksdb-c/thrown_reads.cc).
    db: *mut ffi::rocksdb_t,
    /// `iter::TAILING` for an iterator made with `tailing` read options (else 0), or'd into
    /// every move: such a move that throws ends the process (rocksdb-c/guarded_calls.h).
    tailing: u32,
    /// The key and value its last move landed on (`None`: not valid), as RocksDB gave
    /// them in the same call as the move: RocksDB keeps those bytes unchanged until the
    /// iterator moves again, which needs `&mut self`, as a refresh does (which reads the
    /// entry again). A scan's step is one crossing.
    at: Option<(*const [u8], *const [u8])>,
}

impl IteratorHandle {
    /// Takes a new iterator over `db` (null: none), made with `tailing` read options or not,
    /// ours alone, not yet positioned (so not valid: RocksDB's iterators start so).
    pub(crate) fn own(
        raw: *mut ffi::rocksdb_iterator_t,
        db: *mut ffi::rocksdb_t,
        tailing: bool,
    ) -> Self {
        let raw = NonNull::new(raw).expect("rocksdb_create_iterator returned NULL");
        let tailing = if tailing { iter::TAILING } else { 0 };
        IteratorHandle {
            raw,
            db,
            tailing,
            at: None,
        }
    }

    /// An iterator that is never valid and reports no error (for a read refused).
    pub(crate) fn empty() -> Result<Self> {
        // SAFETY: a new iterator over nothing, ours; guarded.
        let raw = with_code(|code, err| unsafe { ffi::pinrocks_empty_iterator(code, err) })?;
        Ok(Self::own(raw, std::ptr::null_mut(), false))
    }

    fn as_ptr(&self) -> *mut ffi::rocksdb_iterator_t {
        self.raw.as_ptr()
    }

    /// The entry it is at: key and value, borrowed until it moves (`None`: not valid).
    #[inline]
    pub(crate) fn entry(&self) -> Option<(&[u8], &[u8])> {
        // SAFETY: what RocksDB gave for the position it is still at (every move needs
        // `&mut self`, which ends these borrows first, and lands again).
        self.at.map(|(key, value)| unsafe { (&*key, &*value) })
    }

    /// Keeps what RocksDB said of where it landed.
    #[inline]
    fn landed(&mut self, valid: u8, entry: &ffi::pinrocks_entry) {
        self.at = (valid != 0).then(|| {
            // SAFETY: a valid iterator's key and value, unchanged until it moves.
            unsafe {
                let key: *const [u8] = value_slice(entry.key.data, entry.key.len);
                let value: *const [u8] = value_slice(entry.value.data, entry.value.len);
                (key, value)
            }
        });
    }

    /// One move (`op`: an `iter::*`; `target`: a seek's), made only if valid where that
    /// matters (the C++ checks), and the entry it lands on; no exception leaves the call:
    /// one thrown inside replaces the C++ iterator with one that is not valid and reports
    /// it from [`status`](Self::status).
    #[inline]
    fn step(&mut self, op: u32, target: &[u8]) {
        let mut entry = EMPTY;
        // SAFETY: live iterator, borrowed exclusively, and its database (or null); RocksDB
        // copies what it needs of `target`; guarded.
        let valid = unsafe {
            ffi::pinrocks_iter_step(
                self.db,
                self.as_ptr(),
                (op | self.tailing) as i32,
                target.as_ptr().cast(),
                target.len(),
                &mut entry,
            )
        };
        self.landed(valid, &entry);
    }

    /// Reads again where it is (after a refresh, which may or may not keep a position).
    fn land(&mut self) {
        let mut entry = EMPTY;
        // SAFETY: live iterator; it only reads.
        let valid = unsafe { ffi::pinrocks_iter_entry(self.as_ptr(), &mut entry) };
        self.landed(valid, &entry);
    }

    /// To the first entry.
    pub(crate) fn seek_to_first(&mut self) {
        self.step(iter::FIRST, &[]);
    }

    /// To the last entry.
    pub(crate) fn seek_to_last(&mut self) {
        self.step(iter::LAST, &[]);
    }

    /// To the next entry (nothing past the end).
    #[inline]
    pub(crate) fn next(&mut self) {
        self.step(iter::NEXT, &[]);
    }

    /// To the previous entry (nothing before the start).
    #[inline]
    pub(crate) fn prev(&mut self) {
        self.step(iter::PREV, &[]);
    }

    /// To the first entry with a key `>= key`; guarded as the moves are.
    pub(crate) fn seek(&mut self, key: &[u8]) {
        self.step(iter::SEEK, key);
    }

    /// To the last entry with a key `<= key`; guarded as the moves are.
    pub(crate) fn seek_for_prev(&mut self, key: &[u8]) {
        self.step(iter::SEEK_FOR_PREV, key);
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
            ffi::pinrocks_iter_columns(self.as_ptr(), &mut columns, &mut count);
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
            let data = ffi::rocksdb_iter_timestamp(self.as_ptr(), &mut len);
            value_slice(data, len)
        }
    }

    /// The error that stopped it, if any.
    pub(crate) fn status(&self) -> Result<()> {
        // SAFETY: live iterator; `GetError` cannot throw.
        with_errptr(|err| unsafe { ffi::rocksdb_iter_get_error(self.as_ptr(), err) })
    }

    /// Points it at the read options' snapshot (none: the latest), guarded.
    ///
    /// # Safety
    /// RocksDB keeps the snapshot pointer: the snapshot lives as long as the iterator (or
    /// until its next refresh succeeds).
    pub(crate) unsafe fn refresh_at(&mut self, at: &ReadOptionsHandle) -> Result<()> {
        // SAFETY: live iterator, borrowed exclusively, and its database (or null); `at` lives
        // for the call; the snapshot's life is the caller's contract; guarded.
        let refreshed = with_code(|code, err| unsafe {
            ffi::pinrocks_iter_refresh_at(self.db, self.as_ptr(), at.as_ptr(), code, err)
        });
        self.land();
        refreshed
    }
}

/// An entry for the C++ to fill.
const EMPTY: ffi::pinrocks_entry = ffi::pinrocks_entry {
    key: ffi::pinrocks_slice {
        data: std::ptr::null(),
        len: 0,
    },
    value: ffi::pinrocks_slice {
        data: std::ptr::null(),
        len: 0,
    },
};

impl Drop for IteratorHandle {
    fn drop(&mut self) {
        // SAFETY: owned, destroyed once, before what it reads goes (its owner's contract).
        unsafe { ffi::rocksdb_iter_destroy(self.as_ptr()) };
    }
}

//! Atomic groups of writes.

use std::ptr::NonNull;

use crate::column_family::ColumnFamily;
use crate::ffi;

/// Puts and deletes applied together by [`Writer::write`](crate::Writer::write): all of
/// them or none. The batch copies keys and values in, so they need not outlive it.
pub struct WriteBatch {
    raw: NonNull<ffi::rocksdb_writebatch_t>,
    /// The first `delete_range` whose start sorts after its end: writing it would poison
    /// the database (see `Writer::delete_range`), so the write refuses the batch.
    inverted_range: Option<InvertedRange>,
    /// Where the named column families come from: a batch stores column family ids, which
    /// mean something else in another database, so a write elsewhere is refused.
    databases: Databases,
}

/// The database(s) whose column families a batch names, by the address of their inner
/// state (compared, never dereferenced).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Databases {
    None,
    One(usize),
    Several,
}

/// The start and end of a `delete_range` whose start sorts after its end.
type InvertedRange = (Box<[u8]>, Box<[u8]>);

// SAFETY: a `WriteBatch` is an owned byte buffer with no thread affinity; mutation needs
// `&mut self`, and `&WriteBatch` is only read (by `DB::Write`).
unsafe impl Send for WriteBatch {}
// SAFETY: see `Send`.
unsafe impl Sync for WriteBatch {}

impl WriteBatch {
    /// An empty batch.
    pub fn new() -> Self {
        // SAFETY: plain constructor; NULL only on allocation failure.
        let raw = unsafe { ffi::rocksdb_writebatch_create() };
        WriteBatch {
            raw: NonNull::new(raw).expect("rocksdb_writebatch_create returned NULL"),
            inverted_range: None,
            databases: Databases::None,
        }
    }

    /// Sets `key` to `value` in `cf` (`None`: the default column family).
    pub fn put(&mut self, cf: Option<&ColumnFamily<'_>>, key: &[u8], value: &[u8]) -> &mut Self {
        self.note_database(cf);
        // SAFETY: live batch and handle; the bytes are copied into the batch.
        unsafe {
            match cf {
                Some(cf) => ffi::rocksdb_writebatch_put_cf(
                    self.raw.as_ptr(),
                    cf.handle().raw(),
                    key.as_ptr().cast(),
                    key.len(),
                    value.as_ptr().cast(),
                    value.len(),
                ),
                None => ffi::rocksdb_writebatch_put(
                    self.raw.as_ptr(),
                    key.as_ptr().cast(),
                    key.len(),
                    value.as_ptr().cast(),
                    value.len(),
                ),
            }
        }
        self
    }

    /// Removes `key` from `cf` (`None`: the default column family).
    pub fn delete(&mut self, cf: Option<&ColumnFamily<'_>>, key: &[u8]) -> &mut Self {
        self.note_database(cf);
        // SAFETY: live batch and handle; the key is copied into the batch.
        unsafe {
            match cf {
                Some(cf) => ffi::rocksdb_writebatch_delete_cf(
                    self.raw.as_ptr(),
                    cf.handle().raw(),
                    key.as_ptr().cast(),
                    key.len(),
                ),
                None => ffi::rocksdb_writebatch_delete(
                    self.raw.as_ptr(),
                    key.as_ptr().cast(),
                    key.len(),
                ),
            }
        }
        self
    }

    /// Removes keys in `[from, to)` from `cf` (`None`: the default column family). A range
    /// whose start sorts after its end makes the whole batch fail to write.
    pub fn delete_range(
        &mut self,
        cf: Option<&ColumnFamily<'_>>,
        from: &[u8],
        to: &[u8],
    ) -> &mut Self {
        self.note_database(cf);
        if from > to && self.inverted_range.is_none() {
            self.inverted_range = Some((from.into(), to.into()));
        }
        // SAFETY: live batch and handle; the keys are copied into the batch.
        unsafe {
            match cf {
                Some(cf) => ffi::rocksdb_writebatch_delete_range_cf(
                    self.raw.as_ptr(),
                    cf.handle().raw(),
                    from.as_ptr().cast(),
                    from.len(),
                    to.as_ptr().cast(),
                    to.len(),
                ),
                None => ffi::rocksdb_writebatch_delete_range(
                    self.raw.as_ptr(),
                    from.as_ptr().cast(),
                    from.len(),
                    to.as_ptr().cast(),
                    to.len(),
                ),
            }
        }
        self
    }

    /// The number of operations in the batch.
    pub fn len(&self) -> usize {
        // SAFETY: live batch.
        let count = unsafe { ffi::rocksdb_writebatch_count(self.raw.as_ptr()) };
        count as usize
    }

    /// Whether the batch holds no operation.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Removes every operation, keeping the allocation for reuse.
    pub fn clear(&mut self) {
        // SAFETY: live batch.
        unsafe { ffi::rocksdb_writebatch_clear(self.raw.as_ptr()) };
        self.inverted_range = None;
        self.databases = Databases::None;
    }

    fn note_database(&mut self, cf: Option<&ColumnFamily<'_>>) {
        if let Some(cf) = cf {
            let db = cf.db_address();
            self.databases = match self.databases {
                Databases::None => Databases::One(db),
                Databases::One(d) if d == db => Databases::One(d),
                _ => Databases::Several,
            };
        }
    }

    /// Whether the batch may be written to the database at `db`: it names no column family
    /// of any other.
    pub(crate) fn fits_database(&self, db: usize) -> bool {
        match self.databases {
            Databases::None => true,
            Databases::One(d) => d == db,
            Databases::Several => false,
        }
    }

    pub(crate) fn inverted_range(&self) -> Option<(&[u8], &[u8])> {
        self.inverted_range.as_ref().map(|(a, b)| (&a[..], &b[..]))
    }

    pub(crate) fn raw(&self) -> *mut ffi::rocksdb_writebatch_t {
        self.raw.as_ptr()
    }
}

impl Default for WriteBatch {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for WriteBatch {
    fn drop(&mut self) {
        // SAFETY: owned by `self`, destroyed once.
        unsafe { ffi::rocksdb_writebatch_destroy(self.raw.as_ptr()) };
    }
}

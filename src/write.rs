//! Writes, on any column family with any write options.

use std::sync::Arc;

use crate::batch::{NamedFamily, WriteBatch};
use crate::column_family::ColumnFamily;
use crate::comparator::{compare, Comparator};
use crate::error::{ErrPtr, Error, Result};
use crate::ffi;
use crate::handles::{CfHandle, DbInner};
use crate::options::WriteOptions;

/// Rejects a delete range whose start sorts after its end, in the column family's order.
pub(crate) fn check_range(order: Option<&Comparator>, from: &[u8], to: &[u8]) -> Result<()> {
    if compare(order, from, to).is_gt() {
        return Err(Error::InvertedRange {
            start: from.to_vec(),
            end: to.to_vec(),
        });
    }
    Ok(())
}

impl<'db> ColumnFamily<'db> {
    /// Writes to this column family with default write options.
    pub fn writer(&self) -> Writer<'_> {
        Writer::new(self.db, self.handle())
    }
}

/// Where and how to write: a column family (default: the default one) and write options
/// (default: RocksDB's). Get one from [`Db::writer`](crate::Db::writer) or
/// [`ColumnFamily::writer`].
///
/// Every write is refused, before it reaches RocksDB, on a database opened read-only
/// ([`Error::ReadOnly`]) and on a column family that was dropped
/// ([`Error::ColumnFamilyDropped`]).
///
/// ```
/// # fn main() -> pinrocks::Result<()> {
/// # let dir = tempfile::tempdir().unwrap();
/// # let mut opts = pinrocks::Options::new();
/// # opts.create_if_missing(true);
/// # let db = pinrocks::Db::open(&opts, dir.path())?;
/// let mut durable = pinrocks::WriteOptions::new();
/// durable.sync(true);
/// let users = db.create_cf("users", &pinrocks::Options::new())?;
/// let writer = db.writer().cf(&users).options(&durable);
/// writer.put(b"ada", b"Lovelace")?;
/// writer.put(b"alan", b"Turing")?;
/// writer.delete(b"alan")?;
/// writer.delete_range(b"b", b"c")?; // removes [b, c)
/// assert_eq!(users.reader().get(b"ada")?.as_deref(), Some(&b"Lovelace"[..]));
/// assert_eq!(users.reader().get(b"alan")?, None);
/// # Ok(()) }
/// ```
#[derive(Clone, Copy)]
pub struct Writer<'a> {
    db: &'a DbInner,
    cf: &'a CfHandle,
    options: &'a WriteOptions,
}

impl<'a> Writer<'a> {
    pub(crate) fn new(db: &'a DbInner, cf: &'a Arc<CfHandle>) -> Self {
        Writer {
            db,
            cf,
            options: WriteOptions::defaults(),
        }
    }

    /// Writes to `cf` instead.
    ///
    /// # Panics
    /// If `cf` belongs to another database.
    pub fn cf(self, cf: &'a ColumnFamily<'_>) -> Self {
        Writer {
            cf: cf.handle_for(self.db),
            ..self
        }
    }

    /// Writes with `options` instead of the defaults.
    pub fn options(self, options: &'a WriteOptions) -> Self {
        Writer { options, ..self }
    }

    /// One write (`op`: a `PINROCKS_RECORD_*`; for a range, `value` is its end) with this
    /// writer's column family alive (not dropped, and not droppable until it returns),
    /// through our guarded shim: the C API's `rocksdb_put_cf` & co. let `std::bad_alloc`
    /// escape (a value too big to copy).
    fn apply(&self, operation: &'static str, op: u32, key: &[u8], value: &[u8]) -> Result<()> {
        let mut err = ErrPtr::new();
        let mut code = 0;
        self.db.with_live_family(operation, self.cf, || {
            // SAFETY: live database, handle and options (borrowed for 'a); the bytes are
            // borrowed for the call and copied by RocksDB.
            unsafe {
                ffi::pinrocks_db_write_op(
                    self.db.raw(),
                    self.options.raw(),
                    self.cf.raw(),
                    op as i32,
                    key.as_ptr().cast(),
                    key.len(),
                    value.as_ptr().cast(),
                    value.len(),
                    &mut code,
                    err.as_out(),
                )
            }
        })?;
        err.check_with_code(Some(code))
    }

    /// Sets `key` to `value`.
    pub fn put(&self, key: &[u8], value: &[u8]) -> Result<()> {
        self.apply("put", ffi::PINROCKS_RECORD_PUT, key, value)
    }

    /// Removes `key`. Removing an absent key is not an error.
    pub fn delete(&self, key: &[u8]) -> Result<()> {
        self.apply("delete", ffi::PINROCKS_RECORD_DELETE, key, &[])
    }

    /// Adds `operand` to `key`'s pending merge operands, combined with its value by the
    /// column family's [`MergeOperator`](crate::MergeOperator) when read or compacted.
    /// Without a merge operator RocksDB refuses it (`NotSupported`).
    pub fn merge(&self, key: &[u8], operand: &[u8]) -> Result<()> {
        self.apply("merge", ffi::PINROCKS_RECORD_MERGE, key, operand)
    }

    /// Removes every key in `[from, to)` with one range tombstone.
    ///
    /// `from > to` is an [`Error::InvertedRange`], checked here: RocksDB 11.8.1 would write
    /// such a range to the WAL, fail to apply it, and then refuse every later write to the
    /// database until it is reopened.
    pub fn delete_range(&self, from: &[u8], to: &[u8]) -> Result<()> {
        check_range(self.cf.order.as_ref(), from, to)?;
        self.apply("delete_range", ffi::PINROCKS_RECORD_DELETE_RANGE, from, to)
    }

    /// Applies every operation of `batch` atomically, each to the column family it names.
    /// The writer's column family is not used.
    ///
    /// A batch holding an inverted range (see [`delete_range`](Self::delete_range)),
    /// naming a column family of another database (a batch stores column family ids, which
    /// mean another family there: [`Error::ForeignColumnFamily`]) or a dropped one
    /// ([`Error::ColumnFamilyDropped`]) is rejected whole, before anything is written.
    pub fn write(&self, batch: &WriteBatch) -> Result<()> {
        self.db.check_writable("write")?;
        batch.check_ranges(self.db)?;
        // SAFETY: `batch` is live and borrowed for the call; `WriteBatch` is not `Sync`, so
        // no other thread uses it meanwhile.
        unsafe { self.write_raw(batch.raw(), batch.families()) }
    }

    /// Writes the batch at `raw`, which names `families`, after checking that each is a
    /// live family of this database. The caller has checked that the database is writable.
    ///
    /// # Safety
    /// `raw` must be a live batch that no other thread uses during the call: `DB::Write`
    /// writes its sequence number into it (`WriteBatchInternal::SetSequence`).
    pub(crate) unsafe fn write_raw(
        &self,
        raw: *mut ffi::rocksdb_writebatch_t,
        families: &[NamedFamily],
    ) -> Result<()> {
        let mut err = ErrPtr::new();
        let mut code = 0;
        // The families stay undroppable until the write returns (no lock is held: a write
        // that stalls or waits for row locks holds up only drops of its own families).
        let _writing = NamedFamily::enter_all(families, self.db)?;
        // SAFETY: live database and options; `raw` is live and ours alone for the call (the
        // caller's contract). Guarded: `rocksdb_write` lets `std::bad_alloc` escape.
        unsafe {
            ffi::pinrocks_db_write(
                self.db.raw(),
                self.options.raw(),
                raw,
                &mut code,
                err.as_out(),
            )
        };
        err.check_with_code(Some(code))
    }
}

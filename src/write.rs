//! Writes, on any column family with any write options.

use crate::column_family::{CfHandle, ColumnFamily};
use crate::db::DbInner;
use crate::error::{ffi_try, Result};
use crate::options::WriteOptions;

pub use crate::batch::WriteBatch;

/// Rejects a delete range whose start sorts after its end (bytewise, RocksDB's order).
pub(crate) fn check_range(from: &[u8], to: &[u8]) -> Result<()> {
    if from > to {
        return Err(crate::Error::invalid(
            "delete range",
            format!("start {from:?} sorts after end {to:?}"),
        ));
    }
    Ok(())
}

/// Where and how to write: a column family (default: the default one) and write options
/// (default: RocksDB's). Get one from [`Db::writer`](crate::Db::writer) or
/// [`ColumnFamily::writer`].
///
/// Every write is refused, before it reaches RocksDB, on a database opened read-only
/// ([`Error::ReadOnly`](crate::Error::ReadOnly)) and on a column family that was dropped
/// ([`Error::ColumnFamilyDropped`](crate::Error::ColumnFamilyDropped)).
#[derive(Clone, Copy)]
pub struct Writer<'a> {
    db: &'a DbInner,
    cf: &'a CfHandle,
    options: &'a WriteOptions,
}

impl<'a> Writer<'a> {
    pub(crate) fn new(db: &'a DbInner, cf: &'a CfHandle) -> Self {
        Writer {
            db,
            cf,
            options: &db.default_write,
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

    /// Runs `write` with this writer's column family alive: not dropped, and not droppable
    /// until `write` returns.
    fn in_live_family(
        &self,
        operation: &'static str,
        write: impl FnOnce() -> Result<()>,
    ) -> Result<()> {
        self.db.check_writable(operation)?;
        if self.cf.is_default() {
            return write();
        }
        let _families = self.db.lock_families();
        self.db.live_family(self.cf)?;
        write()
    }

    /// Sets `key` to `value`.
    pub fn put(&self, key: &[u8], value: &[u8]) -> Result<()> {
        self.in_live_family("put", || {
            ffi_try!(rocksdb_put_cf(
                self.db.raw(),
                self.options.raw(),
                self.cf.raw(),
                key.as_ptr().cast(),
                key.len(),
                value.as_ptr().cast(),
                value.len(),
            ))
        })
    }

    /// Removes `key`. Removing an absent key is not an error.
    pub fn delete(&self, key: &[u8]) -> Result<()> {
        self.in_live_family("delete", || {
            ffi_try!(rocksdb_delete_cf(
                self.db.raw(),
                self.options.raw(),
                self.cf.raw(),
                key.as_ptr().cast(),
                key.len(),
            ))
        })
    }

    /// Removes every key in `[from, to)` with one range tombstone.
    ///
    /// `from > to` is an `Error::InvalidInput`, checked here: RocksDB 11.8.1 would write
    /// such a range to the WAL, fail to apply it, and then refuse every later write to the
    /// database until it is reopened.
    pub fn delete_range(&self, from: &[u8], to: &[u8]) -> Result<()> {
        self.in_live_family("delete_range", || {
            check_range(from, to)?;
            ffi_try!(rocksdb_delete_range_cf(
                self.db.raw(),
                self.options.raw(),
                self.cf.raw(),
                from.as_ptr().cast(),
                from.len(),
                to.as_ptr().cast(),
                to.len(),
            ))
        })
    }

    /// Applies every operation of `batch` atomically, each to the column family it names.
    /// The writer's column family is not used.
    ///
    /// A batch holding an inverted range (see [`delete_range`](Self::delete_range)),
    /// naming a column family of another database (a batch stores column family ids, which
    /// mean another family there: [`Error::ForeignColumnFamily`]) or a dropped one
    /// ([`Error::ColumnFamilyDropped`]) is rejected whole, before anything is written.
    ///
    /// [`Error::ForeignColumnFamily`]: crate::Error::ForeignColumnFamily
    /// [`Error::ColumnFamilyDropped`]: crate::Error::ColumnFamilyDropped
    pub fn write(&self, batch: &WriteBatch) -> Result<()> {
        self.db.check_writable("write")?;
        if let Some((from, to)) = batch.inverted_range() {
            return check_range(from, to);
        }
        let write = || {
            ffi_try!(rocksdb_write(
                self.db.raw(),
                self.options.raw(),
                batch.raw()
            ))
        };
        if batch.families().is_empty() {
            return write();
        }
        let _families = self.db.lock_families();
        for family in batch.families() {
            family.check_live(self.db)?;
        }
        write()
    }
}

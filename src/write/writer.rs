//! One write surface for the database, a transaction, a batch and an indexed batch:
//! [`Writer`], with the column family (and, on the database, the write options) chosen
//! as for reads.

use std::sync::Arc;

use crate::callbacks::comparator::{compare, Comparator};
use crate::db::column_family::ColumnFamily;
use crate::db::database::Db;
use crate::db::handles::{CfHandle, DbInner, DbKind, RawDb};
use crate::raw::c_consts::record;
use crate::raw::entity;
use crate::raw::error::{Error, Result};
use crate::read::entity::TTL_REFUSES_ENTITIES;
use crate::read::timestamps::TIMESTAMP_SIZE;
use crate::write::entry_size::{check_entry, too_large, MAX_ENTRY};
use crate::write::target::{sealed::Target, DbTarget, LogDataTarget, WriteTarget};
use crate::write::write_options::WriteOptions;

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

/// `Err` unless a write carries a timestamp exactly when its family (`None`: a batch's
/// default family, unknown until the write) takes them, and takes a timestamp at all. A
/// write without one to a family without them is decided inline; the rest out of line.
#[inline(always)]
fn check_timestamp(
    operation: &'static str,
    family: Option<&Arc<CfHandle>>,
    op: u32,
    timestamped: bool,
) -> Result<()> {
    match family {
        Some(cf) if !timestamped && cf.timestamp_size == 0 => Ok(()),
        // Checked at the write (`WriteBatch::default_records`).
        None if !timestamped => Ok(()),
        _ => check_timestamp_slow(operation, family, op, timestamped),
    }
}

#[inline(never)]
fn check_timestamp_slow(
    operation: &'static str,
    family: Option<&Arc<CfHandle>>,
    op: u32,
    timestamped: bool,
) -> Result<()> {
    let given = if timestamped { TIMESTAMP_SIZE } else { 0 };
    match family {
        Some(cf) if cf.timestamp_size != given => Err(cf.timestamp_mismatch(given)),
        // Checked at the write (`WriteBatch::default_records`).
        None if !timestamped => Ok(()),
        None => Err(Error::invalid(
            operation,
            "a timestamped write into a batch names its column family, even the default one",
        )),
        Some(_) if timestamped && op == record::PUT_COLUMNS => Err(Error::invalid(
            operation,
            "RocksDB keeps no entities in a column family with timestamps",
        )),
        Some(_) => Ok(()),
    }
}

impl<'db> ColumnFamily<'db> {
    /// Writes to this column family with default write options.
    #[inline]
    pub fn writer(&self) -> Writer<'_> {
        Writer::new(
            DbTarget(self.db, WriteOptions::defaults()),
            Some(self.handle()),
        )
    }
}

/// Where and how to write: a column family (default: the default one) and, on the
/// database, write options (default: RocksDB's); into the database ([`DbTarget`], the
/// default), a transaction, a [`WriteBatch`](crate::WriteBatch) or an [`IndexedBatch`](crate::IndexedBatch),
/// with the same calls whatever the target. Get one from [`Db::writer`],
/// [`ColumnFamily::writer`], [`Transaction::writer`](crate::Transaction::writer),
/// [`WriteBatch::writer`](crate::WriteBatch::writer) or [`IndexedBatch::writer`](crate::IndexedBatch::writer).
///
/// Every write to the database is refused, before it reaches RocksDB, on a database opened
/// read-only ([`Error::ReadOnly`]) and on a column family that was dropped
/// ([`Error::ColumnFamilyDropped`]).
///
/// # Aborts
/// A write to the database (not into a batch or a transaction, which report
/// `ErrorKind::MemoryLimit`) that runs out of memory inside RocksDB ends the process, as a
/// Rust allocation that fails does: RocksDB's write queue would keep a writer gone with its
/// stack, for every later write to wait on or read.
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
/// let mut writer = db.writer().cf(&users).options(&durable);
/// writer.put(b"ada", b"Lovelace")?;
/// writer.put(b"alan", b"Turing")?;
/// writer.delete(b"alan")?;
/// writer.delete_range(b"b", b"c")?; // removes [b, c)
/// assert_eq!(users.reader().get(b"ada")?.as_deref(), Some(&b"Lovelace"[..]));
/// assert_eq!(users.reader().get(b"alan")?, None);
///
/// // The same calls into a batch, written at once.
/// let mut batch = pinrocks::WriteBatch::new();
/// batch.writer().cf(&users).put(b"grace", b"Hopper")?;
/// batch.writer().delete(b"unused")?;
/// db.write(&batch)?;
/// assert_eq!(users.reader().get(b"grace")?.as_deref(), Some(&b"Hopper"[..]));
/// # Ok(()) }
/// ```
#[doc(alias = "Put")]
#[doc(alias = "Delete")]
#[doc(alias = "Merge")]
#[derive(Clone, Copy)]
pub struct Writer<'a, T = DbTarget<'a>> {
    pub(crate) target: T,
    /// `None`: the default family.
    pub(crate) cf: Option<&'a Arc<CfHandle>>,
    /// The timestamp every write carries, for a family with timestamps (`at`).
    pub(crate) timestamp: Option<u64>,
}

impl<'a, T: WriteTarget> Writer<'a, T> {
    /// Writes into `target`, to `cf` (`None`: the default family), with default options.
    pub(crate) fn new(target: T, cf: Option<&'a Arc<CfHandle>>) -> Self {
        Writer {
            target,
            cf,
            timestamp: None,
        }
    }

    /// Writes to `cf` instead.
    ///
    /// # Panics
    /// If `cf` belongs to another database than the target's.
    pub fn cf(self, cf: &'a ColumnFamily<'_>) -> Self {
        let handle = self.target.family(cf);
        Writer {
            cf: Some(handle),
            ..self
        }
    }

    /// Writes at timestamp `ts`, to a column family with timestamps
    /// ([`Options::u64_timestamps`](crate::Options::u64_timestamps)): every write to one
    /// needs it, and a write with one to a family without is refused
    /// ([`Error::TimestampMismatch`] both ways). Puts, deletes, single deletes, merges and
    /// range deletes take one, into the database or a [`WriteBatch`](crate::WriteBatch)
    /// (through a handle of its family, even the default one: a batch does not know its
    /// database's); not entities, which RocksDB keeps without timestamps, and not
    /// transactions or indexed batches.
    ///
    /// ```
    /// # fn main() -> pinrocks::Result<()> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let mut opts = pinrocks::Options::new();
    /// # opts.create_if_missing(true);
    /// # let db = pinrocks::Db::open(&opts, dir.path())?;
    /// # let mut versioned = pinrocks::Options::new();
    /// # versioned.u64_timestamps();
    /// let stock = db.create_cf("stock", &versioned)?;
    /// let mut batch = pinrocks::WriteBatch::new();
    /// batch.writer().cf(&stock).at(7).put(b"tea", b"12")?;
    /// batch.writer().cf(&stock).at(7).delete(b"coffee")?;
    /// db.write(&batch)?;
    /// let mut at_7 = pinrocks::ReadOptions::new();
    /// at_7.timestamp(7);
    /// assert_eq!(stock.reader().options(&at_7).get(b"tea")?.as_deref(), Some(&b"12"[..]));
    /// # Ok(()) }
    /// ```
    pub fn at(self, ts: u64) -> Self {
        Writer {
            timestamp: Some(ts),
            ..self
        }
    }

    // Inlined whole into each write (with `op` and the target known, most checks fold away).
    #[inline(always)]
    pub(crate) fn apply(
        &mut self,
        operation: &'static str,
        op: u32,
        key: &[u8],
        value: &[u8],
    ) -> Result<()> {
        let ts = self.timestamp.map(u64::to_le_bytes);
        if op == record::LOG_DATA {
            if ts.is_some() {
                return Err(Error::invalid(operation, "log data has no timestamp"));
            }
        } else {
            check_entry(operation, key, value)?;
            let family = self.cf.or_else(|| self.target.default_family());
            check_timestamp(operation, family, op, ts.is_some())?;
        }
        match &ts {
            None => self.target.write(operation, self.cf, op, key, value),
            Some(ts) => self.target.write_at(operation, self.cf, op, key, value, ts),
        }
    }

    /// Sets `key` to `value`.
    pub fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        self.apply("put", record::PUT, key, value)
    }

    /// Removes `key`. Removing an absent key is not an error.
    pub fn delete(&mut self, key: &[u8]) -> Result<()> {
        self.apply("delete", record::DELETE, key, &[])
    }

    /// Removes `key`, written at most once since it was last removed (RocksDB's
    /// `SingleDelete`): the tombstone and the one put it removes vanish together in
    /// compaction, so deleting is cheaper. RocksDB leaves undefined what reads see if `key`
    /// was put twice (or merged) since, or mixed with `delete`; use it only for keys written
    /// once.
    #[doc(alias = "SingleDelete")]
    pub fn single_delete(&mut self, key: &[u8]) -> Result<()> {
        self.apply("single_delete", record::SINGLE_DELETE, key, &[])
    }

    /// Adds `operand` to `key`'s pending merge operands, combined with its value by the
    /// column family's [`MergeOperator`](crate::callbacks::MergeOperator) when read or compacted.
    /// Into a family without a merge operator it is refused (`NotSupported`): by RocksDB
    /// on the database, by pinrocks in a batch, an indexed batch or a transaction (as the
    /// merge is added, or for a batch's default family at its write), where RocksDB would
    /// take it into the WAL and then stop taking writes until a reopen.
    pub fn merge(&mut self, key: &[u8], operand: &[u8]) -> Result<()> {
        self.apply("merge", record::MERGE, key, operand)
    }

    /// Sets `key` to a wide-column entity: named columns, in any order (RocksDB sorts them;
    /// a name given twice is [`Error::InvalidInput`](crate::Error::InvalidInput)). The
    /// column named `""` is the default column, which plain reads
    /// ([`Reader::get`](crate::Reader::get) and every other value tier) return as the value
    /// (empty if there is none); [`Reader::get_entity`](crate::Reader::get_entity) reads
    /// every column.
    ///
    /// ```
    /// # fn main() -> pinrocks::Result<()> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let mut opts = pinrocks::Options::new();
    /// # opts.create_if_missing(true);
    /// # let db = pinrocks::Db::open(&opts, dir.path())?;
    /// db.writer().put_entity(b"user:1", &[("", "Ada Lovelace"), ("born", "1815")])?;
    /// assert_eq!(db.get(b"user:1")?.as_deref(), Some(&b"Ada Lovelace"[..]));
    /// # Ok(()) }
    /// ```
    ///
    /// Refused on a TTL database ([`Error::InvalidInput`](crate::Error::InvalidInput)), whose
    /// TTL layer would leave the entity without its write time.
    #[doc(alias = "PutEntity")]
    pub fn put_entity<N: AsRef<[u8]>, V: AsRef<[u8]>>(
        &mut self,
        key: &[u8],
        columns: &[(N, V)],
    ) -> Result<()> {
        // Each name's and value's `as_ref` is called once, into the views RocksDB reads.
        let native = entity::native_columns(columns);
        // RocksDB serializes the columns into one value: each name and value with two
        // length varints (at most 10 bytes), after a header of two varints. Refused on that
        // bound unless the bytes alone are over 4 GiB (RocksDB refuses such an entity).
        let bytes = native.iter().fold(0usize, |n, c| {
            n.saturating_add(c.name.len).saturating_add(c.value.len)
        });
        let serialized = bytes.saturating_add(10 + 10 * native.len());
        if key.len().saturating_add(serialized) > MAX_ENTRY && bytes <= u32::MAX as usize {
            return Err(too_large("put_entity", key.len(), serialized));
        }
        // RocksDB would call a repeated name "out of order" and report it as corruption.
        if let Some(name) = entity::repeated_name(&native, columns) {
            return Err(Error::invalid(
                "put_entity",
                format!("the column name {name:?} given twice"),
            ));
        }
        let packed = entity::packed(&native);
        self.apply("put_entity", record::PUT_COLUMNS, key, packed)
    }
}

impl<T: LogDataTarget> Writer<'_, T> {
    /// Adds `blob` to the WAL record of this batch (or transaction), not to the database:
    /// what tails the WAL ([`Db::updates_since`](crate::Db::updates_since)) sees it as a
    /// [`BatchRecord::LogData`](crate::write::BatchRecord::LogData); reads never do. The database
    /// itself takes none:
    ///
    /// ```compile_fail
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let db = pinrocks::Db::open(&pinrocks::Options::new(), dir.path()).unwrap();
    /// db.writer().put_log_data(b"audit"); // error: `DbTarget` is not a `LogDataTarget`
    /// ```
    #[doc(alias = "PutLogData")]
    pub fn put_log_data(&mut self, blob: &[u8]) -> Result<()> {
        // RocksDB stores the blob's length in 32 bits but appends the whole blob: a longer
        // one would be read back as records of the batch.
        if u32::try_from(blob.len()).is_err() {
            return Err(Error::invalid("put_log_data", "a blob of 4 GiB or more"));
        }
        self.apply("put_log_data", record::LOG_DATA, blob, &[])
    }
}

impl<'a> Writer<'a, DbTarget<'a>> {
    /// Writes with `options` instead of the defaults.
    pub fn options(self, options: &'a WriteOptions) -> Self {
        Writer {
            target: DbTarget(self.target.0, options),
            ..self
        }
    }

    /// Removes every key in `[from, to)` with one range tombstone.
    ///
    /// `from > to` is an [`Error::InvertedRange`], checked here: RocksDB 11.8.1 would write
    /// such a range to the WAL, fail to apply it, and then refuse every later write to the
    /// database until it is reopened.
    ///
    /// On an optimistic transaction database (whose own `DeleteRange` RocksDB refuses) it
    /// goes to the base database, as a plain write in no transaction: a transaction that
    /// read a key of the range before it and writes after it fails its commit with
    /// [`ErrorKind::Busy`](crate::ErrorKind::Busy) (RocksDB's conflict check sees the range's tombstone). A pessimistic
    /// one has no range delete: `NotSupported`, as RocksDB says (it cannot lock a range).
    /// Neither has a database with a row cache: [`Error::RowCacheRefusesRanges`].
    #[doc(alias = "DeleteRange")]
    pub fn delete_range(&mut self, from: &[u8], to: &[u8]) -> Result<()> {
        self.target.0.check_writable("delete_range")?;
        self.target.0.check_range_deletes("delete_range")?;
        let cf = self.cf.unwrap_or(&self.target.0.default_cf);
        check_range(cf.order.as_ref(), from, to)?;
        cf.check_range_delete()?;
        self.apply("delete_range", record::DELETE_RANGE, from, to)
    }
}

// The sealed trait's methods name crate-private types: unreachable from outside.
#[allow(private_interfaces)]
impl Target for DbTarget<'_> {
    fn family<'c>(&self, cf: &'c ColumnFamily<'_>) -> &'c Arc<CfHandle> {
        cf.handle_for(self.0)
    }

    #[inline(always)]
    fn write(
        &mut self,
        operation: &'static str,
        cf: Option<&Arc<CfHandle>>,
        op: u32,
        key: &[u8],
        value: &[u8],
    ) -> Result<()> {
        self.write_native(operation, cf, op, key, value, None)
    }

    fn default_family(&self) -> Option<&Arc<CfHandle>> {
        Some(&self.0.default_cf)
    }

    fn write_at(
        &mut self,
        operation: &'static str,
        cf: Option<&Arc<CfHandle>>,
        op: u32,
        key: &[u8],
        value: &[u8],
        ts: &[u8; 8],
    ) -> Result<()> {
        self.0.check_timestamped_writes(operation)?;
        self.write_native(operation, cf, op, key, value, Some(ts))
    }
}

impl DbTarget<'_> {
    /// One write with the family alive (not dropped, and not droppable until it returns),
    /// through our shim: the C API's `rocksdb_put_cf` & co. let `std::bad_alloc` escape (a
    /// value too big to copy); ours ends the process instead, as the throw may come from
    /// inside RocksDB's write queue (`rocksdb-c/writes.cc`). With a timestamp `ts` for a
    /// family with them.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn write_native(
        &mut self,
        operation: &'static str,
        cf: Option<&Arc<CfHandle>>,
        op: u32,
        key: &[u8],
        value: &[u8],
        ts: Option<&[u8; 8]>,
    ) -> Result<()> {
        let db: &DbInner = self.0;
        let cf = cf.unwrap_or(&db.default_cf);
        if op == record::PUT_COLUMNS && db.kind == DbKind::Ttl {
            return Err(ttl_refuses_entities(operation));
        }
        // `DBImpl::Merge` refuses it itself, but a transaction database's and a TTL
        // database's `Merge` go through a batch, which would stop the database.
        if op == record::MERGE {
            cf.check_merge()?;
        }
        let _writing = db.live_family(operation, cf)?;
        db.raw_db()
            .write_op(self.1.handle(), cf.handle(), op, key, value, ts)
    }
}

/// The refusal of an entity on a TTL database, out of the writes' way.
#[cold]
#[inline(never)]
fn ttl_refuses_entities(operation: &'static str) -> Error {
    Error::invalid(operation, TTL_REFUSES_ENTITIES)
}

impl Db {
    /// Writes to the default column family with default write options.
    #[inline]
    pub fn writer(&self) -> Writer<'_> {
        Writer::new(DbTarget(self.inner(), WriteOptions::defaults()), None)
    }

    /// Sets `key` to `value` in the default column family. See [`Writer::put`].
    pub fn put(&self, key: &[u8], value: &[u8]) -> Result<()> {
        self.writer().put(key, value)
    }

    /// Adds a merge operand to `key` in the default column family ([`Writer::merge`]).
    pub fn merge(&self, key: &[u8], operand: &[u8]) -> Result<()> {
        self.writer().merge(key, operand)
    }

    /// Removes `key` from the default column family. See [`Writer::delete`].
    pub fn delete(&self, key: &[u8]) -> Result<()> {
        self.writer().delete(key)
    }

    /// Removes keys in `[from, to)` from the default column family.
    pub fn delete_range(&self, from: &[u8], to: &[u8]) -> Result<()> {
        self.writer().delete_range(from, to)
    }
}

impl DbInner {
    /// `Err(WrongKind)` for writes with a timestamp to a TTL database (which would store
    /// the value without its write time, and whose iterators report no timestamps) or a
    /// transaction database (whose locks and transactions they would bypass).
    pub(crate) fn check_timestamped_writes(&self, operation: &'static str) -> Result<()> {
        if self.kind == DbKind::Ttl || !matches!(self.raw_db(), RawDb::Plain(_)) {
            return Err(Error::WrongKind {
                operation,
                needs: "plain (not TTL or transaction)",
            });
        }
        Ok(())
    }
}

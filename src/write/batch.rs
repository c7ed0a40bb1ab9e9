//! Atomic groups of writes.

use std::sync::{Arc, Weak};

use crate::callbacks::comparator::compare;
use crate::db::column_family::ColumnFamily;
use crate::db::database::Db;
use crate::db::handles::{CfHandle, DbInner, DbKind, WritingAll};
use crate::raw::batch::{BatchPtr, BatchView, WriteBatchHandle};
use crate::raw::batch_records::{for_each_record, BatchRecord};
use crate::raw::c_consts::record;
use crate::raw::error::{Error, Result};
use crate::write::target::sealed::Target;
use crate::write::target::DbTarget;
use crate::write::target::LogDataTarget;
use crate::write::writer::Writer;

/// Puts and deletes applied together by [`Writer::write`](crate::Writer::write): all of
/// them or none. The batch copies keys and values in, so they need not outlive it.
///
/// ```
/// # fn main() -> pinrocks::Result<()> {
/// # let dir = tempfile::tempdir().unwrap();
/// # let mut opts = pinrocks::Options::new();
/// # opts.create_if_missing(true);
/// # let db = pinrocks::Db::open(&opts, dir.path())?;
/// let index = db.create_cf("index", &pinrocks::Options::new())?;
/// let mut batch = pinrocks::WriteBatch::new();
/// batch.writer().put(b"doc:1", b"hello world")?;
/// let mut indexing = batch.writer().cf(&index);
/// indexing.put(b"word:hello", b"doc:1")?;
/// indexing.delete_range(b"word:a", b"word:b")?;
/// assert_eq!(batch.len(), 3);
/// db.write(&batch)?; // atomically: both families or neither
/// assert_eq!(index.reader().get(b"word:hello")?.as_deref(), Some(&b"doc:1"[..]));
/// batch.clear(); // reuse the allocation
/// # Ok(()) }
/// ```
///
/// Each operation reports what RocksDB refuses (a key or value over 4 GiB): the C API's
/// batch functions drop that status and leave the entry out, so pinrocks calls
/// `WriteBatch::Put`/`Delete`/`DeleteRange` itself (rocksdb-c/).
///
/// A batch is `Send` but not `Sync`: writing it stamps a sequence number into it
/// (`WriteBatchInternal::SetSequence` in `DBImpl::WriteImpl`), so two threads writing one
/// batch at once would race and lose writes. This does not compile:
///
/// ```compile_fail
/// fn shared<T: Sync>(_: &T) {}
/// shared(&pinrocks::WriteBatch::new());
/// ```
pub struct WriteBatch {
    raw: WriteBatchHandle,
    /// The first `delete_range` of a named family whose start sorts after its end in that
    /// family's order: writing it would poison the database (see `Writer::delete_range`),
    /// so the write refuses the batch.
    inverted_range: Option<InvertedRange>,
    /// The first `delete_range` of the default family inverted bytewise, and whether the
    /// default family has any: its order is known only at the write (see `check_ranges`).
    inverted_default_range: Option<InvertedRange>,
    default_ranges: bool,
    /// Whether it holds a range delete of any family: refused at the write to a database
    /// with a row cache (`DbInner::check_range_deletes`).
    ranges: bool,
    /// Whether it merges into the default family, whose merge operator is known only at
    /// the write (a named family's is checked as the merge is added).
    default_merges: bool,
    /// Whether it writes to the default family without its handle, so without a timestamp:
    /// refused at the write if that family has them (RocksDB would take such keys as
    /// keys with a timestamp, and read past their end).
    default_records: bool,
    /// Whether it holds a write with a timestamp: refused at the write to a database that
    /// takes none (`Writer::at`).
    stamped: bool,
    /// The column families the batch names (`None` for the default one is not named), each
    /// once.
    families: Vec<NamedFamily>,
}

/// A column family a batch names. A batch stores only its id, which means another family
/// (or none) in another database, or nothing once the family is dropped, so the write
/// checks each against the database it writes to.
pub(crate) struct NamedFamily {
    /// `DbInner::id` of its database: unique, unlike an address.
    db_id: u64,
    /// Does not keep the handle alive (a batch may outlive its database, and a handle must
    /// not be destroyed after its database closed), but keeps its allocation, so the
    /// address compared in `note_family` cannot be reused.
    handle: Weak<CfHandle>,
    name: String,
}

impl NamedFamily {
    /// Adds `handle`'s family to `families` unless it is there already.
    pub(crate) fn note(families: &mut Vec<NamedFamily>, handle: &Arc<CfHandle>) {
        if families
            .iter()
            .any(|f| std::ptr::eq(f.handle.as_ptr(), Arc::as_ptr(handle)))
        {
            return;
        }
        families.push(NamedFamily {
            db_id: handle.db_id,
            handle: Arc::downgrade(handle),
            name: handle.name.clone(),
        });
    }

    /// The family's handle, if a write to `db` may name it: of `db`, and not dropped and
    /// gone. (Whether it is being dropped, the gate says: `WritingAll::enter`.)
    pub(crate) fn handle_in(&self, db: &DbInner) -> Result<Arc<CfHandle>> {
        if self.db_id != db.id {
            return Err(Error::ForeignColumnFamily {
                name: self.name.clone(),
            });
        }
        // The database is open (we write to it), so the handle is gone only if the family
        // was dropped and nothing holds it any more. An upgraded handle may be dropped
        // last by the writer: it belongs to `db`, which is open.
        self.handle
            .upgrade()
            .ok_or_else(|| Error::ColumnFamilyDropped {
                name: self.name.clone(),
            })
    }

    /// Enters every family of `families` for a write to `db` (see `WritingAll`).
    pub(crate) fn enter_all(families: &[NamedFamily], db: &DbInner) -> Result<WritingAll> {
        let handles = families
            .iter()
            .map(|family| family.handle_in(db))
            .collect::<Result<Vec<_>>>()?;
        WritingAll::enter(handles)
    }
}

/// The start and end of a `delete_range` whose start sorts after its end.
type InvertedRange = (Box<[u8]>, Box<[u8]>);

// SAFETY: a `rocksdb::WriteBatch` is an owned buffer (`rep_`, a std::string) with no thread
// affinity, so it may move between threads. Not `Sync`: `DB::Write` writes into the batch
// it is given (`WriteBatchInternal::SetSequence`), though the C API's pointer looks const.
unsafe impl Send for WriteBatch {}

impl WriteBatch {
    /// An empty batch.
    pub fn new() -> Self {
        WriteBatch {
            raw: WriteBatchHandle::new(),
            inverted_range: None,
            inverted_default_range: None,
            default_ranges: false,
            ranges: false,
            default_merges: false,
            default_records: false,
            stamped: false,
            families: Vec::new(),
        }
    }

    /// Writes into the batch: the same calls as for the database (see [`Writer`]), kept
    /// until the batch is written.
    ///
    /// Each write reports what RocksDB refuses (a key or value over 4 GiB): the C API's
    /// batch functions drop that status and leave the entry out.
    #[doc(alias = "Put")]
    #[inline]
    pub fn writer(&mut self) -> Writer<'_, BatchTarget<'_>> {
        Writer::new(BatchTarget(self), None)
    }

    /// One write into the batch (`op` a `PINROCKS_RECORD_*`; for a range, `value` is its
    /// end) to `cf` (`None`: the default family, whichever database the batch is written
    /// to).
    // Inlined into each write (with `op` known, the merge and range bookkeeping folds away).
    #[inline(always)]
    pub(super) fn record(
        &mut self,
        cf: Option<&Arc<CfHandle>>,
        op: u32,
        key: &[u8],
        value: &[u8],
        ts: Option<&[u8; 8]>,
    ) -> Result<()> {
        match (op, cf) {
            (record::MERGE, Some(cf)) => cf.check_merge()?,
            (record::DELETE_RANGE, Some(cf)) => cf.check_range_delete()?,
            // The default family's merges and ranges: checked at the write
            // (`default_merges`, `default_ranges`).
            _ => {}
        }
        self.raw
            .write(cf.map(|cf| cf.handle()), op, key, value, ts)?;
        // Noted once the record is in: a refused one leaves nothing to check at the write.
        self.default_merges |= op == record::MERGE && cf.is_none();
        self.default_records |= cf.is_none() && op != record::LOG_DATA;
        self.stamped |= ts.is_some();
        if let Some(handle) = cf {
            NamedFamily::note(&mut self.families, handle);
        }
        if op == record::DELETE_RANGE {
            self.ranges = true;
            let (inverted, order) = match cf {
                Some(cf) => (&mut self.inverted_range, cf.order.as_ref()),
                None => {
                    self.default_ranges = true;
                    (&mut self.inverted_default_range, None)
                }
            };
            if inverted.is_none() && compare(order, key, value).is_gt() {
                *inverted = Some((key.into(), value.into()));
            }
        }
        Ok(())
    }

    /// The number of operations in the batch.
    pub fn len(&self) -> usize {
        self.raw.view().count() as usize
    }

    /// Calls `f` with each record of the batch, in order, its bytes borrowed from the
    /// batch: to audit or replicate what a batch does.
    ///
    /// ```
    /// use pinrocks::WriteBatch;
    /// use pinrocks::write::BatchRecord;
    /// # fn main() -> pinrocks::Result<()> {
    /// let mut batch = WriteBatch::new();
    /// batch.writer().put(b"a", b"1")?;
    /// batch.writer().delete(b"b")?;
    /// let mut seen = Vec::new();
    /// batch.for_each(|record| match record {
    ///     BatchRecord::Put { key, .. } => seen.push(("put", key.to_vec())),
    ///     BatchRecord::Delete { key, .. } => seen.push(("delete", key.to_vec())),
    ///     _ => {}
    /// })?;
    /// assert_eq!(seen, [("put", b"a".to_vec()), ("delete", b"b".to_vec())]);
    /// # Ok(()) }
    /// ```
    pub fn for_each(&self, f: impl FnMut(BatchRecord<'_>)) -> Result<()> {
        self.raw.view().for_each(f)
    }

    /// Whether the batch holds no operation.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Removes every operation, keeping the allocation for reuse.
    #[inline]
    pub fn clear(&mut self) {
        self.raw.clear();
        self.inverted_range = None;
        self.inverted_default_range = None;
        self.default_ranges = false;
        self.ranges = false;
        self.default_merges = false;
        self.default_records = false;
        self.stamped = false;
        self.families.clear();
    }

    /// The column families the batch names.
    pub(crate) fn families(&self) -> &[NamedFamily] {
        &self.families
    }

    /// Whether it holds a record a write checks against its database (`check_records`): a
    /// range delete (`default_ranges` implies `ranges`), a merge into the default family, a
    /// timestamp. Bitwise, so a batch of plain records is one test.
    #[inline]
    fn has_checked_records(&self) -> bool {
        self.ranges | self.default_merges | self.stamped
    }

    /// What a write to `db` checks of the records `has_checked_records` names. Out of line:
    /// most batches have none.
    #[inline(never)]
    fn check_records(&self, db: &DbInner) -> Result<()> {
        if self.ranges {
            db.check_range_deletes("write")?;
            self.check_ranges(db)?;
        }
        if self.default_merges {
            db.default_cf.check_merge()?;
        }
        if self.default_ranges {
            db.default_cf.check_range_delete()?;
        }
        if self.stamped {
            db.check_timestamped_writes("write")?;
        }
        Ok(())
    }

    /// `Err(InvertedRange)` if a `delete_range` of the batch is inverted in its family's
    /// order, writing to `db`. The default family's order is `db`'s: bytewise, checked as
    /// the range was added; with a comparator, each of its ranges is checked now.
    pub(crate) fn check_ranges(&self, db: &DbInner) -> Result<()> {
        let inverted = |(from, to): &InvertedRange| Error::InvertedRange {
            start: from.to_vec(),
            end: to.to_vec(),
        };
        if let Some(range) = &self.inverted_range {
            return Err(inverted(range));
        }
        let Some(order) = db.default_cf.order.as_ref().filter(|_| self.default_ranges) else {
            return self
                .inverted_default_range
                .as_ref()
                .map_or(Ok(()), |r| Err(inverted(r)));
        };
        let mut first = None;
        self.for_each(|record| {
            if let BatchRecord::DeleteRange { cf: 0, start, end } = record {
                if first.is_none() && order.compare(start, end).is_gt() {
                    first = Some((start.into(), end.into()));
                }
            }
        })?;
        first.as_ref().map_or(Ok(()), |r| Err(inverted(r)))
    }

    pub(crate) fn raw(&self) -> BatchPtr {
        self.raw.batch()
    }

    /// Its records and bytes.
    pub(crate) fn view(&self) -> BatchView<'_> {
        self.raw.view()
    }
}
impl std::fmt::Debug for WriteBatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WriteBatch")
            .field("len", &self.len())
            .field(
                "column_families",
                &self.families.iter().map(|f| &f.name).collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

impl Default for WriteBatch {
    fn default() -> Self {
        Self::new()
    }
}

/// Writes into a batch: what [`WriteBatch::writer`] gives.
pub struct BatchTarget<'a>(&'a mut WriteBatch);

impl LogDataTarget for BatchTarget<'_> {}

// The sealed trait's methods name crate-private types: unreachable from outside.
#[allow(private_interfaces)]
impl Target for BatchTarget<'_> {
    /// Any database's family: a batch names families by id, checked when it is written.
    fn family<'c>(&self, cf: &'c ColumnFamily<'_>) -> &'c Arc<CfHandle> {
        cf.handle()
    }

    #[inline(always)]
    fn write(
        &mut self,
        _operation: &'static str,
        cf: Option<&Arc<CfHandle>>,
        op: u32,
        key: &[u8],
        value: &[u8],
    ) -> Result<()> {
        self.0.record(cf, op, key, value, None)
    }

    fn default_family(&self) -> Option<&Arc<CfHandle>> {
        None
    }

    fn write_at(
        &mut self,
        _operation: &'static str,
        cf: Option<&Arc<CfHandle>>,
        op: u32,
        key: &[u8],
        value: &[u8],
        ts: &[u8; 8],
    ) -> Result<()> {
        self.0.record(cf, op, key, value, Some(ts))
    }
}

impl<'a> Writer<'a, DbTarget<'a>> {
    /// Applies every operation of `batch` atomically, each to the column family it names.
    /// The writer's column family is not used.
    ///
    /// A batch holding an inverted range (see [`delete_range`](Self::delete_range)),
    /// naming a column family of another database (a batch stores column family ids, which
    /// mean another family there: [`Error::ForeignColumnFamily`]) or a dropped one
    /// ([`Error::ColumnFamilyDropped`]), or holding a range delete for a database with a
    /// row cache ([`Error::RowCacheRefusesRanges`]) is rejected whole, before anything is
    /// written.
    ///
    /// # Aborts
    /// If RocksDB runs out of memory inside its write path (a value copied into the
    /// memtable), as Rust's own allocations do: RocksDB's write queue would keep a writer
    /// that is gone, and every later write hang on it or read its freed stack.
    pub fn write(&self, batch: &WriteBatch) -> Result<()> {
        let db = self.target.0;
        db.check_writable("write")?;
        if batch.has_checked_records() {
            batch.check_records(db)?;
        }
        if batch.default_records && db.default_cf.timestamp_size != 0 {
            return Err(db.default_cf.timestamp_mismatch(0));
        }
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
    #[inline]
    pub(crate) unsafe fn write_raw(&self, raw: BatchPtr, families: &[NamedFamily]) -> Result<()> {
        let db = self.target.0;
        if db.kind == DbKind::Ttl {
            // SAFETY: `raw` is live and ours for the call (the caller's contract).
            unsafe { refuse_single_deletes(raw) }?;
        }
        // A batch of the default family alone (the common case) has nothing to enter.
        if families.is_empty() {
            // SAFETY: `raw` is live and ours alone for the call (the caller's contract).
            return unsafe { db.raw_db().write_batch(self.target.1.handle(), raw) };
        }
        // The families stay undroppable until the write returns (no lock is held: a write
        // that stalls or waits for row locks holds up only drops of its own families).
        let _writing = NamedFamily::enter_all(families, db)?;
        // SAFETY: as above.
        unsafe { db.raw_db().write_batch(self.target.1.handle(), raw) }
    }
}

/// Refuses a batch with a single delete for a TTL database: `DBWithTTLImpl::Write` rebuilds
/// the batch through a handler without `SingleDeleteCF` (utilities/ttl/db_ttl_impl.cc), so
/// the default family's single deletes would be dropped while the write reports success.
///
/// # Safety
/// `raw` must be a live batch that no other thread uses during the call.
#[inline(never)]
unsafe fn refuse_single_deletes(raw: BatchPtr) -> Result<()> {
    let mut single_delete = false;
    // SAFETY: `raw` is live and ours for the call (the caller's contract).
    unsafe {
        for_each_record(raw, |r| {
            single_delete |= matches!(r, BatchRecord::SingleDelete { .. })
        })
    }?;
    if single_delete {
        return Err(Error::invalid(
            "write",
            "a single delete in a batch written to a TTL database, which RocksDB's TTL write \
             would drop: use delete",
        ));
    }
    Ok(())
}

impl<'a> Writer<'a, BatchTarget<'a>> {
    /// Removes every key in `[from, to)` with one range tombstone, when the batch is
    /// written. An inverted range (in the family's order) makes that write fail whole with
    /// [`Error::InvertedRange`].
    pub fn delete_range(&mut self, from: &[u8], to: &[u8]) -> Result<()> {
        self.apply("delete_range", record::DELETE_RANGE, from, to)
    }
}

impl Db {
    /// Applies `batch` atomically with default write options. See [`Writer::write`].
    #[doc(alias = "Write")]
    pub fn write(&self, batch: &WriteBatch) -> Result<()> {
        self.writer().write(batch)
    }
}

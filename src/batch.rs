//! Atomic groups of writes.

use std::ffi::{c_char, c_int, c_uint, c_void};
use std::panic::{self, AssertUnwindSafe};
use std::ptr::NonNull;
use std::sync::{Arc, Weak};

use crate::column_family::ColumnFamily;
use crate::comparator::compare;
use crate::error::{ErrPtr, Error, Result};
use crate::ffi;
use crate::handles::{CfHandle, DbInner, WritingAll};
use crate::pinned::value_slice;

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
/// batch
///     .put(None, b"doc:1", b"hello world")?
///     .put(Some(&index), b"word:hello", b"doc:1")?
///     .delete_range(Some(&index), b"word:a", b"word:b")?;
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
    raw: NonNull<ffi::rocksdb_writebatch_t>,
    /// The first `delete_range` of a named family whose start sorts after its end in that
    /// family's order: writing it would poison the database (see `Writer::delete_range`),
    /// so the write refuses the batch.
    inverted_range: Option<InvertedRange>,
    /// The first `delete_range` of the default family inverted bytewise, and whether the
    /// default family has any: its order is known only at the write (see `check_ranges`).
    inverted_default_range: Option<InvertedRange>,
    default_ranges: bool,
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
            .ok_or_else(|| Error::ColumnFamilyDropped(self.name.clone()))
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
        // SAFETY: plain constructor; NULL only on allocation failure.
        let raw = unsafe { ffi::rocksdb_writebatch_create() };
        WriteBatch {
            raw: NonNull::new(raw).expect("rocksdb_writebatch_create returned NULL"),
            inverted_range: None,
            inverted_default_range: None,
            default_ranges: false,
            families: Vec::new(),
        }
    }

    /// Sets `key` to `value` in `cf` (`None`: the default column family). A key or value
    /// over 4 GiB is refused (`InvalidArgument`) and leaves the batch as it was.
    pub fn put(
        &mut self,
        cf: Option<&ColumnFamily<'_>>,
        key: &[u8],
        value: &[u8],
    ) -> Result<&mut Self> {
        // SAFETY: live batch (owned, `&mut self`) and handle (borrowed through `cf`); the
        // bytes are copied into the batch during the call.
        self.apply(cf, |batch, cf, code, err| unsafe {
            ffi::pinrocks_writebatch_put(
                batch,
                cf,
                key.as_ptr().cast(),
                key.len(),
                value.as_ptr().cast(),
                value.len(),
                code,
                err,
            )
        })
    }

    /// Removes `key` from `cf` (`None`: the default column family). A key over 4 GiB is
    /// refused and leaves the batch as it was.
    pub fn delete(&mut self, cf: Option<&ColumnFamily<'_>>, key: &[u8]) -> Result<&mut Self> {
        // SAFETY: as in `put`.
        self.apply(cf, |batch, cf, code, err| unsafe {
            ffi::pinrocks_writebatch_delete(batch, cf, key.as_ptr().cast(), key.len(), code, err)
        })
    }

    /// Removes keys in `[from, to)` from `cf` (`None`: the default column family). A range
    /// whose start sorts after its end makes the whole batch fail to write; a bound over
    /// 4 GiB is refused here and leaves the batch as it was.
    pub fn delete_range(
        &mut self,
        cf: Option<&ColumnFamily<'_>>,
        from: &[u8],
        to: &[u8],
    ) -> Result<&mut Self> {
        // SAFETY: as in `put`.
        self.apply(cf, |batch, cf, code, err| unsafe {
            ffi::pinrocks_writebatch_delete_range(
                batch,
                cf,
                from.as_ptr().cast(),
                from.len(),
                to.as_ptr().cast(),
                to.len(),
                code,
                err,
            )
        })?;
        let (inverted, order) = match cf {
            Some(cf) => (&mut self.inverted_range, cf.handle().order.as_ref()),
            None => {
                self.default_ranges = true;
                (&mut self.inverted_default_range, None)
            }
        };
        if inverted.is_none() && compare(order, from, to).is_gt() {
            *inverted = Some((from.into(), to.into()));
        }
        Ok(self)
    }

    /// Adds `operand` to `key`'s merge operands in `cf` (`None`: the default column
    /// family); see [`Writer::merge`](crate::Writer::merge).
    pub fn merge(
        &mut self,
        cf: Option<&ColumnFamily<'_>>,
        key: &[u8],
        operand: &[u8],
    ) -> Result<&mut Self> {
        // SAFETY: as in `put`.
        self.apply(cf, |batch, cf, code, err| unsafe {
            ffi::pinrocks_writebatch_merge(
                batch,
                cf,
                key.as_ptr().cast(),
                key.len(),
                operand.as_ptr().cast(),
                operand.len(),
                code,
                err,
            )
        })
    }

    /// Runs one of rocksdb-c/'s batch operations on this batch and `cf` (NULL: the default
    /// family), and notes the family once the operation is in.
    fn apply(
        &mut self,
        cf: Option<&ColumnFamily<'_>>,
        op: impl FnOnce(
            *mut ffi::rocksdb_writebatch_t,
            *mut ffi::rocksdb_column_family_handle_t,
            &mut i32,
            *mut *mut std::ffi::c_char,
        ),
    ) -> Result<&mut Self> {
        let mut err = ErrPtr::new();
        let mut code = 0;
        let raw_cf = cf.map_or(std::ptr::null_mut(), |cf| cf.handle().raw());
        op(self.raw.as_ptr(), raw_cf, &mut code, err.as_out());
        err.check_with_code(Some(code))?;
        self.note_family(cf);
        Ok(self)
    }

    /// The number of operations in the batch.
    pub fn len(&self) -> usize {
        // SAFETY: live batch; `WriteBatch::Count` only reads the header. (Ours, because the C
        // API's `rocksdb_writebatch_count` answers a signed int.)
        let count = unsafe { ffi::pinrocks_writebatch_count(self.raw.as_ptr()) };
        count as usize
    }

    /// Calls `f` with each record of the batch, in order, its bytes borrowed from the
    /// batch: to audit or replicate what a batch does.
    ///
    /// ```
    /// use pinrocks::{BatchRecord, WriteBatch};
    /// # fn main() -> pinrocks::Result<()> {
    /// let mut batch = WriteBatch::new();
    /// batch.put(None, b"a", b"1")?.delete(None, b"b")?;
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
        for_each_record(self.raw.as_ptr(), f)
    }

    /// Whether the batch holds no operation.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Removes every operation, keeping the allocation for reuse.
    pub fn clear(&mut self) {
        // SAFETY: live batch, owned.
        unsafe { ffi::rocksdb_writebatch_clear(self.raw.as_ptr()) };
        self.inverted_range = None;
        self.inverted_default_range = None;
        self.default_ranges = false;
        self.families.clear();
    }

    fn note_family(&mut self, cf: Option<&ColumnFamily<'_>>) {
        if let Some(handle) = cf.map(ColumnFamily::handle) {
            NamedFamily::note(&mut self.families, handle);
        }
    }

    /// The column families the batch names.
    pub(crate) fn families(&self) -> &[NamedFamily] {
        &self.families
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

    pub(crate) fn raw(&self) -> *mut ffi::rocksdb_writebatch_t {
        self.raw.as_ptr()
    }
}

/// One record of a write batch, its bytes borrowed from the batch. `cf` is the column
/// family's id ([`ColumnFamily::id`]; 0 is the default family).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BatchRecord<'a> {
    /// `key` set to `value`.
    Put {
        /// Column family id.
        cf: u32,
        /// The key.
        key: &'a [u8],
        /// The value.
        value: &'a [u8],
    },
    /// `key` removed.
    Delete {
        /// Column family id.
        cf: u32,
        /// The key.
        key: &'a [u8],
    },
    /// `key` removed by a single delete.
    SingleDelete {
        /// Column family id.
        cf: u32,
        /// The key.
        key: &'a [u8],
    },
    /// Keys in `[start, end)` removed.
    DeleteRange {
        /// Column family id.
        cf: u32,
        /// First key removed.
        start: &'a [u8],
        /// First key kept.
        end: &'a [u8],
    },
    /// A merge operand for `key`.
    Merge {
        /// Column family id.
        cf: u32,
        /// The key.
        key: &'a [u8],
        /// The operand.
        value: &'a [u8],
    },
    /// A wide-column entity for `key`, in RocksDB's serialized form.
    PutEntity {
        /// Column family id.
        cf: u32,
        /// The key.
        key: &'a [u8],
        /// The serialized entity.
        entity: &'a [u8],
    },
    /// A blob logged with the batch, applied to no column family.
    LogData(&'a [u8]),
}

impl BatchRecord<'_> {
    /// The column family id it applies to (`None` for logged data).
    pub fn cf(&self) -> Option<u32> {
        match *self {
            BatchRecord::Put { cf, .. }
            | BatchRecord::Delete { cf, .. }
            | BatchRecord::SingleDelete { cf, .. }
            | BatchRecord::DeleteRange { cf, .. }
            | BatchRecord::Merge { cf, .. }
            | BatchRecord::PutEntity { cf, .. } => Some(cf),
            BatchRecord::LogData(_) => None,
        }
    }
}

/// The callback and a panic caught in it, carried across `pinrocks_writebatch_iterate`.
struct RecordCallback<F> {
    f: F,
    panic: Option<Box<dyn std::any::Any + Send>>,
}

/// Called for each record; never unwinds into C++ (a panic stops the iteration and is
/// resumed by `for_each_record`).
extern "C" fn record_trampoline<F: FnMut(BatchRecord<'_>)>(
    ctx: *mut c_void,
    kind: c_int,
    cf: c_uint,
    key: *const c_char,
    key_len: usize,
    value: *const c_char,
    value_len: usize,
) -> u8 {
    // SAFETY: `ctx` is the `RecordCallback<F>` that `for_each_record` passed for this call.
    let callback = unsafe { &mut *ctx.cast::<RecordCallback<F>>() };
    // SAFETY: RocksDB passes slices of the batch's buffer, valid during this call.
    let (key, value) = unsafe { (value_slice(key, key_len), value_slice(value, value_len)) };
    let record = match kind as u32 {
        ffi::PINROCKS_RECORD_PUT => BatchRecord::Put { cf, key, value },
        ffi::PINROCKS_RECORD_DELETE => BatchRecord::Delete { cf, key },
        ffi::PINROCKS_RECORD_SINGLE_DELETE => BatchRecord::SingleDelete { cf, key },
        ffi::PINROCKS_RECORD_DELETE_RANGE => BatchRecord::DeleteRange {
            cf,
            start: key,
            end: value,
        },
        ffi::PINROCKS_RECORD_MERGE => BatchRecord::Merge { cf, key, value },
        ffi::PINROCKS_RECORD_PUT_ENTITY => BatchRecord::PutEntity {
            cf,
            key,
            entity: value,
        },
        _ => BatchRecord::LogData(key),
    };
    match panic::catch_unwind(AssertUnwindSafe(|| (callback.f)(record))) {
        Ok(()) => 0,
        Err(payload) => {
            callback.panic = Some(payload);
            1
        }
    }
}

/// Calls `f` with every record of the batch at `raw`, in order.
pub(crate) fn for_each_record<F: FnMut(BatchRecord<'_>)>(
    raw: *const ffi::rocksdb_writebatch_t,
    f: F,
) -> Result<()> {
    let mut callback = RecordCallback { f, panic: None };
    let mut err = ErrPtr::new();
    let mut code = 0;
    // SAFETY: `raw` is a live batch the caller borrows (`WriteBatch::Iterate` only reads
    // it); `record_trampoline::<F>` matches `callback`'s type.
    unsafe {
        ffi::pinrocks_writebatch_iterate(
            raw,
            Some(record_trampoline::<F>),
            (&mut callback as *mut RecordCallback<F>).cast(),
            &mut code,
            err.as_out(),
        )
    };
    if let Some(payload) = callback.panic {
        panic::resume_unwind(payload);
    }
    err.check_with_code(Some(code))
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

impl Drop for WriteBatch {
    fn drop(&mut self) {
        // SAFETY: owned by `self`, destroyed once.
        unsafe { ffi::rocksdb_writebatch_destroy(self.raw.as_ptr()) };
    }
}

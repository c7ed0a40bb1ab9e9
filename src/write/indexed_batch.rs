//! Write batches that can be read before they are written (RocksDB's
//! `WriteBatchWithIndex`): the batch's own entries alone, or over the database, through
//! every tier a [`Reader`] has, with the same one native call per point read
//! (rocksdb-c/indexed_batch.cc).
//!
//! What a pin from an indexed batch holds: a value found in the batch is a copy RocksDB
//! makes (`GetFromBatch` copies it out of the batch's buffer, which the next write may move);
//! a value from the database pins its block, as a plain read does.

use std::marker::PhantomData;

use crate::db::column_family::ColumnFamily;
use crate::db::database::Db;
use crate::db::handles::CfHandle;
use crate::db::handles::DbKind;
use crate::raw::batch_records::BatchRecord;
use crate::raw::c_consts::{record, savepoint};
use crate::raw::error::{Error, Result};
use crate::raw::indexed_batch::IndexedBatchHandle;
use crate::read::reader::Reader;
use crate::read::source::BatchSource;
use crate::write::batch::NamedFamily;
use crate::write::target::sealed::Target;
use crate::write::target::LogDataTarget;
use crate::write::write_options::WriteOptions;
use crate::write::writer::Writer;
use std::sync::Arc;

impl Db {
    /// An empty [`IndexedBatch`] for this database, ordered like its column families.
    /// `Err(WrongKind)` on a database opened with a TTL: RocksDB's batch reads go around
    /// its TTL layer and would show the database's values with their timestamps.
    pub fn indexed_batch(&self) -> Result<IndexedBatch<'_>> {
        if self.inner().kind == DbKind::Ttl {
            return Err(Error::WrongKind {
                operation: "indexed_batch",
                needs: "non-TTL",
            });
        }
        // SAFETY: the database (borrowed by the batch for 'db) stays open while the batch
        // lives, and keeps every family's comparator alive.
        let raw = unsafe { IndexedBatchHandle::new(self.inner().raw_db()) }?;
        Ok(IndexedBatch {
            raw,
            db: self,
            families: Vec::new(),
            savepoints: Vec::new(),
            _one_user: PhantomData,
        })
    }
}

/// A write batch with an index: puts, deletes and merges collected for one atomic
/// [`write`](Self::write), readable meanwhile: [`reader`](Self::reader) sees the batch's
/// entries first and then the database (a read-your-own-writes view without a
/// transaction), [`batch_reader`](Self::batch_reader) the batch alone. Both have every tier
/// (Vec, buffer, pinned, guard, `Bytes`, multi-get, ranges, scans).
///
/// ```
/// # fn main() -> pinrocks::Result<()> {
/// # let dir = tempfile::tempdir().unwrap();
/// # let mut options = pinrocks::Options::new();
/// # options.create_if_missing(true);
/// let db = pinrocks::Db::open(&options, dir.path())?;
/// db.put(b"stock:apples", b"7")?;
/// db.put(b"stock:pears", b"3")?;
///
/// let mut batch = db.indexed_batch()?;
/// batch.writer().put(b"stock:apples", b"6")?;
/// batch.writer().delete(b"stock:pears")?;
/// let apples = batch.reader().get_pinned(b"stock:apples", |v| v.to_vec())?;
/// assert_eq!(apples.as_deref(), Some(&b"6"[..])); // the batch's write, over the database's
/// assert_eq!(batch.reader().get(b"stock:pears")?, None); // deleted in the batch
/// let keys: Vec<Vec<u8>> = batch.reader().scan(.., |k, _| k.to_vec()).collect::<pinrocks::Result<_>>()?;
/// assert_eq!(keys, [b"stock:apples".to_vec()]);
/// assert_eq!(db.get(b"stock:apples")?.as_deref(), Some(&b"7"[..])); // not written yet
///
/// batch.write()?;
/// assert_eq!(db.get(b"stock:apples")?.as_deref(), Some(&b"6"[..]));
/// # Ok(()) }
/// ```
///
/// The batch borrows its database (it keeps raw pointers to its column families' key
/// orders), and every reader, iterator and pinned value borrows the batch: nothing can
/// change the batch while one lives, because RocksDB's iterators point into its index. This
/// does not compile:
///
/// ```compile_fail
/// # fn main() -> pinrocks::Result<()> {
/// # let dir = tempfile::tempdir().unwrap();
/// # let mut options = pinrocks::Options::new();
/// # options.create_if_missing(true);
/// # let db = pinrocks::Db::open(&options, dir.path())?;
/// let mut batch = db.indexed_batch()?;
/// let reader = batch.reader();
/// let mut it = reader.iter();
/// it.seek_to_first();
/// batch.writer().put(b"k", b"v")?; // error: `batch` is borrowed by the iterator
/// it.next();
/// # Ok(()) }
/// ```
///
/// Nor can the batch outlive its database:
///
/// ```compile_fail
/// # fn main() -> pinrocks::Result<()> {
/// # let dir = tempfile::tempdir().unwrap();
/// # let options = pinrocks::Options::new();
/// let batch = {
///     let db = pinrocks::Db::open(&options, dir.path())?;
///     db.indexed_batch()?
/// }; // error: `db` does not live long enough
/// # Ok(()) }
/// ```
///
/// Not even declared before it, and dropped after it unused (its handle is destroyed at
/// its drop, which needs the database open):
///
/// ```compile_fail
/// # fn main() -> pinrocks::Result<()> {
/// # let dir = tempfile::tempdir().unwrap();
/// # let options = pinrocks::Options::new();
/// let batch;
/// let db = pinrocks::Db::open(&options, dir.path())?;
/// batch = db.indexed_batch()?; // error: `db` dropped while still borrowed
/// # Ok(()) }
/// ```
///
/// `Send` but not `Sync`, like [`WriteBatch`](crate::WriteBatch): writing it stamps a
/// sequence number into it.
#[doc(alias = "WriteBatchWithIndex")]
#[doc(alias = "rocksdb_writebatch_wi_t")]
pub struct IndexedBatch<'db> {
    raw: IndexedBatchHandle,
    db: &'db Db,
    /// The column families the batch names, checked at the write as a `WriteBatch`'s are.
    families: Vec<NamedFamily>,
    /// How many of `families` each open savepoint saw: a rollback forgets those named
    /// since.
    savepoints: Vec<usize>,
    /// Not `Sync`: `DB::Write` writes into the batch, and RocksDB's read methods are not
    /// declared safe to share.
    _one_user: PhantomData<std::cell::Cell<()>>,
}

// SAFETY: a `WriteBatchWithIndex` owns its write batch, arena and skip list, with no thread
// affinity: `Put`/`Delete`/`Merge` (`AddOrUpdateIndex`) and the reads (`GetFromBatch`,
// `GetFromBatchAndDB`, `NewIteratorWithBase`) touch only those and iterators they allocate,
// and `~WriteBatchWithIndex` frees them on any thread. The comparators it points to are
// `Send + Sync` (pinrocks requires it of `Comparator`s) and live in the database it borrows.
// One thread at a time (`!Sync`): `DB::Write` stamps a sequence number into its batch
// (`WriteBatchInternal::SetSequence`).
unsafe impl Send for IndexedBatch<'_> {}

#[cfg(test)]
impl IndexedBatch<'_> {
    /// Its write batch, for a test that forges the batch's count.
    pub(crate) fn batch_ptr(&self) -> crate::raw::batch::BatchPtr {
        self.raw.batch().as_ptr()
    }
}

impl<'db> IndexedBatch<'db> {
    /// Reads the batch's entries first, then the database, on the default column family;
    /// `.cf(..)` and `.options(..)` as for any [`Reader`] (the options' snapshot and bounds
    /// apply to the database; the batch has no snapshot).
    pub fn reader(&self) -> Reader<'_, BatchSource<'_>> {
        let inner = self.db.inner();
        Reader::with_source(
            inner,
            &inner.default_cf,
            BatchSource::new(self.raw.as_ptr(), false),
        )
    }

    /// Reads the batch's entries alone, as if the database were empty: a key whose entries
    /// in the batch are only merge operands reads as those operands merged with no existing
    /// value, by point reads and iteration alike.
    pub fn batch_reader(&self) -> Reader<'_, BatchSource<'_>> {
        let inner = self.db.inner();
        Reader::with_source(
            inner,
            &inner.default_cf,
            BatchSource::new(self.raw.as_ptr(), true),
        )
    }

    /// Runs one of rocksdb-c/'s indexed batch writes (`PINROCKS_RECORD_*`) on `cf`'s
    /// handle (`None`: the default family's, so the index orders it by its comparator).
    #[inline(always)]
    fn apply(
        &mut self,
        cf: Option<&Arc<CfHandle>>,
        op: u32,
        key: &[u8],
        value: &[u8],
    ) -> Result<()> {
        let inner = self.db.inner();
        let handle = cf.unwrap_or(&inner.default_cf);
        if op == record::MERGE {
            handle.check_merge()?;
        }
        // SAFETY: live batch (exclusively borrowed: no reader or iterator of it lives) and
        // handle; RocksDB copies the bytes in. The index keeps a pointer to the family's
        // comparator, which the database (borrowed for 'db) keeps alive.
        unsafe {
            if op == record::PUT {
                self.raw.put(cf.map(|cf| cf.handle()), key, value)
            } else {
                self.raw.write(handle.handle(), op, key, value)
            }
        }?;
        if cf.is_some() {
            NamedFamily::note(&mut self.families, handle);
        }
        Ok(())
    }

    /// Writes into the batch: the same calls as for the database (see [`Writer`]). A later
    /// write of a key replaces what reads through the batch see.
    #[doc(alias = "Put")]
    #[inline]
    pub fn writer(&mut self) -> Writer<'_, IndexedBatchTarget<'_, 'db>> {
        Writer::new(IndexedBatchTarget(self), None)
    }

    fn savepoint(&mut self, op: u32) -> Result<()> {
        // SAFETY: live batch, exclusively borrowed (a rollback rebuilds the index, which no
        // live iterator may point into).
        unsafe { self.raw.savepoint(op) }
    }

    /// Marks a savepoint: [`rollback_to_savepoint`](Self::rollback_to_savepoint) undoes
    /// what follows it.
    pub fn set_savepoint(&mut self) -> Result<()> {
        self.savepoint(savepoint::SET)?;
        self.savepoints.push(self.families.len());
        Ok(())
    }

    /// Undoes every write since the last savepoint, and forgets it. `Err(NotFound)` if
    /// there is none.
    pub fn rollback_to_savepoint(&mut self) -> Result<()> {
        self.savepoint(savepoint::ROLLBACK)?;
        if let Some(named) = self.savepoints.pop() {
            self.families.truncate(named);
        }
        Ok(())
    }

    /// Forgets the last savepoint, keeping the writes since. `Err(NotFound)` if none.
    pub fn pop_savepoint(&mut self) -> Result<()> {
        self.savepoint(savepoint::POP)?;
        self.savepoints.pop();
        Ok(())
    }

    /// Writes every entry to the database atomically, with default write options, then
    /// empties the batch for reuse: its entries are in the database, and reading them
    /// through the batch again would apply its merges twice. Refused whole (the batch kept
    /// as it was), as [`Writer::write`](crate::Writer::write) refuses a batch, if it names
    /// a dropped column family or the database is read-only.
    pub fn write(&mut self) -> Result<()> {
        self.write_with(WriteOptions::defaults())
    }

    /// [`write`](Self::write) with `options`.
    pub fn write_with(&mut self, options: &WriteOptions) -> Result<()> {
        self.db.inner().check_writable("write")?;
        let batch = self.raw.batch().as_ptr();
        // SAFETY: the batch is live and exclusively borrowed for the call.
        unsafe {
            self.db
                .writer()
                .options(options)
                .write_raw(batch, &self.families)?
        };
        self.clear();
        Ok(())
    }

    /// The number of writes in the batch.
    pub fn len(&self) -> usize {
        self.raw.batch().count() as usize
    }

    /// Whether the batch holds no write.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Calls `f` with each write of the batch, in the order made (a key written twice
    /// appears twice here, once in reads), its bytes borrowed from the batch.
    pub fn for_each(&self, f: impl FnMut(BatchRecord<'_>)) -> Result<()> {
        self.raw.batch().for_each(f)
    }

    /// Removes every write and savepoint, keeping the allocation.
    pub fn clear(&mut self) {
        // SAFETY: live batch, exclusively borrowed (no iterator into its index lives).
        unsafe { self.raw.clear() };
        self.families.clear();
        self.savepoints.clear();
    }
}

impl std::fmt::Debug for IndexedBatch<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IndexedBatch")
            .field("len", &self.len())
            .finish_non_exhaustive()
    }
}

// Its handle (a field) is destroyed while the database is open: this `Drop`, though it
// does nothing itself, makes the compiler hold the `'db` borrow until the batch drops (a
// type without one may be dropped after the database it borrows).
impl Drop for IndexedBatch<'_> {
    fn drop(&mut self) {}
}

/// Writes into an indexed batch: what [`IndexedBatch::writer`] gives.
pub struct IndexedBatchTarget<'a, 'db>(&'a mut IndexedBatch<'db>);

impl LogDataTarget for IndexedBatchTarget<'_, '_> {}

// The sealed trait's methods name crate-private types: unreachable from outside.
#[allow(private_interfaces)]
impl Target for IndexedBatchTarget<'_, '_> {
    fn family<'c>(&self, cf: &'c ColumnFamily<'_>) -> &'c Arc<CfHandle> {
        cf.handle_for(self.0.db.inner())
    }

    fn default_family(&self) -> Option<&Arc<CfHandle>> {
        Some(&self.0.db.inner().default_cf)
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
        self.0.apply(cf, op, key, value)
    }
}

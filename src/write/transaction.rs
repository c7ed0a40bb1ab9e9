//! Transactions: pessimistic (`TransactionDB`: keys locked as they are written or read for
//! update) and optimistic (`OptimisticTransactionDB`: conflicts found at commit). A
//! [`Transaction`] reads through the same [`Reader`] as the database, every tier included,
//! seeing its own writes first; its point reads are the same one native call as plain reads
//! (rocksdb-c/transactions.cc), the value pinned on the C++ stack.
//!
//! What a pinned read in a transaction holds: a value found in the transaction's own writes
//! is a copy RocksDB makes into the `PinnableSlice` (its write batch can change); a value
//! from the database pins its block, as a plain read does.
//!
//! Long because: one native object's whole life (begin, reads, writes, savepoints,
//! snapshots, the two-phase end, recovered transactions), each with its doctest.

use std::cell::OnceCell;
use std::ffi::CString;
use std::marker::PhantomData;
use std::sync::Arc;

use crate::db::column_family::ColumnFamily;
use crate::db::database::Db;
use crate::db::drops_and_ends::EndUnderWay;
use crate::db::handles::{CfHandle, RawDb, WritingAll};
use crate::options::transaction_options::{OptimisticTransactionOptions, TransactionOptions};
use crate::raw::c_consts::{read_mode, record, savepoint, txn_end};
use crate::raw::error::{Error, Result};
use crate::raw::transaction::TransactionHandle;
use crate::read::read_options::ReadOptions;
use crate::read::reader::Reader;
use crate::read::source::TransactionSource;
use crate::write::target::sealed::Target;
use crate::write::target::LogDataTarget;
use crate::write::write_options::WriteOptions;
use crate::write::writer::Writer;

impl Db {
    /// Begins a transaction with default options, pessimistic or optimistic as the database
    /// is. `Err(WrongKind)` on a database that is neither.
    ///
    /// ```
    /// # fn main() -> pinrocks::Result<()> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// let mut options = pinrocks::Options::new();
    /// options.create_if_missing(true);
    /// let txn_options = pinrocks::options::TransactionDbOptions::new();
    /// let db = pinrocks::Db::open_transaction_db(&options, &txn_options, dir.path(), [])?;
    /// db.put(b"balance", b"100")?;
    /// let mut txn = db.begin()?;
    /// let seen = txn.reader_for_update(pinrocks::write::Lock::Exclusive).get_pinned(b"balance", |v| v.to_vec())?; // locked
    /// txn.writer().put(b"balance", b"90")?;
    /// assert_eq!(txn.reader().get(b"balance")?.as_deref(), Some(&b"90"[..])); // its own write
    /// assert_eq!(db.get(b"balance")?.as_deref(), Some(&b"100"[..])); // not yet committed
    /// txn.commit()?;
    /// assert_eq!(db.get(b"balance")?.as_deref(), Some(&b"90"[..]));
    /// # assert_eq!(seen.as_deref(), Some(&b"100"[..]));
    /// # Ok(()) }
    /// ```
    ///
    /// A transaction cannot outlive its database:
    ///
    /// ```compile_fail
    /// # fn main() -> pinrocks::Result<()> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let options = pinrocks::Options::new();
    /// let txn = {
    ///     let db = pinrocks::Db::open_transaction_db(&options, &Default::default(), dir.path(), [])?;
    ///     db.begin()?
    /// }; // error: `db` does not live long enough
    /// # Ok(()) }
    /// ```
    #[doc(alias = "BeginTransaction")]
    pub fn begin(&self) -> Result<Transaction<'_>> {
        match self.inner().raw_db() {
            RawDb::Transaction { .. } => {
                self.transaction(WriteOptions::defaults(), &TransactionOptions::new())
            }
            RawDb::Optimistic { .. } => self.optimistic_transaction(
                WriteOptions::defaults(),
                &OptimisticTransactionOptions::new(),
            ),
            RawDb::Plain(_) => Err(not_transactional()),
        }
    }

    /// Begins a pessimistic transaction.
    pub fn transaction(
        &self,
        write: &WriteOptions,
        options: &TransactionOptions,
    ) -> Result<Transaction<'_>> {
        let raw = TransactionHandle::begin_pessimistic(
            self.inner().raw_db(),
            write.handle(),
            options.handle(),
        )
        .ok_or_else(not_transactional)?;
        Ok(Transaction::new(self, raw))
    }

    /// Begins an optimistic transaction.
    pub fn optimistic_transaction(
        &self,
        write: &WriteOptions,
        options: &OptimisticTransactionOptions,
    ) -> Result<Transaction<'_>> {
        let raw = TransactionHandle::begin_optimistic(
            self.inner().raw_db(),
            write.handle(),
            options.handle(),
        )
        .ok_or_else(not_transactional)?;
        Ok(Transaction::new(self, raw))
    }

    /// The transactions that were prepared (two-phase commit) and neither committed nor
    /// rolled back when the database last closed: after reopening, commit or roll back
    /// each. Pessimistic transaction databases only.
    pub fn prepared_transactions(&self) -> Result<Vec<Transaction<'_>>> {
        if !matches!(self.inner().raw_db(), RawDb::Transaction { .. }) {
            return Err(not_transactional());
        }
        // Only those recovered at open, each once: RocksDB's list also holds the live
        // transactions of this open that were prepared, which their `Transaction` owns.
        let recovered = std::mem::take(
            &mut *self
                .inner()
                .recovered
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner()),
        );
        Ok(recovered
            .into_iter()
            .map(|txn| {
                let (raw, families) = txn.hand_out();
                let mut txn = Transaction::new(self, raw);
                txn.families = families;
                txn.prepared = true;
                txn.drops_seen = 0;
                txn
            })
            .collect())
    }
}

fn not_transactional() -> Error {
    // Open it with open_transaction_db or open_optimistic_transaction_db.
    Error::WrongKind {
        operation: "a transaction",
        needs: "transaction",
    }
}

/// A transaction: writes buffered until [`commit`](Self::commit), reads that see them
/// first. Dropped without a commit, it rolls back. It borrows its database, so it cannot
/// outlive it. `Send` (it may move to another thread) but not `Sync`: RocksDB's
/// transactions need one user at a time.
///
/// ```compile_fail
/// fn shared<T: Sync>(_: &T) {}
/// # let dir = tempfile::tempdir().unwrap();
/// # let mut options = pinrocks::Options::new();
/// # options.create_if_missing(true);
/// let db = pinrocks::Db::open_optimistic_transaction_db(&options, dir.path(), []).unwrap();
/// shared(&db.begin().unwrap());
/// ```
///
/// Writes take it exclusively: an iterator through the transaction points into its write
/// batch, which a write may reallocate, so a write while one lives does not compile:
///
/// ```compile_fail
/// # fn main() -> pinrocks::Result<()> {
/// # let dir = tempfile::tempdir().unwrap();
/// # let mut options = pinrocks::Options::new();
/// # options.create_if_missing(true);
/// let db = pinrocks::Db::open_optimistic_transaction_db(&options, dir.path(), [])?;
/// let mut txn = db.begin()?;
/// txn.writer().put(b"k", b"small")?;
/// let reader = txn.reader();
/// let it = reader.range(..); // at the transaction's own "k"
/// txn.writer().put(b"pad", &[0u8; 4096])?; // error: `txn` is borrowed by the iterator
/// let _ = it.value();
/// # Ok(()) }
/// ```
pub struct Transaction<'db> {
    raw: TransactionHandle,
    db: &'db Db,
    /// The column families (other than the default) it writes to: kept alive for its
    /// write batch's index (which uses their comparators), entered at prepare and commit
    /// (a dropped one refuses them, before RocksDB would fail the commit and stop the
    /// database), and counted as prepared from its prepare to its end.
    families: Vec<Arc<CfHandle>>,
    /// Prepared (two-phase) and not yet committed or rolled back: `families` count it.
    prepared: bool,
    /// The database's count of finished family drops when it began (0 for one recovered
    /// at open): if a drop began since, its rows are freed one by one at its end.
    drops_seen: u64,
    /// Committed or rolled back: RocksDB cleared its tracked rows, so its destructor unlocks
    /// nothing and need not be ordered against a family drop (`Drop`).
    ended: bool,
    /// Read options at the transaction's snapshot, made on first use and forgotten by
    /// whatever replaces the snapshot (each takes `&mut self`, so none is borrowed then).
    /// Boxed: a transaction moves (returned by `begin`) as a few words, not with a copy
    /// call (measured: ~60 instructions a transaction).
    at_snapshot: OnceCell<Box<ReadOptions>>,
    /// Not `Sync`: a RocksDB transaction has one user at a time.
    _one_user: PhantomData<std::cell::Cell<()>>,
}

// SAFETY: a RocksDB `Transaction` has no thread affinity: `PessimisticTransaction::TryLock`
// locks through `PessimisticTransactionDB::TryLock` keyed by `Transaction::GetID()` (not the
// thread), and `TransactionBaseImpl` keeps its batch, tracked keys and savepoints in the
// object; RocksDB requires only that one thread use it at a time, which `!Sync` ensures
// (every use, reads through its `Reader` included, borrows it on one thread). `Drop`
// (`~PessimisticTransaction`, unlocking by id) may run on any thread.
unsafe impl Send for Transaction<'_> {}

#[cfg(test)]
impl Transaction<'_> {
    /// Its write batch, for a test that forges the batch's count.
    pub(crate) fn batch_ptr(&self) -> crate::raw::batch::BatchPtr {
        self.raw.batch()
    }
}

impl<'db> Transaction<'db> {
    fn new(db: &'db Db, raw: TransactionHandle) -> Self {
        Transaction {
            raw,
            db,
            families: Vec::new(),
            prepared: false,
            // Only a pessimistic transaction's end looks at it.
            drops_seen: match db.inner().raw_db() {
                RawDb::Transaction { .. } => db.inner().drops_and_ends.finished(),
                _ => 0,
            },
            ended: false,
            at_snapshot: OnceCell::new(),
            _one_user: PhantomData,
        }
    }

    /// Reads through the transaction (its own writes, then the database) on the default
    /// column family; `.cf(..)` and `.options(..)` as for any [`Reader`].
    pub fn reader(&self) -> Reader<'_, TransactionSource<'_>> {
        let inner = self.db.inner();
        let source = TransactionSource::new(self.raw.as_ptr(), read_mode::PLAIN);
        Reader::with_source(inner, &inner.default_cf, source)
    }

    /// Reads for update: each key read is locked (pessimistic; `exclusive` or shared) or
    /// tracked for conflicts at commit (optimistic), so the transaction fails rather than
    /// commit over a change made since. Every point-read tier, the pinned multi-get
    /// included (key by key through `GetForUpdate`: RocksDB's `MultiGet` would not lock);
    /// iterators read plainly.
    #[doc(alias = "GetForUpdate")]
    pub fn reader_for_update(&self, lock: Lock) -> Reader<'_, TransactionSource<'_>> {
        let inner = self.db.inner();
        let mode = match lock {
            Lock::Exclusive => read_mode::FOR_UPDATE,
            Lock::Shared => read_mode::FOR_UPDATE_SHARED,
        };
        Reader::with_source(
            inner,
            &inner.default_cf,
            TransactionSource::new(self.raw.as_ptr(), mode),
        )
    }

    /// One write (`op`: a `PINROCKS_RECORD_*`) to `cf` (`None`: the default family),
    /// through our guarded shim (the C API's `rocksdb_transaction_put_cf` & co. let
    /// `std::bad_alloc` escape).
    #[inline(always)]
    fn write(
        &mut self,
        operation: &'static str,
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
        // RocksDB takes writes after a prepare, but they are not in the WAL's prepare
        // section: a crash before the commit would lose them.
        if self.prepared {
            return Err(Error::invalid(
                "transaction write",
                "the transaction is prepared: a write now would not survive a crash",
            ));
        }
        // The family is entered for the call, not locked: a put that waits for another
        // transaction's row lock holds up nothing but a drop of this family.
        let _writing = inner.live_family(operation, handle)?;
        // Noted as the write goes to RocksDB, whatever it answers (one that threw may be in
        // the batch already); one refused before it names nothing.
        if !handle.is_default() {
            self.note_family(handle);
        }
        if op == record::PUT {
            self.raw.put(cf.map(|cf| cf.handle()), key, value)
        } else {
            self.raw.write(handle.handle(), op, key, value)
        }
    }

    /// Adds `handle`'s family to the families the transaction writes, unless it is there.
    fn note_family(&mut self, handle: &Arc<CfHandle>) {
        if !self.families.iter().any(|f| Arc::ptr_eq(f, handle)) {
            self.families.push(Arc::clone(handle));
        }
    }

    /// Prepare, commit, rollback or rollback to savepoint (`op`: a `PINROCKS_TXN_*`).
    fn end(&mut self, op: u32) -> Result<()> {
        let (free_rows_of, _end) = self.free_rows_of(op != txn_end::PREPARE);
        // SAFETY: `free_rows_of` is its own database or None.
        unsafe { self.raw.end(op, free_rows_of) }
    }

    /// For a call that `unlocks` (a commit, a rollback, a rollback to a savepoint, the
    /// drop): its pessimistic transaction database if a family drop began since it began
    /// (None otherwise, and for a call that unlocks nothing), and the end, under way until
    /// the guard drops. RocksDB 11.8.1's unlock at
    /// a transaction's end stops at the first family whose locks are gone, so the rows it
    /// holds in the families after that one would stay locked until the database closes;
    /// then each row is freed by itself. A drop waits for the ends under way when it
    /// began: an end that did not see it finishes before the family is gone.
    fn free_rows_of(&self, unlocks: bool) -> (Option<&'db RawDb>, Option<EndUnderWay<'db>>) {
        let inner = self.db.inner();
        match inner.raw_db() {
            db @ RawDb::Transaction { .. } if unlocks => {
                let (careful, end) = inner.drops_and_ends.end_begins(self.drops_seen);
                (careful.then_some(db), Some(end))
            }
            _ => (None, None),
        }
    }

    /// Writes into the transaction, to the default family: the same calls as for the
    /// database (see [`Writer`]). Each write locks its key (pessimistic) or tracks it
    /// (optimistic).
    ///
    /// ```
    /// # fn main() -> pinrocks::Result<()> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let mut options = pinrocks::Options::new();
    /// # options.create_if_missing(true).create_missing_column_families(true);
    /// # let cf_options = pinrocks::Options::new();
    /// let db = pinrocks::Db::open_optimistic_transaction_db(&options, dir.path(), [("users", &cf_options)])?;
    /// let users = db.cf("users")?;
    /// let mut txn = db.begin()?;
    /// txn.writer().cf(&users).put(b"ada", b"Lovelace")?;
    /// txn.writer().delete(b"stale")?;
    /// txn.commit()?;
    /// assert_eq!(users.reader().get(b"ada")?.as_deref(), Some(&b"Lovelace"[..]));
    /// # Ok(()) }
    /// ```
    #[doc(alias = "Put")]
    #[inline]
    pub fn writer(&mut self) -> Writer<'_, TransactionTarget<'_, 'db>> {
        Writer::new(TransactionTarget(self), None)
    }

    /// One savepoint operation (`op`: a `PINROCKS_SAVEPOINT_*`).
    fn savepoint(&mut self, op: u32) -> Result<()> {
        let (free_rows_of, _end) = self.free_rows_of(op == savepoint::ROLLBACK);
        // SAFETY: `free_rows_of` is its own database or None.
        unsafe { self.raw.savepoint(op, free_rows_of) }
    }

    /// Marks a savepoint: [`rollback_to_savepoint`](Self::rollback_to_savepoint) undoes
    /// what follows it.
    pub fn set_savepoint(&mut self) -> Result<()> {
        self.savepoint(savepoint::SET)
    }

    /// Undoes every write since the last savepoint, and forgets it; the transaction's
    /// snapshot goes back to the one it had then. `Err(NotFound)` if there is none.
    pub fn rollback_to_savepoint(&mut self) -> Result<()> {
        self.at_snapshot.take();
        self.savepoint(savepoint::ROLLBACK)
    }

    /// Forgets the last savepoint, keeping the writes since. `Err(NotFound)` if none.
    pub fn pop_savepoint(&mut self) -> Result<()> {
        self.savepoint(savepoint::POP)
    }

    /// Takes a new snapshot for the transaction, now (or its first, if it began without
    /// [`TransactionOptions::set_snapshot`]): from here, a key that someone else writes
    /// after it makes this transaction's write (or read for update) of that key fail
    /// (`Busy`), and [`snapshot_options`](Self::snapshot_options) read as of it.
    ///
    /// ```
    /// # fn main() -> pinrocks::Result<()> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let mut options = pinrocks::Options::new();
    /// # options.create_if_missing(true);
    /// let db = pinrocks::Db::open_optimistic_transaction_db(&options, dir.path(), [])?;
    /// db.put(b"rate", b"1.00")?;
    /// let mut txn = db.begin()?;
    /// txn.set_snapshot()?;
    /// db.put(b"rate", b"1.10")?; // written after the snapshot
    /// let at = txn.snapshot_options();
    /// assert_eq!(txn.reader().options(at).get(b"rate")?.as_deref(), Some(&b"1.00"[..]));
    /// assert_eq!(txn.reader().get(b"rate")?.as_deref(), Some(&b"1.10"[..])); // the latest
    /// txn.set_snapshot()?; // refreshed: now sees 1.10
    /// let at = txn.snapshot_options();
    /// assert_eq!(txn.reader().options(at).get(b"rate")?.as_deref(), Some(&b"1.10"[..]));
    /// # Ok(()) }
    /// ```
    pub fn set_snapshot(&mut self) -> Result<()> {
        self.at_snapshot.take();
        // Exclusively borrowed, and the read options of its previous snapshot (which this
        // may release) forgotten above: none is borrowed.
        self.raw.set_snapshot()
    }

    /// Read options (otherwise pinrocks' defaults) at the transaction's snapshot: for
    /// repeatable reads through [`reader`](Self::reader) (or the database's) with
    /// `.options(..)`. Without a snapshot (none set at begin or by
    /// [`set_snapshot`](Self::set_snapshot)) they read the latest data. They borrow the
    /// transaction, which owns the snapshot, so they cannot outlive it or see it replaced:
    ///
    /// ```compile_fail
    /// # fn main() -> pinrocks::Result<()> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let mut options = pinrocks::Options::new();
    /// # options.create_if_missing(true);
    /// let db = pinrocks::Db::open_optimistic_transaction_db(&options, dir.path(), [])?;
    /// let mut txn = db.begin()?;
    /// txn.set_snapshot()?;
    /// let at = txn.snapshot_options();
    /// txn.set_snapshot()?; // error: `txn` is borrowed by `at`
    /// db.reader().options(at).get(b"k")?;
    /// # Ok(()) }
    /// ```
    pub fn snapshot_options(&self) -> &ReadOptions {
        self.at_snapshot.get_or_init(|| {
            let mut options = ReadOptions::new();
            // SAFETY: live transaction and options; the snapshot pointer stays valid while
            // these options are reachable: until the transaction drops or `set_snapshot` /
            // `rollback_to_savepoint` (both `&mut self`) forget them first.
            unsafe { self.raw.snapshot_into(options.handle_mut()) };
            options.borrow_snapshot_of(self.db.inner().id);
            Box::new(options)
        })
    }

    /// Names the transaction, for two-phase commit (before [`prepare`](Self::prepare)).
    ///
    /// At most 512 bytes (RocksDB's limit, checked here: the C API copies the name before
    /// it checks).
    pub fn set_name(&mut self, name: &str) -> Result<()> {
        if name.len() > 512 {
            return Err(Error::invalid(
                "transaction name",
                format!("{} bytes: at most 512", name.len()),
            ));
        }
        let name = CString::new(name).map_err(|e| Error::invalid("transaction name", e))?;
        self.raw.set_name(&name)
    }

    /// Its name ([`set_name`](Self::set_name)), `None` if it has none: after a crash, what
    /// tells the [recovered](Db::prepared_transactions) ones apart, to commit or roll back
    /// each as the coordinator decided.
    pub fn name(&self) -> Result<Option<String>> {
        let mut buf = [0u8; 512];
        let len = self.raw.copy_name(&mut buf)?;
        // `set_name` refuses longer names, and RocksDB keeps the one it was given.
        let name = &buf[..len.min(buf.len())];
        Ok((!name.is_empty()).then(|| String::from_utf8_lossy(name).into_owned()))
    }

    /// Prepares a named transaction (two-phase commit): its writes are in the WAL, and it
    /// survives a crash as prepared ([`Db::prepared_transactions`] after reopening).
    ///
    /// Refused with [`Error::ColumnFamilyDropped`] if a family it writes to was dropped
    /// since; from here until it commits or rolls back (dropped without either, it stays
    /// prepared in the WAL: until the database closes), [`Db::drop_cf`] refuses those
    /// families ([`Error::ColumnFamilyInUse`]).
    pub fn prepare(&mut self) -> Result<()> {
        crate::raw::reentry::refuse_inside("prepare")?;
        let _writing = self.enter_families(true)?;
        self.end(txn_end::PREPARE)?;
        if !self.prepared {
            self.prepared = true;
            for family in &self.families {
                family.note_prepared(true);
            }
        }
        Ok(())
    }

    /// Commits every write atomically. A conflict (optimistic), an expired transaction or
    /// a failure to write is an error, and nothing is committed; see
    /// [`Error::is_retryable`].
    ///
    /// A transaction that writes to a column family dropped since it wrote is refused
    /// ([`Error::ColumnFamilyDropped`]) before RocksDB sees it: RocksDB would fail the
    /// commit inside and then refuse every write to the database until it is reopened.
    pub fn commit(mut self) -> Result<()> {
        crate::raw::reentry::refuse_inside("commit")?;
        let _writing = self.enter_families(false)?;
        self.end(txn_end::COMMIT)?;
        self.ended = true;
        self.no_longer_prepared();
        Ok(())
    }

    /// Discards every write and releases every lock.
    pub fn rollback(mut self) -> Result<()> {
        crate::raw::reentry::refuse_inside("rollback")?;
        self.end(txn_end::ROLLBACK)?;
        self.ended = true;
        self.no_longer_prepared();
        Ok(())
    }

    /// Enters the families the transaction wrote for its commit (for its prepare if
    /// `preparing`); none (the common case: the default family alone) skips the call.
    #[inline]
    fn enter_families(&self, preparing: bool) -> Result<Option<WritingAll>> {
        if self.families.is_empty() {
            return Ok(None);
        }
        let families = self.families.iter().cloned();
        if preparing {
            WritingAll::enter_preparing(families).map(Some)
        } else {
            WritingAll::enter(families).map(Some)
        }
    }

    /// After a commit or rollback: a prepared transaction no longer holds its families.
    /// (Dropped without either, it stays prepared in the WAL, to be recovered at the next
    /// open, so its families stay held until the database closes: a drop of one would
    /// make that commit fail.)
    fn no_longer_prepared(&mut self) {
        if std::mem::take(&mut self.prepared) {
            for family in &self.families {
                family.note_prepared(false);
            }
        }
    }
}

impl Drop for Transaction<'_> {
    fn drop(&mut self) {
        // One that ended holds no row (RocksDB cleared its tracker): no end to order, and no
        // lock taken for it (measured: ~130 instructions a pessimistic transaction).
        let (free_rows_of, _end) = self.free_rows_of(!self.ended);
        // SAFETY: owned, destroyed once, while its database is open (the borrow). An
        // uncommitted transaction is rolled back by its destructor; a prepared one stays
        // prepared in the WAL (its families stay counted: `no_longer_prepared`).
        // `free_rows_of` is its own pessimistic transaction database or None.
        unsafe { self.raw.destroy(free_rows_of) };
    }
}

/// How [`Transaction::reader_for_update`] locks the keys it reads (RocksDB's
/// `GetForUpdate(.., exclusive)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lock {
    /// No other transaction may lock the key until this one ends.
    Exclusive,
    /// Other transactions may read it for update too (shared); none may write it.
    Shared,
}

/// Writes into a transaction: what [`Transaction::writer`] gives; it borrows the
/// transaction exclusively. RocksDB's transactions have no range delete, so neither has
/// their writer:
///
/// ```compile_fail
/// # fn main() -> pinrocks::Result<()> {
/// # let dir = tempfile::tempdir().unwrap();
/// # let mut o = pinrocks::Options::new();
/// # o.create_if_missing(true);
/// let db = pinrocks::Db::open_optimistic_transaction_db(&o, dir.path(), [])?;
/// let mut txn = db.begin()?;
/// txn.writer().delete_range(b"a", b"z")?;
/// # Ok(()) }
/// ```
pub struct TransactionTarget<'a, 'db>(&'a mut Transaction<'db>);

impl LogDataTarget for TransactionTarget<'_, '_> {}

// The sealed trait's methods name crate-private types: unreachable from outside.
#[allow(private_interfaces)]
impl Target for TransactionTarget<'_, '_> {
    fn family<'c>(&self, cf: &'c ColumnFamily<'_>) -> &'c Arc<CfHandle> {
        cf.handle_for(self.0.db.inner())
    }

    fn default_family(&self) -> Option<&Arc<CfHandle>> {
        Some(&self.0.db.inner().default_cf)
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
        self.0.write(operation, cf, op, key, value)
    }
}

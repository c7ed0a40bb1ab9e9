//! Following a database's changes: the write batches in its WAL since a sequence number,
//! each with its records (see [`BatchRecord`]), to replicate or audit writes.

use std::marker::PhantomData;

use crate::db::database::Db;
use crate::raw::batch_records::BatchRecord;
use crate::raw::error::{Error, Result};
use crate::raw::wal::{LoggedBatchHandle, WalIterHandle};

/// The write batches logged since a sequence number, oldest first, from
/// [`Db::updates_since`]. A std [`Iterator`]; an error reading the log is its last item.
/// A batch written by two-phase commit (a transaction's prepare, commit or rollback) ends
/// it with [`Error::TwoPhaseCommitInLog`]: RocksDB's log iterator cannot follow those. A
/// batch that does not start where the last ended (writes with the WAL disabled, or a
/// batch RocksDB's iterator skipped) ends it with [`Error::LogGap`]: it never ends short
/// without saying so.
/// It reads the WAL files, so it sees what they still hold: RocksDB deletes WAL files once
/// their memtables are flushed (unless `WAL_ttl_seconds` / `WAL_size_limit_MB` keep them).
pub struct Updates<'db> {
    raw: WalIterHandle,
    started: bool,
    done: bool,
    /// The sequence number the next batch must start at: at most the one asked for, then
    /// each batch right after the last (its first sequence number plus its count).
    /// RocksDB's iterator skips a batch it cannot place (a two-phase commit's marker,
    /// which holds no records) without a word; this is how pinrocks notices.
    expected: Expected,
    /// The iterator reads the database's log through its `DBImpl`.
    _db: PhantomData<&'db Db>,
}

/// Not a no-op for the borrow checker: the iterator's native object (dropped with its
/// `Owned` field) reads the database's log, so an `Updates` must not outlive its `Db`, not
/// even by `let updates; let db = ..;`. Without a `Drop` of its own the compiler could drop
/// the borrow last (docs/drop-order.md proves the order is refused).
impl Drop for Updates<'_> {
    fn drop(&mut self) {}
}

/// One logged write batch: its first sequence number and its records.
pub struct LoggedBatch {
    sequence: u64,
    raw: LoggedBatchHandle,
}

impl LoggedBatch {
    /// The sequence number of the batch's first record; each record after it takes the
    /// next one.
    pub fn sequence(&self) -> u64 {
        self.sequence
    }

    /// How many records the batch holds.
    pub fn len(&self) -> usize {
        self.raw.count()
    }

    /// Whether the batch holds no record.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Calls `f` with each record, in order, its bytes borrowed from the batch. Column
    /// families are named by id ([`ColumnFamily::id`](crate::ColumnFamily::id)).
    pub fn for_each(&self, f: impl FnMut(BatchRecord<'_>)) -> Result<()> {
        self.raw.for_each(f)
    }
}

/// Where the next batch must start (see `Updates::expected`).
#[derive(Clone, Copy)]
enum Expected {
    AtMost(u64),
    Exactly(u64),
}

impl Expected {
    /// `Err(LogGap)` unless a batch may start at `sequence`.
    fn check(self, sequence: u64) -> Result<()> {
        let (in_place, expected) = match self {
            Expected::AtMost(start) => (sequence <= start, start),
            Expected::Exactly(next) => (sequence == next, next),
        };
        if in_place {
            Ok(())
        } else {
            Err(Error::LogGap {
                expected,
                found: sequence,
            })
        }
    }
}

impl Iterator for Updates<'_> {
    type Item = Result<LoggedBatch>;

    fn next(&mut self) -> Option<Result<LoggedBatch>> {
        if self.done {
            return None;
        }
        let item = self.step();
        // Anything but a batch ends the iteration: the end, or an error as its last item.
        self.done = !matches!(item, Some(Ok(_)));
        item
    }
}

impl Updates<'_> {
    /// The next batch, the end, or what stopped the iteration.
    fn step(&mut self) -> Option<Result<LoggedBatch>> {
        if self.started {
            if let Err(e) = self.raw.next() {
                return Some(Err(e));
            }
        }
        self.started = true;
        match self.raw.valid() {
            Ok(true) => {}
            Ok(false) => return None,
            Err(e) => return Some(Err(e)),
        }
        let (sequence, raw) = match self.raw.take_batch() {
            Ok(taken) => taken,
            Err(e) => return Some(Err(e)),
        };
        // A prepared transaction's batch uses no sequence numbers and its commit's uses
        // them with no records: RocksDB's log iterator then reports prepared (maybe rolled
        // back) writes as done and skips later batches, ending short or with "Gap in
        // sequence numbers". Refused rather than followed wrongly.
        if raw.has_2pc_markers() {
            return Some(Err(Error::TwoPhaseCommitInLog { sequence }));
        }
        let batch = LoggedBatch { sequence, raw };
        if let Err(e) = self.expected.check(sequence) {
            return Some(Err(e));
        }
        self.expected = Expected::Exactly(sequence + batch.len() as u64);
        Some(Ok(batch))
    }
}

impl Db {
    /// The write batches logged from sequence number `sequence` on (1 is the first write;
    /// 0 means the same), oldest first. A `sequence` whose WAL file is already gone (its
    /// memtable flushed) ends the iteration at once with [`Error::LogGap`](crate::Error::LogGap):
    /// it never starts later than asked without saying so.
    ///
    /// ```
    /// use pinrocks::write::BatchRecord;
    /// # fn main() -> pinrocks::Result<()> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let mut opts = pinrocks::Options::new();
    /// # opts.create_if_missing(true);
    /// # let db = pinrocks::Db::open(&opts, dir.path())?;
    /// db.put(b"a", b"1")?;
    /// db.delete(b"a")?;
    /// let mut log = Vec::new();
    /// for batch in db.updates_since(1)? {
    ///     let batch = batch?;
    ///     batch.for_each(|record| log.push(format!("{}: {record:?}", batch.sequence())))?;
    /// }
    /// assert_eq!(log.len(), 2);
    /// assert!(log[1].starts_with("2: Delete"));
    /// # Ok(()) }
    /// ```
    #[doc(alias = "GetUpdatesSince")]
    pub fn updates_since(&self, sequence: u64) -> Result<Updates<'_>> {
        // SAFETY: live database, borrowed by the iterator for its life ('_).
        let raw = unsafe { WalIterHandle::updates_since(self.as_raw().0, sequence) }?;
        Ok(Updates {
            raw,
            started: false,
            done: false,
            // RocksDB takes 0 for "from the first", which is 1.
            expected: Expected::AtMost(sequence.max(1)),
            _db: PhantomData,
        })
    }
}

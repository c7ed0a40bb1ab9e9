//! Read controls: how far a read may go (the read tier), how long it may take (deadline,
//! per-I/O timeout), how it reads ahead, what an iterator skips, and a cursor's refresh. Every read tier and
//! iterator honours them, since each passes the same `ReadOptions` to RocksDB.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::db::handles::DbKind;
use crate::db::snapshot::Snapshot;
use crate::raw::error::{Error, Result};
use crate::raw::setter::setter;
use crate::read::cursor::Cursor;
use crate::read::read_options::ReadOptions;
use crate::read::source::DbSource;

/// Where a read may look (RocksDB's `ReadTier`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum ReadTier {
    /// Memtables, block cache, OS cache and storage (RocksDB's default).
    #[default]
    All,
    /// Only what is in memory: memtables and the block cache. A value RocksDB would have to
    /// read from a file is [`ErrorKind::NotInCache`](crate::ErrorKind::NotInCache), not a
    /// miss. No I/O, so a hot path can try memory first and defer the rest.
    BlockCache,
    /// Only persisted data: with the WAL off, skips the memtables. Point reads and
    /// multi-get only; an iterator refuses it (`NotSupported`).
    Persisted,
    /// Only the memtables: for iterators over what is not flushed yet.
    Memtable,
}

impl ReadTier {
    fn code(self) -> i32 {
        match self {
            ReadTier::All => 0,
            ReadTier::BlockCache => 1,
            ReadTier::Persisted => 2,
            ReadTier::Memtable => 3,
        }
    }
}

/// Microseconds, saturating at `i64::MAX`: RocksDB's unit for deadlines and timeouts, kept
/// in a signed `std::chrono::microseconds` (a larger value would read as negative: passed).
fn micros(d: Duration) -> u64 {
    d.as_micros().min(i64::MAX as u128) as u64
}

impl ReadOptions {
    /// Where reads with these options may look: see [`ReadTier`].
    pub fn read_tier(&mut self, tier: ReadTier) -> &mut Self {
        self.raw.set_read_tier(tier.code());
        self
    }

    /// A read still going at `deadline` stops with [`ErrorKind::TimedOut`]
    /// (`deadline`). RocksDB compares it with its clock (the system clock, in microseconds
    /// since the Unix epoch) before each file read, so a read served from memory (the
    /// memtable, the block cache) finishes whatever the time; best effort, as RocksDB says.
    /// A time before the epoch is the epoch (already passed).
    ///
    /// [`ErrorKind::TimedOut`]: crate::ErrorKind::TimedOut
    pub fn deadline(&mut self, deadline: SystemTime) -> &mut Self {
        let since_epoch = deadline.duration_since(UNIX_EPOCH).unwrap_or_default();
        // RocksDB reads 0 as "no deadline": the epoch itself is one microsecond after it.
        let us = micros(since_epoch).max(1);
        self.raw.set_deadline(us);
        self
    }

    /// Each file read may take at most `timeout` (`io_timeout`), where the file system
    /// supports timeouts; one that takes longer fails the read with
    /// [`ErrorKind::TimedOut`](crate::ErrorKind::TimedOut). `Duration::ZERO`: no timeout.
    pub fn io_timeout(&mut self, timeout: Duration) -> &mut Self {
        self.raw.set_io_timeout(micros(timeout));
        self
    }

    setter!(
        /// `async_io`: iterators prefetch the next blocks asynchronously and multi-get reads
        /// several files at once, where the file system supports it (io_uring); elsewhere
        /// RocksDB reads synchronously as before.
        async_io(bool) => rocksdb_readoptions_set_async_io as u8
    );
    setter!(
        /// `readahead_size`: bytes an iterator reads ahead in each file (0: RocksDB's
        /// automatic readahead, growing from 8 KiB).
        readahead_size(usize) => rocksdb_readoptions_set_readahead_size
    );
    setter!(
        /// `tailing`: an iterator that sees writes made after it was created, for reading a
        /// stream of new keys as they arrive (not with a snapshot).
        tailing(bool) => rocksdb_readoptions_set_tailing as u8
    );
    setter!(
        /// `ignore_range_deletions`: read as if no `delete_range` had been done, for a
        /// database that never uses one (saves checking tombstones). Keys deleted by a
        /// range read as present.
        ignore_range_deletions(bool) => rocksdb_readoptions_set_ignore_range_deletions as u8
    );
    setter!(
        /// `max_skippable_internal_keys`: an iterator that steps over more deleted or
        /// overwritten entries than this in one move stops with
        /// [`ErrorKind::Incomplete`](crate::ErrorKind::Incomplete) instead of going on (0:
        /// no limit), bounding the time of one move.
        max_skippable_internal_keys(u64) => rocksdb_readoptions_set_max_skippable_internal_keys
    );
}

impl Cursor<'_, DbSource> {
    /// Rebuilds the cursor over the database as it is now (RocksDB's `Iterator::Refresh`):
    /// it sees the writes made since it was created (or last refreshed), without the cost
    /// of a new iterator's setup. It reads the latest state even if its read options had a
    /// snapshot. Not positioned afterwards: seek it.
    ///
    /// ```
    /// # fn main() -> pinrocks::Result<()> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let mut opts = pinrocks::Options::new();
    /// # opts.create_if_missing(true);
    /// # let db = pinrocks::Db::open(&opts, dir.path())?;
    /// db.put(b"a", b"1")?;
    /// let mut it = db.reader().iter();
    /// db.put(b"b", b"2")?; // after the cursor was made: not seen
    /// it.seek(b"b");
    /// assert_eq!(it.key(), None);
    /// it.refresh()?;
    /// it.seek(b"b");
    /// assert_eq!(it.entry(), Some((&b"b"[..], &b"2"[..])));
    /// # Ok(()) }
    /// ```
    pub fn refresh(&mut self) -> Result<()> {
        self.refresh_at(None)
    }

    /// Rebuilds the cursor to read as of `snapshot`, which it keeps alive. Not positioned
    /// afterwards.
    ///
    /// # Panics
    /// If `snapshot` is of another database (RocksDB would read this one at an unrelated
    /// sequence number).
    pub fn refresh_to(&mut self, snapshot: &Snapshot) -> Result<()> {
        assert!(
            snapshot.db_id() == self.db_id,
            "refresh_to: a snapshot of another database"
        );
        if self.kind == DbKind::Secondary {
            // `DBImplSecondary` refuses iterators at a snapshot (the primary does not keep
            // its sequence numbers for it); a refresh must not get round that.
            return Err(Error::invalid(
                "refresh_to",
                "a secondary instance reads at no snapshot",
            ));
        }
        self.refresh_at(Some(snapshot))
    }

    fn refresh_at(&mut self, snapshot: Option<&Snapshot>) -> Result<()> {
        crate::raw::reentry::refuse_read_inside("refresh")?;
        if let Some(refusal) = &self.refused {
            // Refused reads stay refused: the reason, not the empty iterator's.
            return Err(refusal.error());
        }
        let mut at = ReadOptions::new();
        if let Some(snapshot) = snapshot {
            at.snapshot(snapshot);
        }
        // SAFETY: RocksDB keeps the snapshot pointer, whose `Snapshot` is kept below until
        // `raw` is destroyed.
        let outcome = unsafe { self.raw.refresh_at(&at.raw) };
        if outcome.is_ok() {
            // RocksDB now points at this snapshot (or none): the earlier ones may go.
            self.refreshed_to.clear();
        }
        // On a failure RocksDB may or may not have taken the new pointer: keep both.
        self.refreshed_to.extend(snapshot.cloned());
        outcome
    }
}

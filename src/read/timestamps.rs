//! Reads of a column family with user-defined timestamps
//! ([`Options::u64_timestamps`](crate::Options::u64_timestamps)): read options that name the
//! timestamp to read as of and the start of a history, the check that a read's timestamps
//! fit its family (before RocksDB sees it), the pinned read that hands over the value's
//! timestamp, and a cursor's timestamp and versions.

use crate::db::handles::DbKind;
use crate::raw::error::Result;
use crate::read::cursor::Cursor;
use crate::read::read_options::ReadOptions;
use crate::read::reader::Reader;
use crate::read::refusal::Refusal;
use crate::read::source::{DbSource, ReadSource};

/// The size of the timestamps pinrocks reads and writes: RocksDB's u64 ones.
pub(crate) const TIMESTAMP_SIZE: usize = 8;

/// What RocksDB appends to a user key (with its timestamp) in an internal key: the
/// sequence number and the kind, packed in eight bytes.
const SEQUENCE_AND_KIND: usize = 8;

impl ReadOptions {
    /// Reads as of `ts` in a column family with timestamps: each key's newest version
    /// written at or before `ts` (and, with a snapshot, before it too). Every read tier and
    /// iterator of such a family needs one ([`Error::TimestampMismatch`](crate::Error::TimestampMismatch) otherwise), and one
    /// of a family without timestamps refuses it. A `ts` below the family's
    /// [`full_history_ts_low`](crate::ColumnFamily::full_history_ts_low) is refused by
    /// RocksDB (`InvalidArgument`): that history is gone.
    pub fn timestamp(&mut self, ts: u64) -> &mut Self {
        let ts = Box::new(ts.to_le_bytes());
        // SAFETY: RocksDB keeps a pointer into `ts`; the box lives in `self` until it is
        // replaced here or `self` drops, and its heap storage does not move.
        unsafe { self.raw.set_timestamp(&ts) };
        self.timestamp = Some(ts);
        self
    }

    /// Makes iterators read a history: every version of each key with a timestamp from
    /// `ts` up to the read's [`timestamp`](Self::timestamp), newest first, deletions
    /// included ([`Cursor::version`] tells them apart). Point reads ignore it. A merge is
    /// read merged with the versions before it (RocksDB's choice which of those it lists
    /// again); a range delete hides the versions it covers without being listed itself.
    /// Forward only: a backward move (`prev`, `seek_to_last`, `seek_for_prev`, a reverse
    /// scan) ends the cursor with an error, since RocksDB would list versions before
    /// `ts` and merge operands unmerged.
    #[doc(alias = "iter_start_ts")]
    pub fn iter_start_timestamp(&mut self, ts: u64) -> &mut Self {
        let ts = Box::new(ts.to_le_bytes());
        // SAFETY: as in `timestamp`.
        unsafe { self.raw.set_iter_start_ts(&ts) };
        self.iter_start_ts = Some(ts);
        self
    }
}

impl<'a, S: ReadSource> Reader<'a, S> {
    /// No timestamp anywhere: the family has none, and the read names none.
    #[inline]
    pub(super) fn without_timestamps(&self) -> bool {
        let (upper, start) = self.timestamps();
        self.cf.timestamp_size == 0 && !upper && !start
    }

    /// `Err` unless the read names a timestamp exactly when its family has them, of their
    /// size, through the database; a history start only with a timestamp to end at.
    #[inline]
    pub(super) fn check_timestamp(&self) -> Result<(), Refusal> {
        if self.without_timestamps() {
            return Ok(());
        }
        let expected = self.cf.timestamp_size;
        let (upper, _) = self.timestamps();
        let given = if upper { TIMESTAMP_SIZE } else { 0 };
        let mismatch = |given| Refusal::Mismatch {
            family: self.cf.name.clone(),
            expected,
            given,
        };
        if expected != given {
            return Err(mismatch(given));
        }
        if expected == 0 {
            return Err(mismatch(TIMESTAMP_SIZE)); // a history start alone
        }
        if !S::TIMESTAMPED_READS {
            return Err(Refusal::Source);
        }
        if self.db.kind == DbKind::Ttl {
            // Its iterators report no timestamps (`TtlIterator` has no `timestamp()`).
            return Err(Refusal::Ttl);
        }
        Ok(())
    }

    /// Whether the read names a timestamp, and a history start.
    fn timestamps(&self) -> (bool, bool) {
        (
            self.options.timestamp.is_some(),
            self.options.iter_start_ts.is_some(),
        )
    }

    /// Whether a cursor of this read reads a history (its keys as RocksDB gives them then).
    pub(super) fn reads_history(&self) -> bool {
        self.timestamps() == (true, true) && self.cf.timestamp_size == TIMESTAMP_SIZE
    }
}

impl<'a> Reader<'a, DbSource> {
    /// **Pinned tier, with the timestamp.** As [`get_pinned`](Self::get_pinned), and `f`
    /// also gets the timestamp the value was written at (the newest at or before the read's
    /// [`ReadOptions::timestamp`]), in the same one native call. Two cases are RocksDB's
    /// own: a value read merged reports the timestamp of the version that ended the merge
    /// where RocksDB found it (the newest operand's, or its base's); a version that
    /// compaction collapsed below
    /// [`full_history_ts_low`](crate::ColumnFamily::increase_full_history_ts_low) reports 0.
    ///
    /// ```
    /// # fn main() -> pinrocks::Result<()> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let mut opts = pinrocks::Options::new();
    /// # opts.create_if_missing(true);
    /// # let db = pinrocks::Db::open(&opts, dir.path())?;
    /// # let mut versioned = pinrocks::Options::new();
    /// # versioned.u64_timestamps();
    /// let prices = db.create_cf("prices", &versioned)?;
    /// prices.writer().at(10).put(b"tea", b"3")?;
    /// let mut now = pinrocks::ReadOptions::new();
    /// now.timestamp(u64::MAX);
    /// let seen = prices.reader().options(&now).get_with_timestamp(b"tea", |v, ts| (v.to_vec(), ts))?;
    /// assert_eq!(seen, Some((b"3".to_vec(), 10)));
    /// # Ok(()) }
    /// ```
    ///
    /// The value cannot leave the closure, as with every pinned read:
    ///
    /// ```compile_fail,E0521
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let mut opts = pinrocks::Options::new();
    /// # opts.create_if_missing(true).u64_timestamps();
    /// # let db = pinrocks::Db::open(&opts, dir.path()).unwrap();
    /// let mut now = pinrocks::ReadOptions::new();
    /// now.timestamp(1);
    /// let mut kept: &[u8] = &[];
    /// db.reader().options(&now).get_with_timestamp(b"k", |v, _| kept = v).unwrap();
    /// ```
    pub fn get_with_timestamp<R>(
        &self,
        key: &[u8],
        f: impl FnOnce(&[u8], u64) -> R,
    ) -> Result<Option<R>> {
        self.check_read("get_with_timestamp")?;
        // SAFETY: the handles are live for 'a (borrowed).
        unsafe {
            self.handles()
                .get_pinned_with_timestamp(key, |value, ts| f(value, u64::from_le_bytes(ts)))
        }
    }
}

/// One version of a key, as a history read ([`ReadOptions::iter_start_timestamp`]) sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KeyVersion {
    /// The timestamp it was written at.
    pub timestamp: u64,
    /// What was written.
    pub kind: VersionKind,
}

/// What a version of a key is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum VersionKind {
    /// A value (the cursor's `value`).
    Value,
    /// A delete or single delete: the key had no value from this timestamp on. The
    /// cursor's value is empty.
    Deletion,
    /// A merge operand, merged with what came before it into the cursor's value.
    Merge,
    /// Another kind of record, by RocksDB's `ValueType` byte.
    Other(u8),
}

impl VersionKind {
    fn from_raw(kind: u8) -> Self {
        // db/dbformat.h's ValueType.
        match kind {
            0x1 | 0x11 | 0x18 => VersionKind::Value, // a value, in a blob file, with a time
            0x0 | 0x7 | 0x14 => VersionKind::Deletion,
            0x2 => VersionKind::Merge,
            other => VersionKind::Other(other),
        }
    }
}

impl<S> Cursor<'_, S> {
    /// In a history read, refuses a backward move for good (`status` then says why, and
    /// the cursor has no entry): true if refused.
    pub(super) fn refuse_backward(&mut self) -> bool {
        if self.history {
            // An earlier refusal (of the read itself) stays the reason.
            self.refused.get_or_insert(Refusal::Backward);
        }
        self.history
    }

    /// The timestamp of the current entry's version, in a family with timestamps; `None`
    /// when the cursor is not on an entry or the family has none. As with
    /// [`Reader::get_with_timestamp`], a version collapsed below `full_history_ts_low`
    /// reports 0.
    pub fn timestamp(&self) -> Option<u64> {
        self.entry()?;
        Some(u64::from_le_bytes(
            self.native_timestamp()?.try_into().ok()?,
        ))
    }

    /// RocksDB's timestamp of the current entry, valid until the cursor moves.
    fn native_timestamp(&self) -> Option<&[u8]> {
        // SAFETY: a valid iterator (the callers saw an entry) over the database (a family
        // with timestamps is read through nothing else: `Refusal::Source`).
        let ts = unsafe { self.raw.timestamp() };
        (ts.len() == TIMESTAMP_SIZE).then_some(ts)
    }

    /// In a history read, where the user key ends in `key` (RocksDB's key for the current
    /// entry), the kind byte when `key` carries it, and the entry's timestamp. RocksDB gives
    /// an internal key (the user key, its timestamp, the sequence number and kind), except
    /// for a merge result read forward, which it gives as the user key and its timestamp
    /// alone: read forward, the timestamp RocksDB reports points into `key`, just after the
    /// user key, which tells the two apart; read backward, it is a copy and the key an
    /// internal one.
    pub(super) fn history_parts(&self, key: &[u8]) -> Option<(usize, Option<u8>, u64)> {
        let native = self.native_timestamp()?;
        let timestamp = u64::from_le_bytes(native.try_into().ok()?);
        let ts = native.as_ptr() as usize;
        let start = key.as_ptr() as usize;
        let with_ts = if (start..=start + key.len() - TIMESTAMP_SIZE.min(key.len())).contains(&ts) {
            ts - start + TIMESTAMP_SIZE
        } else {
            key.len().checked_sub(SEQUENCE_AND_KIND)?
        };
        let user_key = with_ts.checked_sub(TIMESTAMP_SIZE)?;
        // The sequence number and kind are one little-endian u64, the kind its low byte.
        let kind = (key.len() == with_ts + SEQUENCE_AND_KIND).then(|| key[with_ts]);
        Some((user_key, kind, timestamp))
    }

    /// The current entry's version in a history read: its timestamp and what was written;
    /// `None` outside one or off an entry.
    ///
    /// ```
    /// use pinrocks::read::VersionKind;
    /// # fn main() -> pinrocks::Result<()> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let mut opts = pinrocks::Options::new();
    /// # opts.create_if_missing(true);
    /// # let db = pinrocks::Db::open(&opts, dir.path())?;
    /// # let mut versioned = pinrocks::Options::new();
    /// # versioned.u64_timestamps();
    /// let prices = db.create_cf("prices", &versioned)?;
    /// prices.writer().at(10).put(b"tea", b"3")?;
    /// prices.writer().at(20).delete(b"tea")?;
    /// let mut history = pinrocks::ReadOptions::new();
    /// history.timestamp(u64::MAX).iter_start_timestamp(0);
    /// let mut cursor = prices.reader().options(&history).iter();
    /// cursor.seek_to_first();
    /// let mut seen = Vec::new();
    /// while let Some(version) = cursor.version() {
    ///     seen.push((cursor.key().unwrap().to_vec(), version.timestamp, version.kind));
    ///     cursor.next();
    /// }
    /// cursor.status()?;
    /// assert_eq!(seen, [
    ///     (b"tea".to_vec(), 20, VersionKind::Deletion),
    ///     (b"tea".to_vec(), 10, VersionKind::Value),
    /// ]);
    /// # Ok(()) }
    /// ```
    pub fn version(&self) -> Option<KeyVersion> {
        if !self.history {
            return None;
        }
        self.entry()?; // in the range, not refused
        let (key, _) = self.native_entry()?;
        let (_, kind, timestamp) = self.history_parts(key)?;
        Some(KeyVersion {
            timestamp,
            kind: kind.map_or(VersionKind::Merge, VersionKind::from_raw),
        })
    }
}

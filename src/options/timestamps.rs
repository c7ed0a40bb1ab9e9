//! Column families with user-defined timestamps: RocksDB's built-in u64 timestamp
//! comparator as a family's key order.

use crate::options::db_options::Options;

impl Options {
    /// Orders keys bytewise, each with a `u64` timestamp after it (RocksDB's built-in
    /// `BytewiseComparatorWithU64Ts`, named `leveldb.BytewiseComparator.u64ts`): the column
    /// family keeps versions of a key by timestamp. Every write to it names its timestamp
    /// ([`Writer::at`](crate::Writer::at)), every read one to read as of
    /// ([`ReadOptions::timestamp`](crate::ReadOptions::timestamp)); a read or write without
    /// one is [`Error::TimestampMismatch`](crate::Error::TimestampMismatch). Part of the data,
    /// like any comparator: a database created with it opens only with it. Replaces a
    /// [`comparator`](Self::comparator) set before. Merge operators and compaction filters
    /// of the family see each key with its eight timestamp bytes after it.
    ///
    /// ```
    /// # fn main() -> pinrocks::Result<()> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let mut opts = pinrocks::Options::new();
    /// # opts.create_if_missing(true);
    /// # let db = pinrocks::Db::open(&opts, dir.path())?;
    /// let mut versioned = pinrocks::Options::new();
    /// versioned.u64_timestamps();
    /// let prices = db.create_cf("prices", &versioned)?;
    /// prices.writer().at(10).put(b"tea", b"3")?;
    /// prices.writer().at(20).put(b"tea", b"4")?;
    ///
    /// let mut at_15 = pinrocks::ReadOptions::new();
    /// at_15.timestamp(15);
    /// assert_eq!(prices.reader().options(&at_15).get(b"tea")?.as_deref(), Some(&b"3"[..]));
    /// assert!(matches!(
    ///     prices.reader().get(b"tea"), // no timestamp
    ///     Err(pinrocks::Error::TimestampMismatch { expected: 8, given: 0, .. })
    /// ));
    /// # Ok(()) }
    /// ```
    ///
    /// Scope: column family (`comparator`).
    #[doc(alias = "BytewiseComparatorWithU64Ts")]
    pub fn u64_timestamps(&mut self) -> &mut Self {
        self.raw.set_u64_timestamps(); // a static comparator of RocksDB's
        self.comparator = None; // bytewise on the keys, which is how pinrocks compares them
        self
    }
}

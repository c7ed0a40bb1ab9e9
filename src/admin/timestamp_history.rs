//! How much history a column family with timestamps keeps: `full_history_ts_low`, below
//! which compaction may collapse a key's versions into the newest (and reads are refused).

use crate::db::column_family::ColumnFamily;
use crate::raw::db_state;
use crate::raw::error::Result;
use crate::raw::reentry;
use crate::read::timestamps::TIMESTAMP_SIZE;

impl ColumnFamily<'_> {
    /// Lets RocksDB forget the versions older than `ts`: from now on, compaction may drop
    /// every version of a key written before `ts` but the newest of them (and zero its
    /// timestamp), and a read as of a timestamp below `ts` is refused (`InvalidArgument`),
    /// since it could see a collapsed history: RocksDB checks reads against the bound its
    /// current view of the family holds, which takes it at the next flush or compaction.
    /// Reads at or after `ts` see what they saw before, with one exception of RocksDB's: a
    /// merge written at or after `ts` absorbs the newest version below it when flushed,
    /// and reads between the two then see none. A history read
    /// ([`ReadOptions::iter_start_timestamp`](crate::ReadOptions::iter_start_timestamp))
    /// starting below `ts` is not refused: it sees what compaction left. Recorded in the
    /// MANIFEST (kept across reopens). It only increases: a lower `ts` than the current one
    /// is `InvalidArgument`.
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
    /// prices.increase_full_history_ts_low(15)?;
    /// assert_eq!(prices.full_history_ts_low()?, Some(15));
    /// prices.flush()?;
    /// let mut at_12 = pinrocks::ReadOptions::new();
    /// at_12.timestamp(12);
    /// assert!(prices.reader().options(&at_12).get(b"tea").is_err()); // history trimmed
    /// # Ok(()) }
    /// ```
    #[doc(alias = "IncreaseFullHistoryTsLow")]
    pub fn increase_full_history_ts_low(&self, ts: u64) -> Result<()> {
        reentry::refuse_inside("increase_full_history_ts_low")?;
        let cf = self.handle();
        self.check_timestamps()?;
        let ts = ts.to_le_bytes();
        self.db
            .with_live_family("increase_full_history_ts_low", cf, || {
                // SAFETY: a live database and a handle of it (the family cannot be dropped
                // meanwhile), for the call.
                unsafe { db_state::increase_full_history_ts_low(self.db.raw(), cf.raw(), &ts) }
            })?
    }

    /// The timestamp below which this family's history may be collapsed (see
    /// [`increase_full_history_ts_low`](Self::increase_full_history_ts_low)); `None` if it
    /// was never set.
    #[doc(alias = "GetFullHistoryTsLow")]
    pub fn full_history_ts_low(&self) -> Result<Option<u64>> {
        reentry::refuse_under_mutex("full_history_ts_low")?;
        self.check_timestamps()?;
        let mut ts = [0u8; TIMESTAMP_SIZE];
        // SAFETY: a live database and a handle of it, borrowed for the call.
        let len =
            unsafe { db_state::full_history_ts_low(self.db.raw(), self.handle().raw(), &mut ts) }?;
        Ok((len == TIMESTAMP_SIZE).then(|| u64::from_le_bytes(ts)))
    }

    /// `Err(TimestampMismatch)` unless the family has pinrocks' u64 timestamps.
    fn check_timestamps(&self) -> Result<()> {
        let cf = self.handle();
        if cf.timestamp_size == TIMESTAMP_SIZE {
            return Ok(());
        }
        Err(cf.timestamp_mismatch(TIMESTAMP_SIZE))
    }
}

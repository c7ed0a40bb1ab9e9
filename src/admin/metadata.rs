//! What the database holds and does: its live SST files, a column family's levels and
//! files and their table properties, approximate sizes of key ranges, and the calls that
//! wait for or flush its work.

use crate::db::column_family::ColumnFamily;
use crate::db::database::Db;
use crate::raw::db as db_calls;
use crate::raw::error::Result;
use crate::raw::metadata;
pub use crate::raw::metadata::{
    BlobFileMetadata, ColumnFamilyMetadata, LevelMetadata, LiveFile, SstFileMetadata,
};
use crate::raw::table_properties::{table_properties, RawTableFile};
use crate::read::read_options::ReadOptions;

/// One live SST file's table properties: RocksDB's counts, and what the family's
/// [`TablePropertiesCollector`](crate::callbacks::TablePropertiesCollector)s wrote into it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct TableProperties {
    /// The file's path.
    pub path: String,
    /// Entries (of every kind).
    pub entries: u64,
    /// Point deletions.
    pub deletions: u64,
    /// Merge operands.
    pub merge_operands: u64,
    /// Range deletions.
    pub range_deletions: u64,
    /// Bytes of data blocks.
    pub data_size: u64,
    /// Bytes of the keys, uncompressed.
    pub raw_key_size: u64,
    /// Bytes of the values, uncompressed.
    pub raw_value_size: u64,
    /// Data blocks.
    pub data_blocks: u64,
    /// The user-collected properties, by name, in name order.
    pub user: std::collections::BTreeMap<String, Vec<u8>>,
}

impl TableProperties {
    fn from_raw(raw: RawTableFile) -> TableProperties {
        let n = raw.numbers;
        TableProperties {
            path: raw.path,
            entries: n.entries,
            deletions: n.deletions,
            merge_operands: n.merge_operands,
            range_deletions: n.range_deletions,
            data_size: n.data_size,
            raw_key_size: n.raw_key_size,
            raw_value_size: n.raw_value_size,
            data_blocks: n.data_blocks,
            user: raw.user.into_iter().collect(),
        }
    }
}

impl Db {
    /// Every live SST file of every column family. An error only if RocksDB could not
    /// gather the list (`MemoryLimit`: it copies every file's keys).
    #[doc(alias = "GetLiveFilesMetaData")]
    pub fn live_files(&self) -> Result<Vec<LiveFile>> {
        crate::raw::reentry::refuse_under_mutex("live_files")?;
        // SAFETY: a live database, borrowed for the call.
        unsafe { metadata::live_files(self.as_raw().0) }
    }

    /// Waits until no flush or compaction is running or pending (flushing the memtables
    /// first if `flush`). A flush is refused on a read-only open ([`Error::ReadOnly`]):
    /// RocksDB would switch the memtable and wait for ever for a flush it never schedules.
    ///
    /// [`Error::ReadOnly`]: crate::Error::ReadOnly
    #[doc(alias = "WaitForCompact")]
    pub fn wait_for_compact(&self, flush: bool) -> Result<()> {
        // From a compaction filter it would wait for its own compaction.
        crate::raw::reentry::refuse_inside("wait_for_compact")?;
        if flush {
            self.check_writable("wait_for_compact")?;
        }
        // SAFETY: a live database, for the call.
        unsafe { db_calls::wait_for_compact(self.as_raw().0, flush) }
    }

    /// Writes the WAL's buffered writes to its file, and with `sync` also fsyncs it: what
    /// `WriteOptions::sync` does per write, done once for many.
    #[doc(alias = "FlushWAL")]
    pub fn flush_wal(&self, sync: bool) -> Result<()> {
        crate::raw::reentry::refuse_inside("flush_wal")?;
        // SAFETY: a live database, for the call.
        unsafe { db_calls::flush_wal(self.as_raw().0, sync) }
    }
}

impl<'db> ColumnFamily<'db> {
    /// The table properties of every live SST file of this family, in path order
    /// (RocksDB's `GetPropertiesOfAllTables`): its counts, and what the family's
    /// [`TablePropertiesCollector`](crate::callbacks::TablePropertiesCollector)s wrote.
    #[doc(alias = "GetPropertiesOfAllTables")]
    pub fn table_properties(&self) -> Result<Vec<TableProperties>> {
        crate::raw::reentry::refuse_under_mutex("table_properties")?;
        // SAFETY: a live database and a handle of it, borrowed for the call.
        let files = unsafe { table_properties(self.db.raw(), self.handle().raw()) }?;
        let mut files: Vec<_> = files.into_iter().map(TableProperties::from_raw).collect();
        files.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(files)
    }

    /// The column family's levels and SST files. An error only if RocksDB could not
    /// gather them (`MemoryLimit`).
    #[doc(alias = "GetColumnFamilyMetaData")]
    pub fn metadata(&self) -> Result<ColumnFamilyMetadata> {
        crate::raw::reentry::refuse_under_mutex("metadata")?;
        // SAFETY: a live database and a handle of it, borrowed for the call.
        unsafe { metadata::column_family_metadata(self.db.raw(), self.handle().raw()) }
    }

    /// The column family's live blob files (see
    /// [`Options::enable_blob_files`](crate::Options::enable_blob_files)), oldest first. An
    /// error only if RocksDB could not gather them (`MemoryLimit`).
    #[doc(alias = "GetColumnFamilyMetaData")]
    pub fn blob_files(&self) -> Result<Vec<BlobFileMetadata>> {
        crate::raw::reentry::refuse_under_mutex("blob_files")?;
        // SAFETY: a live database and a handle of it, borrowed for the call.
        unsafe { metadata::blob_files(self.db.raw(), self.handle().raw()) }
    }

    /// Approximate bytes that each `[start, end)` range takes in this column family: in
    /// its SST files, and in its memtables too if `include_memtables`.
    #[doc(alias = "GetApproximateSizes")]
    pub fn approximate_sizes<K: AsRef<[u8]>>(
        &self,
        ranges: &[(K, K)],
        include_memtables: bool,
    ) -> Result<Vec<u64>> {
        crate::raw::reentry::refuse_under_mutex("approximate_sizes")?;
        // Each key's `as_ref` once: pointers and lengths must agree.
        let bounds: Vec<(&[u8], &[u8])> = ranges
            .iter()
            .map(|(a, b)| (a.as_ref(), b.as_ref()))
            .collect();
        // include_flags: 1 = memtables, 2 = files (DB::SizeApproximationFlags).
        let flags = 2 | u8::from(include_memtables);
        // SAFETY: a live database and a handle of it, borrowed for the call.
        unsafe { metadata::approximate_sizes(self.db.raw(), self.handle().raw(), &bounds, flags) }
    }

    /// Whether `key` may exist, answered from memory (memtables, filters, cached blocks)
    /// without reading a file: `false` is certain, `true` is not.
    /// Inside a merge operator or comparator (where a read would re-enter RocksDB), and in
    /// a family with timestamps (which has no "now" to probe), it says `true`, the answer
    /// that is never wrong.
    #[doc(alias = "KeyMayExist")]
    pub fn key_may_exist(&self, key: &[u8]) -> bool {
        self.may_exist(key, false) != MayExist::No
    }

    /// As [`key_may_exist`](Self::key_may_exist), with the value when RocksDB found it in
    /// memory (a memtable, the row cache or a cached block): a read that never waits for a
    /// file. The value is copied (RocksDB hands it over in a string of its own).
    ///
    /// ```
    /// use pinrocks::admin::MayExist;
    /// # fn main() -> pinrocks::Result<()> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let mut options = pinrocks::Options::new();
    /// # options.create_if_missing(true);
    /// let db = pinrocks::Db::open(&options, dir.path())?;
    /// db.put(b"k", b"in the memtable")?;
    /// let cf = db.default_cf();
    /// assert_eq!(cf.key_may_exist_value(b"k"), MayExist::Found(b"in the memtable".to_vec()));
    /// assert_eq!(cf.key_may_exist_value(b"other"), MayExist::No);
    /// # Ok(()) }
    /// ```
    #[doc(alias = "KeyMayExist")]
    pub fn key_may_exist_value(&self, key: &[u8]) -> MayExist {
        self.may_exist(key, true)
    }

    fn may_exist(&self, key: &[u8], want_value: bool) -> MayExist {
        // A family with timestamps needs one to read as of: RocksDB would fail the probe
        // and answer "no" for a key that exists.
        if crate::raw::reentry::refuse_read_inside("key_may_exist").is_err()
            || self.handle().timestamp_size != 0
        {
            return MayExist::Maybe;
        }
        // SAFETY: a live database, its default read options and a handle of it, borrowed
        // for the call.
        let (may_exist, value) = unsafe {
            metadata::key_may_exist(
                self.db.raw(),
                ReadOptions::defaults().raw(),
                self.handle().raw(),
                key,
                want_value,
            )
        };
        match (may_exist, value) {
            (false, _) => MayExist::No,
            (true, Some(value)) => MayExist::Found(value),
            (true, None) => MayExist::Maybe,
        }
    }

    /// Deletes the SST files whose keys all lie in `[from, to]`, at once, without writing
    /// tombstones: fast, and not a consistent delete (keys in other files or memtables
    /// stay). Refused like a write on a read-only open or a dropped family.
    #[doc(alias = "DeleteFilesInRange")]
    pub fn delete_files_in_range(&self, from: &[u8], to: &[u8]) -> Result<()> {
        self.db
            .with_live_family("delete_files_in_range", self.handle(), || {
                // SAFETY: a live database and a handle of it, borrowed for the call.
                unsafe {
                    db_calls::delete_files_in_range(self.db.raw(), self.handle().raw(), from, to)
                }
            })?
    }
}

/// What [`ColumnFamily::key_may_exist_value`] learned from memory alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MayExist {
    /// Certainly absent.
    No,
    /// Perhaps present: only reading a file would tell.
    Maybe,
    /// Present, with this value, found in a memtable or a cache.
    Found(Vec<u8>),
}

//! Bulk loads: SST files written in key order outside the database, then ingested whole,
//! without the write path (no WAL, no memtable, no compaction of the new data).

use std::ffi::{c_char, CString};
use std::path::{Path, PathBuf};

use crate::callbacks::comparator::{compare, Comparator};
use crate::codec::Codec;
use crate::db::column_family::ColumnFamily;
use crate::db::database::Db;
use crate::db::handles::DbKind;
use crate::options::db_options::Options;
use crate::options::env_owner::EnvOwner;
use crate::raw::cstr::path_to_cstring;
use crate::raw::error::{Error, Result};
use crate::raw::setter::setter;
use crate::raw::sst::{
    ingest, verify_sst_file as verify_sst_file_with, IngestOptionsHandle, SstWriterHandle, DELETE,
    DELETE_RANGE, PUT,
};
use crate::typed::encoding::encode;
use crate::write::writer::check_range;

/// Writes one SST file of keys in strictly ascending (bytewise) order, for
/// [`ColumnFamily::ingest`]. Use the options of the column family it will be ingested into
/// (they decide its compression, block size, filters).
///
/// A key that does not sort after the previous one is refused with
/// [`Error::KeyOrder`], checked here before RocksDB sees it; the file is left as it was.
///
/// ```
/// use pinrocks::{Db, Options};
/// use pinrocks::admin::{IngestOptions, SstFileWriter};
/// # fn main() -> pinrocks::Result<()> {
/// # let dir = tempfile::tempdir().unwrap();
/// let mut options = Options::new();
/// options.create_if_missing(true);
/// let db = Db::open(&options, dir.path().join("db"))?;
/// let file = dir.path().join("load.sst");
/// let mut sst = SstFileWriter::create(&options, &file)?;
/// for i in 0u32..1000 {
///     sst.put(&i.to_be_bytes(), b"loaded")?;
/// }
/// assert!(sst.put(&5u32.to_be_bytes(), b"late").is_err()); // out of order
/// sst.finish()?;
/// db.ingest(&[&file], &IngestOptions::new())?;
/// assert_eq!(db.get(&999u32.to_be_bytes())?.as_deref(), Some(&b"loaded"[..]));
/// # Ok(()) }
/// ```
#[doc(alias = "IngestExternalFile")]
pub struct SstFileWriter {
    raw: SstWriterHandle,
    /// The last key added, to refuse keys out of order with a typed error.
    last_key: Option<Vec<u8>>,
    /// The last key's timestamp, for options with timestamps (a key's versions descend).
    last_ts: Option<u64>,
    /// The options' timestamp size: 8 with [`Options::u64_timestamps`], else 0.
    timestamp_size: usize,
    /// The options' comparator: the writer's copy of the options points to it (so it lives
    /// until `Drop` has destroyed the writer), and the order check uses it.
    order: Option<Comparator>,
    entries: u64,
    path: PathBuf,
    /// The owner of the options' `Env`, if not the default: the writer's copy of the
    /// options points at it (`Finish` asks it for the host name). After `raw`.
    _env: Option<EnvOwner>,
}

// SAFETY: an `SstFileWriter` (table/sst_file_writer.cc) is a file being written, with no
// thread affinity; every method that changes it takes `&mut self`, so it is not `Sync`.
unsafe impl Send for SstFileWriter {}

impl SstFileWriter {
    /// Creates the file at `path` (replacing one that is there) for keys written with
    /// `options`' settings.
    pub fn create(options: &Options, path: impl AsRef<Path>) -> Result<SstFileWriter> {
        options.check()?;
        let path = path.as_ref();
        let c_path = path_to_cstring(path)?;
        // SAFETY: the writer's copy of the options points at their comparator and `Env`,
        // which `order` and `_env` keep alive until the writer is destroyed (`raw` is
        // declared first, so it drops first).
        let raw = unsafe { SstWriterHandle::create(&options.raw, &c_path) }?;
        let writer = SstFileWriter {
            raw,
            last_key: None,
            last_ts: None,
            timestamp_size: options.raw.timestamp_size(),
            order: options.order().cloned(),
            _env: options.env_owner.clone(),
            entries: 0,
            path: path.to_path_buf(),
        };
        Ok(writer)
    }

    /// Refuses an entry whose timestamp (`given` bytes: 0 or 8) the options do not take.
    fn check_timestamp(&self, given: usize) -> Result<()> {
        if given == self.timestamp_size {
            return Ok(());
        }
        Err(Error::TimestampMismatch {
            family: format!("(SST file {})", self.path.display()),
            expected: self.timestamp_size,
            given,
        })
    }

    fn check_order(&self, key: &[u8]) -> Result<()> {
        self.check_timestamp(0)?;
        match &self.last_key {
            Some(previous) if compare(self.order.as_ref(), key, previous).is_le() => {
                Err(Error::KeyOrder {
                    previous: previous.clone(),
                    key: key.to_vec(),
                })
            }
            _ => Ok(()),
        }
    }

    /// `key` at `ts` after the last entry: a greater key, or the same key at an older
    /// timestamp (RocksDB orders a key's versions newest first).
    fn check_order_at(&self, key: &[u8], ts: u64) -> Result<()> {
        self.check_timestamp(8)?;
        let Some(previous) = &self.last_key else {
            return Ok(());
        };
        let order = compare(self.order.as_ref(), key, previous);
        if order.is_lt() || (order.is_eq() && self.last_ts.is_some_and(|last| ts >= last)) {
            return Err(Error::KeyOrder {
                previous: previous.clone(),
                key: key.to_vec(),
            });
        }
        Ok(())
    }

    fn added(&mut self, key: &[u8]) {
        let last = self.last_key.get_or_insert_with(Vec::new);
        last.clear();
        last.extend_from_slice(key);
        self.entries += 1;
    }

    /// Adds `key` with `value`. `key` must sort after every key added before.
    pub fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        self.check_order(key)?;
        self.write(PUT, key, value)?;
        self.added(key);
        Ok(())
    }

    /// Adds a deletion of `key`: ingested, it hides older values of `key` in the database.
    pub fn delete(&mut self, key: &[u8]) -> Result<()> {
        self.check_order(key)?;
        self.write(DELETE, key, &[])?;
        self.added(key);
        Ok(())
    }

    /// Adds a range tombstone over `[from, to)`: ingested, it hides every older value in the
    /// range. Ranges need not follow the keys' order (RocksDB keeps them in a block of
    /// their own); an empty range (`from == to`) is nothing, an inverted one an
    /// [`Error::InvertedRange`] in the options' order.
    #[doc(alias = "DeleteRange")]
    pub fn delete_range(&mut self, from: &[u8], to: &[u8]) -> Result<()> {
        self.check_timestamp(0)?;
        check_range(self.order.as_ref(), from, to)?;
        self.write(DELETE_RANGE, from, to)?;
        self.entries += 1;
        Ok(())
    }

    /// One entry through `pinrocks_sstfilewriter_write` (the C API's
    /// `rocksdb_sstfilewriter_put` / `_delete` inside a try/catch): `op` is a
    /// `PINROCKS_RECORD_*` value, `value` unused for a delete.
    fn write(&mut self, op: u32, key: &[u8], value: &[u8]) -> Result<()> {
        self.raw.write(op, key, value)
    }

    /// Adds `key` at timestamp `ts` with `value`, for options with
    /// [`Options::u64_timestamps`] (the file is then ingested into such a family): keys
    /// ascend, and one key's versions go newest first. Without timestamps in the options,
    /// [`Error::TimestampMismatch`] (and [`put`](Self::put) with them).
    ///
    /// ```
    /// # fn main() -> pinrocks::Result<()> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let mut opts = pinrocks::Options::new();
    /// # opts.create_if_missing(true);
    /// # let db = pinrocks::Db::open(&opts, dir.path())?;
    /// use pinrocks::admin::{IngestOptions, SstFileWriter};
    /// let mut versioned = pinrocks::Options::new();
    /// versioned.u64_timestamps();
    /// let prices = db.create_cf("prices", &versioned)?;
    /// let file = dir.path().join("prices.sst");
    /// let mut sst = SstFileWriter::create(&versioned, &file)?;
    /// sst.put_at(b"tea", 20, b"4")?;
    /// sst.put_at(b"tea", 10, b"3")?; // the same key, older
    /// assert!(sst.put_at(b"tea", 15, b"x").is_err()); // not older than the last
    /// sst.finish()?;
    /// prices.ingest(&[&file], &IngestOptions::new())?;
    /// let mut at = pinrocks::ReadOptions::new();
    /// at.timestamp(15);
    /// assert_eq!(prices.reader().options(&at).get(b"tea")?.as_deref(), Some(&b"3"[..]));
    /// # Ok(()) }
    /// ```
    #[doc(alias = "put_with_ts")]
    pub fn put_at(&mut self, key: &[u8], ts: u64, value: &[u8]) -> Result<()> {
        self.check_order_at(key, ts)?;
        self.raw.write_at(PUT, key, ts, value)?;
        self.added(key);
        self.last_ts = Some(ts);
        Ok(())
    }

    /// Adds a deletion of `key` at timestamp `ts`; ordered as [`put_at`](Self::put_at).
    #[doc(alias = "delete_with_ts")]
    pub fn delete_at(&mut self, key: &[u8], ts: u64) -> Result<()> {
        self.check_order_at(key, ts)?;
        self.raw.write_at(DELETE, key, ts, &[])?;
        self.added(key);
        self.last_ts = Some(ts);
        Ok(())
    }

    /// Adds a range tombstone over `[from, to)` at timestamp `ts`, as RocksDB writes one.
    /// Ingested, it hides nothing yet: RocksDB takes a file into a family with timestamps
    /// only where the file overlaps no key there, and a file's entries share one sequence
    /// number, so it does not hide its own file's versions either.
    pub fn delete_range_at(&mut self, from: &[u8], to: &[u8], ts: u64) -> Result<()> {
        self.check_timestamp(8)?;
        check_range(self.order.as_ref(), from, to)?;
        self.raw.write_at(DELETE_RANGE, from, ts, to)?;
        self.entries += 1;
        Ok(())
    }

    /// Adds `key` with `value`, both encoded by their codecs (see
    /// [`Table`](crate::Table)); the encoded keys must ascend.
    pub fn put_typed<K: Codec, V: Codec>(
        &mut self,
        key: &K::Item<'_>,
        value: &V::Item<'_>,
    ) -> Result<()> {
        encode::<K, _>(key, |k| encode::<V, _>(value, |v| self.put(k, v)))??
    }

    /// How many entries were added (keys and ranges).
    pub fn entries(&self) -> u64 {
        self.entries
    }

    /// Writes the file's index, filter and footer and closes it; returns its path. A file
    /// with no entry cannot be finished (RocksDB refuses an empty SST file).
    pub fn finish(mut self) -> Result<PathBuf> {
        self.raw.finish()?;
        Ok(self.path.clone())
    }
}

/// How [`ColumnFamily::ingest`] takes SST files in (`IngestExternalFileOptions`).
pub struct IngestOptions {
    raw: IngestOptionsHandle,
}

// SAFETY: a plain C++ value that `DB::IngestExternalFile` takes by const reference.
unsafe impl Send for IngestOptions {}
// SAFETY: see `Send`.
unsafe impl Sync for IngestOptions {}

impl IngestOptions {
    /// RocksDB's defaults: copy the files, keep snapshots consistent, allow a global
    /// sequence number for files that overlap the database, flush a memtable that overlaps.
    pub fn new() -> Self {
        IngestOptions {
            raw: IngestOptionsHandle::new(),
        }
    }

    setter!(
        /// Move (hard-link) the files into the database instead of copying them.
        move_files(bool) => rocksdb_ingestexternalfileoptions_set_move_files as u8
    );
    setter!(
        /// Keep reads at snapshots taken before the ingest from seeing its keys.
        snapshot_consistency(bool) => rocksdb_ingestexternalfileoptions_set_snapshot_consistency as u8
    );
    setter!(
        /// Allow files whose keys overlap the database (they get a newer sequence number).
        /// Without it, such an ingest fails and changes nothing.
        allow_global_seqno(bool) => rocksdb_ingestexternalfileoptions_set_allow_global_seqno as u8
    );
    setter!(
        /// Allow a flush of an overlapping memtable before the ingest.
        allow_blocking_flush(bool) => rocksdb_ingestexternalfileoptions_set_allow_blocking_flush as u8
    );
    setter!(
        /// Ingest below every existing key (the column family must be created with
        /// [`Options::allow_ingest_behind`]): existing values win.
        ingest_behind(bool) => rocksdb_ingestexternalfileoptions_set_ingest_behind as u8
    );
    setter!(
        /// `verify_checksums_before_ingest`: read each file whole and check every block's
        /// checksum before it goes in (a slower ingest); a bad block fails the ingest with
        /// [`Corruption`](crate::ErrorKind::Corruption) and changes nothing.
        verify_checksums_before_ingest(bool) =>
            rocksdb_ingestexternalfileoptions_set_verify_checksums_before_ingest as u8
    );
    setter!(
        /// `fail_if_not_bottommost_level`: fail the ingest
        /// ([`TryAgain`](crate::ErrorKind::TryAgain)) rather than place a file above the last
        /// level, where it would overlap data already there.
        fail_if_not_bottommost_level(bool) =>
            rocksdb_ingestexternalfileoptions_set_fail_if_not_bottommost_level as u8
    );
    setter!(
        /// `fill_cache`: put the blocks the ingest reads (index, filter, the checks of
        /// `verify_checksums_before_ingest`) into the block cache (the default); off for a
        /// bulk load not read soon.
        fill_cache(bool) => rocksdb_ingestexternalfileoptions_set_fill_cache as u8
    );
}

/// Reads the SST file at `path` whole, read with `options` (its comparator and table format),
/// and checks every block's checksum (RocksDB's `SstFileReader::VerifyChecksum`):
/// `Corruption` if one fails. One file, where [`Db::verify_checksum`] checks every live one:
/// a file about to be ingested, or one a database lists in [`Db::live_files`]. Block-based
/// tables only: RocksDB has no such check for plain tables (`NotSupported`).
#[doc(alias = "SstFileReader")]
pub fn verify_sst_file(options: &Options, path: impl AsRef<Path>) -> Result<()> {
    options.check()?;
    let c_path = path_to_cstring(path.as_ref())?;
    verify_sst_file_with(&options.raw, &c_path)
}

impl Default for IngestOptions {
    fn default() -> Self {
        Self::new()
    }
}

impl<'db> ColumnFamily<'db> {
    /// Ingests finished SST files into this column family: all of them or none. Refused on
    /// a read-only database and on a dropped column family, like a write; on a database
    /// with a row cache, a file holding a range tombstone is refused
    /// ([`Error::RowCacheRefusesRanges`]: the row cache would return what it deletes).
    #[doc(alias = "IngestExternalFile")]
    pub fn ingest<P: AsRef<Path>>(&self, files: &[P], options: &IngestOptions) -> Result<()> {
        let paths: Vec<CString> = files
            .iter()
            .map(|p| path_to_cstring(p.as_ref()))
            .collect::<Result<_>>()?;
        let pointers: Vec<*const c_char> = paths.iter().map(|p| p.as_ptr()).collect();
        if self.db.kind == DbKind::Ttl {
            return Err(Error::invalid(
                "ingest",
                "a TTL database stores a write time after every value; an SST file has none",
            ));
        }
        let names: Vec<&std::ffi::CStr> = paths.iter().map(CString::as_c_str).collect();
        self.db.check_files_range_free(self.handle(), &names)?;
        self.db.with_live_family("ingest", self.handle(), || {
            // SAFETY: live database and handle, for the call.
            unsafe { ingest(self.db.raw(), self.handle().raw(), &pointers, &options.raw) }
        })?
    }
}

impl Db {
    /// Ingests finished SST files into the default column family. See
    /// [`ColumnFamily::ingest`].
    #[doc(alias = "IngestExternalFile")]
    pub fn ingest<P: AsRef<Path>>(&self, files: &[P], options: &IngestOptions) -> Result<()> {
        self.default_cf().ingest(files, options)
    }
}

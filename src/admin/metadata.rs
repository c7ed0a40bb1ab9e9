//! What the database holds and does: its live SST files, a column family's levels and
//! files, approximate sizes of key ranges, and the calls that wait for or flush its work.

use std::ffi::{c_char, c_void};

use crate::db::column_family::ColumnFamily;
use crate::db::database::Db;
use crate::raw::error::{with_code, ErrPtr, Error, Result};
use crate::raw::ffi;
use crate::raw::metadata;
pub use crate::raw::metadata::{ColumnFamilyMetadata, LevelMetadata, LiveFile, SstFileMetadata};
use crate::raw::pinned::value_slice;
use crate::raw::trampoline::Carried;
use crate::read::read_options::ReadOptions;

/// One blob file of a column family, from [`ColumnFamily::blob_files`] (RocksDB's
/// `BlobMetaData`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlobFileMetadata {
    /// Its file number (the name's digits).
    pub number: u64,
    /// Its name relative to [`path`](Self::path), such as `/000012.blob`.
    pub name: String,
    /// The directory holding it.
    pub path: String,
    /// Its size in bytes.
    pub size: u64,
    /// Blobs written to it.
    pub blob_count: u64,
    /// Bytes of those blobs.
    pub blob_bytes: u64,
    /// Blobs in it that are no longer live (overwritten, deleted, or moved by garbage
    /// collection). The file is deleted once all of its blobs are garbage.
    pub garbage_count: u64,
    /// Bytes of those blobs.
    pub garbage_bytes: u64,
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
        // SAFETY: live database; the options are created and destroyed around the call;
        // guarded.
        with_code(|code, err| unsafe {
            let options = ffi::rocksdb_wait_for_compact_options_create();
            ffi::rocksdb_wait_for_compact_options_set_flush(options, u8::from(flush));
            ffi::pinrocks_guarded_wait_for_compact(code, self.as_raw().0, options, err);
            ffi::rocksdb_wait_for_compact_options_destroy(options);
        })
    }

    /// Writes the WAL's buffered writes to its file, and with `sync` also fsyncs it: what
    /// `WriteOptions::sync` does per write, done once for many.
    #[doc(alias = "FlushWAL")]
    pub fn flush_wal(&self, sync: bool) -> Result<()> {
        crate::raw::reentry::refuse_inside("flush_wal")?;
        // SAFETY: live database; guarded.
        with_code(|code, err| unsafe {
            ffi::pinrocks_guarded_flush_wal(code, self.as_raw().0, u8::from(sync), err)
        })
    }
}

impl<'db> ColumnFamily<'db> {
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
        let mut files: Vec<BlobFileMetadata> = Vec::new();
        // SAFETY: live database and handle; `collect_blob_file` is called during the call
        // only, with `files` as its context, and cannot panic. No C++ exception leaves it.
        with_code(|code, err| unsafe {
            ffi::pinrocks_blob_files(
                self.db.raw(),
                self.handle().raw(),
                Some(collect_blob_file),
                (&mut files as *mut Vec<BlobFileMetadata>).cast(),
                code,
                err,
            )
        })?;
        Ok(files)
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
        let starts: Vec<*const c_char> = bounds.iter().map(|(a, _)| a.as_ptr().cast()).collect();
        let start_lens: Vec<usize> = bounds.iter().map(|(a, _)| a.len()).collect();
        let ends: Vec<*const c_char> = bounds.iter().map(|(_, b)| b.as_ptr().cast()).collect();
        let end_lens: Vec<usize> = bounds.iter().map(|(_, b)| b.len()).collect();
        let count = i32::try_from(bounds.len())
            .map_err(|_| Error::invalid("ranges", "more than i32::MAX"))?;
        let mut sizes = vec![0u64; bounds.len()];
        // include_flags: 1 = memtables, 2 = files (DB::SizeApproximationFlags).
        let flags = 2 | u8::from(include_memtables);
        // SAFETY: live database and handle; the four arrays describe `bounds`, borrowed
        // for the call; `sizes` has one slot per range. No C++ exception leaves the call
        // (`pinrocks_approximate_sizes_cf_with_flags`: the C API's function in a try/catch).
        with_code(|code, err| unsafe {
            ffi::pinrocks_approximate_sizes_cf_with_flags(
                self.db.raw(),
                self.handle().raw(),
                count,
                starts.as_ptr(),
                start_lens.as_ptr(),
                ends.as_ptr(),
                end_lens.as_ptr(),
                flags,
                sizes.as_mut_ptr(),
                code,
                err,
            )
        })?;
        Ok(sizes)
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
        let mut value = Carried::new(None::<Vec<u8>>);
        let mut err = ErrPtr::new();
        let mut code: i32 = 0;
        let sink: Option<unsafe extern "C" fn(*mut c_void, *const c_char, usize)> =
            want_value.then_some(found_value);
        // SAFETY: live database, options and handle; `key` is borrowed for the call, and
        // `value` (the sink's context) outlives it. The sink runs at most once, inside the
        // call; an exception inside is caught in C++.
        let may_exist = unsafe {
            ffi::pinrocks_key_may_exist_cf(
                self.db.raw(),
                ReadOptions::defaults().raw(),
                self.handle().raw(),
                key.as_ptr().cast(),
                key.len(),
                sink,
                value.as_ctx(),
                &mut code,
                err.as_out(),
            )
        };
        // On a failure inside (std::bad_alloc) the answer is "may exist", which is never
        // wrong; the message, if any, is freed with `err`.
        match (may_exist != 0, value.finish()) {
            (false, _) => MayExist::No,
            (true, Some(value)) if code == 0 => MayExist::Found(value),
            (true, _) => MayExist::Maybe,
        }
    }

    /// Deletes the SST files whose keys all lie in `[from, to]`, at once, without writing
    /// tombstones: fast, and not a consistent delete (keys in other files or memtables
    /// stay). Refused like a write on a read-only open or a dropped family.
    #[doc(alias = "DeleteFilesInRange")]
    pub fn delete_files_in_range(&self, from: &[u8], to: &[u8]) -> Result<()> {
        let mut err = ErrPtr::new();
        let mut code = 0;
        self.db
            .with_live_family("delete_files_in_range", self.handle(), || {
                // SAFETY: live database and handle; the bounds are borrowed for the call
                // (never NULL: a slice's pointer is not, even when empty). No C++
                // exception leaves the call.
                unsafe {
                    ffi::pinrocks_delete_file_in_range_cf(
                        self.db.raw(),
                        self.handle().raw(),
                        from.as_ptr().cast(),
                        from.len(),
                        to.as_ptr().cast(),
                        to.len(),
                        &mut code,
                        err.as_out(),
                    )
                }
            })?;
        err.check_with_code(Some(code))
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

/// The sink of `pinrocks_key_may_exist_cf`: copies the value RocksDB found.
unsafe extern "C" fn found_value(ctx: *mut c_void, value: *const c_char, len: usize) {
    // SAFETY: `ctx` is the `Carried` of `may_exist`, live and used by nothing else during
    // the call; the value is RocksDB's string, valid for this call.
    let (carried, value) = unsafe {
        (
            Carried::<Option<Vec<u8>>>::from_ctx(ctx),
            value_slice(value, len),
        )
    };
    carried.run(|kept| *kept = Some(value.to_vec()));
}

/// Receives one blob file of `pinrocks_blob_files`.
unsafe extern "C" fn collect_blob_file(ctx: *mut c_void, file: *const ffi::pinrocks_blob_file) {
    // SAFETY: `ctx` is the `Vec` of `blob_files` above, alive and unaliased for the call;
    // `file` and its strings are valid for this call.
    unsafe {
        let files = &mut *ctx.cast::<Vec<BlobFileMetadata>>();
        let f = &*file;
        let text = |data: *const c_char, len: usize| {
            String::from_utf8_lossy(value_slice(data, len)).into_owned()
        };
        // Allocation failure aborts (it does not unwind); nothing else here can panic.
        files.push(BlobFileMetadata {
            number: f.number,
            name: text(f.name, f.name_len),
            path: text(f.path, f.path_len),
            size: f.size,
            blob_count: f.blob_count,
            blob_bytes: f.blob_bytes,
            garbage_count: f.garbage_count,
            garbage_bytes: f.garbage_bytes,
        });
    }
}

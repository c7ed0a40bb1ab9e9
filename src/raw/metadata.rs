//! What RocksDB reports of a database's files, copied into owned values: the live SST files
//! of every family and one family's levels and files (the C API's metadata handles, read and
//! destroyed here).

use std::ffi::{c_char, c_void, CStr};

use crate::raw::error::{with_code, ErrPtr, Error, Result};
use crate::raw::ffi;
use crate::raw::pinned::value_slice;
use crate::raw::trampoline::Carried;

/// One live SST file, as [`Db::live_files`](crate::Db::live_files) lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveFile {
    /// The column family it belongs to.
    pub column_family: String,
    /// Its name, relative to the database directory (for example `/000012.sst`).
    pub name: String,
    /// The LSM level it is in.
    pub level: i32,
    /// Its size in bytes.
    pub size: u64,
    /// Its smallest and largest user keys.
    pub smallest_key: Vec<u8>,
    /// See `smallest_key`.
    pub largest_key: Vec<u8>,
    /// Entries and deletions it holds.
    pub entries: u64,
    /// See `entries`.
    pub deletions: u64,
}

/// A column family's shape, from [`ColumnFamily::metadata`](crate::ColumnFamily::metadata).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnFamilyMetadata {
    /// Its name.
    pub name: String,
    /// Bytes in its SST files.
    pub size: u64,
    /// How many SST files it has.
    pub file_count: usize,
    /// Every level, from 0, empty ones included.
    pub levels: Vec<LevelMetadata>,
}

/// One level of a column family.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LevelMetadata {
    /// The level's number.
    pub level: i32,
    /// Bytes in its files.
    pub size: u64,
    /// Its files.
    pub files: Vec<SstFileMetadata>,
}

/// One SST file of a level.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SstFileMetadata {
    /// Its name relative to the database directory.
    pub name: String,
    /// Its size in bytes.
    pub size: u64,
    /// Its smallest and largest user keys.
    pub smallest_key: Vec<u8>,
    /// See `smallest_key`.
    pub largest_key: Vec<u8>,
}

/// Copies a malloc'd C string and frees it.
///
/// # Safety
/// `s` must be NULL or a NUL-terminated string from RocksDB's `strdup`/`CopyString`.
unsafe fn take_string(s: *mut c_char) -> String {
    if s.is_null() {
        return String::new();
    }
    // SAFETY: guaranteed by the caller; freed once, after the copy.
    unsafe {
        let text = CStr::from_ptr(s).to_string_lossy().into_owned();
        ffi::rocksdb_free(s.cast());
        text
    }
}

/// Copies `len` malloc'd bytes and frees them.
///
/// # Safety
/// `data` must be NULL or `len` bytes from RocksDB's `CopyString`.
unsafe fn take_bytes(data: *mut c_char, len: usize) -> Vec<u8> {
    // SAFETY: guaranteed by the caller; freed once, after the copy.
    unsafe {
        let bytes = value_slice(data, len).to_vec();
        if !data.is_null() {
            ffi::rocksdb_free(data.cast());
        }
        bytes
    }
}

/// Every live SST file of every column family of `db`.
///
/// # Safety
/// `db` must be a live database handle.
pub(crate) unsafe fn live_files(db: *mut ffi::rocksdb_t) -> Result<Vec<LiveFile>> {
    // SAFETY: live database; the list is a new object (NULL on a caught failure),
    // copied out and destroyed here, its strings borrowed from it until then, indexes
    // below its count.
    unsafe {
        let files = with_code(|code, err| ffi::pinrocks_livefiles(db, code, err))?;
        let text = |s: *const c_char| CStr::from_ptr(s).to_string_lossy().into_owned();
        let list = (0..ffi::rocksdb_livefiles_count(files))
            .map(|i| {
                let mut len = 0usize;
                let smallest = ffi::rocksdb_livefiles_smallestkey(files, i, &mut len);
                let smallest_key = value_slice(smallest, len).to_vec();
                let largest = ffi::rocksdb_livefiles_largestkey(files, i, &mut len);
                LiveFile {
                    column_family: text(ffi::rocksdb_livefiles_column_family_name(files, i)),
                    name: text(ffi::rocksdb_livefiles_name(files, i)),
                    level: ffi::rocksdb_livefiles_level(files, i),
                    size: ffi::rocksdb_livefiles_size(files, i) as u64,
                    smallest_key,
                    largest_key: value_slice(largest, len).to_vec(),
                    entries: ffi::rocksdb_livefiles_entries(files, i),
                    deletions: ffi::rocksdb_livefiles_deletions(files, i),
                }
            })
            .collect();
        ffi::rocksdb_livefiles_destroy(files);
        Ok(list)
    }
}

/// The levels and SST files of the family `cf` of `db`.
///
/// # Safety
/// `db` must be a live database handle and `cf` a live handle of one of its families.
pub(crate) unsafe fn column_family_metadata(
    db: *mut ffi::rocksdb_t,
    cf: *mut ffi::rocksdb_column_family_handle_t,
) -> Result<ColumnFamilyMetadata> {
    // SAFETY: live database and handle; the metadata is a new object owned here (NULL
    // on a caught failure), its level and file views malloc'd wrappers freed with their
    // destroy functions, their strings and keys malloc'd copies freed by
    // `take_string`/`take_bytes`.
    unsafe {
        let meta =
            with_code(|code, err| ffi::pinrocks_get_column_family_metadata_cf(db, cf, code, err))?;
        let levels = (0..ffi::rocksdb_column_family_metadata_get_level_count(meta))
            .map(|l| {
                let level = ffi::rocksdb_column_family_metadata_get_level_metadata(meta, l);
                let files = (0..ffi::rocksdb_level_metadata_get_file_count(level))
                    .map(|f| {
                        let file = ffi::rocksdb_level_metadata_get_sst_file_metadata(level, f);
                        let mut len = 0usize;
                        let smallest =
                            ffi::rocksdb_sst_file_metadata_get_smallestkey(file, &mut len);
                        let smallest_key = take_bytes(smallest, len);
                        let largest = ffi::rocksdb_sst_file_metadata_get_largestkey(file, &mut len);
                        let sst = SstFileMetadata {
                            name: take_string(
                                ffi::rocksdb_sst_file_metadata_get_relative_filename(file),
                            ),
                            size: ffi::rocksdb_sst_file_metadata_get_size(file),
                            smallest_key,
                            largest_key: take_bytes(largest, len),
                        };
                        ffi::rocksdb_sst_file_metadata_destroy(file);
                        sst
                    })
                    .collect();
                let metadata = LevelMetadata {
                    level: ffi::rocksdb_level_metadata_get_level(level),
                    size: ffi::rocksdb_level_metadata_get_size(level),
                    files,
                };
                ffi::rocksdb_level_metadata_destroy(level);
                metadata
            })
            .collect();
        let metadata = ColumnFamilyMetadata {
            name: take_string(ffi::rocksdb_column_family_metadata_get_name(meta)),
            size: ffi::rocksdb_column_family_metadata_get_size(meta),
            file_count: ffi::rocksdb_column_family_metadata_get_file_count(meta),
            levels,
        };
        ffi::rocksdb_column_family_metadata_destroy(meta);
        Ok(metadata)
    }
}

/// One blob file of a column family, from [`ColumnFamily::blob_files`](crate::ColumnFamily::blob_files) (RocksDB's
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

/// The live blob files of the column family `family` of `db`, oldest first.
///
/// # Safety
/// `db` must be open and `family` one of its live handles, for the call.
pub(crate) unsafe fn blob_files(
    db: *mut ffi::rocksdb_t,
    family: *mut ffi::rocksdb_column_family_handle_t,
) -> Result<Vec<BlobFileMetadata>> {
    let mut files: Vec<BlobFileMetadata> = Vec::new();
    // SAFETY: live database and handle (the caller's contract); `collect_blob_file` is
    // called during the call only, with `files` as its context, and cannot panic. No C++
    // exception leaves it.
    with_code(|code, err| unsafe {
        ffi::pinrocks_blob_files(
            db,
            family,
            Some(collect_blob_file),
            (&mut files as *mut Vec<BlobFileMetadata>).cast(),
            code,
            err,
        )
    })?;
    Ok(files)
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

/// Approximate bytes each `[start, end)` range of `bounds` takes in the column family
/// `family` of `db` (`flags`: 1 memtables, 2 files, as `DB::SizeApproximationFlags`).
///
/// # Safety
/// `db` must be open and `family` one of its live handles, for the call.
pub(crate) unsafe fn approximate_sizes(
    db: *mut ffi::rocksdb_t,
    family: *mut ffi::rocksdb_column_family_handle_t,
    bounds: &[(&[u8], &[u8])],
    flags: u8,
) -> Result<Vec<u64>> {
    let starts: Vec<*const c_char> = bounds.iter().map(|(a, _)| a.as_ptr().cast()).collect();
    let start_lens: Vec<usize> = bounds.iter().map(|(a, _)| a.len()).collect();
    let ends: Vec<*const c_char> = bounds.iter().map(|(_, b)| b.as_ptr().cast()).collect();
    let end_lens: Vec<usize> = bounds.iter().map(|(_, b)| b.len()).collect();
    let count =
        i32::try_from(bounds.len()).map_err(|_| Error::invalid("ranges", "more than i32::MAX"))?;
    let mut sizes = vec![0u64; bounds.len()];
    // SAFETY: live database and handle (the caller's contract); the four arrays describe
    // `bounds`, borrowed for the call; `sizes` has one slot per range. No C++ exception
    // leaves the call (`pinrocks_approximate_sizes_cf_with_flags`: the C API's function in
    // a try/catch).
    with_code(|code, err| unsafe {
        ffi::pinrocks_approximate_sizes_cf_with_flags(
            db,
            family,
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

/// Whether `key` may exist in the column family `family` of `db`, answered from memory,
/// with its value (if `want_value`) when RocksDB found it there. A failure inside
/// (`std::bad_alloc`) answers "may exist" without a value, which is never wrong.
///
/// # Safety
/// `db` must be open, `options` live read options and `family` one of its live handles,
/// for the call.
pub(crate) unsafe fn key_may_exist(
    db: *mut ffi::rocksdb_t,
    options: *const ffi::rocksdb_readoptions_t,
    family: *mut ffi::rocksdb_column_family_handle_t,
    key: &[u8],
    want_value: bool,
) -> (bool, Option<Vec<u8>>) {
    let mut value = Carried::new(None::<Vec<u8>>);
    let mut err = ErrPtr::new();
    let mut code: i32 = 0;
    let sink: Option<unsafe extern "C" fn(*mut c_void, *const c_char, usize)> =
        want_value.then_some(found_value);
    // SAFETY: live database, options and handle (the caller's contract); `key` is borrowed
    // for the call, and `value` (the sink's context) outlives it. The sink runs at most
    // once, inside the call; an exception inside is caught in C++.
    let may_exist = unsafe {
        ffi::pinrocks_key_may_exist_cf(
            db,
            options,
            family,
            key.as_ptr().cast(),
            key.len(),
            sink,
            value.as_ctx(),
            &mut code,
            err.as_out(),
        )
    };
    // The message of a failure, if any, is freed with `err`.
    let value = value.finish().filter(|_| code == 0);
    (may_exist != 0, value)
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

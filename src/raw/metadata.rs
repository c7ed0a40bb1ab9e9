//! What RocksDB reports of a database's files, copied into owned values: the live SST files
//! of every family and one family's levels and files (the C API's metadata handles, read and
//! destroyed here).

use std::ffi::{c_char, CStr};

use crate::raw::error::{with_code, Result};
use crate::raw::ffi;
use crate::raw::pinned::value_slice;

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

//! Column families created on an open database, one or several in one call, or from an
//! export of another family (which this file makes too); the handles RocksDB makes are
//! handed back for their owner above to take over.

use std::ffi::{c_char, CStr, CString};

use crate::raw::db::RawDb;
use crate::raw::error::{with_code, with_errptr, ErrPtr, Result};
use crate::raw::family::FamilyPtr;
use crate::raw::ffi;
use crate::raw::options_handle::OptionsHandle;
use crate::raw::owned::Owned;

/// Owns the metadata of an exported column family (`ExportImportFilesMetaData`): its
/// files' names, directory, key ranges and sequence numbers, and the comparator's name.
pub(crate) struct ExportHandle(Owned<ffi::rocksdb_export_import_files_metadata_t>);

// SAFETY: plain data (strings and numbers in a vector) with no thread affinity; RocksDB only
// reads it during an import (`&self`), and nothing changes it after the export.
unsafe impl Send for ExportHandle {}
// SAFETY: see `Send`.
unsafe impl Sync for ExportHandle {}

impl ExportHandle {
    fn as_ptr(&self) -> *mut ffi::rocksdb_export_import_files_metadata_t {
        self.0.as_ptr()
    }
}

impl RawDb {
    /// Creates the family `name` with `options` (with `ttl` seconds: a TTL database's
    /// family): its new handle.
    ///
    /// # Safety
    /// With a `ttl`, this must be a TTL database: the C API casts it to `DBWithTTL`.
    pub(crate) unsafe fn create_column_family(
        &self,
        options: &OptionsHandle,
        name: &CStr,
        ttl: Option<i32>,
    ) -> Result<FamilyPtr> {
        // SAFETY: live database (owned) and options (borrowed); RocksDB copies the options
        // and the name. The result is a new handle (NULL on error), the caller's; guarded
        // (no exception leaves the call); a TTL call only on a TTL database (the caller's
        // promise).
        with_code(|code, err| unsafe {
            ffi::pinrocks_create_column_family(
                self.as_ptr(),
                options.as_ptr(),
                name.as_ptr(),
                ttl.unwrap_or(0),
                u8::from(ttl.is_some()),
                code,
                err,
            )
        })
    }

    /// Exports `family` into `dir` (`Checkpoint::ExportColumnFamily`): its metadata and
    /// how many files.
    ///
    /// # Safety
    /// `family` must be a live handle of this database, for the call.
    pub(crate) unsafe fn export_column_family(
        &self,
        family: FamilyPtr,
        dir: &CStr,
    ) -> Result<(ExportHandle, usize)> {
        let mut files = 0usize;
        // SAFETY: live database (owned) and handle (the caller's contract); the path is
        // read during the call. Guarded; the result is new (NULL on error), ours.
        let raw = with_code(|code, err| unsafe {
            ffi::pinrocks_export_column_family(
                self.as_ptr(),
                family,
                dir.as_ptr(),
                &mut files,
                code,
                err,
            )
        })?;
        // SAFETY: a new object, ours alone (not NULL without an error).
        let owned = unsafe { Owned::from_raw(raw) }.expect("an export with no metadata");
        Ok((ExportHandle(owned), files))
    }

    /// Creates the family `name` with `options` from the files `export` describes (moved
    /// if `move_files`, else copied): its new handle.
    pub(crate) fn create_column_family_with_import(
        &self,
        options: &OptionsHandle,
        name: &CStr,
        export: &ExportHandle,
        move_files: bool,
    ) -> Result<FamilyPtr> {
        // SAFETY: live database (owned), options and metadata (borrowed; RocksDB copies the
        // options and name and reads the metadata during the call). The result is a new
        // handle (NULL on error), the caller's. Not guarded: an exception ends the process
        // (rocksdb-c/export_import.cc says why).
        with_errptr(|err| unsafe {
            ffi::pinrocks_create_column_family_with_import(
                self.as_ptr(),
                options.as_ptr(),
                name.as_ptr(),
                u8::from(move_files),
                export.as_ptr(),
                err,
            )
        })
    }

    /// Creates one family per name, with its options, in one `DB::CreateColumnFamilies`:
    /// the handles of those created (RocksDB stops at the first failure) and the outcome.
    pub(crate) fn create_column_families(
        &self,
        options: &[&OptionsHandle],
        names: &[CString],
    ) -> (Vec<FamilyPtr>, Result<()>) {
        assert_eq!(options.len(), names.len());
        let names: Vec<*const c_char> = names.iter().map(|n| n.as_ptr()).collect();
        let options: Vec<*const ffi::rocksdb_options_t> =
            options.iter().map(|o| o.as_ptr().cast_const()).collect();
        let mut handles = vec![std::ptr::null_mut(); names.len()];
        let (mut created, mut code, mut err) = (0usize, 0, ErrPtr::new());
        // SAFETY: live database (owned); `count` options (borrowed, copied by RocksDB),
        // names and handle slots; RocksDB fills `created` slots with new handles, the
        // caller's, whatever the status. Guarded.
        unsafe {
            ffi::pinrocks_create_column_families(
                self.as_ptr(),
                names.len(),
                options.as_ptr(),
                names.as_ptr(),
                handles.as_mut_ptr(),
                &mut created,
                &mut code,
                err.as_out(),
            )
        };
        handles.truncate(created.min(names.len()));
        (handles, err.check_with_code(Some(code)))
    }
}

/// The column family names of the database at `path`, read from its MANIFEST without
/// opening it.
pub(crate) fn list_column_families(options: &OptionsHandle, path: &CStr) -> Result<Vec<String>> {
    let (mut len, mut code, mut err) = (0usize, 0, ErrPtr::new());
    // SAFETY: live options and path (borrowed for the call); RocksDB returns `len`
    // NUL-terminated strings in a malloc'd array -- also on error, then empty but still
    // allocated -- which are copied and then freed with the matching destroy function
    // before the error is looked at. Guarded.
    let names = unsafe {
        let list = ffi::pinrocks_guarded_list_column_families(
            &mut code,
            options.as_ptr(),
            path.as_ptr(),
            &mut len,
            err.as_out(),
        );
        if list.is_null() {
            Vec::new()
        } else {
            let names = (0..len)
                .map(|i| CStr::from_ptr(*list.add(i)).to_string_lossy().into_owned())
                .collect();
            ffi::rocksdb_list_column_families_destroy(list, len);
            names
        }
    };
    err.check_with_code(Some(code)).map(|()| names)
}

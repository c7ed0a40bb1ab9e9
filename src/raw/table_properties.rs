//! The table properties of a column family's live SST files (`GetPropertiesOfAllTables`):
//! RocksDB's numbers and the properties user collectors wrote, copied out.

use std::ffi::{c_char, c_void};

use crate::raw::error::{ErrPtr, Result};
use crate::raw::ffi;
use crate::raw::pinned::value_slice;
use crate::raw::trampoline::Carried;

/// One file's numbers as RocksDB gives them.
pub(crate) type RawTableNumbers = ffi::pinrocks_table_properties;

/// One SST file's properties, copied.
pub(crate) struct RawTableFile {
    pub(crate) path: String,
    pub(crate) numbers: RawTableNumbers,
    pub(crate) user: Vec<(String, Vec<u8>)>,
}

extern "C" fn file(
    ctx: *mut c_void,
    path: *const c_char,
    path_len: usize,
    numbers: *const RawTableNumbers,
) {
    // SAFETY: `ctx` is the `Carried` `table_properties` passed with this function; C++ passes
    // its path and numbers, valid during this call.
    let (files, path, numbers) = unsafe {
        (
            Carried::<Vec<RawTableFile>>::from_ctx(ctx),
            value_slice(path, path_len),
            *numbers,
        )
    };
    files.run(|files| {
        files.push(RawTableFile {
            path: String::from_utf8_lossy(path).into_owned(),
            numbers,
            user: Vec::new(),
        })
    });
}

extern "C" fn property(
    ctx: *mut c_void,
    name: *const c_char,
    name_len: usize,
    value: *const c_char,
    value_len: usize,
) {
    // SAFETY: as in `file`; a property follows its file's call.
    let (files, name, value) = unsafe {
        (
            Carried::<Vec<RawTableFile>>::from_ctx(ctx),
            value_slice(name, name_len),
            value_slice(value, value_len),
        )
    };
    files.run(|files| {
        if let Some(last) = files.last_mut() {
            last.user
                .push((String::from_utf8_lossy(name).into_owned(), value.to_vec()));
        }
    });
}

/// The properties of every live SST file of `family`.
///
/// # Safety
/// `db` must be open and `family` a live handle of it, for the call.
pub(crate) unsafe fn table_properties(
    db: *mut ffi::rocksdb_t,
    family: *mut ffi::rocksdb_column_family_handle_t,
) -> Result<Vec<RawTableFile>> {
    let mut files = Carried::new(Vec::new());
    let (mut code, mut err) = (0, ErrPtr::new());
    // SAFETY: the caller's contract; the functions match the context, which lives for the
    // call. Guarded.
    unsafe {
        ffi::pinrocks_table_properties_of(
            db,
            family,
            Some(file),
            Some(property),
            files.as_ctx(),
            &mut code,
            err.as_out(),
        )
    };
    let files = files.finish();
    err.check_with_code(Some(code)).map(|()| files)
}

/// Adds `name` = `value` to the properties map a collector's `finish` was handed: `false`
/// if it could not be allocated (the property is then missing).
///
/// # Safety
/// `properties` must be the map rocksdb-c/ handed to the collector, for the call.
pub(crate) unsafe fn put_user_property(properties: *mut c_void, name: &[u8], value: &[u8]) -> bool {
    // SAFETY: the caller's contract; the bytes are copied during the call.
    unsafe {
        ffi::pinrocks_user_properties_put(
            properties,
            name.as_ptr().cast(),
            name.len(),
            value.as_ptr().cast(),
            value.len(),
        ) != 0
    }
}

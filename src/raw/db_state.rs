//! What a live database says of itself and lets change: properties by name, the memtables'
//! share of a range, its options read and changed while open, and a family's full-history
//! timestamp. Each takes the database's `rocksdb_t` (and a family's handle) that its owner
//! above keeps open for the call.

use std::collections::BTreeMap;
use std::ffi::CStr;

use crate::raw::cstr::Pairs;
use crate::raw::error::{with_code, Error, Result};
use crate::raw::ffi;
use crate::raw::options_handle::OptionsHandle;
use crate::raw::pairs::collect_pair;
use crate::raw::trampoline::Carried;

type Db = *mut ffi::rocksdb_t;
type Family = *mut ffi::rocksdb_column_family_handle_t;

/// The map property `name` of `family`; `None` if RocksDB has no map for it.
///
/// # Safety
/// `db` must be open and `family` one of its live handles, for the call.
pub(crate) unsafe fn property_map(
    db: Db,
    family: Family,
    name: &CStr,
) -> Result<Option<BTreeMap<String, String>>> {
    let mut map = Carried::new(BTreeMap::new());
    // SAFETY: live database and handle (the caller's contract); the name is read during the
    // call; `collect_pair` matches `map`'s type. Guarded C++.
    let found = with_code(|code, err| unsafe {
        ffi::pinrocks_property_map_cf(
            db,
            family,
            name.as_ptr(),
            Some(collect_pair::<BTreeMap<String, String>>),
            map.as_ctx(),
            code,
            err,
        )
    });
    let map = map.finish();
    Ok((found? != 0).then_some(map))
}

/// The memtables' approximate entries and bytes in `[start, end)` of `family`.
///
/// # Safety
/// `db` must be open and `family` one of its live handles, for the call.
pub(crate) unsafe fn approximate_memtable_stats(
    db: Db,
    family: Family,
    start: &[u8],
    end: &[u8],
) -> Result<(u64, u64)> {
    let (mut entries, mut bytes) = (0u64, 0u64);
    // SAFETY: live database and handle (the caller's contract); the bounds are borrowed for
    // the call. Guarded.
    with_code(|code, err| unsafe {
        ffi::pinrocks_approximate_memtable_stats_cf(
            db,
            family,
            start.as_ptr().cast(),
            start.len(),
            end.as_ptr().cast(),
            end.len(),
            &mut entries,
            &mut bytes,
            code,
            err,
        )
    })?;
    Ok((entries, bytes))
}

/// The integer property `name` summed over every family; `None` if RocksDB has none.
///
/// # Safety
/// `db` must be open, for the call.
pub(crate) unsafe fn property_int_aggregated(db: Db, name: &CStr) -> Result<Option<u64>> {
    let mut value = 0u64;
    // SAFETY: the open database (the caller's contract); the name is read during the call.
    // Guarded C++.
    let found = with_code(|code, err| unsafe {
        ffi::pinrocks_property_int_aggregated(db, name.as_ptr(), &mut value, code, err)
    })?;
    Ok((found != 0).then_some(value))
}

/// The options `family` of `db` runs with now (database and family options in one).
///
/// # Safety
/// `db` must be open and `family` a handle of it (a dropped family's still reads), for the
/// call.
pub(crate) unsafe fn live_options(db: Db, family: Family) -> Result<OptionsHandle> {
    // SAFETY: the caller's contract; guarded; a new handle, ours alone, or NULL with an
    // error.
    let raw = with_code(|code, err| unsafe { ffi::pinrocks_live_options(db, family, code, err) })?;
    // SAFETY: a new options handle, ours alone.
    Ok(unsafe { OptionsHandle::own(raw) })
}

/// RocksDB's `SetOptions` of `family`, the pairs by RocksDB's names.
///
/// # Safety
/// `db` must be open and `family` one of its live handles, for the call.
pub(crate) unsafe fn set_family_options(db: Db, family: Family, pairs: &Pairs) -> Result<()> {
    let count =
        i32::try_from(pairs.keys.len()).map_err(|_| Error::invalid("options", "too many"))?;
    // SAFETY: live database and handle (the caller's contract); the strings are read
    // (copied) during the call. No C++ exception leaves the call.
    with_code(|code, err| unsafe {
        ffi::pinrocks_set_options_cf(
            db,
            family,
            count,
            pairs.keys.as_ptr(),
            pairs.values.as_ptr(),
            code,
            err,
        )
    })
}

/// RocksDB's `SetDBOptions`, the pairs by RocksDB's names.
///
/// # Safety
/// `db` must be open, for the call.
pub(crate) unsafe fn set_db_options(db: Db, pairs: &Pairs) -> Result<()> {
    let count =
        i32::try_from(pairs.keys.len()).map_err(|_| Error::invalid("options", "too many"))?;
    // SAFETY: live database (the caller's contract); the strings are read (copied) during
    // the call. No C++ exception leaves the call.
    with_code(|code, err| unsafe {
        ffi::pinrocks_set_db_options(
            db,
            count,
            pairs.keys.as_ptr(),
            pairs.values.as_ptr(),
            code,
            err,
        )
    })
}

/// Raises `family`'s full-history timestamp to `ts` (RocksDB's encoding).
///
/// # Safety
/// `db` must be open and `family` one of its live handles, for the call.
pub(crate) unsafe fn increase_full_history_ts_low(db: Db, family: Family, ts: &[u8]) -> Result<()> {
    // SAFETY: live database and handle (the caller's contract); the timestamp is copied. No
    // C++ exception leaves the call.
    with_code(|code, err| unsafe {
        ffi::pinrocks_increase_full_history_ts_low(
            db,
            family,
            ts.as_ptr().cast(),
            ts.len(),
            code,
            err,
        )
    })
}

/// `family`'s full-history timestamp copied into `ts` (at most its length): the length
/// RocksDB holds (0: never set).
///
/// # Safety
/// `db` must be open and `family` one of its live handles, for the call.
pub(crate) unsafe fn full_history_ts_low(db: Db, family: Family, ts: &mut [u8]) -> Result<usize> {
    // SAFETY: live database and handle (the caller's contract); RocksDB copies at most
    // `ts.len()` bytes into `ts`. No C++ exception leaves the call.
    with_code(|code, err| unsafe {
        ffi::pinrocks_get_full_history_ts_low(
            db,
            family,
            ts.as_mut_ptr().cast(),
            ts.len(),
            code,
            err,
        )
    })
}

/// The text property `name` of `family`; `None` if RocksDB does not know it.
///
/// # Safety
/// `db` must be open and `family` one of its live handles, for the call.
pub(crate) unsafe fn property_text(db: Db, family: Family, name: &CStr) -> Result<Option<String>> {
    let mut err = crate::raw::error::ErrPtr::new();
    let mut code = 0;
    // SAFETY: live db and handle (the caller's contract); the name is read during the call.
    // The result is a malloc'd C string or NULL (absent, or on error: checked first),
    // copied, then freed with rocksdb_free. No C++ exception leaves the call.
    unsafe {
        let value =
            ffi::pinrocks_property_value_cf(db, family, name.as_ptr(), &mut code, err.as_out());
        err.check_with_code(Some(code))?;
        if value.is_null() {
            return Ok(None);
        }
        let text = CStr::from_ptr(value).to_string_lossy().into_owned();
        ffi::rocksdb_free(value.cast());
        Ok(Some(text))
    }
}

/// The integer property `name` of `family`; `None` if RocksDB has no integer for it.
///
/// # Safety
/// `db` must be open and `family` one of its live handles, for the call.
pub(crate) unsafe fn property_int(db: Db, family: Family, name: &CStr) -> Result<Option<u64>> {
    let mut value = 0u64;
    // SAFETY: live db and handle (the caller's contract); `value` is written only on success
    // (return 0). No C++ exception leaves the call.
    let rc = with_code(|code, err| unsafe {
        ffi::pinrocks_property_int_cf(db, family, name.as_ptr(), &mut value, code, err)
    })?;
    Ok((rc == 0).then_some(value))
}

/// The range tombstones in the live SST files of `family` (their table properties).
///
/// # Safety
/// `db` must be open and `family` one of its live handles, for the call.
pub(crate) unsafe fn range_deletions(db: Db, family: Family) -> Result<u64> {
    let mut count = 0u64;
    // SAFETY: live db and handle (the caller's contract); guarded: no C++ exception leaves.
    with_code(|code, err| unsafe {
        ffi::pinrocks_cf_range_deletions(db, family, &mut count, code, err)
    })?;
    Ok(count)
}

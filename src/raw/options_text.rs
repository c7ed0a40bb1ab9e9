//! The options as text: serialized by RocksDB (for the option table's checks and
//! `get_by_name`), set by RocksDB's names, checked by RocksDB's own validation, and read
//! from OPTIONS files.

use std::ffi::{c_char, CStr};

use crate::raw::cache::CacheHandle;
use crate::raw::cstr::Pairs;
use crate::raw::error::{with_code, ErrPtr, Result};
use crate::raw::ffi;
use crate::raw::options_handle::OptionsHandle;
use crate::raw::pairs::collect_pairs;

impl OptionsHandle {
    /// Each name and value of one scope of these options (`OPTION_SCOPE_DB`, `_CF`,
    /// `_TABLE`), as RocksDB serializes them for its OPTIONS file.
    pub(crate) fn serialized(&self, scope: u32) -> Result<Vec<(String, String)>> {
        collect_pairs(|f, ctx, code, err| {
            // SAFETY: live options, only read (`&self`); `f` matches `ctx`. Guarded.
            unsafe {
                ffi::pinrocks_options_serialized(self.as_ptr(), scope as i32, f, ctx, code, err)
            }
        })
    }

    /// RocksDB's own checks across options (the table factory's), which an open makes
    /// but a family creation and a live change do not.
    pub(crate) fn validate(&self) -> Result<()> {
        // SAFETY: live options, only read. Guarded.
        with_code(|code, err| unsafe { ffi::pinrocks_options_validate(self.as_ptr(), code, err) })
    }

    /// Sets each of `pairs` (names and values by RocksDB's names and syntax) in its scope
    /// (`OPTION_SCOPE_DB` or `_CF`), RocksDB parsing them; with the error, the index of
    /// the pair refused (past the last: the options' own `num_levels`).
    pub(crate) fn set_by_name(&mut self, pairs: &Pairs, scopes: &[i32]) -> (Result<()>, usize) {
        assert_eq!(pairs.keys.len(), scopes.len());
        assert_eq!(pairs.values.len(), scopes.len());
        let (mut refused, mut code, mut err) = (0usize, 0, ErrPtr::new());
        // SAFETY: live options, ours alone; `pairs` holds as many NUL-terminated names as
        // values, and `scopes` one scope each, alive for the call (RocksDB copies them).
        // Guarded.
        unsafe {
            ffi::pinrocks_options_set_by_name(
                self.as_ptr(),
                pairs.keys.len(),
                pairs.keys.as_ptr(),
                pairs.values.as_ptr(),
                scopes.as_ptr(),
                &mut refused,
                &mut code,
                err.as_out(),
            )
        };
        (err.check_with_code(Some(code)), refused)
    }

    /// Whether the file at `path` exists on these options' file system.
    pub(crate) fn file_exists(&self, path: &CStr) -> Result<bool> {
        // SAFETY: live options and a NUL-terminated path, both borrowed for the call.
        let exists = with_code(|code, err| unsafe {
            ffi::pinrocks_options_env_file_exists(self.as_ptr(), path.as_ptr(), code, err)
        })?;
        Ok(exists != 0)
    }

    /// The name of the comparator these options order keys with.
    pub(crate) fn comparator_name(&self) -> Vec<u8> {
        let mut buf = [0u8; 128];
        // SAFETY: live options, only read; the name is copied into `buf` (truncated to its
        // length).
        let len = unsafe {
            ffi::pinrocks_options_comparator_name(self.as_ptr(), buf.as_mut_ptr().cast(), buf.len())
        };
        buf[..len.min(buf.len())].to_vec()
    }

    /// The newest OPTIONS file RocksDB wrote in `dir`, read through these options' file
    /// system; `None` if there is none.
    pub(crate) fn read_newest_options_file(&self, dir: &CStr) -> Result<Option<String>> {
        let (mut len, mut code, mut err) = (0usize, 0, ErrPtr::new());
        // SAFETY: live options and a NUL-terminated path; the text comes back malloc'd
        // (NULL when there is no OPTIONS file, or on an error), `len` bytes long, copied here
        // and then freed with `rocksdb_free` (free) before the error is looked at.
        let text = unsafe {
            let raw = ffi::pinrocks_options_env_read_newest_options_file(
                self.as_ptr(),
                dir.as_ptr(),
                &mut len,
                &mut code,
                err.as_out(),
            );
            if raw.is_null() {
                None
            } else {
                let text = std::slice::from_raw_parts(raw.cast::<u8>(), len);
                let text = String::from_utf8_lossy(text).into_owned();
                ffi::rocksdb_free(raw.cast());
                Some(text)
            }
        };
        err.check_with_code(Some(code))?;
        Ok(text)
    }
}

/// Each name and value of a default object of `scope` (an `OPTION_SCOPE_*`), as RocksDB
/// serializes it.
pub(crate) fn option_defaults(scope: u32) -> Result<Vec<(String, String)>> {
    collect_pairs(|f, ctx, code, err| {
        // SAFETY: `f` matches `ctx`; a guarded call.
        unsafe { ffi::pinrocks_option_defaults(scope as i32, f, ctx, code, err) }
    })
}

#[cfg(test)]
/// The names RocksDB's option map of `scope` lists (`mutable_only`: those `SetOptions`
/// changes).
pub(crate) fn option_names(scope: u32, mutable_only: bool) -> Result<Vec<(String, String)>> {
    collect_pairs(|f, ctx, code, err| {
        // SAFETY: `f` matches `ctx`; a guarded call.
        unsafe {
            ffi::pinrocks_option_names(scope as i32, u8::from(mutable_only), f, ctx, code, err)
        }
    })
}

/// RocksDB's `LoadLatestOptions` of the database at `path` on the default `Env`, every
/// family's table factory given `cache`: the database's options and each column family's
/// name and options.
pub(crate) fn load_latest_options(
    path: &CStr,
    cache: &CacheHandle,
) -> Result<(OptionsHandle, Vec<(String, OptionsHandle)>)> {
    let (mut code, mut err) = (0, ErrPtr::new());
    let mut db_options = std::ptr::null_mut();
    let mut count = 0usize;
    let mut names: *mut *mut c_char = std::ptr::null_mut();
    let mut cf_options: *mut *mut ffi::rocksdb_options_t = std::ptr::null_mut();
    // SAFETY: a default env (destroyed after the call) and a live cache; RocksDB fills the
    // out-parameters on success (each options handle a separate allocation that we own from
    // here, the two arrays and the names malloc'd) and NULLs on failure. Guarded (it parses
    // the OPTIONS file into new objects).
    unsafe {
        let env = ffi::rocksdb_create_default_env();
        ffi::pinrocks_guarded_load_latest_options(
            &mut code,
            path.as_ptr(),
            env,
            false,
            cache.as_ptr(),
            &mut db_options,
            &mut count,
            &mut names,
            &mut cf_options,
            err.as_out(),
        );
        ffi::rocksdb_env_destroy(env);
    }
    err.check_with_code(Some(code))?;
    // SAFETY: on success every pointer is valid: `count` names and options, each taken over
    // once, then the arrays freed with RocksDB's allocator.
    unsafe {
        let db = OptionsHandle::own(db_options);
        let mut families = Vec::with_capacity(count);
        for i in 0..count {
            let name = CStr::from_ptr(*names.add(i)).to_string_lossy().into_owned();
            ffi::rocksdb_free((*names.add(i)).cast());
            families.push((name, OptionsHandle::own(*cf_options.add(i))));
        }
        ffi::rocksdb_free(names.cast());
        ffi::rocksdb_free(cf_options.cast());
        Ok((db, families))
    }
}

//! Paths, names and option pairs as the C strings RocksDB takes.

use std::ffi::{c_char, CString};
use std::path::Path;

use crate::raw::error::{Error, Result};

pub(crate) fn path_to_cstring(path: &Path) -> Result<CString> {
    #[cfg(unix)]
    let bytes = {
        use std::os::unix::ffi::OsStrExt;
        path.as_os_str().as_bytes().to_vec()
    };
    #[cfg(not(unix))]
    let bytes = path
        .to_str()
        .ok_or_else(|| Error::invalid("path", format!("{} is not UTF-8", path.display())))?
        .as_bytes()
        .to_vec();
    CString::new(bytes).map_err(|e| Error::invalid("path", e))
}

/// Names and values as C strings, and pointers to them for the call.
pub(crate) struct Pairs {
    _owned: Vec<(CString, CString)>,
    pub(crate) keys: Vec<*const c_char>,
    pub(crate) values: Vec<*const c_char>,
}

pub(crate) fn pairs(options: &[(&str, &str)]) -> Result<Pairs> {
    let owned: Vec<(CString, CString)> = options
        .iter()
        .map(|(k, v)| {
            Ok((
                CString::new(*k).map_err(|e| Error::invalid("option name", e))?,
                CString::new(*v).map_err(|e| Error::invalid("option value", e))?,
            ))
        })
        .collect::<Result<_>>()?;
    Ok(Pairs {
        keys: owned.iter().map(|(k, _)| k.as_ptr()).collect(),
        values: owned.iter().map(|(_, v)| v.as_ptr()).collect(),
        _owned: owned,
    })
}

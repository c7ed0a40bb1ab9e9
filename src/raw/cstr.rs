//! Paths and names as the C strings RocksDB takes.

use std::ffi::CString;
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

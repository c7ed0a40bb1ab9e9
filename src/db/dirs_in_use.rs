//! Which directories this process has open as a database or is restoring a backup into:
//! RocksDB's own LOCK file cannot tell (see `IN_USE`).

use std::path::PathBuf;
use std::sync::Mutex;

use crate::raw::error::{Error, Result};

/// The directories (canonical) in use in this process: one entry per open database (any
/// kind of open) and per restore under way. A restore is refused where a database is open,
/// and an open where a restore is under way. RocksDB's own LOCK cannot tell: its
/// in-process table is keyed by the path as spelled, and read-only opens take no lock.
/// Lock: held to check and push, or remove, one entry; no RocksDB call under it.
static IN_USE: Mutex<Vec<(PathBuf, DirUse)>> = Mutex::new(Vec::new());

/// What a directory in `IN_USE` is used for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DirUse {
    Open,
    Restore,
}

/// One entry of `IN_USE`, removed on drop: claimed before RocksDB opens (or restores) and
/// released after it has closed (or restored), so the two never overlap.
pub(crate) struct DirInUse(PathBuf, DirUse);

impl DirInUse {
    /// Claims `path` for `what`, or says who has it.
    pub(crate) fn claim(path: &std::path::Path, what: DirUse) -> Result<Self> {
        let dir = canonical_dir(path);
        let mut in_use = in_use();
        let conflict = in_use
            .iter()
            .find(|(d, u)| *d == dir && (what == DirUse::Restore || *u == DirUse::Restore));
        match (conflict.map(|(_, u)| *u), what) {
            (None, _) => {}
            (Some(DirUse::Restore), DirUse::Open) => {
                return Err(Error::RestoreInProgress {
                    path: path.to_path_buf(),
                })
            }
            (Some(theirs), _) => {
                return Err(Error::DatabaseOpenThere {
                    path: path.to_path_buf(),
                    message: match theirs {
                        DirUse::Open => "open in this process",
                        DirUse::Restore => "another restore is under way there",
                    }
                    .to_owned(),
                })
            }
        }
        in_use.push((dir.clone(), what));
        Ok(DirInUse(dir, what))
    }
}

impl Drop for DirInUse {
    fn drop(&mut self) {
        let mut in_use = in_use();
        if let Some(i) = in_use
            .iter()
            .position(|(d, u)| *d == self.0 && *u == self.1)
        {
            in_use.swap_remove(i);
        }
    }
}

// Each change is one push or remove: a poisoned list is still whole.
fn in_use() -> std::sync::MutexGuard<'static, Vec<(PathBuf, DirUse)>> {
    IN_USE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// `path` resolved (symbolic links, `.`, `..`), also before it exists: its parent resolved
/// and its name added; failing that, made absolute.
fn canonical_dir(path: &std::path::Path) -> PathBuf {
    if let Ok(dir) = std::fs::canonicalize(path) {
        return dir;
    }
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    match (absolute.parent(), absolute.file_name()) {
        (Some(parent), Some(name)) => std::fs::canonicalize(parent)
            .map(|p| p.join(name))
            .unwrap_or(absolute),
        _ => absolute,
    }
}

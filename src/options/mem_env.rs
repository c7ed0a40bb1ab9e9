//! A file system in memory (RocksDB's `MockFileSystem`, what its `NewMemEnv` uses, here with
//! the real clock): databases whose files live in this process's memory only, for tests,
//! fuzzers and scratch data that need no disk.

use std::sync::Arc;

use crate::options::db_options::Options;
use crate::options::env_owner::{DatabaseOnEnv, EnvKeeper};
use crate::raw::envs::MemEnvHandle;
use crate::raw::error::Result;

impl EnvKeeper for MemEnvHandle {
    fn hold_for_database(self: Arc<Self>) -> DatabaseOnEnv {
        Box::new(self)
    }

    fn in_memory(&self) -> bool {
        true
    }
}

/// A file system in memory: a database opened with [`Options::mem_env`] keeps every file
/// (WAL, SST, MANIFEST) in it, under the path it was given, which need not exist on disk.
/// Its files last as long as the `MemEnv` does (and every database or options using it,
/// which keep it alive): reopen on the same `MemEnv` to find them again. Syncs cost
/// nothing. Cheap to clone; clones share the files.
///
/// What pinrocks reads of a database's files at open (which families it has, whether it is
/// a TTL database) it reads through the `MemEnv` too. Not in memory: `allow_mmap_reads`
/// (refused at open, `Error::InvalidInput`: RocksDB's in-memory files hand out slices a
/// write moves); [`StoredOptions`](crate::options::StoredOptions) and a
/// [`BackupEngine`](crate::admin::BackupEngine) opened with other options read the disk.
///
/// ```
/// use pinrocks::{Db, Options};
/// use pinrocks::options::MemEnv;
/// # fn main() -> pinrocks::Result<()> {
/// let env = MemEnv::new()?;
/// let mut options = Options::new();
/// options.create_if_missing(true).mem_env(&env);
/// let db = Db::open(&options, "/in-memory/db")?;
/// db.put(b"k", b"v")?;
/// drop(db);
/// let db = Db::open(&options, "/in-memory/db")?; // the same files, from memory
/// assert_eq!(db.get(b"k")?.as_deref(), Some(&b"v"[..]));
/// assert!(!std::path::Path::new("/in-memory").exists());
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct MemEnv(Arc<MemEnvHandle>);

impl std::fmt::Debug for MemEnv {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemEnv").finish_non_exhaustive()
    }
}

impl MemEnv {
    /// A new, empty file system in memory.
    pub fn new() -> Result<MemEnv> {
        Ok(MemEnv(Arc::new(MemEnvHandle::new()?)))
    }
}

impl Options {
    /// Opens on `env` (the database's `Env`): every file the database reads or writes is in
    /// its memory. The options keep it alive, and so does every database opened with them.
    ///
    /// Scope: database (`env`).
    pub fn mem_env(&mut self, env: &MemEnv) -> &mut Self {
        // SAFETY: live options and env; RocksDB keeps the `Env` pointer, which
        // `self.env_owner` (then every database opened with these options) keeps alive.
        unsafe { env.0.install(&mut self.raw) };
        self.env_owner = Some(env.0.clone());
        self
    }
}

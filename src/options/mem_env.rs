//! A file system in memory (RocksDB's `MockFileSystem`, what its `NewMemEnv` uses, here with
//! the real clock): databases whose files live in this process's memory only, for tests,
//! fuzzers and scratch data that need no disk.

use std::ptr::NonNull;
use std::sync::Arc;

use crate::options::db_options::Options;
use crate::options::env_owner::{DatabaseOnEnv, EnvKeeper};
use crate::raw::error::{with_code, Result};
use crate::raw::ffi;

/// Owns the native in-memory `Env`.
struct RawMemEnv(NonNull<ffi::pinrocks_mem_env_t>);

// SAFETY: RocksDB's `MockFileSystem` (env/mock_env.cc) guards its file map with a mutex, and
// each file its own data (sizes atomic); the `Env` over it is a `CompositeEnvWrapper` of the
// default `Env`'s threads and clock, used by RocksDB from every thread. Slices into a file's
// buffer (mmap reads) are refused at open.
unsafe impl Send for RawMemEnv {}
// SAFETY: see `Send`.
unsafe impl Sync for RawMemEnv {}

impl Drop for RawMemEnv {
    fn drop(&mut self) {
        // SAFETY: owned, destroyed once, after every database and options handle pointing
        // at it has let go (each keeps a `MemEnv`).
        unsafe { ffi::pinrocks_mem_env_destroy(self.0.as_ptr()) };
    }
}

impl EnvKeeper for RawMemEnv {
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
pub struct MemEnv(Arc<RawMemEnv>);

impl std::fmt::Debug for MemEnv {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemEnv").finish_non_exhaustive()
    }
}

impl MemEnv {
    /// A new, empty file system in memory.
    pub fn new() -> Result<MemEnv> {
        // SAFETY: plain constructor; NULL only with an error.
        let raw = with_code(|code, err| unsafe { ffi::pinrocks_mem_env_create(code, err) })?;
        let raw =
            NonNull::new(raw).expect("pinrocks_mem_env_create returned NULL without an error");
        Ok(MemEnv(Arc::new(RawMemEnv(raw))))
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
        unsafe { ffi::pinrocks_options_set_mem_env(self.raw.as_ptr(), env.0 .0.as_ptr()) };
        self.env_owner = Some(env.0.clone());
        self
    }
}

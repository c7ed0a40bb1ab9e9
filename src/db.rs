//! Opening, closing and administering a database.

use std::collections::HashMap;
use std::ffi::{c_char, CStr, CString};
use std::path::{Path, PathBuf};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

use crate::column_family::{CfHandle, ColumnFamily};
use crate::error::{ffi_try, ErrPtr, Error, Result};
use crate::ffi;
use crate::options::{Options, ReadOptions, WriteOptions};
use crate::read::Reader;
use crate::snapshot::Snapshot;
use crate::write::{WriteBatch, Writer};

/// The name RocksDB gives the column family every database has.
pub const DEFAULT_COLUMN_FAMILY: &str = "default";

/// An open RocksDB database. Closed when dropped (and when nothing else that keeps it open,
/// such as a [`Snapshot`], is left).
///
/// `Db` is `Send + Sync`: share it between threads with `&Db` or an `Arc<Db>`.
pub struct Db {
    inner: Arc<DbInner>,
}

/// What the open database is, shared by everything that must keep it open.
///
/// Field order is drop order: the column family handles must be destroyed before
/// `raw` closes the database. Every `ColumnFamily` borrows a `Db`, so when this drops the
/// handles below hold the last references to them.
pub(crate) struct DbInner {
    /// Unique for the life of the process (never an address, which a later open can
    /// reuse): what column families, batches and snapshots name their database by.
    pub(crate) id: u64,
    /// Opened read-only: pinrocks refuses every change itself (`check_writable`).
    read_only: bool,
    /// Held shared by every write that names a column family other than the default one,
    /// for the whole write, and exclusively by `drop_cf`: a write never reaches RocksDB for
    /// a family that is being or has been dropped.
    family_lock: RwLock<()>,
    pub(crate) default_cf: Arc<CfHandle>,
    column_families: RwLock<HashMap<String, Arc<CfHandle>>>,
    pub(crate) default_read: ReadOptions,
    pub(crate) default_write: WriteOptions,
    path: PathBuf,
    raw: RawDb,
}

/// Owns the `rocksdb_t`; closes it on drop.
struct RawDb(NonNull<ffi::rocksdb_t>);

impl Drop for RawDb {
    fn drop(&mut self) {
        // SAFETY: owned by `self` and closed exactly once, after the handles (field order
        // in `DbInner`).
        unsafe { ffi::rocksdb_close(self.0.as_ptr()) };
    }
}

/// Source of `DbInner::id`: a 64-bit counter does not wrap in the life of a process.
static NEXT_DB_ID: AtomicU64 = AtomicU64::new(1);

// SAFETY: `rocksdb::DB` is thread-safe: RocksDB documents (include/rocksdb/db.h) that all its
// methods may be called concurrently from several threads without external synchronization.
// The column family map is behind a `RwLock`, and the default options are only read
// (`DB::Get`, `DB::Write` and `NewIterator` take them by const reference and copy nothing
// back into them).
unsafe impl Send for DbInner {}
// SAFETY: see `Send`.
unsafe impl Sync for DbInner {}

impl DbInner {
    pub(crate) fn raw(&self) -> *mut ffi::rocksdb_t {
        self.raw.0.as_ptr()
    }

    // A panic while the lock was held cannot leave the map half-changed (each change is
    // one insert or remove), so a poisoned lock is still usable.
    fn column_families(&self) -> RwLockReadGuard<'_, HashMap<String, Arc<CfHandle>>> {
        self.column_families
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn column_families_mut(&self) -> RwLockWriteGuard<'_, HashMap<String, Arc<CfHandle>>> {
        self.column_families
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// `Err(ReadOnly)` for a change to a database opened read-only.
    pub(crate) fn check_writable(&self, operation: &'static str) -> Result<()> {
        if self.read_only {
            return Err(Error::ReadOnly { operation });
        }
        Ok(())
    }

    /// Blocks `drop_cf` for as long as the guard lives; see `live_family`.
    pub(crate) fn lock_families(&self) -> RwLockReadGuard<'_, ()> {
        // The lock guards no data, so a poisoned one is as good as a clean one.
        self.family_lock
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// `Ok` if a write may name `cf`: it belongs to this database and is not dropped. Call it
    /// with `lock_families` held and keep that guard until the write has returned.
    pub(crate) fn live_family(&self, cf: &CfHandle) -> Result<()> {
        if cf.db_id != self.id {
            return Err(Error::ForeignColumnFamily {
                name: cf.name.clone(),
            });
        }
        if cf.is_dropped() {
            return Err(Error::ColumnFamilyDropped(cf.name.clone()));
        }
        Ok(())
    }
}

fn path_to_cstring(path: &Path) -> Result<CString> {
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

pub(crate) fn name_to_cstring(name: &str) -> Result<CString> {
    CString::new(name).map_err(|e| Error::invalid("column family name", e))
}

impl Db {
    /// Opens the database at `path` with every column family it already has (each with
    /// `options`). Use [`Options::create_if_missing`] to create a new one.
    pub fn open(options: &Options, path: impl AsRef<Path>) -> Result<Db> {
        let path = path.as_ref();
        // A database that does not exist yet has only the default column family.
        let names = Self::list_column_families(options, path).unwrap_or_default();
        Self::open_with(options, path, names.iter().map(|n| (n.as_str(), options)))
    }

    /// Opens the database with the default column family and the named ones, each with
    /// `options`. Set [`Options::create_missing_column_families`] to create missing ones.
    pub fn open_cf<I, N>(options: &Options, path: impl AsRef<Path>, names: I) -> Result<Db>
    where
        I: IntoIterator<Item = N>,
        N: AsRef<str>,
    {
        let names: Vec<N> = names.into_iter().collect();
        Self::open_with(
            options,
            path.as_ref(),
            names.iter().map(|n| (n.as_ref(), options)),
        )
    }

    /// Opens the database with column families that each have their own options. The
    /// default column family is added with `options` when not named.
    pub fn open_with<'o>(
        options: &'o Options,
        path: impl AsRef<Path>,
        column_families: impl IntoIterator<Item = (&'o str, &'o Options)>,
    ) -> Result<Db> {
        Self::open_impl(options, path.as_ref(), column_families, false)
    }

    /// Opens the database read-only, with every column family it has. Writes fail with
    /// an error; several read-only opens (and one read-write open) may coexist.
    pub fn open_read_only(options: &Options, path: impl AsRef<Path>) -> Result<Db> {
        let path = path.as_ref();
        let names = Self::list_column_families(options, path)?;
        Self::open_impl(
            options,
            path,
            names.iter().map(|n| (n.as_str(), options)),
            true,
        )
    }

    fn open_impl<'o>(
        options: &'o Options,
        path: &Path,
        column_families: impl IntoIterator<Item = (&'o str, &'o Options)>,
        read_only: bool,
    ) -> Result<Db> {
        let (names, cf_options) = with_default_cf(options, column_families)?;
        for o in std::iter::once(options).chain(cf_options.iter().copied()) {
            o.check()?;
        }
        let c_path = path_to_cstring(path)?;
        let count = i32::try_from(names.len())
            .map_err(|_| Error::invalid("column families", "more than i32::MAX"))?;
        let name_ptrs: Vec<*const c_char> = names.iter().map(|n| n.as_ptr()).collect();
        let opt_ptrs: Vec<*const ffi::rocksdb_options_t> =
            cf_options.iter().map(|o| o.raw()).collect();
        let mut handles = vec![std::ptr::null_mut(); names.len()];
        // Both calls fill `handles` with one handle per name, in order, on success.
        let raw = if read_only {
            ffi_try!(rocksdb_open_for_read_only_column_families(
                options.raw(),
                c_path.as_ptr(),
                count,
                name_ptrs.as_ptr(),
                opt_ptrs.as_ptr(),
                handles.as_mut_ptr(),
                0, // error_if_wal_file_exists
            ))
        } else {
            ffi_try!(rocksdb_open_column_families(
                options.raw(),
                c_path.as_ptr(),
                count,
                name_ptrs.as_ptr(),
                opt_ptrs.as_ptr(),
                handles.as_mut_ptr(),
            ))
        }?;
        Self::from_raw(raw, path, &names, &handles, read_only)
    }

    /// The column family names of the database at `path`, without opening it.
    pub fn list_column_families(options: &Options, path: impl AsRef<Path>) -> Result<Vec<String>> {
        let c_path = path_to_cstring(path.as_ref())?;
        let mut len = 0usize;
        let mut err = ErrPtr::new();
        // SAFETY: RocksDB returns `len` NUL-terminated strings in a malloc'd array -- also on
        // error, then empty but still allocated -- which we copy and then free with the
        // matching destroy function before looking at the error.
        let names = unsafe {
            let list = ffi::rocksdb_list_column_families(
                options.raw(),
                c_path.as_ptr(),
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
        err.check().map(|()| names)
    }

    fn from_raw(
        raw: *mut ffi::rocksdb_t,
        path: &Path,
        names: &[CString],
        handles: &[*mut ffi::rocksdb_column_family_handle_t],
        read_only: bool,
    ) -> Result<Db> {
        let raw = RawDb(NonNull::new(raw).expect("RocksDB open returned NULL without an error"));
        let id = NEXT_DB_ID.fetch_add(1, Ordering::Relaxed);
        let column_families: HashMap<String, Arc<CfHandle>> = names
            .iter()
            .zip(handles)
            .map(|(name, &handle)| {
                let name = name.to_string_lossy().into_owned();
                (name.clone(), Arc::new(CfHandle::new(handle, name, id)))
            })
            .collect();
        let default_cf = Arc::clone(&column_families[DEFAULT_COLUMN_FAMILY]);
        Ok(Db {
            inner: Arc::new(DbInner {
                id,
                read_only,
                family_lock: RwLock::new(()),
                raw,
                default_cf,
                column_families: RwLock::new(column_families),
                default_read: ReadOptions::new(),
                default_write: WriteOptions::new(),
                path: path.to_path_buf(),
            }),
        })
    }

    /// The path the database was opened at.
    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    pub(crate) fn inner(&self) -> &Arc<DbInner> {
        &self.inner
    }

    /// The raw `rocksdb_t` and the default read options, for calling [`ffi`](crate::ffi)
    /// directly (the benchmark's no-safe-layer floor). Valid while `self` lives; do not
    /// close or destroy them.
    #[doc(hidden)]
    pub fn as_raw(&self) -> (*mut ffi::rocksdb_t, *const ffi::rocksdb_readoptions_t) {
        (self.inner.raw(), self.inner.default_read.raw())
    }

    /// Reads from the default column family with default read options; change either
    /// with [`Reader::cf`] and [`Reader::options`].
    pub fn reader(&self) -> Reader<'_> {
        Reader::new(&self.inner, &self.inner.default_cf)
    }

    /// Writes to the default column family with default write options.
    pub fn writer(&self) -> Writer<'_> {
        Writer::new(&self.inner, &self.inner.default_cf)
    }

    /// The value of `key` in the default column family, copied into a new `Vec`.
    /// See [`Reader::get`].
    pub fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.reader().get(key)
    }

    /// Copies the value of `key` into `buf`. See [`Reader::get_into`].
    pub fn get_into(&self, key: &[u8], buf: &mut [u8]) -> Result<crate::CopyResult> {
        self.reader().get_into(key, buf)
    }

    /// Calls `f` with the value of `key` where RocksDB holds it. See [`Reader::get_pinned`].
    pub fn get_pinned<R>(&self, key: &[u8], f: impl FnOnce(&[u8]) -> R) -> Result<Option<R>> {
        self.reader().get_pinned(key, f)
    }

    /// Sets `key` to `value` in the default column family. See [`Writer::put`].
    pub fn put(&self, key: &[u8], value: &[u8]) -> Result<()> {
        self.writer().put(key, value)
    }

    /// Removes `key` from the default column family. See [`Writer::delete`].
    pub fn delete(&self, key: &[u8]) -> Result<()> {
        self.writer().delete(key)
    }

    /// Removes keys in `[from, to)` from the default column family.
    pub fn delete_range(&self, from: &[u8], to: &[u8]) -> Result<()> {
        self.writer().delete_range(from, to)
    }

    /// Applies `batch` atomically with default write options. See [`Writer::write`].
    pub fn write(&self, batch: &WriteBatch) -> Result<()> {
        self.writer().write(batch)
    }

    /// A consistent view of the database as it is now.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot::new(Arc::clone(&self.inner))
    }

    /// The column family named `name`, if it is open in this database.
    pub fn cf(&self, name: &str) -> Result<ColumnFamily<'_>> {
        let handle = self
            .inner
            .column_families()
            .get(name)
            .cloned()
            .ok_or_else(|| Error::ColumnFamilyNotFound(name.to_owned()))?;
        Ok(ColumnFamily::new(self, handle))
    }

    /// The default column family.
    pub fn default_cf(&self) -> ColumnFamily<'_> {
        ColumnFamily::new(self, Arc::clone(&self.inner.default_cf))
    }

    /// The names of the column families open in this database, sorted.
    pub fn cf_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.inner.column_families().keys().cloned().collect();
        names.sort();
        names
    }

    /// Creates a column family. Fails if one of that name exists.
    pub fn create_cf(&self, name: &str, options: &Options) -> Result<ColumnFamily<'_>> {
        self.inner.check_writable("create_cf")?;
        options.check()?;
        let c_name = name_to_cstring(name)?;
        let mut map = self.inner.column_families_mut();
        if map.contains_key(name) {
            return Err(Error::invalid(
                "column family name",
                format!("{name} already exists"),
            ));
        }
        let raw = ffi_try!(rocksdb_create_column_family(
            self.inner.raw(),
            options.raw(),
            c_name.as_ptr()
        ))?;
        let handle = Arc::new(CfHandle::new(raw, name.to_owned(), self.inner.id));
        map.insert(name.to_owned(), Arc::clone(&handle));
        Ok(ColumnFamily::new(self, handle))
    }

    /// Drops a column family and its data. What still holds it (a `ColumnFamily`, a
    /// `Table`, a pinned value, an iterator) goes on reading the dropped family's data until
    /// it is dropped; a write naming it fails with [`Error::ColumnFamilyDropped`].
    ///
    /// Waits for writes in flight that name a column family other than the default one.
    /// If RocksDB reports a failure, the family may have been dropped or not: it is treated
    /// as dropped until the database is reopened.
    pub fn drop_cf(&self, name: &str) -> Result<()> {
        self.inner.check_writable("drop_cf")?;
        // Exclusive: no write naming a non-default family is in flight while the family
        // goes, and every later one sees it marked dropped.
        let _no_writes = self
            .inner
            .family_lock
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let mut map = self.inner.column_families_mut();
        let handle = map
            .get(name)
            .ok_or_else(|| Error::ColumnFamilyNotFound(name.to_owned()))?;
        if handle.is_default() {
            return Err(Error::invalid(
                "column family name",
                "the default column family cannot be dropped",
            ));
        }
        let dropped = ffi_try!(rocksdb_drop_column_family(self.inner.raw(), handle.raw()));
        // `DBImpl::DropColumnFamily` can fail after the drop is committed (writing the
        // OPTIONS file), so a failure may mean dropped or not. Either way no write may reach
        // the family again in this open: a write to a dropped family stops the database.
        // If it was not dropped after all, it is back, whole, at the next open.
        handle.mark_dropped();
        map.remove(name);
        dropped
    }

    /// Flushes the default column family's memtable to an SST file and waits for it.
    pub fn flush(&self) -> Result<()> {
        self.default_cf().flush()
    }

    /// Compacts keys in `[from, to)` of the default column family (`None`: unbounded).
    pub fn compact_range(&self, from: Option<&[u8]>, to: Option<&[u8]>) -> Result<()> {
        self.default_cf().compact_range(from, to)
    }

    /// A RocksDB property of the default column family, such as `rocksdb.stats`.
    pub fn property(&self, name: &str) -> Result<Option<String>> {
        self.default_cf().property(name)
    }

    /// An integer property of the default column family, such as
    /// `rocksdb.estimate-num-keys`.
    pub fn property_int(&self, name: &str) -> Result<Option<u64>> {
        self.default_cf().property_int(name)
    }
}

impl std::fmt::Debug for Db {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Db")
            .field("path", &self.inner.path)
            .finish_non_exhaustive()
    }
}

/// Names as C strings and their options, with the default column family first if absent.
fn with_default_cf<'o>(
    options: &'o Options,
    column_families: impl IntoIterator<Item = (&'o str, &'o Options)>,
) -> Result<(Vec<CString>, Vec<&'o Options>)> {
    let mut names = Vec::new();
    let mut cf_options = Vec::new();
    for (name, opts) in column_families {
        names.push(name_to_cstring(name)?);
        cf_options.push(opts);
    }
    if !names
        .iter()
        .any(|n| n.as_bytes() == DEFAULT_COLUMN_FAMILY.as_bytes())
    {
        names.insert(0, name_to_cstring(DEFAULT_COLUMN_FAMILY)?);
        cf_options.insert(0, options);
    }
    Ok((names, cf_options))
}

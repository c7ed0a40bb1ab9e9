//! Opening, closing and administering a database.

use std::ffi::{c_char, CStr, CString};
use std::path::Path;
use std::ptr::NonNull;
use std::sync::Arc;

use crate::batch::{for_each_record, WriteBatch};
use crate::column_family::ColumnFamily;
use crate::error::{ErrPtr, Error, Result};
use crate::ffi;
use crate::handles::{
    CfHandle, DbInner, DbKind, DirInUse, DirUse, RawDb, RecoveredTxn, DEFAULT_COLUMN_FAMILY,
};
use crate::options::{Options, ReadOptions};
use crate::read::{CopyResult, Reader};
use crate::snapshot::Snapshot;
use crate::statistics::Statistics;
use crate::write::Writer;

/// An open RocksDB database. Closed when dropped (and when nothing else that keeps it open,
/// such as a [`Snapshot`] or an owned [`Bytes`](bytes::Bytes) value, is left).
///
/// `Db` is `Send + Sync`: share it between threads with `&Db` or an `Arc<Db>`.
///
/// ```
/// use pinrocks::{Db, Options};
/// # fn main() -> pinrocks::Result<()> {
/// # let dir = tempfile::tempdir().unwrap();
/// let mut options = Options::new();
/// options.create_if_missing(true).create_missing_column_families(true);
/// {
///     let db = Db::open_cf(&options, dir.path(), ["users", "orders"])?;
///     db.cf("users")?.writer().put(b"ada", b"Lovelace")?;
/// } // closed
/// assert_eq!(Db::list_column_families(&options, dir.path())?, ["default", "users", "orders"]);
/// let db = Db::open(&options, dir.path())?; // with every column family it has
/// assert_eq!(db.cf_names(), ["default", "orders", "users"]);
/// let read_only = Db::open_read_only(&options, dir.path())?; // beside the read-write open
/// assert_eq!(read_only.cf("users")?.reader().get(b"ada")?.as_deref(), Some(&b"Lovelace"[..]));
/// # Ok(()) }
/// ```
pub struct Db {
    inner: Arc<DbInner>,
}

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

/// How a database is opened.
pub(crate) enum Mode {
    ReadWrite,
    ReadOnly {
        error_if_wal_exists: bool,
    },
    /// A secondary instance keeping its own files (info log, OPTIONS) at `path`.
    Secondary {
        path: CString,
    },
    /// `DBWithTTL`, one TTL in seconds per column family in the order given.
    Ttl {
        ttls: Vec<i32>,
    },
    /// A pessimistic `TransactionDB` with these options.
    Transaction {
        options: *const ffi::rocksdb_transactiondb_options_t,
    },
    /// An `OptimisticTransactionDB`.
    Optimistic,
}

fn name_to_cstring(name: &str) -> Result<CString> {
    CString::new(name).map_err(|e| Error::invalid("column family name", e))
}

impl Db {
    /// Opens the database at `path` with every column family it already has (each with
    /// `options`). Use [`Options::create_if_missing`] to create a new one.
    pub fn open(options: &Options, path: impl AsRef<Path>) -> Result<Db> {
        let path = path.as_ref();
        // Only a directory with no database in it (no CURRENT file) has no column families
        // to list yet; any other failure to list them is the open's failure.
        let names = if path.join("CURRENT").exists() {
            Self::list_column_families(options, path)?
        } else {
            Vec::new()
        };
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
        Self::open_impl(options, path.as_ref(), column_families, Mode::ReadWrite)
    }

    /// Opens the database read-only, with every column family it has. pinrocks refuses
    /// every change through it ([`Error::ReadOnly`]); several read-only opens (and one
    /// read-write open) may coexist. It sees the database as it was when opened.
    pub fn open_read_only(options: &Options, path: impl AsRef<Path>) -> Result<Db> {
        let names = Self::list_column_families(options, path.as_ref())?;
        Self::open_read_only_cf(options, path, names, false)
    }

    /// Opens the database read-only with the default column family and the named ones
    /// only (the others stay closed). With `error_if_wal_exists`, the open fails if a WAL
    /// file is there (writes not yet flushed to SST files, which a read-only open would
    /// otherwise replay into its own memory).
    ///
    /// ```
    /// # fn main() -> pinrocks::Result<()> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let mut opts = pinrocks::Options::new();
    /// # opts.create_if_missing(true).create_missing_column_families(true);
    /// # drop(pinrocks::Db::open_cf(&opts, dir.path(), ["hot", "cold"])?);
    /// let db = pinrocks::Db::open_read_only_cf(&pinrocks::Options::new(), dir.path(), ["hot"], false)?;
    /// assert_eq!(db.cf_names(), ["default", "hot"]);
    /// assert!(db.cf("cold").is_err());
    /// # Ok(()) }
    /// ```
    pub fn open_read_only_cf<I, N>(
        options: &Options,
        path: impl AsRef<Path>,
        names: I,
        error_if_wal_exists: bool,
    ) -> Result<Db>
    where
        I: IntoIterator<Item = N>,
        N: AsRef<str>,
    {
        let names: Vec<N> = names.into_iter().collect();
        Self::open_impl(
            options,
            path.as_ref(),
            names.iter().map(|n| (n.as_ref(), options)),
            Mode::ReadOnly {
                error_if_wal_exists,
            },
        )
    }

    pub(crate) fn open_impl<'o>(
        options: &'o Options,
        path: &Path,
        column_families: impl IntoIterator<Item = (&'o str, &'o Options)>,
        mode: Mode,
    ) -> Result<Db> {
        check_ttl_kind(path, matches!(mode, Mode::Ttl { .. }))?;
        let (names, cf_options) = with_default_cf(options, column_families)?;
        for o in std::iter::once(options).chain(cf_options.iter().copied()) {
            o.check()?;
        }
        let c_path = path_to_cstring(path)?;
        // Claimed before RocksDB opens it: a restore there is refused from now until the
        // database has closed (and an open while one is under way).
        let dir = DirInUse::claim(path, DirUse::Open)?;
        let count = i32::try_from(names.len())
            .map_err(|_| Error::invalid("column families", "more than i32::MAX"))?;
        let name_ptrs: Vec<*const c_char> = names.iter().map(|n| n.as_ptr()).collect();
        let opt_ptrs: Vec<*const ffi::rocksdb_options_t> =
            cf_options.iter().map(|o| o.raw()).collect();
        let mut handles = vec![std::ptr::null_mut(); names.len()];
        let mut err = ErrPtr::new();
        let mut code = 0;
        // SAFETY: every pointer is live for the call (options, path, names and their
        // options borrowed; `handles` has one slot per name); RocksDB copies what it keeps
        // and, on success, fills `handles` in order with handles we then own. Guarded
        // calls (an open recovers the WAL into memory: no exception leaves it).
        let raw = unsafe {
            match &mode {
                Mode::Transaction {
                    options: txn_options,
                } => {
                    let txn_db = ffi::pinrocks_guarded_transactiondb_open_column_families(
                        &mut code,
                        options.raw(),
                        *txn_options,
                        c_path.as_ptr(),
                        count,
                        name_ptrs.as_ptr(),
                        opt_ptrs.as_ptr(),
                        handles.as_mut_ptr(),
                        err.as_out(),
                    );
                    NonNull::new(txn_db).map(|txn_db| RawDb::Transaction {
                        handle: NonNull::new(ffi::pinrocks_transactiondb_as_db(txn_db.as_ptr()))
                            .expect("out of memory wrapping the transaction database"),
                        txn_db,
                    })
                }
                Mode::Optimistic => {
                    let txn_db = ffi::pinrocks_guarded_optimistictransactiondb_open_column_families(
                        &mut code,
                        options.raw(),
                        c_path.as_ptr(),
                        count,
                        name_ptrs.as_ptr(),
                        opt_ptrs.as_ptr(),
                        handles.as_mut_ptr(),
                        err.as_out(),
                    );
                    NonNull::new(txn_db).map(|txn_db| RawDb::Optimistic {
                        handle: NonNull::new(ffi::pinrocks_optimistictransactiondb_as_db(
                            txn_db.as_ptr(),
                        ))
                        .expect("out of memory wrapping the transaction database"),
                        txn_db,
                    })
                }
                Mode::ReadOnly {
                    error_if_wal_exists,
                } => plain(ffi::pinrocks_guarded_open_for_read_only_column_families(
                    &mut code,
                    options.raw(),
                    c_path.as_ptr(),
                    count,
                    name_ptrs.as_ptr(),
                    opt_ptrs.as_ptr(),
                    handles.as_mut_ptr(),
                    u8::from(*error_if_wal_exists),
                    err.as_out(),
                )),
                Mode::ReadWrite => plain(ffi::pinrocks_guarded_open_column_families(
                    &mut code,
                    options.raw(),
                    c_path.as_ptr(),
                    count,
                    name_ptrs.as_ptr(),
                    opt_ptrs.as_ptr(),
                    handles.as_mut_ptr(),
                    err.as_out(),
                )),
                Mode::Secondary { path } => {
                    plain(ffi::pinrocks_guarded_open_as_secondary_column_families(
                        &mut code,
                        options.raw(),
                        c_path.as_ptr(),
                        path.as_ptr(),
                        count,
                        name_ptrs.as_ptr(),
                        opt_ptrs.as_ptr(),
                        handles.as_mut_ptr(),
                        err.as_out(),
                    ))
                }
                Mode::Ttl { ttls } => {
                    assert_eq!(ttls.len(), names.len(), "one TTL per column family");
                    plain(ffi::pinrocks_guarded_open_column_families_with_ttl(
                        &mut code,
                        options.raw(),
                        c_path.as_ptr(),
                        count,
                        name_ptrs.as_ptr(),
                        opt_ptrs.as_ptr(),
                        handles.as_mut_ptr(),
                        ttls.as_ptr(),
                        err.as_out(),
                    ))
                }
            }
        };
        err.check_with_code(Some(code)).map_err(Error::at_open)?;
        let raw = raw.expect("RocksDB open returned NULL without an error");
        let db = Db {
            inner: DbInner::new(
                raw,
                path.to_path_buf(),
                &names,
                &handles,
                &cf_options.iter().map(|o| o.traits()).collect::<Vec<_>>(),
                match mode {
                    Mode::ReadWrite => DbKind::ReadWrite,
                    Mode::ReadOnly { .. } => DbKind::ReadOnly,
                    Mode::Secondary { .. } => DbKind::Secondary,
                    Mode::Ttl { .. } => DbKind::Ttl,
                    Mode::Transaction { .. } | Mode::Optimistic => DbKind::ReadWrite,
                },
                Statistics::of_options(options.raw()),
                dir,
            ),
        };
        adopt_recovered(&db.inner)?;
        Ok(db)
    }
    /// The column family names of the database at `path`, without opening it.
    pub fn list_column_families(options: &Options, path: impl AsRef<Path>) -> Result<Vec<String>> {
        let c_path = path_to_cstring(path.as_ref())?;
        let mut len = 0usize;
        let mut err = ErrPtr::new();
        let mut code = 0;
        // SAFETY: RocksDB returns `len` NUL-terminated strings in a malloc'd array -- also on
        // error, then empty but still allocated -- which we copy and then free with the
        // matching destroy function before looking at the error.
        let names = unsafe {
            let list = ffi::pinrocks_guarded_list_column_families(
                &mut code,
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
        err.check_with_code(Some(code)).map(|()| names)
    }

    /// `Err(ReadOnly)` for a change to a database opened read-only.
    pub(crate) fn check_writable(&self, operation: &'static str) -> Result<()> {
        self.inner.check_writable(operation)
    }

    /// The statistics RocksDB collects for this database, if it was opened with
    /// [`Options::enable_statistics`].
    pub fn statistics(&self) -> Option<Statistics> {
        self.inner.statistics.clone()
    }

    pub(crate) fn inner(&self) -> &Arc<DbInner> {
        &self.inner
    }

    /// The path the database was opened at.
    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// The raw `rocksdb_t` and RocksDB's default read options, for calling the C API in
    /// [`ffi`](crate::ffi) directly where pinrocks has no wrapper (the sweep's raw floor
    /// does). Both stay valid while `self` lives. Do not close, destroy or change them, and
    /// do not write through a database opened read-only or to a dropped column family:
    /// those are refused by pinrocks, not by RocksDB.
    pub fn as_raw(&self) -> (*mut ffi::rocksdb_t, *const ffi::rocksdb_readoptions_t) {
        (self.inner.raw(), ReadOptions::defaults().raw())
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
    pub fn get_into(&self, key: &[u8], buf: &mut [u8]) -> Result<CopyResult> {
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

    /// Adds a merge operand to `key` in the default column family ([`Writer::merge`]).
    pub fn merge(&self, key: &[u8], operand: &[u8]) -> Result<()> {
        self.writer().merge(key, operand)
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
        Ok(ColumnFamily::new(&self.inner, handle))
    }

    /// The default column family.
    pub fn default_cf(&self) -> ColumnFamily<'_> {
        ColumnFamily::new(&self.inner, Arc::clone(&self.inner.default_cf))
    }

    /// The names of the column families open in this database, sorted.
    pub fn cf_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.inner.column_families().keys().cloned().collect();
        names.sort();
        names
    }

    /// Creates a column family. Fails with [`Error::ColumnFamilyExists`] if one of that
    /// name exists.
    pub fn create_cf(&self, name: &str, options: &Options) -> Result<ColumnFamily<'_>> {
        options.check()?;
        let handle = self
            .inner
            .create_cf(name, options.raw(), options.traits(), None)?;
        Ok(ColumnFamily::new(&self.inner, handle))
    }

    /// Drops a column family and its data. What still holds it (a `ColumnFamily`, a
    /// `Table`, a pinned value, an iterator) goes on reading the dropped family's data until
    /// it is dropped; a write naming it fails with [`Error::ColumnFamilyDropped`].
    ///
    /// From the call on, no write may name it; then it waits for the writes to it already
    /// in flight (holding no lock: writes to other families go on). A write waits for as
    /// long as RocksDB makes it (a row lock up to its lock timeout, a stall): so do not
    /// drop a family from the thread whose open transaction holds a row lock another
    /// writer of that family waits for, with no lock timeout. Refused
    /// ([`Error::ColumnFamilyInUse`]) while a prepared transaction writes to it. If RocksDB
    /// reports a failure, the family may have been dropped or not: it is treated as
    /// dropped until the database is reopened. The default column family cannot be dropped
    /// ([`Error::DefaultColumnFamily`]).
    pub fn drop_cf(&self, name: &str) -> Result<()> {
        self.inner.drop_cf(name)
    }

    /// Closes the database now and reports what RocksDB's `DB::Close` says (an error
    /// flushing, syncing or closing the WAL or the MANIFEST on the way out), which dropping
    /// a `Db` cannot. The files and the lock are released when it returns, error or not.
    ///
    /// If values read from the database still hold it (an owned [`Bytes`](bytes::Bytes),
    /// a [`Snapshot`]), it cannot close yet: `Err(`[`Error::DatabaseInUse`]`)`, and it
    /// closes, unreported, when the last of them drops.
    ///
    /// ```
    /// # fn main() -> pinrocks::Result<()> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let mut options = pinrocks::Options::new();
    /// # options.create_if_missing(true);
    /// let db = pinrocks::Db::open(&options, dir.path())?;
    /// db.put(b"k", b"v")?;
    /// let kept = db.reader().get_bytes(b"k")?.unwrap();
    /// let db2 = pinrocks::Db::open(&options, dir.path()); // locked: still open
    /// assert!(db2.is_err());
    /// assert!(matches!(db.close(), Err(pinrocks::Error::DatabaseInUse { holders: 1 })));
    /// drop(kept); // the last holder: the database closes
    /// pinrocks::Db::open(&options, dir.path())?.close()?;
    /// # Ok(()) }
    /// ```
    pub fn close(self) -> Result<()> {
        // From inside a callback RocksDB runs, `DB::Close` would wait for the work running
        // it: refused, and the `Db` dropped, so it closes on a thread of its own.
        crate::reentry::refuse_inside("close")?;
        match Arc::try_unwrap(self.inner) {
            Ok(inner) => inner.close(),
            Err(shared) => {
                let holders = Arc::strong_count(&shared) - 1;
                Err(Error::DatabaseInUse { holders })
            }
        }
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

/// Whether the database at `path` was written as a TTL database, from the newest OPTIONS
/// file RocksDB wrote (a TTL database's families name `TtlCompactionFilterFactory`).
/// `None` if there is no database there yet.
fn stored_as_ttl(path: &Path) -> Result<Option<bool>> {
    let Ok(entries) = std::fs::read_dir(path) else {
        return Ok(None);
    };
    let newest = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let number: u64 = name.strip_prefix("OPTIONS-")?.parse().ok()?;
            Some((number, e.path()))
        })
        .max_by_key(|(number, _)| *number);
    let Some((_, file)) = newest else {
        return Ok(None);
    };
    let text = std::fs::read_to_string(&file)
        .map_err(|e| Error::invalid("path", format!("{}: {e}", file.display())))?;
    // DBWithTTL wraps each family's filter factory in its own, which the file names so.
    // DBWithTTL wraps each family's filter factory in its own, or its compaction filter if
    // it has one (db_ttl_impl.cc), and the file names the wrapper.
    Ok(Some(text.lines().any(|line| {
        let line = line.trim_start();
        line.starts_with("compaction_filter_factory={id=TtlCompactionFilterFactory;")
            || line.starts_with("compaction_filter={id=TtlCompactionFilter;")
            || line == "compaction_filter=TtlCompactionFilter"
    })))
}

fn check_ttl_kind(path: &Path, opening_with_ttl: bool) -> Result<()> {
    match stored_as_ttl(path)? {
        Some(stored) if stored != opening_with_ttl => Err(Error::TtlMismatch {
            stored_with_ttl: stored,
        }),
        _ => Ok(()),
    }
}

/// A plain database as opened, if it was.
fn plain(raw: *mut ffi::rocksdb_t) -> Option<RawDb> {
    NonNull::new(raw).map(RawDb::Plain)
}

/// Names as C strings and their options, with the default column family first if absent.
pub(crate) fn with_default_cf<'o>(
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

/// At the open of a pessimistic transaction database: keeps the transactions RocksDB
/// recovered as prepared (`Db::prepared_transactions` hands them out), counting each as
/// prepared in the families it writes to, so none of them can be dropped before it ends.
pub(crate) fn adopt_recovered(inner: &DbInner) -> Result<()> {
    let RawDb::Transaction { txn_db, .. } = inner.raw_db() else {
        return Ok(());
    };
    let mut count = 0usize;
    // SAFETY: live database, no user of it yet (still opening); RocksDB returns a malloc'd
    // array of `count` new C API wrappers around transactions it owns. Each wrapper is
    // taken by a `RecoveredTxn`, the array freed.
    let wrappers: Vec<NonNull<ffi::rocksdb_transaction_t>> = unsafe {
        let list =
            ffi::rocksdb_transactiondb_get_prepared_transactions(txn_db.as_ptr(), &mut count);
        if list.is_null() {
            return Ok(());
        }
        let wrappers = (0..count)
            .filter_map(|i| NonNull::new(*list.add(i)))
            .collect();
        ffi::rocksdb_free(list.cast());
        wrappers
    };
    let by_id: Vec<(u32, Arc<CfHandle>)> = inner
        .column_families()
        .values()
        .map(|h| {
            // SAFETY: live handle; `GetID` only reads it.
            let id = unsafe { ffi::rocksdb_column_family_handle_get_id(h.raw()) };
            (id, Arc::clone(h))
        })
        .collect();
    let mut recovered = Vec::with_capacity(wrappers.len());
    let mut failed = None;
    for raw in wrappers {
        let mut ids = Vec::new();
        // SAFETY: the transaction is RocksDB's and used by no one else during the open;
        // its batch is borrowed for the iteration only.
        let batch = unsafe { ffi::pinrocks_transaction_write_batch(raw.as_ptr()) };
        if let Err(e) = for_each_record(batch, |record| {
            if let Some(id) = record.cf() {
                if !ids.contains(&id) {
                    ids.push(id);
                }
            }
        }) {
            failed.get_or_insert(e);
        }
        let families = by_id
            .iter()
            .filter(|(id, _)| ids.contains(id))
            .map(|(_, h)| Arc::clone(h))
            .collect();
        recovered.push(RecoveredTxn::new(raw, families));
    }
    *inner
        .recovered
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner()) = recovered;
    failed.map_or(Ok(()), Err)
}

//! How every kind of database opens: one `open_impl` for every constructor (in
//! `open.rs`), the TTL kind check, and the adoption of prepared transactions a recovery
//! found.

use std::ffi::{c_char, CString};
use std::path::Path;
use std::ptr::NonNull;
use std::sync::Arc;

use crate::db::database::Db;
use crate::db::handles::{
    CfHandle, DbInner, DbKind, DirInUse, DirUse, RawDb, DEFAULT_COLUMN_FAMILY,
};
use crate::db::recovered_txn::RecoveredTxn;
use crate::options::db_options::Options;
use crate::options::statistics::Statistics;
use crate::options::stored_options::newest_options_file;
use crate::raw::batch_records::{for_each_record, BatchRecord};
use crate::raw::cstr::path_to_cstring;
use crate::raw::error::{with_code, ErrPtr, Error, Result};
use crate::raw::ffi;

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
    /// An `OptimisticTransactionDB` with these options.
    Optimistic {
        options: *const ffi::rocksdb_optimistictransactiondb_options_t,
    },
}

pub(crate) fn name_to_cstring(name: &str) -> Result<CString> {
    CString::new(name).map_err(|e| Error::invalid("column family name", e))
}

impl Db {
    pub(crate) fn open_impl<'o>(
        options: &'o Options,
        path: &Path,
        column_families: impl IntoIterator<Item = (&'o str, &'o Options)>,
        mode: Mode,
    ) -> Result<Db> {
        let in_memory = options
            .env_owner
            .as_ref()
            .is_some_and(|env| env.in_memory());
        if in_memory {
            refuse_in_memory(options)?;
        }
        check_ttl_kind(options, path, matches!(mode, Mode::Ttl { .. }))?;
        let (names, cf_options) = with_default_cf(options, column_families)?;
        for o in std::iter::once(options).chain(cf_options.iter().copied()) {
            o.check()?;
        }
        let c_path = path_to_cstring(path)?;
        // Claimed before RocksDB opens it: a restore there is refused from now until the
        // database has closed (and an open while one is under way).
        let dir = DirInUse::claim(path, DirUse::Open)?;
        // Likewise its `Env`'s owner knows a database is open on it (a fault file system
        // refuses to restart under one).
        let mut holds: Vec<_> = options
            .env_owner
            .clone()
            .map(|env| env.hold_for_database())
            .into_iter()
            .collect();
        // And its memtable budget counts it (a stalling one serves one database).
        if let Some(budget) = &options.write_buffer_manager {
            holds.push(budget.hold_for_database()?);
        }
        let count = i32::try_from(names.len())
            .map_err(|_| Error::invalid("column families", "more than i32::MAX"))?;
        let name_ptrs: Vec<*const c_char> = names.iter().map(|n| n.as_ptr()).collect();
        let opt_ptrs: Vec<*const ffi::rocksdb_options_t> = cf_options
            .iter()
            .map(|o| o.raw.as_ptr().cast_const())
            .collect();
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
                        options.raw.as_ptr(),
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
                Mode::Optimistic {
                    options: otxn_options,
                } => {
                    let txn_db = ffi::pinrocks_guarded_optimistictransactiondb_open_column_families_with_otxn_db_options(
                        &mut code,
                        options.raw.as_ptr(),
                        *otxn_options,
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
                    options.raw.as_ptr(),
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
                    options.raw.as_ptr(),
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
                        options.raw.as_ptr(),
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
                        options.raw.as_ptr(),
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
        let statistics = Statistics::of_options(&options.raw);
        let db = Db::from_inner(DbInner::new(
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
                Mode::Transaction { .. } | Mode::Optimistic { .. } => DbKind::ReadWrite,
            },
            statistics,
            holds,
            dir,
        ));
        adopt_recovered(db.inner())?;
        Ok(db)
    }
}

/// Whether a database is at `path`: its CURRENT file, looked for on the options' file system
/// (the disk, or one in memory).
pub(crate) fn has_database(options: &Options, path: &Path) -> Result<bool> {
    let current = path_to_cstring(&path.join("CURRENT"))?;
    // SAFETY: live options and a NUL-terminated path, both borrowed for the call.
    let exists = with_code(|code, err| unsafe {
        ffi::pinrocks_options_env_file_exists(options.raw.as_ptr(), current.as_ptr(), code, err)
    })?;
    Ok(exists != 0)
}

/// Whether the database at `path` was written as a TTL database, from the newest OPTIONS
/// file RocksDB wrote (a TTL database's families name `TtlCompactionFilterFactory`), read
/// through the options' file system. `None` if there is no database there yet.
fn stored_as_ttl(options: &Options, path: &Path) -> Result<Option<bool>> {
    let Some(text) = newest_options_file(options, path)? else {
        return Ok(None);
    };
    // DBWithTTL wraps each family's filter factory in its own, or its compaction filter if
    // it has one (db_ttl_impl.cc), and the file names the wrapper.
    Ok(Some(text.lines().any(|line| {
        let line = line.trim_start();
        line.starts_with("compaction_filter_factory={id=TtlCompactionFilterFactory;")
            || line.starts_with("compaction_filter={id=TtlCompactionFilter;")
            || line == "compaction_filter=TtlCompactionFilter"
    })))
}

/// What a database on a file system in memory cannot be: one read through mmap (RocksDB's
/// in-memory files hand out slices of a buffer that a write to the same file reallocates).
fn refuse_in_memory(options: &Options) -> Result<()> {
    // SAFETY: live options; a getter.
    if unsafe { ffi::rocksdb_options_get_allow_mmap_reads(options.raw.as_ptr()) } != 0 {
        return Err(Error::invalid(
            "allow_mmap_reads",
            "not on a file system in memory: its files hand out slices that a write moves",
        ));
    }
    Ok(())
}

fn check_ttl_kind(options: &Options, path: &Path, opening_with_ttl: bool) -> Result<()> {
    match stored_as_ttl(options, path)? {
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
        let each = |record: BatchRecord<'_>| {
            if let Some(id) = record.cf() {
                if !ids.contains(&id) {
                    ids.push(id);
                }
            }
        };
        // SAFETY: the transaction's batch, which nothing changes during the open.
        if let Err(e) = unsafe { for_each_record(batch, each) } {
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

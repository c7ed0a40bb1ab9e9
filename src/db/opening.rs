//! How every kind of database opens: one `open_impl` for every constructor (in
//! `open.rs`), the TTL kind check, and the adoption of prepared transactions a recovery
//! found.

use std::ffi::CString;
use std::path::Path;
use std::sync::Arc;

use crate::db::database::Db;
use crate::db::handles::{CfHandle, DbInner, DbKind, DirInUse, DirUse, DEFAULT_COLUMN_FAMILY};
use crate::db::recovered_txn::RecoveredTxn;
use crate::options::db_options::Options;
use crate::options::statistics::Statistics;
use crate::options::stored_options::newest_options_file;
use crate::raw::cstr::path_to_cstring;
use crate::raw::error::{Error, Result};
use crate::raw::open::{open, OpenAs};
use crate::raw::options_handle::OptionsHandle;
use crate::raw::transaction_options::{OptimisticDbOptionsHandle, TransactionDbOptionsHandle};

/// How a database is opened.
pub(crate) enum Mode<'a> {
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
        options: &'a TransactionDbOptionsHandle,
    },
    /// An `OptimisticTransactionDB` with these options.
    Optimistic {
        options: &'a OptimisticDbOptionsHandle,
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
        mode: Mode<'_>,
    ) -> Result<Db> {
        let in_memory = options
            .env_owner
            .as_ref()
            .is_some_and(|env| env.in_memory());
        if in_memory {
            refuse_in_memory(options)?;
        }
        if options.row_cache && matches!(mode, Mode::ReadOnly { .. } | Mode::Secondary { .. }) {
            // It could neither flush the log's range tombstones to check them nor keep a
            // primary's out (`range_free.rs`).
            return Err(Error::RowCacheRefusesRanges {
                operation: "open read-only or as a secondary",
            });
        }
        check_ttl_kind(options, path, matches!(mode, Mode::Ttl { .. }))?;
        if options.wal_filter.is_some() {
            wal_filter_decisions_last(options, matches!(mode, Mode::Transaction { .. }))?;
        }
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
        // And its WAL filter, which RocksDB's copy of the options points at.
        if let Some(filter) = &options.wal_filter {
            holds.push(Box::new(filter.clone()));
        }
        let family_options: Vec<&OptionsHandle> = cf_options.iter().map(|o| &o.raw).collect();
        let kind = match &mode {
            Mode::ReadWrite => OpenAs::ReadWrite,
            Mode::ReadOnly {
                error_if_wal_exists,
            } => OpenAs::ReadOnly {
                error_if_wal_exists: *error_if_wal_exists,
            },
            Mode::Secondary { path } => OpenAs::Secondary { path },
            Mode::Ttl { ttls } => OpenAs::Ttl { ttls },
            Mode::Transaction { options } => OpenAs::Transaction(options),
            Mode::Optimistic { options } => OpenAs::Optimistic(options),
        };
        // SAFETY: what RocksDB keeps by raw pointer from the options (comparators, `Env`,
        // WAL filter, info log) the database keeps alive until it has closed: `DbInner`
        // keeps the comparators, `holds` the `Env`'s owner and the WAL filter, and the
        // options keep their logger by shared_ptr in RocksDB's copy.
        let (raw, handles) = unsafe { open(&options.raw, &c_path, &names, &family_options, kind) }
            .map_err(Error::at_open)?;
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
            options.row_cache,
            holds,
            dir,
        ));
        adopt_recovered(db.inner())?;
        db.inner().check_range_free()?;
        Ok(db)
    }
}

/// Whether a database is at `path`: its CURRENT file, looked for on the options' file system
/// (the disk, or one in memory).
pub(crate) fn has_database(options: &Options, path: &Path) -> Result<bool> {
    let current = path_to_cstring(&path.join("CURRENT"))?;
    options.raw.file_exists(&current)
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
    if options.raw.allow_mmap_reads() != 0 {
        return Err(Error::invalid(
            "allow_mmap_reads",
            "not on a file system in memory: its files hand out slices that a write moves",
        ));
    }
    Ok(())
}

/// A WAL filter's skip or stop lasts only if the open flushes what it replayed and moves
/// the WAL's start past it. With two-phase commit (every pessimistic transaction database)
/// RocksDB keeps the old WAL, and with `avoid_flush_during_recovery` it neither flushes nor
/// drops it: the next open replays it again (what was left out comes back, or sequence
/// numbers run backwards and the database no longer opens).
fn wal_filter_decisions_last(options: &Options, transaction_db: bool) -> Result<()> {
    let on = |name: &str| -> Result<bool> {
        Ok(options
            .get_by_name(name)?
            .is_some_and(|v| v.trim() == "true"))
    };
    let kept_by = if transaction_db {
        Some("a pessimistic transaction database (two-phase commit)")
    } else if on("allow_2pc")? {
        Some("allow_2pc")
    } else if on("avoid_flush_during_recovery")? {
        Some("avoid_flush_during_recovery")
    } else {
        None
    };
    match kept_by {
        Some(by) => Err(Error::invalid(
            "wal_filter",
            format!(
                "not with {by}: RocksDB keeps the WAL past the open, so the next open \
                 replays what the filter left out (or stops at sequence numbers set back)"
            ),
        )),
        None => Ok(()),
    }
}

fn check_ttl_kind(options: &Options, path: &Path, opening_with_ttl: bool) -> Result<()> {
    match stored_as_ttl(options, path)? {
        Some(stored) if stored != opening_with_ttl => Err(Error::TtlMismatch {
            stored_with_ttl: stored,
        }),
        _ => Ok(()),
    }
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
fn adopt_recovered(inner: &DbInner) -> Result<()> {
    // SAFETY: the one call for this database, while it is opened: no user holds it yet.
    let wrappers = unsafe { inner.raw_db().prepared_transactions() };
    if wrappers.is_empty() {
        return Ok(());
    }
    let by_id: Vec<(u32, Arc<CfHandle>)> = inner
        .column_families()
        .values()
        .map(|h| (h.id(), Arc::clone(h)))
        .collect();
    let mut recovered = Vec::with_capacity(wrappers.len());
    let mut failed = None;
    for raw in wrappers {
        let (ids, read) = raw.families_written();
        if let Err(e) = read {
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

//! The other kinds of database: TTL databases (`DBWithTTL`), whose entries expire, and
//! secondary instances, which follow a live primary.
//!
//! A TTL database stores each value with its write time (4 bytes after it); reads through
//! every tier, iterators and multi-gets return the value without them (RocksDB's
//! `DBWithTTLImpl` strips them, and pinrocks' one-call reads go through it). Entries older
//! than their family's TTL are removed by compactions; until then reads may still return
//! them. Opening a TTL database without a TTL (or the reverse) would read those 4 bytes as
//! data, so pinrocks refuses it ([`Error::TtlMismatch`]).

use std::path::Path;
use std::time::Duration;

use crate::db::column_family::ColumnFamily;
use crate::db::database::Db;
use crate::db::family_handle::DEFAULT_COLUMN_FAMILY;
use crate::db::handles::DbKind;
use crate::db::opening::{has_database, Mode};
use crate::options::db_options::Options;
use crate::options::optimistic_db_options::OptimisticTransactionDbOptions;
use crate::options::stored_options::StoredOptions;
use crate::options::transaction_options::TransactionDbOptions;
use crate::options::tuning::seconds;
use crate::raw::cstr::path_to_cstring;
use crate::raw::db_families::list_column_families;
use crate::raw::error::{Error, Result};

/// A TTL in RocksDB's unit: whole seconds in an `i32`, rounded up (a sub-second TTL is
/// one second, not RocksDB's zero, which keeps entries forever).
fn ttl_seconds(ttl: Duration) -> Result<i32> {
    let secs = seconds(ttl);
    i32::try_from(secs)
        .map_err(|_| Error::invalid("ttl", format!("{ttl:?} is more than i32::MAX seconds")))
}

impl Db {
    /// Opens (or creates) a TTL database with every column family it has, each expiring
    /// entries older than `ttl` at compaction (`Duration::ZERO`: never); until a compaction
    /// removes them, reads may still return expired entries.
    ///
    /// A TTL database stores each value with its write time (4 bytes after it); reads
    /// through every tier, iterators and multi-gets return the value without them (the
    /// WAL's records, [`Db::updates_since`], keep them). TTLs count whole seconds, rounded
    /// up. Opening
    /// a TTL database without a TTL (or the reverse) would read those bytes as data, so it
    /// is refused ([`Error::TtlMismatch`]), and so is ingesting SST files (which have none).
    ///
    /// ```
    /// # fn main() -> pinrocks::Result<()> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// use std::time::Duration;
    /// let mut options = pinrocks::Options::new();
    /// options.create_if_missing(true);
    /// let db = pinrocks::Db::open_with_ttl(&options, dir.path(), Duration::from_secs(3600))?;
    /// db.put(b"session", b"token")?;
    /// assert_eq!(db.get(b"session")?.as_deref(), Some(&b"token"[..])); // no timestamp
    /// drop(db);
    /// // Opened without a TTL it would read the timestamps as data: refused.
    /// assert!(matches!(
    ///     pinrocks::Db::open(&options, dir.path()),
    ///     Err(pinrocks::Error::TtlMismatch { stored_with_ttl: true })
    /// ));
    /// # Ok(()) }
    /// ```
    #[doc(alias = "DBWithTTL")]
    pub fn open_with_ttl(options: &Options, path: impl AsRef<Path>, ttl: Duration) -> Result<Db> {
        let path = path.as_ref();
        // A new database has the default family only, which gets `ttl` like every other
        // (left out, `open_with_ttls` would add it with no expiry).
        let names = if has_database(options, path)? {
            Self::list_column_families(options, path)?
        } else {
            vec![DEFAULT_COLUMN_FAMILY.to_owned()]
        };
        Self::open_with_ttls(
            options,
            path,
            names.iter().map(|n| (n.as_str(), options, ttl)),
        )
    }

    /// Opens a TTL database with column families that each have their own options and
    /// TTL. The default family is added with `options` and no expiry when not named.
    pub fn open_with_ttls<'o>(
        options: &'o Options,
        path: impl AsRef<Path>,
        column_families: impl IntoIterator<Item = (&'o str, &'o Options, Duration)>,
    ) -> Result<Db> {
        let path = path.as_ref();
        let mut families = Vec::new();
        let mut ttls = Vec::new();
        for (name, opts, ttl) in column_families {
            families.push((name, opts));
            ttls.push(ttl_seconds(ttl)?);
        }
        if !families.iter().any(|(n, _)| *n == DEFAULT_COLUMN_FAMILY) {
            ttls.insert(0, 0);
        }
        Self::open_impl(options, path, families, Mode::Ttl { ttls })
    }

    /// Opens the database with the options it was written with ([`StoredOptions::load`]):
    /// every stored column family with its stored options.
    ///
    /// [`StoredOptions::load`]: crate::options::StoredOptions::load
    pub fn open_with_stored_options(stored: &StoredOptions, path: impl AsRef<Path>) -> Result<Db> {
        Self::open_with(
            &stored.db,
            path,
            stored.column_families.iter().map(|(n, o)| (n.as_str(), o)),
        )
    }

    /// Opens a secondary instance of the live database at `primary`, with every column
    /// family it has, keeping its own files (info log) in `secondary`. It sees the primary
    /// as it was when opened, until [`try_catch_up_with_primary`](Self::try_catch_up_with_primary);
    /// every change through it is refused ([`Error::ReadOnly`]). RocksDB wants
    /// [`Options::max_open_files`]`(-1)` for a secondary that follows a compacting primary.
    #[doc(alias = "OpenAsSecondary")]
    pub fn open_as_secondary(
        options: &Options,
        primary: impl AsRef<Path>,
        secondary: impl AsRef<Path>,
    ) -> Result<Db> {
        let primary = primary.as_ref();
        let names = Self::list_column_families(options, primary)?;
        Self::open_impl(
            options,
            primary,
            names.iter().map(|n| (n.as_str(), options)),
            Mode::Secondary {
                path: path_to_cstring(secondary.as_ref())?,
            },
        )
    }

    /// Reads what the primary has written since (its new WAL records and files). Only for a
    /// database opened with [`open_as_secondary`](Self::open_as_secondary).
    pub fn try_catch_up_with_primary(&self) -> Result<()> {
        self.inner().raw_db().try_catch_up_with_primary()
    }

    /// Creates a column family of a TTL database whose entries expire after `ttl`
    /// (`create_cf` there makes one that never expires).
    pub fn create_cf_with_ttl(
        &self,
        name: &str,
        options: &Options,
        ttl: Duration,
    ) -> Result<ColumnFamily<'_>> {
        let inner = self.inner();
        // The C API casts the database to `DBWithTTL` unchecked: on any other kind that is
        // undefined behaviour, so it is refused here.
        if inner.kind != DbKind::Ttl {
            return Err(Error::WrongKind {
                operation: "create_cf_with_ttl",
                needs: "TTL",
            });
        }
        options.check()?;
        let ttl = ttl_seconds(ttl)?;
        let handle = inner.create_cf(name, &options.raw, options.traits(), Some(ttl))?;
        Ok(ColumnFamily::new(inner, handle))
    }

    /// Opens the database at `path` with every column family it already has (each with
    /// `options`). Use [`Options::create_if_missing`] to create a new one.
    pub fn open(options: &Options, path: impl AsRef<Path>) -> Result<Db> {
        let path = path.as_ref();
        // Only a directory with no database in it (no CURRENT file) has no column families
        // to list yet; any other failure to list them is the open's failure.
        let names = if has_database(options, path)? {
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
    #[doc(alias = "OpenForReadOnly")]
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

    /// The column family names of the database at `path`, without opening it.
    pub fn list_column_families(options: &Options, path: impl AsRef<Path>) -> Result<Vec<String>> {
        let c_path = path_to_cstring(path.as_ref())?;
        list_column_families(&options.raw, &c_path)
    }

    /// Opens (or creates) a pessimistic transaction database with these column families
    /// (the default one added with `options` if not named). Plain writes through it take
    /// its locks too.
    #[doc(alias = "TransactionDB")]
    pub fn open_transaction_db<'o>(
        options: &'o Options,
        txn_db_options: &TransactionDbOptions,
        path: impl AsRef<Path>,
        column_families: impl IntoIterator<Item = (&'o str, &'o Options)>,
    ) -> Result<Db> {
        Self::open_impl(
            options,
            path.as_ref(),
            column_families,
            Mode::Transaction {
                options: txn_db_options.handle(),
            },
        )
    }

    /// Opens (or creates) an optimistic transaction database with these column families.
    #[doc(alias = "OptimisticTransactionDB")]
    pub fn open_optimistic_transaction_db<'o>(
        options: &'o Options,
        path: impl AsRef<Path>,
        column_families: impl IntoIterator<Item = (&'o str, &'o Options)>,
    ) -> Result<Db> {
        let defaults = OptimisticTransactionDbOptions::new();
        Self::open_optimistic_transaction_db_with(options, &defaults, path, column_families)
    }

    /// As [`open_optimistic_transaction_db`](Self::open_optimistic_transaction_db), with
    /// how commits are checked and the lock buckets they check with (RocksDB's default is
    /// a million of the database's own: 40 MB).
    #[doc(alias = "OptimisticTransactionDBOptions")]
    pub fn open_optimistic_transaction_db_with<'o>(
        options: &'o Options,
        occ_options: &OptimisticTransactionDbOptions,
        path: impl AsRef<Path>,
        column_families: impl IntoIterator<Item = (&'o str, &'o Options)>,
    ) -> Result<Db> {
        let own = occ_options.own_buckets()?;
        Self::open_impl(
            options,
            path.as_ref(),
            column_families,
            Mode::Optimistic {
                options: own.as_ref().unwrap_or(occ_options).handle(),
            },
        )
    }
}

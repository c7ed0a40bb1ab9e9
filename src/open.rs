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

use crate::column_family::ColumnFamily;
use crate::db::{path_to_cstring, Db, Mode};
use crate::error::{ErrPtr, Error, Result};
use crate::ffi;
use crate::handles::DbKind;
use crate::options::Options;
use crate::stored_options::StoredOptions;

/// A TTL in RocksDB's unit: whole seconds in an `i32`, rounded up (a sub-second TTL is
/// one second, not RocksDB's zero, which keeps entries forever).
fn ttl_seconds(ttl: Duration) -> Result<i32> {
    let secs = ttl.as_secs() + u64::from(ttl.subsec_nanos() > 0);
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
    pub fn open_with_ttl(options: &Options, path: impl AsRef<Path>, ttl: Duration) -> Result<Db> {
        let path = path.as_ref();
        // A new database has the default family only, which gets `ttl` like every other
        // (left out, `open_with_ttls` would add it with no expiry).
        let names = if path.join("CURRENT").exists() {
            Self::list_column_families(options, path)?
        } else {
            vec![crate::DEFAULT_COLUMN_FAMILY.to_owned()]
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
        if !families
            .iter()
            .any(|(n, _)| *n == crate::DEFAULT_COLUMN_FAMILY)
        {
            ttls.insert(0, 0);
        }
        Self::open_impl(options, path, families, Mode::Ttl { ttls })
    }

    /// Opens the database with the options it was written with ([`StoredOptions::load`]):
    /// every stored column family with its stored options.
    ///
    /// [`StoredOptions::load`]: crate::StoredOptions::load
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
        let mut err = ErrPtr::new();
        let mut code = 0;
        // SAFETY: live database; RocksDB refuses (NotSupported) a database that is not a
        // secondary instance; guarded (it replays the primary's new WAL records).
        unsafe {
            ffi::pinrocks_guarded_try_catch_up_with_primary(
                &mut code,
                self.inner().raw(),
                err.as_out(),
            )
        };
        err.check_with_code(Some(code))
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
        let handle = inner.create_cf(name, options.raw(), options.traits(), Some(ttl))?;
        Ok(ColumnFamily::new(inner, handle))
    }
}

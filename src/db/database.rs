//! Opening, closing and administering a database.

use std::path::Path;
use std::sync::Arc;

use crate::db::column_family::ColumnFamily;
use crate::db::handles::DbInner;
use crate::db::snapshot::Snapshot;
use crate::options::db_options::Options;
use crate::options::statistics::Statistics;
use crate::raw::error::{Error, Result};

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

impl Db {
    /// The database that owns `inner` (what every open ends with).
    pub(crate) fn from_inner(inner: Arc<DbInner>) -> Db {
        Db { inner }
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
            .ok_or_else(|| Error::ColumnFamilyNotFound {
                name: name.to_owned(),
            })?;
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
    #[doc(alias = "CreateColumnFamily")]
    pub fn create_cf(&self, name: &str, options: &Options) -> Result<ColumnFamily<'_>> {
        options.check()?;
        let handle = self
            .inner
            .create_cf(name, &options.raw, options.traits(), None)?;
        Ok(ColumnFamily::new(&self.inner, handle))
    }

    /// Creates several column families in one call, each with its options, and gives them
    /// in the same order. RocksDB writes the OPTIONS file once for all (creating many
    /// families one by one rewrites it each time); a TTL or pessimistic transaction
    /// database creates them one by one. A name named twice, or one that exists, is
    /// refused before anything is created. A later failure (RocksDB refusing a family's
    /// options) stops there: the families created before it stay, reachable with
    /// [`cf`](Self::cf), and the error is returned.
    ///
    /// ```
    /// # fn main() -> pinrocks::Result<()> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let mut options = pinrocks::Options::new();
    /// # options.create_if_missing(true);
    /// let db = pinrocks::Db::open(&options, dir.path())?;
    /// let plain = pinrocks::Options::new();
    /// let families = db.create_cfs(&[("users", &plain), ("orders", &plain)])?;
    /// let (users, orders) = (&families[0], &families[1]);
    /// users.writer().put(b"u1", b"ann")?;
    /// assert_eq!(users.reader().get(b"u1")?.as_deref(), Some(&b"ann"[..]));
    /// assert_eq!(orders.reader().get(b"u1")?, None);
    /// assert_eq!(db.cf_names(), ["default", "orders", "users"]);
    /// # Ok(()) }
    /// ```
    #[doc(alias = "CreateColumnFamilies")]
    pub fn create_cfs(&self, families: &[(&str, &Options)]) -> Result<Vec<ColumnFamily<'_>>> {
        for (_, options) in families {
            options.check()?;
        }
        let raw: Vec<_> = families
            .iter()
            .map(|(name, options)| (*name, &options.raw, options.traits()))
            .collect();
        Ok(self
            .inner
            .create_cfs(&raw)?
            .into_iter()
            .map(|handle| ColumnFamily::new(&self.inner, handle))
            .collect())
    }

    /// Drops a column family and its data. What still holds it (a `ColumnFamily`, a
    /// `Table`, a pinned value, an iterator) goes on reading the dropped family's data until
    /// it is dropped; a write naming it fails with [`Error::ColumnFamilyDropped`].
    ///
    /// From the call on, no write may name it; then it waits for the writes to it already
    /// in flight (holding no lock: writes to other families go on). A write waits for as
    /// long as RocksDB makes it (a row lock up to its lock timeout, a stall): so do not
    /// drop a family from the thread whose open transaction holds a row lock another
    /// writer of that family waits for, with no lock timeout. On a pessimistic transaction
    /// database it also waits for the transaction ends (commits, rollbacks, drops) already
    /// under way, so that none meets the family gone (RocksDB would keep the rows it
    /// locked in other families). Refused
    /// ([`Error::ColumnFamilyInUse`]) while a prepared transaction writes to it. If RocksDB
    /// reports a failure, the family may have been dropped or not: it is treated as
    /// dropped until the database is reopened. The default column family cannot be dropped
    /// ([`Error::DefaultColumnFamily`]).
    #[doc(alias = "DropColumnFamily")]
    pub fn drop_cf(&self, name: &str) -> Result<()> {
        self.inner.drop_cf(name)
    }

    /// Closes the database now and reports what RocksDB's `DB::Close` says (an error
    /// flushing, syncing or closing the WAL or the MANIFEST on the way out), which dropping
    /// a `Db` cannot. The files and the lock are released when it returns, error or not.
    ///
    /// If values read from the database still hold it (an owned [`Bytes`](bytes::Bytes),
    /// an owned [`Entity`](crate::read::Entity), a [`Snapshot`], an
    /// [`OwnedCursor`](crate::OwnedCursor)), it cannot close yet: `Err(`[`Error::DatabaseInUse`]`)`, and it
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
        crate::raw::reentry::refuse_inside("close")?;
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

    /// A RocksDB property of the default column family, such as `rocksdb.stats`.
    #[doc(alias = "GetProperty")]
    pub fn property(&self, name: &str) -> Result<Option<String>> {
        self.default_cf().property(name)
    }

    /// An integer property of the default column family, such as
    /// `rocksdb.estimate-num-keys`.
    #[doc(alias = "GetIntProperty")]
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

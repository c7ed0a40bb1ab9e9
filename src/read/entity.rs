//! Wide-column entities read in place, in three tiers: [`Reader::get_entity`]'s closure, the
//! [`PinnedEntity`] guard and the owned [`Entity`], each giving the [`Columns`].

use std::marker::PhantomData;
use std::sync::Arc;

use crate::db::handles::{CfHandle, DbInner, DbKind};
use crate::raw::c_types::pinrocks_column;
use crate::raw::entity::EntityHandle;
use crate::raw::error::{Error, Result};
use crate::read::columns::Columns;
use crate::read::reader::Reader;
use crate::read::source::ReadSource;

/// Why a TTL database takes no entity read or write: RocksDB's TTL layer neither stamps
/// entities with their write time nor strips it from them.
pub(crate) const TTL_REFUSES_ENTITIES: &str =
    "a TTL database (RocksDB's TTL layer does not handle entities)";

impl<'a, S: ReadSource> Reader<'a, S> {
    /// **Pinned entity.** Calls `f` with the columns of `key` where RocksDB holds them: a
    /// wide-column entity's columns, or a plain value as its one default column. Returns
    /// `f`'s result, or `None` if the key is absent. One native call and no allocation of
    /// ours: the columns are RocksDB's own array, borrowed (RocksDB allocates a few times per
    /// read: the array, the entity's backing; through a transaction or an indexed batch,
    /// a batch iterator). A panic in `f` is caught, the pin released, then the panic goes on.
    ///
    /// ```
    /// # fn main() -> pinrocks::Result<()> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let mut opts = pinrocks::Options::new();
    /// # opts.create_if_missing(true);
    /// # let db = pinrocks::Db::open(&opts, dir.path())?;
    /// db.writer().put_entity(b"user:1", &[("name", "Ada"), ("born", "1815")])?;
    /// let born = db.reader().get_entity(b"user:1", |columns| columns.get(b"born").map(<[u8]>::len))?;
    /// assert_eq!(born, Some(Some(4)));
    /// # Ok(()) }
    /// ```
    ///
    /// The columns cannot leave the closure: the pin would be gone.
    ///
    /// ```compile_fail
    /// # fn main() -> pinrocks::Result<()> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let db = pinrocks::Db::open(&pinrocks::Options::new(), dir.path())?;
    /// let escaped = db.reader().get_entity(b"k", |columns| columns.get(b"name"))?;
    /// # Ok(()) }
    /// ```
    ///
    /// Refused on a TTL database ([`Error::InvalidInput`]): RocksDB's TTL layer does not
    /// strip its timestamps from entity reads.
    #[doc(alias = "GetEntity")]
    #[doc(alias = "PinnableWideColumns")]
    pub fn get_entity<R>(&self, key: &[u8], f: impl FnOnce(Columns<'_>) -> R) -> Result<Option<R>> {
        self.check_entity_read("get_entity")?;
        // SAFETY: the handles and the source's object are live for the reader's lifetime
        // (borrowed).
        unsafe {
            self.native()
                .get_entity(key, |raw: &[pinrocks_column]| f(Columns::new(raw)))
        }
    }

    /// **Entity guard.** The columns of `key`, pinned until the returned guard drops (one
    /// heap-allocated handle per read); it borrows the database, as
    /// [`pin`](Self::pin)'s guard does. `None` if the key is absent.
    ///
    /// ```
    /// # fn main() -> pinrocks::Result<()> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let mut opts = pinrocks::Options::new();
    /// # opts.create_if_missing(true);
    /// # let db = pinrocks::Db::open(&opts, dir.path())?;
    /// db.writer().put_entity(b"user:1", &[("name", "Ada"), ("born", "1815")])?;
    /// let user = db.reader().pin_entity(b"user:1")?.expect("present");
    /// assert_eq!(user.columns().get(b"name"), Some(&b"Ada"[..]));
    /// # Ok(()) }
    /// ```
    ///
    /// The guard cannot outlive the database:
    ///
    /// ```compile_fail,E0597
    /// # fn main() -> pinrocks::Result<()> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// let guard = {
    ///     let db = pinrocks::Db::open(&pinrocks::Options::new(), dir.path())?;
    ///     db.reader().pin_entity(b"k")?
    /// }; // error: `db` does not live long enough
    /// # Ok(()) }
    /// ```
    ///
    /// Nor can its columns outlive the guard:
    ///
    /// ```compile_fail,E0597
    /// # fn main() -> pinrocks::Result<()> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let db = pinrocks::Db::open(&pinrocks::Options::new(), dir.path())?;
    /// let name = {
    ///     let guard = db.reader().pin_entity(b"k")?.unwrap();
    ///     guard.columns().get(b"name")
    /// }; // error: `guard` does not live long enough
    /// # Ok(()) }
    /// ```
    #[doc(alias = "GetEntity")]
    pub fn pin_entity(&self, key: &[u8]) -> Result<Option<PinnedEntity<'a>>> {
        Ok(self
            .entity_handle("pin_entity", key)?
            .map(|handle| PinnedEntity {
                handle,
                _db: PhantomData,
            }))
    }

    /// **Owned entity.** The columns of `key` in an [`Entity`] that owns the pin and keeps
    /// alive what it lives in (the column family, the database), so it outlives the reader,
    /// the `Db` handle and a dropped family, and crosses threads. No column is copied.
    /// `None` if the key is absent.
    ///
    /// ```
    /// # fn main() -> pinrocks::Result<()> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let mut opts = pinrocks::Options::new();
    /// # opts.create_if_missing(true);
    /// let db = pinrocks::Db::open(&opts, dir.path())?;
    /// db.writer().put_entity(b"user:1", &[("name", "Ada")])?;
    /// let user = db.reader().get_entity_owned(b"user:1")?.expect("present");
    /// drop(db);
    /// let name = std::thread::spawn(move || user.columns().get(b"name").map(<[u8]>::to_vec));
    /// assert_eq!(name.join().unwrap(), Some(b"Ada".to_vec()));
    /// # Ok(()) }
    /// ```
    pub fn get_entity_owned(&self, key: &[u8]) -> Result<Option<Entity>> {
        Ok(self
            .entity_handle("get_entity_owned", key)?
            .map(|handle| Entity {
                handle,
                _cf: Arc::clone(self.cf),
                _db: Arc::clone(self.db),
            }))
    }

    /// **Batched entity reads.** One `MultiGetEntity` for all `keys` (of this reader's
    /// column family), then `f(index, columns)` for each key in order while every entity of
    /// the batch is pinned: `None` for an absent key. No allocation of ours for up to 32
    /// keys (but for a batch-only read of merge operands alone, which takes a batch
    /// iterator per such key); key by key (as for values) with a cache-only read tier,
    /// through a transaction for update (RocksDB's batched read neither locks nor tracks)
    /// and from an indexed batch alone. The error of the first key that failed is the
    /// call's, and then nothing is called back.
    /// A panic in `f` stops the batch, releases every pin, and continues in the caller.
    ///
    /// ```
    /// # fn main() -> pinrocks::Result<()> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let mut opts = pinrocks::Options::new();
    /// # opts.create_if_missing(true);
    /// # let db = pinrocks::Db::open(&opts, dir.path())?;
    /// db.writer().put_entity(b"a", &[("n", "1")])?;
    /// db.put(b"c", b"plain")?;
    /// let mut counts = [None; 3];
    /// db.reader().multi_get_entity(&[b"a", b"b", b"c"], |i, c| counts[i] = c.map(|c| c.len()))?;
    /// assert_eq!(counts, [Some(1), None, Some(1)]);
    /// # Ok(()) }
    /// ```
    ///
    /// ```compile_fail,E0521
    /// # fn main() -> pinrocks::Result<()> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let db = pinrocks::Db::open(&pinrocks::Options::new(), dir.path())?;
    /// let mut kept = Vec::new();
    /// db.reader().multi_get_entity(&[b"a", b"b"], |_, c| kept.extend(c))?;
    /// # Ok(()) }
    /// ```
    #[doc(alias = "MultiGetEntity")]
    pub fn multi_get_entity<K: AsRef<[u8]>>(
        &self,
        keys: &[K],
        mut f: impl FnMut(usize, Option<Columns<'_>>),
    ) -> Result<()> {
        self.check_entity_read("multi_get_entity")?;
        // SAFETY: the handles and the source's object are live for the reader's lifetime
        // (borrowed).
        unsafe {
            self.native()
                .multi_get_entity(keys, |i, raw: Option<&[pinrocks_column]>| {
                    f(i, raw.map(Columns::new))
                })
        }
    }

    fn entity_handle(&self, operation: &'static str, key: &[u8]) -> Result<Option<EntityHandle>> {
        self.check_entity_read(operation)?;
        // SAFETY: the handles and the source's object are live for the reader's lifetime
        // (borrowed).
        unsafe { self.native().entity_handle(key) }
    }

    /// `Err` where an entity read must not go: inside a callback that holds a read, or to
    /// a TTL database, whose TTL layer does not strip its timestamps from entities.
    fn check_entity_read(&self, operation: &'static str) -> Result<()> {
        self.check_read(operation)?;
        if self.db.kind == DbKind::Ttl {
            return Err(Error::invalid(operation, TTL_REFUSES_ENTITIES));
        }
        Ok(())
    }
}

/// An entity's columns pinned where RocksDB holds them, released when the guard drops
/// ([`Reader::pin_entity`]). Declared before the database, it would drop after it: refused.
///
/// ```compile_fail,E0597
/// # fn main() -> pinrocks::Result<()> {
/// # let dir = tempfile::tempdir().unwrap();
/// let guard;
/// let db = pinrocks::Db::open(&pinrocks::Options::new(), dir.path())?;
/// guard = db.reader().pin_entity(b"k")?;
/// # Ok(()) }
/// ```
pub struct PinnedEntity<'db> {
    handle: EntityHandle,
    _db: PhantomData<&'db DbInner>,
}

impl PinnedEntity<'_> {
    /// The columns, borrowed from the guard.
    pub fn columns(&self) -> Columns<'_> {
        Columns::new(self.handle.columns())
    }
}

/// Tells the borrow checker that a guard must not outlive what it borrows (the database
/// and column family whose cache holds the pinned block), not even by `let g; let db = ..;`.
impl Drop for PinnedEntity<'_> {
    fn drop(&mut self) {}
}

impl std::fmt::Debug for PinnedEntity<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("PinnedEntity")
            .field(&self.columns())
            .finish()
    }
}

/// An entity's columns in an owned value whose owner is the pin itself
/// ([`Reader::get_entity_owned`]): no column copied, `Send + Sync`, and it keeps alive the
/// column family and the database the pinned bytes live in. Field order is drop order: the
/// pin, then the column family, then the database.
pub struct Entity {
    handle: EntityHandle,
    _cf: Arc<CfHandle>,
    _db: Arc<DbInner>,
}

impl Entity {
    /// The columns, borrowed from the entity.
    pub fn columns(&self) -> Columns<'_> {
        Columns::new(self.handle.columns())
    }
}

impl std::fmt::Debug for Entity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Entity").field(&self.columns()).finish()
    }
}

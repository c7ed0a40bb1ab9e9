//! `EntityTable<K, E>`: a column family whose values are wide-column entities, each a Rust
//! type whose fields are named columns with codecs of their own ([`EntityCodec`]), read in
//! place from the pinned columns (through any source: `get_with`) and written through any
//! target (`put_with`); scanned and deleted in the database.

use std::marker::PhantomData;

use crate::codec::{Codec, DecodeError, EncodeError};
use crate::db::column_family::ColumnFamily;
use crate::raw::error::{Error, Result};
use crate::read::columns::Columns;
use crate::read::entity::TTL_REFUSES_ENTITIES;
use crate::read::reader::Reader;
use crate::read::source::ReadSource;
use crate::typed::encoding::{decode, encode};
use crate::write::target::WriteTarget;
use crate::write::writer::Writer;

/// An item's columns as [`EntityCodec::encode`] gives them: each name and encoded value.
pub type EncodedColumns = Vec<(&'static [u8], Vec<u8>)>;

/// How a Rust type is stored as a wide-column entity: each field a named column, encoded by
/// a [`Codec`](crate::codec::Codec) of its own. Written by hand in a few lines, with
/// [`Columns::decode`] to read each field in place:
///
/// ```
/// use pinrocks::codec::{BigEndian, Codec, DecodeError, EncodeError, Utf8};
/// use pinrocks::read::Columns;
/// use pinrocks::typed::{EncodedColumns, EntityCodec};
///
/// struct User { name: String, born: u16 }
/// /// A user as read: the name borrowed from the pinned column.
/// struct UserRef<'a> { name: &'a str, born: u16 }
///
/// enum Users {}
/// impl EntityCodec for Users {
///     type Item = User;
///     type Decoded<'a> = UserRef<'a>;
///     const NAME: &'static str = "Users";
///
///     fn encode(user: &User) -> Result<EncodedColumns, EncodeError> {
///         Ok(vec![
///             (b"name", user.name.as_bytes().to_vec()),
///             (b"born", BigEndian::<u16>::with_encoded(&user.born, <[u8]>::to_vec)?),
///         ])
///     }
///
///     fn decode<'a>(columns: Columns<'a>) -> Result<UserRef<'a>, DecodeError> {
///         Ok(UserRef {
///             name: columns.decode::<Utf8>(b"name")?,
///             born: columns.decode::<BigEndian<u16>>(b"born")?,
///         })
///     }
/// }
/// # fn main() -> pinrocks::Result<()> {
/// # let dir = tempfile::tempdir().unwrap();
/// # let mut opts = pinrocks::Options::new();
/// # opts.create_if_missing(true);
/// # let db = pinrocks::Db::open(&opts, dir.path())?;
/// let users: pinrocks::typed::EntityTable<BigEndian<u32>, Users> =
///     pinrocks::typed::EntityTable::new(db.create_cf("users", &pinrocks::Options::new())?);
/// users.put(&1, &User { name: "Ada".into(), born: 1815 })?;
/// let born = users.get(&1, |user| (user.name.len(), user.born))?;
/// assert_eq!(born, Some((3, 1815)));
/// # Ok(()) }
/// ```
pub trait EntityCodec {
    /// What is written.
    type Item: ?Sized;
    /// What is read, borrowing from the pinned columns where it can.
    type Decoded<'a>;
    /// The name in decode errors.
    const NAME: &'static str;

    /// The item's columns: names and encoded values, in any order (a name given twice is
    /// refused by the write).
    fn encode(item: &Self::Item) -> Result<EncodedColumns, EncodeError>;

    /// Reads an item from an entity's columns, borrowed from the pin.
    fn decode<'a>(columns: Columns<'a>) -> Result<Self::Decoded<'a>, DecodeError>;
}

/// A typed view of one column family of entities: keys stored with codec `K`, each value a
/// wide-column entity read and written by [`EntityCodec`] `E`. Reads decode straight from
/// the pinned columns, as [`Table`](crate::Table) decodes from a pinned value; the decoded
/// item cannot leave the closure:
///
/// ```compile_fail,E0521
/// # use pinrocks::codec::{Raw, Utf8, DecodeError, EncodeError};
/// # use pinrocks::read::Columns;
/// # use pinrocks::typed::EntityCodec;
/// # enum Named {}
/// # impl EntityCodec for Named {
/// #     type Item = str;
/// #     type Decoded<'a> = &'a str;
/// #     const NAME: &'static str = "Named";
/// #     fn encode(name: &str) -> Result<pinrocks::typed::EncodedColumns, EncodeError> {
/// #         Ok(vec![(b"name", name.as_bytes().to_vec())])
/// #     }
/// #     fn decode<'a>(c: Columns<'a>) -> Result<&'a str, DecodeError> { c.decode::<Utf8>(b"name") }
/// # }
/// # let dir = tempfile::tempdir().unwrap();
/// # let mut opts = pinrocks::Options::new();
/// # opts.create_if_missing(true);
/// # let db = pinrocks::Db::open(&opts, dir.path()).unwrap();
/// let names: pinrocks::typed::EntityTable<Raw, Named> = pinrocks::typed::EntityTable::new(db.default_cf());
/// let mut kept: &str = "";
/// names.get(b"k", |name| kept = name).unwrap();
/// ```
pub struct EntityTable<'db, K, E> {
    cf: ColumnFamily<'db>,
    _codecs: PhantomData<fn() -> (K, E)>,
}

impl<'db, K: Codec, E: EntityCodec> EntityTable<'db, K, E> {
    /// A typed view of `cf`. Nothing is checked: the codecs say how to read what is there.
    pub fn new(cf: ColumnFamily<'db>) -> Self {
        EntityTable {
            cf,
            _codecs: PhantomData,
        }
    }

    /// The column family behind the table.
    pub fn column_family(&self) -> &ColumnFamily<'db> {
        &self.cf
    }

    /// Stores `item` at `key` in the database, one column per field.
    pub fn put(&self, key: &K::Item<'_>, item: &E::Item) -> Result<()> {
        self.put_with(self.cf.writer(), key, item)
    }

    /// Stores `item` at `key` through `writer`'s target (a transaction, a batch, an indexed
    /// batch, the database), in the table's family.
    ///
    /// # Panics
    /// If `writer` writes to another database than the table's (a batch's writer takes any
    /// database's family: writing the batch elsewhere is then
    /// [`Error::ForeignColumnFamily`]).
    pub fn put_with<'a, T: WriteTarget>(
        &'a self,
        writer: Writer<'a, T>,
        key: &K::Item<'_>,
        item: &E::Item,
    ) -> Result<()> {
        let columns = E::encode(item).map_err(|source| Error::Encode {
            codec: E::NAME,
            source,
        })?;
        let mut writer = writer.cf(&self.cf);
        encode::<K, _>(key, |k| writer.put_entity(k, &columns))?
    }

    /// Removes `key` from the database.
    pub fn delete(&self, key: &K::Item<'_>) -> Result<()> {
        let mut writer = self.cf.writer();
        encode::<K, _>(key, |k| writer.delete(k))?
    }

    /// Calls `f` with the item at `key` in the database, decoded from the pinned columns.
    /// A stored entity `E` cannot decode is [`Error::Decode`] (a missing column:
    /// [`DecodeError::MissingColumn`]).
    pub fn get<R>(
        &self,
        key: &K::Item<'_>,
        f: impl for<'v> FnOnce(E::Decoded<'v>) -> R,
    ) -> Result<Option<R>> {
        self.get_with(self.cf.reader(), key, f)
    }

    /// As [`get`](Self::get), through `reader`'s source (a transaction, an indexed batch,
    /// the database) with its options, in the table's family.
    ///
    /// # Panics
    /// If `reader` reads another database than the table's.
    pub fn get_with<'a, S: ReadSource, R>(
        &'a self,
        reader: Reader<'a, S>,
        key: &K::Item<'_>,
        f: impl for<'v> FnOnce(E::Decoded<'v>) -> R,
    ) -> Result<Option<R>> {
        let reader = reader.cf(&self.cf);
        encode::<K, _>(key, |k| {
            reader
                .get_entity(k, |columns| decoded::<E>(k, columns).map(f))?
                .transpose()
        })?
    }

    /// A std [`Iterator`] over `f(key, item)` for every entry of the table in the database,
    /// in key order, both decoded in place; the first decode failure (or the scan's error)
    /// is the last item.
    pub fn scan<T, F>(&self, mut f: F) -> impl Iterator<Item = Result<T>> + use<'_, 'db, K, E, T, F>
    where
        F: for<'e> FnMut(K::Decoded<'e>, E::Decoded<'e>) -> T,
    {
        let mut cursor = self.cf.reader().iter();
        cursor.seek_to_first();
        let mut done = false;
        std::iter::from_fn(move || {
            if done {
                return None;
            }
            let next = match (cursor.key(), cursor.columns()) {
                (Some(key), Some(columns)) => decode::<K>(key, key)
                    .and_then(|k| decoded::<E>(key, columns).map(|item| f(k, item))),
                // An entry without columns: a TTL database's, which refuses entities.
                (Some(_), None) => Err(Error::invalid("EntityTable::scan", TTL_REFUSES_ENTITIES)),
                (None, _) => {
                    done = true;
                    return cursor.status().err().map(Err);
                }
            };
            done = next.is_err();
            cursor.next();
            Some(next)
        })
    }
}

/// The item of `key` decoded from its columns, a failure naming the codec and the key.
fn decoded<'a, E: EntityCodec>(key: &[u8], columns: Columns<'a>) -> Result<E::Decoded<'a>> {
    E::decode(columns).map_err(|source| Error::Decode {
        codec: E::NAME,
        key: key.to_vec(),
        source,
    })
}

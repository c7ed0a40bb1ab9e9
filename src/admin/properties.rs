//! RocksDB's properties read by typed name ([`Property`], the names in
//! [`properties`](crate::properties)): integers, text and maps, per family or summed over
//! every family; and the memtables' share of a key range.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::ffi::CString;
use std::marker::PhantomData;

use crate::db::column_family::ColumnFamily;
use crate::db::database::Db;
use crate::raw::db_state;
use crate::raw::error::{Error, Result};
use crate::raw::reentry;

/// A map property's names and values (`rocksdb.cfstats` as a map, say), in name order.
pub type PropertyMap = BTreeMap<String, String>;

/// The name of a RocksDB property whose value reads as a `T`: `u64` for an integer
/// property, `String` for text, [`PropertyMap`] for a map. The names RocksDB knows are in
/// [`properties`](crate::properties); [`Property::int`], [`Property::text`] and
/// [`Property::map`] name others (a property RocksDB adds later).
///
/// ```
/// use pinrocks::{properties, Db, Options};
/// # fn main() -> pinrocks::Result<()> {
/// # let dir = tempfile::tempdir().unwrap();
/// # let db = Db::open(Options::new().create_if_missing(true), dir.path())?;
/// db.put(b"k", b"v")?;
/// assert_eq!(db.get_property(&properties::NUM_ENTRIES_ACTIVE_MEM_TABLE)?, Some(1));
/// let stats = db.get_property(&properties::CF_STATS_MAP)?.expect("a map property");
/// assert_eq!(stats["compaction.Sum.NumFiles"], "0.000000");
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Property<T> {
    name: Cow<'static, str>,
    value: PhantomData<fn() -> T>,
}

impl<T> Property<T> {
    pub(crate) const fn named(name: &'static str) -> Self {
        Property {
            name: Cow::Borrowed(name),
            value: PhantomData,
        }
    }

    pub(crate) fn owned(name: String) -> Self {
        Property {
            name: Cow::Owned(name),
            value: PhantomData,
        }
    }

    /// RocksDB's name for it.
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl Property<u64> {
    /// An integer property by name.
    pub fn int(name: impl Into<String>) -> Self {
        Property::owned(name.into())
    }
}

impl Property<String> {
    /// A text property by name.
    pub fn text(name: impl Into<String>) -> Self {
        Property::owned(name.into())
    }
}

impl Property<PropertyMap> {
    /// A map property by name.
    pub fn map(name: impl Into<String>) -> Self {
        Property::owned(name.into())
    }
}

/// A type a property's value reads as: `u64`, `String`, [`PropertyMap`]. Sealed.
pub trait PropertyValue: Sized + sealed::Sealed {
    #[doc(hidden)]
    fn read(cf: &ColumnFamily<'_>, name: &str) -> Result<Option<Self>>;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for u64 {}
    impl Sealed for String {}
    impl Sealed for super::PropertyMap {}
}

impl PropertyValue for u64 {
    fn read(cf: &ColumnFamily<'_>, name: &str) -> Result<Option<Self>> {
        cf.property_int(name)
    }
}

impl PropertyValue for String {
    fn read(cf: &ColumnFamily<'_>, name: &str) -> Result<Option<Self>> {
        cf.property(name)
    }
}

impl PropertyValue for PropertyMap {
    fn read(cf: &ColumnFamily<'_>, name: &str) -> Result<Option<Self>> {
        cf.property_map(name)
    }
}

impl ColumnFamily<'_> {
    /// A property of this column family, typed; `None` if RocksDB has no value of that
    /// type for it.
    #[doc(alias = "GetProperty")]
    #[doc(alias = "GetIntProperty")]
    #[doc(alias = "GetMapProperty")]
    pub fn get_property<T: PropertyValue>(&self, property: &Property<T>) -> Result<Option<T>> {
        T::read(self, property.name())
    }

    /// A map property of this column family by name (for example `rocksdb.cfstats`), or
    /// `None` if RocksDB has no map for it.
    #[doc(alias = "GetMapProperty")]
    pub fn property_map(&self, name: &str) -> Result<Option<PropertyMap>> {
        reentry::refuse_under_mutex("property_map")?;
        let name = CString::new(name).map_err(|e| Error::invalid("property name", e))?;
        // SAFETY: a live database and a handle of it, borrowed for the call.
        unsafe { db_state::property_map(self.db.raw(), self.handle().raw(), &name) }
    }

    /// The memtables' share of `[start, end)`: approximately how many entries and bytes
    /// of the range are not yet flushed.
    #[doc(alias = "GetApproximateMemTableStats")]
    pub fn approximate_memtable_stats(
        &self,
        start: impl AsRef<[u8]>,
        end: impl AsRef<[u8]>,
    ) -> Result<MemtableStats> {
        reentry::refuse_under_mutex("approximate_memtable_stats")?;
        let (start, end) = (start.as_ref(), end.as_ref());
        // SAFETY: a live database and a handle of it, borrowed for the call.
        let (entries, bytes) = unsafe {
            db_state::approximate_memtable_stats(self.db.raw(), self.handle().raw(), start, end)
        }?;
        Ok(MemtableStats { entries, bytes })
    }
}

/// How much of a key range is in the memtables ([`ColumnFamily::approximate_memtable_stats`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct MemtableStats {
    /// Approximate entries.
    pub entries: u64,
    /// Approximate bytes.
    pub bytes: u64,
}

impl Db {
    /// A property of the default column family, typed (see [`Property`]).
    #[doc(alias = "GetProperty")]
    pub fn get_property<T: PropertyValue>(&self, property: &Property<T>) -> Result<Option<T>> {
        self.default_cf().get_property(property)
    }

    /// An integer property summed over every column family (RocksDB's
    /// `GetAggregatedIntProperty`), such as the memory of all memtables; `None` if
    /// RocksDB has no integer for it.
    #[doc(alias = "GetAggregatedIntProperty")]
    pub fn aggregated_property(&self, property: &Property<u64>) -> Result<Option<u64>> {
        reentry::refuse_under_mutex("aggregated_property")?;
        let name = CString::new(property.name()).map_err(|e| Error::invalid("property name", e))?;
        // SAFETY: the open database, for the call.
        unsafe { db_state::property_int_aggregated(self.inner().raw(), &name) }
    }
}

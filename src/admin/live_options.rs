//! Changing options on a live database (RocksDB's `SetOptions` and `SetDBOptions`), and how
//! much memory it uses.

use crate::db::column_family::ColumnFamily;
use crate::db::database::Db;
use crate::options::blob_files::{is_ratio, NOT_A_RATIO, RATIOS};
use crate::raw::cstr::pairs;
use crate::raw::error::{ErrPtr, Error, ErrorKind, Result};
use crate::raw::ffi;

/// RocksDB's refusal of a name or value, with what was asked. `code` is the status code
/// the guarded call reported (0 if none).
fn rejected(options: &[(&str, &str)], err: ErrPtr, code: i32) -> Result<()> {
    // RocksDB refuses a name or value with InvalidArgument (or NotSupported); another
    // failure (writing the OPTIONS file) comes after the options were applied, and a
    // caught C++ exception (std::bad_alloc: MemoryLimit) is no refusal either.
    err.check_with_code(Some(code)).map_err(|e| match e {
        Error::RocksDb {
            kind: kind @ (ErrorKind::InvalidArgument | ErrorKind::NotSupported),
            message,
        } => Error::OptionRejected {
            options: options
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            kind,
            message,
        },
        other => other,
    })
}

/// The garbage-collection ratios RocksDB would take unchecked (it parses them with
/// `std::stod` and never refuses a NaN): only a fraction in `[0, 1]`, as Rust reads it.
fn refuse_unusable_ratio(options: &[(&str, &str)]) -> Result<()> {
    match options
        .iter()
        .find(|(name, value)| RATIOS.contains(name) && !value.parse::<f64>().is_ok_and(is_ratio))
    {
        Some(&(name, value)) => Err(Error::OptionRejected {
            options: vec![(name.to_owned(), value.to_owned())],
            kind: ErrorKind::InvalidArgument,
            message: format!("{name}={value}: {NOT_A_RATIO}"),
        }),
        None => Ok(()),
    }
}

impl ColumnFamily<'_> {
    /// Changes column-family options of this live family (RocksDB's `SetOptions`), by
    /// RocksDB's names: `[("write_buffer_size", "1048576"), ("disable_auto_compactions",
    /// "true")]`. All are applied or none; a name or value RocksDB does not take is
    /// [`Error::OptionRejected`].
    #[doc(alias = "SetOptions")]
    pub fn set_options(&self, options: &[(&str, &str)]) -> Result<()> {
        refuse_unusable_ratio(options)?;
        let pairs = pairs(options)?;
        let count =
            i32::try_from(options.len()).map_err(|_| Error::invalid("options", "too many"))?;
        let mut err = ErrPtr::new();
        let mut code = 0;
        self.db.with_live_family("set_options", self.handle(), || {
            // SAFETY: live database and handle; the strings are read (copied) during the
            // call. No C++ exception leaves the call.
            unsafe {
                ffi::pinrocks_set_options_cf(
                    self.db.raw(),
                    self.handle().raw(),
                    count,
                    pairs.keys.as_ptr(),
                    pairs.values.as_ptr(),
                    &mut code,
                    err.as_out(),
                )
            }
        })?;
        rejected(options, err, code)
    }
}

/// Approximate memory use of a database.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MemoryUsage {
    /// Every memtable of every column family, flushed-but-kept ones included.
    pub mem_tables: u64,
    /// Memtables not flushed yet.
    pub mem_tables_unflushed: u64,
    /// Table readers' own memory (indexes and filters not in the block cache).
    pub table_readers: u64,
    /// The default column family's block cache: its usage and the part held by pins.
    pub block_cache: u64,
    /// Of which pinned (by reads in progress, iterators, `Bytes`, pinned index blocks).
    pub block_cache_pinned: u64,
}

impl Db {
    /// Changes column-family options of the default family; see
    /// [`ColumnFamily::set_options`].
    #[doc(alias = "SetOptions")]
    pub fn set_options(&self, options: &[(&str, &str)]) -> Result<()> {
        self.default_cf().set_options(options)
    }

    /// Changes database-wide options of the live database (RocksDB's `SetDBOptions`):
    /// `[("max_background_jobs", "4")]`. A name or value RocksDB does not take is
    /// [`Error::OptionRejected`].
    pub fn set_db_options(&self, options: &[(&str, &str)]) -> Result<()> {
        self.check_writable("set_db_options")?;
        let pairs = pairs(options)?;
        let count =
            i32::try_from(options.len()).map_err(|_| Error::invalid("options", "too many"))?;
        let mut err = ErrPtr::new();
        let mut code = 0;
        // SAFETY: live database; the strings are read (copied) during the call. No C++
        // exception leaves the call.
        unsafe {
            ffi::pinrocks_set_db_options(
                self.inner().raw(),
                count,
                pairs.keys.as_ptr(),
                pairs.values.as_ptr(),
                &mut code,
                err.as_out(),
            )
        };
        rejected(options, err, code)
    }

    /// Approximate memory use, summed over every column family (RocksDB's properties).
    #[doc(alias = "GetApproximateMemoryUsageByType")]
    pub fn memory_usage(&self) -> Result<MemoryUsage> {
        let mut usage = MemoryUsage::default();
        for name in self.cf_names() {
            let cf = self.cf(&name)?;
            let int = |property: &str| cf.property_int(property).map(Option::unwrap_or_default);
            usage.mem_tables += int("rocksdb.size-all-mem-tables")?;
            usage.mem_tables_unflushed += int("rocksdb.cur-size-all-mem-tables")?;
            usage.table_readers += int("rocksdb.estimate-table-readers-mem")?;
        }
        let cf = self.default_cf();
        usage.block_cache = cf
            .property_int("rocksdb.block-cache-usage")?
            .unwrap_or_default();
        usage.block_cache_pinned = cf
            .property_int("rocksdb.block-cache-pinned-usage")?
            .unwrap_or_default();
        Ok(usage)
    }
}

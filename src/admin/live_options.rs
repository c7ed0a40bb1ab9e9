//! Changing options on a live database (RocksDB's `SetOptions` and `SetDBOptions`), reading
//! back the options it runs with, and how much memory it uses.

use crate::db::column_family::ColumnFamily;
use crate::db::database::Db;
use crate::db::handles::{CfHandle, DbInner};
use crate::options::blob_files::{is_ratio, NOT_A_RATIO, RATIOS};
use crate::options::contract::written_option;
use crate::options::db_options::Options;
use crate::raw::c_consts::{OPTION_SCOPE_CF, OPTION_SCOPE_DB, OPTION_SCOPE_TABLE};
use crate::raw::cstr::pairs;
use crate::raw::db_state;
use crate::raw::error::{Error, ErrorKind, Result};
use crate::raw::options_handle::OptionsHandle;

/// RocksDB's refusal of a name or value, with what was asked. `code` is the status code
/// the guarded call reported (0 if none).
fn rejected(options: &[(&str, &str)], outcome: Result<()>) -> Result<()> {
    // RocksDB refuses a name or value with InvalidArgument (or NotSupported); another
    // failure (writing the OPTIONS file) comes after the options were applied, and a
    // caught C++ exception (std::bad_alloc: MemoryLimit) is no refusal either.
    outcome.map_err(|e| match e {
        Error::RocksDb {
            kind: kind @ (ErrorKind::InvalidArgument | ErrorKind::NotSupported),
            message,
        } => Error::OptionRejected {
            options: owned(options),
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

/// The option table's verdict on options asked of a live family (and its database),
/// before RocksDB sees them: applied by RocksDB's parser to a copy of what the database
/// uses now (so a rule joining two options sees the other's live value), then checked as
/// at an open. A bound on threads or buffers must hold before `SetDBOptions` starts the
/// threads; a name RocksDB cannot change while open is still RocksDB's to refuse.
fn keeps_contracts(db: &DbInner, handle: &CfHandle, options: &[(&str, &str)]) -> Result<()> {
    one_pair_per_option(options)?;
    // SAFETY: an open database and a handle of it that the caller holds (a dropped
    // family's handle still reads its options).
    let raw = unsafe { db_state::live_options(db.raw(), handle.raw()) }?;
    let mut live = Options::from_handle(raw);
    let before = family_option(&family_options(&live)?, "table_factory");
    live.set_by_name(options)?;
    let after = family_options(&live)?;
    if family_option(&after, "table_factory") != before {
        // Files already written are read with the family's current factory: the other
        // format's reader refuses them as corrupt, and no one set of options opens the
        // database again.
        return Err(Error::OptionRejected {
            options: owned(options),
            kind: ErrorKind::InvalidArgument,
            message: format!(
                "table_factory: a live family keeps its table format ({}); options of the \
                 same format may change",
                before
            ),
        });
    }
    live_rules(&after, options)?;
    if let Some(&(name, value)) = options
        .iter()
        .find(|(name, value)| *name == "delayed_write_rate" && rocksdb_zero(value))
    {
        // An open turns 0 into 16 MiB/s (SanitizeOptions); SetDBOptions keeps 0, which
        // the write controller reads as 1 byte a second: a delayed write sleeps for hours.
        return Err(Error::OptionRejected {
            options: vec![(name.to_owned(), value.to_owned())],
            kind: ErrorKind::InvalidArgument,
            message: "delayed_write_rate=0 on a live database: RocksDB would delay writes at \
                      1 byte a second (0 means 16 MiB/s only at an open)"
                .to_owned(),
        });
    }
    Ok(())
}

/// A live change writes each option once. RocksDB applies a live change's pairs in the
/// order of its hash map, not in the order asked, so the copy checked here could differ
/// from what the family gets: `table_factory={}` applied after `block_based_table_factory`
/// leaves the family without a table factory, and RocksDB's own validation dereferences it.
fn one_pair_per_option(options: &[(&str, &str)]) -> Result<()> {
    for (at, &(name, _)) in options.iter().enumerate() {
        let written = written_option(name);
        if let Some(&(other, _)) = options[..at]
            .iter()
            .find(|(earlier, _)| written_option(earlier) == written)
        {
            return Err(Error::OptionRejected {
                options: owned(options),
                kind: ErrorKind::InvalidArgument,
                message: format!(
                    "{other} and {name} both set {written} in one live change: RocksDB \
                     applies a live change's pairs in no set order (set them one call apart)"
                ),
            });
        }
    }
    Ok(())
}

/// What an open sanitizes but a live change keeps as asked: a hash memtable without a
/// prefix extractor (an open puts a skip list in its place; the next memtable of a live
/// family would dereference the missing extractor on every insert), level-0 triggers
/// out of order (an open raises them; live, writes would stop at `level0_stop_writes_trigger`
/// files with no compaction ever triggered to drain them), and a FIFO family's write
/// triggers (an open sets them to `i32::MAX`).
fn live_rules(family: &[(String, String)], options: &[(&str, &str)]) -> Result<()> {
    let value = |name: &str| family_option(family, name);
    let refuse = |message: String| {
        Err(Error::OptionRejected {
            options: owned(options),
            kind: ErrorKind::InvalidArgument,
            message,
        })
    };
    if value("compaction_style") == "kCompactionStyleFIFO" {
        if let Some((name, _)) = options.iter().find(|(name, _)| {
            matches!(
                written_option(name),
                "level0_slowdown_writes_trigger" | "level0_stop_writes_trigger"
            )
        }) {
            return refuse(format!(
                "{name} on a live FIFO family: an open sets both write triggers out of reach \
                 (FIFO never compacts level 0 by file count); live, writes would stop at the \
                 trigger with no compaction to drain level 0"
            ));
        }
    }
    let memtable = value("memtable_factory");
    if memtable.contains("Hash") && value("prefix_extractor") == "nullptr" {
        return refuse(format!(
            "a live family with a hash memtable ({memtable}) keeps a prefix extractor"
        ));
    }
    let number = |name: &str| value(name).parse::<i64>().unwrap_or(0);
    let (trigger, slowdown, stop) = (
        number("level0_file_num_compaction_trigger"),
        number("level0_slowdown_writes_trigger"),
        number("level0_stop_writes_trigger"),
    );
    if !(trigger <= slowdown && slowdown <= stop) {
        return refuse(format!(
            "level-0 triggers out of order on a live family (compaction {trigger}, slowdown \
             {slowdown}, stop {stop}): writes would stop before a compaction is triggered"
        ));
    }
    Ok(())
}

/// The column family options of `options` as RocksDB serializes them, read once for all
/// the rules that look at them.
fn family_options(options: &Options) -> Result<Vec<(String, String)>> {
    options.raw.serialized(OPTION_SCOPE_CF)
}

/// One value of `family` (empty if RocksDB does not serialize it).
fn family_option(family: &[(String, String)], name: &str) -> String {
    family
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.clone())
        .unwrap_or_default()
}

/// Whether RocksDB would read `value` as the number 0.
fn rocksdb_zero(value: &str) -> bool {
    let digits = value.trim().trim_start_matches(['+', '-']);
    let end = digits.bytes().take_while(u8::is_ascii_digit).count();
    end > 0 && digits[..end].bytes().all(|b| b == b'0')
}

/// The names and values asked, owned, for an error.
fn owned(options: &[(&str, &str)]) -> Vec<(String, String)> {
    options
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

impl ColumnFamily<'_> {
    /// Changes column-family options of this live family (RocksDB's `SetOptions`), by
    /// RocksDB's names: `[("write_buffer_size", "1048576"), ("disable_auto_compactions",
    /// "true")]`. All are applied or none; a name or value RocksDB does not take is
    /// [`Error::OptionRejected`].
    #[doc(alias = "SetOptions")]
    pub fn set_options(&self, options: &[(&str, &str)]) -> Result<()> {
        refuse_unusable_ratio(options)?;
        let _one_change = self.db.one_option_change();
        keeps_contracts(self.db, self.handle(), options)?;
        let pairs = pairs(options)?;
        let set = self.db.with_live_family("set_options", self.handle(), || {
            // SAFETY: a live database and a handle of it, borrowed for the call.
            unsafe { db_state::set_family_options(self.db.raw(), self.handle().raw(), &pairs) }
        })?;
        rejected(options, set)
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
    ///
    /// # Aborts
    /// If RocksDB throws inside (a background thread the system refuses to start, memory
    /// exhausted): it may be inside its write queue or with its mutex let go of by hand, which
    /// no error could be returned from (`rocksdb-c/pinrocks.h`, rule 5).
    pub fn set_db_options(&self, options: &[(&str, &str)]) -> Result<()> {
        self.check_writable("set_db_options")?;
        let _one_change = self.inner().one_option_change();
        keeps_contracts(self.inner(), self.default_cf().handle(), options)?;
        let pairs = pairs(options)?;
        // SAFETY: the open database, for the call.
        let set = unsafe { db_state::set_db_options(self.inner().raw(), &pairs) };
        rejected(options, set)
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

/// The options a live database and one of its column families run with now, as RocksDB
/// serializes them into its OPTIONS file (after every [`set_options`](ColumnFamily::set_options)
/// and [`set_db_options`](Db::set_db_options), and after RocksDB's own sanitizing at open):
/// to check what is in force without reading the LOG. Read by
/// [`Db::options_in_force`] and [`ColumnFamily::options_in_force`]; a copy, not a view.
///
/// ```
/// # fn main() -> pinrocks::Result<()> {
/// # let dir = tempfile::tempdir().unwrap();
/// let mut options = pinrocks::Options::new();
/// options.create_if_missing(true).set_by_name(&[("write_buffer_size", "4194304")])?;
/// let db = pinrocks::Db::open(&options, dir.path())?;
/// db.set_options(&[("write_buffer_size", "8388608")])?;
/// let now = db.options_in_force()?;
/// assert_eq!(now.parse::<u64>("write_buffer_size")?, Some(8 << 20));
/// assert_eq!(now.parse::<bool>("create_if_missing")?, Some(true));
/// assert_eq!(now.parse::<u64>("block_size")?, Some(4096)); // the table's
/// assert_eq!(now.get("no_such_option"), None);
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionsInForce {
    db: Vec<(String, String)>,
    family: Vec<(String, String)>,
    table: Vec<(String, String)>,
}

impl OptionsInForce {
    fn read(options: &OptionsHandle) -> Result<OptionsInForce> {
        Ok(OptionsInForce {
            db: options.serialized(OPTION_SCOPE_DB)?,
            family: options.serialized(OPTION_SCOPE_CF)?,
            table: options.serialized(OPTION_SCOPE_TABLE)?,
        })
    }

    /// The value of the option `name` in RocksDB's syntax: a database option, the family's,
    /// or its table format's (`block_size`). `None` for a name RocksDB does not serialize.
    pub fn get(&self, name: &str) -> Option<&str> {
        [&self.db, &self.family, &self.table]
            .into_iter()
            .flatten()
            .find(|(n, _)| n == name)
            .map(|(_, value)| value.as_str())
    }

    /// The value of `name` as a `T` (numbers, `bool`, `String`; an enum option reads as
    /// RocksDB's name for it, `"kSnappyCompression"`): `None` if RocksDB does not serialize
    /// `name`, [`Error::InvalidInput`] if its value is not a `T`.
    pub fn parse<T: std::str::FromStr>(&self, name: &str) -> Result<Option<T>> {
        self.get(name)
            .map(|text| {
                text.parse::<T>().map_err(|_| {
                    Error::invalid(
                        "option value",
                        format!("{name}={text} is not a {}", std::any::type_name::<T>()),
                    )
                })
            })
            .transpose()
    }

    /// The database-wide options, by name, in RocksDB's order.
    pub fn db_options(&self) -> impl Iterator<Item = (&str, &str)> {
        self.db.iter().map(|(n, v)| (n.as_str(), v.as_str()))
    }

    /// The column family's options.
    pub fn family_options(&self) -> impl Iterator<Item = (&str, &str)> {
        self.family.iter().map(|(n, v)| (n.as_str(), v.as_str()))
    }

    /// The options of the family's table format (block-based, plain or cuckoo).
    pub fn table_options(&self) -> impl Iterator<Item = (&str, &str)> {
        self.table.iter().map(|(n, v)| (n.as_str(), v.as_str()))
    }
}

impl ColumnFamily<'_> {
    /// The options this family and its database run with now (RocksDB's `GetOptions` and
    /// `GetDBOptions`), read back as RocksDB serializes them.
    #[doc(alias = "GetOptions")]
    pub fn options_in_force(&self) -> Result<OptionsInForce> {
        // `GetOptions` takes the database mutex, which a comparator or the info log may
        // run under.
        crate::raw::reentry::refuse_under_mutex("options_in_force")?;
        // SAFETY: a live database and a handle of it, borrowed for the call (a dropped
        // family's handle still reads its options).
        let raw = unsafe { db_state::live_options(self.db.raw(), self.handle().raw()) }?;
        OptionsInForce::read(&raw)
    }
}

impl Db {
    /// The options the database and its default family run with now; see
    /// [`ColumnFamily::options_in_force`].
    #[doc(alias = "GetOptions")]
    #[doc(alias = "GetDBOptions")]
    pub fn options_in_force(&self) -> Result<OptionsInForce> {
        self.default_cf().options_in_force()
    }
}

//! The options a database was written with, loaded from the newest OPTIONS file RocksDB
//! keeps beside it, so a database made by another program (another language, the
//! `rocksdb` crate, `ldb`) opens without restating its settings.

use std::path::Path;

use crate::callbacks::comparator::Comparator;
use crate::options::cache::Cache;
use crate::options::contract::{input_breach, Asked};
use crate::options::contract_rules::Scope;
use crate::options::db_options::Options;
use crate::raw::cstr::path_to_cstring;
use crate::raw::error::{Error, ErrorKind, Result};
use crate::raw::options_text::load_latest_options;

/// The options of a database and of each of its column families, as stored.
///
/// The table setters of [`Options`] (`block_cache_size`, `bloom_filter`, `block_size`,
/// `block_based_table`, ...) build a whole new table factory: on loaded options they
/// replace the loaded table settings rather than change one of them.
///
/// The options a database was written with, loaded from the newest OPTIONS file RocksDB
/// keeps beside it, so a database made by another program (another language, the
/// `rocksdb` crate, `ldb`) opens without restating its settings.
///
/// What is code rather than settings cannot be loaded: a custom comparator, merge operator
/// or compaction filter. RocksDB's own built-in ones are (the reverse bytewise comparator,
/// the `uint64add` and `stringappend` merge operators, ...); for the others, set yours on
/// the loaded options before opening. A custom comparator RocksDB cannot make is left out,
/// and the open then fails with [`Error::ComparatorMismatch`](crate::Error::ComparatorMismatch)
/// rather than reading in another order.
pub struct StoredOptions {
    /// The database-wide options.
    pub db: Options,
    /// Each column family's name and options, in the stored order.
    pub column_families: Vec<(String, Options)>,
}

impl std::fmt::Debug for StoredOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoredOptions")
            .field(
                "column_families",
                &self
                    .column_families
                    .iter()
                    .map(|(n, _)| n)
                    .collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

impl StoredOptions {
    /// Loads the newest OPTIONS file of the database at `path`. Tables read through
    /// `cache` (RocksDB's `LoadLatestOptions` gives every family's table factory this
    /// cache). Option names this RocksDB does not know are an error.
    pub fn load(path: impl AsRef<Path>, cache: &Cache) -> Result<StoredOptions> {
        // RocksDB parses the file by name, and parsing may allocate by a value (or make an
        // object pinrocks never sees): its values meet the option table first.
        if let Some(text) = newest_options_file(&Options::new(), path.as_ref())? {
            check_options_file(&text)?;
        }
        let c_path = path_to_cstring(path.as_ref())?;
        let (db, families) = load_latest_options(&c_path, cache.handle())?;
        let mut db = Options::from_handle(db);
        db.keep_single_deletes_from_stopping_writes();
        let mut column_families = Vec::with_capacity(families.len());
        for (name, options) in families {
            let mut options = Options::from_handle(options);
            // Each family's options carry database options too (RocksDB's defaults), and
            // may open a database themselves.
            options.keep_single_deletes_from_stopping_writes();
            adopt_comparator(&mut options)?;
            column_families.push((name, options));
        }
        // What pinrocks records of the table format, from what the file set (the file's
        // values themselves meet the option table when the options open a database).
        db.format = db.format_in_force()?;
        for (_, options) in &mut column_families {
            options.format = options.format_in_force()?;
        }
        Ok(StoredOptions {
            db,
            column_families,
        })
    }

    /// The stored options of the column family `name`.
    pub fn column_family(&self, name: &str) -> Option<&Options> {
        self.column_families
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, o)| o)
    }
}

/// Gives pinrocks the loaded comparator when it is one pinrocks can order keys with (the
/// reverse bytewise one), so that its own bound checks use the same order. RocksDB's reverse
/// order with u64 timestamps is refused: pinrocks' timestamped families order keys
/// bytewise, so its range checks would pass an inverted range that RocksDB refuses only
/// after the WAL took it (which stops the database).
fn adopt_comparator(options: &mut Options) -> Result<()> {
    let name = options.raw.comparator_name();
    if name == Comparator::reverse_bytewise().name().as_bytes() {
        options.comparator(&Comparator::reverse_bytewise());
    } else if name == b"rocksdb.ReverseBytewiseComparator.u64ts" {
        return Err(Error::invalid(
            "StoredOptions::load",
            "a column family ordered by rocksdb.ReverseBytewiseComparator.u64ts (pinrocks \
             orders timestamped keys bytewise only)",
        ));
    }
    Ok(())
}

/// The newest OPTIONS file RocksDB wrote for the database at `path`, read through the
/// options' file system (the disk, or one in memory). `None` if there is none.
pub(crate) fn newest_options_file(options: &Options, path: &Path) -> Result<Option<String>> {
    let dir = path_to_cstring(path)?;
    options.raw.read_newest_options_file(&dir)
}

/// The values of an OPTIONS file against the option table, before RocksDB parses them:
/// each section's names in its scope (`[DBOptions]`, `[CFOptions ".."]`,
/// `[TableOptions/BlockBasedTable ".."]`, ...).
fn check_options_file(text: &str) -> Result<()> {
    let mut scope = None;
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if line.starts_with('[') {
            scope = match line.split(['"', ']']).next().unwrap_or("").trim() {
                "[DBOptions" => Some(Scope::Db),
                "[CFOptions" => Some(Scope::Cf),
                "[TableOptions/BlockBasedTable" => Some(Scope::BlockBased),
                "[TableOptions/PlainTable" => Some(Scope::Plain),
                "[TableOptions/CuckooTable" => Some(Scope::Cuckoo),
                _ => None,
            };
            continue;
        }
        let (Some(scope), Some((name, value))) = (scope, line.split_once('=')) else {
            continue;
        };
        let (name, value) = (name.trim(), value.trim());
        if let Some(why) = input_breach(scope, name, value, Asked::File) {
            return Err(Error::OptionRejected {
                options: vec![(name.to_owned(), value.to_owned())],
                kind: ErrorKind::InvalidArgument,
                message: format!("in the OPTIONS file: {why}"),
            });
        }
    }
    Ok(())
}

//! Every option RocksDB can parse, set before open by RocksDB's own names and value syntax
//! (its `GetDBOptionsFromMap` / `GetColumnFamilyOptionsFromMap` and `StringToMap`), checked
//! by RocksDB, all or none.

use std::ffi::c_int;

use crate::options::contract::{check_options, input_breach, lookup, Asked};
use crate::options::contract_rules::{Rule, Scope};
use crate::options::db_options::Options;
use crate::raw::c_consts::{OPTION_SCOPE_CF, OPTION_SCOPE_DB, OPTION_SCOPE_TABLE};
use crate::raw::cstr::pairs;
use crate::raw::error::{Error, ErrorKind, Result};
use crate::raw::pairs::string_to_map;

impl Options {
    /// Sets database and column family options by RocksDB's own names and value syntax,
    /// as its OPTIONS file and `ldb` write them: `[("max_open_files", "512"),
    /// ("level_compaction_dynamic_level_bytes", "true"), ("compression", "kLZ4Compression"),
    /// ("block_based_table_factory", "{block_size=16384;filter_policy=bloomfilter:10:false}")]`.
    /// Every option RocksDB can parse is reachable this way, typed setter or not.
    ///
    /// All or none: a name RocksDB does not know, or a value it cannot parse or does not
    /// take, is [`Error::OptionRejected`] naming that option with RocksDB's reason, and
    /// these options are left as they were. A comparator is refused here
    /// ([`Error::InvalidInput`]): set it with [`Options::comparator`], since pinrocks checks
    /// range bounds in the column family's order. So is the cuckoo table format, which loses
    /// writes in RocksDB 11.8.1. A table factory set here is replaced by
    /// the next typed table setter (`block_cache_size`, `bloom_filter`, ...), as for
    /// [`StoredOptions`](crate::options::StoredOptions).
    ///
    /// ```
    /// # fn main() -> pinrocks::Result<()> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// let mut options = pinrocks::Options::new();
    /// options.create_if_missing(true);
    /// options.set_by_name(&[("max_open_files", "512"), ("num_levels", "5")])?;
    /// let err = options.set_by_name(&[("write_buffer_size", "64MB"), ("no_such_option", "1")]);
    /// assert!(matches!(err, Err(pinrocks::Error::OptionRejected { ref options, .. })
    ///     if options == &[("no_such_option".to_owned(), "1".to_owned())]));
    /// let db = pinrocks::Db::open(&options, dir.path())?; // 512 files, 5 levels; 64 MB not set
    /// # Ok(()) }
    /// ```
    #[doc(alias = "GetDBOptionsFromMap")]
    #[doc(alias = "GetColumnFamilyOptionsFromMap")]
    pub fn set_by_name(&mut self, options: &[(&str, &str)]) -> Result<&mut Self> {
        let scopes = options
            .iter()
            .map(|&(name, value)| scope_by_name(name, value))
            .collect::<Result<Vec<c_int>>>()?;
        let pairs = pairs(options)?;
        // Parsed into a copy, checked against the option table as RocksDB will use it,
        // and only then kept: all or none.
        let mut candidate = Options::from_handle(self.raw.copy());
        let (parsed, refused) = candidate.raw.set_by_name(&pairs, &scopes);
        match parsed {
            Ok(()) => {}
            Err(Error::RocksDb { kind, message })
                if matches!(
                    kind,
                    ErrorKind::InvalidArgument | ErrorKind::NotFound | ErrorKind::NotSupported
                ) =>
            {
                // Past the last pair: the options' own num_levels, refused before any pair.
                let (name, value) = options.get(refused).copied().unwrap_or(("num_levels", ""));
                return Err(Error::OptionRejected {
                    options: vec![(name.to_owned(), value.to_owned())],
                    kind,
                    message,
                });
            }
            Err(other) => return Err(other),
        }
        check_options(&candidate.raw)?;
        // The copy shares every object the options point at (Env, comparator, caches by
        // shared_ptr), so it replaces them whole; the old handle is freed with `candidate`.
        std::mem::swap(&mut self.raw, &mut { candidate }.raw);
        self.format = self.format_in_force()?;
        Ok(self)
    }

    /// The value of the option `name` as RocksDB holds it, in RocksDB's own syntax (as its
    /// OPTIONS file writes it): a database or column family option, or an option of the
    /// table format in use (`block_size`, `hash_table_ratio`). `None` for a name RocksDB
    /// does not serialize (deprecated ones, objects such as the Env).
    ///
    /// ```
    /// # fn main() -> pinrocks::Result<()> {
    /// let mut options = pinrocks::Options::new();
    /// options.set_by_name(&[("max_open_files", "512"), ("block_based_table_factory", "{block_size=16384}")])?;
    /// assert_eq!(options.get_by_name("max_open_files")?.as_deref(), Some("512"));
    /// assert_eq!(options.get_by_name("block_size")?.as_deref(), Some("16384"));
    /// # Ok(()) }
    /// ```
    pub fn get_by_name(&self, name: &str) -> Result<Option<String>> {
        for scope in [OPTION_SCOPE_DB, OPTION_SCOPE_CF, OPTION_SCOPE_TABLE] {
            let pairs = self.raw.serialized(scope)?;
            if let Some((_, value)) = pairs.into_iter().find(|(n, _)| n == name) {
                return Ok(Some(value));
            }
        }
        Ok(None)
    }

    /// [`set_by_name`](Self::set_by_name) from RocksDB's option string syntax:
    /// `"max_open_files=512;block_based_table_factory={block_size=16384}"`, parsed by
    /// RocksDB (`StringToMap`). A string RocksDB cannot split is
    /// [`Error::OptionRejected`] with no option named.
    ///
    /// ```
    /// # fn main() -> pinrocks::Result<()> {
    /// let mut options = pinrocks::Options::new();
    /// options.set_from_string("max_open_files=512;max_background_jobs=4")?;
    /// assert!(options.set_from_string("max_open_files=five").is_err());
    /// # Ok(()) }
    /// ```
    #[doc(alias = "GetDBOptionsFromString")]
    #[doc(alias = "GetColumnFamilyOptionsFromString")]
    pub fn set_from_string(&mut self, options: &str) -> Result<&mut Self> {
        let pairs = string_to_map(options)?;
        let borrowed: Vec<(&str, &str)> = pairs
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        self.set_by_name(&borrowed)
    }
}

/// Which of RocksDB's parsers a name set by name goes to (`PINROCKS_OPTION_SCOPE_DB` or
/// `_CF`), by the option table: a name that is a live option of one kind and a deprecated
/// one of the other (`experimental_mempurge_threshold`) reaches the one that uses it. A
/// nested name (`table_factory.block_size`) goes by its first part. Typed-only and
/// deprecated names at any depth, numbers outside their bounds (before RocksDB parses
/// them: parsing alone may allocate by them), and names the table does not have, are
/// refused here.
fn scope_by_name(name: &str, value: &str) -> Result<c_int> {
    let top = name.split('.').next().unwrap_or(name);
    let live = |scope| lookup(scope, top).filter(|row| row.rule != Rule::Ignored);
    let (scope, code) = match (live(Scope::Db), live(Scope::Cf)) {
        (Some(_), _) => (Scope::Db, OPTION_SCOPE_DB),
        (None, Some(_)) => (Scope::Cf, OPTION_SCOPE_CF),
        (None, None) if lookup(Scope::Db, top).is_some() => (Scope::Db, OPTION_SCOPE_DB),
        (None, None) if lookup(Scope::Cf, top).is_some() => (Scope::Cf, OPTION_SCOPE_CF),
        (None, None) => {
            return Err(Error::OptionRejected {
                options: vec![(name.to_owned(), value.to_owned())],
                kind: ErrorKind::InvalidArgument,
                message: format!(
                    "{name}: RocksDB 11.8.1 has no database or column family option of this name"
                ),
            })
        }
    };
    match input_breach(scope, name, value, Asked::ByName) {
        Some(why) => Err(Error::OptionRejected {
            options: vec![(name.to_owned(), value.to_owned())],
            kind: ErrorKind::InvalidArgument,
            message: why,
        }),
        None => Ok(code as c_int),
    }
}

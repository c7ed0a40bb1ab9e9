//! Every option RocksDB can parse, set before open by RocksDB's own names and value syntax
//! (its `GetDBOptionsFromMap` / `GetColumnFamilyOptionsFromMap` and `StringToMap`), checked
//! by RocksDB, all or none.

use crate::options::db_options::Options;
use crate::raw::cstr::pairs;
use crate::raw::error::{ErrPtr, Error, ErrorKind, Result};
use crate::raw::ffi;
use crate::raw::pairs::collect_pair;
use crate::raw::trampoline::Carried;

/// Names pinrocks keeps state for on the Rust side, which a string must not change behind
/// its back: the key order it checks bounds in.
const SET_THROUGH_RUST: &[(&str, &str)] = &[("comparator", "Options::comparator")];

/// Why the cuckoo table format is refused: what it does to writes in RocksDB 11.8.1.
const LOSES_WRITES: &str = "the cuckoo table format: RocksDB 11.8.1's cuckoo builder drops \
    every value whose length differs from the file's first (and every merge) and still \
    reports the flush done, so acknowledged writes would be lost";

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
    /// [`StoredOptions`](crate::StoredOptions).
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
        for (name, value) in options {
            if let Some((_, setter)) = SET_THROUGH_RUST.iter().find(|(n, _)| n == name) {
                return Err(Error::invalid(
                    "options",
                    format!("{name}={value}: set it with {setter}, not by name"),
                ));
            }
            if name.contains("table_factory")
                && (name.contains("cuckoo") || value.contains("Cuckoo"))
            {
                return Err(Error::invalid(
                    "options",
                    format!("{name}={value}: {LOSES_WRITES}"),
                ));
            }
        }
        let pairs = pairs(options)?;
        let (mut refused, mut code, mut err) = (0usize, 0, ErrPtr::new());
        // SAFETY: live options, exclusively borrowed; `pairs` holds as many NUL-terminated
        // names as values, alive for the call (RocksDB copies them). Guarded.
        unsafe {
            ffi::pinrocks_options_set_by_name(
                self.raw_mut(),
                pairs.keys.len(),
                pairs.keys.as_ptr(),
                pairs.values.as_ptr(),
                &mut refused,
                &mut code,
                err.as_out(),
            )
        };
        match err.check_with_code(Some(code)) {
            Ok(()) => Ok(self),
            Err(Error::RocksDb { kind, message })
                if matches!(
                    kind,
                    ErrorKind::InvalidArgument | ErrorKind::NotFound | ErrorKind::NotSupported
                ) =>
            {
                let (name, value) = options[refused];
                Err(Error::OptionRejected {
                    options: vec![(name.to_owned(), value.to_owned())],
                    kind,
                    message,
                })
            }
            Err(other) => Err(other),
        }
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

/// RocksDB's split of an options string into names and values, in name order.
fn string_to_map(options: &str) -> Result<Vec<(String, String)>> {
    let mut pairs = Carried::new(Vec::new());
    let (mut code, mut err) = (0, ErrPtr::new());
    // SAFETY: the string is borrowed for the call; `collect_pair` matches `pairs`' type. Guarded.
    unsafe {
        ffi::pinrocks_options_string_to_map(
            options.as_ptr().cast(),
            options.len(),
            Some(collect_pair::<Vec<(String, String)>>),
            pairs.as_ctx(),
            &mut code,
            err.as_out(),
        )
    };
    let mut pairs = pairs.finish();
    err.check_with_code(Some(code)).map_err(|e| match e {
        Error::RocksDb { kind, message } => Error::OptionRejected {
            options: Vec::new(),
            kind,
            message,
        },
        other => other,
    })?;
    pairs.sort();
    Ok(pairs)
}

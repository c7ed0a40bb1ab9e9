//! The options a database was written with, loaded from the newest OPTIONS file RocksDB
//! keeps beside it, so a database made by another program (another language, the
//! `rocksdb` crate, `ldb`) opens without restating its settings.

use std::ffi::{c_char, CStr};
use std::path::Path;

use crate::callbacks::comparator::Comparator;
use crate::options::cache::Cache;
use crate::options::contract::{input_breach, Asked};
use crate::options::contract_rules::Scope;
use crate::options::db_options::Options;
use crate::raw::cstr::path_to_cstring;
use crate::raw::error::{ErrPtr, Error, ErrorKind, Result};
use crate::raw::ffi;

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
        let mut err = ErrPtr::new();
        let mut code = 0;
        let mut db_options = std::ptr::null_mut();
        let mut count = 0usize;
        let mut names: *mut *mut c_char = std::ptr::null_mut();
        let mut cf_options: *mut *mut ffi::rocksdb_options_t = std::ptr::null_mut();
        // SAFETY: a default env (destroyed after the call) and a live cache; RocksDB fills
        // the out-parameters on success (each options handle a separate allocation that we
        // own from here, the two arrays and the names malloc'd) and NULLs on failure.
        // Guarded (it parses the OPTIONS file into new objects).
        unsafe {
            let env = ffi::rocksdb_create_default_env();
            ffi::pinrocks_guarded_load_latest_options(
                &mut code,
                c_path.as_ptr(),
                env,
                false,
                cache.raw(),
                &mut db_options,
                &mut count,
                &mut names,
                &mut cf_options,
                err.as_out(),
            );
            ffi::rocksdb_env_destroy(env);
        }
        err.check_with_code(Some(code))?;
        // SAFETY: on success every pointer is valid: `count` names and options, each taken
        // over once, then the arrays freed with RocksDB's allocator.
        let (mut db, mut column_families) = unsafe {
            let db = Options::from_raw(db_options);
            let mut families = Vec::with_capacity(count);
            for i in 0..count {
                let name = CStr::from_ptr(*names.add(i)).to_string_lossy().into_owned();
                ffi::rocksdb_free((*names.add(i)).cast());
                let mut options = Options::from_raw(*cf_options.add(i));
                adopt_comparator(&mut options);
                families.push((name, options));
            }
            ffi::rocksdb_free(names.cast());
            ffi::rocksdb_free(cf_options.cast());
            (db, families)
        };
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
/// reverse bytewise one), so that its own bound checks use the same order.
fn adopt_comparator(options: &mut Options) {
    let mut buf = [0u8; 128];
    // SAFETY: live options; the name is copied into `buf` (truncated to its length).
    let len = unsafe {
        ffi::pinrocks_options_comparator_name(options.raw(), buf.as_mut_ptr().cast(), buf.len())
    };
    let name = &buf[..len.min(buf.len())];
    if name == Comparator::reverse_bytewise().name().as_bytes() {
        options.comparator(&Comparator::reverse_bytewise());
    }
}

/// The newest OPTIONS file RocksDB wrote for the database at `path`, read through the
/// options' file system (the disk, or one in memory). `None` if there is none.
pub(crate) fn newest_options_file(options: &Options, path: &Path) -> Result<Option<String>> {
    let dir = path_to_cstring(path)?;
    let (mut len, mut code, mut err) = (0usize, 0, ErrPtr::new());
    // SAFETY: live options and a NUL-terminated path; the text comes back malloc'd (NULL when
    // there is no OPTIONS file, or on an error), `len` bytes long, copied here and then
    // freed with `rocksdb_free` (free) before the error is looked at.
    let text = unsafe {
        let raw = ffi::pinrocks_options_env_read_newest_options_file(
            options.raw(),
            dir.as_ptr(),
            &mut len,
            &mut code,
            err.as_out(),
        );
        if raw.is_null() {
            None
        } else {
            let text = std::slice::from_raw_parts(raw.cast::<u8>(), len);
            let text = String::from_utf8_lossy(text).into_owned();
            ffi::rocksdb_free(raw.cast());
            Some(text)
        }
    };
    err.check_with_code(Some(code))?;
    Ok(text)
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

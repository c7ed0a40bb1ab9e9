//! Moving a column family between databases: exported to a directory of its SST files
//! (RocksDB's `Checkpoint::ExportColumnFamily`), and created again from that export in
//! another database, or the same one (`CreateColumnFamilyWithImport`).

use std::path::{Path, PathBuf};

use crate::db::column_family::ColumnFamily;
use crate::db::database::Db;
use crate::db::handles::DbKind;
use crate::options::db_options::Options;
use crate::raw::cstr::path_to_cstring;
use crate::raw::db_families::ExportHandle;
use crate::raw::error::{Error, Result};

/// A column family exported by [`ColumnFamily::export`]: its SST files, hard-linked (or
/// copied) into a directory of their own, and RocksDB's description of them (key ranges,
/// sequence numbers, levels, the comparator's name), which
/// [`Db::import_cf`] needs. The files stay in the directory until an import moves them
/// or you delete them.
pub struct ExportedFamily {
    raw: ExportHandle,
    dir: PathBuf,
    files: usize,
}

impl std::fmt::Debug for ExportedFamily {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExportedFamily")
            .field("dir", &self.dir)
            .field("files", &self.files)
            .finish_non_exhaustive()
    }
}

impl ExportedFamily {
    /// The directory the files are in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// How many SST files the export holds (0 for a family with no data: RocksDB imports
    /// no such export).
    pub fn files(&self) -> usize {
        self.files
    }
}

impl ColumnFamily<'_> {
    /// Exports this family into `dir`, which must not exist: RocksDB flushes it, then
    /// hard-links (or copies) its SST files there. Import it with [`Db::import_cf`].
    ///
    /// Refused, before RocksDB sees it ([`Error::InvalidInput`]), where the export would not
    /// come back whole or would destroy files: a family with timestamps (RocksDB's import
    /// does not handle them yet) or with blob files (they are not exported: the values in
    /// them would be lost), a TTL database's family (an import would not strip the
    /// timestamps TTL adds), and a `dir` whose sibling `dir.tmp` exists (RocksDB builds the
    /// export there and deletes that directory's files if the export fails).
    ///
    /// ```
    /// # fn main() -> pinrocks::Result<()> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let mut opts = pinrocks::Options::new();
    /// # opts.create_if_missing(true);
    /// let source = pinrocks::Db::open(&opts, dir.path().join("source"))?;
    /// let users = source.create_cf("users", &pinrocks::Options::new())?;
    /// users.writer().put(b"ada", b"Lovelace")?;
    /// let exported = users.export(dir.path().join("users-export"))?;
    ///
    /// let target = pinrocks::Db::open(&opts, dir.path().join("target"))?;
    /// let imported = target.import_cf("users", &pinrocks::Options::new(), &exported, false)?;
    /// assert_eq!(imported.reader().get(b"ada")?.as_deref(), Some(&b"Lovelace"[..]));
    /// # Ok(()) }
    /// ```
    #[doc(alias = "ExportColumnFamily")]
    pub fn export(&self, dir: impl AsRef<Path>) -> Result<ExportedFamily> {
        let dir = dir.as_ref();
        let refuse = |why: &str| Err(Error::invalid("export", why.to_owned()));
        if self.db.kind == DbKind::Ttl {
            return refuse("a TTL database's family: an import would keep TTL's timestamps");
        }
        if self.handle().timestamp_size != 0 {
            return refuse("a family with timestamps: RocksDB's import does not take them yet");
        }
        let blob_files = self.property_int("rocksdb.num-blob-files")?.unwrap_or(0);
        let blobs_on = self
            .options_in_force()?
            .parse::<bool>("enable_blob_files")?;
        if blob_files > 0 || blobs_on == Some(true) {
            return refuse("a family with blob files: RocksDB exports its SST files only");
        }
        // RocksDB strips trailing separators before it appends ".tmp"; `components` does too.
        let mut staging = dir.components().as_path().as_os_str().to_owned();
        staging.push(".tmp");
        if Path::new(&staging).exists() {
            return refuse(
                "DIR.tmp exists: RocksDB would build the export there and delete its files \
                 if the export failed",
            );
        }
        let c_dir = path_to_cstring(dir)?;
        let (raw, files) = self.db.with_live_family("export", self.handle(), || {
            // SAFETY: a live database and a handle of it, borrowed for the call.
            unsafe {
                self.db
                    .raw_db()
                    .export_column_family(self.handle().raw(), &c_dir)
            }
        })??;
        Ok(ExportedFamily {
            raw,
            dir: dir.to_path_buf(),
            files,
        })
    }
}

impl Db {
    /// Creates the column family `name`, with `options`, holding the data of `exported`
    /// (from this database or another): its files are copied in, or moved (hard-linked,
    /// then deleted from the export) with `move_files`. The options' comparator must be the
    /// one the family was exported with (RocksDB compares their names). Fails with
    /// [`Error::ColumnFamilyExists`] if the name is taken; RocksDB drops a family it could
    /// not fill (files missing, or an export with no file). Refused on a TTL database
    /// (the family would have no TTL) and for options with timestamps.
    #[doc(alias = "CreateColumnFamilyWithImport")]
    pub fn import_cf(
        &self,
        name: &str,
        options: &Options,
        exported: &ExportedFamily,
        move_files: bool,
    ) -> Result<ColumnFamily<'_>> {
        options.check()?;
        if self.inner().kind == DbKind::Ttl {
            return Err(Error::WrongKind {
                operation: "import_cf",
                needs: "non-TTL",
            });
        }
        if options.raw.timestamp_size() != 0 {
            return Err(Error::invalid(
                "import",
                "options with timestamps: RocksDB's import does not take them yet",
            ));
        }
        let handle = self.inner().import_cf(
            name,
            &options.raw,
            options.traits(),
            &exported.raw,
            move_files,
        )?;
        Ok(ColumnFamily::new(self.inner(), handle))
    }
}

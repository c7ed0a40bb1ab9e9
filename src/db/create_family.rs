//! Creating column families in an open database: one (`create_cf`, also with a TTL),
//! several in one call (`create_cfs`: RocksDB writes one OPTIONS file for all of them), or
//! one from another family's export (`import_cf`).
//! Each new handle is kept in the database's map before it is handed out, and each
//! comparator before RocksDB sees it.

use std::collections::HashSet;
use std::ffi::CString;
use std::sync::Arc;

use crate::db::handles::{CfHandle, DbInner, DbKind, RawDb};
use crate::options::db_options::FamilyTraits;
use crate::raw::db_families::ExportHandle;
use crate::raw::error::{Error, Result};
use crate::raw::family::FamilyPtr;
use crate::raw::options_handle::OptionsHandle;

impl DbInner {
    /// Creates a column family (`rocksdb_create_column_family`, or with `ttl` seconds
    /// `rocksdb_create_column_family_with_ttl`, for a TTL database only: the C API casts
    /// to `DBWithTTL`) and keeps its handle; `traits` are those of `options`.
    pub(crate) fn create_cf(
        &self,
        name: &str,
        options: &OptionsHandle,
        traits: FamilyTraits,
        ttl: Option<i32>,
    ) -> Result<Arc<CfHandle>> {
        assert!(
            ttl.is_none() || self.kind == DbKind::Ttl,
            "a TTL family needs a TTL database"
        );
        self.check_writable("create_cf")?;
        let c_name = self.new_family_name(name)?;
        // Kept before RocksDB sees it, whatever the outcome: RocksDB can fail after the
        // family exists (writing the OPTIONS file), and then still points to it.
        if let Some(order) = &traits.order {
            self.keep_comparator(order);
        }
        // SAFETY: a TTL only on a TTL database, asserted above.
        let raw = unsafe { self.raw_db().create_column_family(options, &c_name, ttl)? };
        Ok(self.keep_family(raw, name, traits))
    }

    /// Creates the family `name` from the files of `export` (`import_cf`): kept as
    /// `create_cf` keeps a new family.
    pub(crate) fn import_cf(
        &self,
        name: &str,
        options: &OptionsHandle,
        traits: FamilyTraits,
        export: &ExportHandle,
        move_files: bool,
    ) -> Result<Arc<CfHandle>> {
        self.check_writable("import_cf")?;
        let c_name = self.new_family_name(name)?;
        if let Some(order) = &traits.order {
            self.keep_comparator(order);
        }
        let raw = self
            .raw_db()
            .create_column_family_with_import(options, &c_name, export, move_files)?;
        Ok(self.keep_family(raw, name, traits))
    }

    /// Creates every family of `families` (a name, its options and their traits) in one
    /// `DB::CreateColumnFamilies`, in order. RocksDB stops at the first failure: the
    /// families created before it are kept (and in the map) and the error is returned.
    /// A TTL database and a pessimistic transaction database create them one by one (see
    /// below).
    pub(crate) fn create_cfs(
        &self,
        families: &[(&str, &OptionsHandle, FamilyTraits)],
    ) -> Result<Vec<Arc<CfHandle>>> {
        self.check_writable("create_cfs")?;
        let mut seen = HashSet::new();
        if let Some((name, ..)) = families.iter().find(|(name, ..)| !seen.insert(*name)) {
            return Err(Error::invalid(
                "column family names",
                format!("{name:?} is named twice"),
            ));
        }
        let names = families
            .iter()
            .map(|(name, ..)| self.new_family_name(name))
            .collect::<Result<Vec<CString>>>()?;
        // A TTL database's `CreateColumnFamilies` is the base database's (no TTL filter);
        // a pessimistic one registers the new families with its lock manager only if all
        // were made (a partial failure would leave families no transaction can write).
        if self.kind == DbKind::Ttl || matches!(self.raw_db(), RawDb::Transaction { .. }) {
            return families
                .iter()
                .map(|(name, options, traits)| self.create_cf(name, options, traits.clone(), None))
                .collect();
        }
        for (_, _, traits) in families {
            if let Some(order) = &traits.order {
                self.keep_comparator(order);
            }
        }
        let options: Vec<&OptionsHandle> =
            families.iter().map(|(_, options, _)| *options).collect();
        let (handles, created) = self.raw_db().create_column_families(&options, &names);
        let kept: Vec<Arc<CfHandle>> = families
            .iter()
            .zip(handles)
            .map(|((name, _, traits), raw)| self.keep_family(raw, name, traits.clone()))
            .collect();
        created?;
        Ok(kept)
    }

    /// `name` as RocksDB takes it, if no open family has it. Checked, then released:
    /// RocksDB's create waits for the write queue (a stall), and the map's lock is taken by
    /// every `cf()` lookup. Two creates of one name that race past this check are told
    /// apart by RocksDB ("already exists").
    fn new_family_name(&self, name: &str) -> Result<CString> {
        let c_name = CString::new(name).map_err(|e| Error::invalid("column family name", e))?;
        if self.column_families().contains_key(name) {
            return Err(Error::ColumnFamilyExists {
                name: name.to_owned(),
            });
        }
        Ok(c_name)
    }

    /// Takes ownership of `raw`, a new handle RocksDB made for `name`, into the map.
    fn keep_family(&self, raw: FamilyPtr, name: &str, traits: FamilyTraits) -> Arc<CfHandle> {
        let handle = Arc::new(CfHandle::new(raw, name.to_owned(), self.id, traits));
        self.column_families_mut()
            .insert(name.to_owned(), Arc::clone(&handle));
        handle
    }
}

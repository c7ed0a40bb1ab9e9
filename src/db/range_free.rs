//! A database with a row cache holds no range tombstone. RocksDB 11.8.1's row cache returns
//! deleted values where one exists: a row cached from a file that also holds a tombstone
//! covering it comes back on the next read (the cached row is replayed without the file's
//! tombstones), and a multi-get that hits the row cache skips every newer tombstone (its
//! lookup passes no sequence number). So pinrocks keeps range tombstones out: range deletes
//! are refused as they are written (`DbInner::check_range_deletes`), SST files holding one
//! as they are ingested, and an open that finds one fails (a read-only or secondary open,
//! which could not tell, is refused before it starts: `opening.rs`).

use std::ffi::CStr;

use crate::db::handles::{CfHandle, DbInner};
use crate::raw::db_state;
use crate::raw::error::{Error, Result};
use crate::raw::sst::sst_file_range_deletions;

impl DbInner {
    /// `Err(RowCacheRefusesRanges)` for a range delete on a database with a row cache,
    /// which RocksDB would refuse from inside `DBImpl::WriteImpl`.
    pub(crate) fn check_range_deletes(&self, operation: &'static str) -> Result<()> {
        if self.row_cache {
            return Err(Error::RowCacheRefusesRanges { operation });
        }
        Ok(())
    }

    /// At open, with a row cache: flushes every family (so the log's range tombstones,
    /// replayed into the memtables, reach files) and fails if any of their files holds one.
    pub(crate) fn check_range_free(&self) -> Result<()> {
        if !self.row_cache {
            return Ok(());
        }
        let families: Vec<std::sync::Arc<CfHandle>> =
            self.column_families().values().cloned().collect();
        let handles: Vec<_> = families.iter().map(|cf| cf.raw()).collect();
        // SAFETY: the database is open and the handles are its own, held by `families`.
        unsafe { self.raw_db().flush(&handles, true, true) }?;
        for cf in &families {
            // SAFETY: as above.
            if unsafe { db_state::range_deletions(self.raw(), cf.raw()) }? > 0 {
                return Err(Error::RowCacheRefusesRanges { operation: "open" });
            }
        }
        Ok(())
    }

    /// Before an ingest into `cf`, with a row cache: fails if a file holds a range
    /// tombstone (read with the family's options, so with its comparator).
    pub(crate) fn check_files_range_free(&self, cf: &CfHandle, paths: &[&CStr]) -> Result<()> {
        if !self.row_cache {
            return Ok(());
        }
        // SAFETY: the database is open and `cf` one of its handles, for the call.
        let options = unsafe { db_state::live_options(self.raw(), cf.raw()) }?;
        for path in paths {
            if sst_file_range_deletions(&options, path)? > 0 {
                return Err(Error::RowCacheRefusesRanges {
                    operation: "ingest",
                });
            }
        }
        Ok(())
    }
}

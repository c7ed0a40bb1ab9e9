//! Shared test setup: a fresh database in a temporary directory.
#![allow(dead_code)]

use pinrocks::{Db, Options};
use tempfile::TempDir;

/// Options that create the database and any named column family.
pub fn create_options() -> Options {
    let mut options = Options::new();
    options
        .create_if_missing(true)
        .create_missing_column_families(true);
    options
}

/// A new database with the default column family and `cfs`, and the directory keeping it.
pub fn open_db(cfs: &[&str]) -> (TempDir, Db) {
    let dir = tempfile::tempdir().expect("temporary directory");
    let db = Db::open_cf(&create_options(), dir.path(), cfs).expect("open");
    (dir, db)
}

/// A value whose every byte depends on its position and `seed`, so a shifted, truncated or
/// stale read cannot compare equal.
pub fn patterned(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed) ^ (i >> 8) as u8)
        .collect()
}

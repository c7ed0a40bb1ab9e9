//! Builds the scale section's databases (`scale.rs`) quickly: one SST file of `count` keys
//! written in order by an `SstFileWriter`, then ingested (hard-linked, not copied) into
//! each database that reads it, so a database of ten million keys costs one sequential
//! write, no memtable, no flush and no compaction. Keys and values are pure functions of
//! the key's number, so a reader can check what it reads; values are incompressible (no
//! compression hides the size the cache has to hold). `tests/sweep_scale.rs` checks this on
//! small inputs.

use std::path::{Path, PathBuf};

use pinrocks::admin::{IngestOptions, SstFileWriter};
use pinrocks::options::Compression;
use pinrocks::{Db, Options};

/// The key of number `i`: fixed width, so bytewise order is numeric order.
pub fn scale_key(i: u64) -> [u8; 12] {
    let mut key = *b"k00000000000";
    let digits = format!("{i:011}");
    assert_eq!(digits.len(), 11, "at most 10^11 keys");
    key[1..].copy_from_slice(digits.as_bytes());
    key
}

/// The value of key `i`: `size` pseudo-random bytes (SplitMix64 seeded by `i`).
pub fn scale_value(i: u64, size: usize, out: &mut Vec<u8>) {
    out.clear();
    let mut state = i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ size as u64;
    while out.len() < size {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        let take = (size - out.len()).min(8);
        out.extend_from_slice(&z.to_le_bytes()[..take]);
    }
}

/// The options the SST file is written with and the databases are opened with: no
/// compression, a 10-bit bloom filter.
pub fn scale_options() -> Options {
    scale_options_with(true)
}

/// [`scale_options`], with or without the bloom filter: a reader opened without a filter
/// policy makes RocksDB ignore the file's filter.
pub fn scale_options_with(bloom: bool) -> Options {
    let mut options = Options::new();
    options
        .create_if_missing(true)
        .compression(Compression::None);
    if bloom {
        options.bloom_filter(10.0);
    }
    options
}

/// Writes `count` keys of `size`-byte values, in order, into one SST file at `path`.
pub fn build_sst(path: &Path, count: u64, size: usize) -> pinrocks::Result<PathBuf> {
    let mut writer = SstFileWriter::create(&scale_options(), path)?;
    let mut value = Vec::with_capacity(size);
    for i in 0..count {
        scale_value(i, size, &mut value);
        writer.put(&scale_key(i), &value)?;
    }
    writer.finish()
}

/// Ingests the file at `sst` into a new database at `dir`, by hard link (the file stays
/// where it is for the next database), and closes it.
pub fn ingest_into(sst: &Path, dir: &Path) -> pinrocks::Result<()> {
    let db = Db::open(&scale_options(), dir)?;
    let mut ingest = IngestOptions::new();
    ingest.move_files(true);
    // Hard links need the file to stay: RocksDB links, and removes only its own link.
    let link = dir.join("ingest.sst");
    std::fs::hard_link(sst, &link).expect("a hard link beside the database (one file system)");
    db.ingest(&[&link], &ingest)?;
    Ok(())
}

//! Flush and cold-read speed under this build's CRC32c: `scripts/crc-bench.sh` runs this
//! binary from the default build and from one compiled with SSE4.2 (hardware CRC32c),
//! alternately, and compares them round by round.
//!
//! `sweep crc`: writes 64 MiB of 1 KiB values with the WAL on (a CRC32c per WAL record),
//! flushes them into SST files whose blocks carry CRC32c checksums, then reads every key
//! once with the block cache bypassed (each read checksums a block read from the page
//! cache). Prints `mode puts/s flush-ms cold-reads/s` on one line.

use std::time::Instant;

use pinrocks::options::{BlockBasedOptions, ChecksumType, Compression};
use pinrocks::{Db, Options, ReadOptions};

const VALUES: usize = 64 << 10;
const SIZE: usize = 1024;

pub fn main() {
    let dir = tempfile::tempdir().unwrap();
    let mut table = BlockBasedOptions::new();
    table.checksum(ChecksumType::Crc32c);
    let mut options = Options::new();
    options
        .create_if_missing(true)
        .compression(Compression::None)
        .write_buffer_size(256 << 20)
        .block_based_table(&table);
    let db = Db::open(&options, dir.path()).unwrap();
    let value = |i: usize| {
        let mut v = vec![(i % 251) as u8; SIZE];
        v[..8].copy_from_slice(&(i as u64).to_be_bytes());
        v
    };
    let keys = crate::tiers::random_keys(VALUES);
    let started = Instant::now();
    for i in 0..VALUES {
        db.put(&crate::tiers::key(i), &value(i)).unwrap();
    }
    let puts = VALUES as f64 / started.elapsed().as_secs_f64();
    let started = Instant::now();
    db.flush().unwrap();
    let flush_ms = started.elapsed().as_secs_f64() * 1e3;
    let mut cold = ReadOptions::new();
    cold.fill_cache(false).verify_checksums(true);
    let reader = db.reader().options(&cold);
    let started = Instant::now();
    let mut total = 0usize;
    for key in &keys {
        total += reader.get_pinned(key, |v| v.len()).unwrap().unwrap();
    }
    let reads = keys.len() as f64 / started.elapsed().as_secs_f64();
    assert_eq!(total, keys.len() * SIZE);
    println!(
        "{:?} {puts:.0} {flush_ms:.1} {reads:.0}",
        pinrocks::options::crc32c_mode()
    );
}

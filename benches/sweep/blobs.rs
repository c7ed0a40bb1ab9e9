//! The blob regime: values in blob files (RocksDB's integrated BlobDB), read with a blob
//! cache that holds them all and with none (each read takes the blob from its file, in the
//! OS page cache, into a new buffer), through pinrocks' pinned, buffer and Vec tiers and the
//! `rocksdb` crate's `get_pinned` and `get`; beside them pinrocks' pinned read of the same
//! values stored inline (in SST blocks, block cache), for the crossover. Every way of reading
//! runs in the same rounds, paired and interleaved (`paired.rs`).
//!
//! `sweep blobs [--quick]`: a markdown table.

use std::path::Path;
use std::time::Duration;

use pinrocks::options::Cache;
use pinrocks::{CopyResult, Db};

use crate::paired::{self, Ratio, Read};
use crate::tiers;

pub const SIZES: [usize; 4] = [4096, 65536, 1 << 20, 16 << 20];
const WAYS: [&str; 9] = [
    "cached pinned",
    "cached buffer",
    "cached vec",
    "rocksdb cached get_pinned",
    "rocksdb cached get",
    "file pinned",
    "file vec",
    "rocksdb file get_pinned",
    "inline pinned",
];

/// Blob values from `min_blob_size` 1 (every value here), one blob cache (or none) of the
/// sweep's cache size in one shard.
pub fn pinrocks_blob_db(dir: &Path, cached: bool, size: usize, count: usize) -> Db {
    let mut options = tiers::pinrocks_options();
    options
        .enable_blob_files(true)
        .min_blob_size(1)
        .blob_file_size(1 << 30);
    if cached {
        let cache = Cache::lru_sharded(tiers::CACHE_BYTES, 0).unwrap();
        options.blob_cache(&cache);
    }
    let db = Db::open(&options, dir).unwrap();
    for i in 0..count {
        db.put(&tiers::key(i), &tiers::value(i, size)).unwrap();
    }
    tiers::settle_pinrocks(&db, count);
    db
}

pub fn peer_blob_db(dir: &Path, cached: bool, size: usize, count: usize) -> rocksdb::DB {
    let mut options = tiers::peer_options();
    options.set_enable_blob_files(true);
    options.set_min_blob_size(1);
    options.set_blob_file_size(1 << 30);
    if cached {
        let mut lru = rocksdb::LruCacheOptions::default();
        lru.set_capacity(tiers::CACHE_BYTES);
        lru.set_num_shard_bits(0);
        options.set_blob_cache(&rocksdb::Cache::new_lru_cache_opts(&lru));
    }
    let db = rocksdb::DB::open(&options, dir).unwrap();
    for i in 0..count {
        db.put(tiers::key(i), tiers::value(i, size)).unwrap();
    }
    tiers::settle_peer(&db, count);
    db
}

pub fn main(quick: bool) {
    let (rounds, slice, sizes) = if quick {
        (2, Duration::from_millis(1), &SIZES[..2])
    } else {
        (36, Duration::from_millis(8), &SIZES[..])
    };
    println!(
        "| size | cached pinned | file pinned | inline pinned | cached pinned vs rocksdb `get_pinned` | cached pinned vs cached vec | cached buffer vs cached vec | file pinned vs rocksdb `get_pinned` | file pinned vs file vec | cached pinned vs inline pinned |"
    );
    println!("|---|---:|---:|---:|---|---|---|---|---|---|");
    for &size in crate::progress::steps("blobs", sizes.iter()) {
        // Fewer keys than the other regimes: five databases of them, up to 256 MiB each.
        let count = if quick {
            16
        } else {
            ((256 << 20) / size).clamp(16, 1024)
        };
        let keys = tiers::random_keys(count);
        let dirs: Vec<tempfile::TempDir> = (0..5).map(|_| tempfile::tempdir().unwrap()).collect();
        let cached = pinrocks_blob_db(dirs[0].path(), true, size, count);
        let file = pinrocks_blob_db(dirs[1].path(), false, size, count);
        let peer_cached = peer_blob_db(dirs[2].path(), true, size, count);
        let peer_file = peer_blob_db(dirs[3].path(), false, size, count);
        let inline = tiers::open_pinrocks(dirs[4].path(), tiers::Regime::BlockCache, size, count);
        let (c, f, i) = (cached.reader(), file.reader(), inline.reader());
        let mut buf = vec![0u8; size];
        let mut cached_pinned = |k: &[u8]| c.get_pinned(k, |v| v.len() as u64).unwrap().unwrap();
        let mut cached_buffer = |k: &[u8]| match c.get_into(k, &mut buf).unwrap() {
            CopyResult::Copied(n) => n as u64,
            other => panic!("{other:?}"),
        };
        let mut cached_vec = |k: &[u8]| c.get(k).unwrap().unwrap().len() as u64;
        let mut peer_cached_pinned =
            |k: &[u8]| peer_cached.get_pinned(k).unwrap().unwrap().len() as u64;
        let mut peer_cached_get = |k: &[u8]| peer_cached.get(k).unwrap().unwrap().len() as u64;
        let mut file_pinned = |k: &[u8]| f.get_pinned(k, |v| v.len() as u64).unwrap().unwrap();
        let mut file_vec = |k: &[u8]| f.get(k).unwrap().unwrap().len() as u64;
        let mut peer_file_pinned =
            |k: &[u8]| peer_file.get_pinned(k).unwrap().unwrap().len() as u64;
        let mut inline_pinned = |k: &[u8]| i.get_pinned(k, |v| v.len() as u64).unwrap().unwrap();
        let mut ways: [Read<'_>; 9] = [
            &mut cached_pinned,
            &mut cached_buffer,
            &mut cached_vec,
            &mut peer_cached_pinned,
            &mut peer_cached_get,
            &mut file_pinned,
            &mut file_vec,
            &mut peer_file_pinned,
            &mut inline_pinned,
        ];
        for read in ways.iter_mut() {
            assert_eq!(read(&tiers::key(0)), size as u64);
        }
        // A read from the file takes up to 36 ms (16 MiB): look at the clock after each,
        // or a slice would last 16 of them.
        let (r, _) = paired::run_checking(&mut ways, &keys, rounds, slice, 1);
        let ns = |i: usize| paired::median(&mut r.ns[i].clone());
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            size_name(size),
            time(ns(0)),
            time(ns(5)),
            time(ns(8)),
            Ratio::of(&r.ns[3], &r.ns[0]).cell(),
            Ratio::of(&r.ns[2], &r.ns[0]).cell(),
            Ratio::of(&r.ns[2], &r.ns[1]).cell(),
            Ratio::of(&r.ns[7], &r.ns[5]).cell(),
            Ratio::of(&r.ns[6], &r.ns[5]).cell(),
            Ratio::of(&r.ns[8], &r.ns[0]).cell(),
        );
        eprintln!("sweep: blobs {size} B done");
    }
    println!(
        "\n{} rounds of {} ms per way of reading ({WAYS:?}), interleaved, in a balanced \
         order (Williams); \"cached\": blob files with a blob cache holding every value; \
         \"file\": no blob cache, each read takes its blob from the file (OS page cache); \
         \"inline\": the same values in SST blocks, block cache. \"A vs B\": how many times \
         faster A is, median of per-round ratios [95% bootstrap interval] (first half / \
         second half); `~`: the interval includes 1.",
        rounds.next_multiple_of(paired::cycle(WAYS.len())),
        slice.as_millis()
    );
}

fn size_name(size: usize) -> String {
    match size {
        s if s >= 1 << 20 => format!("{} MiB", s >> 20),
        s if s >= 1 << 10 => format!("{} KiB", s >> 10),
        s => format!("{s} B"),
    }
}

fn time(ns: f64) -> String {
    if ns >= 10_000.0 {
        format!("{:.1} us", ns / 1000.0)
    } else {
        format!("{ns:.0} ns")
    }
}

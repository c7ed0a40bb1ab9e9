//! Performs N reads of one tier at one value size from the block cache, for counting heap
//! allocations under valgrind (both sides of the FFI boundary, C++ `new` included).
//! `scripts/count-allocations.sh` runs it at two N and takes the difference, so setup and
//! teardown cancel out.
//!
//! `cargo run --release --example alloc_count -- <tier> <value size> <reads>`

use bytes::BytesMut;
use pinrocks::{CopyResult, Db, Options};

const TIERS: &[&str] = &[
    "vec",
    "buffer",
    "pinned",
    "pinned_v2",
    "guard",
    "bytes",
    "rocksdb_get",
    "rocksdb_get_pinned",
];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [tier, size, reads] = &args[..] else {
        eprintln!("usage: alloc_count <tier> <value size> <reads>; tiers: {TIERS:?}");
        std::process::exit(2);
    };
    let size: usize = size.parse().expect("value size");
    let reads: usize = reads.parse().expect("reads");
    let dir = tempfile::tempdir().expect("temporary directory");
    {
        let mut options = Options::new();
        options
            .create_if_missing(true)
            .block_cache_size(64 << 20)
            .block_cache_shard_bits(0);
        let db = Db::open(&options, dir.path()).unwrap();
        db.put(b"key", &vec![7u8; size]).unwrap();
        db.flush().unwrap();
        db.compact_range(None, None).unwrap();
    }
    let key = &b"key"[..];
    let total: usize = if tier.starts_with("rocksdb_") {
        // The same block cache as ours: 64 MiB in one shard.
        let mut lru = rocksdb::LruCacheOptions::default();
        lru.set_capacity(64 << 20);
        lru.set_num_shard_bits(0);
        let mut table = rocksdb::BlockBasedOptions::default();
        table.set_block_cache(&rocksdb::Cache::new_lru_cache_opts(&lru));
        let mut options = rocksdb::Options::default();
        options.set_block_based_table_factory(&table);
        let peer = rocksdb::DB::open(&options, dir.path()).unwrap();
        let read = || match tier.as_str() {
            "rocksdb_get" => peer.get(key).unwrap().unwrap().len(),
            "rocksdb_get_pinned" => peer.get_pinned(key).unwrap().unwrap().len(),
            _ => unreachable!(),
        };
        (0..=reads).map(|_| read()).sum()
    } else {
        let mut options = Options::new();
        options.block_cache_size(64 << 20).block_cache_shard_bits(0);
        let db = Db::open(&options, dir.path()).unwrap();
        let reader = db.reader();
        let mut buf = BytesMut::with_capacity(size);
        let mut plain = vec![0u8; size];
        let mut read = || match tier.as_str() {
            "vec" => reader.get(key).unwrap().unwrap().len(),
            "buffer" => match reader.get_into(key, &mut plain).unwrap() {
                CopyResult::Copied(n) => n,
                other => panic!("{other:?}"),
            },
            "buffer_bytes" => {
                reader.get_into_bytes(key, &mut buf).unwrap();
                buf.len()
            }
            "pinned" => reader.get_pinned(key, <[u8]>::len).unwrap().unwrap(),
            "pinned_v2" => reader.get_pinned_v2(key, <[u8]>::len).unwrap().unwrap(),
            "guard" => reader.pin(key).unwrap().unwrap().len(),
            "bytes" => reader.get_bytes(key).unwrap().unwrap().len(),
            other => panic!("unknown tier {other}; tiers: {TIERS:?}"),
        };
        // One warm-up read (block cache fill), then `reads` measured ones.
        (0..=reads).map(|_| read()).sum()
    };
    assert_eq!(total, size * (reads + 1));
}

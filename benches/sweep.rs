//! The value-size sweep: every read tier, and the `rocksdb` crate as the peer, reading
//! random keys of one value size from the block cache of a flushed, compacted database.
//!
//! `PINROCKS_SIZES=8,4096 cargo bench --bench sweep` limits the sizes.

use std::hint::black_box;

use bytes::BytesMut;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use pinrocks::{Db, Options};

const KEYS: usize = 2048;
const CACHE: usize = 1 << 30;

fn sizes() -> Vec<usize> {
    std::env::var("PINROCKS_SIZES")
        .map(|list| {
            list.split(',')
                .map(|s| s.trim().parse().expect("a size in bytes"))
                .collect()
        })
        .unwrap_or_else(|_| vec![8, 16, 128, 1024, 4096, 65536, 1 << 20])
}

/// Keys in a fixed pseudo-random order, built before measuring.
fn key_order(count: usize) -> Vec<Vec<u8>> {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    (0..count * 4)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            format!("key-{:06}", state as usize % count).into_bytes()
        })
        .collect()
}

fn populate(size: usize) -> (tempfile::TempDir, Db) {
    let dir = tempfile::tempdir().unwrap();
    let mut options = Options::new();
    // One shard: with 64 shards, 1 MiB blocks hash unevenly and some are evicted.
    options
        .create_if_missing(true)
        .block_cache_size(CACHE)
        .block_cache_shard_bits(0);
    let db = Db::open(&options, dir.path()).unwrap();
    let count = KEYS.min((256 << 20) / size.max(1)).max(16);
    for i in 0..count {
        db.put(format!("key-{i:06}").as_bytes(), &vec![i as u8; size])
            .unwrap();
    }
    db.flush().unwrap();
    db.compact_range(None, None).unwrap();
    (dir, db)
}

fn sweep(c: &mut Criterion) {
    for size in sizes() {
        let (dir, db) = populate(size);
        let count = KEYS.min((256 << 20) / size.max(1)).max(16);
        let keys = key_order(count);
        let mut group = c.benchmark_group(format!("block_cache/{size}B"));
        group.throughput(Throughput::Elements(1));
        let mut next = 0usize;
        let mut key = || {
            next = (next + 1) % keys.len();
            &keys[next][..]
        };
        group.bench_function(BenchmarkId::new("vec", size), |b| {
            b.iter(|| black_box(db.get(key()).unwrap().map(|v| v.len())))
        });
        let mut buf = BytesMut::with_capacity(size);
        group.bench_function(BenchmarkId::new("buffer", size), |b| {
            b.iter(|| {
                db.reader().get_into_bytes(key(), &mut buf).unwrap();
                black_box(buf.len())
            })
        });
        group.bench_function(BenchmarkId::new("pinned", size), |b| {
            b.iter(|| black_box(db.get_pinned(key(), <[u8]>::len).unwrap()))
        });
        group.bench_function(BenchmarkId::new("pinned_v2", size), |b| {
            b.iter(|| black_box(db.reader().get_pinned_v2(key(), <[u8]>::len).unwrap()))
        });
        drop(db);

        // The peer, on the same files and the same RocksDB build.
        let mut peer_options = rocksdb::Options::default();
        let mut lru = rocksdb::LruCacheOptions::default();
        lru.set_capacity(CACHE);
        lru.set_num_shard_bits(0);
        let mut table = rocksdb::BlockBasedOptions::default();
        table.set_block_cache(&rocksdb::Cache::new_lru_cache_opts(&lru));
        peer_options.set_block_based_table_factory(&table);
        let peer = rocksdb::DB::open(&peer_options, dir.path()).unwrap();
        group.bench_function(BenchmarkId::new("rocksdb_get", size), |b| {
            b.iter(|| black_box(peer.get(key()).unwrap().map(|v| v.len())))
        });
        group.bench_function(BenchmarkId::new("rocksdb_get_pinned", size), |b| {
            b.iter(|| black_box(peer.get_pinned(key()).unwrap().map(|v| v.len())))
        });
        group.finish();
    }
}

criterion_group!(benches, sweep);
criterion_main!(benches);

//! A shared block cache: one `Cache` across column families and databases, its usage and
//! pinned usage, and what keeps it alive.

use crate::common::{create_options, patterned};
use pinrocks::options::{Cache, HyperClockCacheOptions};
use pinrocks::{Db, Error, ErrorKind, Options};

/// A database at `dir` reading through `cache`, holding `value` at `k` in an SST file.
fn db_with(cache: &Cache, dir: &std::path::Path, value: &[u8]) -> Db {
    let mut options = create_options();
    options.block_cache(cache);
    let db = Db::open(&options, dir).unwrap();
    db.put(b"k", value).unwrap();
    db.flush().unwrap();
    db
}

#[test]
fn one_cache_serves_two_databases_and_reports_their_pins() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::lru_sharded(8 << 20, 0).unwrap();
    assert_eq!(cache.capacity(), 8 << 20);
    let (va, vb) = (patterned(20_000, 1), patterned(30_000, 2));
    let a = db_with(&cache, &dir.path().join("a"), &va);
    let b = db_with(&cache, &dir.path().join("b"), &vb);
    let before = cache.usage();
    let pinned_before = cache.pinned_usage();
    let ga = a.reader().pin(b"k").unwrap().unwrap();
    let gb = b.reader().pin(b"k").unwrap().unwrap();
    assert_eq!((&ga[..], &gb[..]), (&va[..], &vb[..]));
    assert!(
        cache.usage() >= before + 50_000,
        "both blocks in the one cache"
    );
    assert!(
        cache.pinned_usage() >= pinned_before + 50_000,
        "both pinned"
    );
    drop((ga, gb));
    assert_eq!(cache.pinned_usage(), pinned_before, "released");
    cache.set_capacity(1 << 20);
    assert_eq!(cache.capacity(), 1 << 20);
}

#[test]
fn bytes_keep_a_shared_cache_alive_after_everything_else_let_go() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(&create_options(), dir.path()).unwrap();
    let value = patterned(3000, 5);
    let bytes = {
        let cache = Cache::lru_sharded(1 << 20, 0).unwrap();
        let mut options = Options::new();
        options.block_cache(&cache);
        let cf = db.create_cf("cached", &options).unwrap();
        cf.writer().put(b"k", &value).unwrap();
        cf.flush().unwrap();
        cf.reader().get_bytes(b"k").unwrap().unwrap()
        // the Cache, the Options and the ColumnFamily all drop here
    };
    db.drop_cf("cached").unwrap();
    let churn: Vec<Vec<u8>> = (0..64).map(|i| vec![i as u8; 4096]).collect();
    assert_eq!(&bytes[..], &value[..]);
    drop(churn);
    drop(bytes);
}

#[test]
fn every_kind_of_cache_reads_exactly() {
    let value = patterned(10_000, 9);
    for cache in [
        Cache::lru(4 << 20),
        Cache::lru_strict(4 << 20),
        Cache::hyper_clock(4 << 20, 0),
        Cache::lru_sharded(4 << 20, 2).unwrap(),
        Cache::hyper_clock_with(&HyperClockCacheOptions {
            capacity: 4 << 20,
            estimated_entry_charge: 0,
            shard_bits: Some(2),
        })
        .unwrap(),
        Cache::hyper_clock_with(&HyperClockCacheOptions {
            capacity: 4 << 20,
            estimated_entry_charge: 4096,
            shard_bits: Some(0),
        })
        .unwrap(),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let db = db_with(&cache, dir.path(), &value);
        assert_eq!(
            db.get(b"k").unwrap().as_deref(),
            Some(&value[..]),
            "{cache:?}"
        );
        assert!(cache.usage() > 0, "{cache:?}");
    }
    assert!(Cache::lru_sharded(1 << 20, 20).is_err());
    // A table of one slot per byte of usize::MAX: RocksDB's allocation fails inside the
    // guarded call, an error here, not an abort.
    let huge = HyperClockCacheOptions {
        capacity: usize::MAX,
        estimated_entry_charge: 1,
        shard_bits: Some(0),
    };
    match Cache::hyper_clock_with(&huge) {
        Err(Error::RocksDb { kind, .. }) => assert_eq!(kind, ErrorKind::MemoryLimit),
        other => panic!("expected MemoryLimit, got {other:?}"),
    }
    let mut refused = HyperClockCacheOptions::new(1 << 20);
    refused.shard_bits = Some(20);
    match Cache::hyper_clock_with(&refused) {
        Err(Error::InvalidInput { detail, .. }) => assert!(detail.contains("20"), "{detail}"),
        other => panic!("expected InvalidInput, got {other:?}"),
    }
}

/// A block cache too small for the data, with a compressed secondary cache under it: after
/// blocks were evicted twice (RocksDB's admission: a placeholder the first time), reads find
/// them there; every value reads exactly. Without one, nothing is counted there.
#[test]
fn a_secondary_cache_serves_blocks_the_cache_evicted() {
    use pinrocks::options::{Compression, LruCacheOptions, Ticker};
    for secondary_capacity in [0, 8 << 20] {
        let cache = Cache::lru_with(&LruCacheOptions {
            secondary_capacity,
            secondary_compression: Compression::None,
            ..LruCacheOptions::new(32 << 10)
        })
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let mut options = create_options();
        options.block_cache(&cache).enable_statistics();
        let db = Db::open(&options, dir.path()).unwrap();
        for i in 0..400u32 {
            db.put(&i.to_be_bytes(), &patterned(1000, i as u8)).unwrap();
        }
        db.flush().unwrap();
        for _ in 0..4 {
            for i in 0..400u32 {
                let value = db.get(&i.to_be_bytes()).unwrap().unwrap();
                assert_eq!(value, patterned(1000, i as u8));
            }
        }
        let stats = db.statistics().unwrap().snapshot().unwrap();
        let hits = stats.ticker(Ticker::CompressedSecondaryCacheHits);
        if secondary_capacity == 0 {
            assert_eq!(hits, 0);
        } else {
            assert!(hits > 0, "no secondary cache hit");
            assert!(stats.ticker(Ticker::CompressedSecondaryCacheDummyHits) > 0);
        }
    }
}

/// A secondary cache of the whole address space: RocksDB sizes it by what it holds, not by
/// its capacity; every value reads exactly.
#[test]
fn a_secondary_cache_as_large_as_memory_is_sized_by_use() {
    use pinrocks::options::LruCacheOptions;
    let cache = Cache::lru_with(&LruCacheOptions {
        secondary_capacity: usize::MAX,
        ..LruCacheOptions::new(32 << 10)
    })
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut options = create_options();
    options.block_cache(&cache);
    let db = Db::open(&options, dir.path()).unwrap();
    for i in 0..200u32 {
        db.put(&i.to_be_bytes(), &patterned(1000, i as u8)).unwrap();
    }
    db.flush().unwrap();
    for _ in 0..3 {
        for i in 0..200u32 {
            assert_eq!(
                db.get(&i.to_be_bytes()).unwrap(),
                Some(patterned(1000, i as u8))
            );
        }
    }
}

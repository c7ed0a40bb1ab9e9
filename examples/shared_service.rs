//! One `Db` shared by a service's threads, with production options: a block cache and a
//! write buffer budget shared by two databases, statistics, bloom filters. Readers use
//! pinned reads (no copy, no allocation per read); a writer commits batches atomically.
//! `Db` is `Send + Sync`: share it by reference in scoped threads, or in an `Arc`.
//!
//! `cargo run --release --example shared_service`

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use pinrocks::options::{Cache, Ticker, WriteBufferManager};
use pinrocks::{Db, Options, WriteBatch};

fn main() -> pinrocks::Result<()> {
    // Budgets for the whole process: 64 MiB of blocks, 32 MiB of memtables (charged to
    // the cache too, so one number bounds both).
    let cache = Cache::lru(64 << 20);
    let memtables = WriteBufferManager::with_cache(32 << 20, &cache, false);
    let mut options = Options::new();
    options
        .create_if_missing(true)
        .block_cache(&cache)
        .bloom_filter(10.0)
        .write_buffer_manager(&memtables)
        .enable_statistics();

    let dir = tempfile::tempdir().expect("temporary directory");
    let orders = Db::open(&options, dir.path().join("orders"))?;
    let sessions = Db::open(&options, dir.path().join("sessions"))?; // same budgets
    sessions.put(b"session:1", b"alice")?;

    let stop = AtomicBool::new(false);
    let reads = AtomicU64::new(0);
    std::thread::scope(|s| -> pinrocks::Result<()> {
        let writer = s.spawn(|| -> pinrocks::Result<()> {
            for round in 0..200u32 {
                // A batch is all or nothing: both keys of a round, or neither.
                let mut batch = WriteBatch::new();
                batch
                    .writer()
                    .put(format!("order:{round}").as_bytes(), b"new")?;
                batch.writer().put(b"order:last", &round.to_be_bytes())?;
                orders.write(&batch)?;
            }
            stop.store(true, Ordering::Relaxed);
            Ok(())
        });
        let readers: Vec<_> = (0..3)
            .map(|_| {
                s.spawn(|| -> pinrocks::Result<()> {
                    let reader = orders.reader();
                    while !stop.load(Ordering::Relaxed) {
                        // The bytes are borrowed from RocksDB's pin inside the closure.
                        let last = reader.get_pinned(b"order:last", |v| {
                            u32::from_be_bytes(v.try_into().expect("4 bytes"))
                        })?;
                        if let Some(round) = last {
                            // The batch that wrote `last` wrote its order too.
                            let order = format!("order:{round}");
                            assert!(reader.get_pinned(order.as_bytes(), |v| v.len())?.is_some());
                        }
                        reads.fetch_add(1, Ordering::Relaxed);
                    }
                    Ok(())
                })
            })
            .collect();
        writer.join().expect("no panic")?;
        readers
            .into_iter()
            .try_for_each(|r| r.join().expect("no panic"))
    })?;

    let written = orders
        .statistics()
        .map_or(0, |stats| stats.ticker(Ticker::NumberKeysWritten));
    // One statistics object per `Options`: both databases count into it (400 + 1).
    assert_eq!(written, 401);
    assert_eq!(sessions.get(b"session:1")?.as_deref(), Some(&b"alice"[..]));
    println!(
        "{} reads beside {written} keys written; cache holds {} bytes for both databases",
        reads.load(Ordering::Relaxed),
        cache.usage()
    );
    Ok(())
}

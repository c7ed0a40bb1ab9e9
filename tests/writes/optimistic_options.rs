//! An optimistic transaction database's options: each way of checking commits (serial,
//! parallel over buckets of its own, over buckets shared by two databases) finds the same
//! conflicts and commits the same bytes; the buckets' memory is what RocksDB says; 0 buckets
//! and more than RocksDB counts are refused.

use pinrocks::options::{OccLockBuckets, OccValidation, OptimisticTransactionDbOptions};
use pinrocks::{Db, Error, ErrorKind};

/// A transaction whose key another writer changes after it wrote it fails with `Busy` and
/// writes nothing; one that no one disturbs commits its exact bytes.
fn conflicts_and_commits(db: &Db, tag: &[u8]) {
    let mut loser = db.begin().unwrap();
    loser.writer().put(b"k", b"loser").unwrap();
    loser.writer().put(b"only-loser", tag).unwrap();
    db.put(b"k", tag).unwrap();
    let result = loser.commit();
    assert!(
        matches!(
            result,
            Err(Error::RocksDb {
                kind: ErrorKind::Busy,
                ..
            })
        ),
        "{result:?}"
    );
    assert_eq!(db.get(b"only-loser").unwrap(), None);
    assert_eq!(db.get(b"k").unwrap().as_deref(), Some(tag));

    let mut winner = db.begin().unwrap();
    winner.writer().put(b"k", b"winner").unwrap();
    winner.writer().put(b"w", tag).unwrap();
    winner.commit().unwrap();
    assert_eq!(db.get(b"k").unwrap().as_deref(), Some(&b"winner"[..]));
    assert_eq!(db.get(b"w").unwrap().as_deref(), Some(tag));
}

fn open(path: &std::path::Path, occ: &OptimisticTransactionDbOptions) -> Db {
    let options = crate::common::create_options();
    Db::open_optimistic_transaction_db_with(&options, occ, path, []).unwrap()
}

#[test]
fn every_way_of_checking_commits_finds_the_same_conflicts() {
    let dir = tempfile::tempdir().unwrap();
    let mut serial = OptimisticTransactionDbOptions::new();
    serial.validation(OccValidation::Serial);
    conflicts_and_commits(&open(&dir.path().join("serial"), &serial), b"serial");

    let mut few = OptimisticTransactionDbOptions::new();
    few.validation(OccValidation::Parallel).lock_buckets(16);
    conflicts_and_commits(&open(&dir.path().join("few"), &few), b"few");

    conflicts_and_commits(
        &open(
            &dir.path().join("defaults"),
            &OptimisticTransactionDbOptions::new(),
        ),
        b"defaults",
    );

    // Two databases on one set of buckets, which outlives its `OccLockBuckets` and the
    // options: each database holds it.
    let buckets = OccLockBuckets::new(64, true).unwrap();
    let mut shared = OptimisticTransactionDbOptions::new();
    shared.shared_lock_buckets(&buckets);
    drop(buckets);
    let a = open(&dir.path().join("a"), &shared);
    let b = open(&dir.path().join("b"), &shared);
    drop(shared);
    conflicts_and_commits(&a, b"a");
    conflicts_and_commits(&b, b"b");
}

#[test]
fn lock_buckets_cost_a_mutex_each_and_none_is_refused() {
    let usage = |count, aligned| {
        OccLockBuckets::new(count, aligned)
            .unwrap()
            .approximate_memory_usage()
    };
    // A `pthread_mutex_t` (40 bytes on x86-64 Linux) a bucket, or a cache line.
    #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
    {
        assert_eq!(usage(1024, false) - usage(16, false), 1008 * 40);
        assert_eq!(usage(1024, true) - usage(16, true), 1008 * 64);
        // RocksDB's default of 2^20 buckets of a database's own: 40 MiB.
        assert_eq!(
            usage(1 << 20, false) - usage(1, false),
            ((1 << 20) - 1) * 40
        );
    }
    assert!(usage(1024, true) > usage(1024, false));
    // 0, and more than RocksDB's own `u32` count (near 2^57 cache-aligned buckets, the
    // array's size overflows inside the C++ allocation): refused.
    for (count, aligned) in [
        (0, false),
        (u32::MAX as usize + 1, false),
        (usize::MAX, true),
        ((1 << 58) + 1, true),
    ] {
        let refused = OccLockBuckets::new(count, aligned);
        assert!(
            matches!(refused, Err(Error::InvalidInput { .. })),
            "{count}: {refused:?}"
        );
    }
}

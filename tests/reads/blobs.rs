//! Large values in blob files (RocksDB's integrated BlobDB): every read tier returns them
//! byte for byte from the memtable, from blob files with and without a blob cache, after
//! garbage collection rewrote the files (`blob_gc.rs`) and across reopen; through
//! transactions, indexed batches, scans, checkpoints and backups; a pin from the blob cache
//! holds the cache's entry (no copy), and an owned `Bytes` outlives the `Db`, the `Cache`
//! and the family.

use crate::common::{create_options, every_tier, patterned, settle, Stage, STAGES};
use pinrocks::admin::BackupEngine;
use pinrocks::options::{Cache, TransactionDbOptions};
use pinrocks::{properties, ColumnFamily, Db, Options, ReadOptions};

/// Values of these sizes are written; the ones of at least `MIN_BLOB` go to blob files.
const SIZES: [usize; 6] = [100, 1000, 1024, 4096, 70_000, 1 << 20];
pub(crate) const MIN_BLOB: u64 = 1024;

pub(crate) fn blob_options(cache: Option<&Cache>) -> Options {
    let mut options = create_options();
    options
        .enable_blob_files(true)
        .min_blob_size(MIN_BLOB)
        .blob_file_size(4 << 20);
    if let Some(cache) = cache {
        options.blob_cache(cache);
    }
    options
}

pub(crate) fn values(seed: u8) -> Vec<(Vec<u8>, Vec<u8>)> {
    SIZES
        .iter()
        .enumerate()
        .map(|(i, &len)| {
            let key = format!("key-{i:02}").into_bytes();
            (key, patterned(len, seed.wrapping_add(i as u8)))
        })
        .collect()
}

pub(crate) fn blob_count(values: &[(Vec<u8>, Vec<u8>)]) -> u64 {
    values
        .iter()
        .filter(|(_, v)| v.len() as u64 >= MIN_BLOB)
        .count() as u64
}

/// Every tier of `cf` (with the default read options and with no cache filling and
/// checksums verified) returns each of `values`, and a scan returns them all in order.
pub(crate) fn check_all(cf: &ColumnFamily<'_>, values: &[(Vec<u8>, Vec<u8>)], context: &str) {
    let mut no_fill = ReadOptions::new();
    no_fill.fill_cache(false).verify_checksums(true);
    // Without filling the cache first: a blob not in the blob cache is read into a buffer
    // the pin owns; then the default reads fill the cache (when there is one).
    for (key, value) in values {
        let what = format!("{context}, {} bytes", value.len());
        let reader = cf.reader().options(&no_fill);
        assert_eq!(
            every_tier(reader, key).as_ref(),
            Some(value),
            "{what}, no fill"
        );
        assert_eq!(every_tier(cf.reader(), key).as_ref(), Some(value), "{what}");
    }
    let scanned: Vec<(Vec<u8>, Vec<u8>)> = cf
        .reader()
        .scan(.., |k, v| (k.to_vec(), v.to_vec()))
        .collect::<pinrocks::Result<_>>()
        .unwrap();
    assert_eq!(scanned, values, "{context}, scan");
    let mut back = Vec::new();
    let mut it = cf.reader().iter();
    it.seek_to_last();
    while let Some((k, v)) = it.entry() {
        back.push((k.to_vec(), v.to_vec()));
        it.prev();
    }
    it.status().unwrap();
    back.reverse();
    assert_eq!(back, values, "{context}, backward scan");
}

#[test]
fn blob_values_through_every_tier_with_and_without_a_blob_cache() {
    // One shard: with RocksDB's default shards of 1 MiB here, a 1 MiB blob is larger than
    // its shard and leaves the cache as soon as it is unpinned.
    for cache in [None, Some(Cache::lru_sharded(64 << 20, 0).unwrap())] {
        let dir = tempfile::tempdir().unwrap();
        let options = blob_options(cache.as_ref());
        let values = values(1);
        {
            let db = Db::open_cf(&options, dir.path(), ["cf"]).unwrap();
            let cf = db.cf("cf").unwrap();
            for stage in STAGES {
                for (key, value) in &values {
                    cf.writer().put(key, value).unwrap();
                }
                settle(&[&cf], stage);
                let context = format!("cache {:?}, {stage:?}", cache.is_some());
                check_all(&cf, &values, &context);
                let files = cf.blob_files().unwrap();
                let live: u64 = files.iter().map(|f| f.blob_count - f.garbage_count).sum();
                match stage {
                    Stage::Memtable => assert!(files.is_empty(), "{context}: {files:?}"),
                    _ => assert_eq!(live, blob_count(&values), "{context}: {files:?}"),
                }
                let count = cf.get_property(&properties::NUM_BLOB_FILES).unwrap();
                assert_eq!(count, Some(files.len() as u64), "{context}");
            }
            if let Some(cache) = &cache {
                // The largest value was read through the cache: a pin of it holds the entry.
                let (key, value) = values.last().unwrap();
                let pin = cf.reader().pin(key).unwrap().unwrap();
                assert!(
                    cache.pinned_usage() >= value.len(),
                    "a pin holds the blob cache's entry: {}",
                    cache.pinned_usage()
                );
                drop(pin);
                assert_eq!(cache.pinned_usage(), 0);
            }
        }
        let db = Db::open_cf(&options, dir.path(), ["cf"]).unwrap();
        let cf = db.cf("cf").unwrap();
        check_all(
            &cf,
            &values,
            &format!("reopened, cache {:?}", cache.is_some()),
        );
    }
}

#[test]
fn a_pin_from_the_blob_cache_holds_the_cache_entry_and_copies_nothing() {
    let value = patterned(1 << 20, 3);
    // One shard: a 1 MiB blob stays in the cache when unpinned.
    for cache in [None, Some(Cache::lru_sharded(64 << 20, 0).unwrap())] {
        let dir = tempfile::tempdir().unwrap();
        // A block cache of its own, so neither cache's usage counts the other's entries.
        let blocks = Cache::lru(8 << 20);
        let mut options = blob_options(cache.as_ref());
        options.block_cache(&blocks);
        let db = Db::open(&options, dir.path()).unwrap();
        db.put(b"k", &value).unwrap();
        db.flush().unwrap();
        db.get_pinned(b"k", |_| ()).unwrap().unwrap(); // into the blob cache, if any
        let a = db.reader().pin(b"k").unwrap().unwrap();
        let b = db.reader().pin(b"k").unwrap().unwrap();
        let bytes = db.reader().get_bytes(b"k").unwrap().unwrap();
        assert_eq!(&a[..], &value[..]);
        assert_eq!(&b[..], &value[..]);
        assert_eq!(&bytes[..], &value[..]);
        // No pin is a block-cache block: the SST holds only the blob index.
        assert!(blocks.pinned_usage() < 4096, "{}", blocks.pinned_usage());
        if let Some(cache) = &cache {
            // Both pins and the Bytes point at one buffer: the cache's entry.
            assert_eq!(a.as_ptr(), b.as_ptr());
            assert_eq!(a.as_ptr(), bytes.as_ptr());
            assert!(
                cache.pinned_usage() >= value.len(),
                "{}",
                cache.pinned_usage()
            );
            drop((a, b, bytes));
            assert_eq!(cache.pinned_usage(), 0, "the pins released the entry");
            assert!(cache.usage() >= value.len(), "and it stays cached");
        }
    }
}

#[test]
fn owned_bytes_of_a_blob_outlive_the_db_the_cache_and_the_family() {
    let dir = tempfile::tempdir().unwrap();
    let value = patterned(200_000, 4);
    let cache = Cache::lru_sharded(16 << 20, 0).unwrap();
    let options = blob_options(Some(&cache));
    let db = Db::open(&options, dir.path()).unwrap();
    let cf = db.create_cf("blobs", &options).unwrap();
    cf.writer().put(b"k", &value).unwrap();
    cf.flush().unwrap();
    // First a miss that does not fill the cache: the Bytes owns the buffer read.
    let mut no_fill = ReadOptions::new();
    no_fill.fill_cache(false);
    let owned = cf
        .reader()
        .options(&no_fill)
        .get_bytes(b"k")
        .unwrap()
        .unwrap();
    assert_eq!(cache.usage(), 0, "nothing went into the blob cache");
    let from_cache = cf.reader().get_bytes(b"k").unwrap().unwrap();
    assert!(
        cache.pinned_usage() >= value.len(),
        "the second holds the entry"
    );
    assert_ne!(owned.as_ptr(), from_cache.as_ptr());
    drop(cf);
    db.drop_cf("blobs").unwrap();
    drop(db);
    drop((cache, options));
    assert_eq!(&from_cache[..], &value[..]);
    assert_eq!(&owned[..], &value[..]);
    let sent = std::thread::spawn(move || from_cache.to_vec())
        .join()
        .unwrap();
    assert_eq!(sent, value);
    drop(owned);
}

#[test]
fn blob_values_through_transactions_and_indexed_batches() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::lru(64 << 20);
    let options = blob_options(Some(&cache));
    let db =
        Db::open_transaction_db(&options, &TransactionDbOptions::new(), dir.path(), []).unwrap();
    let stored = values(20);
    for (key, value) in &stored {
        db.put(key, value).unwrap();
    }
    db.flush().unwrap();
    let mut txn = db.begin().unwrap();
    let own = patterned(50_000, 21);
    txn.writer().put(b"key-00", &own).unwrap();
    assert_eq!(every_tier(txn.reader(), b"key-00"), Some(own.clone()));
    for (key, value) in &stored[1..] {
        assert_eq!(every_tier(txn.reader(), key).as_ref(), Some(value));
    }
    txn.commit().unwrap();
    db.flush().unwrap();

    let mut batch = db.indexed_batch().unwrap();
    let replaced = patterned(9000, 22);
    batch.writer().put(b"key-01", &replaced).unwrap();
    assert_eq!(every_tier(batch.reader(), b"key-01"), Some(replaced));
    assert_eq!(every_tier(batch.reader(), b"key-00"), Some(own));
    for (key, value) in &stored[2..] {
        assert_eq!(every_tier(batch.reader(), key).as_ref(), Some(value));
    }
}

#[test]
fn checkpoints_and_backups_carry_the_blob_files() {
    let dir = tempfile::tempdir().unwrap();
    let options = blob_options(None);
    let db = Db::open(&options, dir.path().join("db")).unwrap();
    let stored = values(30);
    for (key, value) in &stored {
        db.put(key, value).unwrap();
    }
    db.flush().unwrap();
    let blob_names: Vec<String> = db
        .default_cf()
        .blob_files()
        .unwrap()
        .iter()
        .map(|f| f.name.trim_start_matches('/').to_owned())
        .collect();
    assert!(!blob_names.is_empty());

    db.checkpoint(dir.path().join("checkpoint")).unwrap();
    let backups = BackupEngine::open(&options, dir.path().join("backups")).unwrap();
    backups.create_backup(&db, false).unwrap();
    backups.verify(1).unwrap();
    backups.restore_latest(dir.path().join("restored")).unwrap();
    drop(db);
    for copy in ["checkpoint", "restored"] {
        let path = dir.path().join(copy);
        for name in &blob_names {
            assert!(path.join(name).exists(), "{copy} holds {name}");
        }
        let db = Db::open(&options, &path).unwrap();
        check_all(&db.default_cf(), &stored, copy);
    }
}

#[test]
fn blob_files_written_by_the_rocksdb_crate_are_read_and_written_back() {
    let dir = tempfile::tempdir().unwrap();
    let stored = values(40);
    {
        let mut options = rocksdb::Options::default();
        options.create_if_missing(true);
        options.set_enable_blob_files(true);
        options.set_min_blob_size(MIN_BLOB);
        let db = rocksdb::DB::open(&options, dir.path()).unwrap();
        for (key, value) in &stored {
            db.put(key, value).unwrap();
        }
        db.flush().unwrap();
    }
    let options = blob_options(Some(&Cache::lru(16 << 20)));
    let ours = patterned(300_000, 41);
    {
        let db = Db::open(&options, dir.path()).unwrap();
        assert!(!db.default_cf().blob_files().unwrap().is_empty());
        check_all(&db.default_cf(), &stored, "written by the rocksdb crate");
        db.put(b"pinrocks", &ours).unwrap();
        db.flush().unwrap();
    }
    let mut options = rocksdb::Options::default();
    options.set_enable_blob_files(true);
    options.set_min_blob_size(MIN_BLOB);
    let db = rocksdb::DB::open(&options, dir.path()).unwrap();
    assert_eq!(db.get(b"pinrocks").unwrap(), Some(ours));
    for (key, value) in &stored {
        assert_eq!(db.get_pinned(key).unwrap().as_deref(), Some(&value[..]));
    }
}

/// Large values, through every tier from the memtable and from blob files with and
/// without a blob cache. (Skipped under memcheck by its name.)
#[test]
fn blob_values_of_64_mib() {
    let cache = Cache::lru(256 << 20);
    for cache in [None, Some(&cache)] {
        let dir = tempfile::tempdir().unwrap();
        let mut options = blob_options(cache);
        options.write_buffer_size(256 << 20);
        let db = Db::open(&options, dir.path()).unwrap();
        let big = [
            (b"a16".to_vec(), patterned(16 << 20, 50)),
            (b"b64".to_vec(), patterned(64 << 20, 51)),
        ];
        for (key, value) in &big {
            db.put(key, value).unwrap();
        }
        for stage in [Stage::Memtable, Stage::Flushed] {
            settle(&[&db.default_cf()], stage);
            for (key, value) in &big {
                assert!(
                    every_tier(db.reader(), key).as_ref() == Some(value),
                    "{stage:?}"
                );
            }
        }
    }
}

#[test]
fn blob_files_per_family_and_switched_on_while_open() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(&create_options(), dir.path()).unwrap();
    let blobs = db.create_cf("blobs", &blob_options(None)).unwrap();
    let inline = db.default_cf();
    let value = patterned(5000, 60);
    for cf in [&inline, &blobs] {
        cf.writer().put(b"first", &value).unwrap();
        cf.flush().unwrap();
    }
    assert!(
        inline.blob_files().unwrap().is_empty(),
        "the default family keeps values inline"
    );
    let counts = |cf: &ColumnFamily<'_>| -> Vec<(u64, u64)> {
        let files = cf.blob_files().unwrap();
        files.iter().map(|f| (f.blob_count, f.blob_bytes)).collect()
    };
    let in_blobs = counts(&blobs);
    assert_eq!(in_blobs.len(), 1, "{in_blobs:?}");
    assert_eq!(in_blobs[0].0, 1);
    assert!(in_blobs[0].1 >= value.len() as u64, "{in_blobs:?}");

    // Switched on in the live default family: only what is flushed from now on moves.
    inline
        .set_options(&[("enable_blob_files", "true"), ("min_blob_size", "4096")])
        .unwrap();
    let small = patterned(4095, 61);
    inline.writer().put(b"second", &value).unwrap();
    inline.writer().put(b"small", &small).unwrap();
    inline.flush().unwrap();
    assert_eq!(counts(&inline).iter().map(|c| c.0).sum::<u64>(), 1);
    for (key, expected) in [
        (&b"first"[..], &value),
        (b"second", &value),
        (b"small", &small),
    ] {
        assert_eq!(every_tier(inline.reader(), key).as_ref(), Some(expected));
    }
    assert_eq!(every_tier(blobs.reader(), b"first"), Some(value));
}

#[test]
fn entity_columns_in_blob_files_read_back_exactly() {
    for cache in [None, Some(Cache::lru_sharded(16 << 20, 0).unwrap())] {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(&blob_options(cache.as_ref()), dir.path()).unwrap();
        // One column above `min_blob_size` (to a blob file), two below (inline).
        let big = patterned(70_000, 80);
        let columns = [
            (&b""[..], &b"small default"[..]),
            (&b"big"[..], &big[..]),
            (&b"tiny"[..], &b"t"[..]),
        ];
        db.writer().put_entity(b"e", &columns).unwrap();
        db.flush().unwrap();
        assert_eq!(
            db.default_cf().blob_files().unwrap().len(),
            1,
            "the big column went to a blob file"
        );
        let want: Vec<(Vec<u8>, Vec<u8>)> = columns
            .iter()
            .map(|(n, v)| (n.to_vec(), v.to_vec()))
            .collect();
        for _ in 0..2 {
            // The closure, guard and owned tiers alike (the helper compares them).
            let read = crate::entities::entity(db.reader(), b"e");
            assert_eq!(read.as_ref(), Some(&want));
            let mut it = db.reader().iter();
            it.seek_to_first();
            assert_eq!(it.columns().map(|c| c.to_vec()).as_ref(), Some(&want));
            assert_eq!(it.value(), Some(&b"small default"[..]));
        }
        assert_eq!(
            every_tier(db.reader(), b"e"),
            Some(b"small default".to_vec())
        );
        // An owned entity keeps its blob column (a blob-cache entry or an owned buffer)
        // past the database.
        let kept = db.reader().get_entity_owned(b"e").unwrap().unwrap();
        drop(db);
        assert_eq!(kept.columns().get(b"big"), Some(&big[..]));
    }
}

//! How keys are kept, set through the safe API and shown to work: every memtable kind, the
//! plain table format (and the cuckoo format refused), zlib and bzip2 compression, prefix
//! extractors written in Rust. Each reads back exactly what was written, through every tier, before and after a
//! flush, and each is read back from the OPTIONS file RocksDB writes.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crate::common::{create_options, every_tier, stored, value};
use pinrocks::callbacks::CustomPrefix;
use pinrocks::options::{
    BlockBasedOptions, Compression, Memtable, PlainTableOptions, PrefixExtractor,
};
use pinrocks::{Db, Error, Options};

const CF: &str = "CFOptions \"default\"";
const DB: &str = "DBOptions";

/// Writes 300 keys (`key:NNN`, fixed length) and checks each through every tier and the
/// whole order through a scan, in the memtable and again after a flush and a reopen.
fn writes_and_reads_back(options: &Options) -> std::path::PathBuf {
    let dir = tempfile::tempdir().unwrap().keep();
    let expected: Vec<(Vec<u8>, Vec<u8>)> = (0..300u32)
        .map(|i| {
            let key = format!("key:{i:03}").into_bytes();
            (
                key,
                format!("value {i} ")
                    .repeat(1 + i as usize % 7)
                    .into_bytes(),
            )
        })
        .collect();
    let check = |db: &Db| {
        for (key, value) in &expected {
            assert_eq!(every_tier(db.reader(), key).as_ref(), Some(value));
        }
        assert_eq!(every_tier(db.reader(), b"key:999"), None);
        let scanned: Vec<(Vec<u8>, Vec<u8>)> = db
            .reader()
            .scan(.., |k, v| (k.to_vec(), v.to_vec()))
            .collect::<pinrocks::Result<_>>()
            .unwrap();
        assert_eq!(scanned, expected);
    };
    {
        let db = Db::open(options, &dir).unwrap();
        // Shuffled, so that a memtable that sorts late (the vector) has work to do.
        for i in (0..300).map(|i| (i * 7) % 300) {
            let (key, value) = &expected[i];
            db.put(key, value).unwrap();
        }
        check(&db);
        db.flush().unwrap();
        check(&db);
    }
    let db = Db::open(options, &dir).unwrap();
    check(&db);
    dir
}

#[test]
fn every_memtable_kind_holds_what_was_written_in_order() {
    for (memtable, factory) in [
        (Memtable::SkipList, "SkipListFactory"),
        (
            Memtable::Vector { reserve: 64 },
            "{id=VectorRepFactory;count=64;}",
        ),
        (
            Memtable::HashSkipList {
                buckets: 1000,
                height: 5,
                branching: 3,
            },
            "{id=HashSkipListRepFactory;branching_factor=3;skiplist_height=5;bucket_count=1000;}",
        ),
        (
            Memtable::HashLinkList { buckets: 1000 },
            "{id=HashLinkListRepFactory;log_when_flash=true;logging_threshold=4096;\
             huge_page_size=0;threshold=256;bucket_count=1000;}",
        ),
    ] {
        let mut options = create_options();
        options
            .prefix_extractor(PrefixExtractor::Fixed(4))
            .memtable(memtable);
        let dir = writes_and_reads_back(&options);
        let written = stored(&dir);
        assert_eq!(
            value(&written, CF, "memtable_factory"),
            factory,
            "{memtable:?}"
        );
        // The hash kinds take no concurrent writes: choosing one turned them off.
        let concurrent = matches!(memtable, Memtable::SkipList | Memtable::Vector { .. });
        assert_eq!(
            value(&written, DB, "allow_concurrent_memtable_write"),
            concurrent.to_string()
        );
        std::fs::remove_dir_all(dir).unwrap();
    }
}

#[test]
fn plain_tables_hold_what_was_written_and_cuckoo_tables_are_refused() {
    // Without a prefix extractor a plain table is in total order: a binary search, no
    // hash of prefixes (RocksDB refuses a hash ratio without an extractor).
    let mut plain = create_options();
    plain.plain_table(&PlainTableOptions {
        bloom_bits_per_key: 8,
        hash_table_ratio: 0.0,
        ..PlainTableOptions::default()
    });
    let dir = writes_and_reads_back(&plain);
    let written = stored(&dir);
    assert_eq!(value(&written, CF, "table_factory"), "PlainTable");
    assert_eq!(
        value(
            &written,
            "TableOptions/PlainTable \"default\"",
            "bloom_bits_per_key"
        ),
        "8"
    );
    std::fs::remove_dir_all(dir).unwrap();

    // With one, its hash index answers point reads and prefix seeks, and RocksDB refuses a
    // seek in total order (what a range read with default options needs) with a typed error.
    let dir = tempfile::tempdir().unwrap();
    let mut hashed = create_options();
    hashed
        .prefix_extractor(PrefixExtractor::Fixed(4))
        .plain_table(&PlainTableOptions::default());
    let db = Db::open(&hashed, dir.path()).unwrap();
    for (key, value) in [
        (&b"aaaa1"[..], &b"1"[..]),
        (b"aaaa2", b"2"),
        (b"bbbb1", b"3"),
    ] {
        db.put(key, value).unwrap();
    }
    db.flush().unwrap();
    assert_eq!(db.get(b"aaaa2").unwrap().as_deref(), Some(&b"2"[..]));
    assert_eq!(db.get(b"bbbb2").unwrap(), None);
    assert_eq!(
        db.reader()
            .get_pinned(b"bbbb1", |v| v.to_vec())
            .unwrap()
            .as_deref(),
        Some(&b"3"[..])
    );
    // Prefix reads, with RocksDB's prefix seek instead of pinrocks' default automatic mode.
    let mut prefix_seek = pinrocks::ReadOptions::new();
    prefix_seek
        .auto_prefix_mode(false)
        .prefix_same_as_start(true);
    let prefixed: Vec<Vec<u8>> = db
        .reader()
        .options(&prefix_seek)
        .prefix_iter(b"aaaa")
        .forward(|k, _| k.to_vec())
        .collect::<pinrocks::Result<_>>()
        .unwrap();
    assert_eq!(prefixed, [b"aaaa1".to_vec(), b"aaaa2".to_vec()]);
    let err = db
        .reader()
        .scan(&b"a"[..].., |k, _| k.to_vec())
        .collect::<pinrocks::Result<Vec<_>>>()
        .unwrap_err();
    assert_eq!(
        err.kind(),
        Some(pinrocks::ErrorKind::InvalidArgument),
        "{err}"
    );
    // A range delete would fail every flush: refused, on the database and in a batch (the
    // default family's at the write), and the database goes on.
    let refused = |result: pinrocks::Result<()>| {
        let err = result.unwrap_err();
        assert_eq!(err.kind(), Some(pinrocks::ErrorKind::NotSupported), "{err}");
    };
    refused(db.delete_range(b"aaaa1", b"aaaa2"));
    let mut batch = pinrocks::WriteBatch::new();
    batch.writer().delete_range(b"aaaa1", b"aaaa2").unwrap();
    refused(db.write(&batch));
    db.put(b"cccc1", b"4").unwrap();
    db.flush().unwrap();
    assert_eq!(db.get(b"aaaa1").unwrap().as_deref(), Some(&b"1"[..]));
    assert_eq!(db.get(b"cccc1").unwrap().as_deref(), Some(&b"4"[..]));
    drop(db);

    // A hash or the prefix encoding without an extractor: the open is refused (RocksDB would
    // fail, or crash, at the first flush).
    for table in [
        PlainTableOptions::default(),
        PlainTableOptions {
            hash_table_ratio: 0.0,
            prefix_encoding: true,
            ..PlainTableOptions::default()
        },
    ] {
        let dir = tempfile::tempdir().unwrap();
        let mut options = create_options();
        options.plain_table(&table);
        let err = Db::open(&options, dir.path()).unwrap_err();
        assert!(
            matches!(&err, Error::OptionRejected { options, .. } if options[0].0 == "prefix_extractor")
                && err.to_string().contains("prefix"),
            "{table:?}: {err}"
        );
    }

    // The cuckoo format is refused: RocksDB 11.8.1's cuckoo builder drops every value
    // whose length differs from the file's first and reports the flush done (seen: of 300
    // keys, those with the first value's length alone survived the flush).
    for (name, value) in [
        ("cuckoo_table_factory", "{max_search_depth=50}"),
        ("table_factory", "{id=CuckooTable;}"),
    ] {
        let Err(err) = create_options().set_by_name(&[(name, value)]).map(|_| ()) else {
            panic!("{name}={value} was taken");
        };
        assert!(
            matches!(&err, Error::OptionRejected { .. })
                && err.to_string().to_lowercase().contains("cuckoo"),
            "{err}"
        );
    }
    assert!(create_options()
        .set_from_string("table_factory={id=CuckooTable;}")
        .is_err());
}

/// A block-based setting after another format is refused when the options are used (it
/// would have silently replaced the format); choosing the block-based format again clears
/// the way.
#[test]
fn block_based_settings_after_another_format_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = create_options();
    options
        .plain_table(&PlainTableOptions::default())
        .bloom_filter(10.0);
    let err = Db::open(&options, dir.path()).unwrap_err();
    assert!(
        matches!(&err, Error::InvalidInput { .. }) && err.to_string().contains("bloom_filter"),
        "{err}"
    );
    assert!(!dir.path().join("CURRENT").exists(), "nothing was created");

    let mut options = create_options();
    options
        .plain_table(&PlainTableOptions::default())
        .block_based_table(&BlockBasedOptions::new())
        .bloom_filter(10.0);
    drop(Db::open(&options, dir.path()).unwrap());
    assert_eq!(
        value(&stored(dir.path()), CF, "table_factory"),
        "BlockBasedTable"
    );
}

#[test]
fn zlib_and_bzip2_compress_and_read_back() {
    for (compression, name) in [
        (Compression::Zlib, "kZlibCompression"),
        (Compression::Bzip2, "kBZip2Compression"),
    ] {
        let mut options = create_options();
        options.compression(compression);
        let dir = writes_and_reads_back(&options);
        assert_eq!(value(&stored(&dir), CF, "compression"), name);
        // Repetitive values: the SST files are smaller than the values they hold.
        let sst: u64 = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "sst"))
            .map(|e| e.metadata().unwrap().len())
            .sum();
        assert!(sst > 0 && sst < 30_000, "{name}: {sst} bytes of SST");
        std::fs::remove_dir_all(dir).unwrap();
    }
}

/// A prefix extractor written in Rust: used for the memtable's bloom filter, the SST
/// filters and a hash memtable, called by RocksDB (counted), and prefix iteration finds
/// exactly the keys with the prefix.
#[test]
fn a_rust_prefix_extractor_is_called_and_prefix_reads_are_exact() {
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let upto_colon = CustomPrefix::new("upto-colon", |key| {
        CALLS.fetch_add(1, Ordering::Relaxed);
        key.iter().position(|b| *b == b':').map(|i| i + 1)
    });
    assert_eq!(upto_colon.name(), "upto-colon");
    assert_eq!(upto_colon.prefix(b"user:1"), Some(&b"user:"[..]));
    assert_eq!(upto_colon.prefix(b"nocolon"), None);
    let dir = tempfile::tempdir().unwrap();
    let mut options = create_options();
    options
        .custom_prefix_extractor(&upto_colon)
        .memtable_prefix_bloom_ratio(0.1)
        .bloom_filter(10.0)
        .memtable(Memtable::HashSkipList {
            buckets: 100,
            height: 4,
            branching: 4,
        });
    drop(upto_colon); // the options keep it alive
    let db = Db::open(&options, dir.path()).unwrap();
    drop(options); // and then the database
    let before = CALLS.load(Ordering::Relaxed);
    for (key, value) in [
        (&b"user:1"[..], &b"ann"[..]),
        (b"user:2", b"bob"),
        (b"order:1", b"book"),
        (b"nocolon", b"plain"),
    ] {
        db.put(key, value).unwrap();
    }
    assert!(CALLS.load(Ordering::Relaxed) > before, "RocksDB called it");
    let prefixed = |db: &Db, prefix: &[u8]| -> Vec<(Vec<u8>, Vec<u8>)> {
        db.reader()
            .prefix_iter(prefix)
            .forward(|k, v| (k.to_vec(), v.to_vec()))
            .collect::<pinrocks::Result<_>>()
            .unwrap()
    };
    for stage in 0..2 {
        assert_eq!(
            prefixed(&db, b"user:"),
            [
                (b"user:1".to_vec(), b"ann".to_vec()),
                (b"user:2".to_vec(), b"bob".to_vec())
            ],
            "stage {stage}"
        );
        assert_eq!(
            prefixed(&db, b"order:"),
            [(b"order:1".to_vec(), b"book".to_vec())]
        );
        assert_eq!(
            every_tier(db.reader(), b"nocolon").as_deref(),
            Some(&b"plain"[..])
        );
        assert_eq!(every_tier(db.reader(), b"user:3"), None);
        db.flush().unwrap();
    }
    drop(db);
    assert_eq!(
        value(&stored(dir.path()), CF, "prefix_extractor"),
        "upto-colon"
    );
}

/// Inside the extractor (RocksDB runs it within a read), a read of the database is refused
/// with a typed error instead of re-entering RocksDB.
#[test]
fn a_read_from_inside_a_prefix_extractor_is_refused() {
    // A weak reference: the extractor lives in the database's options, and must not keep
    // the database alive.
    let db_slot: Arc<std::sync::OnceLock<std::sync::Weak<Db>>> = Arc::default();
    let refused = Arc::new(AtomicUsize::new(0));
    let extractor = {
        let (db_slot, refused) = (Arc::clone(&db_slot), Arc::clone(&refused));
        CustomPrefix::new("reads-inside", move |key| {
            if let Some(db) = db_slot.get().and_then(std::sync::Weak::upgrade) {
                if let Err(Error::InsideCallback { callback, .. }) = db.get(b"other") {
                    assert_eq!(callback, "prefix extractor");
                    refused.fetch_add(1, Ordering::Relaxed);
                }
            }
            Some(key.len().min(2))
        })
    };
    let dir = tempfile::tempdir().unwrap();
    let mut options = create_options();
    options
        .custom_prefix_extractor(&extractor)
        .memtable_prefix_bloom_ratio(0.1);
    let db = Arc::new(Db::open(&options, dir.path()).unwrap());
    db_slot.set(Arc::downgrade(&db)).ok().unwrap();
    db.put(b"ab", b"v").unwrap();
    assert_eq!(db.get(b"ab").unwrap().as_deref(), Some(&b"v"[..]));
    assert!(
        refused.load(Ordering::Relaxed) > 0,
        "the extractor ran and was refused"
    );
}

/// Memtable sizes RocksDB does not check (a division by zero, writes outside a node, an
/// allocation too big to make) are refused when the options are used.
#[test]
fn memtable_sizes_rocksdb_does_not_check_are_refused() {
    for memtable in [
        Memtable::HashSkipList {
            buckets: 0,
            height: 4,
            branching: 4,
        },
        Memtable::HashSkipList {
            buckets: 10,
            height: 0,
            branching: 4,
        },
        Memtable::HashSkipList {
            buckets: 10,
            height: 33,
            branching: 4,
        },
        Memtable::HashSkipList {
            buckets: 10,
            height: 4,
            branching: 0,
        },
        Memtable::HashLinkList { buckets: 0 },
        Memtable::HashLinkList { buckets: 1 << 40 },
        Memtable::Vector { reserve: 1 << 40 },
    ] {
        let dir = tempfile::tempdir().unwrap();
        let mut options = create_options();
        options
            .prefix_extractor(PrefixExtractor::Fixed(2))
            .memtable(memtable);
        let err = Db::open(&options, dir.path()).unwrap_err();
        assert!(
            matches!(err, Error::InvalidInput { .. }),
            "{memtable:?}: {err}"
        );
    }
}

/// The new handle and value types cross threads like the others (a `CustomPrefix` is
/// called from every thread RocksDB reads, writes and compacts on).
#[test]
fn the_new_types_are_send_and_sync() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<CustomPrefix>();
    send_sync::<Memtable>();
    send_sync::<PlainTableOptions>();
    send_sync::<pinrocks::admin::MayExist>();
    send_sync::<pinrocks::callbacks::LogLevel>();
}

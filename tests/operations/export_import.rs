//! A column family exported and created again from the export, in another database and in
//! the same one, copied and moved; what pinrocks and RocksDB refuse.

use std::time::Duration;

use pinrocks::callbacks::Comparator;
use pinrocks::options::TransactionDbOptions;
use pinrocks::{Db, Error, ErrorKind, Options};

use crate::common::{create_options, patterned};

fn keys() -> Vec<(Vec<u8>, Vec<u8>)> {
    (0..60u8)
        .map(|i| (vec![b'k', i], patterned(100, i)))
        .collect()
}

fn read_all(family: &pinrocks::ColumnFamily<'_>) -> Vec<(Vec<u8>, Vec<u8>)> {
    family
        .reader()
        .scan(.., |k, v| (k.to_vec(), v.to_vec()))
        .collect::<pinrocks::Result<_>>()
        .unwrap()
}

/// Three files and a memtable exported (RocksDB flushes first), imported by copy into
/// another database and by move into the source's: every entry back, the source untouched.
#[test]
fn a_family_comes_back_whole_copied_and_moved() {
    let dir = tempfile::tempdir().unwrap();
    let source = Db::open(&create_options(), dir.path().join("source")).unwrap();
    let logs = source.create_cf("logs", &Options::new()).unwrap();
    let entries = keys();
    for (i, chunk) in entries.chunks(20).enumerate() {
        for (key, value) in chunk {
            logs.writer().put(key, value).unwrap();
        }
        if i < 2 {
            logs.flush().unwrap();
        }
    }
    let export_dir = dir.path().join("export");
    let exported = logs.export(&export_dir).unwrap();
    assert_eq!(exported.files(), 3);
    assert_eq!(exported.dir(), export_dir);
    let sst_files = || {
        std::fs::read_dir(&export_dir)
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .path()
                    .extension()
                    .is_some_and(|x| x == "sst")
            })
            .count()
    };
    assert_eq!(sst_files(), 3);

    let target = Db::open(&create_options(), dir.path().join("target")).unwrap();
    let copied = target
        .import_cf("logs", &Options::new(), &exported, false)
        .unwrap();
    assert_eq!(read_all(&copied), entries);
    assert_eq!(sst_files(), 3, "a copy leaves the export as it was");
    // The imported family is a family like any: written, flushed, reopened.
    copied.writer().put(b"new", b"after import").unwrap();
    drop(copied);
    drop(target);
    let reopened = Db::open_cf(&create_options(), dir.path().join("target"), ["logs"]).unwrap();
    let logs_again = reopened.cf("logs").unwrap();
    assert_eq!(
        logs_again.reader().get(b"new").unwrap().as_deref(),
        Some(&b"after import"[..])
    );
    assert_eq!(read_all(&logs_again).len(), entries.len() + 1);

    let moved = source
        .import_cf("logs-copy", &Options::new(), &exported, true)
        .unwrap();
    assert_eq!(read_all(&moved), entries);
    assert_eq!(sst_files(), 0, "a move takes the files out of the export");
    assert_eq!(read_all(&logs), entries);
}

#[test]
fn what_would_not_come_back_whole_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(&create_options(), dir.path().join("db")).unwrap();
    let plain = db.create_cf("plain", &Options::new()).unwrap();
    plain.writer().put(b"k", b"v").unwrap();
    let refused_export = |result: pinrocks::Result<pinrocks::admin::ExportedFamily>| {
        assert!(
            matches!(result, Err(Error::InvalidInput { what: "export", .. })),
            "{result:?}"
        );
    };
    // A sibling `.tmp` RocksDB would delete the files of on a failure: kept, refused.
    let staging = dir.path().join("out.tmp");
    std::fs::create_dir(&staging).unwrap();
    std::fs::write(staging.join("precious"), b"mine").unwrap();
    refused_export(plain.export(dir.path().join("out")));
    refused_export(plain.export(dir.path().join("out/"))); // RocksDB strips the slash too
    assert_eq!(std::fs::read(staging.join("precious")).unwrap(), b"mine");
    // A directory that exists: RocksDB's refusal.
    let taken = dir.path().join("taken");
    std::fs::create_dir(&taken).unwrap();
    let error = plain.export(&taken).unwrap_err();
    assert_eq!(error.kind(), Some(ErrorKind::InvalidArgument), "{error}");

    let mut versioned = Options::new();
    versioned.u64_timestamps();
    let stamped = db.create_cf("stamped", &versioned).unwrap();
    stamped.writer().at(1).put(b"k", b"v").unwrap();
    refused_export(stamped.export(dir.path().join("stamped")));
    let mut blobs = Options::new();
    blobs.enable_blob_files(true).min_blob_size(0);
    let blobbed = db.create_cf("blobbed", &blobs).unwrap();
    blobbed.writer().put(b"k", b"in a blob file").unwrap();
    refused_export(blobbed.export(dir.path().join("blobbed")));

    let exported = plain.export(dir.path().join("plain-export")).unwrap();
    // Taken name; options with timestamps; another comparator (RocksDB compares names, and
    // leaves no family behind).
    assert!(matches!(
        db.import_cf("plain", &Options::new(), &exported, false),
        Err(Error::ColumnFamilyExists { .. })
    ));
    assert!(matches!(
        db.import_cf("stamped-import", &versioned, &exported, false),
        Err(Error::InvalidInput { what: "import", .. })
    ));
    let mut reversed = Options::new();
    reversed.comparator(&Comparator::new("reversed", |a, b| b.cmp(a)));
    let error = db
        .import_cf("reversed", &reversed, &exported, false)
        .unwrap_err();
    assert_eq!(error.kind(), Some(ErrorKind::InvalidArgument), "{error}");
    assert!(db.cf("reversed").is_err());
    // A TTL database's family would lose its TTL.
    let ttl = Db::open_with_ttl(
        &create_options(),
        dir.path().join("ttl"),
        Duration::from_secs(60),
    )
    .unwrap();
    assert!(matches!(
        ttl.import_cf("plain", &Options::new(), &exported, false),
        Err(Error::WrongKind { .. })
    ));
    refused_export(ttl.default_cf().export(dir.path().join("ttl-export")));
}

/// A pessimistic transaction database registers the imported family with its lock manager:
/// transactions write it.
#[test]
fn a_transaction_database_imports_a_family_its_transactions_write() {
    let dir = tempfile::tempdir().unwrap();
    let source = Db::open(&create_options(), dir.path().join("source")).unwrap();
    let data = source.create_cf("data", &Options::new()).unwrap();
    data.writer().put(b"a", b"1").unwrap();
    let exported = data.export(dir.path().join("export")).unwrap();
    let db = Db::open_transaction_db(
        &create_options(),
        &TransactionDbOptions::new(),
        dir.path().join("txn"),
        [],
    )
    .unwrap();
    let imported = db
        .import_cf("data", &Options::new(), &exported, false)
        .unwrap();
    let mut txn = db.begin().unwrap();
    txn.writer().cf(&imported).put(b"b", b"2").unwrap();
    txn.commit().unwrap();
    assert_eq!(
        read_all(&imported),
        vec![
            (b"a".to_vec(), b"1".to_vec()),
            (b"b".to_vec(), b"2".to_vec())
        ]
    );
}

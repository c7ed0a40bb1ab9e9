//! Failures come back as clear errors with the RocksDB status kind kept as data.

use crate::common::{create_options, open_db};
use pinrocks::{Db, Error, ErrorKind, Options};

fn rocks_error(result: pinrocks::Result<Db>) -> (ErrorKind, String) {
    match result {
        Err(Error::RocksDb { kind, message }) => (kind, message),
        Err(other) => panic!("expected a RocksDB error, got {other:?}"),
        Ok(db) => panic!("expected an error, opened {db:?}"),
    }
}

#[test]
fn opening_a_regular_file_is_an_io_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("not-a-directory");
    std::fs::write(&file, b"plain file").unwrap();
    let (kind, message) = rocks_error(Db::open(&create_options(), &file));
    assert_eq!(kind, ErrorKind::IoError, "{message}");
    assert!(message.starts_with("IO error: "), "{message}");
    // Nothing was written over the file.
    assert_eq!(std::fs::read(&file).unwrap(), b"plain file");
}

#[test]
fn opening_a_missing_database_without_create_if_missing_is_invalid_argument() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nothing-here");
    let (kind, message) = rocks_error(Db::open(&Options::new(), &path));
    assert_eq!(kind, ErrorKind::InvalidArgument, "{message}");
    assert!(message.contains("does not exist"), "{message}");
    // RocksDB may create the directory, but no database in it.
    assert!(
        !path.join("CURRENT").exists(),
        "a failed open must not create a database"
    );
}

#[test]
fn a_second_open_of_a_locked_database_is_an_io_error() {
    let (dir, db) = open_db(&[]);
    db.put(b"k", b"v").unwrap();
    let (kind, message) = rocks_error(Db::open(&create_options(), dir.path()));
    assert_eq!(kind, ErrorKind::IoError, "{message}");
    assert!(message.contains("lock"), "{message}");
    // The first open is unharmed.
    assert_eq!(db.get(b"k").unwrap().as_deref(), Some(&b"v"[..]));
    drop(db);
    let reopened = Db::open(&create_options(), dir.path()).unwrap();
    assert_eq!(reopened.get(b"k").unwrap().as_deref(), Some(&b"v"[..]));
}

#[test]
fn error_if_exists_is_invalid_argument() {
    let (dir, db) = open_db(&[]);
    drop(db);
    let mut options = create_options();
    options.error_if_exists(true);
    let (kind, message) = rocks_error(Db::open(&options, dir.path()));
    assert_eq!(kind, ErrorKind::InvalidArgument, "{message}");
}

#[test]
fn writes_to_a_read_only_open_fail_and_reads_work() {
    let (dir, db) = open_db(&["extra"]);
    db.put(b"k", b"v").unwrap();
    db.cf("extra").unwrap().writer().put(b"e", b"x").unwrap();
    drop(db);
    let ro = Db::open_read_only(&Options::new(), dir.path()).unwrap();
    assert_eq!(ro.cf_names(), ["default", "extra"]);
    assert_eq!(ro.get(b"k").unwrap().as_deref(), Some(&b"v"[..]));
    let extra = ro.cf("extra").unwrap();
    assert_eq!(
        extra.reader().get(b"e").unwrap().as_deref(),
        Some(&b"x"[..])
    );
    let err = ro.put(b"k", b"new").unwrap_err();
    assert!(matches!(err, Error::ReadOnly { operation: "put" }), "{err}");
    assert_eq!(ro.get(b"k").unwrap().as_deref(), Some(&b"v"[..]));
}

#[test]
fn unknown_column_family_is_a_typed_error() {
    let (_dir, db) = open_db(&[]);
    match db.cf("nope") {
        Err(Error::ColumnFamilyNotFound { name }) => assert_eq!(name, "nope"),
        other => panic!("expected ColumnFamilyNotFound, got {other:?}"),
    }
    assert!(matches!(
        db.drop_cf("nope"),
        Err(Error::ColumnFamilyNotFound { .. })
    ));
}

#[test]
fn interior_nul_in_a_path_or_name_is_invalid_input() {
    let (_dir, db) = open_db(&[]);
    let err = db.create_cf("a\0b", &Options::new()).unwrap_err();
    assert!(
        matches!(
            err,
            Error::InvalidInput {
                what: "column family name",
                ..
            }
        ),
        "{err}"
    );
    let err = Db::open(&create_options(), "/tmp/with\0nul").unwrap_err();
    assert!(
        matches!(err, Error::InvalidInput { what: "path", .. }),
        "{err}"
    );
}

#[test]
fn invalid_options_are_invalid_argument_at_open() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = create_options();
    options.block_size(5 << 30); // RocksDB's limit is 4 GiB, the option table's 256 MiB
    let err = Db::open(&options, dir.path().join("db")).unwrap_err();
    assert_eq!(err.kind(), Some(ErrorKind::InvalidArgument), "{err}");
    assert!(
        matches!(&err, Error::OptionRejected { options, .. } if options[0].0 == "block_size"),
        "{err}"
    );
    assert!(
        !dir.path().join("db").exists(),
        "refused before RocksDB saw it"
    );
}

#[test]
fn opening_without_a_column_family_that_does_not_exist_is_invalid_argument() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = Options::new();
    options.create_if_missing(true); // but not create_missing_column_families
    let (kind, message) = rocks_error(Db::open_cf(&options, dir.path(), ["missing"]));
    assert_eq!(kind, ErrorKind::InvalidArgument, "{message}");
}

#[cfg(unix)]
#[test]
fn non_utf8_paths_work_on_unix() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(std::ffi::OsStr::from_bytes(b"db-\xff\xfe"));
    {
        let db = Db::open(&create_options(), &path).unwrap();
        assert_eq!(db.path(), path);
        db.put(b"k", b"v").unwrap();
    }
    assert!(path.join("CURRENT").exists());
    let db = Db::open(&Options::new(), &path).unwrap();
    assert_eq!(db.get(b"k").unwrap().as_deref(), Some(&b"v"[..]));
    assert_eq!(
        Db::list_column_families(&Options::new(), &path).unwrap(),
        ["default"]
    );
}

#[test]
fn values_of_64_mib_and_more_round_trip_through_every_tier() {
    use pinrocks::CopyResult;
    let (_dir, db) = open_db(&[]);
    let size = (64 << 20) + 3;
    let value: Vec<u8> = (0..size).map(|i| (i % 251) as u8).collect();
    db.put(b"huge", &value).unwrap();
    for stage in ["memtable", "flushed"] {
        if stage == "flushed" {
            db.flush().unwrap();
        }
        assert!(db.get(b"huge").unwrap().unwrap() == value, "{stage}: Vec");
        assert_eq!(
            db.get_pinned(b"huge", |v| v == &value[..]).unwrap(),
            Some(true),
            "{stage}"
        );
        let bytes = db.reader().get_bytes(b"huge").unwrap().unwrap();
        assert!(bytes[..] == value[..], "{stage}: Bytes");
        let mut small = vec![0u8; 1 << 20];
        assert_eq!(
            db.get_into(b"huge", &mut small).unwrap(),
            CopyResult::NotEnoughCapacity { required: size }
        );
        let mut exact = vec![0u8; size];
        assert_eq!(
            db.get_into(b"huge", &mut exact).unwrap(),
            CopyResult::Copied(size)
        );
        assert!(exact == value, "{stage}: buffer");
    }
}

/// Flips bytes in the middle of every SST file's data section.
fn corrupt_sst_files(dir: &std::path::Path) -> usize {
    let mut corrupted = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "sst") {
            let mut bytes = std::fs::read(&path).unwrap();
            // Data blocks come first; the footer, index and properties are at the end.
            for i in (64..bytes.len() / 2).step_by(97) {
                bytes[i] ^= 0x5A;
            }
            std::fs::write(&path, bytes).unwrap();
            corrupted += 1;
        }
    }
    corrupted
}

#[test]
fn flipped_bytes_in_an_sst_file_read_as_corruption_never_as_wrong_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = create_options();
    options.compression(pinrocks::options::Compression::None);
    let value = |i: u32| vec![(i % 200) as u8 + 1; 1000];
    {
        let db = Db::open(&options, dir.path()).unwrap();
        for i in 0u32..500 {
            db.put(&i.to_be_bytes(), &value(i)).unwrap();
        }
        db.flush().unwrap();
    }
    assert!(corrupt_sst_files(dir.path()) >= 1);
    let db = Db::open(&options, dir.path()).unwrap();
    let mut checked = pinrocks::ReadOptions::new();
    checked.verify_checksums(true).fill_cache(false);
    let mut corruptions = 0;
    for i in 0u32..500 {
        let key = i.to_be_bytes();
        let tiers = [
            db.reader().options(&checked).get(&key),
            db.reader()
                .options(&checked)
                .get_pinned(&key, <[u8]>::to_vec),
            db.reader()
                .options(&checked)
                .pin(&key)
                .map(|g| g.map(|g| g.to_vec())),
        ];
        for result in tiers {
            match result {
                Ok(Some(v)) => assert_eq!(v, value(i), "key {i}: wrong bytes returned"),
                Ok(None) => panic!("key {i} vanished instead of failing"),
                Err(e) => {
                    assert_eq!(e.kind(), Some(ErrorKind::Corruption), "key {i}: {e}");
                    corruptions += 1;
                }
            }
        }
    }
    assert!(corruptions > 0, "no read noticed the flipped bytes");
    let mut it = db.reader().options(&checked).iter();
    it.seek_to_first();
    while it.entry().is_some() {
        it.next();
    }
    let err = it.status().unwrap_err();
    assert_eq!(err.kind(), Some(ErrorKind::Corruption), "{err}");
}

fn assert_inverted_range(result: pinrocks::Result<()>) {
    let err = result.unwrap_err();
    assert!(
        matches!(err, Error::InvertedRange { ref start, ref end } if start > end),
        "{err}"
    );
}

#[test]
fn an_inverted_delete_range_is_refused_and_does_not_poison_later_writes() {
    let (_dir, db) = open_db(&[]);
    db.put(b"a", b"1").unwrap();
    assert_inverted_range(db.delete_range(b"b", b"a"));
    let mut batch = pinrocks::WriteBatch::new();
    batch.writer().put(b"c", b"3").unwrap();
    batch.writer().delete_range(b"z", b"y").unwrap();
    assert_inverted_range(db.write(&batch));
    assert_eq!(
        db.get(b"c").unwrap(),
        None,
        "a refused batch writes nothing"
    );
    // The database still takes writes (RocksDB itself would now refuse them all).
    db.put(b"d", b"4").unwrap();
    assert_eq!(db.get(b"d").unwrap().as_deref(), Some(&b"4"[..]));
    batch.clear();
    batch.writer().put(b"c", b"3").unwrap();
    db.write(&batch).unwrap();
    assert_eq!(db.get(b"c").unwrap().as_deref(), Some(&b"3"[..]));
}

/// `Db::open` treats only "no database here yet" (no CURRENT file) as "no column families";
/// a database whose column families cannot be listed is an error about that, not an open
/// that forgets its families.
#[test]
fn open_reports_a_failure_to_list_column_families() {
    let dir = tempfile::tempdir().unwrap();
    {
        let db = Db::open_cf(&create_options(), dir.path(), ["extra"]).unwrap();
        db.put(b"k", b"v").unwrap();
    }
    // CURRENT names a MANIFEST that is not there.
    std::fs::write(dir.path().join("CURRENT"), "MANIFEST-999999\n").unwrap();
    let listed = Db::list_column_families(&Options::new(), dir.path()).unwrap_err();
    let opened = Db::open(&Options::new(), dir.path()).unwrap_err();
    assert_eq!(opened.to_string(), listed.to_string());
    assert!(opened.to_string().contains("MANIFEST-999999"), "{opened}");
    // A directory without a database still opens empty (with create_if_missing).
    let fresh = tempfile::tempdir().unwrap();
    let db = Db::open(&create_options(), fresh.path()).unwrap();
    assert_eq!(db.cf_names(), ["default"]);
}

/// A read-only open of some column families only, and one that refuses a WAL holding
/// writes not yet flushed.
#[test]
fn read_only_opens_of_a_subset_and_without_a_wal() {
    let dir = tempfile::tempdir().unwrap();
    {
        let db = Db::open_cf(&create_options(), dir.path(), ["hot", "cold"]).unwrap();
        db.cf("hot").unwrap().writer().put(b"k", b"hot").unwrap();
        db.cf("cold").unwrap().writer().put(b"k", b"cold").unwrap();
        // Closed with writes only in the WAL.
    }
    let options = Options::new();
    let ro = Db::open_read_only_cf(&options, dir.path(), ["hot"], false).unwrap();
    assert_eq!(ro.cf_names(), ["default", "hot"]);
    assert!(matches!(
        ro.cf("cold"),
        Err(Error::ColumnFamilyNotFound { .. })
    ));
    assert_eq!(
        ro.cf("hot").unwrap().reader().get(b"k").unwrap().as_deref(),
        Some(&b"hot"[..]),
        "replayed from the WAL"
    );
    drop(ro);
    let err = Db::open_read_only_cf(&options, dir.path(), ["hot"], true).unwrap_err();
    // RocksDB reports it as Corruption ("... a non-empty WAL file already exists").
    assert_eq!(err.kind(), Some(ErrorKind::Corruption), "{err}");
    assert!(err.to_string().contains("non-empty WAL file"), "{err}");
    // Once every family is flushed, the WAL holds nothing and the open goes through.
    {
        let db = Db::open(&options, dir.path()).unwrap();
        for name in ["default", "hot", "cold"] {
            db.cf(name).unwrap().flush().unwrap();
        }
    }
    let ro = Db::open_read_only_cf(&options, dir.path(), ["cold"], true).unwrap();
    assert_eq!(
        ro.cf("cold")
            .unwrap()
            .reader()
            .get(b"k")
            .unwrap()
            .as_deref(),
        Some(&b"cold"[..])
    );
}

/// A merge into a family without a merge operator: `DB::Merge` refuses it, but in a batch,
/// an indexed batch or a transaction RocksDB would take it into the WAL, fail it in the
/// memtable and then refuse every later write until the database is reopened. pinrocks
/// refuses it before it reaches RocksDB, in every target, and the database goes on.
#[test]
fn a_merge_without_a_merge_operator_is_refused_and_does_not_poison_later_writes() {
    let not_supported = |result: pinrocks::Result<()>| {
        let err = result.unwrap_err();
        assert_eq!(err.kind(), Some(ErrorKind::NotSupported), "{err}");
    };
    let dir = tempfile::tempdir().unwrap();
    let options = crate::common::create_options();
    let db = Db::open_cf(&options, dir.path(), ["named"]).unwrap();
    let named = db.cf("named").unwrap();
    not_supported(db.merge(b"m", b"x"));
    // A batch: the named family is known as the merge is added, the default one at the write.
    let mut batch = pinrocks::WriteBatch::new();
    not_supported(batch.writer().cf(&named).merge(b"m", b"x"));
    batch.writer().put(b"p", b"1").unwrap();
    batch.writer().merge(b"m", b"x").unwrap();
    not_supported(db.write(&batch));
    assert_eq!(
        db.get(b"p").unwrap(),
        None,
        "a refused batch writes nothing"
    );
    // An indexed batch and a transaction know their database: refused as added.
    let mut indexed = db.indexed_batch().unwrap();
    not_supported(indexed.writer().merge(b"m", b"x"));
    drop(indexed);
    // The database still takes writes.
    db.put(b"after", b"ok").unwrap();
    named.writer().put(b"after", b"ok").unwrap();
    assert_eq!(db.get(b"after").unwrap().as_deref(), Some(&b"ok"[..]));
    drop(named);
    drop(db);
    let db = Db::open_transaction_db(
        &options,
        &pinrocks::options::TransactionDbOptions::new(),
        dir.path(),
        [("named", &options)],
    )
    .unwrap();
    let mut txn = db.begin().unwrap();
    not_supported(txn.writer().merge(b"m", b"x"));
    txn.writer().put(b"t", b"1").unwrap();
    txn.commit().unwrap();
    // A transaction database's own `Merge` goes through a batch too.
    not_supported(db.merge(b"m", b"x"));
    db.put(b"after txn", b"ok").unwrap();
    assert_eq!(db.get(b"t").unwrap().as_deref(), Some(&b"1"[..]));
    drop(db);
    // So does a TTL database's.
    let ttl_dir = tempfile::tempdir().unwrap();
    let db = Db::open_with_ttl(
        &options,
        ttl_dir.path(),
        std::time::Duration::from_secs(3600),
    )
    .unwrap();
    not_supported(db.merge(b"m", b"x"));
    db.put(b"after ttl", b"ok").unwrap();
    assert_eq!(db.get(b"after ttl").unwrap().as_deref(), Some(&b"ok"[..]));
}

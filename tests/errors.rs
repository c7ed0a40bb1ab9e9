//! Failures come back as clear errors with the RocksDB status kind kept as data.

mod common;

use common::{create_options, open_db};
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
    assert_eq!(err.kind(), Some(ErrorKind::NotSupported), "{err}");
    assert_eq!(ro.get(b"k").unwrap().as_deref(), Some(&b"v"[..]));
}

#[test]
fn unknown_column_family_is_a_typed_error() {
    let (_dir, db) = open_db(&[]);
    match db.cf("nope") {
        Err(Error::ColumnFamilyNotFound(name)) => assert_eq!(name, "nope"),
        other => panic!("expected ColumnFamilyNotFound, got {other:?}"),
    }
    assert!(matches!(
        db.drop_cf("nope"),
        Err(Error::ColumnFamilyNotFound(_))
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

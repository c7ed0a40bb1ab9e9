//! Databases in memory (`MemEnv`): files that never reach the disk, found again by a reopen on
//! the same `MemEnv`, apart from another `MemEnv`'s; and the fault file system over memory.

use pinrocks::options::MemEnv;
use pinrocks::{Db, Options, WriteOptions};

fn on(env: &MemEnv) -> Options {
    let mut options = Options::new();
    options.create_if_missing(true).mem_env(env);
    options
}

/// A path under the test's temporary directory that must stay absent from the disk.
fn unused_path() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("in-memory");
    (dir, path)
}

#[test]
fn a_database_in_memory_reopens_with_its_data_and_leaves_nothing_on_disk() {
    let (_dir, path) = unused_path();
    let env = MemEnv::new().unwrap();
    {
        let db = Db::open(&on(&env), &path).unwrap();
        for i in 0..500u32 {
            db.put(&i.to_be_bytes(), &i.to_le_bytes()).unwrap();
        }
        db.flush().unwrap(); // an SST file, in memory
        db.put(b"in the WAL", b"only").unwrap();
        drop(db.create_cf("family", &on(&env)).unwrap());
    }
    assert!(!path.exists(), "a file reached the disk");
    let options = on(&env);
    assert_eq!(
        Db::list_column_families(&options, &path).unwrap(),
        ["default", "family"]
    );
    let db = Db::open_with(
        &options,
        &path,
        [("default", &options), ("family", &options)],
    )
    .unwrap();
    for i in 0..500u32 {
        assert_eq!(
            db.get(&i.to_be_bytes()).unwrap(),
            Some(i.to_le_bytes().to_vec())
        );
    }
    assert_eq!(
        db.get(b"in the WAL").unwrap().as_deref(),
        Some(&b"only"[..])
    );
    db.verify_checksum().unwrap();
    assert!(!path.exists());
}

#[test]
fn two_mem_envs_do_not_share_files() {
    let (_dir, path) = unused_path();
    let (a, b) = (MemEnv::new().unwrap(), MemEnv::new().unwrap());
    drop(Db::open(&on(&a), &path).unwrap().put(b"k", b"in a"));
    let in_b = Db::open(&on(&b), &path).unwrap();
    assert_eq!(in_b.get(b"k").unwrap(), None);
    drop(in_b);
    let in_a = Db::open(&on(&a), &path).unwrap();
    assert_eq!(in_a.get(b"k").unwrap().as_deref(), Some(&b"in a"[..]));
}

/// The `MemEnv` and the options dropped by the program while a database uses them: the
/// database keeps the files' memory alive (under memcheck too).
#[test]
fn a_database_keeps_its_mem_env_alive() {
    let (_dir, path) = unused_path();
    let db = {
        let env = MemEnv::new().unwrap();
        Db::open(&on(&env), &path).unwrap()
    };
    let mut synced = WriteOptions::new();
    synced.sync(true);
    db.writer().options(&synced).put(b"k", b"v").unwrap();
    db.flush().unwrap();
    assert_eq!(db.get(b"k").unwrap().as_deref(), Some(&b"v"[..]));
}

/// The fault file system over memory: a power loss drops what was not synced, keeps what
/// was, and nothing reaches the disk.
#[cfg(feature = "fault-injection")]
#[test]
fn a_fault_file_system_in_memory_loses_what_was_not_synced() {
    use pinrocks::options::{FaultFs, StopError};
    let (_dir, path) = unused_path();
    let fs = FaultFs::in_memory().unwrap();
    let mut options = Options::new();
    options.create_if_missing(true).fault_fs(&fs);
    {
        let db = Db::open(&options, &path).unwrap();
        let mut synced = WriteOptions::new();
        synced.sync(true);
        db.writer()
            .options(&synced)
            .put(b"kept", b"synced")
            .unwrap();
        db.put(b"lost", b"not synced").unwrap();
        fs.stop(StopError::PowerLoss);
    }
    fs.restart_after_power_loss().unwrap();
    let db = Db::open(&options, &path).unwrap();
    assert_eq!(db.get(b"kept").unwrap().as_deref(), Some(&b"synced"[..]));
    assert_eq!(db.get(b"lost").unwrap(), None);
    assert!(!path.exists());
}

/// Reads pinrocks makes of a database's files go through its file system: `Db::open` finds
/// every family in memory, and a TTL database is told from a plain one there as on disk.
#[test]
fn families_and_the_ttl_kind_are_found_in_memory() {
    let (_dir, path) = unused_path();
    let env = MemEnv::new().unwrap();
    {
        let db = Db::open(&on(&env), &path).unwrap();
        drop(db.create_cf("family", &on(&env)).unwrap());
        db.cf("family")
            .unwrap()
            .writer()
            .put(b"k", b"in family")
            .unwrap();
    }
    {
        let db = Db::open(&on(&env), &path).unwrap();
        let family = db.cf("family").unwrap();
        assert_eq!(
            family.reader().get(b"k").unwrap().as_deref(),
            Some(&b"in family"[..])
        );
    }
    let minute = std::time::Duration::from_secs(60);
    match Db::open_with_ttl(&on(&env), &path, minute) {
        Err(pinrocks::Error::TtlMismatch {
            stored_with_ttl: false,
        }) => {}
        other => panic!("{other:?}"),
    }
    let ttl_path = path.with_extension("ttl");
    {
        let db = Db::open_with_ttl(&on(&env), &ttl_path, minute).unwrap();
        db.put(b"session", b"token").unwrap();
    }
    match Db::open(&on(&env), &ttl_path) {
        Err(pinrocks::Error::TtlMismatch {
            stored_with_ttl: true,
        }) => {}
        other => panic!("{other:?}"),
    }
    let db = Db::open_with_ttl(&on(&env), &ttl_path, minute).unwrap();
    assert_eq!(db.get(b"session").unwrap().as_deref(), Some(&b"token"[..]));
    assert!(!path.exists() && !ttl_path.exists());
}

/// What a file system in memory cannot do is refused at open, typed: mmap reads (slices of a
/// buffer a write moves).
#[test]
fn mmap_reads_are_refused_in_memory() {
    let (_dir, path) = unused_path();
    let env = MemEnv::new().unwrap();
    let mut mmap = on(&env);
    mmap.allow_mmap_reads(true);
    match Db::open(&mmap, &path) {
        Err(pinrocks::Error::InvalidInput { what, .. }) => assert_eq!(what, "allow_mmap_reads"),
        other => panic!("{other:?}"),
    }
    assert!(!path.exists());
    // Refused before anything was made: a plain open then creates the database.
    Db::open(&on(&env), &path).unwrap().put(b"k", b"v").unwrap();
}

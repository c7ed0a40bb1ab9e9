//! Corruption of the other files: a MANIFEST (the database does not open; `repair` brings it
//! back), a blob file (`Corruption` on the reads that touch it, and only those), one SST file
//! checked on its own (`verify_sst_file`), and what `paranoid_checks` off skips: a corruption a
//! compaction finds no longer stops writes, and a corrupt WAL record no longer stops the open.

use std::path::{Path, PathBuf};

use pinrocks::admin::verify_sst_file;
use pinrocks::options::WalRecoveryMode;
use pinrocks::{Db, Error, ErrorKind, ErrorSeverity, Options};

use crate::common::{create_options, flip_byte, patterned};
use crate::corruption::{corrupt, key};

fn value(i: u32) -> Vec<u8> {
    patterned(300, i as u8)
}

fn files(dir: &Path, pred: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(&pred))
        .collect();
    found.sort();
    found
}

fn flip_byte_at_third(file: &Path) {
    flip_byte(file, 1, 3);
}

/// Every key of `range` reads back exactly.
fn holds(db: &Db, range: std::ops::Range<u32>) {
    for i in range {
        assert_eq!(db.get(&key(i)).unwrap(), Some(value(i)), "key {i}");
    }
}

/// A flipped byte in the MANIFEST: the database refuses to open (with `paranoid_checks` on
/// or off: the MANIFEST is what says which files hold the data), and `Db::repair` rebuilds
/// it from the SST files and the WAL, with every write back.
#[test]
fn a_corrupted_manifest_refuses_to_open_and_repair_brings_it_back() {
    let dir = tempfile::tempdir().unwrap();
    {
        let db = Db::open(&create_options(), dir.path()).unwrap();
        for i in 0..300 {
            db.put(&key(i), &value(i)).unwrap();
            if i % 100 == 99 {
                db.flush().unwrap(); // three SST files, each a MANIFEST record
            }
        }
        for i in 300..350 {
            db.put(&key(i), &value(i)).unwrap(); // in the WAL
        }
    }
    let current = std::fs::read_to_string(dir.path().join("CURRENT")).unwrap();
    flip_byte_at_third(&dir.path().join(current.trim()));
    for paranoid in [true, false] {
        let mut options = create_options();
        options.paranoid_checks(paranoid);
        corrupt(Db::open(&options, dir.path()), "open");
    }
    Db::repair(&create_options(), dir.path()).unwrap();
    let db = Db::open(&create_options(), dir.path()).unwrap();
    holds(&db, 0..350);
    assert_eq!(db.reader().scan(.., |_, _| ()).count(), 350);
}

/// A flipped byte in a blob file: the reads of the values it holds in the damaged part are
/// `Corruption` on every tier (never other bytes), the rest read back exactly, a scan stops
/// with the error. `verify_checksum` reads SST blocks only and does not see it;
/// `verify_file_checksums` (with whole-file checksums written) does.
#[test]
fn a_corrupted_blob_file_is_corruption_on_the_reads_that_touch_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = create_options();
    options
        .enable_blob_files(true)
        .min_blob_size(0)
        .file_checksums(true);
    {
        let db = Db::open(&options, dir.path()).unwrap();
        for i in 0..200 {
            db.put(&key(i), &value(i)).unwrap();
        }
        db.flush().unwrap();
        db.verify_checksum().unwrap();
        db.verify_file_checksums().unwrap();
    }
    let blobs = files(dir.path(), |n| n.ends_with(".blob"));
    assert_eq!(blobs.len(), 1);
    flip_byte_at_third(&blobs[0]);
    let db = Db::open(&options, dir.path()).unwrap();
    db.verify_checksum().unwrap(); // SST blocks only: the blob file is not read
    corrupt(db.verify_file_checksums(), "verify_file_checksums");
    let (mut bad, mut good) = (Vec::new(), 0);
    for i in 0..200 {
        match db.get(&key(i)) {
            Ok(v) => {
                assert_eq!(v, Some(value(i)), "a value served from a corrupt blob");
                good += 1;
            }
            Err(Error::RocksDb {
                kind: ErrorKind::Corruption,
                ..
            }) => bad.push(i),
            other => panic!("key {i}: {other:?}"),
        }
    }
    assert_eq!((bad.len(), good), (1, 199), "one blob damaged: {bad:?}");
    let k = key(bad[0]);
    let r = db.reader();
    corrupt(r.get_pinned(&k, |v| v.len()), "pinned");
    corrupt(r.get_into(&k, &mut [0u8; 512]), "buffer");
    corrupt(r.pin(&k).map(|p| p.is_some()), "guard");
    corrupt(r.get_bytes(&k), "bytes");
    let mut seen = None;
    corrupt(
        r.multi_get_pinned(&[&k[..]], |_, v| seen = v.map(<[u8]>::len)),
        "multi-get",
    );
    assert_eq!(seen, None, "multi-get served a corrupt value");
    let mut scanned: Vec<pinrocks::Result<Vec<u8>>> = r.scan(.., |k, _| k.to_vec()).collect();
    assert_eq!(
        scanned.len(),
        bad[0] as usize + 1,
        "a scan stops at the damage"
    );
    corrupt(scanned.pop().unwrap(), "scan");
}

/// One SST file checked on its own: the damaged one is `Corruption`, the others are fine;
/// the live-file list names which is which.
#[test]
fn verify_sst_file_checks_one_file() {
    let dir = tempfile::tempdir().unwrap();
    let options = create_options();
    {
        let db = Db::open(&options, dir.path()).unwrap();
        for i in 0..2000 {
            db.put(&key(i), &value(i)).unwrap();
            if i == 999 {
                db.flush().unwrap();
            }
        }
        db.flush().unwrap();
        assert_eq!(db.live_files().unwrap().len(), 2);
    }
    let ssts = files(dir.path(), |n| n.ends_with(".sst"));
    for sst in &ssts {
        verify_sst_file(&options, sst).unwrap();
    }
    flip_byte_at_third(&ssts[1]);
    verify_sst_file(&options, &ssts[0]).unwrap();
    corrupt(verify_sst_file(&options, &ssts[1]), "the damaged file");
    match verify_sst_file(&options, dir.path().join("missing.sst")) {
        Err(Error::RocksDb {
            kind: ErrorKind::IoError,
            ..
        }) => {}
        other => panic!("a missing file: {other:?}"),
    }
}

/// Two overlapping SST files of `0..2000`, the newer one damaged: a compaction must read it.
fn two_files_the_newer_damaged(dir: &Path) {
    {
        let db = Db::open(&create_options(), dir).unwrap();
        for _ in 0..2 {
            for i in 0..2000 {
                db.put(&key(i), &value(i)).unwrap();
            }
            db.flush().unwrap();
        }
    }
    flip_byte_at_third(files(dir, |n| n.ends_with(".sst")).last().unwrap());
}

/// `paranoid_checks` decides what a corruption met by a compaction does: on (the default)
/// the database stops writes for good (`Unrecoverable`); off, the compaction fails and
/// writes go on, as RocksDB's error handler maps it. Either way the damaged values are
/// `Corruption` to readers, not the older copies in the other file.
#[test]
fn paranoid_checks_decide_whether_a_corruption_found_by_compaction_stops_writes() {
    for paranoid in [true, false] {
        let dir = tempfile::tempdir().unwrap();
        two_files_the_newer_damaged(dir.path());
        let mut options = create_options();
        options.paranoid_checks(paranoid);
        let db = Db::open(&options, dir.path()).unwrap();
        corrupt(db.compact_range(None, None), "compaction");
        let stopped = db.background_error().unwrap().map(|e| e.severity);
        if paranoid {
            assert_eq!(stopped, Some(ErrorSeverity::Unrecoverable));
            assert!(db.put(b"refused", b"v").is_err());
        } else {
            assert_eq!(stopped, None);
            db.put(b"goes on", b"v").unwrap();
        }
        let damaged = (0..2000).filter(|&i| db.get(&key(i)).is_err()).count();
        assert!(damaged > 0 && damaged < 2000, "{damaged} damaged");
    }
}

/// A database at `dir` closed with 100 writes in its WAL, a byte in the middle flipped.
fn a_wal_corrupted_in_the_middle(dir: &Path) {
    {
        let db = Db::open(&create_options(), dir).unwrap();
        for i in 0..100 {
            db.put(&key(i), &value(i)).unwrap();
        }
    }
    let wal = files(dir, |n| n.ends_with(".log")).pop().expect("a WAL");
    flip_byte(&wal, 1, 2);
}

/// With `paranoid_checks` off, RocksDB does not report a corrupt WAL record to the recovery
/// mode: modes that refuse to open on it with the checks on (`AbsoluteConsistency`,
/// `TolerateCorruptedTailRecords`) open, dropping the damaged records and keeping only writes
/// that were made.
#[test]
fn paranoid_checks_off_opens_past_a_corrupt_wal_record() {
    let all: Vec<Vec<u8>> = (0..100).map(key).collect();
    for mode in [
        WalRecoveryMode::AbsoluteConsistency,
        WalRecoveryMode::TolerateCorruptedTailRecords,
    ] {
        for paranoid in [true, false] {
            let dir = tempfile::tempdir().unwrap();
            a_wal_corrupted_in_the_middle(dir.path());
            let mut options: Options = create_options();
            options.paranoid_checks(paranoid).wal_recovery_mode(mode);
            let opened = Db::open(&options, dir.path());
            if paranoid {
                corrupt(opened, "paranoid open");
                continue;
            }
            let db = opened.unwrap_or_else(|e| panic!("{mode:?}: {e:?}"));
            let kept: Vec<(Vec<u8>, Vec<u8>)> = db
                .reader()
                .scan(.., |k, v| (k.to_vec(), v.to_vec()))
                .collect::<pinrocks::Result<_>>()
                .unwrap();
            assert!(
                !kept.is_empty() && kept.len() < 100,
                "{mode:?}: {}",
                kept.len()
            );
            for (k, v) in &kept {
                let i = all
                    .iter()
                    .position(|a| a == k)
                    .expect("a key never written");
                assert_eq!(*v, value(i as u32));
            }
        }
    }
}

/// Whole-file checksums off for the open (the default), `verify_file_checksums` refuses;
/// on, it finds a damaged SST file too.
#[test]
fn verify_file_checksums_needs_them_written_and_finds_a_damaged_sst() {
    for on in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let mut options = create_options();
        options.file_checksums(on);
        let db = Db::open(&options, dir.path()).unwrap();
        for i in 0..2000 {
            db.put(&key(i), &value(i)).unwrap();
        }
        db.flush().unwrap();
        if !on {
            match db.verify_file_checksums() {
                Err(Error::RocksDb {
                    kind: ErrorKind::InvalidArgument,
                    ..
                }) => continue,
                other => panic!("no checksums written: {other:?}"),
            }
        }
        db.verify_file_checksums().unwrap();
        drop(db);
        flip_byte_at_third(&files(dir.path(), |n| n.ends_with(".sst"))[0]);
        let db = Db::open(&options, dir.path()).unwrap();
        corrupt(db.verify_file_checksums(), "a damaged SST");
    }
}

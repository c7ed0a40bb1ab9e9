//! Corruption found, not served: a flipped byte in an SST data block is `Corruption` on every
//! read that touches it (each tier, multi-get, a scan) and nothing else, and
//! `Db::verify_checksum` finds it; a torn last WAL record and a corrupted middle one under each
//! recovery mode.

use pinrocks::options::WalRecoveryMode;
use pinrocks::{Db, Error, ErrorKind, ReadOptions};

use crate::common::{create_options, flip_byte, patterned};

/// `result` is RocksDB's `Corruption` (`what` names the call for the failure message).
pub(crate) fn corrupt(result: pinrocks::Result<impl std::fmt::Debug>, what: &str) {
    match result {
        Err(Error::RocksDb {
            kind: ErrorKind::Corruption,
            ..
        }) => {}
        other => panic!("{what}: {other:?}"),
    }
}

pub(crate) fn key(i: u32) -> Vec<u8> {
    format!("key{i:05}").into_bytes()
}

/// Flips one byte in the middle of the database's one SST file: inside a data block.
fn flip_a_byte_in_the_sst(dir: &std::path::Path) {
    let sst = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "sst"))
        .expect("an SST file");
    flip_byte(&sst, 1, 3);
}

#[test]
fn a_flipped_byte_in_an_sst_is_corruption_on_every_read_that_touches_it_and_only_those() {
    let dir = tempfile::tempdir().unwrap();
    let value = |i: u32| patterned(200, i as u8);
    {
        let db = Db::open(&create_options(), dir.path()).unwrap();
        for i in 0..2000 {
            db.put(&key(i), &value(i)).unwrap();
        }
        db.flush().unwrap();
        db.compact_range(None, None).unwrap();
        db.verify_checksum().unwrap();
    }
    flip_a_byte_in_the_sst(dir.path());
    let db = Db::open(&create_options(), dir.path()).unwrap();
    corrupt(db.verify_checksum(), "verify_checksum");
    let mut no_cache = ReadOptions::new();
    no_cache.fill_cache(false);
    let r = db.reader().options(&no_cache);
    let (mut bad, mut good) = (Vec::new(), 0);
    for i in 0..2000 {
        match r.get(&key(i)) {
            Ok(Some(v)) => {
                assert_eq!(v, value(i), "a value served from a corrupt file");
                good += 1;
            }
            Err(Error::RocksDb {
                kind: ErrorKind::Corruption,
                ..
            }) => bad.push(i),
            other => panic!("key {i}: {other:?}"),
        }
    }
    assert!(
        !bad.is_empty() && good > 1000,
        "{} bad, {good} good",
        bad.len()
    );
    // Every tier on a key of the corrupt block says so.
    let k = key(bad[0]);
    corrupt(r.get_pinned(&k, |v| v.len()), "pinned");
    corrupt(r.get_into(&k, &mut [0u8; 256]), "buffer");
    corrupt(r.pin(&k).map(|p| p.is_some()), "guard");
    corrupt(r.get_bytes(&k), "bytes");
    let mut seen = None;
    corrupt(
        r.multi_get_pinned(&[&k[..]], |_, v| seen = v.map(<[u8]>::len)),
        "multi-get",
    );
    assert_eq!(seen, None, "multi-get served a corrupt value");
    // A scan ends with the error instead of passing the block by.
    let mut scanned: Vec<_> = r.scan(.., |k, _| k.to_vec()).collect();
    let last = scanned.pop().unwrap();
    corrupt(last, "scan");
    let keys: Vec<Vec<u8>> = scanned.into_iter().map(Result::unwrap).collect();
    assert_eq!(
        keys,
        (0..bad[0]).map(key).collect::<Vec<_>>(),
        "the keys before the block"
    );
}

/// Every WAL recovery mode.
const RECOVERY_MODES: [WalRecoveryMode; 4] = [
    WalRecoveryMode::TolerateCorruptedTailRecords,
    WalRecoveryMode::AbsoluteConsistency,
    WalRecoveryMode::PointInTimeRecovery,
    WalRecoveryMode::SkipAnyCorruptedRecords,
];

/// A database at `dir` closed with 100 writes in its WAL, not flushed: the WAL's path.
fn a_wal_of_100_writes(dir: &std::path::Path) -> std::path::PathBuf {
    {
        let db = Db::open(&create_options(), dir).unwrap();
        for i in 0..100 {
            db.put(&key(i), &patterned(100, i as u8)).unwrap();
        }
    }
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "log"))
        .max()
        .expect("a WAL")
}

#[test]
fn a_torn_last_wal_record_under_each_recovery_mode() {
    for mode in RECOVERY_MODES {
        let dir = tempfile::tempdir().unwrap();
        let wal = a_wal_of_100_writes(dir.path());
        let len = std::fs::metadata(&wal).unwrap().len();
        let file = std::fs::OpenOptions::new().write(true).open(&wal).unwrap();
        file.set_len(len - 40).unwrap(); // the last record cut short
        let mut options = create_options();
        options.wal_recovery_mode(mode);
        match Db::open(&options, dir.path()) {
            Ok(db) => {
                // The torn record is dropped, the ones before it kept, in order.
                let kept: Vec<Vec<u8>> = db
                    .reader()
                    .scan(.., |k, _| k.to_vec())
                    .collect::<pinrocks::Result<_>>()
                    .unwrap();
                assert_eq!(kept, (0..99).map(key).collect::<Vec<_>>(), "{mode:?}");
                assert!(mode != WalRecoveryMode::AbsoluteConsistency);
            }
            Err(e) => {
                assert_eq!(mode, WalRecoveryMode::AbsoluteConsistency, "{e:?}");
                assert!(
                    matches!(
                        e,
                        Error::RocksDb {
                            kind: ErrorKind::Corruption,
                            ..
                        }
                    ),
                    "{e:?}"
                );
            }
        }
    }
}

#[test]
fn a_corrupted_middle_wal_record_under_each_recovery_mode() {
    let mut kept_by = Vec::new();
    for mode in RECOVERY_MODES {
        let dir = tempfile::tempdir().unwrap();
        let wal = a_wal_of_100_writes(dir.path());
        flip_byte(&wal, 1, 2);
        let mut options = create_options();
        options.wal_recovery_mode(mode);
        let kept = Db::open(&options, dir.path()).map(|db| {
            db.reader()
                .scan(.., |k, _| k.to_vec())
                .collect::<pinrocks::Result<Vec<_>>>()
                .unwrap()
        });
        kept_by.push((mode, kept));
    }
    let all: Vec<Vec<u8>> = (0..100).map(key).collect();
    let mut point_in_time = Vec::new();
    for (mode, kept) in kept_by {
        match mode {
            // A corrupt record before the end is not a torn tail: both refuse to open.
            WalRecoveryMode::TolerateCorruptedTailRecords
            | WalRecoveryMode::AbsoluteConsistency => corrupt(kept, "a corrupt middle record"),
            // Up to the corruption, in order, and nothing after it.
            WalRecoveryMode::PointInTimeRecovery => {
                let kept = kept.unwrap();
                assert!(!kept.is_empty() && kept.len() < 100, "{}", kept.len());
                assert_eq!(kept[..], all[..kept.len()]);
                point_in_time = kept;
            }
            // What can be read around the corruption (here the rest of its 32 KiB block is
            // lost too): at least the point-in-time prefix, and only real writes.
            _ => {
                let kept = kept.unwrap();
                assert!(point_in_time.iter().all(|k| kept.contains(k)));
                assert!(kept.iter().all(|k| all.contains(k)) && kept.len() < 100);
            }
        }
    }
}

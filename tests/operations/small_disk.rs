//! A real disk filling up: a 4 MiB tmpfs mounted for the test (Linux, with the right to mount:
//! elsewhere the test says why it did not run), a database written until the file system is
//! full. Where RocksDB meets the full disk decides what a writer sees: a WAL append gets
//! `NoSpace`; a flush first makes it a soft error (RocksDB's `SstFileManager`, there by
//! default, recovers once there is room), writes go on until the memtables are full and then
//! stall, which a write with `no_slowdown` sees as `WouldStall` (without it, the write waits
//! for the room). Either way nothing acknowledged is lost, and once space is freed writes go
//! on.
#![cfg(target_os = "linux")]

use std::path::{Path, PathBuf};
use std::process::Command;

use pinrocks::{Db, Error, ErrorKind, Options, WriteOptions};

use crate::common::create_options;

/// A tmpfs of `size` mounted on a new directory, unmounted when dropped.
struct SmallDisk {
    _dir: tempfile::TempDir,
    at: PathBuf,
}

impl SmallDisk {
    /// `None` when this process may not mount (not root): said on stderr.
    fn mount(size: &str) -> Option<SmallDisk> {
        let dir = tempfile::tempdir().unwrap();
        let at = dir.path().join("disk");
        std::fs::create_dir(&at).unwrap();
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(&at)
            .output()
            .expect("run mount");
        if !out.status.success() {
            // With the right to mount (CAP_SYS_ADMIN) a failed mount is a failure;
            // otherwise the test cannot run here.
            assert!(
                !may_mount(),
                "mount failed with CAP_SYS_ADMIN: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            eprintln!("small_disk: not run: mounting a tmpfs needs CAP_SYS_ADMIN (root)");
            return None;
        }
        Some(SmallDisk { _dir: dir, at })
    }
}

/// Whether this process has CAP_SYS_ADMIN (bit 21 of its effective capabilities).
fn may_mount() -> bool {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("CapEff:"))
        .and_then(|hex| u64::from_str_radix(hex.trim(), 16).ok())
        .is_some_and(|caps| caps & (1 << 21) != 0)
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.at).status();
    }
}

fn options() -> Options {
    let mut options = create_options();
    // Small memtables, so flushes (SST files) fill the disk as well as the WAL.
    options.write_buffer_size(256 << 10);
    options
}

/// 16 KiB that do not compress (SST files would hold constant bytes in a few), from `i`.
fn value(i: u32) -> Vec<u8> {
    let mut x = u64::from(i) * 0x9E37_79B9_7F4A_7C15 + 1;
    (0..16 << 10)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

fn holds(db: &Db, acknowledged: u32) {
    for i in 0..acknowledged {
        assert_eq!(
            db.get(&i.to_be_bytes()).unwrap().as_deref(),
            Some(&value(i)[..]),
            "acknowledged write {i}"
        );
    }
}

#[test]
fn a_small_disk_filling_up_stops_writes_with_no_space_and_loses_nothing() {
    let Some(disk) = SmallDisk::mount("4m") else {
        return;
    };
    // Space to free later, as an operator would.
    let ballast: &Path = &disk.at.join("ballast");
    std::fs::write(ballast, vec![0u8; 1 << 20]).unwrap();
    let path = disk.at.join("db");
    let db = Db::open(&options(), &path).unwrap();
    let mut synced = WriteOptions::new();
    // No write may wait for room that never comes.
    synced.sync(true).no_slowdown(true);
    let mut acknowledged = 0u32;
    let mut stalls = 0;
    let failure = loop {
        assert!(acknowledged < 1_000, "4 MiB never filled up");
        match db
            .writer()
            .options(&synced)
            .put(&acknowledged.to_be_bytes(), &value(acknowledged))
        {
            Ok(()) => {
                acknowledged += 1;
                stalls = 0;
            }
            // A stall while a flush runs is no full disk: it passes within moments. One
            // that lasts 2 s is (the flush met the full disk: a soft error, which
            // `background_error` does not report, as writes may go on).
            Err(Error::RocksDb {
                kind: ErrorKind::WouldStall,
                ..
            }) if stalls < 400 => {
                stalls += 1;
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            Err(e) => break e,
        }
    };
    let stalled = match &failure {
        Error::RocksDb {
            kind: ErrorKind::NoSpace,
            ..
        } => false,
        Error::RocksDb {
            kind: ErrorKind::WouldStall,
            ..
        } => true,
        other => panic!("the full disk reported as {other:?}"),
    };
    assert!(acknowledged > 10, "filled after {acknowledged} writes");
    eprintln!("small_disk: full after {acknowledged} writes (stalled: {stalled})");
    // Stopped while full; every acknowledged write still reads back exactly.
    if !stalled {
        assert!(db.background_error().unwrap().is_some());
    }
    assert!(db
        .writer()
        .options(&synced)
        .put(b"refused", b"while full")
        .is_err());
    holds(&db, acknowledged);

    std::fs::remove_file(ballast).unwrap();
    // RocksDB recovers on its own (its SstFileManager polls the free space, every 5 s):
    // `resume` is `Busy` until then, and `Ok` once writes can go on; a stalled write
    // goes through once the flushes have run.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let outcome = db.resume().and_then(|()| {
            db.writer()
                .options(&synced)
                .put(&acknowledged.to_be_bytes(), &value(acknowledged))
        });
        match outcome {
            Ok(()) => break,
            Err(Error::RocksDb {
                kind: ErrorKind::Busy | ErrorKind::WouldStall,
                ..
            }) if std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(50))
            }
            Err(e) => panic!("writes with room again: {e:?}"),
        }
    }
    acknowledged += 1;
    assert!(db.background_error().unwrap().is_none());
    drop(db);
    let db = Db::open(&options(), &path).unwrap();
    holds(&db, acknowledged);
    assert_eq!(db.get(b"refused").unwrap(), None);
}

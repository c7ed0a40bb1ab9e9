//! Crash durability: a child process writes, reports each acknowledged write, and is
//! killed with SIGKILL mid-stream. With `sync = true` every acknowledged write survives the
//! reopen, exactly; with the WAL disabled, acknowledged writes still in the memtable are
//! lost (what `WriteOptions::disable_wal` documents).

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use pinrocks::{Db, ReadOptions, WriteOptions};

const ACKS_BEFORE_KILL: u64 = 300;

fn value(i: u64) -> Vec<u8> {
    let mut v = i.to_be_bytes().to_vec();
    v.extend(std::iter::repeat_n(
        (i % 251) as u8,
        100 + (i % 900) as usize,
    ));
    v
}

/// The child: writes keys 0, 1, 2, ... forever, printing "ack N" after each returns.
/// Runs only when the parent starts it with PINROCKS_CRASH_DIR set.
#[test]
#[ignore = "run by the crash tests in a child process"]
fn crash_child() {
    let Ok(dir) = std::env::var("PINROCKS_CRASH_DIR") else {
        return;
    };
    let db = Db::open(&common::create_options(), &dir).unwrap();
    let mut options = WriteOptions::new();
    match std::env::var("PINROCKS_CRASH_MODE").as_deref() {
        Ok("sync") => options.sync(true),
        Ok("no-wal") => options.disable_wal(true),
        other => panic!("unknown mode {other:?}"),
    };
    let mut out = std::io::stdout().lock();
    for i in 0u64.. {
        db.writer()
            .options(&options)
            .put(&i.to_be_bytes(), &value(i))
            .unwrap();
        use std::io::Write;
        writeln!(out, "ack {i}").unwrap();
        out.flush().unwrap();
    }
}

/// Runs the child until it has acknowledged `ACKS_BEFORE_KILL` writes (and a few more
/// while we read), kills it with SIGKILL, and returns the highest acknowledged key.
fn write_and_kill(dir: &std::path::Path, mode: &str) -> u64 {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "crash_child",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("PINROCKS_CRASH_DIR", dir)
        .env("PINROCKS_CRASH_MODE", mode)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut last = None;
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let line = line.unwrap();
        if let Some(n) = line.strip_prefix("ack ") {
            last = Some(n.parse().unwrap());
            if last >= Some(ACKS_BEFORE_KILL) {
                break;
            }
        }
    }
    child.kill().unwrap(); // SIGKILL on Unix: no destructor, no flush, no close
    child.wait().unwrap();
    last.expect("the child acknowledged nothing")
}

/// Every key present after the crash, checked to be exactly what was written.
fn recovered(dir: &std::path::Path) -> Vec<u64> {
    let db = Db::open(&common::create_options(), dir).unwrap();
    let mut checked = ReadOptions::new();
    checked.verify_checksums(true);
    db.reader()
        .options(&checked)
        .scan(.., |k, v| {
            let i = u64::from_be_bytes(k.try_into().expect("an 8-byte key"));
            assert_eq!(v, value(i), "key {i} recovered with wrong bytes");
            i
        })
        .collect::<pinrocks::Result<_>>()
        .expect("no corruption after the crash")
}

#[test]
fn synced_writes_survive_sigkill() {
    let dir = tempfile::tempdir().unwrap();
    let acked = write_and_kill(dir.path(), "sync");
    let keys = recovered(dir.path());
    // Every acknowledged write is there; at most the one in flight beyond it.
    assert!(
        keys.len() as u64 > acked,
        "acked 0..={acked}, recovered {}",
        keys.len()
    );
    assert_eq!(
        keys,
        (0..keys.len() as u64).collect::<Vec<_>>(),
        "a gap in the recovered keys"
    );
}

#[test]
fn writes_without_the_wal_are_lost_on_sigkill() {
    let dir = tempfile::tempdir().unwrap();
    let acked = write_and_kill(dir.path(), "no-wal");
    let keys = recovered(dir.path());
    // Nothing was flushed (the memtable holds 64 MiB), so every acknowledged write is gone.
    assert!(acked >= ACKS_BEFORE_KILL);
    assert_eq!(keys, Vec::<u64>::new(), "acked 0..={acked} without WAL");
}

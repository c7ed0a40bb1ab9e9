//! Shared test setup: a fresh database in a temporary directory.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::Path;

use pinrocks::callbacks::MergeOperator;
use pinrocks::{ColumnFamily, Db};
use tempfile::TempDir;

// Shared with the fuzz targets too (fuzz/fuzz_targets/faults.rs), which include it alone.
mod setup;
// Not every test binary uses both (`dead_code` above does not cover re-exports).
#[allow(unused_imports)]
pub use setup::{append, create_options, open_without_flushes};

/// A new database with the default column family and `cfs`, and the directory keeping it.
pub fn open_db(cfs: &[&str]) -> (TempDir, Db) {
    let dir = tempfile::tempdir().expect("temporary directory");
    let db = Db::open_cf(&create_options(), dir.path(), cfs).expect("open");
    (dir, db)
}

/// A value whose every byte depends on its position and `seed`, so a shifted, truncated or
/// stale read cannot compare equal.
pub fn patterned(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed) ^ (i >> 8) as u8)
        .collect()
}

/// Where values are when they are read.
#[derive(Debug, Clone, Copy)]
pub enum Stage {
    /// Still in the memtable.
    Memtable,
    /// Flushed to an SST file.
    Flushed,
    /// Flushed and compacted.
    Compacted,
}

pub const STAGES: [Stage; 3] = [Stage::Memtable, Stage::Flushed, Stage::Compacted];

/// Moves what each of `cfs` holds to `stage`: leaves it, flushes it, or flushes and
/// compacts it.
pub fn settle(cfs: &[&ColumnFamily<'_>], stage: Stage) {
    for cf in cfs {
        match stage {
            Stage::Memtable => {}
            Stage::Flushed => cf.flush().unwrap(),
            Stage::Compacted => {
                cf.flush().unwrap();
                cf.compact_range(None, None).unwrap();
            }
        }
    }
}

/// Reads `key` through every read tier of `reader` (Vec, pinned closure, guard, owned
/// `Bytes`, buffer, growing buffer, pinned multi-get, range scan), asserts that they agree,
/// and returns the value.
pub fn every_tier<S: pinrocks::read::ReadSource>(
    reader: pinrocks::Reader<'_, S>,
    key: &[u8],
) -> Option<Vec<u8>> {
    let vec = reader.get(key).unwrap();
    let pinned = reader.get_pinned(key, |v| v.to_vec()).unwrap();
    let guard = reader.pin(key).unwrap().map(|g| g.to_vec());
    let bytes = reader.get_bytes(key).unwrap().map(|b| b.to_vec());
    let mut buf = vec![0u8; vec.as_ref().map_or(0, Vec::len)];
    let copied = match reader.get_into(key, &mut buf).unwrap() {
        pinrocks::CopyResult::Copied(n) => Some(buf[..n].to_vec()),
        pinrocks::CopyResult::NotFound => None,
        other => panic!("buffer tier: {other:?}"),
    };
    let mut grown = bytes::BytesMut::new();
    let grown = reader
        .get_into_bytes(key, &mut grown)
        .unwrap()
        .then(|| grown.to_vec());
    let mut multi = None;
    reader
        .multi_get_pinned(&[key], |_, v| multi = v.map(<[u8]>::to_vec))
        .unwrap();
    let scanned = reader
        .scan(key..=key, |_, v| v.to_vec())
        .next()
        .transpose()
        .unwrap();
    for (tier, other) in [
        ("pinned", &pinned),
        ("guard", &guard),
        ("bytes", &bytes),
        ("buffer", &copied),
        ("growing buffer", &grown),
        ("multi-get", &multi),
        ("scan", &scanned),
    ] {
        assert_eq!(
            other, &vec,
            "{tier} tier disagrees with the Vec tier at {key:?}"
        );
    }
    vec
}

/// Property-test settings of the model tests: `default` cases, or PROPTEST_CASES (memcheck
/// runs 4; a soak runs thousands), shrunk failures not persisted. (An explicit `cases`
/// would override the environment, so it is read here.)
pub fn proptest_config(default: u32) -> proptest::test_runner::Config {
    proptest::test_runner::Config {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|c| c.parse().ok())
            .unwrap_or(default),
        failure_persistence: None,
        ..proptest::test_runner::Config::default()
    }
}

/// A big-endian u64 counter: a merge adds its operand (wrapping).
pub fn counter() -> MergeOperator {
    MergeOperator::fold::<pinrocks::codec::BigEndian<u64>>("counter", |sum, x| sum.wrapping_add(x))
}

/// Caps this process's address space at what it uses now plus `extra` bytes (the soft
/// limit: `lift_address_space_cap` takes it off again).
pub fn limit_address_space(extra: u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let vm_kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmSize:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap();
    set_address_space_cap(vm_kb * 1024 + extra);
}

/// Takes off the cap `limit_address_space` set (up to the hard limit, unchanged).
pub fn lift_address_space_cap() {
    set_address_space_cap(u64::MAX);
}

/// Sets RLIMIT_AS's soft limit to `cap` (at most the hard limit).
fn set_address_space_cap(cap: u64) {
    #[repr(C)]
    struct Rlimit {
        cur: u64,
        max: u64,
    }
    extern "C" {
        fn getrlimit(resource: i32, limit: *mut Rlimit) -> i32;
        fn setrlimit(resource: i32, limit: *const Rlimit) -> i32;
    }
    const RLIMIT_AS: i32 = 9; // Linux
    let mut limit = Rlimit { cur: 0, max: 0 };
    // SAFETY: getrlimit writes one struct rlimit (two u64 on 64-bit Linux).
    assert_eq!(unsafe { getrlimit(RLIMIT_AS, &mut limit) }, 0);
    limit.cur = cap.min(limit.max);
    // SAFETY: setrlimit reads one valid struct rlimit.
    assert_eq!(unsafe { setrlimit(RLIMIT_AS, &limit) }, 0);
}

/// What `f` gives on another thread within five seconds (a call waiting on a lock left held
/// waits forever), printed as not reached, and the process ended: a child whose fix failed.
pub fn not_reached_unless_within_5_s<T: std::fmt::Debug + Send + 'static>(
    what: &str,
    f: impl FnOnce() -> T + Send + 'static,
) -> ! {
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || sender.send(f()));
    let given = receiver.recv_timeout(std::time::Duration::from_secs(5));
    println!("not reached: {what} gave {given:?}");
    std::process::exit(0);
}

/// Runs the `#[ignore]`d test `name` of this test binary in a child process with `env` set
/// to `dir`, and returns its exit status's success and what it printed.
pub fn run_child(name: &str, env: &str, dir: &std::path::Path) -> (bool, String, String) {
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            name,
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(env, dir)
        .output()
        .unwrap();
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        format!(
            "{:?}: {}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ),
    )
}

/// The newest OPTIONS file RocksDB wrote in `dir`.
pub fn newest_options_file(dir: &Path) -> std::path::PathBuf {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("OPTIONS-")
        })
        .max()
        .unwrap()
}

/// What libtest calls the test `name` of the module at `module_path` (the caller's
/// `module_path!()`): `module::name` in a test binary whose files are modules, for a child
/// process started with `--exact`.
pub fn test_path(module_path: &str, name: &str) -> String {
    match module_path.split_once("::") {
        Some((_, module)) => format!("{module}::{name}"),
        None => name.to_owned(),
    }
}

/// Runs the ignored test `child` of the module at `module_path` in a child process with
/// `var` set to `dir`, and checks that it aborted (SIGABRT) with `message` on stderr before
/// printing "not reached".
pub fn aborts_in_child(module_path: &str, child: &str, var: &str, dir: &Path, message: &str) {
    use std::os::unix::process::ExitStatusExt;
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            test_path(module_path, child).as_str(),
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(var, dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        output.status.signal(),
        Some(6),
        "SIGABRT expected: {stderr}"
    );
    assert!(stderr.contains(message), "{stderr}");
    assert!(!String::from_utf8_lossy(&output.stdout).contains("not reached"));
}

/// Flips one byte of `file`, `num`/`den` of the way in (damage a checksum must catch).
pub fn flip_byte(file: &Path, num: usize, den: usize) {
    let mut bytes = std::fs::read(file).unwrap();
    let at = bytes.len() * num / den;
    bytes[at] ^= 0x5A;
    std::fs::write(file, bytes).unwrap();
}

/// The newest OPTIONS file RocksDB wrote in `dir`, as section -> key -> value.
pub fn stored(dir: &Path) -> BTreeMap<String, BTreeMap<String, String>> {
    let newest = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let n: u64 = name.strip_prefix("OPTIONS-")?.parse().ok()?;
            Some((n, e.path()))
        })
        .max_by_key(|(n, _)| *n)
        .expect("an OPTIONS file")
        .1;
    let mut sections = BTreeMap::new();
    let mut current = String::new();
    for line in std::fs::read_to_string(newest).unwrap().lines() {
        let line = line.trim();
        if let Some(section) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            current = section.to_string();
        } else if let Some((k, v)) = line.split_once('=') {
            sections
                .entry(current.clone())
                .or_insert_with(BTreeMap::new)
                .insert(k.trim().to_string(), v.trim().to_string());
        }
    }
    sections
}

pub fn value<'a>(
    options: &'a BTreeMap<String, BTreeMap<String, String>>,
    section: &str,
    key: &str,
) -> &'a str {
    options
        .get(section)
        .unwrap_or_else(|| panic!("no section {section}: {:?}", options.keys()))
        .get(key)
        .unwrap_or_else(|| panic!("no {key} in {section}"))
}

/// Every entry `reader` sees, in order, copied out.
pub fn entries<S: pinrocks::read::ReadSource>(
    reader: pinrocks::Reader<'_, S>,
) -> Vec<(Vec<u8>, Vec<u8>)> {
    reader
        .scan(.., |k, v| (k.to_vec(), v.to_vec()))
        .collect::<pinrocks::Result<_>>()
        .unwrap()
}

/// Every flip (`^ 0x01`, `0x80`, `0xFF`) of every byte of `good`, placed `offset` bytes
/// into a buffer for each of `offsets` (so its address varies), given to `read` (a read
/// that validates) and to `stored` (`Stored::new` and a `get`, which does not validate
/// again): both accept the same buffers and read the same from them, and some flips are
/// accepted and some refused, so the check has seen both.
pub fn flips_read_alike<F: PartialEq + std::fmt::Debug>(
    good: &[u8],
    offsets: &[usize],
    read: impl Fn(&[u8]) -> Result<F, pinrocks::codec::DecodeError>,
    stored: impl Fn(bytes::Bytes) -> Result<F, pinrocks::codec::DecodeError>,
) {
    use pinrocks::codec::DecodeError::Other;
    let (mut accepted, mut refused) = (0, 0);
    for (i, &offset) in (0..good.len()).flat_map(|i| offsets.iter().map(move |o| (i, o))) {
        for flip in [0x01u8, 0x80, 0xFF] {
            let mut bad = vec![0u8; offset];
            bad.extend_from_slice(good);
            bad[offset + i] ^= flip;
            let bad = bytes::Bytes::from(bad).slice(offset..);
            match (read(&bad), stored(bad)) {
                (Ok(read), Ok(kept)) => {
                    assert_eq!(kept, read, "byte {i} ^ {flip:#x}");
                    accepted += 1;
                }
                (Err(Other(_)), Err(Other(_))) => refused += 1,
                (read, kept) => panic!("byte {i} ^ {flip:#x}: {read:?} / {kept:?}"),
            }
        }
    }
    assert!(accepted > 0 && refused > 0, "{accepted} / {refused}");
}

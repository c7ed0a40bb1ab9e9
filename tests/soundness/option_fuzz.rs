//! The option fuzzer's driver, shared by the fuzz target (`fuzz/fuzz_targets/options.rs`,
//! which includes this file alone) and a short seeded run in the test command: hostile
//! values (0, 1, -1, the types' extremes, huge sizes, tiny and huge ratios, malformed
//! strings) for random option names, through every path that sets options (by name, by
//! string, live on a column family, live on the database), then an open, writes, a flush,
//! a compaction, reads through every tier and a close, on a file system in memory. The only
//! outcomes allowed: an `Err`, or a database that gives back exactly what was written. An
//! abort, a panic or a hang (the caller's watchdog) is a finding.

use pinrocks::options::MemEnv;
use pinrocks::{CopyResult, Db, Error, Options, ReadOptions};

/// Values a hostile caller would try.
pub const HOSTILE: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "7",
    "64",
    "4096",
    "2147483647",
    "-2147483648",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "18446744073709551615",
    "1099511627776",
    "1T",
    "64M",
    "1e308",
    "-1e308",
    "2.5e-10",
    "1e-300",
    "0.5",
    "nan",
    "inf",
    "true",
    "false",
    "",
    "{",
    "}",
    "{}",
    "a=b",
    "x;y=z",
    "kNoCompression",
    "kZSTD",
    "PlainTable",
    "CuckooTable",
    "rocksdb.FixedPrefix.1",
    "nullptr",
    "garbage",
];

/// What one input came to.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Outcome {
    /// Options refused where they were set (by name, by string, live).
    pub refused_at_set: usize,
    /// Opens refused (by pinrocks' checks or by RocksDB).
    pub refused_at_open: usize,
    /// Databases that opened and gave back every byte written.
    pub worked: usize,
    /// Databases that opened and answered an operation with an `Err`.
    pub failed_with_err: usize,
}

/// Every option name the table classifies (database and column family options, and table
/// options written inside their factory's nested value).
pub fn names() -> Vec<(String, &'static str)> {
    pinrocks::options::option_contracts()
        .filter(|c| !c.name.contains('.'))
        .map(|c| (c.name.to_owned(), c.scope))
        .collect()
}

/// One input: pairs of (name, value) picked by the bytes, set through the path the first
/// byte picks, then the workload.
pub fn run(input: &[u8], names: &[(String, &'static str)]) -> Outcome {
    let mut outcome = Outcome::default();
    let Some((&path, rest)) = input.split_first() else {
        return outcome;
    };
    let pairs: Vec<(String, String)> = rest
        .chunks_exact(3)
        .take(6)
        .map(|c| {
            let (name, scope) = &names[usize::from(u16::from_le_bytes([c[0], c[1]])) % names.len()];
            let value = HOSTILE[usize::from(c[2]) % HOSTILE.len()];
            match *scope {
                "block_based" => (
                    "block_based_table_factory".to_owned(),
                    format!("{{{name}={value}}}"),
                ),
                "plain" => (
                    "plain_table_factory".to_owned(),
                    format!("{{{name}={value}}}"),
                ),
                "cuckoo" => (
                    "cuckoo_table_factory".to_owned(),
                    format!("{{{name}={value}}}"),
                ),
                _ => (name.clone(), value.to_owned()),
            }
        })
        .collect();
    if std::env::var_os("PINROCKS_FUZZ_TRACE").is_some() {
        eprintln!("options fuzz: path {} {pairs:?}", path % 4);
    }
    let borrowed: Vec<(&str, &str)> = pairs
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_str()))
        .collect();
    let env = MemEnv::new().expect("a file system in memory");
    let mut options = Options::new();
    options.create_if_missing(true).mem_env(&env);
    let set = match path % 4 {
        0 => options.set_by_name(&borrowed).map(|_| ()),
        1 => {
            let joined: Vec<String> = pairs.iter().map(|(n, v)| format!("{n}={v}")).collect();
            options.set_from_string(&joined.join(";")).map(|_| ())
        }
        _ => Ok(()),
    };
    if let Err(e) = set {
        assert_names_an_option(&e, &pairs);
        outcome.refused_at_set += 1;
        return outcome;
    }
    let db = match Db::open(&options, "/fuzz/db") {
        Ok(db) => db,
        Err(_) => {
            outcome.refused_at_open += 1;
            return outcome;
        }
    };
    let live = match path % 4 {
        2 => db.set_options(&borrowed),
        3 => db.set_db_options(&borrowed),
        _ => Ok(()),
    };
    if let Err(e) = live {
        assert_names_an_option(&e, &pairs);
        outcome.refused_at_set += 1;
    }
    match workload(&db) {
        Ok(()) => outcome.worked += 1,
        Err(_) => outcome.failed_with_err += 1,
    }
    let _ = db.close();
    outcome
}

/// A refusal of options names one that was asked (or none, for a string RocksDB could not
/// split or a rule of RocksDB's own joining several), or the partner a rule joining two
/// options names (`prefix_extractor`, missing for a plain table's hash index), or is not an
/// option refusal at all.
fn assert_names_an_option(e: &Error, asked: &[(String, String)]) {
    if let Error::OptionRejected { options, .. } = e {
        if let Some((name, _)) = options.first() {
            let top = name.split('.').next().unwrap_or(name);
            assert!(
                name == "prefix_extractor"
                    || asked
                        .iter()
                        .any(|(n, v)| n == name || n == top || v.contains(top)),
                "refusal names {name}, which was not asked: {asked:?}"
            );
        }
    }
}

/// Writes, flushes, compacts and reads back through every tier, comparing bytes.
fn workload(db: &Db) -> pinrocks::Result<()> {
    let value = |i: usize| -> Vec<u8> {
        let len = [0, 1, 100, 5000, 70_000][i % 5];
        (0..len).map(|j| (i * 7 + j) as u8).collect()
    };
    for i in 0..20usize {
        db.put(format!("key{i:03}").as_bytes(), &value(i))?;
    }
    db.delete(b"key004")?;
    let check = |db: &Db| -> pinrocks::Result<()> {
        for i in 0..20usize {
            let key = format!("key{i:03}");
            let want = (i != 4).then(|| value(i));
            assert_eq!(db.get(key.as_bytes())?, want, "{key}: Vec tier");
            let pinned = db.get_pinned(key.as_bytes(), |v| v.to_vec())?;
            assert_eq!(pinned, want, "{key}: pinned tier");
            let mut buf = vec![0u8; 80_000];
            match db.get_into(key.as_bytes(), &mut buf)? {
                CopyResult::Copied(n) => assert_eq!(Some(&buf[..n]), want.as_deref()),
                CopyResult::NotFound => assert_eq!(want, None, "{key}: buffer tier"),
                CopyResult::NotEnoughCapacity { required } => {
                    panic!("{key}: {required} bytes for a value of at most 70,000")
                }
            }
        }
        let snapshot = db.snapshot();
        let mut at_snapshot = ReadOptions::new();
        at_snapshot.snapshot(&snapshot);
        let seen: usize = db
            .reader()
            .options(&at_snapshot)
            .get_pinned(b"key001", |v| v.len())?
            .unwrap_or_default();
        assert_eq!(seen, value(1).len(), "snapshot read");
        Ok(())
    };
    check(db)?;
    db.flush()?;
    check(db)?;
    db.compact_range(None, None)?;
    check(db)
}

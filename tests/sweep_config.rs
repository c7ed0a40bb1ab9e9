//! The sweep's own-configuration readers (`benches/sweep/config.rs`) on small inputs: an
//! OPTIONS file RocksDB wrote becomes an option string both libraries accept and that
//! round-trips, a file of sizes becomes its quantiles, a list of regimes is checked.

#[path = "../benches/sweep/config.rs"]
mod config;

mod common;

use config::{options_string_from_file, regimes, sizes_from_distribution};

/// The newest OPTIONS file in a database directory.
fn options_file(dir: &std::path::Path) -> String {
    std::fs::read_to_string(common::newest_options_file(dir)).unwrap()
}

/// The settings the test writes, each as the file's string must name it.
const SETTINGS: [&str; 3] = [
    "max_open_files=123",
    "write_buffer_size=7340032",
    "block_size=16384",
];

#[test]
fn an_options_file_becomes_a_string_both_libraries_take_and_that_round_trips() {
    let written = tempfile::tempdir().unwrap();
    let mut options = pinrocks::Options::new();
    options
        .create_if_missing(true)
        .set_from_string(
            "max_open_files=123;write_buffer_size=7340032;\
             block_based_table_factory={block_size=16384}",
        )
        .unwrap();
    drop(pinrocks::Db::open(&options, written.path()).unwrap());
    let string = options_string_from_file(&options_file(written.path()));
    for setting in SETTINGS {
        assert!(string.contains(setting), "{setting} in {string}");
    }
    assert!(!string.contains("comparator="), "{string}");
    assert!(!string.contains("nullptr"), "{string}");

    // Both libraries take it.
    let mut ours = pinrocks::Options::new();
    ours.create_if_missing(true)
        .set_from_string(&string)
        .unwrap();
    rocksdb::Options::default()
        .get_options_from_string(&string)
        .unwrap();

    // A database opened with it writes the same settings again.
    let again = tempfile::tempdir().unwrap();
    drop(pinrocks::Db::open(&ours, again.path()).unwrap());
    let rewritten = options_string_from_file(&options_file(again.path()));
    for setting in SETTINGS {
        assert!(rewritten.contains(setting), "{setting} in {rewritten}");
    }
}

#[test]
fn a_size_file_is_measured_at_its_quantiles_and_largest() {
    let text: String = (1..=100).map(|i| format!("{}\n", i * 10)).collect();
    assert_eq!(
        sizes_from_distribution(&format!("# sizes\n{text}\n")).unwrap(),
        vec![100, 500, 900, 990, 1000]
    );
    // Repeated quantiles are measured once.
    assert_eq!(
        sizes_from_distribution("64\n64\n64\n4096 # one large\n").unwrap(),
        vec![64, 4096]
    );
    assert_eq!(
        sizes_from_distribution("8\nlarge\n").unwrap_err(),
        "line 2: \"large\" is not a size in bytes"
    );
    assert_eq!(
        sizes_from_distribution("# nothing\n").unwrap_err(),
        "no sizes in the file"
    );
}

#[test]
fn regimes_are_all_by_default_or_the_ones_named() {
    assert_eq!(regimes(None).unwrap(), config::REGIMES.to_vec());
    assert_eq!(
        regimes(Some("page_cache, memtable")).unwrap(),
        vec!["page_cache", "memtable"]
    );
    assert!(regimes(Some("disk"))
        .unwrap_err()
        .contains("unknown regime \"disk\""));
}

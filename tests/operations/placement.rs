//! Where a database's files go and how it does I/O, set through the typed setters and shown
//! by the files themselves (the WAL in `wal_dir`, the info log in `db_log_dir`, SST files in
//! `db_paths` and `cf_paths`), by direct reads that read back exactly, and by the OPTIONS
//! file RocksDB writes; and RocksDB's presets, each read back.

use std::path::Path;
use std::time::Duration;

use crate::common::{create_options, every_tier, stored, value};
use pinrocks::callbacks::LogLevel;
use pinrocks::{Db, Options};

const CF: &str = "CFOptions \"default\"";
const DB: &str = "DBOptions";
const TABLE: &str = "TableOptions/BlockBasedTable \"default\"";

/// The names of the files in `dir` ending in `suffix`.
fn files_ending(dir: &Path, suffix: &str) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .filter_map(|e| e.file_name().into_string().ok())
                .filter(|name| name.ends_with(suffix))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn the_wal_and_the_info_log_go_to_their_own_directories() {
    let root = tempfile::tempdir().unwrap();
    let (db_dir, wal_dir, log_dir) = (
        root.path().join("db"),
        root.path().join("wal"),
        root.path().join("log"),
    );
    let mut options = create_options();
    options
        .wal_dir(&wal_dir)
        .db_log_dir(&log_dir)
        .info_log_level(LogLevel::Warn);
    {
        let db = Db::open(&options, &db_dir).unwrap();
        db.put(b"k", b"only in the WAL").unwrap();
        assert_eq!(files_ending(&wal_dir, ".log").len(), 1, "the WAL is there");
        assert!(
            files_ending(&db_dir, ".log").is_empty(),
            "no WAL with the data"
        );
        // The info log is named after the database's path, in the log directory.
        let logs = files_ending(&log_dir, "_LOG");
        assert_eq!(logs.len(), 1, "{logs:?}");
        assert!(!db_dir.join("LOG").exists());
    }
    // The write is in the WAL alone (a close does not flush what the WAL holds): reopened
    // with the WAL directory, it is there. The stored options name both directories.
    let db = Db::open(&options, &db_dir).unwrap();
    assert_eq!(
        db.get(b"k").unwrap().as_deref(),
        Some(&b"only in the WAL"[..])
    );
    drop(db);
    let written = stored(&db_dir);
    assert_eq!(value(&written, DB, "wal_dir"), wal_dir.to_str().unwrap());
    assert_eq!(value(&written, DB, "db_log_dir"), log_dir.to_str().unwrap());
    assert_eq!(value(&written, DB, "info_log_level"), "WARN_LEVEL");
}

#[test]
fn sst_files_go_to_db_paths_and_a_familys_cf_paths() {
    let root = tempfile::tempdir().unwrap();
    let (db_dir, fast, family_dir) = (
        root.path().join("db"),
        root.path().join("fast"),
        root.path().join("family"),
    );
    let mut options = create_options();
    options.db_paths(&[(&fast, 1u64 << 30)]);
    let mut family = Options::new();
    family.cf_paths(&[(&family_dir, 1u64 << 30)]);
    let db = Db::open(&options, &db_dir).unwrap();
    let named = db.create_cf("named", &family).unwrap();
    db.put(b"d", b"default").unwrap();
    named.writer().put(b"n", b"named").unwrap();
    db.flush().unwrap();
    named.flush().unwrap();
    assert_eq!(files_ending(&fast, ".sst").len(), 1, "the default family's");
    assert_eq!(
        files_ending(&family_dir, ".sst").len(),
        1,
        "the named family's"
    );
    assert!(files_ending(&db_dir, ".sst").is_empty());
    assert_eq!(
        every_tier(named.reader(), b"n").as_deref(),
        Some(&b"named"[..])
    );
    assert_eq!(
        every_tier(db.reader(), b"d").as_deref(),
        Some(&b"default"[..])
    );
}

/// Direct reads and writes on this machine's ext4: SST files written and read with
/// `O_DIRECT` hold exactly what was written (read through every tier after a reopen, so
/// nothing comes from the memtable).
#[test]
fn direct_io_reads_back_what_it_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = create_options();
    options
        .use_direct_reads(true)
        .use_direct_io_for_flush_and_compaction(true)
        .compaction_readahead_size(4 << 20);
    let values: Vec<Vec<u8>> = (0..200u32)
        .map(|i| crate::common::patterned(100 + i as usize * 37, i as u8))
        .collect();
    {
        let db = Db::open(&options, dir.path()).unwrap();
        for (i, v) in values.iter().enumerate() {
            db.put(format!("k{i:04}").as_bytes(), v).unwrap();
        }
        db.flush().unwrap();
        db.compact_range(None, None).unwrap();
    }
    let db = Db::open(&options, dir.path()).unwrap();
    for (i, v) in values.iter().enumerate() {
        assert_eq!(
            every_tier(db.reader(), format!("k{i:04}").as_bytes()).as_ref(),
            Some(v)
        );
    }
    drop(db);
    let written = stored(dir.path());
    assert_eq!(value(&written, DB, "use_direct_reads"), "true");
    assert_eq!(
        value(&written, DB, "use_direct_io_for_flush_and_compaction"),
        "true"
    );
    assert_eq!(value(&written, DB, "compaction_readahead_size"), "4194304");
}

#[test]
fn log_and_wal_settings_reach_rocksdb() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = create_options();
    options
        .log_file_time_to_roll(Duration::from_millis(3_600_001))
        .recycle_log_file_num(2)
        .wal_compression(true);
    let db = Db::open(&options, dir.path()).unwrap();
    db.put(b"k", b"compressed in the WAL").unwrap();
    drop(db);
    let db = Db::open(&options, dir.path()).unwrap();
    assert_eq!(
        db.get(b"k").unwrap().as_deref(),
        Some(&b"compressed in the WAL"[..])
    );
    drop(db);
    let written = stored(dir.path());
    // A sub-second remainder rounds up.
    assert_eq!(value(&written, DB, "log_file_time_to_roll"), "3601");
    assert_eq!(value(&written, DB, "recycle_log_file_num"), "2");
    assert_eq!(value(&written, DB, "wal_compression"), "kZSTD");
}

/// RocksDB's presets, each read back: the values RocksDB's own code sets.
#[test]
fn presets_set_what_rocksdb_sets() {
    let written = |set: &dyn Fn(&mut Options)| {
        let dir = tempfile::tempdir().unwrap();
        let mut options = create_options();
        set(&mut options);
        drop(Db::open(&options, dir.path()).unwrap());
        stored(dir.path())
    };
    let point = written(&|o| {
        o.optimize_for_point_lookup(16 << 20);
    });
    assert_eq!(
        value(&point, TABLE, "data_block_index_type"),
        "kDataBlockBinaryAndHash"
    );
    assert_eq!(
        value(&point, TABLE, "data_block_hash_table_util_ratio"),
        "0.750000"
    );
    // The C API's filter policy (pinrocks' bloom filter, of 10 bits here as in RocksDB's
    // preset) is stored by its name alone.
    assert_eq!(value(&point, TABLE, "filter_policy"), "bloomfilter");
    assert_eq!(value(&point, CF, "memtable_whole_key_filtering"), "true");
    assert_eq!(
        value(&point, CF, "memtable_prefix_bloom_size_ratio"),
        "0.020000"
    );

    let level = written(&|o| {
        o.optimize_level_style_compaction(512 << 20);
    });
    assert_eq!(
        value(&level, CF, "write_buffer_size"),
        (128u64 << 20).to_string()
    );
    assert_eq!(value(&level, CF, "max_write_buffer_number"), "6");
    assert_eq!(value(&level, CF, "level0_file_num_compaction_trigger"), "2");
    assert_eq!(
        value(&level, CF, "max_bytes_for_level_base"),
        (512u64 << 20).to_string()
    );
    assert_eq!(
        value(&level, CF, "compaction_style"),
        "kCompactionStyleLevel"
    );

    let universal = written(&|o| {
        o.optimize_universal_style_compaction(512 << 20);
    });
    assert_eq!(
        value(&universal, CF, "compaction_style"),
        "kCompactionStyleUniversal"
    );
    assert_eq!(
        value(&universal, CF, "write_buffer_size"),
        (128u64 << 20).to_string()
    );

    let bulk = written(&|o| {
        o.prepare_for_bulk_load();
    });
    assert_eq!(value(&bulk, CF, "disable_auto_compactions"), "true");
    assert_eq!(value(&bulk, CF, "num_levels"), "2");
    assert_eq!(
        value(&bulk, CF, "level0_stop_writes_trigger"),
        (1u32 << 30).to_string()
    );
}

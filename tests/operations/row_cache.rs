//! The row cache: range tombstones kept out of a database with one (range deletes, ingested
//! files, opens over them; RocksDB's row cache returns deleted values where they exist, as
//! a test here shows), what it never sees (memtable hits, iterators), and that reads stay
//! exact across snapshots and a compaction that replaces its files; the hot-read profile.

use std::path::Path;

use pinrocks::admin::{Bottommost, CompactOptions, IngestOptions, SstFileWriter};
use pinrocks::options::{Cache, Statistics};
use pinrocks::{Db, Error, Options, ReadOptions, WriteBatch};

use crate::common::{create_options, patterned};

fn row_cached_options() -> Options {
    let mut options = create_options();
    options.enable_statistics().row_cache(&Cache::lru(1 << 20));
    options
}

/// The row cache's (hits, misses) so far.
fn rows(stats: &Statistics) -> (u64, u64) {
    let hit = stats.ticker_by_name("rocksdb.row.cache.hit").unwrap();
    let miss = stats.ticker_by_name("rocksdb.row.cache.miss").unwrap();
    (hit, miss)
}

#[test]
fn range_deletes_are_refused_with_their_reason_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open_cf(&row_cached_options(), dir.path(), ["other"]).unwrap();
    let other = db.cf("other").unwrap();
    db.put(b"a", b"1").unwrap();
    db.writer().cf(&other).put(b"a", b"2").unwrap();
    match db.delete_range(b"a", b"z") {
        Err(Error::RowCacheRefusesRanges { operation }) => assert_eq!(operation, "delete_range"),
        other => panic!("expected RowCacheRefusesRanges, got {other:?}"),
    }
    let refused = db.writer().cf(&other).delete_range(b"a", b"z");
    assert!(matches!(refused, Err(Error::RowCacheRefusesRanges { .. })));
    // A batch with a range of a named family among other writes: refused whole.
    let mut batch = WriteBatch::new();
    batch.writer().put(b"b", b"3").unwrap();
    batch.writer().cf(&other).delete_range(b"a", b"z").unwrap();
    match db.write(&batch) {
        Err(Error::RowCacheRefusesRanges { operation }) => assert_eq!(operation, "write"),
        other => panic!("expected RowCacheRefusesRanges, got {other:?}"),
    }
    assert_eq!(db.get(b"b").unwrap(), None);
    assert_eq!(db.get(b"a").unwrap(), Some(b"1".to_vec()));
    assert_eq!(
        db.reader().cf(&other).get(b"a").unwrap(),
        Some(b"2".to_vec())
    );
    // Cleared, the same batch is any batch again.
    batch.clear();
    batch.writer().put(b"b", b"3").unwrap();
    db.write(&batch).unwrap();
    assert_eq!(db.get(b"b").unwrap(), Some(b"3".to_vec()));
    drop(other);
    drop(db);

    // Without a row cache the same writes go through.
    let plain = tempfile::tempdir().unwrap();
    let db = Db::open(&create_options(), plain.path()).unwrap();
    db.put(b"a", b"1").unwrap();
    db.delete_range(b"a", b"z").unwrap();
    assert_eq!(db.get(b"a").unwrap(), None);
}

#[test]
fn a_hyper_clock_cache_is_no_row_cache() {
    let mut options = create_options();
    options.row_cache(&Cache::hyper_clock(1 << 20, 0));
    let dir = tempfile::tempdir().unwrap();
    match Db::open(&options, dir.path()) {
        Err(Error::InvalidInput { detail, .. }) => {
            assert!(detail.starts_with("row_cache: "), "{detail}");
            assert!(detail.contains("16-byte keys"), "{detail}");
        }
        other => panic!("expected InvalidInput, got {other:?}"),
    }
}

#[test]
fn a_transaction_database_with_a_row_cache_refuses_range_deletes_too() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open_optimistic_transaction_db(&row_cached_options(), dir.path(), []).unwrap();
    db.put(b"a", b"1").unwrap();
    let refused = db.delete_range(b"a", b"z");
    assert!(matches!(refused, Err(Error::RowCacheRefusesRanges { .. })));
    assert_eq!(db.get(b"a").unwrap(), Some(b"1".to_vec()));
}

#[test]
fn snapshots_read_their_own_rows() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(&row_cached_options(), dir.path()).unwrap();
    let stats = db.statistics().unwrap();
    db.put(b"k", b"v1").unwrap();
    db.flush().unwrap();
    let snapshot = db.snapshot();
    db.put(b"k", b"v2").unwrap();
    db.flush().unwrap();
    let mut at = ReadOptions::new();
    at.snapshot(&snapshot);
    for _ in 0..3 {
        assert_eq!(db.get(b"k").unwrap(), Some(b"v2".to_vec()));
        let old = db.reader().options(&at).get(b"k").unwrap();
        assert_eq!(old, Some(b"v1".to_vec()));
    }
    // The latest reads: a miss, then hits. The snapshot's: the newer file holds nothing it
    // sees (no row cached: a miss every time), the older one a row of its own, cached.
    assert_eq!(rows(&stats), (2 + 2, 1 + 3 + 1));
    db.compact_range(None, None).unwrap();
    for _ in 0..2 {
        assert_eq!(db.get(b"k").unwrap(), Some(b"v2".to_vec()));
        assert_eq!(
            db.reader().options(&at).get(b"k").unwrap(),
            Some(b"v1".to_vec())
        );
    }
}

/// An SST file at `path` holding `puts` and, if `range`, a range tombstone over `[a, z)`.
fn sst(path: &Path, puts: &[(&[u8], &[u8])], range: bool) {
    let mut sst = SstFileWriter::create(&Options::new(), path).unwrap();
    if range {
        sst.delete_range(b"a", b"z").unwrap();
    }
    for (k, v) in puts {
        sst.put(k, v).unwrap();
    }
    sst.finish().unwrap();
}

#[test]
fn an_sst_file_holding_a_range_tombstone_is_not_ingested() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(&row_cached_options(), dir.path().join("db")).unwrap();
    db.put(b"k", b"v1").unwrap();
    db.flush().unwrap();
    let ranged = dir.path().join("ranged.sst");
    sst(&ranged, &[(b"m", b"new")], true);
    match db.ingest(&[&ranged], &IngestOptions::new()) {
        Err(Error::RowCacheRefusesRanges { operation }) => assert_eq!(operation, "ingest"),
        other => panic!("expected RowCacheRefusesRanges, got {other:?}"),
    }
    for _ in 0..2 {
        assert_eq!(db.get(b"k").unwrap(), Some(b"v1".to_vec()));
        assert_eq!(db.get(b"m").unwrap(), None);
    }
    // Files of puts alone go in, and their rows are cached like any.
    let plain = dir.path().join("plain.sst");
    sst(&plain, &[(b"k", b"v2"), (b"m", b"new")], false);
    db.ingest(&[&plain], &IngestOptions::new()).unwrap();
    for _ in 0..2 {
        assert_eq!(db.get(b"k").unwrap(), Some(b"v2".to_vec()));
        assert_eq!(db.get(b"m").unwrap(), Some(b"new".to_vec()));
    }
    // Without a row cache the ranged file goes in.
    let other = Db::open(&create_options(), dir.path().join("other")).unwrap();
    other.put(b"k", b"v1").unwrap();
    other.ingest(&[&ranged], &IngestOptions::new()).unwrap();
    assert_eq!(other.get(b"k").unwrap(), None);
    assert_eq!(other.get(b"m").unwrap(), Some(b"new".to_vec()));
}

#[test]
fn an_open_over_range_tombstones_is_refused_until_they_are_compacted_away() {
    let dir = tempfile::tempdir().unwrap();
    let path: &Path = dir.path();
    {
        let db = Db::open_cf(&create_options(), path, ["other"]).unwrap();
        db.put(b"k", b"v").unwrap();
        db.put(b"z", b"kept").unwrap();
        db.flush().unwrap();
        let other = db.cf("other").unwrap();
        other.writer().put(b"k", b"v").unwrap();
        other.flush().unwrap();
        // In the log and the memtable only: the open flushes it into a file, then finds it.
        other.writer().delete_range(b"a", b"m").unwrap();
    }
    match Db::open_cf(&row_cached_options(), path, ["other"]) {
        Err(Error::RowCacheRefusesRanges { operation }) => assert_eq!(operation, "open"),
        other => panic!("expected RowCacheRefusesRanges, got {other:?}"),
    }
    for read_only in [true, false] {
        let options = row_cached_options();
        let refused = if read_only {
            Db::open_read_only(&options, path).map(drop)
        } else {
            let secondary = dir.path().join("secondary");
            Db::open_as_secondary(&options, path, &secondary).map(drop)
        };
        assert!(
            matches!(refused, Err(Error::RowCacheRefusesRanges { .. })),
            "{refused:?}"
        );
    }
    {
        // Compacted without a row cache, with no snapshot, the bottom level too: the
        // tombstone leaves with what it covered.
        let db = Db::open_cf(&create_options(), path, ["other"]).unwrap();
        let other = db.cf("other").unwrap();
        let mut force = CompactOptions::new();
        force.bottommost(Bottommost::Force);
        other.compact_range_with(None, None, &force).unwrap();
    }
    let db = Db::open_cf(&row_cached_options(), path, ["other"]).unwrap();
    let other = db.cf("other").unwrap();
    for _ in 0..2 {
        assert_eq!(db.get(b"k").unwrap(), Some(b"v".to_vec()));
        assert_eq!(db.get(b"z").unwrap(), Some(b"kept".to_vec()));
        assert_eq!(db.reader().cf(&other).get(b"k").unwrap(), None);
        let mut got = Vec::new();
        db.reader()
            .cf(&other)
            .multi_get_pinned(&[b"k"], |_, v| got.push(v.map(<[u8]>::to_vec)))
            .unwrap();
        assert_eq!(got, [None]);
    }
}

/// One range tombstone (`delete_range_cf`, the same call in the rocksdb crate 0.25 and the
/// fork's rust-rocksdb that scripts/rocksdb-11.12.sh tests with; the database opened with
/// [`open_naming_default`], so that it has the default family's handle).
fn delete_a_to_z(db: &rocksdb::DB) {
    let default = db.cf_handle(rocksdb::DEFAULT_COLUMN_FAMILY_NAME).unwrap();
    db.delete_range_cf(&default, b"a", b"z").unwrap();
}

/// `DB::open`, keeping the default family's handle (`DB::open` keeps none).
fn open_naming_default(options: &rocksdb::Options, path: &std::path::Path) -> rocksdb::DB {
    rocksdb::DB::open_cf(options, path, [rocksdb::DEFAULT_COLUMN_FAMILY_NAME]).unwrap()
}

/// Why pinrocks keeps range tombstones out: RocksDB 11.8.1's row cache, driven through the
/// `rocksdb` crate, returns deleted values. If a RocksDB upgrade fixes it, this fails, and
/// the refusals (`src/db/range_free.rs`) can be relaxed.
#[test]
fn rocksdbs_row_cache_returns_deleted_values_where_range_tombstones_exist() {
    let dir = tempfile::tempdir().unwrap();
    let (same_file, newer) = (dir.path().join("same"), dir.path().join("newer"));
    {
        let mut plain = rocksdb::Options::default();
        plain.create_if_missing(true);
        // The key and the tombstone covering it in one file (a snapshot keeps the key).
        let db = open_naming_default(&plain, &same_file);
        db.put(b"k", b"deleted").unwrap();
        let snapshot = db.snapshot();
        delete_a_to_z(&db);
        db.flush().unwrap();
        drop(snapshot);
        drop(db);
        // The key in a file, the tombstone newer (left in the log, replayed into a memtable).
        let db = open_naming_default(&plain, &newer);
        db.put(b"k", b"deleted").unwrap();
        db.flush().unwrap();
        delete_a_to_z(&db);
    }
    let mut cached = rocksdb::Options::default();
    cached.set_row_cache(&rocksdb::Cache::new_lru_cache(1 << 20));
    let db = rocksdb::DB::open(&cached, &same_file).unwrap();
    assert_eq!(db.get(b"k").unwrap(), None);
    let again = db.get(b"k").unwrap();
    assert_eq!(
        again.as_deref(),
        Some(&b"deleted"[..]),
        "the row comes back"
    );
    drop(db);
    let cached = cached
        .get_options_from_string("avoid_flush_during_recovery=true")
        .unwrap();
    let db = rocksdb::DB::open(&cached, &newer).unwrap();
    let multi_get = |db: &rocksdb::DB| db.multi_get([b"k"]).pop().unwrap().unwrap();
    assert_eq!(multi_get(&db), None);
    let again = multi_get(&db);
    assert_eq!(
        again.as_deref(),
        Some(&b"deleted"[..]),
        "the row comes back"
    );
    assert_eq!(
        db.get(b"k").unwrap(),
        None,
        "a single read sees the newer tombstone"
    );
}

#[test]
fn memtable_hits_and_iterators_never_reach_the_row_cache() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(&row_cached_options(), dir.path()).unwrap();
    let stats = db.statistics().unwrap();
    let value = patterned(300, 4);
    db.put(b"k", &value).unwrap();
    for _ in 0..3 {
        assert_eq!(db.get(b"k").unwrap(), Some(value.clone()));
    }
    assert_eq!(rows(&stats), (0, 0), "a memtable hit");
    db.flush().unwrap();
    let mut cursor = db.reader().iter();
    cursor.seek_to_first();
    assert_eq!(cursor.entry(), Some((&b"k"[..], &value[..])));
    drop(cursor);
    assert_eq!(rows(&stats), (0, 0), "an iterator");
    for _ in 0..3 {
        assert_eq!(db.reader().pin(b"k").unwrap().as_deref(), Some(&value[..]));
    }
    assert_eq!(rows(&stats), (2, 1));
}

#[test]
fn a_compaction_leaves_the_rows_it_replaced_unreachable() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(&row_cached_options(), dir.path()).unwrap();
    let stats = db.statistics().unwrap();
    // Two files whose key ranges overlap, so the compaction rewrites them (files that do
    // not overlap RocksDB moves down as they are, rows and all).
    db.put(b"a", b"0").unwrap();
    db.put(b"k", b"first").unwrap();
    db.put(b"z", b"0").unwrap();
    db.flush().unwrap();
    db.put(b"k", b"second").unwrap();
    db.flush().unwrap();
    for _ in 0..2 {
        assert_eq!(db.get(b"k").unwrap(), Some(b"second".to_vec()));
    }
    assert_eq!(rows(&stats), (1, 1));
    let names = |db: &Db| -> Vec<String> {
        let files = db.live_files().unwrap();
        files.into_iter().map(|f| f.name).collect()
    };
    let before = names(&db);
    db.compact_range(None, None).unwrap();
    let after = names(&db);
    assert!(
        after.iter().all(|f| !before.contains(f)),
        "{before:?} {after:?}"
    );
    for _ in 0..2 {
        assert_eq!(db.get(b"k").unwrap(), Some(b"second".to_vec()));
    }
    // The compacted file is a new file: its first read misses again.
    assert_eq!(rows(&stats), (2, 2));
}

const TABLE: &str = "TableOptions/BlockBasedTable \"default\"";
const CF: &str = "CFOptions \"default\"";

#[test]
fn the_hot_read_profile_reaches_rocksdb_and_reads_every_tier_exactly() {
    use crate::common::{every_tier, stored, value};
    use pinrocks::options::{BlockBasedOptions, HotReads};

    let profile = HotReads::new(8 << 20).unwrap();
    assert_eq!(profile.memory(), 8 << 20);
    assert_eq!(profile.block_cache().capacity(), 4 << 20);
    assert_eq!(profile.row_cache().map(Cache::capacity), Some(4 << 20));
    let dir = tempfile::tempdir().unwrap();
    let mut table = BlockBasedOptions::new();
    table.block_size(16 << 10); // kept: the profile changes only what it names
    let mut options = row_cached_options();
    options.block_based_table(&table).hot_reads(&profile);
    let db = Db::open(&options, dir.path()).unwrap();
    drop(options);
    let stats = db.statistics().unwrap();
    let o = stored(dir.path());
    for (section, key, expected) in [
        (TABLE, "block_size", "16384"),
        (TABLE, "block_restart_interval", "1"),
        (TABLE, "data_block_index_type", "kDataBlockBinaryAndHash"),
        (TABLE, "data_block_hash_table_util_ratio", "0.750000"),
        (TABLE, "whole_key_filtering", "true"),
        (CF, "memtable_prefix_bloom_size_ratio", "0.020000"),
        (CF, "memtable_whole_key_filtering", "true"),
    ] {
        assert_eq!(value(&o, section, key), expected, "{key}");
    }
    // The file names the filter, not its bits; the caches show by their usage below.
    assert_eq!(value(&o, TABLE, "filter_policy"), "bloomfilter");
    for i in 0..300u32 {
        db.put(&i.to_be_bytes(), &patterned(64 + i as usize, i as u8))
            .unwrap();
    }
    db.flush().unwrap();
    for round in 0..2 {
        for i in 0..300u32 {
            let read = every_tier(db.reader(), &i.to_be_bytes());
            assert_eq!(
                read,
                Some(patterned(64 + i as usize, i as u8)),
                "{round} {i}"
            );
        }
        assert_eq!(every_tier(db.reader(), b"absent"), None);
    }
    let (hits, misses) = rows(&stats);
    assert!(misses >= 300 && hits >= 300, "{hits} {misses}");
    assert!(profile.row_cache().unwrap().usage() > 300 * 64);
    assert!(profile.block_cache().usage() > 0);
    assert!(matches!(
        db.delete_range(b"a", b"b"),
        Err(Error::RowCacheRefusesRanges { .. })
    ));
}

#[test]
fn the_profile_without_a_row_cache_deletes_ranges() {
    use pinrocks::options::HotReads;

    let profile = HotReads::without_row_cache(4 << 20).unwrap();
    assert!(profile.row_cache().is_none());
    assert_eq!(profile.block_cache().capacity(), 4 << 20);
    let dir = tempfile::tempdir().unwrap();
    let mut options = create_options();
    options.enable_statistics().hot_reads(&profile);
    let db = Db::open(&options, dir.path()).unwrap();
    let stats = db.statistics().unwrap();
    db.put(b"a", b"1").unwrap();
    db.put(b"b", b"2").unwrap();
    db.flush().unwrap();
    assert_eq!(db.get(b"a").unwrap(), Some(b"1".to_vec()));
    db.delete_range(b"a", b"b").unwrap();
    assert_eq!(db.get(b"a").unwrap(), None);
    assert_eq!(db.get(b"b").unwrap(), Some(b"2".to_vec()));
    assert_eq!(rows(&stats), (0, 0));
}

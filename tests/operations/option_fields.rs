//! The read, write and ingest fields a tuned service sets, each doing what it says.

use pinrocks::admin::{IngestOptions, SstFileWriter};
use pinrocks::{ErrorKind, ReadOptions, WriteBatch, WriteOptions};

/// A multi-get whose values pass the soft limit fails with `Aborted`; under it, every value
/// comes back.
#[test]
fn a_multi_get_past_its_value_size_soft_limit_is_aborted() {
    let (_dir, db) = crate::common::open_db(&[]);
    let keys = [b"a", b"b", b"c"];
    for (i, key) in keys.iter().enumerate() {
        db.put(*key, &crate::common::patterned(100, i as u8))
            .unwrap();
    }
    let mut limited = ReadOptions::new();
    limited.value_size_soft_limit(150);
    let error = db
        .reader()
        .options(&limited)
        .multi_get_pinned(&keys, |_, _| ())
        .unwrap_err();
    assert_eq!(error.kind(), Some(ErrorKind::Aborted));
    limited.value_size_soft_limit(300);
    let mut values = Vec::new();
    db.reader()
        .options(&limited)
        .multi_get_pinned(&keys, |i, value| values.push((i, value.unwrap().to_vec())))
        .unwrap();
    let expected: Vec<_> = (0..3)
        .map(|i| (i, crate::common::patterned(100, i as u8)))
        .collect();
    assert_eq!(values, expected);
}

/// The iterator and multi-get switches change how RocksDB reads, not what: every key and
/// value comes back the same with each on and off.
#[test]
fn read_switches_read_the_same_entries() {
    let (_dir, db) = crate::common::open_db(&[]);
    for i in 0..200u32 {
        db.put(&i.to_be_bytes(), &crate::common::patterned(300, i as u8))
            .unwrap();
    }
    db.flush().unwrap();
    let expected: Vec<(Vec<u8>, Vec<u8>)> = (0..200u32)
        .map(|i| {
            (
                i.to_be_bytes().to_vec(),
                crate::common::patterned(300, i as u8),
            )
        })
        .collect();
    for on in [false, true] {
        let mut options = ReadOptions::new();
        options
            .adaptive_readahead(on)
            .auto_readahead_size(on)
            .background_purge_on_iterator_cleanup(on)
            .optimize_multiget_for_io(on)
            .iterate_upper_bound(&200u32.to_be_bytes());
        let scanned: Vec<_> = db
            .reader()
            .options(&options)
            .scan(.., |k, v| (k.to_vec(), v.to_vec()))
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(scanned, expected, "{on}");
        let keys: Vec<[u8; 4]> = (0..200u32).step_by(7).map(u32::to_be_bytes).collect();
        let mut got = Vec::new();
        db.reader()
            .options(&options)
            .multi_get_pinned(&keys, |i, v| {
                got.push((keys[i].to_vec(), v.unwrap().to_vec()))
            })
            .unwrap();
        let want: Vec<_> = expected.iter().step_by(7).cloned().collect();
        assert_eq!(got, want, "{on}");
    }
}

/// Per-key protection on every kind of write: each is checked into the memtable and reads
/// back as written.
#[test]
fn writes_with_per_key_protection_read_back_as_written() {
    let (_dir, db) = crate::common::open_db(&[]);
    let mut protected = WriteOptions::new();
    protected.per_key_protection(true);
    db.writer()
        .options(&protected)
        .put(b"single", b"one")
        .unwrap();
    let mut batch = WriteBatch::new();
    for i in 0..10u8 {
        batch.writer().put(&[b'b', i], &[i; 3]).unwrap();
    }
    batch.writer().delete(&[b'b', 3]).unwrap();
    db.writer().options(&protected).write(&batch).unwrap();
    assert_eq!(db.get(b"single").unwrap().as_deref(), Some(&b"one"[..]));
    for i in 0..10u8 {
        let expected = (i != 3).then(|| vec![i; 3]);
        assert_eq!(db.get(&[b'b', i]).unwrap(), expected, "{i}");
    }
    // The batch is the caller's still, unchanged: written again, the same keys.
    assert_eq!(batch.len(), 11);
    db.writer().options(&protected).write(&batch).unwrap();
    assert_eq!(db.get(&[b'b', 9]).unwrap().as_deref(), Some(&[9u8; 3][..]));
}

fn sst_with(dir: &std::path::Path, name: &str, keys: &[(&[u8], &[u8])]) -> std::path::PathBuf {
    let mut writer =
        SstFileWriter::create(&crate::common::create_options(), dir.join(name)).unwrap();
    for (key, value) in keys {
        writer.put(key, value).unwrap();
    }
    writer.finish().unwrap()
}

/// A file with a flipped byte: ingested as it is without the check, refused with it.
#[test]
fn checksums_verified_before_ingest_refuse_a_corrupt_file() {
    let files = tempfile::tempdir().unwrap();
    let values: Vec<Vec<u8>> = (0..50u8)
        .map(|i| crate::common::patterned(200, i))
        .collect();
    let entries: Vec<([u8; 1], &[u8])> = values
        .iter()
        .enumerate()
        .map(|(i, v)| ([i as u8], &v[..]))
        .collect();
    let pairs: Vec<(&[u8], &[u8])> = entries.iter().map(|(k, v)| (&k[..], *v)).collect();
    let path = sst_with(files.path(), "bad.sst", &pairs);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[100] ^= 0x40; // inside the first data block
    std::fs::write(&path, &bytes).unwrap();

    let (_dir, db) = crate::common::open_db(&[]);
    let mut verified = IngestOptions::new();
    verified.verify_checksums_before_ingest(true);
    let error = db.ingest(&[&path], &verified).unwrap_err();
    assert_eq!(error.kind(), Some(ErrorKind::Corruption));
    assert_eq!(db.get(&[0]).unwrap(), None);
}

/// A file that would land above the last level (the database holds data in its range)
/// fails with `TryAgain` when asked to, and goes in otherwise.
#[test]
fn an_ingest_that_cannot_reach_the_last_level_can_be_refused() {
    let files = tempfile::tempdir().unwrap();
    let (_dir, db) = crate::common::open_db(&[]);
    db.put(b"m", b"in the database").unwrap();
    db.flush().unwrap();
    db.compact_range(None, None).unwrap();
    let path = sst_with(files.path(), "over.sst", &[(b"a", b"1"), (b"z", b"26")]);
    let mut bottom_only = IngestOptions::new();
    bottom_only
        .fail_if_not_bottommost_level(true)
        .fill_cache(false);
    let error = db.ingest(&[&path], &bottom_only).unwrap_err();
    assert_eq!(error.kind(), Some(ErrorKind::TryAgain));
    assert_eq!(db.get(b"a").unwrap(), None);
    let mut anywhere = IngestOptions::new();
    anywhere.fill_cache(false);
    db.ingest(&[&path], &anywhere).unwrap();
    assert_eq!(db.get(b"a").unwrap().as_deref(), Some(&b"1"[..]));
    assert_eq!(db.get(b"z").unwrap().as_deref(), Some(&b"26"[..]));
    assert_eq!(
        db.get(b"m").unwrap().as_deref(),
        Some(&b"in the database"[..])
    );
}

/// What was set at open, changed while open (family and database), and a named family's
/// own table format: each read back as RocksDB runs with it.
#[test]
fn options_in_force_read_back_what_was_set_and_changed() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = crate::common::create_options();
    options
        .set_by_name(&[("max_open_files", "300"), ("write_buffer_size", "4194304")])
        .unwrap();
    let db = pinrocks::Db::open(&options, dir.path()).unwrap();
    let mut family_options = crate::common::create_options();
    family_options
        .set_by_name(&[("block_based_table_factory", "{block_size=16384}")])
        .unwrap();
    let family = db.create_cf("wide", &family_options).unwrap();
    db.set_options(&[("write_buffer_size", "8388608")]).unwrap();
    db.set_db_options(&[("max_background_jobs", "5")]).unwrap();

    let default = db.options_in_force().unwrap();
    assert_eq!(
        default.parse::<u64>("write_buffer_size").unwrap(),
        Some(8 << 20)
    );
    assert_eq!(default.parse::<i32>("max_open_files").unwrap(), Some(300));
    assert_eq!(
        default.parse::<i32>("max_background_jobs").unwrap(),
        Some(5)
    );
    assert_eq!(default.parse::<u64>("block_size").unwrap(), Some(4096));
    assert_eq!(default.get("no_such_option"), None);
    assert_eq!(default.parse::<u64>("no_such_option").unwrap(), None);
    let error = default.parse::<u64>("create_if_missing").unwrap_err();
    assert!(matches!(
        error,
        pinrocks::Error::InvalidInput {
            what: "option value",
            ..
        }
    ));
    assert_eq!(default.get("create_if_missing"), Some("true"));

    let wide = family.options_in_force().unwrap();
    assert_eq!(wide.parse::<u64>("block_size").unwrap(), Some(16384));
    assert_eq!(
        wide.parse::<u64>("write_buffer_size").unwrap(),
        Some(64 << 20)
    );
    assert_eq!(wide.parse::<i32>("max_background_jobs").unwrap(), Some(5));
    // Each scope on its own: a database option is not among the family's.
    assert!(wide
        .db_options()
        .any(|(name, value)| (name, value) == ("max_open_files", "300")));
    assert!(wide
        .family_options()
        .all(|(name, _)| name != "max_open_files"));
    assert!(wide
        .table_options()
        .any(|(name, value)| (name, value) == ("block_size", "16384")));
}

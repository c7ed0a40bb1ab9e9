//! SST files written with u64 timestamps and ingested: every version read as of its
//! timestamp, deletes and range deletes at theirs, and the order and size checks.

use pinrocks::admin::{IngestOptions, SstFileWriter};
use pinrocks::{Error, Options};

use crate::timestamps::at;

fn versioned() -> Options {
    let mut options = crate::common::create_options();
    options.u64_timestamps();
    options
}

#[test]
fn versions_written_to_a_file_read_as_of_each_timestamp() {
    let (dir, db) = crate::common::open_db(&[]);
    let prices = db.create_cf("prices", &versioned()).unwrap();
    let file = dir.path().join("prices.sst");
    let mut sst = SstFileWriter::create(&versioned(), &file).unwrap();
    sst.put_at(b"coffee", 30, b"5").unwrap();
    sst.put_at(b"coffee", 10, b"4").unwrap();
    sst.delete_at(b"milk", 20).unwrap();
    sst.put_at(b"milk", 5, b"1").unwrap();
    sst.delete_range_at(b"tea", b"tee", 25).unwrap();
    assert_eq!(sst.entries(), 5);
    sst.finish().unwrap();
    prices.ingest(&[&file], &IngestOptions::new()).unwrap();

    let read = |key: &[u8], ts: u64| prices.reader().options(&at(ts)).get(key).unwrap();
    assert_eq!(read(b"coffee", 9), None);
    assert_eq!(read(b"coffee", 10).as_deref(), Some(&b"4"[..]));
    assert_eq!(read(b"coffee", 29).as_deref(), Some(&b"4"[..]));
    assert_eq!(read(b"coffee", 30).as_deref(), Some(&b"5"[..]));
    assert_eq!(read(b"milk", 19).as_deref(), Some(&b"1"[..]));
    assert_eq!(read(b"milk", 20), None);
    // The range delete is in the file (RocksDB refuses a file that overlaps a family with
    // timestamps, and an ingested file's entries share one sequence number, so it hides
    // nothing here; it is written as RocksDB writes one).
    let properties = prices
        .property("rocksdb.aggregated-table-properties")
        .unwrap()
        .unwrap();
    assert!(properties.contains("# range deletions=1"), "{properties}");
    assert!(properties.contains("# deletions=2"), "{properties}");
}

#[test]
fn a_timestamped_file_refuses_versions_out_of_order_and_plain_entries() {
    let dir = tempfile::tempdir().unwrap();
    let mut sst = SstFileWriter::create(&versioned(), dir.path().join("a.sst")).unwrap();
    sst.put_at(b"k", 10, b"v").unwrap();
    for (key, ts) in [(&b"k"[..], 10), (b"k", 11), (b"j", 1)] {
        assert!(
            matches!(sst.put_at(key, ts, b"late"), Err(Error::KeyOrder { .. })),
            "{ts}"
        );
    }
    assert!(matches!(
        sst.put(b"z", b"no timestamp"),
        Err(Error::TimestampMismatch {
            expected: 8,
            given: 0,
            ..
        })
    ));
    assert!(matches!(
        sst.delete_range(b"x", b"y"),
        Err(Error::TimestampMismatch {
            expected: 8,
            given: 0,
            ..
        })
    ));
    sst.put_at(b"k", 9, b"older").unwrap();
    assert_eq!(sst.entries(), 2);
    sst.finish().unwrap();

    let mut plain =
        SstFileWriter::create(&crate::common::create_options(), dir.path().join("b.sst")).unwrap();
    assert!(matches!(
        plain.put_at(b"k", 1, b"v"),
        Err(Error::TimestampMismatch {
            expected: 0,
            given: 8,
            ..
        })
    ));
    assert!(matches!(
        plain.delete_range_at(b"a", b"b", 1),
        Err(Error::TimestampMismatch {
            expected: 0,
            given: 8,
            ..
        })
    ));
}

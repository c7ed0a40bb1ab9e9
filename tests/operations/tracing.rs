//! Query traces: written to a file, replayed onto another database (every traced write
//! lands there), filtered, and the replay's refusals.

use pinrocks::admin::TraceOptions;
use pinrocks::{Db, Error, Options};

use crate::common::{create_options, patterned};

/// Writes to two families, reads and a scan, traced; replayed onto a database with the same
/// families: the same entries.
#[test]
fn a_replayed_trace_writes_what_was_written() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("load.trace");
    let live = Db::open(&create_options(), dir.path().join("live")).unwrap();
    let events = live.create_cf("events", &Options::new()).unwrap();
    live.put(b"before", b"not traced").unwrap();
    live.start_trace(&trace, &TraceOptions::default()).unwrap();
    for i in 0..20u8 {
        live.put(&[b'k', i], &patterned(50, i)).unwrap();
        events.writer().put(&[b'e', i], &[i]).unwrap();
    }
    live.delete(&[b'k', 3]).unwrap();
    assert_eq!(live.get(&[b'k', 1]).unwrap(), Some(patterned(50, 1)));
    assert_eq!(live.reader().scan(.., |k, _| k.len()).count(), 20);
    live.end_trace().unwrap();
    live.put(b"after", b"not traced").unwrap();
    let bytes = std::fs::read(&trace).unwrap();
    assert!(
        bytes.windows(16).any(|w| w == b"feedcafedeadbeef"),
        "RocksDB's trace header"
    );
    assert!(
        matches!(live.end_trace(), Err(Error::RocksDb { .. })),
        "no trace runs"
    );

    let replica = Db::open(&create_options(), dir.path().join("replica")).unwrap();
    let replica_events = replica.create_cf("events", &Options::new()).unwrap();
    replica.replay_trace(&trace, 1000.0).unwrap();
    let entries = |db: &Db, family: Option<&pinrocks::ColumnFamily<'_>>| {
        let reader = match family {
            Some(family) => family.reader(),
            None => db.reader(),
        };
        reader
            .scan(.., |k, v| (k.to_vec(), v.to_vec()))
            .collect::<pinrocks::Result<Vec<_>>>()
            .unwrap()
    };
    let mut expected = entries(&live, None);
    expected.retain(|(k, _)| k != b"before" && k != b"after");
    assert_eq!(expected.len(), 19);
    assert_eq!(entries(&replica, None), expected);
    assert_eq!(
        entries(&replica, Some(&replica_events)),
        entries(&live, Some(&events))
    );
}

/// Writes left out of the trace are not replayed; reads still are.
#[test]
fn a_trace_without_writes_replays_none() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("reads.trace");
    let live = Db::open(&create_options(), dir.path().join("live")).unwrap();
    let options = TraceOptions {
        skip_writes: true,
        ..TraceOptions::default()
    };
    live.start_trace(&trace, &options).unwrap();
    live.put(b"k", b"v").unwrap();
    assert_eq!(live.get(b"k").unwrap().as_deref(), Some(&b"v"[..]));
    live.end_trace().unwrap();
    let replica = Db::open(&create_options(), dir.path().join("replica")).unwrap();
    replica.replay_trace(&trace, 1000.0).unwrap();
    assert_eq!(replica.get(b"k").unwrap(), None);
}

#[test]
fn a_replay_rocksdb_would_misread_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.trace");
    let db = Db::open(&create_options(), dir.path().join("db")).unwrap();
    db.start_trace(&trace, &TraceOptions::default()).unwrap();
    db.put(b"k", b"v").unwrap();
    db.end_trace().unwrap();
    for fast_forward in [0.0, -1.0, f64::NAN, f64::INFINITY, 1e-9, 1e9] {
        assert!(
            matches!(
                db.replay_trace(&trace, fast_forward),
                Err(Error::InvalidInput {
                    what: "fast_forward",
                    ..
                })
            ),
            "{fast_forward}"
        );
    }
    let mut cached = create_options();
    cached.row_cache(&pinrocks::options::Cache::lru(1 << 20));
    let with_row_cache = Db::open(&cached, dir.path().join("cached")).unwrap();
    assert!(matches!(
        with_row_cache.replay_trace(&trace, 1.0),
        Err(Error::RowCacheRefusesRanges {
            operation: "replay_trace"
        })
    ));
    // A file that is not a trace: RocksDB's error, nothing written.
    std::fs::write(dir.path().join("junk"), b"not a trace at all").unwrap();
    let replica = Db::open(&create_options(), dir.path().join("replica")).unwrap();
    assert!(replica.replay_trace(dir.path().join("junk"), 1.0).is_err());
    assert_eq!(replica.get(b"k").unwrap(), None);
}

//! Query traces: written to a file in RocksDB's format, one record per traced operation,
//! filtered and sampled as asked; only while a trace runs.

use std::collections::BTreeMap;

use pinrocks::admin::TraceOptions;
use pinrocks::{Db, Error, Options};

use crate::common::{create_options, patterned};

/// The records of a trace file by RocksDB's trace type (`TraceType`: 1 begin, 2 end, 3
/// write, 4 get, 5 seek, 6 seek for prev, 13 multi-get), read as RocksDB writes them: an
/// 8-byte timestamp, the type, a 4-byte payload length, the payload.
fn records(path: &std::path::Path) -> BTreeMap<u8, usize> {
    let bytes = std::fs::read(path).unwrap();
    let mut counts = BTreeMap::new();
    let mut at = 0;
    while at < bytes.len() {
        let kind = bytes[at + 8];
        let len = u32::from_le_bytes(bytes[at + 9..at + 13].try_into().unwrap()) as usize;
        if kind == 1 {
            assert!(
                bytes[at + 13..].starts_with(b"feedcafedeadbeef"),
                "RocksDB's header"
            );
        }
        *counts.entry(kind).or_default() += 1;
        at += 13 + len;
    }
    assert_eq!(at, bytes.len(), "whole records");
    counts
}

/// Writes to two families, point reads, a multi-get and seeks: one record each, between
/// the trace's begin and end; nothing before `start_trace` or after `end_trace`.
#[test]
fn a_trace_records_each_operation_while_it_runs() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("load.trace");
    let db = Db::open(&create_options(), dir.path().join("db")).unwrap();
    let events = db.create_cf("events", &Options::new()).unwrap();
    db.put(b"before", b"not traced").unwrap();
    db.start_trace(&trace, &TraceOptions::default()).unwrap();
    for i in 0..20u8 {
        db.put(&[b'k', i], &patterned(50, i)).unwrap();
        events.writer().put(&[b'e', i], &[i]).unwrap();
    }
    db.delete(&[b'k', 3]).unwrap();
    assert_eq!(db.get(&[b'k', 1]).unwrap(), Some(patterned(50, 1)));
    assert_eq!(db.get(b"absent").unwrap(), None);
    db.reader()
        .multi_get_pinned(&[b"k\x01", b"k\x02"], |_, v| assert!(v.is_some()))
        .unwrap();
    let mut cursor = db.reader().iter();
    cursor.seek(b"k");
    cursor.seek_for_prev(b"k\x05");
    drop(cursor);
    db.end_trace().unwrap();
    db.put(b"after", b"not traced").unwrap();
    assert!(
        matches!(db.end_trace(), Err(Error::RocksDb { .. })),
        "no trace runs"
    );
    assert_eq!(
        records(&trace),
        BTreeMap::from([(1, 1), (2, 1), (3, 41), (4, 2), (5, 1), (6, 1), (13, 1)])
    );
}

/// What the options leave out is not recorded: writes, then everything but one in three.
#[test]
fn a_trace_leaves_out_what_it_is_told_to() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(&create_options(), dir.path().join("db")).unwrap();
    let run = |name: &str, options: TraceOptions| {
        let trace = dir.path().join(name);
        db.start_trace(&trace, &options).unwrap();
        for i in 0..9u8 {
            db.put(&[i], b"v").unwrap();
            assert_eq!(db.get(&[i]).unwrap().as_deref(), Some(&b"v"[..]));
        }
        db.end_trace().unwrap();
        records(&trace)
    };
    let reads_only = TraceOptions {
        skip_writes: true,
        ..TraceOptions::default()
    };
    assert_eq!(
        run("reads.trace", reads_only),
        BTreeMap::from([(1, 1), (2, 1), (4, 9)])
    );
    // Sampling 0 is RocksDB's "every one", as 1 is.
    let every = TraceOptions {
        sampling_frequency: 0,
        ..TraceOptions::default()
    };
    assert_eq!(
        run("every.trace", every),
        BTreeMap::from([(1, 1), (2, 1), (3, 9), (4, 9)])
    );
    let sampled = TraceOptions {
        sampling_frequency: 3,
        ..TraceOptions::default()
    };
    assert_eq!(
        run("sampled.trace", sampled),
        BTreeMap::from([(1, 1), (2, 1), (3, 3), (4, 3)])
    );
}

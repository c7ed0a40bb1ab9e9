//! Reads on a hot path without an allocation per read: a buffer reused across reads, a
//! growing `BytesMut` that stops allocating once grown, a closure that parses the value in
//! place, and a batch of keys read with one `MultiGet`.
//!
//! `cargo run --release --example hot_path`

use bytes::BytesMut;
use pinrocks::{CopyResult, Db, Options};

fn main() -> pinrocks::Result<()> {
    let dir = tempfile::tempdir().expect("temporary directory");
    let mut options = Options::new();
    options.create_if_missing(true);
    let db = Db::open(&options, dir.path())?;
    for i in 0u32..1000 {
        let price = (i as u64 * 37) % 10_000;
        db.put(format!("price:{i:04}").as_bytes(), &price.to_be_bytes())?;
    }
    let reader = db.reader(); // Copy: where and how to read, made once

    // 1. A fixed buffer, reused: one copy into memory you own, no allocation.
    let mut buf = [0u8; 8];
    let mut total = 0u64;
    for i in 0u32..1000 {
        match reader.get_into(format!("price:{i:04}").as_bytes(), &mut buf)? {
            CopyResult::Copied(8) => total += u64::from_be_bytes(buf),
            other => panic!("unexpected {other:?}"),
        }
    }

    // 2. Values of unknown size: a BytesMut grows to the largest value, then stays.
    let mut value = BytesMut::new();
    assert!(reader.get_into_bytes(b"price:0042", &mut value)?);
    assert_eq!(&value[..], &(42u64 * 37).to_be_bytes()); // 1554: below 10,000

    // 3. Parse in place: the closure reads RocksDB's bytes; nothing is copied.
    let parsed = reader.get_pinned(b"price:0999", |v| u64::from_be_bytes(v.try_into().unwrap()))?;
    assert_eq!(parsed, Some((999 * 37) % 10_000));

    // 4. A batch: one MultiGet, every value pinned while the closure sees them in key order.
    let keys: Vec<String> = (0..16).map(|i| format!("price:{:04}", i * 60)).collect();
    let mut batch_total = 0u64;
    reader.multi_get_pinned(&keys, |_, value| {
        if let Some(v) = value {
            batch_total += u64::from_be_bytes(v.try_into().unwrap());
        }
    })?;

    println!(
        "sum of 1000 prices: {total}; of a batch of {}: {batch_total}",
        keys.len()
    );
    Ok(())
}

//! Random operation sequences on a real database, checked after every step against a
//! `BTreeMap` through the Vec, buffer and pinned tiers and the iterator.
#![no_main]

use std::collections::BTreeMap;

use libfuzzer_sys::fuzz_target;
use pinrocks::{CopyResult, Db, Options, WriteBatch};

fn key(b: u8) -> Vec<u8> {
    vec![b % 8]
}

fuzz_target!(|data: &[u8]| {
    // In memory where there is a tmpfs: RocksDB's fsyncs then cost nothing, and the fuzzer
    // runs many more inputs a second.
    let shm = std::path::Path::new("/dev/shm");
    let dir = if shm.is_dir() {
        tempfile::tempdir_in(shm)
    } else {
        tempfile::tempdir()
    }
    .unwrap();
    let mut options = Options::new();
    options.create_if_missing(true);
    let mut db = Db::open(&options, dir.path()).unwrap();
    let mut model: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
    for chunk in data.chunks(4).take(64) {
        let [op, a, b, len] = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
            *chunk.get(3).unwrap_or(&0),
        ];
        let value = vec![a ^ b; len as usize * 7];
        match op % 8 {
            0 | 1 => {
                db.put(&key(a), &value).unwrap();
                model.insert(key(a), value);
            }
            2 => {
                db.delete(&key(a)).unwrap();
                model.remove(&key(a));
            }
            3 => {
                let (from, to) = (key(a), key(b));
                match db.delete_range(&from, &to) {
                    Ok(()) => model.retain(|k, _| !(&from <= k && k < &to)),
                    Err(_) => assert!(from > to, "a valid range was refused"),
                }
            }
            4 => {
                let mut batch = WriteBatch::new();
                batch
                    .writer().put(&key(a), &value)
                    .unwrap();
                batch.writer().delete(&key(b))
                    .unwrap();
                db.write(&batch).unwrap();
                model.insert(key(a), value);
                model.remove(&key(b));
            }
            5 => db.flush().unwrap(),
            6 => db.compact_range(None, None).unwrap(),
            _ => {
                drop(db);
                db = Db::open(&options, dir.path()).unwrap();
            }
        }
        let mut buf = vec![0u8; 2048];
        for b in 0..8u8 {
            let k = key(b);
            let expected = model.get(&k);
            assert_eq!(db.get(&k).unwrap().as_ref(), expected);
            assert_eq!(
                db.get_pinned(&k, <[u8]>::to_vec).unwrap().as_ref(),
                expected
            );
            match db.get_into(&k, &mut buf).unwrap() {
                CopyResult::Copied(n) => assert_eq!(Some(&buf[..n].to_vec()), expected),
                CopyResult::NotFound => assert_eq!(expected, None),
                CopyResult::NotEnoughCapacity { required } => panic!("{required} > 2048"),
            }
        }
        let mut it = db.reader().iter();
        it.seek_to_first();
        let mut scanned = Vec::new();
        while let Some((k, v)) = it.entry() {
            scanned.push((k.to_vec(), v.to_vec()));
            it.next();
        }
        assert_eq!(
            scanned,
            model
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect::<Vec<_>>()
        );
    }
});

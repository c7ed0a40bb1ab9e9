//! Pinned values beyond the closure: the guard, owned `Bytes`, batched reads and
//! iteration, each returning exactly the bytes written.

use std::panic::{self, AssertUnwindSafe};

use crate::common::{create_options, open_db, patterned, settle, STAGES};
use pinrocks::{Db, ErrorKind, ReadOptions};

#[test]
fn guard_derefs_to_the_value_until_dropped() {
    let (_dir, db) = open_db(&["cf"]);
    let cf = db.cf("cf").unwrap();
    db.put(b"k", &patterned(5000, 1)).unwrap();
    cf.writer().put(b"k", &patterned(300, 2)).unwrap();
    for stage in STAGES {
        settle(&[&db.default_cf(), &cf], stage);
        let a = db
            .reader()
            .pin(b"k")
            .unwrap()
            .unwrap_or_else(|| panic!("{stage:?}"));
        let b = cf
            .reader()
            .pin(b"k")
            .unwrap()
            .unwrap_or_else(|| panic!("{stage:?}"));
        assert_eq!(&a[..], &patterned(5000, 1)[..], "{stage:?}");
        assert_eq!(&b[..], &patterned(300, 2)[..], "{stage:?}");
        assert!(db.reader().pin(b"absent").unwrap().is_none());
    }
}

#[test]
fn owned_bytes_are_shared_sent_and_keep_the_database_open() {
    let (dir, db) = open_db(&[]);
    let value = patterned(100_000, 3);
    db.put(b"k", &value).unwrap();
    db.flush().unwrap();
    let bytes = db.reader().get_bytes(b"k").unwrap().unwrap();
    assert_eq!(&bytes[..], &value[..]);
    assert_eq!(db.reader().get_bytes(b"absent").unwrap(), None);
    let clone = bytes.clone();
    assert_eq!(
        clone.as_ptr(),
        bytes.as_ptr(),
        "a clone shares the pinned bytes"
    );
    let slice = bytes.slice(10..20);
    assert_eq!(&slice[..], &value[10..20]);

    drop(db);
    // The pin keeps the database open, so a second open still finds it locked.
    let err = Db::open(&create_options(), dir.path()).unwrap_err();
    assert_eq!(err.kind(), Some(ErrorKind::IoError), "{err}");
    let from_thread = std::thread::spawn(move || clone.to_vec()).join().unwrap();
    assert_eq!(from_thread, value);
    assert_eq!(&bytes[..], &value[..]);
    drop((bytes, slice));
    // The last clone is gone: the database has closed.
    let db = Db::open(&create_options(), dir.path()).unwrap();
    assert_eq!(db.get(b"k").unwrap(), Some(value));
}

#[test]
fn multi_get_returns_each_value_in_key_order() {
    let (_dir, db) = open_db(&["cf"]);
    let cf = db.cf("cf").unwrap();
    let keys: Vec<Vec<u8>> = (0u8..20).map(|i| vec![b'k', i]).collect();
    for (i, key) in keys.iter().enumerate() {
        if !i.is_multiple_of(3) {
            cf.writer().put(key, &patterned(i * 100, i as u8)).unwrap();
        }
    }
    let mut queried = keys.clone();
    queried.reverse();
    queried.push(b"never".to_vec());
    for stage in STAGES {
        settle(&[&db.default_cf(), &cf], stage);
        let mut seen = Vec::new();
        cf.reader()
            .multi_get_pinned(&queried, |i, v| seen.push((i, v.map(<[u8]>::to_vec))))
            .unwrap();
        let expected: Vec<(usize, Option<Vec<u8>>)> = queried
            .iter()
            .enumerate()
            .map(|(i, key)| {
                let n = key.get(1).copied().unwrap_or(0) as usize;
                let present = key.len() == 2 && !n.is_multiple_of(3);
                (i, present.then(|| patterned(n * 100, n as u8)))
            })
            .collect();
        assert_eq!(seen, expected, "{stage:?}");
        // The default column family has none of them.
        let mut found = 0;
        db.reader()
            .multi_get_pinned(&queried, |_, v| found += v.is_some() as usize)
            .unwrap();
        assert_eq!(found, 0);
    }
}

#[test]
fn a_panic_in_multi_get_stops_the_batch_and_continues() {
    let (_dir, db) = open_db(&[]);
    for k in [b"a", b"b", b"c"] {
        db.put(k, k).unwrap();
    }
    db.flush().unwrap();
    let mut calls = 0;
    let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
        db.reader().multi_get_pinned(&[b"a", b"b", b"c"], |i, _| {
            calls += 1;
            if i == 1 {
                panic!("stop at {i}");
            }
        })
    }));
    let payload = outcome.unwrap_err();
    assert_eq!(payload.downcast_ref::<String>().unwrap(), "stop at 1");
    assert_eq!(calls, 2, "no call after the panic");
    assert_eq!(db.get(b"c").unwrap().as_deref(), Some(&b"c"[..]));
}

/// Every entry from the iterator's position on, moving with `step` (`next` or `prev`).
fn collect<'a>(
    it: &mut pinrocks::Cursor<'a>,
    step: fn(&mut pinrocks::Cursor<'a>),
) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut out = Vec::new();
    while let Some((k, v)) = it.entry() {
        out.push((k.to_vec(), v.to_vec()));
        step(it);
    }
    it.status().unwrap();
    out
}

#[test]
fn iteration_forward_backward_seek_bounds_and_prefix() {
    let (_dir, db) = open_db(&["cf"]);
    let cf = db.cf("cf").unwrap();
    let mut model = Vec::new();
    for group in [b'a', b'b', b'c'] {
        for i in 0u8..5 {
            let key = vec![group, i];
            let value = patterned(i as usize * 700, group ^ i);
            cf.writer().put(&key, &value).unwrap();
            model.push((key, value));
        }
    }
    cf.writer().put(&[b'b', 0xFF], b"edge").unwrap();
    model.insert(10, (vec![b'b', 0xFF], b"edge".to_vec()));
    db.put(b"b\x01", b"in default only").unwrap();

    for stage in STAGES {
        settle(&[&db.default_cf(), &cf], stage);
        let mut it = cf.reader().iter();
        it.seek_to_first();
        assert_eq!(
            collect(&mut it, pinrocks::Cursor::next),
            model,
            "{stage:?} forward"
        );
        it.seek_to_last();
        let mut reversed = model.clone();
        reversed.reverse();
        assert_eq!(
            collect(&mut it, pinrocks::Cursor::prev),
            reversed,
            "{stage:?} backward"
        );

        it.seek(&[b'b', 3]);
        assert_eq!(it.key(), Some(&[b'b', 3][..]));
        it.seek(&[b'b', 5]);
        assert_eq!(
            it.key(),
            Some(&[b'b', 0xFF][..]),
            "seek lands on the next key"
        );
        it.seek_for_prev(&[b'b', 5]);
        assert_eq!(
            it.key(),
            Some(&[b'b', 4][..]),
            "seek_for_prev lands on the previous key"
        );
        it.seek(b"z");
        assert_eq!(it.entry(), None);

        let mut bounded = ReadOptions::new();
        bounded
            .iterate_lower_bound(&[b'a', 3])
            .iterate_upper_bound(&[b'b', 2]);
        let mut it = cf.reader().options(&bounded).iter();
        it.seek_to_first();
        let expected: Vec<_> = model
            .iter()
            .filter(|(k, _)| k.as_slice() >= &[b'a', 3][..] && k.as_slice() < &[b'b', 2][..])
            .cloned()
            .collect();
        assert_eq!(
            collect(&mut it, pinrocks::Cursor::next),
            expected,
            "{stage:?} bounded"
        );

        let in_b: Vec<_> = model
            .iter()
            .filter(|(k, _)| k[0] == b'b')
            .cloned()
            .collect();
        let mut it = cf.reader().prefix_iter(b"b");
        assert_eq!(
            collect(&mut it, pinrocks::Cursor::next),
            in_b,
            "{stage:?} prefix forward"
        );
        it.seek_to_last();
        let mut in_b_reversed = in_b.clone();
        in_b_reversed.reverse();
        assert_eq!(
            collect(&mut it, pinrocks::Cursor::prev),
            in_b_reversed,
            "{stage:?} prefix backward"
        );

        let mut it = db.reader().iter();
        it.seek_to_first();
        assert_eq!(
            collect(&mut it, pinrocks::Cursor::next),
            [(b"b\x01".to_vec(), b"in default only".to_vec())],
            "{stage:?} default family"
        );
    }
}

/// Batches around the 32 keys held on the stack (and far beyond, on the heap) return every
/// value exactly, in key order, absent keys as `None`.
#[test]
fn multi_get_batches_of_every_size_return_exact_values() {
    let (_dir, db) = open_db(&[]);
    for i in 0u32..200 {
        if i % 3 != 0 {
            db.put(&i.to_be_bytes(), &patterned(i as usize * 5, i as u8))
                .unwrap();
        }
    }
    for n in [0usize, 1, 31, 32, 33, 64, 200] {
        let keys: Vec<[u8; 4]> = (0..n as u32).rev().map(u32::to_be_bytes).collect();
        let mut seen = Vec::new();
        db.reader()
            .multi_get_pinned(&keys, |i, v| seen.push((i, v.map(<[u8]>::to_vec))))
            .unwrap();
        let expected: Vec<_> = keys
            .iter()
            .enumerate()
            .map(|(i, k)| {
                let key = u32::from_be_bytes(*k);
                (
                    i,
                    (key % 3 != 0).then(|| patterned(key as usize * 5, key as u8)),
                )
            })
            .collect();
        assert_eq!(seen, expected, "batch of {n}");
    }
}

//! The owners of pins (owned `Bytes`, guards, iterators, multi-get) driven through drops of
//! column families and databases in random order. Every value read is compared with what
//! was written, whenever it is read again, after its family was dropped and after its
//! database was closed; under the fuzzer's AddressSanitizer a read of freed memory stops
//! the run.
#![no_main]

use bytes::Bytes;
use libfuzzer_sys::fuzz_target;
use pinrocks::{ColumnFamily, Db, Options};

const FAMILIES: [&str; 3] = ["a", "b", "c"];

fn value(family: usize, key: u8, len: u8) -> Vec<u8> {
    (0..len as usize * 97 + 1)
        .map(|i| (i as u8) ^ key ^ (family as u8 * 31))
        .collect()
}

/// One column family as the target sees it: the `ColumnFamily` (if still held), and the
/// value last written at each key (writes stop once the family is dropped).
struct Family<'db> {
    cf: Option<ColumnFamily<'db>>,
    dropped: bool,
    values: [Option<Vec<u8>>; 4],
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
    // Owned values outlive families and databases: (bytes, what they must read).
    let mut owned: Vec<(Bytes, Vec<u8>)> = Vec::new();
    let mut ops = data.chunks(3);
    for epoch in 0..3 {
        let path = dir.path().join(epoch.to_string());
        let mut options = Options::new();
        options.create_if_missing(true);
        let db = Db::open(&options, &path).unwrap();
        // Each family with a block cache of its own, whose options are dropped at once: the
        // family's table factory, and so its cache, then live only as long as the family.
        let mut families: Vec<Family<'_>> = FAMILIES
            .iter()
            .map(|name| {
                let mut own = Options::new();
                own.block_cache_size(1 << 20).block_cache_shard_bits(0);
                Family {
                    cf: Some(db.create_cf(name, &own).unwrap()),
                    dropped: false,
                    values: Default::default(),
                }
            })
            .collect();
        for op in ops.by_ref().take(40) {
            let [code, x, y] = [op[0], *op.get(1).unwrap_or(&0), *op.get(2).unwrap_or(&0)];
            let (f, key) = (x as usize % FAMILIES.len(), y % 4);
            let Family { cf, dropped, values } = &mut families[f];
            match code % 9 {
                // The epoch ends: the database closes with whatever is still pinned.
                0 if x % 4 == 0 => break,
                0 | 1 => {
                    if let Some(cf) = cf.as_ref().filter(|_| !*dropped) {
                        let v = value(f, key, x);
                        cf.writer().put(&[key], &v).unwrap();
                        values[key as usize] = Some(v);
                    }
                }
                2 => {
                    if let Some(cf) = cf.as_ref().filter(|_| !*dropped) {
                        cf.flush().unwrap();
                    }
                }
                3 => {
                    if let Some(cf) = cf.as_ref() {
                        let got = cf.reader().get_bytes(&[key]).unwrap();
                        assert_eq!(got.as_deref(), values[key as usize].as_deref());
                        if let Some(bytes) = got {
                            owned.push((bytes, values[key as usize].clone().unwrap()));
                        }
                    }
                }
                // Let go of the `ColumnFamily`: pins taken from it must not notice.
                4 => *cf = None,
                5 => {
                    if !*dropped {
                        db.drop_cf(FAMILIES[f]).unwrap();
                        *dropped = true;
                    }
                }
                6 => {
                    // A guard and an iterator held across a drop of their own family.
                    if let Some(cf) = cf.as_ref() {
                        let reader = cf.reader();
                        let guard = reader.pin(&[key]).unwrap();
                        let mut it = reader.iter();
                        it.seek(&[key]);
                        if !*dropped && y % 2 == 0 {
                            db.drop_cf(FAMILIES[f]).unwrap();
                            *dropped = true;
                        }
                        assert_eq!(guard.as_deref(), values[key as usize].as_deref());
                        let expected = values[key as usize..]
                            .iter()
                            .enumerate()
                            .find_map(|(i, v)| v.as_ref().map(|v| (key as usize + i, v)));
                        let entry = it.entry().map(|(k, v)| (k[0] as usize, v.to_vec()));
                        assert_eq!(entry, expected.map(|(k, v)| (k, v.clone())));
                        it.status().unwrap();
                    }
                }
                7 => {
                    if let Some(cf) = cf.as_ref() {
                        let keys: Vec<[u8; 1]> = (0..4).map(|k| [k]).collect();
                        let mut seen = Vec::new();
                        cf.reader()
                            .multi_get_pinned(&keys, |i, v| seen.push((i, v.map(<[u8]>::to_vec))))
                            .unwrap();
                        let expected: Vec<_> =
                            values.iter().cloned().enumerate().collect();
                        assert_eq!(seen, expected);
                    }
                }
                _ => {
                    // Drop a random owned value early.
                    if !owned.is_empty() {
                        let i = x as usize % owned.len();
                        owned.swap_remove(i);
                    }
                }
            }
            for (bytes, expected) in &owned {
                assert_eq!(&bytes[..], &expected[..]);
            }
        }
        // Families, then the database, in this order; owned values live on.
        drop(families);
        drop(db);
        for (bytes, expected) in &owned {
            assert_eq!(&bytes[..], &expected[..]);
        }
    }
});

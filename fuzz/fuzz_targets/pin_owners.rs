//! The owners of pins (owned `Bytes`, guards, iterators, multi-get) and transactions
//! driven through drops of column families and of databases of every kind (plain, TTL,
//! pessimistic and optimistic transaction databases) in random order. Every value read is
//! compared with what was written, whenever it is read again, after its family was dropped
//! and after its database was closed; transactions write, prepare (two-phase), commit, roll
//! back or are dropped while families are dropped under them, and a database left with
//! prepared transactions is reopened and recovers each exactly once. Under the fuzzer's
//! AddressSanitizer a read of freed memory stops the run.
#![no_main]

use std::time::Duration;

use bytes::Bytes;
use libfuzzer_sys::fuzz_target;
use pinrocks::{
    ColumnFamily, Db, Error, LogLevel, MemEnv, Options, Transaction, TransactionDbOptions,
};

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

#[derive(Clone, Copy, PartialEq, Debug)]
enum Kind {
    Plain,
    Ttl,
    Pessimistic,
    Optimistic,
}

/// The open transaction: its writes (family, key, value) not yet committed, whether it
/// is prepared, and whether a plain write touched one of its keys since (an optimistic
/// commit then fails with `Busy`).
struct Open<'db> {
    txn: Transaction<'db>,
    writes: Vec<(usize, u8, Vec<u8>)>,
    prepared: bool,
    conflicted: bool,
}

fn open(
    kind: Kind,
    options: &Options,
    path: &std::path::Path,
    families: &[(&str, &Options)],
) -> Db {
    let families = families.iter().copied();
    match kind {
        Kind::Plain => Db::open_with(options, path, families),
        Kind::Ttl => Db::open_with_ttls(
            options,
            path,
            families.map(|(name, o)| (name, o, Duration::from_secs(3600))),
        ),
        Kind::Pessimistic => {
            let mut txn_options = TransactionDbOptions::new();
            // A plain write to a key the open transaction holds would wait for it.
            txn_options.default_lock_timeout(Duration::ZERO);
            Db::open_transaction_db(options, &txn_options, path, families)
        }
        Kind::Optimistic => Db::open_optimistic_transaction_db(options, path, families),
    }
    .unwrap()
}

fuzz_target!(|data: &[u8]| {
    // Files in memory (RocksDB's in-memory file system), a new one for each input and gone
    // with it (owned values keep it alive as long as they keep their database).
    let env = MemEnv::new().unwrap();
    let dir = std::path::Path::new("/pinrocks-fuzz/pin_owners");
    // Owned values outlive families and databases: (bytes, what they must read).
    let mut owned: Vec<(Bytes, Vec<u8>)> = Vec::new();
    let mut ops = data.chunks(3);
    let kinds = [Kind::Plain, Kind::Ttl, Kind::Pessimistic, Kind::Optimistic];
    for epoch in 0..3 {
        let kind = kinds[(epoch + data.len()) % kinds.len()];
        let path = dir.join(epoch.to_string());
        let mut options = Options::new();
        options
            .create_if_missing(true)
            .mem_env(&env)
            .info_log_level(LogLevel::Warn);
        // One thread opens the table files (RocksDB's default of 16 starts 15 threads at
        // every open of a database with SST files).
        options
            .set_by_name(&[("max_file_opening_threads", "1")])
            .unwrap();
        // Each family with a block cache of its own, whose options are dropped at once: the
        // family's table factory, and so its cache, then live only as long as the family.
        // Made at the open (one OPTIONS file written, not one per family), the last one by
        // `create_cf` after it when the input says so.
        options.create_missing_column_families(true);
        let late = usize::from(data.get(epoch).is_some_and(|b| b % 2 == 1));
        let at_open = FAMILIES.len() - late;
        let own: Vec<Options> = FAMILIES
            .iter()
            .map(|_| {
                let mut own = Options::new();
                own.block_cache_size(1 << 20).block_cache_shard_bits(0);
                own
            })
            .collect();
        let with_families: Vec<(&str, &Options)> = std::iter::once(("default", &options))
            .chain(FAMILIES[..at_open].iter().copied().zip(&own))
            .collect();
        let db = open(kind, &options, &path, &with_families);
        drop(with_families);
        let transactional = matches!(kind, Kind::Pessimistic | Kind::Optimistic);
        let mut open_txn: Option<Open<'_>> = None;
        // Writes of transactions dropped while prepared: recovered at the reopen.
        let mut left_prepared: Vec<Vec<(usize, u8, Vec<u8>)>> = Vec::new();
        let mut names = 0u32;
        let mut families: Vec<Family<'_>> = FAMILIES
            .iter()
            .enumerate()
            .map(|(i, name)| Family {
                cf: Some(if i < at_open {
                    db.cf(name).unwrap()
                } else {
                    db.create_cf(name, &own[i]).unwrap()
                }),
                dropped: false,
                values: Default::default(),
            })
            .collect();
        drop(own);
        for op in ops.by_ref().take(40) {
            let [code, x, y] = [op[0], *op.get(1).unwrap_or(&0), *op.get(2).unwrap_or(&0)];
            let (f, key) = (x as usize % FAMILIES.len(), y % 4);
            // Families a prepared transaction writes to cannot be dropped.
            let held = |f: usize, open: &Option<Open<'_>>, left: &[Vec<(usize, u8, Vec<u8>)>]| {
                open.as_ref()
                    .is_some_and(|o| o.prepared && o.writes.iter().any(|w| w.0 == f))
                    || left.iter().flatten().any(|w| w.0 == f)
            };
            let is_held = held(f, &open_txn, &left_prepared);
            let dropped_now: Vec<bool> = families.iter().map(|fam| fam.dropped).collect();
            let families_dropped = |wf: usize| dropped_now[wf];
            let mut committed = Vec::new();
            let Family {
                cf,
                dropped,
                values,
            } = &mut families[f];
            match code % 13 {
                // The epoch ends: the database closes with whatever is still pinned.
                0 if x % 4 == 0 => break,
                0 | 1 => {
                    if let Some(cf) = cf.as_ref().filter(|_| !*dropped) {
                        let v = value(f, key, x);
                        let locked = open_txn.as_ref().is_some_and(|o| {
                            kind == Kind::Pessimistic
                                && o.writes.iter().any(|w| (w.0, w.1) == (f, key))
                        });
                        let put = cf.writer().put(&[key], &v);
                        if locked {
                            // The open transaction holds the row: refused at once.
                            assert!(put.is_err(), "a write through another's lock");
                        } else {
                            put.unwrap();
                            values[key as usize] = Some(v);
                            if let Some(o) = open_txn.as_mut() {
                                o.conflicted |= o.writes.iter().any(|w| (w.0, w.1) == (f, key));
                            }
                        }
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
                        let result = db.drop_cf(FAMILIES[f]);
                        if is_held {
                            assert!(
                                matches!(result, Err(Error::ColumnFamilyInUse { .. })),
                                "{result:?}"
                            );
                        } else {
                            result.unwrap();
                            *dropped = true;
                        }
                    }
                }
                6 => {
                    // A guard and an iterator held across a drop of their own family.
                    if let Some(cf) = cf.as_ref() {
                        let reader = cf.reader();
                        let guard = reader.pin(&[key]).unwrap();
                        let mut it = reader.iter();
                        it.seek(&[key]);
                        if !*dropped && !is_held && y % 2 == 0 {
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
                        let expected: Vec<_> = values.iter().cloned().enumerate().collect();
                        assert_eq!(seen, expected);
                    }
                }
                9 if transactional && open_txn.is_none() => {
                    open_txn = Some(Open {
                        txn: db.begin().unwrap(),
                        writes: Vec::new(),
                        prepared: false,
                        conflicted: false,
                    });
                }
                9 | 10 => {
                    // A write through the open transaction.
                    if let (Some(o), Some(cf)) = (open_txn.as_mut(), cf.as_ref()) {
                        if o.prepared {
                            continue;
                        }
                        let v = value(f, key, x ^ 0x55);
                        let result = o.txn.writer().cf(cf).put(&[key], &v);
                        if *dropped {
                            assert!(matches!(result, Err(Error::ColumnFamilyDropped { .. })));
                        } else if result.is_ok() {
                            o.writes.push((f, key, v));
                        } else {
                            // An optimistic transaction never fails a put; a pessimistic
                            // one only on a lock (none is held by anyone else here).
                            panic!("{result:?}");
                        }
                    }
                }
                11 => {
                    // Two-phase: prepare (pessimistic only).
                    if let Some(o) = open_txn.as_mut().filter(|_| kind == Kind::Pessimistic) {
                        if !o.prepared {
                            names += 1;
                            o.txn.set_name(&format!("t{epoch}-{names}")).unwrap();
                            let any_dropped = o.writes.iter().any(|w| families_dropped(w.0));
                            let result = o.txn.prepare();
                            if any_dropped {
                                assert!(matches!(result, Err(Error::ColumnFamilyDropped { .. })));
                            } else {
                                result.unwrap();
                                o.prepared = true;
                            }
                        }
                    }
                }
                12 => {
                    // The transaction ends: committed, rolled back, or dropped.
                    if let Some(o) = open_txn.take() {
                        let any_dropped = o.writes.iter().any(|w| families_dropped(w.0));
                        match x % 3 {
                            0 => {
                                let result = o.txn.commit();
                                if any_dropped && !o.prepared {
                                    assert!(matches!(
                                        result,
                                        Err(Error::ColumnFamilyDropped { .. })
                                    ));
                                } else if o.conflicted && kind == Kind::Optimistic {
                                    assert!(result.is_err(), "a conflict committed");
                                } else {
                                    result.unwrap();
                                    committed = o.writes;
                                }
                            }
                            1 => o.txn.rollback().unwrap(),
                            _ => {
                                let prepared = o.prepared;
                                drop(o.txn);
                                if prepared {
                                    left_prepared.push(o.writes);
                                }
                            }
                        }
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
            for (wf, wk, wv) in committed {
                families[wf].values[wk as usize] = Some(wv);
            }
            for (bytes, expected) in &owned {
                assert_eq!(&bytes[..], &expected[..]);
            }
        }
        // The transaction, the families, then the database, in this order; owned values
        // live on.
        if let Some(o) = open_txn.take() {
            let prepared = o.prepared;
            drop(o.txn);
            if prepared {
                left_prepared.push(o.writes);
            }
        }
        drop(open_txn);
        let finals: Vec<(bool, [Option<Vec<u8>>; 4])> = families
            .iter()
            .map(|fam| (fam.dropped, fam.values.clone()))
            .collect();
        drop(families);
        drop(db);
        for (bytes, expected) in &owned {
            assert_eq!(&bytes[..], &expected[..]);
        }
        if !left_prepared.is_empty() {
            // Owned values keep their database open; the reopen needs it closed.
            owned.clear();
            recover(&options, &path, &left_prepared, &finals);
        }
    }
});

/// Reopens a pessimistic database left with prepared transactions: each is handed out
/// once, its families cannot be dropped until it commits, and after the commits every key
/// holds its value or the write of one of those transactions.
fn recover(
    options: &Options,
    path: &std::path::Path,
    left: &[Vec<(usize, u8, Vec<u8>)>],
    finals: &[(bool, [Option<Vec<u8>>; 4])],
) {
    let names = Db::list_column_families(options, path).unwrap();
    let families: Vec<(&str, &Options)> = names.iter().map(|n| (n.as_str(), options)).collect();
    let db = open(Kind::Pessimistic, options, path, &families);
    let recovered = db.prepared_transactions().unwrap();
    assert_eq!(recovered.len(), left.len());
    assert_eq!(
        db.prepared_transactions().unwrap().len(),
        0,
        "handed out twice"
    );
    for (f, name) in FAMILIES.iter().enumerate() {
        if left.iter().flatten().any(|w| w.0 == f) {
            let result = db.drop_cf(name);
            assert!(
                matches!(result, Err(Error::ColumnFamilyInUse { .. })),
                "{result:?}"
            );
        }
    }
    for txn in recovered {
        txn.commit().unwrap();
    }
    for (f, (dropped, values)) in finals.iter().enumerate() {
        if *dropped {
            continue;
        }
        let cf = db.cf(FAMILIES[f]).unwrap();
        for key in 0..4u8 {
            let got = cf.reader().get(&[key]).unwrap();
            let candidates: Vec<Option<&[u8]>> = std::iter::once(values[key as usize].as_deref())
                .chain(
                    left.iter()
                        .flatten()
                        .filter(|w| (w.0, w.1) == (f, key))
                        .map(|w| Some(&w.2[..])),
                )
                .collect();
            assert!(
                candidates.contains(&got.as_deref()),
                "family {f} key {key}: {got:?}"
            );
        }
    }
}

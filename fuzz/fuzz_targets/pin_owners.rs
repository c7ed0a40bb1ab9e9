//! The owners of pins (owned `Bytes`, guards, iterators, multi-get) and transactions
//! driven through drops of column families and of databases of every kind (plain, TTL,
//! pessimistic and optimistic transaction databases) in random order. Every value read is
//! compared with what was written, whenever it is read again, after its family was dropped
//! and after its database was closed; transactions write, prepare (two-phase), commit, roll
//! back or are dropped while families are dropped under them, and a database left with
//! prepared transactions is reopened and recovers each exactly once. Under the fuzzer's
//! AddressSanitizer a read of freed memory stops the run. The databases stay open from one
//! input to the next (`Kept`): each input closes at most one.
//!
//! Long because: one target, its model of families, transactions and owned values, and the
//! kept databases it runs on, read together.
#![no_main]

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use bytes::Bytes;
use kept::inputs_per_database;
use libfuzzer_sys::fuzz_target;
use pinrocks::callbacks::LogLevel;
use pinrocks::options::{MemEnv, OptimisticTransactionDbOptions, TransactionDbOptions};
use pinrocks::{ColumnFamily, Db, Error, ErrorKind, Options, Transaction};

#[path = "kept.rs"]
mod kept;

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
    /// A memtable was flushed since it began: an optimistic commit may then be refused
    /// with `TryAgain` (RocksDB keeps only so much flushed history to check conflicts
    /// against), nothing written.
    flushed: bool,
}

fn open(kind: Kind, options: &Options, path: &Path, families: &[(&str, &Options)]) -> Db {
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
        Kind::Optimistic => {
            // 16 lock buckets, not RocksDB's million (40 MiB written at each open).
            let mut occ = OptimisticTransactionDbOptions::new();
            occ.lock_buckets(16);
            Db::open_optimistic_transaction_db_with(options, &occ, path, families)
        }
    }
    .unwrap()
}

/// Prints each operation (`PINROCKS_FUZZ_TRACE`), to see what the inputs before a crash did.
fn tracing() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("PINROCKS_FUZZ_TRACE").is_some())
}

/// A family as the kept database holds it between epochs: dropped or not, and the value
/// last written at each key.
#[derive(Clone, Default)]
struct FamilyState {
    dropped: bool,
    values: [Option<Vec<u8>>; 4],
}

/// A database kept open from one input to the next, with its options and what its families
/// hold.
struct KeptDb {
    db: Db,
    options: Options,
    path: PathBuf,
    families: [FamilyState; 3],
}

/// What inputs share: the file system in memory and one open database of each kind. An open
/// costs more than all of an input's other operations under AddressSanitizer (RocksDB writes
/// its OPTIONS file and parses it back), so a database closes only when an input says so (at most once an input) or
/// leaves prepared transactions behind; its next open is at a new path (owned values may
/// still keep the closed one open). A crash that needs what earlier inputs left may not
/// repeat from its input alone; with `PINROCKS_FUZZ_INPUTS_PER_DATABASE=1` it needs nothing
/// but its input.
struct Kept {
    env: MemEnv,
    dbs: [Option<KeptDb>; 4],
    opens: u32,
    inputs: u32,
}

thread_local! {
    static KEPT: RefCell<Option<Kept>> = const { RefCell::new(None) };
}

/// Options of a family with a block cache of its own, dropped once the family is made: the
/// family's table factory, and so its cache, then live only as long as the family.
fn own_cache() -> Options {
    let mut own = Options::new();
    own.block_cache_size(1 << 20).block_cache_shard_bits(0);
    own
}

impl KeptDb {
    /// A new database of `kind` at a new path of `env`, its families made at the open but
    /// the last one by `create_cf` after it when `late`.
    fn open(env: &MemEnv, kind: Kind, opens: u32, late: bool) -> KeptDb {
        let path = Path::new("/pinrocks-fuzz/pin_owners").join(opens.to_string());
        let mut options = Options::new();
        options
            .create_if_missing(true)
            .mem_env(env)
            .info_log_level(LogLevel::Warn);
        // One thread opens the table files (RocksDB's default of 16 starts 15 threads at
        // every open of a database with SST files).
        options
            .set_by_name(&[("max_file_opening_threads", "1")])
            .unwrap();
        options.create_missing_column_families(true);
        let at_open = FAMILIES.len() - usize::from(late);
        let own: Vec<Options> = FAMILIES.iter().map(|_| own_cache()).collect();
        let with_families: Vec<(&str, &Options)> = std::iter::once(("default", &options))
            .chain(FAMILIES[..at_open].iter().copied().zip(&own))
            .collect();
        let db = open(kind, &options, &path, &with_families);
        drop(with_families);
        for (name, own) in FAMILIES.iter().zip(own).skip(at_open) {
            drop(db.create_cf(name, &own).unwrap());
        }
        KeptDb {
            db,
            options,
            path,
            families: Default::default(),
        }
    }
}

fuzz_target!(|data: &[u8]| {
    KEPT.with(|kept| {
        let mut kept = kept.borrow_mut();
        let k = kept.get_or_insert_with(|| Kept {
            env: MemEnv::new().unwrap(),
            dbs: Default::default(),
            opens: 0,
            inputs: 0,
        });
        run(k, data);
        k.inputs += 1;
        if k.inputs >= inputs_per_database() {
            // The databases close, then the file system goes with them.
            *kept = None;
        }
    });
});

/// One input: three epochs, each on the kept database of a kind (opened if none is), of up
/// to 40 operations of three bytes.
fn run(kept: &mut Kept, data: &[u8]) {
    // Owned values outlive families and databases: (bytes, what they must read).
    let mut owned: Vec<(Bytes, Vec<u8>)> = Vec::new();
    let mut ops = data.chunks(3);
    let mut may_close = true;
    let kinds = [Kind::Plain, Kind::Ttl, Kind::Pessimistic, Kind::Optimistic];
    for epoch in 0..3 {
        let kind = kinds[(epoch + data.len()) % kinds.len()];
        let slot = kind as usize;
        if kept.dbs[slot].is_none() {
            kept.opens += 1;
            let late = data.get(epoch).is_some_and(|b| b % 2 == 1);
            kept.dbs[slot] = Some(KeptDb::open(&kept.env, kind, kept.opens, late));
        }
        let close = run_epoch(
            kept.dbs[slot].as_mut().unwrap(),
            kind,
            epoch,
            &mut ops,
            &mut owned,
            &mut may_close,
        );
        if let Some(left_prepared) = close {
            // The database closes with whatever is still pinned; owned values live on.
            let KeptDb {
                db,
                options,
                path,
                families,
            } = kept.dbs[slot].take().unwrap();
            drop(db);
            still_read(&owned);
            if !left_prepared.is_empty() {
                // Owned values keep their database open; the reopen needs it closed.
                owned.clear();
                recover(&options, &path, &left_prepared, &families);
            }
        }
    }
    still_read(&owned);
}

/// Every owned value still reads what was written, whatever was dropped since.
fn still_read(owned: &[(Bytes, Vec<u8>)]) {
    for (bytes, expected) in owned {
        assert_eq!(&bytes[..], &expected[..]);
    }
}

/// One epoch on `kept`; `Some` (the writes of transactions left prepared) if the database
/// must close after it: it left prepared transactions, or the input closes it (once an
/// input, `may_close`).
fn run_epoch(
    kept: &mut KeptDb,
    kind: Kind,
    epoch: usize,
    ops: &mut std::slice::Chunks<'_, u8>,
    owned: &mut Vec<(Bytes, Vec<u8>)>,
    may_close: &mut bool,
) -> Option<Vec<Vec<(usize, u8, Vec<u8>)>>> {
    let KeptDb {
        db,
        families: states,
        ..
    } = kept;
    let db = &*db;
    let transactional = matches!(kind, Kind::Pessimistic | Kind::Optimistic);
    let mut open_txn: Option<Open<'_>> = None;
    // Writes of transactions dropped while prepared: recovered at the reopen.
    let mut left_prepared: Vec<Vec<(usize, u8, Vec<u8>)>> = Vec::new();
    let mut close = false;
    let mut names = 0u32;
    // Families an earlier epoch dropped are made again, empty.
    let mut families: Vec<Family<'_>> = FAMILIES
        .iter()
        .zip(states.iter_mut())
        .map(|(name, state)| {
            if state.dropped {
                drop(db.create_cf(name, &own_cache()).unwrap());
                *state = FamilyState::default();
            }
            Family {
                cf: Some(db.cf(name).unwrap()),
                dropped: false,
                values: state.values.clone(),
            }
        })
        .collect();
    for op in ops.by_ref().take(40) {
        let [code, x, y] = [op[0], *op.get(1).unwrap_or(&0), *op.get(2).unwrap_or(&0)];
        let (f, key) = (x as usize % FAMILIES.len(), y % 4);
        if tracing() {
            eprintln!(
                "{kind:?} epoch {epoch}: op {} family {f} key {key} x {x} y {y}",
                code % 13
            );
        }
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
            // The epoch ends; the database closes (with whatever is still pinned) on a
            // 255, once an input.
            0 if x % 4 == 0 => {
                close = y == 255 && std::mem::take(may_close);
                break;
            }
            0 | 1 => {
                if let Some(cf) = cf.as_ref().filter(|_| !*dropped) {
                    let v = value(f, key, x);
                    let locked = open_txn.as_ref().is_some_and(|o| {
                        kind == Kind::Pessimistic && o.writes.iter().any(|w| (w.0, w.1) == (f, key))
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
                    if let Some(o) = open_txn.as_mut() {
                        o.flushed = true;
                    }
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
                    flushed: false,
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
                        // Named once: a prepare refused before stays named.
                        if o.txn.name().unwrap().is_none() {
                            names += 1;
                            o.txn.set_name(&format!("t{epoch}-{names}")).unwrap();
                        }
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
                                assert!(matches!(result, Err(Error::ColumnFamilyDropped { .. })));
                            } else if o.conflicted && kind == Kind::Optimistic {
                                assert!(result.is_err(), "a conflict committed");
                            } else if o.flushed
                                && kind == Kind::Optimistic
                                && matches!(
                                    result,
                                    Err(Error::RocksDb {
                                        kind: ErrorKind::TryAgain,
                                        ..
                                    })
                                )
                            {
                                // Refused whole: nothing of it was written.
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
        still_read(owned);
    }
    // The transaction, then the families, in this order; the database stays open unless it
    // must close.
    if let Some(o) = open_txn.take() {
        let prepared = o.prepared;
        drop(o.txn);
        if prepared {
            left_prepared.push(o.writes);
        }
    }
    drop(open_txn);
    for (state, family) in states.iter_mut().zip(&families) {
        state.dropped = family.dropped;
        state.values = family.values.clone();
    }
    drop(families);
    (close || !left_prepared.is_empty()).then_some(left_prepared)
}

/// Reopens a pessimistic database left with prepared transactions: each is handed out
/// once, its families cannot be dropped until it commits, and after the commits every key
/// holds its value or the write of one of those transactions.
fn recover(
    options: &Options,
    path: &Path,
    left: &[Vec<(usize, u8, Vec<u8>)>],
    finals: &[FamilyState],
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
    for (f, FamilyState { dropped, values }) in finals.iter().enumerate() {
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

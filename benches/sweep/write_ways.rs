//! The ways a write is measured (`writes.rs`): each kind of write (`write_kinds.rs`)
//! through pinrocks, the `rocksdb` crate (the peer), and RocksDB with no Rust binding between
//! (`write_floors.rs`), each on a database of its own. The same ways serve the timing and
//! the valgrind counts ([`per_write`]).

use std::path::Path;

use pinrocks::callbacks::MergeOperator;
use pinrocks::options::{OptimisticTransactionOptions, TransactionDbOptions, TransactionOptions};
use pinrocks::{ffi, Db, WriteBatch, WriteOptions};

use crate::tiers;
use crate::write_floors::{floor, looped, CSlice};
use crate::write_kinds::{Kind, Record, Side, SIDES};

/// One way: a key in (the first of its run), the writes it made out.
pub type Way<'a> = Box<dyn FnMut(&[u8]) -> u64 + 'a>;

/// The keys `0..count` in order, twice over, so that the run of `n` keys from any key is
/// one slice: a batch takes consecutive keys from the one the harness gives. And the
/// harness' own random order (`tiers::random_keys`), twice over, for the C++ loop of single
/// writes, which must write keys as scattered as the single writes it is the floor of.
pub struct Runs {
    keys: Vec<Vec<u8>>,
    slices: Vec<CSlice>,
    random_keys: Vec<Vec<u8>>,
    random: Vec<CSlice>,
    count: usize,
}

fn views(keys: &[Vec<u8>]) -> Vec<CSlice> {
    keys.iter()
        .map(|k| CSlice {
            data: k.as_ptr().cast(),
            len: k.len(),
        })
        .collect()
}

impl Runs {
    pub fn new(count: usize) -> Self {
        let keys: Vec<Vec<u8>> = (0..2 * count).map(|i| tiers::key(i % count)).collect();
        let once = tiers::random_keys(count);
        let random_keys: Vec<Vec<u8>> = once.iter().chain(&once).cloned().collect();
        Runs {
            slices: views(&keys),
            random: views(&random_keys),
            keys,
            random_keys,
            count,
        }
    }

    /// `n` keys of the harness' random order from its `at`-th (wrapping).
    pub fn random(&self, at: usize, n: usize) -> &[CSlice] {
        let half = self.random_keys.len() / 2;
        assert!(n <= half, "a run longer than the keys");
        &self.random[at % half..][..n]
    }

    /// The index of `key` (`tiers::key`'s `key-NNNNNN`).
    fn start(&self, key: &[u8]) -> usize {
        let index = key[4..]
            .iter()
            .fold(0usize, |n, &d| n * 10 + usize::from(d - b'0'));
        debug_assert!(index < self.count);
        index
    }

    pub fn keys(&self, key: &[u8], n: usize) -> &[Vec<u8>] {
        assert!(n <= self.count, "a run longer than the keys");
        let start = self.start(key);
        &self.keys[start..start + n]
    }

    pub fn slices(&self, key: &[u8], n: usize) -> &[CSlice] {
        assert!(n <= self.count, "a run longer than the keys");
        let start = self.start(key);
        &self.slices[start..start + n]
    }
}

/// How durable each write is, in each library's options: WAL on or off, synced or not.
pub struct Durability {
    ours: WriteOptions,
    peer: rocksdb::WriteOptions,
    /// Its `as_raw`, for the floor and the loop.
    raw: *mut ffi::rocksdb_writeoptions_t,
}

impl Durability {
    pub fn new(wal: bool, sync: bool) -> Self {
        let mut ours = WriteOptions::new();
        ours.disable_wal(!wal);
        ours.sync(sync);
        let mut peer = rocksdb::WriteOptions::default();
        peer.disable_wal(!wal);
        peer.set_sync(sync);
        // The C++ object lives on the heap, where moving `ours` does not move it.
        let raw = ours.as_raw();
        Durability { ours, peer, raw }
    }
}

/// The peer's database of a kind.
enum PeerDb {
    Plain(rocksdb::DB),
    Txn(rocksdb::TransactionDB),
    Occ(rocksdb::OptimisticTransactionDB),
}

/// Each side's database for one kind, and their directories (removed on drop, after them).
pub struct Dbs {
    ours: Db,
    peer: PeerDb,
    floor: Db,
    looped: Db,
    _dirs: Vec<tempfile::TempDir>,
}

/// A merge that keeps the newest operand: as cheap as a merge can be, alike on both sides.
fn keep_last(
    input: pinrocks::callbacks::MergeInput<'_>,
    out: &mut pinrocks::callbacks::MergeOutput<'_>,
) -> Result<(), pinrocks::callbacks::MergeError> {
    match input.operands.len() {
        0 => out.use_existing(),
        n => out.use_operand(n - 1),
    }
}

fn peer_keep_last(
    _key: &[u8],
    existing: Option<&[u8]>,
    operands: &rocksdb::MergeOperands,
) -> Option<Vec<u8>> {
    operands.into_iter().last().or(existing).map(<[u8]>::to_vec)
}

/// Both libraries' options: the sweep's, with 64 MiB write buffers (flushes and compactions
/// run during a run, alike for every way) and the keep-last merge.
fn options() -> (pinrocks::Options, rocksdb::Options) {
    let mut ours = tiers::pinrocks_options();
    ours.write_buffer_size(64 << 20);
    ours.merge_operator(&MergeOperator::new("keep_last", keep_last));
    let mut peer = tiers::peer_options();
    peer.set_write_buffer_size(64 << 20);
    peer.set_merge_operator_associative("keep_last", peer_keep_last);
    (ours, peer)
}

impl Dbs {
    /// Fresh databases for `kind` in new directories under `parent` (a transaction kind's
    /// pinrocks and peer databases are transaction databases of that kind).
    pub fn open(kind: Kind, parent: &Path) -> Dbs {
        let dirs: Vec<tempfile::TempDir> = (0..4)
            .map(|_| tempfile::tempdir_in(parent).unwrap())
            .collect();
        let (ours_options, peer_options) = options();
        let plain = |i: usize| Db::open(&ours_options, dirs[i].path()).unwrap();
        let (ours, peer) = match kind {
            Kind::Txn {
                optimistic: false, ..
            } => (
                Db::open_transaction_db(
                    &ours_options,
                    &TransactionDbOptions::new(),
                    dirs[0].path(),
                    [],
                )
                .unwrap(),
                PeerDb::Txn(
                    rocksdb::TransactionDB::open(
                        &peer_options,
                        &rocksdb::TransactionDBOptions::default(),
                        dirs[1].path(),
                    )
                    .unwrap(),
                ),
            ),
            Kind::Txn {
                optimistic: true, ..
            } => (
                Db::open_optimistic_transaction_db(&ours_options, dirs[0].path(), []).unwrap(),
                PeerDb::Occ(
                    rocksdb::OptimisticTransactionDB::open(&peer_options, dirs[1].path()).unwrap(),
                ),
            ),
            _ => (
                plain(0),
                PeerDb::Plain(rocksdb::DB::open(&peer_options, dirs[1].path()).unwrap()),
            ),
        };
        let (floor, looped) = (plain(2), plain(3));
        Dbs {
            ours,
            peer,
            floor,
            looped,
            _dirs: dirs,
        }
    }
}

/// `side`'s way of writing `kind` with `value`, the durability of `d`, from runs of `runs`.
pub fn way<'a>(
    kind: Kind,
    side: Side,
    dbs: &'a Dbs,
    d: &'a Durability,
    value: &'a [u8],
    runs: &'a Runs,
) -> Way<'a> {
    assert!(kind.has(side), "{kind:?} has no {side:?} way");
    match side {
        Side::Ours => ours(kind, &dbs.ours, &d.ours, value, runs),
        Side::Peer => peer(kind, &dbs.peer, &d.peer, value, runs),
        Side::Floor => floor(kind, &dbs.floor, d.raw, value, runs),
        Side::Loop => looped(kind, &dbs.looped, d.raw, value, runs),
    }
}

fn ours<'a>(
    kind: Kind,
    db: &'a Db,
    options: &'a WriteOptions,
    value: &'a [u8],
    runs: &'a Runs,
) -> Way<'a> {
    let mut w = db.writer().options(options);
    match kind {
        Kind::Put => Box::new(move |k| {
            w.put(k, value).unwrap();
            1
        }),
        Kind::Delete => Box::new(move |k| {
            w.delete(k).unwrap();
            1
        }),
        Kind::Merge => Box::new(move |k| {
            w.merge(k, value).unwrap();
            1
        }),
        Kind::Entity => Box::new(move |k| {
            w.put_entity(k, &[("", value)]).unwrap();
            1
        }),
        Kind::Batch(record, n) => {
            let mut batch = WriteBatch::new();
            Box::new(move |k| {
                batch.clear();
                for key in runs.keys(k, n) {
                    let mut w = batch.writer();
                    match record {
                        Record::Put => w.put(key, value),
                        Record::Delete => w.delete(key),
                        Record::Merge => w.merge(key, value),
                    }
                    .unwrap();
                }
                w.write(&batch).unwrap();
                n as u64
            })
        }
        Kind::Indexed(n) => {
            // `write_with` clears it.
            let mut batch = db.indexed_batch().unwrap();
            Box::new(move |k| {
                for key in runs.keys(k, n) {
                    batch.writer().put(key, value).unwrap();
                }
                batch.write_with(options).unwrap();
                n as u64
            })
        }
        Kind::Txn { optimistic, puts } => {
            let (pessimistic, occ) = (
                TransactionOptions::new(),
                OptimisticTransactionOptions::new(),
            );
            Box::new(move |k| {
                let mut txn = if optimistic {
                    db.optimistic_transaction(options, &occ)
                } else {
                    db.transaction(options, &pessimistic)
                }
                .unwrap();
                for key in runs.keys(k, puts) {
                    txn.writer().put(key, value).unwrap();
                }
                txn.commit().unwrap();
                puts as u64
            })
        }
    }
}

fn peer<'a>(
    kind: Kind,
    db: &'a PeerDb,
    options: &'a rocksdb::WriteOptions,
    value: &'a [u8],
    runs: &'a Runs,
) -> Way<'a> {
    match (kind, db) {
        (Kind::Put, PeerDb::Plain(db)) => Box::new(move |k| {
            db.put_opt(k, value, options).unwrap();
            1
        }),
        (Kind::Delete, PeerDb::Plain(db)) => Box::new(move |k| {
            db.delete_opt(k, options).unwrap();
            1
        }),
        (Kind::Merge, PeerDb::Plain(db)) => Box::new(move |k| {
            db.merge_opt(k, value, options).unwrap();
            1
        }),
        // Its `write_opt` takes the batch by value: a new one per write.
        (Kind::Batch(record, n), PeerDb::Plain(db)) => Box::new(move |k| {
            let mut batch = rocksdb::WriteBatch::default();
            for key in runs.keys(k, n) {
                match record {
                    Record::Put => batch.put(key, value),
                    Record::Delete => batch.delete(key),
                    Record::Merge => batch.merge(key, value),
                }
            }
            db.write_opt(batch, options).unwrap();
            n as u64
        }),
        (Kind::Txn { puts, .. }, PeerDb::Txn(db)) => {
            let txn_options = rocksdb::TransactionOptions::default();
            Box::new(move |k| {
                peer_commit(
                    db.transaction_opt(options, &txn_options),
                    runs.keys(k, puts),
                    value,
                )
            })
        }
        (Kind::Txn { puts, .. }, PeerDb::Occ(db)) => {
            let txn_options = rocksdb::OptimisticTransactionOptions::default();
            Box::new(move |k| {
                peer_commit(
                    db.transaction_opt(options, &txn_options),
                    runs.keys(k, puts),
                    value,
                )
            })
        }
        (kind, _) => panic!("no peer way for {kind:?}"),
    }
}

/// Puts `keys` in the peer's transaction `txn` (of either kind of database) and commits it.
fn peer_commit<D>(txn: rocksdb::Transaction<'_, D>, keys: &[Vec<u8>], value: &[u8]) -> u64 {
    for key in keys {
        txn.put(key, value).unwrap();
    }
    txn.commit().unwrap();
    keys.len() as u64
}

/// `sweep per-read write_<kind>_<side> <size> <reads>`: `reads` writes (a multiple of the
/// way's writes per call) of `size`-byte values, for valgrind's per-write counts: each
/// counts as its value's length, as a read does.
pub fn per_write(name: &str, dir: &Path, size: usize, reads: usize) -> u64 {
    let (kind_path, side_path) = name
        .strip_prefix("write_")
        .and_then(|rest| rest.rsplit_once('_'))
        .unwrap_or_else(|| panic!("no write path {name}"));
    let kind = Kind::all(size, tiers::key_count(size))
        .into_iter()
        .find(|kind| kind.path() == kind_path)
        .unwrap_or_else(|| panic!("no write kind {kind_path} at {size} B"));
    let side = SIDES
        .into_iter()
        .find(|side| side.path() == side_path)
        .unwrap_or_else(|| panic!("no side {side_path}"));
    let per_call = kind.ops_of(side);
    assert_eq!(
        reads % per_call,
        0,
        "{reads} writes are not whole calls of {per_call}"
    );
    let runs = Runs::new(tiers::key_count(size));
    let dbs = Dbs::open(kind, dir);
    let durability = Durability::new(true, false);
    let value = tiers::value(3, size);
    let mut write = way(kind, side, &dbs, &durability, &value, &runs);
    // The harness' random order, as timed: single writes as scattered as the C++ loop's.
    let keys = tiers::random_keys(runs.count);
    // The warm-up call counts as one write (as a warm-up read does), the others as theirs.
    crate::callgrind::counted(reads / per_call, |i| {
        let written = write(&keys[(i * per_call) % keys.len()]);
        (if i == 0 { 1 } else { written }) * size as u64
    })
}

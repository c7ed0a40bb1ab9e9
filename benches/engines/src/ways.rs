//! Each engine opened, loaded with `key(0..count)` and settled so that every value is in
//! memory, and the ways of reading it. The settings, and why, are in
//! docs/reports/engines-2026-12-03-epyc.md.

use std::path::Path;

use heed::types::Bytes;
use heed::{CommitOrAbort, Env, RoTxn, WithTls};

use crate::base::CACHE_BYTES;
use crate::data::{key, value, Consumer};

/// One way of reading a value, for the timing loop (`paired::run_ways`).
pub trait Way {
    /// Before each timed slice (the LMDB way with a transaction per slice opens it here).
    fn begin(&mut self) {}
    /// One point read of `key`: what `consumer` computes from its value.
    fn read(&mut self, key: &[u8], consumer: Consumer) -> u64;
    /// After each timed slice.
    fn end(&mut self) {}
    /// The value's bytes, copied (outside the slices): every way must read the same.
    fn copy(&mut self, key: &[u8]) -> Vec<u8>;
}

/// pinrocks' closure-pinned read: the closure sees the bytes where RocksDB holds them.
pub struct PinrocksPinned<'a>(pub pinrocks::Reader<'a>);

impl Way for PinrocksPinned<'_> {
    fn read(&mut self, key: &[u8], consumer: Consumer) -> u64 {
        self.0
            .get_pinned(key, |v| consumer.consume(v))
            .unwrap()
            .unwrap()
    }

    fn copy(&mut self, key: &[u8]) -> Vec<u8> {
        self.0.get_pinned(key, <[u8]>::to_vec).unwrap().unwrap()
    }
}

/// The `rocksdb` crate's `get_pinned`: a `DBPinnableSlice` over the block, freed on drop.
pub struct RocksdbPinned<'a>(pub &'a rocksdb::DB);

impl Way for RocksdbPinned<'_> {
    fn read(&mut self, key: &[u8], consumer: Consumer) -> u64 {
        consumer.consume(&self.0.get_pinned(key).unwrap().unwrap())
    }

    fn copy(&mut self, key: &[u8]) -> Vec<u8> {
        self.0.get_pinned(key).unwrap().unwrap().to_vec()
    }
}

/// heed with one read transaction per timed slice (a reader that serves many reads from one
/// snapshot): `get` returns a `&[u8]` into LMDB's memory map, valid while the transaction is.
pub struct HeedPerSlice<'a> {
    pub env: &'a Env,
    pub db: heed::Database<'a, Bytes, Bytes>,
    pub txn: Option<RoTxn<'a, WithTls>>,
}

impl Way for HeedPerSlice<'_> {
    fn begin(&mut self) {
        self.txn = Some(self.env.read_txn().unwrap());
    }

    fn read(&mut self, key: &[u8], consumer: Consumer) -> u64 {
        let txn = self.txn.as_ref().expect("begin opened the transaction");
        consumer.consume(self.db.get(txn, key).unwrap().unwrap())
    }

    fn end(&mut self) {
        self.txn = None;
    }

    fn copy(&mut self, key: &[u8]) -> Vec<u8> {
        let txn = self.env.read_txn().unwrap();
        self.db.get(&txn, key).unwrap().unwrap().to_vec()
    }
}

/// heed with a read transaction per read, as a service that opens one per request.
pub struct HeedPerRead<'a> {
    pub env: &'a Env,
    pub db: heed::Database<'a, Bytes, Bytes>,
}

impl Way for HeedPerRead<'_> {
    fn read(&mut self, key: &[u8], consumer: Consumer) -> u64 {
        let txn = self.env.read_txn().unwrap();
        consumer.consume(self.db.get(&txn, key).unwrap().unwrap())
    }

    fn copy(&mut self, key: &[u8]) -> Vec<u8> {
        let txn = self.env.read_txn().unwrap();
        self.db.get(&txn, key).unwrap().unwrap().to_vec()
    }
}

/// fjall's `Keyspace::get`: a `Slice` (byteview) that shares the cached block (or memtable
/// entry) by reference count; values of 20 bytes or less are copied into the `Slice` itself.
pub struct Fjall<'a>(pub &'a fjall::Keyspace);

impl Way for Fjall<'_> {
    fn read(&mut self, key: &[u8], consumer: Consumer) -> u64 {
        consumer.consume(&self.0.get(key).unwrap().unwrap())
    }

    fn copy(&mut self, key: &[u8]) -> Vec<u8> {
        self.0.get(key).unwrap().unwrap().to_vec()
    }
}

/// pinrocks loaded, flushed, compacted and read once (`tiers::settle_pinrocks`).
pub fn open_pinrocks(dir: &Path, size: usize, count: usize) -> pinrocks::Db {
    open_pinrocks_with(&crate::base::base_pinrocks_options(), dir, size, count)
}

/// `open_pinrocks` with `options` (the hot-read profile's: the settling read also puts
/// every row in its row cache).
pub fn open_pinrocks_with(
    options: &pinrocks::Options,
    dir: &Path,
    size: usize,
    count: usize,
) -> pinrocks::Db {
    let db = pinrocks::Db::open(options, dir).unwrap();
    for i in 0..count {
        db.put(&key(i), &value(i, size)).unwrap();
    }
    db.flush().unwrap();
    db.compact_range(None, None).unwrap();
    for i in 0..count {
        db.get_pinned(&key(i), |_| ()).unwrap().unwrap();
    }
    db
}

/// The `rocksdb` crate's database, the same way (`tiers::settle_peer`).
pub fn open_rocksdb(dir: &Path, size: usize, count: usize) -> rocksdb::DB {
    open_rocksdb_with(&crate::base::base_peer_options(), dir, size, count)
}

/// `open_rocksdb` with `options`.
pub fn open_rocksdb_with(
    options: &rocksdb::Options,
    dir: &Path,
    size: usize,
    count: usize,
) -> rocksdb::DB {
    let db = rocksdb::DB::open(options, dir).unwrap();
    for i in 0..count {
        db.put(key(i), value(i, size)).unwrap();
    }
    db.flush().unwrap();
    db.compact_range(None::<&[u8]>, None::<&[u8]>);
    for i in 0..count {
        db.get_pinned(key(i)).unwrap().unwrap();
    }
    db
}

/// An LMDB environment with heed's defaults (read transactions tied to the thread, "often
/// faster" say heed's docs; no unsafe flags) and a map twice the data plus 64 MiB.
pub fn open_lmdb(dir: &Path, size: usize, count: usize) -> Env {
    let map = (2 * size * count + (64 << 20)).next_multiple_of(1 << 16);
    // SAFETY: `dir` is a fresh temporary directory that only this environment maps; nothing
    // in or out of this process writes its files behind LMDB's back.
    unsafe { heed::EnvOpenOptions::new().map_size(map).open(dir) }.unwrap()
}

/// The unnamed database of `env`, loaded in write transactions of 256 puts, then every key
/// read once so that every page is in the OS page cache.
pub fn load_lmdb(env: &Env, size: usize, count: usize) -> heed::Database<'_, Bytes, Bytes> {
    let db = env
        .create_databases_and_commit(env.write_txn().unwrap(), |opener, txn| {
            opener
                .create_database::<Bytes, Bytes>(txn, None)
                .map(CommitOrAbort::<_, ()>::Commit)
        })
        .unwrap()
        .unwrap_commit();
    for start in (0..count).step_by(256) {
        let mut txn = env.write_txn().unwrap();
        for i in start..(start + 256).min(count) {
            db.put(&mut txn, &key(i), &value(i, size)).unwrap();
        }
        txn.commit().unwrap();
    }
    let txn = env.read_txn().unwrap();
    for i in 0..count {
        std::hint::black_box(db.get(&txn, &key(i)).unwrap().unwrap().iter().sum::<u8>());
    }
    db
}

/// fjall with a 1 GiB block cache (its docs: "~20-25% of the available memory - or more if
/// the data set fully fits into memory") and `expect_point_read_hits` (its docs: for reads
/// that find their key; no filter on the last level), defaults otherwise: 4 KiB blocks, LZ4
/// on the last levels, no key-value separation. Flushed and compacted into the last level,
/// then read until its cache stops growing. Returns the passes that took.
pub fn open_fjall(
    dir: &Path,
    size: usize,
    count: usize,
) -> (fjall::Database, fjall::Keyspace, usize) {
    let db = fjall::Database::builder(dir)
        .cache_size(CACHE_BYTES as u64)
        .open()
        .unwrap();
    let keyspace = db
        .keyspace("values", || {
            fjall::KeyspaceCreateOptions::default().expect_point_read_hits(true)
        })
        .unwrap();
    for i in 0..count {
        keyspace.insert(key(i), value(i, size)).unwrap();
    }
    // fjall 3.1 has no public flush or full compaction; these are the hidden ones its own
    // tests use, the counterparts of RocksDB's flush and compact_range above.
    keyspace.rotate_memtable_and_wait().unwrap();
    keyspace.major_compact().unwrap();
    // Its cache (quick_cache, CLOCK-Pro) admits a block as cold and keeps it once read again:
    // read every key until the cache holds as much after a pass as before it.
    let mut held = u64::MAX;
    for pass in 1..=10 {
        for i in 0..count {
            keyspace.get(key(i)).unwrap().unwrap();
        }
        if db.cache_size() == held {
            return (db, keyspace, pass);
        }
        held = db.cache_size();
    }
    panic!("fjall's cache still changing after 10 passes");
}

/// fjall with every value still in its memtable (1 GiB allowed; no flush): the same reads
/// without a block in the way.
pub fn open_fjall_memtable(
    dir: &Path,
    size: usize,
    count: usize,
) -> (fjall::Database, fjall::Keyspace) {
    let db = fjall::Database::builder(dir)
        .cache_size(CACHE_BYTES as u64)
        .open()
        .unwrap();
    let keyspace = db
        .keyspace("values", || {
            fjall::KeyspaceCreateOptions::default().max_memtable_size(1 << 30)
        })
        .unwrap();
    for i in 0..count {
        keyspace.insert(key(i), value(i, size)).unwrap();
    }
    assert_eq!(keyspace.table_count(), 0, "fjall flushed the memtable");
    (db, keyspace)
}

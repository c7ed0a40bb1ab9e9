//! The read tiers as the sweep measures them, shared by the timing run (`main.rs`) and the
//! per-read counts under valgrind (`per_read.rs`), so both measure exactly the same code.
//! [`Tier`] is the one list of tiers: the scripts ask the binary for it (`sweep tiers`).

use std::ffi::{c_char, c_void};

use pinrocks::{ffi, CopyResult, Db, Options};

/// A way to read one value. `Raw*` call the C functions with no safe layer (the floor);
/// `Rocksdb*` are the `rocksdb` crate 0.25 on the same RocksDB build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tier {
    Vec,
    Buffer,
    Pinned,
    PinnedV2,
    Bytes,
    RawPinned,
    RawGet,
    RocksdbGet,
    RocksdbGetPinned,
}

impl Tier {
    /// Every tier, in report order.
    pub const ALL: [Tier; 9] = [
        Tier::Vec,
        Tier::Buffer,
        Tier::Pinned,
        Tier::PinnedV2,
        Tier::Bytes,
        Tier::RawPinned,
        Tier::RawGet,
        Tier::RocksdbGet,
        Tier::RocksdbGetPinned,
    ];

    /// The name in reports, criterion's cells and the scripts.
    pub const fn name(self) -> &'static str {
        match self {
            Tier::Vec => "vec",
            Tier::Buffer => "buffer",
            Tier::Pinned => "pinned",
            Tier::PinnedV2 => "pinned_v2",
            Tier::Bytes => "bytes",
            Tier::RawPinned => "raw_pinned",
            Tier::RawGet => "raw_get",
            Tier::RocksdbGet => "rocksdb_get",
            Tier::RocksdbGetPinned => "rocksdb_get_pinned",
        }
    }

    pub fn from_name(name: &str) -> Option<Tier> {
        Tier::ALL.into_iter().find(|t| t.name() == name)
    }

    /// Whether the tier reads through the `rocksdb` crate.
    pub fn is_peer(self) -> bool {
        matches!(self, Tier::RocksdbGet | Tier::RocksdbGetPinned)
    }
}

/// Every tier's name, in report order.
pub const TIER_NAMES: [&str; Tier::ALL.len()] = {
    let mut names = [""; Tier::ALL.len()];
    let mut i = 0;
    while i < names.len() {
        names[i] = Tier::ALL[i].name();
        i += 1;
    }
    names
};

/// Where the values are when read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Regime {
    /// Written and never flushed: every read is a memtable hit.
    Memtable,
    /// Flushed and compacted, read once to warm a block cache that holds them all.
    BlockCache,
}

impl Regime {
    pub const ALL: [Regime; 2] = [Regime::Memtable, Regime::BlockCache];

    pub fn name(self) -> &'static str {
        match self {
            Regime::Memtable => "memtable",
            Regime::BlockCache => "block_cache",
        }
    }
}

/// What the reader does with the bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Consumer {
    /// Reads only the length: the best case for zero-copy.
    Len,
    /// Reads every byte (a sum), as a consumer that parses the whole value must.
    Checksum,
}

impl Consumer {
    pub const ALL: [Consumer; 2] = [Consumer::Len, Consumer::Checksum];

    pub fn name(self) -> &'static str {
        match self {
            Consumer::Len => "len",
            Consumer::Checksum => "checksum",
        }
    }

    #[inline]
    pub fn consume(self, value: &[u8]) -> u64 {
        match self {
            Consumer::Len => value.len() as u64,
            Consumer::Checksum => value
                .iter()
                .fold(0u64, |sum, &b| sum.wrapping_add(b as u64)),
        }
    }
}

pub use crate::base::{key, key_count, random_keys, value, CACHE_BYTES};

/// The sweep's options for pinrocks: one big block cache in one shard, one big memtable;
/// then the user's own options, if any (`config.rs`).
pub fn pinrocks_options() -> Options {
    let mut options = crate::base::base_pinrocks_options();
    let user = user_options();
    if !user.is_empty() {
        options
            .set_from_string(user)
            .unwrap_or_else(|e| panic!("your options ({user}): {e}"));
    }
    options
}

/// The user's options as one RocksDB option string: `--options-file`'s, then `--options`
/// (`cli.rs`, `config.rs`); read once.
pub fn user_options() -> &'static str {
    static USER: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    USER.get_or_init(|| {
        let settings = crate::cli::settings();
        let mut parts = Vec::new();
        if let Some(path) = &settings.options_file {
            let text = std::fs::read_to_string(path)
                .unwrap_or_else(|e| panic!("--options-file {}: {e}", path.display()));
            parts.push(crate::config::options_string_from_file(&text));
        }
        parts.extend(settings.options.clone());
        parts.retain(|p| !p.is_empty());
        parts.join(";")
    })
}

/// The same options for the `rocksdb` crate.
pub fn peer_options() -> rocksdb::Options {
    let mut options = crate::base::base_peer_options();
    let user = user_options();
    if user.is_empty() {
        return options;
    }
    options
        .get_options_from_string(user)
        .unwrap_or_else(|e| panic!("your options ({user}), for the rocksdb crate: {e}"))
}

/// `pinrocks_options` and `peer_options` with no block cache: every read takes its block
/// from the OS page cache (or, with `use_direct_reads`, from the device).
pub fn uncached_options() -> (Options, rocksdb::Options) {
    let mut table = pinrocks::options::BlockBasedOptions::new();
    table.no_block_cache(true);
    let mut options = pinrocks_options();
    options.block_based_table(&table);
    let mut peer_options = peer_options();
    let mut peer_table = rocksdb::BlockBasedOptions::default();
    peer_table.disable_cache();
    peer_options.set_block_based_table_factory(&peer_table);
    (options, peer_options)
}

/// A pinrocks database in `dir` holding `count` values (keys `key(0..count)`) of `size`
/// bytes in the given regime.
pub fn open_pinrocks(dir: &std::path::Path, regime: Regime, size: usize, count: usize) -> Db {
    let db = Db::open(&pinrocks_options(), dir).unwrap();
    for i in 0..count {
        db.put(&key(i), &value(i, size)).unwrap();
    }
    if regime == Regime::BlockCache {
        settle_pinrocks(&db, count);
    }
    db
}

/// Writes `key(0..count)` with `size`-byte values into `db` and settles it (below).
pub fn fill_pinrocks(db: &Db, size: usize, count: usize) {
    for i in 0..count {
        db.put(&key(i), &value(i, size)).unwrap();
    }
    settle_pinrocks(db, count);
}

/// `fill_pinrocks` for the `rocksdb` crate.
pub fn fill_peer(db: &rocksdb::DB, size: usize, count: usize) {
    for i in 0..count {
        db.put(key(i), value(i, size)).unwrap();
    }
    settle_peer(db, count);
}

/// Flushes and compacts, then reads every key once so the block cache holds them all.
pub fn settle_pinrocks(db: &Db, count: usize) {
    db.flush().unwrap();
    db.compact_range(None, None).unwrap();
    for i in 0..count {
        db.get_pinned(&key(i), |_| ()).unwrap().unwrap();
    }
}

/// The same for the `rocksdb` crate, configured the same way.
pub fn open_peer(dir: &std::path::Path, regime: Regime, size: usize, count: usize) -> rocksdb::DB {
    let db = rocksdb::DB::open(&peer_options(), dir).unwrap();
    for i in 0..count {
        db.put(key(i), value(i, size)).unwrap();
    }
    if regime == Regime::BlockCache {
        settle_peer(&db, count);
    }
    db
}

/// `settle_pinrocks` for the `rocksdb` crate.
pub fn settle_peer(db: &rocksdb::DB, count: usize) {
    db.flush().unwrap();
    db.compact_range(None::<&[u8]>, None::<&[u8]>);
    for i in 0..count {
        db.get_pinned(key(i)).unwrap().unwrap();
    }
}

/// One read through a tier: `key` in, the consumer's result out.
pub type ReadFn<'a> = Box<dyn FnMut(&[u8]) -> u64 + 'a>;

/// `tier` over a pinrocks database (every tier but the peer's).
pub fn pinrocks_tier<'a>(db: &'a Db, tier: Tier, size: usize, consumer: Consumer) -> ReadFn<'a> {
    let reader = db.reader();
    let (raw_db, raw_options) = db.as_raw();
    match tier {
        Tier::Vec => Box::new(move |k| consumer.consume(&reader.get(k).unwrap().unwrap())),
        Tier::Buffer => {
            let mut buf = vec![0u8; size];
            Box::new(move |k| match reader.get_into(k, &mut buf).unwrap() {
                CopyResult::Copied(n) => consumer.consume(&buf[..n]),
                other => panic!("{other:?}"),
            })
        }
        Tier::Pinned => Box::new(move |k| {
            reader
                .get_pinned(k, |v| consumer.consume(v))
                .unwrap()
                .unwrap()
        }),
        Tier::PinnedV2 => Box::new(move |k| {
            reader
                .pin(k)
                .unwrap()
                .map(|guard| consumer.consume(&guard))
                .unwrap()
        }),
        Tier::Bytes => Box::new(move |k| consumer.consume(&reader.get_bytes(k).unwrap().unwrap())),
        Tier::RawPinned => Box::new(move |k| raw_pinned(raw_db, raw_options, k, consumer)),
        Tier::RawGet => Box::new(move |k| raw_get(raw_db, raw_options, k, consumer)),
        Tier::RocksdbGet | Tier::RocksdbGetPinned => panic!("{tier:?} reads the peer"),
    }
}

/// `tier` over the `rocksdb` crate.
pub fn peer_tier<'a>(db: &'a rocksdb::DB, tier: Tier, consumer: Consumer) -> ReadFn<'a> {
    match tier {
        Tier::RocksdbGet => Box::new(move |k| consumer.consume(&db.get(k).unwrap().unwrap())),
        Tier::RocksdbGetPinned => {
            Box::new(move |k| consumer.consume(&db.get_pinned(k).unwrap().unwrap()))
        }
        other => panic!("{other:?} is not a peer tier"),
    }
}

/// `peer_tier` with read options.
pub fn peer_tier_with<'a>(
    db: &'a rocksdb::DB,
    tier: Tier,
    consumer: Consumer,
    options: &'a rocksdb::ReadOptions,
) -> ReadFn<'a> {
    match tier {
        Tier::RocksdbGet => {
            Box::new(move |k| consumer.consume(&db.get_opt(k, options).unwrap().unwrap()))
        }
        Tier::RocksdbGetPinned => {
            Box::new(move |k| consumer.consume(&db.get_pinned_opt(k, options).unwrap().unwrap()))
        }
        other => panic!("{other:?} is not a peer tier"),
    }
}

struct RawContext {
    consumer: Consumer,
    result: u64,
}

extern "C" fn raw_callback(ctx: *mut c_void, data: *const c_char, len: usize) {
    // SAFETY: `ctx` is the `RawContext` passed by `raw_pinned`; `data[..len]` is pinned for
    // this call (and non-NULL: every value of the sweep is at least 8 bytes).
    unsafe {
        let ctx = &mut *ctx.cast::<RawContext>();
        ctx.result = ctx
            .consumer
            .consume(std::slice::from_raw_parts(data.cast(), len));
    }
}

/// The one-call C++ path with no safe layer: no trampoline, no panic catching, no
/// `Result`. The floor for the `pinned` tier.
fn raw_pinned(
    db: *mut ffi::rocksdb_t,
    options: *const ffi::rocksdb_readoptions_t,
    key: &[u8],
    consumer: Consumer,
) -> u64 {
    let mut ctx = RawContext {
        consumer,
        result: 0,
    };
    let mut err = std::ptr::null_mut();
    let mut code = 0;
    let source = ffi::pinrocks_read_source {
        db,
        options,
        column_family: std::ptr::null_mut(),
        transaction: std::ptr::null_mut(),
        batch: std::ptr::null_mut(),
        kind: ffi::PINROCKS_SOURCE_DB as i32,
        mode: ffi::PINROCKS_READ_PLAIN as i32,
    };
    // SAFETY: live handles from `Db::as_raw`; `key` and `ctx` are borrowed for the call.
    let found = unsafe {
        ffi::pinrocks_read_pinned(
            &source,
            key.as_ptr().cast(),
            key.len(),
            Some(raw_callback),
            (&mut ctx as *mut RawContext).cast(),
            &mut code,
            &mut err,
        )
    };
    assert!(found == 1 && err.is_null());
    ctx.result
}

/// The C API's `rocksdb_get`: RocksDB copies the value into a malloc'd buffer that the
/// caller frees. The floor for the `vec` tier and what most bindings' `get` does.
fn raw_get(
    db: *mut ffi::rocksdb_t,
    options: *const ffi::rocksdb_readoptions_t,
    key: &[u8],
    consumer: Consumer,
) -> u64 {
    let mut len = 0usize;
    let mut err = std::ptr::null_mut();
    // SAFETY: live handles; the returned buffer is read, then freed with rocksdb_free.
    unsafe {
        let value = ffi::rocksdb_get(
            db,
            options,
            key.as_ptr().cast(),
            key.len(),
            &mut len,
            &mut err,
        );
        assert!(!value.is_null() && err.is_null());
        let result = consumer.consume(std::slice::from_raw_parts(value.cast(), len));
        ffi::rocksdb_free(value.cast());
        result
    }
}

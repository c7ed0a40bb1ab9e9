//! Random operation sequences on a real database (its files in memory), checked after every
//! step against a `BTreeMap` through the Vec, buffer and pinned tiers and the iterator.
#![no_main]

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::OnceLock;

use kept::inputs_per_database;
use libfuzzer_sys::fuzz_target;
use pinrocks::callbacks::LogLevel;
use pinrocks::options::{Cache, MemEnv};
use pinrocks::{CopyResult, Db, Options, WriteBatch};

#[path = "kept.rs"]
mod kept;

fn key(b: u8) -> Vec<u8> {
    vec![b % 8]
}

/// Options for one input over `env`: one thread opens the table files (RocksDB's default of
/// 16 starts 15 threads at every open of a database with SST files: most of this target's
/// time before), one block cache shared by every input (each table factory would make its
/// own), and small memtable arenas (under AddressSanitizer a large allocation is an mmap, and
/// its free an munmap).
fn options(env: &MemEnv) -> Options {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let mut options = Options::new();
    options
        .create_if_missing(true)
        .mem_env(env)
        .block_cache(CACHE.get_or_init(|| Cache::lru(8 << 20)))
        .info_log_level(LogLevel::Warn);
    options
        .set_by_name(&[
            ("max_file_opening_threads", "1"),
            // Each open renames the last info log aside: keep none of those.
            ("keep_log_file_num", "1"),
            ("write_buffer_size", "262144"),
            ("arena_block_size", "16384"),
        ])
        .unwrap();
    options
}

const PATH: &str = "/pinrocks-fuzz/operations";

/// The database inputs share, on a file system in memory (no disk, no fsync), and how many
/// inputs it has run. An open costs more than most inputs' operations together (RocksDB
/// writes its OPTIONS file and parses it back), so inputs reuse the database: each starts
/// from an empty key space (one range delete), on files the inputs before it left. A crash
/// that needs those files may not repeat from its input alone (most of those inputs were
/// mutations libFuzzer did not keep); a crash that repeats with
/// `PINROCKS_FUZZ_INPUTS_PER_DATABASE=1` needs nothing but its input.
struct Shared {
    options: Options,
    db: Option<Db>,
    inputs: u32,
}

thread_local! {
    static SHARED: RefCell<Option<Shared>> = const { RefCell::new(None) };
}

fn fresh() -> Shared {
    let options = options(&MemEnv::new().unwrap()); // the options keep the env alive
    let db = Db::open(&options, PATH).unwrap();
    Shared {
        options,
        db: Some(db),
        inputs: 0,
    }
}

fuzz_target!(|data: &[u8]| {
    SHARED.with_borrow_mut(|shared| {
        let shared = match shared {
            Some(s) if s.inputs < inputs_per_database() => s,
            _ => {
                *shared = None; // closes the last database first
                shared.insert(fresh())
            }
        };
        shared.inputs += 1;
        run(shared, data);
    })
});

fn run(shared: &mut Shared, data: &[u8]) {
    let Shared {
        options, db: slot, ..
    } = shared;
    // Every key: they are one byte below 8.
    slot.as_ref().unwrap().delete_range(&key(0), &[8]).unwrap();
    let mut model: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
    let mut reopens = 0;
    for chunk in data.chunks(4).take(64) {
        let [op, a, b, len] = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
            *chunk.get(3).unwrap_or(&0),
        ];
        let value = vec![a ^ b; len as usize * 7];
        // Cheap operations most of the time: a reopen (RocksDB's OPTIONS file written,
        // synced and parsed back, a block cache built for the parse and unmapped) is byte
        // 255, three times an input at most, so that a recovery of recovered state is still
        // checked (libFuzzer's mutations favour 0xFF: a reopen every few operations was over
        // half of this target's time when it was one code in 64), a flush or compaction (a
        // file written, a MANIFEST edit) seven codes in 64.
        if op == 255 && reopens < 3 {
            reopens += 1;
            *slot = None; // closed before the reopen
            *slot = Some(Db::open(options, PATH).unwrap());
        }
        let db = slot.as_ref().unwrap();
        match op % 64 {
            0..=19 => {
                db.put(&key(a), &value).unwrap();
                model.insert(key(a), value);
            }
            20..=31 => {
                db.delete(&key(a)).unwrap();
                model.remove(&key(a));
            }
            32..=39 => {
                let (from, to) = (key(a), key(b));
                match db.delete_range(&from, &to) {
                    Ok(()) => model.retain(|k, _| !(&from <= k && k < &to)),
                    Err(_) => assert!(from > to, "a valid range was refused"),
                }
            }
            40..=55 => {
                let mut batch = WriteBatch::new();
                batch.writer().put(&key(a), &value).unwrap();
                batch.writer().delete(&key(b)).unwrap();
                db.write(&batch).unwrap();
                model.insert(key(a), value);
                model.remove(&key(b));
            }
            56..=59 => db.flush().unwrap(),
            60..=62 => db.compact_range(None, None).unwrap(),
            _ => {} // 63: a reopen above (255), or nothing
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
}

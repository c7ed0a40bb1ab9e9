//! Writers across cores (issue 49): N threads putting at once, for each thread count of
//! `--threads` (default 1 and 2), under each of RocksDB's write-group settings, and readers
//! beside one writer.
//!
//! * **Writers**: single puts, WAL on (no sync), each setting its own database, paired
//!   across settings (`paired::run_threads`): pinrocks with RocksDB's defaults (memtable
//!   writes of a group made concurrently), `enable_pipelined_write`, and
//!   `allow_concurrent_memtable_write` off; the `rocksdb` crate with the defaults, and with
//!   `unordered_write`, which pinrocks refuses (snapshots stop being immutable: its option
//!   table says why), to show what that refusal costs.
//! * **Readers beside a writer**: N threads reading pinned from an LRU block cache in
//!   RocksDB's default shards (`concurrent.rs`' `lru` setup) alone, and
//!   the same N with one more thread putting meanwhile (to the same keys), paired: how much
//!   a writer slows the readers, and how many writes it makes.
//!
//! `sweep concurrent-writes OUT [--quick]` writes OUT/concurrent-writes.md.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Barrier;
use std::time::{Duration, Instant};

use pinrocks::{Db, WriteOptions};

use crate::paired::{self, Ratio};
use crate::tiers;

/// The writer setups, as the table names them.
const WRITER_SETUPS: [&str; 5] = [
    "pinrocks, defaults",
    "pinrocks, enable_pipelined_write",
    "pinrocks, allow_concurrent_memtable_write off",
    "rocksdb crate, defaults",
    "rocksdb crate, unordered_write",
];

const SIZES: [usize; 2] = [128, 4096];

/// The databases of the writer setups, in `WRITER_SETUPS`' order.
struct Writers {
    ours: Vec<Db>,
    peers: Vec<rocksdb::DB>,
    _dirs: Vec<tempfile::TempDir>,
}

fn writers() -> Writers {
    let dirs: Vec<tempfile::TempDir> = (0..WRITER_SETUPS.len())
        .map(|_| tempfile::tempdir().unwrap())
        .collect();
    let ours = (0..3)
        .map(|i| {
            let mut options = tiers::pinrocks_options();
            options.write_buffer_size(64 << 20);
            if i == 1 {
                options.enable_pipelined_write(true);
            } else if i == 2 {
                options
                    .set_from_string("allow_concurrent_memtable_write=false")
                    .unwrap();
            }
            Db::open(&options, dirs[i].path()).unwrap()
        })
        .collect();
    let peers = (3..5)
        .map(|i| {
            let mut options = tiers::peer_options();
            options.set_write_buffer_size(64 << 20);
            options.set_unordered_write(i == 4);
            rocksdb::DB::open(&options, dirs[i].path()).unwrap()
        })
        .collect();
    Writers {
        ours,
        peers,
        _dirs: dirs,
    }
}

/// Each thread count's writer cells at `size`: one table row per setup.
fn writer_rows(out: &mut String, size: usize, keys: &[Vec<u8>], rounds: usize, slice: Duration) {
    let value = tiers::value(5, size);
    for threads in crate::concurrent::thread_counts() {
        let dbs = writers();
        let options = WriteOptions::new();
        let ns = paired::run_threads(
            WRITER_SETUPS.len(),
            threads,
            |setup| -> crate::write_ways::Way<'_> {
                let value = &value;
                if setup < 3 {
                    let mut w = dbs.ours[setup].writer().options(&options);
                    Box::new(move |k| {
                        w.put(k, value).unwrap();
                        1
                    })
                } else {
                    let db = &dbs.peers[setup - 3];
                    Box::new(move |k| {
                        db.put(k, value).unwrap();
                        1
                    })
                }
            },
            keys,
            rounds,
            slice,
        );
        for (setup, name) in WRITER_SETUPS.iter().enumerate() {
            let median = paired::median(&mut ns[setup].clone());
            let vs = if setup == 0 {
                "–".to_string()
            } else {
                Ratio::of(&ns[0], &ns[setup]).cell()
            };
            out.push_str(&format!(
                "| {} | {threads} | {name} | {median:.0} ns | {:.2} M | {vs} |\n",
                crate::report::size_name(size),
                1e3 / median,
            ));
        }
    }
}

/// Reads per second of `readers` threads, each reading for `slice` from when all have
/// started (a barrier: a thread that starts late on a busy core does not lose its slice),
/// summed over the threads; with one more thread putting meanwhile when `writer` (its puts
/// per second the second value, else 0).
fn readers_and_writer(
    db: &Db,
    keys: &[Vec<u8>],
    value: &[u8],
    readers: usize,
    writer: bool,
    slice: Duration,
) -> (f64, f64) {
    let stop = AtomicBool::new(false);
    let ready = Barrier::new(readers + usize::from(writer));
    std::thread::scope(|scope| {
        let write = writer.then(|| {
            scope.spawn(|| {
                let mut w = db.writer();
                let (mut writes, mut next) = (0u64, 4099usize);
                ready.wait();
                let start = Instant::now();
                while !stop.load(Ordering::Relaxed) {
                    next = (next + 1) % keys.len();
                    w.put(&keys[next], value).unwrap();
                    writes += 1;
                }
                writes as f64 / start.elapsed().as_secs_f64()
            })
        });
        let handles: Vec<_> = (0..readers)
            .map(|t| {
                let ready = &ready;
                scope.spawn(move || {
                    let reader = db.reader();
                    let (mut reads, mut next, mut sum) = (0u64, t * 7919, 0u64);
                    ready.wait();
                    let start = Instant::now();
                    while start.elapsed() < slice {
                        for _ in 0..16 {
                            next = (next + 1) % keys.len();
                            sum += reader
                                .get_pinned(&keys[next], |v| v.len() as u64)
                                .unwrap()
                                .unwrap();
                        }
                        reads += 16;
                    }
                    std::hint::black_box(sum);
                    reads as f64 / start.elapsed().as_secs_f64()
                })
            })
            .collect();
        let reads: f64 = handles.into_iter().map(|h| h.join().unwrap()).sum();
        stop.store(true, Ordering::Relaxed);
        (reads, write.map_or(0.0, |h| h.join().unwrap()))
    })
}

/// Each thread count's readers, alone and beside a writer, paired (alternating which runs
/// first), at `size`.
fn reader_rows(out: &mut String, size: usize, keys: &[Vec<u8>], rounds: usize, slice: Duration) {
    let dir = tempfile::tempdir().unwrap();
    // The concurrent readers' LRU setup: RocksDB's default shards (the sweep's one shard
    // would make the readers queue on its lock).
    let db = Db::open(&crate::concurrent::options("lru").0, dir.path()).unwrap();
    tiers::fill_pinrocks(&db, size, tiers::key_count(size));
    let value = tiers::value(9, size);
    for readers in crate::concurrent::thread_counts() {
        let (mut alone, mut beside, mut writes) = (Vec::new(), Vec::new(), Vec::new());
        for round in 0..rounds.next_multiple_of(2) {
            for with_writer in [round % 2 == 1, round % 2 == 0] {
                let (r, w) = readers_and_writer(&db, keys, &value, readers, with_writer, slice);
                // As nanoseconds per read over all threads, for the paired ratio.
                if with_writer {
                    beside.push(1e9 / r);
                    writes.push(w);
                } else {
                    alone.push(1e9 / r);
                }
            }
        }
        let m = |xs: &[f64]| paired::median(&mut xs.to_vec());
        out.push_str(&format!(
            "| {} | {readers} | {:.2} M | {:.2} M | {} | {:.2} M |\n",
            crate::report::size_name(size),
            1e3 / m(&alone),
            1e3 / m(&beside),
            Ratio::of(&beside, &alone).cell(),
            m(&writes) / 1e6,
        ));
    }
}

/// `sweep concurrent-writes OUT [--quick]`.
pub fn section(out_dir: &Path, quick: bool) {
    let (sizes, rounds, slice) = if quick {
        (vec![128], 2, Duration::from_millis(1))
    } else {
        (SIZES.to_vec(), 24, Duration::from_millis(8))
    };
    let mut out = String::from(
        "#### Writers across cores: single puts, WAL on (no sync)\n\n\
         Each setting its own database, paired across settings; time per put over all \
         threads (a slice over the puts every thread made), and puts per second; \"vs \
         defaults\": how many times faster than pinrocks with RocksDB's defaults, median of \
         per-round ratios [95% interval] (halves). Thread counts measured apart.\n\n\
         | size | writers | setting | per put | puts/s | vs defaults |\n\
         |---|---:|---|---:|---:|---|\n",
    );
    let mut readers = String::from(
        "\n#### Readers beside a writer: pinned reads from the block cache\n\n\
         N reader threads alone, and the same N with one more thread putting to the same \
         keys, paired (alternating which runs first); \"alone vs beside\": how many times \
         faster the readers are without the writer.\n\n\
         | size | readers | reads/s alone | reads/s beside a writer | alone vs beside | the writer's puts/s |\n\
         |---|---:|---:|---:|---|---:|\n",
    );
    for size in crate::progress::steps("concurrent-writes", sizes.into_iter()) {
        let count = if quick { 64 } else { tiers::key_count(size) };
        let keys = tiers::random_keys(count);
        writer_rows(&mut out, size, &keys, rounds, slice);
        reader_rows(&mut readers, size, &keys, rounds, slice);
    }
    out.push_str(&readers);
    out.push_str(&format!(
        "\n{rounds} rounds of {} ms per setting; threads {:?}.\n",
        slice.as_millis(),
        crate::concurrent::thread_counts()
    ));
    std::fs::create_dir_all(out_dir).unwrap();
    std::fs::write(out_dir.join("concurrent-writes.md"), &out).unwrap();
    print!("{out}");
}

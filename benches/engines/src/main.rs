//! The engines a Rust user weighs instead of RocksDB (issue 27): one point read of a random
//! existing key, warm (every engine's data in memory), through pinrocks' pinned read, the
//! `rocksdb` crate's `get_pinned`, heed (LMDB) with a read transaction per slice and per
//! read, and fjall from its block cache and from its memtable. Every way of a (size,
//! consumer) cell is timed in the same rounds, interleaved, with the sweep's order and
//! statistics (`benches/sweep/paired.rs`); allocations per read are counted by a global
//! allocator (`alloc.rs`). A markdown report on stdout, progress on stderr;
//! `scripts/engines.sh` builds and runs it.
//!
//! `--quick`: 2 rounds of 1 ms, sizes 8 and 4096, 64 keys: proves it runs; its timings mean
//! nothing.

// The sweep's module, mounted as it is: this bench uses its timing loop (`run_ways`),
// statistics and footnote, not its other runners.
#[allow(dead_code)]
#[path = "../../sweep/paired.rs"]
mod paired;

#[path = "../../sweep/base.rs"]
mod base;

mod alloc;
mod data;
mod ways;

use std::hint::black_box;
use std::time::Duration;

use data::{key, key_count, random_keys, value, Consumer};
use paired::{median, Ratio};
use ways::Way;

#[global_allocator]
static ALLOCATOR: alloc::Counting = alloc::Counting;

/// The ways, in the order of `measure`'s list and of every table.
const WAYS: [&str; 8] = [
    "pinrocks pinned",
    "rocksdb get_pinned",
    "pinrocks pinned, hot profile",
    "rocksdb get_pinned, hot profile",
    "heed, txn per slice",
    "heed, txn per read",
    "fjall",
    "fjall, memtable",
];

/// Reads counted per way for the allocations per read.
const COUNTED_READS: usize = 1000;

struct Plan {
    sizes: Vec<usize>,
    rounds: usize,
    slice: Duration,
    quick: bool,
}

/// One value size: its databases' state after settling, and the measurements.
struct Measured {
    size: usize,
    count: usize,
    rocksdb_cache: u64,
    fjall_cache: u64,
    fjall_passes: usize,
    allocations: Vec<f64>,
    /// `ns[consumer][way][round]`, consumers in `Consumer::ALL` order.
    ns: Vec<Vec<Vec<f64>>>,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let quick = match args.as_slice() {
        [] => false,
        [flag] if flag == "--quick" => true,
        _ => {
            eprintln!("usage: pinrocks-engines [--quick]");
            std::process::exit(2);
        }
    };
    let plan = if quick {
        Plan {
            sizes: vec![8, 4096],
            rounds: 2,
            slice: Duration::from_millis(1),
            quick,
        }
    } else {
        Plan {
            sizes: vec![8, 128, 1024, 4096, 65536, 1 << 20],
            rounds: 30,
            slice: Duration::from_millis(5),
            quick,
        }
    };
    let measured: Vec<Measured> = plan.sizes.iter().map(|&s| measure(s, &plan)).collect();
    print!("{}", report(&plan, &measured));
}

/// Opens and settles every engine for `size`, checks that every way reads the same bytes,
/// counts allocations per read, then times every way for each consumer.
fn measure(size: usize, plan: &Plan) -> Measured {
    let count = if plan.quick {
        key_count(size).min(64)
    } else {
        key_count(size)
    };
    let keys = random_keys(count);
    eprintln!("{}: loading {count} values into each engine", label(size));
    // Declared first, so dropped last: after every engine that lives in them.
    let dirs: Vec<tempfile::TempDir> = (0..7).map(|_| tempfile::tempdir().unwrap()).collect();
    let pinrocks = ways::open_pinrocks(dirs[0].path(), size, count);
    let rocksdb = ways::open_rocksdb(dirs[1].path(), size, count);
    let (hot_ours, hot_peer) = base::hot_options(base::CACHE_BYTES);
    let hot_pinrocks = ways::open_pinrocks_with(&hot_ours, dirs[5].path(), size, count);
    let hot_rocksdb = ways::open_rocksdb_with(&hot_peer, dirs[6].path(), size, count);
    let env = ways::open_lmdb(dirs[2].path(), size, count);
    let lmdb = ways::load_lmdb(&env, size, count);
    let (fjall_db, keyspace, fjall_passes) = ways::open_fjall(dirs[3].path(), size, count);
    let (_memtable_db, memtable) = ways::open_fjall_memtable(dirs[4].path(), size, count);
    let rocksdb_cache = rocksdb
        .property_int_value("rocksdb.block-cache-usage")
        .unwrap()
        .unwrap_or(0);
    let fjall_cache = fjall_db.cache_size();
    let mut all: Vec<Box<dyn Way + '_>> = vec![
        Box::new(ways::PinrocksPinned(pinrocks.reader())),
        Box::new(ways::RocksdbPinned(&rocksdb)),
        Box::new(ways::PinrocksPinned(hot_pinrocks.reader())),
        Box::new(ways::RocksdbPinned(&hot_rocksdb)),
        Box::new(ways::HeedPerSlice {
            env: &env,
            db: lmdb,
            txn: None,
        }),
        Box::new(ways::HeedPerRead {
            env: &env,
            db: lmdb,
        }),
        Box::new(ways::Fjall(&keyspace)),
        Box::new(ways::Fjall(&memtable)),
    ];
    assert_eq!(all.len(), WAYS.len());
    for i in [0, 1, count / 3, count / 2, count - 1] {
        for (way, name) in all.iter_mut().zip(WAYS) {
            assert!(
                way.copy(&key(i)) == value(i, size),
                "{name} misread key {i}"
            );
        }
    }
    let allocations = all
        .iter_mut()
        .map(|way| allocations_per_read(way.as_mut(), &keys))
        .collect();
    // Values of 64 KiB and more take microseconds: look at the clock after every read.
    let per_check = if size >= 65536 { 1 } else { 16 };
    let ns = Consumer::ALL
        .iter()
        .map(|&consumer| {
            eprintln!("{}: timing, {}", label(size), consumer.name());
            let (rounds, checksum) = paired::run_ways(
                &mut all,
                &keys,
                plan.rounds,
                plan.slice,
                per_check,
                |way, starting| {
                    if starting {
                        way.begin()
                    } else {
                        way.end()
                    }
                },
                |way, key| way.read(key, consumer),
            );
            black_box(checksum);
            rounds.ns
        })
        .collect();
    Measured {
        size,
        count,
        rocksdb_cache,
        fjall_cache,
        fjall_passes,
        allocations,
        ns,
    }
}

/// Allocations through Rust's allocator per read, over `COUNTED_READS` reads after 64 not
/// counted; `begin` and `end` (one transaction for the LMDB way per slice) inside the count.
fn allocations_per_read(way: &mut dyn Way, keys: &[Vec<u8>]) -> f64 {
    let mut sum = 0u64;
    way.begin();
    for key in keys.iter().take(64) {
        sum = sum.wrapping_add(way.read(key, Consumer::LenByte));
    }
    way.end();
    let before = alloc::allocations();
    way.begin();
    for key in keys.iter().cycle().take(COUNTED_READS) {
        sum = sum.wrapping_add(way.read(key, Consumer::LenByte));
    }
    way.end();
    let counted = alloc::allocations() - before;
    black_box(sum);
    counted as f64 / COUNTED_READS as f64
}

fn label(size: usize) -> String {
    match size {
        s if s >= 1 << 20 && s % (1 << 20) == 0 => format!("{} MiB", s >> 20),
        s if s >= 1024 && s % 1024 == 0 => format!("{} KiB", s >> 10),
        s => format!("{s} B"),
    }
}

fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / f64::from(1 << 20))
}

fn nanos(ns: f64) -> String {
    if ns < 100.0 {
        format!("{ns:.1}")
    } else {
        format!("{ns:.0}")
    }
}

fn header(first: &str, columns: &[&str]) -> String {
    let mut out = format!("| {first} |");
    for c in columns {
        out += &format!(" {c} |");
    }
    out += "\n|---|";
    out += &"---|".repeat(columns.len());
    out + "\n"
}

/// The hot-read profile's pinned read (both libraries) against heed: heed's time over the
/// profile's, paired; below 1.00x heed is faster. Issue 46's goals: at or above 0.67x
/// against heed with a transaction per slice (within 1.5x), 1.00x against one per read.
fn hot_against_heed(measured: &[Measured], c: usize, consumer: &str) -> String {
    let index = |name: &str| WAYS.iter().position(|w| *w == name).unwrap();
    let (ours, peer) = (
        index("pinrocks pinned, hot profile"),
        index("rocksdb get_pinned, hot profile"),
    );
    let (slice, read) = (index("heed, txn per slice"), index("heed, txn per read"));
    let mut out = format!(
        "\n## The hot-read profile against heed, {consumer} (heed's time over the profile's)\n\n"
    );
    out += &header(
        "size",
        &[
            "pinrocks hot vs heed per slice",
            "pinrocks hot vs heed per read",
            "rocksdb hot vs heed per slice",
            "rocksdb hot vs heed per read",
            "pinrocks hot vs rocksdb hot",
        ],
    );
    for m in measured {
        let ns = &m.ns[c];
        out += &format!(
            "| {} | {} | {} | {} | {} | {} |\n",
            label(m.size),
            Ratio::of(&ns[slice], &ns[ours]).cell(),
            Ratio::of(&ns[read], &ns[ours]).cell(),
            Ratio::of(&ns[slice], &ns[peer]).cell(),
            Ratio::of(&ns[read], &ns[peer]).cell(),
            Ratio::of(&ns[peer], &ns[ours]).cell(),
        );
    }
    out
}

fn report(plan: &Plan, measured: &[Measured]) -> String {
    let mut out = String::from("# Engines: warm point reads\n\n");
    if plan.quick {
        out += "**Quick mode: 2 rounds of 1 ms, 64 keys; these timings mean nothing.**\n\n";
    }
    out += &format!("LMDB (through heed): {}.\n\n", heed::lmdb_version().string);
    out += "## Setup\n\nAfter loading and settling (`benches/engines/src/ways.rs`):\n\n";
    out += &header(
        "size",
        &[
            "keys",
            "values",
            "RocksDB block cache in use",
            "fjall cache in use",
            "fjall passes to settle",
        ],
    );
    for m in measured {
        out += &format!(
            "| {} | {} | {} | {} | {} | {} |\n",
            label(m.size),
            m.count,
            mib((m.size * m.count) as u64),
            mib(m.rocksdb_cache),
            mib(m.fjall_cache),
            m.fjall_passes
        );
    }
    let what = "a read: one point read of a random existing key, warm";
    for (c, consumer) in Consumer::ALL.iter().enumerate() {
        out += &format!(
            "\n## Nanoseconds per read, {} (median of rounds)\n\n",
            consumer.name()
        );
        out += &header("size", &WAYS);
        for m in measured {
            out += &format!("| {} |", label(m.size));
            for way in &m.ns[c] {
                out += &format!(" {} |", nanos(median(&mut way.clone())));
            }
            out += "\n";
        }
        out += &format!("\n## pinrocks pinned vs each, {}\n\n", consumer.name());
        let columns: Vec<String> = WAYS[1..].iter().map(|w| format!("vs {w}")).collect();
        let columns: Vec<&str> = columns.iter().map(String::as_str).collect();
        out += &header("size", &columns);
        for m in measured {
            out += &format!("| {} |", label(m.size));
            for way in &m.ns[c][1..] {
                out += &format!(" {} |", Ratio::of(way, &m.ns[c][0]).cell());
            }
            out += "\n";
        }
        out += &paired::footnote(plan.rounds, plan.slice, &WAYS, what);
        out += "Below 1.00x: that way is faster than pinrocks' pinned read.\n";
        out += &hot_against_heed(measured, c, consumer.name());
    }
    out += &format!(
        "\n## Allocations per read (Rust's allocator; {COUNTED_READS} reads, length + one \
         byte)\n\n"
    );
    out += &header("size", &WAYS);
    for m in measured {
        out += &format!("| {} |", label(m.size));
        for a in &m.allocations {
            out += &format!(" {a:.2} |");
        }
        out += "\n";
    }
    out += "\nCounted by a global allocator on the reading thread: RocksDB's C++ allocations \
            (pinrocks, the `rocksdb` crate) and LMDB's C ones are not seen; fjall is Rust, \
            all of it is.\n";
    out
}

//! The value-size sweep: every read tier of pinrocks, the `rocksdb` crate as the peer and
//! raw C calls as the floor, over value sizes, in two regimes (memtable and block cache)
//! and with two consumers (length only, every byte). `scripts/sweep.sh` runs it and
//! builds the report.
//!
//! One binary, the whole harness (`cargo bench --bench sweep` builds it):
//! * no subcommand: the criterion timing run (`cargo bench --bench sweep`);
//! * `per-read <tier> <size> <reads>`: reads for valgrind's per-read counts (`per_read.rs`);
//! * `report <criterion dir> <out dir> [machine]`: the report and plot (`report.rs`);
//! * `tiers`, `paths`, `blob-paths`: the tier names and the other read paths, one a line,
//!   for the scripts;
//! * `merge [--quick]`, `merge-per-read ...`: reads of keys with pending merge operands,
//!   ours and the `rocksdb` crate's, timed interleaved (`merge.rs`, `paired.rs`);
//! * `scans [--quick]`: iterator steps, forward and backward, through every way of
//!   iterating of both libraries, the C API and a C++ loop (`scans.rs`);
//! * `batches [--quick]`: multi-gets against single reads, both libraries, from the block
//!   cache and from the disk (`batches.rs`);
//! * `memtable [--quick]`: large values still in the memtable, through the pinned read
//!   (which copies them) and two routes that pin them in place (`memtable.rs`);
//! * `scale <out dir> [--quick | --long]`: reads against the size of the database, 10^4 to
//!   10^6 keys (10^7 with `--long`), built by SST ingest (`scale.rs`, `scale_build.rs`);
//! * `crc`: flush and cold-read speed under this build's CRC32c (`crc.rs`);
//! * `txn [--quick]`: reads inside a transaction, ours and the `rocksdb` crate's (`txn.rs`);
//! * `blobs [--quick]`: values in blob files, with a blob cache and without (`blobs.rs`);
//! * `watched [--quick]`: what an event listener and the info log cost (`watched.rs`).
//!
//! Environment: `PINROCKS_SIZES=8,4096` limits the sizes; `PINROCKS_QUICK=1` runs every
//! cell briefly (CI's smoke test; its timings mean nothing); your own options, sizes and
//! regimes: `config.rs`.

mod batches;
mod blobs;
mod config;
mod crc;
mod memtable;
mod merge;
mod paired;
mod per_read;
mod plot;
mod report;
mod run;
mod scale;
mod scale_build;
mod scans;
mod tiers;
mod txn;
mod watched;

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, Criterion};
use tiers::{Consumer, Regime, Tier, TIER_NAMES};

pub const DEFAULT_SIZES: [usize; 7] = [8, 16, 128, 1024, 4096, 65536, 1 << 20];

/// The value sizes to sweep: `PINROCKS_SIZES`, or the quantiles of `PINROCKS_SIZES_FILE`
/// (`config.rs`), or the default seven.
fn sizes() -> Vec<usize> {
    if let Ok(path) = std::env::var("PINROCKS_SIZES_FILE") {
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("PINROCKS_SIZES_FILE={path}: {e}"));
        return config::sizes_from_distribution(&text)
            .unwrap_or_else(|e| panic!("PINROCKS_SIZES_FILE={path}: {e}"));
    }
    std::env::var("PINROCKS_SIZES").map_or_else(
        |_| DEFAULT_SIZES.to_vec(),
        |list| {
            list.split(',')
                .map(|s| s.trim().parse().expect("a size in bytes"))
                .collect()
        },
    )
}

fn quick() -> bool {
    std::env::var("PINROCKS_QUICK").is_ok_and(|v| v == "1")
}

fn sweep(c: &mut Criterion) {
    for regime in Regime::ALL {
        for size in sizes() {
            let ours_dir = tempfile::tempdir().unwrap();
            let peer_dir = tempfile::tempdir().unwrap();
            // Quick mode only proves the harness: few keys, so populating stays short.
            let count = if quick() {
                tiers::key_count(size).min(64)
            } else {
                tiers::key_count(size)
            };
            let db = tiers::open_pinrocks(ours_dir.path(), regime, size, count);
            let peer = tiers::open_peer(peer_dir.path(), regime, size, count);
            let keys = tiers::random_keys(count);
            for consumer in Consumer::ALL {
                let mut group =
                    c.benchmark_group(format!("{}_{}_{size}", regime.name(), consumer.name()));
                for tier in Tier::ALL {
                    let mut read = if tier.is_peer() {
                        tiers::peer_tier(&peer, tier, consumer)
                    } else {
                        tiers::pinrocks_tier(&db, tier, size, consumer)
                    };
                    let mut next = 0usize;
                    group.bench_function(tier.name(), |b| {
                        b.iter(|| {
                            next = (next + 1) % keys.len();
                            black_box(read(black_box(&keys[next])))
                        })
                    });
                }
                group.finish();
            }
        }
    }
}

fn config() -> Criterion {
    let criterion = Criterion::default().without_plots();
    if quick() {
        criterion
            .warm_up_time(Duration::from_millis(20))
            .measurement_time(Duration::from_millis(50))
            .sample_size(10)
            .nresamples(1000)
    } else {
        criterion
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_millis(1500))
            .sample_size(30)
    }
}

criterion_group! {
    name = benches;
    config = config();
    targets = sweep
}
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("per-read") => per_read::main(&args[1..]),
        Some("run") => run::main(&args[1..]),
        Some("merge") => merge::main(&args[1..]),
        Some("scans") => scans::main(&args[1..]),
        Some("batches") => batches::main(&args[1..]),
        Some("memtable") => memtable::main(&args[1..]),
        Some("scale") => scale::main(&args[1..]),
        Some("crc") => crc::main(),
        Some("txn") => txn::main(&args[1..]),
        Some("blobs") => blobs::main(&args[1..]),
        Some("watched") => watched::main(&args[1..]),
        Some("merge-per-read") => merge::per_read(&args[1..]),
        Some("report") => report::main(&args[1..]),
        Some("tiers") => TIER_NAMES.iter().for_each(|name| println!("{name}")),
        Some("paths") => per_read::PATHS.iter().for_each(|name| println!("{name}")),
        Some("blob-paths") => per_read::BLOB_PATHS
            .iter()
            .for_each(|name| println!("{name}")),
        // `cargo bench` passes `--bench` and criterion's own arguments.
        _ => {
            benches();
            Criterion::default().configure_from_args().final_summary();
        }
    }
}

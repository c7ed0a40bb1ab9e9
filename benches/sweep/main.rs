//! The value-size sweep: every read tier of pinrocks, the `rocksdb` crate as the peer and
//! raw C calls as the floor, over value sizes, in two regimes (memtable and block cache)
//! and with two consumers (length only, every byte). `scripts/sweep.sh` runs it and
//! builds the report.
//!
//! One binary, the whole harness (`cargo bench --bench sweep` builds it): its command line
//! is `cli.rs` (`sweep --help`), one subcommand per section (`run`, `scans`, `batches`,
//! `memtable`, `scale`, `merge`, `txn`, `blobs`, `watched`, `writes`, `typed`, `crc`; each in its own file),
//! `report` (`report.rs`, `plot.rs`), and the helpers of the valgrind counts (`per-read`,
//! `merge-per-read`, `tiers`, `paths`, `blob-paths`, `typed-paths`, `write-paths`). Under `cargo bench` (which passes
//! `--bench`) it is criterion's run over the block cache and memtable cells
//! (`PINROCKS_QUICK=1`: every cell briefly). Your own options, sizes and regimes: flags or
//! their environment variables (`cli.rs`, `config.rs`).

mod base;
mod batches;
mod blobs;
mod callgrind;
mod cli;
mod concurrent;
mod concurrent_writes;
mod config;
mod crc;
mod memtable;
mod merge;
mod paired;
mod per_read;
mod plot;
mod progress;
#[cfg(all(
    feature = "serde",
    feature = "postcard",
    feature = "rkyv",
    feature = "flatbuffers"
))]
mod records;
mod report;
mod run;
mod scale;
mod scale_build;
mod scans;
mod tiers;
mod txn;
#[cfg(all(
    feature = "serde",
    feature = "postcard",
    feature = "rkyv",
    feature = "flatbuffers"
))]
mod typed;
mod typed_paths;
mod watched;
mod write_floors;
mod write_kinds;
mod write_ways;
mod writes;

use std::hint::black_box;
use std::time::Duration;

use clap::Parser;
use cli::{Cli, Command};
use criterion::{criterion_group, Criterion};
// The C++ floors' static library (rocksdb-c-dev/), declared by scans.rs, memtable.rs and
// write_floors.rs.
use pinrocks_dev_c as _;
use tiers::{Consumer, Regime, Tier, TIER_NAMES};

pub const DEFAULT_SIZES: [usize; 7] = [8, 16, 128, 1024, 4096, 65536, 1 << 20];

/// The value sizes to sweep: `--sizes`, or the quantiles of `--sizes-file` (`config.rs`),
/// or the default seven.
fn sizes() -> Vec<usize> {
    let settings = cli::settings();
    if let Some(path) = &settings.sizes_file {
        let path = path.display();
        let text = std::fs::read_to_string(path.to_string())
            .unwrap_or_else(|e| panic!("--sizes-file {path}: {e}"));
        return config::sizes_from_distribution(&text)
            .unwrap_or_else(|e| panic!("--sizes-file {path}: {e}"));
    }
    if settings.sizes.is_empty() {
        DEFAULT_SIZES.to_vec()
    } else {
        settings.sizes.clone()
    }
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
/// Criterion over the block cache and memtable cells.
fn criterion() {
    benches();
    Criterion::default().configure_from_args().final_summary();
}

fn main() {
    // `cargo bench` passes `--bench` (and criterion's own arguments), `cargo test
    // --benches` nothing: criterion's run, with the settings of the environment.
    if std::env::args().any(|a| a == "--bench") {
        return criterion();
    }
    let cli = Cli::parse();
    cli::install(cli.settings);
    let Some(command) = cli.command else {
        return criterion();
    };
    match command {
        Command::Run { out, quick } => run::main(&out, quick),
        Command::Scans(q) => scans::main(q.quick),
        Command::Batches(q) => batches::main(q.quick),
        Command::Memtable(q) => memtable::main(q.quick),
        Command::Scale { out, quick, long } => scale::main(&out, quick, long),
        Command::Merge(q) => merge::main(q.quick),
        Command::Txn(q) => txn::main(q.quick),
        Command::Blobs(q) => blobs::main(q.quick),
        Command::Watched(q) => watched::main(q.quick),
        Command::Writes { out, quick } => writes::main(&out, quick),
        Command::ConcurrentWrites { out, quick } => concurrent_writes::section(&out, quick),
        Command::Typed { out, quick } => typed_paths::section(&out, quick),
        Command::Concurrent { out, quick } => concurrent::section(&out, quick),
        Command::Crc => crc::main(),
        Command::Report {
            samples,
            out,
            machine,
        } => report::main(&samples, &out, machine.as_deref().unwrap_or_default()),
        Command::PerRead { name, size, reads } => per_read::main(&name, size, reads),
        Command::MergePerRead {
            side,
            operands,
            reads,
        } => merge::per_read(&side, operands, reads),
        Command::Tiers => TIER_NAMES.iter().for_each(|name| println!("{name}")),
        Command::Paths => per_read::PATHS.iter().for_each(|name| println!("{name}")),
        Command::WritePaths => write_kinds::paths(16)
            .iter()
            .for_each(|name| println!("{name}")),
        Command::BlobPaths => per_read::BLOB_PATHS
            .iter()
            .for_each(|name| println!("{name}")),
        Command::TypedPaths => typed_paths::PATHS
            .iter()
            .for_each(|name| println!("{name}")),
    }
}

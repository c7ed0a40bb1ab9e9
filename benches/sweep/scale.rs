//! How the cost of a read grows with the database: 10^4 to 10^6 keys (10^7 with `--long`)
//! at 100 B and 4 KB values, each database built by ingesting one SST file
//! (`scale_build.rs`), read at random keys in four regimes:
//! * **cache ≥ data**: a block cache a quarter larger than the data, warmed by one read of
//!   every key;
//! * **cache 1%**: a block cache of 1% of the data (most reads take a block from the OS
//!   page cache);
//! * **cache 1%, no bloom**: the same, opened without a filter policy (RocksDB then ignores
//!   the file's bloom filter);
//! * **direct reads**: `use_direct_reads` and the 1% cache, so the page cache does not hide
//!   the device.
//!
//! Ways: pinrocks' pinned read and Vec, the `rocksdb` crate's `get_pinned`; paired and
//! interleaved (`paired.rs`). `sweep scale <out dir> [--quick | --long]` writes `scale.md`
//! and the log-log plot `scale.svg` (time per pinned read against the number of keys, one
//! line per regime) into `<out dir>`.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use pinrocks::{Db, Options};

use crate::paired::{self, Ratio, Read};
use crate::scale_build::{build_sst, ingest_into, scale_key, scale_options_with};
use crate::tiers::{self, Consumer, Tier};

const WAYS: [&str; 3] = ["pinned", "vec", "rocksdb get_pinned"];
const REGIMES: [&str; 4] = [
    "cache ≥ data",
    "cache 1%",
    "cache 1%, no bloom",
    "direct reads",
];

/// Options for a regime over `data` bytes, for pinrocks and for the peer.
fn regime_options(regime: &str, data: u64) -> (Options, rocksdb::Options) {
    let cache = if regime == "cache ≥ data" {
        data + data / 4
    } else {
        (data / 100).max(1 << 20)
    } as usize;
    let bloom = regime != "cache 1%, no bloom";
    let direct = regime == "direct reads";
    let mut ours = scale_options_with(bloom);
    ours.block_cache_size(cache).use_direct_reads(direct);
    let mut table = rocksdb::BlockBasedOptions::default();
    table.set_block_cache(&rocksdb::Cache::new_lru_cache(cache));
    if bloom {
        table.set_bloom_filter(10.0, false);
    }
    let mut peer = rocksdb::Options::default();
    peer.set_block_based_table_factory(&table);
    peer.set_compression_type(rocksdb::DBCompressionType::None);
    peer.set_use_direct_reads(direct);
    (ours, peer)
}

/// The bytes of `count` keys (12 bytes each) and their `size`-byte values.
fn data_bytes(count: u64, size: usize) -> u64 {
    count * (size as u64 + scale_key(0).len() as u64)
}

/// `n` keys drawn at random from `count`.
fn random_keys(count: u64, n: usize) -> Vec<Vec<u8>> {
    let mut state = 0x5ca1e_u64;
    (0..n)
        .map(|_| scale_key(paired::splitmix64(&mut state) % count).to_vec())
        .collect()
}

struct Cell {
    count: u64,
    regime: &'static str,
    rounds: paired::Rounds,
}

fn measure(
    dirs: (&Path, &Path),
    regime: &'static str,
    count: u64,
    size: usize,
    plan: (usize, Duration),
) -> Cell {
    let (ours_options, peer_options) = regime_options(regime, data_bytes(count, size));
    let db = Db::open(&ours_options, dirs.0).unwrap();
    let peer = rocksdb::DB::open(&peer_options, dirs.1).unwrap();
    if regime == "cache ≥ data" {
        for i in 0..count {
            db.get_pinned(&scale_key(i), |_| ()).unwrap().unwrap();
            peer.get_pinned(scale_key(i)).unwrap().unwrap();
        }
    }
    let keys = random_keys(count, 4096);
    let peer_read = rocksdb::ReadOptions::default();
    let mut pinned = tiers::pinrocks_tier(&db, Tier::Pinned, size, Consumer::Len);
    let mut vec = tiers::pinrocks_tier(&db, Tier::Vec, size, Consumer::Len);
    let mut peer_pinned =
        tiers::peer_tier_with(&peer, Tier::RocksdbGetPinned, Consumer::Len, &peer_read);
    let mut ways: [Read<'_>; 3] = [&mut *pinned, &mut *vec, &mut *peer_pinned];
    for read in ways.iter_mut() {
        assert_eq!(read(&keys[0]), size as u64);
    }
    let (rounds, _) = paired::run_checking(&mut ways, &keys, plan.0, plan.1, 1);
    eprintln!("sweep: scale {count} keys of {size} B, {regime} done");
    Cell {
        count,
        regime,
        rounds,
    }
}

fn table(size: usize, cells: &[Cell], plan: (usize, Duration)) -> String {
    let mut out = format!(
        "#### {size} B values\n\n| keys | data | regime | pinned | reads/s, pinned | pinned vs vec | pinned vs rocksdb `get_pinned` |\n|---:|---:|---|---:|---:|---|---|\n"
    );
    for cell in cells {
        let r = &cell.rounds;
        let ns = paired::median(&mut r.ns[0].clone());
        out += &format!(
            "| {} | {} MB | {} | {:.2} µs | {:.0} k | {} | {} |\n",
            cell.count,
            data_bytes(cell.count, size) / 1_000_000,
            cell.regime,
            ns / 1e3,
            1e6 / ns,
            Ratio::of(&r.ns[1], &r.ns[0]).cell(),
            Ratio::of(&r.ns[2], &r.ns[0]).cell(),
        );
    }
    out + &paired::footnote(
        plan.0,
        plan.1,
        &WAYS,
        "a read is one random key; a slice ends with the read that reaches its end",
    )
}

pub fn main(out_dir: &Path, quick: bool, long: bool) {
    let plan = if quick {
        (2, Duration::from_millis(1))
    } else {
        (12, Duration::from_millis(8))
    };
    let mut report = String::new();
    let mut points: BTreeMap<String, Vec<(usize, f64, f64, f64)>> = BTreeMap::new();
    for size in crate::progress::steps("scale", [100usize, 4096].into_iter()) {
        let counts: Vec<u64> = if quick {
            vec![1_000, 4_000]
        } else if size == 100 {
            let mut c = vec![10_000, 100_000, 1_000_000];
            if long {
                c.push(10_000_000);
            }
            c
        } else {
            let mut c = vec![10_000, 100_000];
            if long {
                c.push(1_000_000);
            }
            c
        };
        let mut cells = Vec::new();
        for count in counts {
            let dir = tempfile::tempdir().unwrap();
            let sst = build_sst(&dir.path().join("data.sst"), count, size).unwrap();
            let (ours, peer) = (dir.path().join("ours"), dir.path().join("peer"));
            ingest_into(&sst, &ours).unwrap();
            ingest_into(&sst, &peer).unwrap();
            std::fs::remove_file(&sst).unwrap();
            for regime in REGIMES {
                let cell = measure((&ours, &peer), regime, count, size, plan);
                let mut ns = cell.rounds.ns[0].clone();
                let (low, high) = paired::bootstrap_interval(&ns, 2000, 0x5eed);
                points
                    .entry(format!("{size} B, {regime}"))
                    .or_default()
                    .push((count as usize, paired::median(&mut ns), low, high));
                cells.push(cell);
            }
        }
        report += &table(size, &cells, plan);
        report.push('\n');
    }
    std::fs::create_dir_all(out_dir).unwrap();
    let out = out_dir;
    std::fs::write(out.join("scale.md"), &report).unwrap();
    let named: BTreeMap<&str, Vec<(usize, f64, f64, f64)>> = points
        .iter()
        .map(|(k, v)| (k.as_str(), v.clone()))
        .collect();
    let ticks: Vec<usize> = named.values().flatten().map(|p| p.0).collect();
    std::fs::write(
        out.join("scale.svg"),
        crate::plot::plot(
            "Time per pinned read against the number of keys (bars: 95% interval of the median)",
            "ns per read",
            &named,
            &crate::plot::ticks(&ticks, |n| format!("{n} keys")),
        ),
    )
    .unwrap();
    print!("{report}");
}

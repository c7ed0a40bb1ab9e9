//! Batches: pinrocks' pinned multi-get against as many single pinned reads and against the
//! `rocksdb` crate's `batched_multi_get_cf` (sorted input) and its `get_pinned` per key, at
//! batch sizes 1 to 1,024, from a block cache holding every value and from the disk
//! (`use_direct_reads`, no block cache: every read goes to the device, past the OS page
//! cache). From the disk, also pinrocks' multi-get with `async_io` (what RocksDB does with it
//! depends on how it was built: see the note under the table). Timed paired and interleaved
//! (`paired.rs`); a "read" is one batch, reported per key.
//!
//! Each batch is distinct keys in ascending order, drawn at random; every way reads the same
//! batches in the same order. The peer reads with one `ReadOptions` made up front (its
//! `get_pinned` and `batched_multi_get_cf` without `_opt` make one per call).
//!
//! `sweep batches [--quick]`: a markdown table per regime and value size.

use std::time::Duration;

use pinrocks::{Db, ReadOptions, Reader};

use crate::paired::{self, Ratio, Read};
use crate::tiers;

pub const BATCH_SIZES: [usize; 6] = [1, 8, 32, 33, 128, 1024];
/// Value sizes from the block cache; from the disk only the last (a block per value).
pub const SIZES: [usize; 2] = [128, 4096];
const WAYS: [&str; 5] = [
    "multi_get_pinned",
    "pinned per key",
    "rocksdb batched_multi_get_cf",
    "rocksdb get_pinned per key",
    "multi_get_pinned async_io",
];

/// `n`-key batches of distinct keys out of `count`, each sorted, enough to cover the
/// database about once (at least 4).
fn batches(n: usize, count: usize) -> Vec<Vec<Vec<u8>>> {
    let mut state = 0x5eed_u64 ^ n as u64;
    (0..(count / n).max(4))
        .map(|_| {
            let mut picked = std::collections::BTreeSet::new();
            while picked.len() < n.min(count) {
                picked.insert(paired::splitmix64(&mut state) as usize % count);
            }
            picked.into_iter().map(tiers::key).collect()
        })
        .collect()
}

/// The peer's database opened with its default column family named, so that
/// `cf_handle("default")` finds it for `batched_multi_get_cf`; with a descriptor, since
/// `DB::open_cf` gives each family it names the default options (its own block cache).
fn open_peer_cf(options: &rocksdb::Options, dir: &std::path::Path) -> rocksdb::DB {
    let default = rocksdb::ColumnFamilyDescriptor::new("default", options.clone());
    rocksdb::DB::open_cf_descriptors(options, dir, [default]).unwrap()
}

struct Cell {
    n: usize,
    rounds: paired::Rounds,
}

/// One pinned multi-get of `keys` (all present): the sum of their values' lengths.
fn multi_get_len(reader: Reader<'_>, keys: &[Vec<u8>]) -> u64 {
    let mut sum = 0u64;
    reader
        .multi_get_pinned(keys, |_, v| sum += v.unwrap().len() as u64)
        .unwrap();
    sum
}

/// Times the ways over one batch size; `disk` adds the `async_io` way.
fn measure(
    db: &Db,
    peer: &rocksdb::DB,
    n: usize,
    count: usize,
    disk: bool,
    rounds: usize,
    slice: Duration,
) -> Cell {
    let list = batches(n, count);
    let reader = db.reader();
    let mut async_options = ReadOptions::new();
    async_options.async_io(true);
    let async_reader = db.reader().options(&async_options);
    let peer_options = rocksdb::ReadOptions::default();
    let cf = peer.cf_handle("default").unwrap();
    let (mut a, mut b, mut c, mut d, mut e) = (0, 0, 0, 0, 0);
    let next = |i: &mut usize| {
        *i = (*i + 1) % list.len();
        &list[*i]
    };
    let mut multi = |_: &[u8]| multi_get_len(reader, next(&mut a));
    let mut singles = |_: &[u8]| {
        next(&mut b)
            .iter()
            .map(|k| reader.get_pinned(k, |v| v.len() as u64).unwrap().unwrap())
            .sum()
    };
    let mut peer_multi = |_: &[u8]| {
        peer.batched_multi_get_cf_opt(&cf, next(&mut c), true, &peer_options)
            .into_iter()
            .map(|v| v.unwrap().unwrap().len() as u64)
            .sum()
    };
    let mut peer_singles = |_: &[u8]| {
        next(&mut d)
            .iter()
            .map(|k| {
                peer.get_pinned_opt(k, &peer_options)
                    .unwrap()
                    .unwrap()
                    .len() as u64
            })
            .sum()
    };
    let mut multi_async = |_: &[u8]| multi_get_len(async_reader, next(&mut e));
    let mut ways: Vec<Read<'_>> =
        vec![&mut multi, &mut singles, &mut peer_multi, &mut peer_singles];
    if disk {
        ways.push(&mut multi_async);
    }
    // Every way reads the same bytes: the first batch's.
    let first: Vec<u64> = ways.iter_mut().map(|read| read(b"")).collect();
    assert!(first.windows(2).all(|w| w[0] == w[1]), "{first:?}");
    // From the disk a batch of 1,024 keys takes longer than a slice: look at the clock after
    // every batch.
    let keys = [Vec::new()];
    let (rounds, _) = paired::run_checking(&mut ways, &keys, rounds, slice, 1);
    Cell { n, rounds }
}

fn table(title: &str, cells: &[Cell], disk: bool, rounds: usize, slice: Duration) {
    println!("#### {title}\n");
    print!(
        "| keys per batch | multi-get, per key | pinned per key | keys/s, multi-get | multi-get vs pinned per key | multi-get vs rocksdb `batched_multi_get_cf` | rocksdb batched vs its `get_pinned` per key |"
    );
    if disk {
        print!(" multi-get `async_io` vs multi-get |");
    }
    println!();
    println!(
        "|---:|---:|---:|---:|---|---|---|{}",
        if disk { "---|" } else { "" }
    );
    for cell in cells {
        let r = &cell.rounds;
        let per_key = |i: usize| paired::median(&mut r.ns[i].clone()) / cell.n as f64;
        print!(
            "| {} | {:.0} ns | {:.0} ns | {:.2} M | {} | {} | {} |",
            cell.n,
            per_key(0),
            per_key(1),
            1e3 / per_key(0),
            Ratio::of(&r.ns[1], &r.ns[0]).cell(),
            Ratio::of(&r.ns[2], &r.ns[0]).cell(),
            Ratio::of(&r.ns[3], &r.ns[2]).cell(),
        );
        if disk {
            print!(" {} |", Ratio::of(&r.ns[0], &r.ns[4]).cell());
        }
        println!();
    }
    let ways = if disk { &WAYS[..] } else { &WAYS[..4] };
    println!(
        "{}",
        paired::footnote(
            rounds,
            slice,
            ways,
            "a slice ends with the batch that reaches its end"
        )
    );
}

pub fn main(quick: bool) {
    let (rounds, slice, batch_sizes) = if quick {
        (2, Duration::from_millis(1), vec![1, 33])
    } else {
        (20, Duration::from_millis(8), BATCH_SIZES.to_vec())
    };
    for (i, size) in crate::progress::steps("batches", SIZES.into_iter().enumerate()) {
        let count = if quick { 64 } else { tiers::key_count(size) };
        let (ours_dir, peer_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let cached: Vec<Cell> = {
            let db = tiers::open_pinrocks(ours_dir.path(), tiers::Regime::BlockCache, size, count);
            drop(tiers::open_peer(
                peer_dir.path(),
                tiers::Regime::BlockCache,
                size,
                count,
            ));
            let peer = open_peer_cf(&tiers::peer_options(), peer_dir.path());
            for i in 0..count {
                peer.get_pinned(tiers::key(i)).unwrap().unwrap();
            }
            batch_sizes
                .iter()
                .map(|&n| measure(&db, &peer, n, count, false, rounds, slice))
                .collect()
        };
        table(
            &format!("Block cache, {size} B values"),
            &cached,
            false,
            rounds,
            slice,
        );
        eprintln!("sweep: batches from the block cache, {size} B done");
        if i + 1 < SIZES.len() {
            continue;
        }
        let (mut options, mut peer_options) = tiers::uncached_options();
        options.use_direct_reads(true);
        let db = Db::open(&options, ours_dir.path()).unwrap();
        peer_options.set_use_direct_reads(true);
        let peer = open_peer_cf(&peer_options, peer_dir.path());
        let disk: Vec<Cell> = batch_sizes
            .iter()
            .map(|&n| measure(&db, &peer, n, count, true, rounds, slice))
            .collect();
        table(
            &format!("From the disk (`use_direct_reads`, no block cache), {size} B values"),
            &disk,
            true,
            rounds,
            slice,
        );
        eprintln!("sweep: batches from the disk, {size} B done");
    }
}

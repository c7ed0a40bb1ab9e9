//! Loading keys into an empty database: one put per key, write batches of 1,000, and one
//! SST file written in order then ingested; pinrocks and the `rocksdb` crate 0.25 (the same
//! RocksDB), interleaved round by round so that both see the same machine state.
//!
//! `cargo bench --bench load -- [keys] [value bytes] [rounds]` (default 1,000,000 100 3);
//! `scripts/load-bench.sh` runs the two sizes of docs/guide.md's load table.

use std::time::Instant;

use pinrocks::admin::{IngestOptions, SstFileWriter};
use pinrocks::{Db, Options, WriteBatch};

fn key(i: u64) -> [u8; 8] {
    i.to_be_bytes()
}

fn value(i: u64, size: usize) -> Vec<u8> {
    (0..size)
        .map(|j| (i as usize).wrapping_mul(31).wrapping_add(j) as u8)
        .collect()
}

#[derive(Clone, Copy, Debug)]
enum Method {
    Put,
    Batch,
    Sst,
}

/// WAL on, no fsync per write: RocksDB's defaults, the same for both libraries.
fn load_ours(dir: &std::path::Path, method: Method, n: u64, size: usize) -> f64 {
    let mut options = Options::new();
    options.create_if_missing(true);
    let db = Db::open(&options, dir.join("db")).unwrap();
    let v = value(7, size);
    let start = Instant::now();
    match method {
        Method::Put => {
            let mut writer = db.writer();
            for i in 0..n {
                writer.put(&key(i), &v).unwrap();
            }
        }
        Method::Batch => {
            let mut batch = WriteBatch::new();
            let writer = db.writer();
            for i in 0..n {
                batch.writer().put(&key(i), &v).unwrap();
                if batch.len() == 1000 {
                    writer.write(&batch).unwrap();
                    batch.clear();
                }
            }
            writer.write(&batch).unwrap();
        }
        Method::Sst => {
            let path = dir.join("load.sst");
            let mut sst = SstFileWriter::create(&options, &path).unwrap();
            for i in 0..n {
                sst.put(&key(i), &v).unwrap();
            }
            sst.finish().unwrap();
            let mut ingest = IngestOptions::new();
            ingest.move_files(true);
            db.ingest(&[&path], &ingest).unwrap();
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    assert_eq!(db.get(&key(n - 1)).unwrap().as_deref(), Some(&v[..]));
    seconds
}

fn load_peer(dir: &std::path::Path, method: Method, n: u64, size: usize) -> f64 {
    let mut options = rocksdb::Options::default();
    options.create_if_missing(true);
    let db = rocksdb::DB::open(&options, dir.join("db")).unwrap();
    let v = value(7, size);
    let start = Instant::now();
    match method {
        Method::Put => {
            for i in 0..n {
                db.put(key(i), &v).unwrap();
            }
        }
        Method::Batch => {
            // The rocksdb crate's `write` takes the batch by value: a new one per 1,000.
            let mut batch = rocksdb::WriteBatch::default();
            for i in 0..n {
                batch.put(key(i), &v);
                if batch.len() == 1000 {
                    db.write(std::mem::take(&mut batch)).unwrap();
                }
            }
            db.write(batch).unwrap();
        }
        Method::Sst => {
            let path = dir.join("load.sst");
            let mut sst = rocksdb::SstFileWriter::create(&options);
            sst.open(&path).unwrap();
            for i in 0..n {
                sst.put(key(i), &v).unwrap();
            }
            sst.finish().unwrap();
            let mut ingest = rocksdb::IngestExternalFileOptions::default();
            ingest.set_move_files(true);
            db.ingest_external_file_opts(&ingest, vec![&path]).unwrap();
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    assert_eq!(db.get(key(n - 1)).unwrap().as_deref(), Some(&v[..]));
    seconds
}

fn main() {
    // `cargo bench` passes `--bench`; the numbers are ours.
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let n = args.first().copied().unwrap_or(1_000_000);
    let size = args.get(1).copied().unwrap_or(100) as usize;
    let rounds = args.get(2).copied().unwrap_or(3) as usize;
    let methods = [Method::Put, Method::Batch, Method::Sst];
    // samples[method][library] = keys per second, one per round.
    let mut samples = vec![[Vec::new(), Vec::new()]; methods.len()];
    for _ in 0..rounds {
        for (m, &method) in methods.iter().enumerate() {
            for (lib, sample) in samples[m].iter_mut().enumerate() {
                let dir = tempfile::tempdir().unwrap();
                let seconds = if lib == 0 {
                    load_ours(dir.path(), method, n, size)
                } else {
                    load_peer(dir.path(), method, n, size)
                };
                sample.push(n as f64 / seconds);
            }
        }
    }
    println!("| {n} keys of {size} B, keys/s (median [min-max] of {rounds} rounds, interleaved) | pinrocks | rocksdb 0.25 | ratio |");
    println!("|---|---:|---:|---:|");
    for (m, method) in methods.iter().enumerate() {
        let stats = |v: &Vec<f64>| {
            let mut v = v.clone();
            v.sort_by(f64::total_cmp);
            (v[v.len() / 2], v[0], v[v.len() - 1])
        };
        let (ours, ours_min, ours_max) = stats(&samples[m][0]);
        let (peer, peer_min, peer_max) = stats(&samples[m][1]);
        println!(
            "| {method:?} | {ours:.0} [{ours_min:.0}-{ours_max:.0}] | {peer:.0} [{peer_min:.0}-{peer_max:.0}] | {:.2}x |",
            ours / peer
        );
    }
}

//! The sweep's command line (clap): one subcommand per section, and the settings that make
//! the sweep yours (RocksDB options, value sizes, regimes) as flags, each also read from its
//! environment variable so that `scripts/sweep.sh` passes them to every section it runs.
//! `sweep --help` and `sweep <section> --help` print this as help.

use std::path::PathBuf;
use std::sync::OnceLock;

use clap::{Args, Parser, Subcommand};

use crate::config;

/// pinrocks' value-size sweep: every read tier of pinrocks against the `rocksdb` crate (the
/// peer) and raw C calls (the floor), paired and interleaved, with 95% intervals.
///
/// `scripts/sweep.sh` runs every section and the valgrind counts and writes the report;
/// run a section alone to look at one thing. `cargo bench --bench sweep` runs criterion
/// over the block cache and memtable cells instead (PINROCKS_QUICK=1: briefly).
#[derive(Parser)]
#[command(name = "sweep", bin_name = "sweep", max_term_width = 100)]
pub struct Cli {
    #[command(flatten)]
    pub settings: Settings,
    /// None: criterion's run (as `cargo test --benches` starts the binary)
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Your own configuration (`config.rs` reads the files). The options apply to both
/// libraries' databases in every section but `scale` and `crc` (which set their own: the
/// regimes they compare are made of options); the sizes and regimes to `run`.
#[derive(Args, Clone, Default)]
pub struct Settings {
    /// An OPTIONS file one of your databases wrote: its database, default column family
    /// and block-based table options, after the sweep's own (its block cache stays unless
    /// the file sets it)
    #[arg(
        long,
        global = true,
        env = "PINROCKS_OPTIONS_FILE",
        value_name = "FILE"
    )]
    pub options_file: Option<PathBuf>,
    /// A RocksDB option string ("k=v;k=v"), applied after the file
    #[arg(long, global = true, env = "PINROCKS_OPTIONS", value_name = "STRING")]
    pub options: Option<String>,
    /// The value sizes of `run` in bytes, comma-separated (default: 8,16,128,1024,4096,65536,
    /// 1048576)
    #[arg(
        long,
        global = true,
        env = "PINROCKS_SIZES",
        value_delimiter = ',',
        value_name = "BYTES",
        value_parser = size
    )]
    pub sizes: Vec<usize>,
    /// A file of observed value sizes (one a line, `#` comments): `run` measures its 10th,
    /// 50th, 90th and 99th percentiles and its largest (this, when both are given)
    #[arg(long, global = true, env = "PINROCKS_SIZES_FILE", value_name = "FILE")]
    pub sizes_file: Option<PathBuf>,
    /// The regimes of `run`, comma-separated: memtable, block_cache, page_cache, concurrent
    /// (default: all)
    #[arg(long, global = true, env = "PINROCKS_REGIMES", value_name = "LIST", value_parser = regime_list)]
    pub regimes: Option<String>,
    /// The reader thread counts of the concurrent regime, comma-separated (default: 1,2)
    #[arg(
        long,
        global = true,
        env = "PINROCKS_THREADS",
        value_delimiter = ',',
        value_name = "COUNTS",
        value_parser = clap::value_parser!(u16).range(1..=1024)
    )]
    pub threads: Vec<u16>,
}

/// The sections and the tools the scripts call.
#[derive(Subcommand)]
pub enum Command {
    /// Time every tier over the sizes and regimes (memtable, block cache, page cache,
    /// concurrent readers) and both consumers; writes OUT/samples.tsv for `report`
    Run {
        /// The directory for samples.tsv
        out: PathBuf,
        /// Every cell briefly: proves the harness works, its timings mean nothing
        #[arg(long)]
        quick: bool,
    },
    /// Iterator steps, forward and backward, through every way of iterating of both
    /// libraries, the C API and a C++ loop (markdown on stdout)
    Scans(Quick),
    /// Multi-gets against single reads, both libraries, from the block cache and from disk
    Batches(Quick),
    /// Large values still in the memtable: the pinned read (which copies) and two routes
    /// that pin them in place
    Memtable(Quick),
    /// Reads against the number of keys (10^4 to 10^6, built by SST ingest) in four cache
    /// regimes, with its own options (bloom filters on and off, the cache sizes); writes
    /// OUT/scale.md and OUT/scale.svg
    Scale {
        /// The directory for scale.md and scale.svg
        out: PathBuf,
        /// Every cell briefly, 10^3 and 4·10^3 keys: proves the harness works
        #[arg(long)]
        quick: bool,
        /// Also 10^7 keys (minutes more)
        #[arg(long, conflicts_with = "quick")]
        long: bool,
    },
    /// Reads of keys with pending merge operands, ours and the `rocksdb` crate's
    Merge(Quick),
    /// Reads inside a transaction, ours and the `rocksdb` crate's
    Txn(Quick),
    /// Values in blob files, with a blob cache and without
    Blobs(Quick),
    /// What an event listener and the info log cost
    Watched(Quick),
    /// What a write costs: puts, deletes, merges, entities, batches of 1 to 1,024, an
    /// indexed batch, transactions; WAL on, off and synced; pinrocks beside the `rocksdb`
    /// crate, the C API and a C++ loop; writes OUT/writes.md and OUT/writes.svg
    Writes {
        /// The directory for writes.md and writes.svg
        out: PathBuf,
        /// Every cell briefly: proves the harness works
        #[arg(long)]
        quick: bool,
    },
    /// Writers across cores (`--threads`) under RocksDB's write-group settings, and readers
    /// beside a writer; writes OUT/concurrent-writes.md
    ConcurrentWrites {
        /// The directory for concurrent-writes.md
        out: PathBuf,
        /// One size briefly: proves the harness works
        #[arg(long)]
        quick: bool,
    },
    /// Typed reads of one record shape (64 B to 64 KiB) through each codec (JSON, postcard,
    /// rkyv, FlatBuffers, a fixed layout), one field and every field, beside the pinned
    /// read; writes OUT/typed.md and OUT/typed.svg (needs the record codecs' features)
    Typed {
        /// The directory for typed.md and typed.svg
        out: PathBuf,
        /// Two sizes briefly: proves the harness works
        #[arg(long)]
        quick: bool,
    },
    /// Concurrent readers alone: each thread count of `--threads` on an LRU block cache, a
    /// HyperClockCache and the hot-read profile, pinrocks beside the `rocksdb` crate with
    /// the same settings; writes OUT/samples.tsv and OUT/concurrent.md
    Concurrent {
        /// The directory for samples.tsv and concurrent.md
        out: PathBuf,
        /// One size briefly: proves the harness works
        #[arg(long)]
        quick: bool,
    },
    /// Flush and cold-read speed under this build's CRC32c
    Crc,
    /// The report (markdown) and plots (SVG) from `run`'s samples and the other sections'
    /// tables in SAMPLES
    Report {
        /// Where `run` wrote samples.tsv and the sections their tables
        samples: PathBuf,
        /// The directory for report.md, sweep.svg and ratio.svg
        out: PathBuf,
        /// The machine, as the report names it
        machine: Option<String>,
    },
    /// One warm-up read, then READS reads of one tier or path, for valgrind's per-read
    /// counts (`scripts/count-per-read.sh`)
    PerRead {
        /// A tier (`sweep tiers`) or another read path (`sweep paths`, `sweep blob-paths`)
        name: String,
        /// The value size in bytes
        size: usize,
        /// Reads counted after the warm-up
        reads: usize,
    },
    /// Reads of a merged key, for valgrind's counts (`scripts/count-merge-reads.sh`)
    MergePerRead {
        #[arg(value_parser = ["ours", "peer"])]
        side: String,
        /// Merge operands pending on each key
        operands: usize,
        /// Reads counted after the warm-up
        reads: usize,
    },
    /// The tier names, one a line
    Tiers,
    /// The other read paths `per-read` knows, one a line
    Paths,
    /// The blob-file read paths `per-read` knows, one a line
    BlobPaths,
    /// The typed read paths of records `per-read` knows, one a line
    TypedPaths,
    /// The write ways `per-read` counts (`write_<kind>_<side>`), one a line
    WritePaths,
}

/// A section's one flag.
#[derive(Args)]
pub struct Quick {
    /// Every cell briefly: proves the harness works, its timings mean nothing
    #[arg(long)]
    pub quick: bool,
}

/// A size in bytes, spaces around it allowed ("8, 4096").
fn size(text: &str) -> Result<usize, String> {
    text.trim()
        .parse()
        .map_err(|e| format!("{text:?} is not a size in bytes: {e}"))
}

/// Checks a list of regimes (`config::regimes`) as clap parses it.
fn regime_list(list: &str) -> Result<String, String> {
    config::regimes(Some(list)).map(|_| list.to_string())
}

static SETTINGS: OnceLock<Settings> = OnceLock::new();

/// Makes `settings` what [`settings`] returns for the rest of the run (once, at start).
pub fn install(settings: Settings) {
    assert!(
        SETTINGS.set(settings).is_ok(),
        "the settings are installed once"
    );
}

/// The run's settings: the command line's, or, for criterion's run (`cargo bench`), the
/// environment's alone.
pub fn settings() -> &'static Settings {
    SETTINGS.get_or_init(|| {
        #[derive(Parser)]
        struct EnvOnly {
            #[command(flatten)]
            settings: Settings,
        }
        EnvOnly::parse_from(["sweep"]).settings
    })
}

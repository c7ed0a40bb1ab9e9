//! Tracing a database's reads and writes into a file (RocksDB's query trace): to capture a
//! service's load, for RocksDB's `trace_analyzer` or `db_bench -benchmarks=replay`.
//!
//! The replay itself is not offered: RocksDB's replayer writes each traced batch as it is
//! (a family id the database lacks stops the database with a background error; into a
//! family with timestamps, keys without them are read out of bounds), and it sleeps for the
//! wall-clock gaps it computes unchecked (a clock stepped back makes one of ~200 days, or an
//! integer overflow). A replay pinrocks can vouch for would check each record first.

use std::path::Path;

use crate::db::database::Db;
use crate::raw::cstr::path_to_cstring;
use crate::raw::error::Result;
use crate::raw::tracing::RawTraceOptions;

/// What a query trace records ([`Db::start_trace`]): by default every get, write, seek and
/// multi-get, up to 64 GiB of file (RocksDB's defaults).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TraceOptions {
    /// The trace stops recording once its file is this large.
    pub max_file_size: u64,
    /// Records one operation in this many (0 and 1: every one).
    pub sampling_frequency: u64,
    /// Leaves point reads out.
    pub skip_gets: bool,
    /// Leaves writes out.
    pub skip_writes: bool,
    /// Leaves iterator seeks (both ways) out.
    pub skip_seeks: bool,
    /// Leaves multi-gets out.
    pub skip_multi_gets: bool,
    /// Records writes in the order they reach the WAL (slower; otherwise in the order they
    /// were asked).
    pub preserve_write_order: bool,
}

impl Default for TraceOptions {
    fn default() -> Self {
        TraceOptions {
            max_file_size: 64 << 30,
            sampling_frequency: 1,
            skip_gets: false,
            skip_writes: false,
            skip_seeks: false,
            skip_multi_gets: false,
            preserve_write_order: false,
        }
    }
}

impl TraceOptions {
    fn raw(&self) -> RawTraceOptions {
        // RocksDB's kTraceFilterGet, Write, IteratorSeek, IteratorSeekForPrev, MultiGet.
        let filter = [
            (self.skip_gets, 1 << 0),
            (self.skip_writes, 1 << 1),
            (self.skip_seeks, (1 << 2) | (1 << 3)),
            (self.skip_multi_gets, 1 << 4),
        ]
        .iter()
        .filter(|(skip, _)| *skip)
        .fold(0, |bits, (_, bit)| bits | bit);
        RawTraceOptions {
            max_trace_file_size: self.max_file_size,
            sampling_frequency: self.sampling_frequency,
            filter,
            preserve_write_order: self.preserve_write_order,
        }
    }
}

impl Db {
    /// Starts recording this database's queries into a new file at `path` (through the
    /// database's `Env`), until [`end_trace`](Self::end_trace); a trace already running is
    /// replaced (and its file closed).
    ///
    /// ```
    /// # fn main() -> pinrocks::Result<()> {
    /// # let dir = tempfile::tempdir().unwrap();
    /// # let mut opts = pinrocks::Options::new();
    /// # opts.create_if_missing(true);
    /// let db = pinrocks::Db::open(&opts, dir.path().join("live"))?;
    /// let trace = dir.path().join("load.trace");
    /// db.start_trace(&trace, &pinrocks::admin::TraceOptions::default())?;
    /// db.put(b"k", b"v")?;
    /// db.end_trace()?;
    /// // RocksDB's trace file: its header first.
    /// assert!(std::fs::read(&trace).unwrap().windows(16).any(|w| w == b"feedcafedeadbeef"));
    /// # Ok(()) }
    /// ```
    #[doc(alias = "StartTrace")]
    pub fn start_trace(&self, path: impl AsRef<Path>, options: &TraceOptions) -> Result<()> {
        crate::raw::reentry::refuse_inside("start_trace")?;
        let path = path_to_cstring(path.as_ref())?;
        self.inner().raw_db().start_trace(&path, &options.raw())
    }

    /// Stops the trace and closes its file (an `IOError` if none is running).
    #[doc(alias = "EndTrace")]
    pub fn end_trace(&self) -> Result<()> {
        crate::raw::reentry::refuse_inside("end_trace")?;
        self.inner().raw_db().end_trace()
    }
}

//! Tracing a database's reads and writes into a file (RocksDB's query trace), and replaying
//! such a file onto a database: to capture a service's load and run it again elsewhere.

use std::path::Path;

use crate::db::database::Db;
use crate::raw::cstr::path_to_cstring;
use crate::raw::error::{Error, Result};
use crate::raw::family::FamilyPtr;
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
    ///
    /// let replica = pinrocks::Db::open(&opts, dir.path().join("replica"))?;
    /// replica.replay_trace(&trace, 100.0)?; // a hundred times as fast
    /// assert_eq!(replica.get(b"k")?.as_deref(), Some(&b"v"[..]));
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

    /// Replays the trace file at `path` onto this database, on the calling thread: its
    /// writes are written, its reads read. The trace names column families by id: a family
    /// it names that this database does not have fails the replay. The time between
    /// operations is the trace's, divided by `fast_forward` (0.001 to 1,000,000).
    ///
    /// Refused on a database with a row cache (a trace may hold range deletes, which
    /// pinrocks keeps out of one: [`Error::RowCacheRefusesRanges`]) and on a read-only or
    /// secondary one.
    #[doc(alias = "NewDefaultReplayer")]
    pub fn replay_trace(&self, path: impl AsRef<Path>, fast_forward: f64) -> Result<()> {
        if !(0.001..=1_000_000.0).contains(&fast_forward) {
            return Err(Error::invalid(
                "fast_forward",
                format!("{fast_forward}: must be 0.001 to 1,000,000"),
            ));
        }
        let inner = self.inner();
        inner.check_writable("replay_trace")?;
        if inner.row_cache {
            return Err(Error::RowCacheRefusesRanges {
                operation: "replay_trace",
            });
        }
        let path = path_to_cstring(path.as_ref())?;
        // Held for the call: every live family of the database, by handle.
        let families: Vec<_> = inner.column_families().values().cloned().collect();
        let handles: Vec<FamilyPtr> = families.iter().map(|family| family.raw()).collect();
        // SAFETY: the handles are the database's, kept alive by `families` for the call;
        // `fast_forward` checked above.
        unsafe { inner.raw_db().replay_trace(&path, &handles, fast_forward) }
    }
}

//! Write options: one raw handle each.

use std::sync::OnceLock;

use crate::options::rate_limiter::IoPriority;
use crate::raw::ffi;
use crate::raw::setter::setter;
use crate::raw::write_ops::WriteOptionsHandle;

/// Options for writes (`rocksdb_writeoptions_t`).
pub struct WriteOptions {
    pub(crate) raw: WriteOptionsHandle,
}

// SAFETY: a plain C++ value that `DBImpl::WriteImpl` reads through a const reference and
// never writes.
unsafe impl Send for WriteOptions {}
// SAFETY: see `Send`.
unsafe impl Sync for WriteOptions {}

impl WriteOptions {
    /// RocksDB's defaults: WAL on, no fsync per write.
    pub fn new() -> Self {
        WriteOptions {
            raw: WriteOptionsHandle::new(),
        }
    }

    setter!(
        /// fsync the WAL before the write returns, so an acknowledged write survives a
        /// machine crash or power loss too. Without it, a write survives the crash of the
        /// process (it is in the OS page cache) but not of the machine.
        /// `tests/crash.rs` kills a writer with SIGKILL and finds every acknowledged write.
        sync(bool) => rocksdb_writeoptions_set_sync as u8
    );
    setter!(
        /// Skip the WAL: faster, but every acknowledged write not yet flushed to an SST file
        /// is lost if the process dies (`tests/crash.rs` shows all of them lost).
        disable_wal(bool) => rocksdb_writeoptions_disable_WAL as i32
    );
    setter!(
        /// `no_slowdown`: a write that would wait for a write stall (or a slowdown) fails at
        /// once with [`ErrorKind::WouldStall`](crate::ErrorKind::WouldStall) instead, and
        /// writes nothing. For a latency-bound writer that can shed load.
        no_slowdown(bool) => rocksdb_writeoptions_set_no_slowdown as u8
    );
    setter!(
        /// `low_pri`: a write that yields to compaction: while compaction is behind, RocksDB
        /// slows it down (or, with `no_slowdown`, fails it with `WouldStall`) before other
        /// writes. For background loads.
        low_pri(bool) => rocksdb_writeoptions_set_low_pri as u8
    );
    setter!(
        /// `ignore_missing_column_families`: RocksDB skips a batch's writes to a column
        /// family it does not know instead of failing the batch. pinrocks refuses a batch
        /// naming a family dropped through it before RocksDB sees the batch
        /// ([`Error::ColumnFamilyDropped`](crate::Error::ColumnFamilyDropped)) whatever this says.
        ignore_missing_column_families(bool) => rocksdb_writeoptions_set_ignore_missing_column_families as u8
    );

    /// `rate_limiter_priority`: charge this write's WAL writes to the database's
    /// [`RateLimiter`](crate::options::RateLimiter) (when its mode covers writes). RocksDB
    /// takes [`IoPriority::User`] or [`IoPriority::Total`] (not charged, the default), and
    /// only with the WAL on and flushed by each write: any other write fails with
    /// [`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument) and writes nothing.
    pub fn rate_limiter_priority(&mut self, priority: IoPriority) -> &mut Self {
        // Every IoPriority is an Env::IOPriority (0 to 4); RocksDB refuses all but two.
        self.raw.set_rate_limiter_priority(priority as i32);
        self
    }

    /// `protection_bytes_per_key`: 8 bytes of checksum per key, computed from the batch as
    /// it is written and checked as each entry goes into the memtable, so that a bit flipped
    /// in memory on the way fails the write with a
    /// [`Corruption`](crate::ErrorKind::Corruption) error instead of being stored. RocksDB
    /// takes 0 or 8, so this is on (8) or off (0, the default).
    #[doc(alias = "protection_bytes_per_key")]
    pub fn per_key_protection(&mut self, on: bool) -> &mut Self {
        // 0 and 8 are the values RocksDB takes.
        self.raw
            .set_protection_bytes_per_key(if on { 8 } else { 0 });
        self
    }

    /// The raw `rocksdb_writeoptions_t`, for the C API in [`ffi`](crate::ffi) where
    /// pinrocks has no setter. Valid while `self` lives; change it only while nothing
    /// writes with these options; do not destroy it.
    pub fn as_raw(&mut self) -> *mut ffi::rocksdb_writeoptions_t {
        self.raw.as_ptr()
    }

    pub(crate) fn handle(&self) -> &WriteOptionsHandle {
        &self.raw
    }

    /// RocksDB's defaults, one value for the process: what a `Writer` writes with unless
    /// told otherwise.
    pub(crate) fn defaults() -> &'static WriteOptions {
        static DEFAULTS: OnceLock<WriteOptions> = OnceLock::new();
        DEFAULTS.get_or_init(WriteOptions::new)
    }
}

impl Default for WriteOptions {
    fn default() -> Self {
        Self::new()
    }
}

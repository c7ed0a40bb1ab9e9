//! Typed setters for what tuned services set: write buffers, the level shape, stall
//! triggers, I/O, write paths, periodic compaction and the info log's housekeeping. Each
//! is one RocksDB option (named in its doc as RocksDB spells it, for `set_by_name` and the
//! OPTIONS file); what has no setter here is reachable by name
//! ([`Options::set_by_name`]).

use std::time::Duration;

use crate::options::db_options::Options;
use crate::raw::ffi;
use crate::raw::setter::setter;

/// Whole seconds, rounded up (a sub-second period is one second, not RocksDB's 0, which
/// turns the feature off). RocksDB's unit for periods and TTLs.
pub(crate) fn seconds(d: Duration) -> u64 {
    d.as_secs() + u64::from(d.subsec_nanos() > 0)
}

impl Options {
    setter!(
        /// `max_write_buffer_number`: memtables per column family, the one being written
        /// and those waiting to be flushed; writes stall when all are full.
        max_write_buffer_number(i32) => rocksdb_options_set_max_write_buffer_number
    );
    setter!(
        /// `min_write_buffer_number_to_merge`: full memtables merged into one flush. With
        /// [`atomic_flush`](Self::atomic_flush) RocksDB uses 1 whatever is set here.
        min_write_buffer_number_to_merge(i32) => rocksdb_options_set_min_write_buffer_number_to_merge
    );
    setter!(
        /// `db_write_buffer_size`: bytes of memtables across every column family of the
        /// database before a flush is forced (0: no limit). For a budget shared across
        /// databases RocksDB has a `WriteBufferManager`.
        db_write_buffer_size(usize) => rocksdb_options_set_db_write_buffer_size
    );
    setter!(
        /// `num_levels`: levels of the LSM tree (RocksDB's default is 7).
        num_levels(i32) => rocksdb_options_set_num_levels
    );
    setter!(
        /// `level_compaction_dynamic_level_bytes`: size each level from the last one up
        /// (RocksDB's default since 8.4), keeping space amplification near 1.1.
        level_compaction_dynamic_level_bytes(bool) => rocksdb_options_set_level_compaction_dynamic_level_bytes as u8
    );
    setter!(
        /// `max_bytes_for_level_base`: the target size of level 1, in bytes.
        max_bytes_for_level_base(u64) => rocksdb_options_set_max_bytes_for_level_base
    );
    setter!(
        /// `max_bytes_for_level_multiplier`: each level's target over the one above.
        max_bytes_for_level_multiplier(f64) => rocksdb_options_set_max_bytes_for_level_multiplier
    );
    setter!(
        /// `target_file_size_multiplier`: each level's SST file size over the one above.
        target_file_size_multiplier(i32) => rocksdb_options_set_target_file_size_multiplier
    );
    setter!(
        /// `max_compaction_bytes`: the most bytes one compaction takes in.
        max_compaction_bytes(u64) => rocksdb_options_set_max_compaction_bytes
    );
    setter!(
        /// `level0_slowdown_writes_trigger`: level-0 files at which writes slow down.
        level0_slowdown_writes_trigger(i32) => rocksdb_options_set_level0_slowdown_writes_trigger
    );
    setter!(
        /// `level0_stop_writes_trigger`: level-0 files at which writes stop.
        level0_stop_writes_trigger(i32) => rocksdb_options_set_level0_stop_writes_trigger
    );
    setter!(
        /// `soft_pending_compaction_bytes_limit`: bytes of pending compaction at which
        /// writes slow down (0: no limit).
        soft_pending_compaction_bytes_limit(usize) => rocksdb_options_set_soft_pending_compaction_bytes_limit
    );
    setter!(
        /// `hard_pending_compaction_bytes_limit`: bytes of pending compaction at which
        /// writes stop (0: no limit).
        hard_pending_compaction_bytes_limit(usize) => rocksdb_options_set_hard_pending_compaction_bytes_limit
    );
    setter!(
        /// `delayed_write_rate`: bytes per second writes are held to while slowed down.
        delayed_write_rate(u64) => rocksdb_options_set_delayed_write_rate
    );
    setter!(
        /// `bytes_per_sync`: sync SST files in the background every this many bytes
        /// written (0: only at the end), smoothing I/O.
        bytes_per_sync(u64) => rocksdb_options_set_bytes_per_sync
    );
    setter!(
        /// `allow_mmap_reads`: read SST files through mmap (not with direct reads).
        allow_mmap_reads(bool) => rocksdb_options_set_allow_mmap_reads as u8
    );
    setter!(
        /// `allow_mmap_writes`: write SST files through mmap (not with direct I/O).
        allow_mmap_writes(bool) => rocksdb_options_set_allow_mmap_writes as u8
    );
    setter!(
        /// `enable_pipelined_write`: the WAL and the memtable written by separate write
        /// groups, for write throughput (not with `unordered_write`).
        enable_pipelined_write(bool) => rocksdb_options_set_enable_pipelined_write as u8
    );
    setter!(
        /// `unordered_write`: writes visible out of order (snapshots still consistent), for
        /// write throughput; RocksDB documents what it gives up.
        unordered_write(bool) => rocksdb_options_set_unordered_write as u8
    );
    setter!(
        /// `two_write_queues`: a second write queue for writes that skip the memtable.
        two_write_queues(bool) => rocksdb_options_set_two_write_queues as u8
    );
    setter!(
        /// `atomic_flush`: flush every column family together, so that they stay
        /// consistent with each other without the WAL.
        atomic_flush(bool) => rocksdb_options_set_atomic_flush as u8
    );
    setter!(
        /// `keep_log_file_num`: info log files kept.
        keep_log_file_num(usize) => rocksdb_options_set_keep_log_file_num
    );
    setter!(
        /// `max_log_file_size`: bytes of an info log file before a new one (0: one file).
        max_log_file_size(usize) => rocksdb_options_set_max_log_file_size
    );
    setter!(
        /// `optimize_filters_for_hits`: no filter on the last level, for workloads whose
        /// reads mostly find their key.
        optimize_filters_for_hits(bool) => rocksdb_options_set_optimize_filters_for_hits as i32
    );

    /// `periodic_compaction_seconds`: recompact files older than `period`, in whole seconds
    /// rounded up (`Duration::ZERO`: never).
    pub fn periodic_compaction(&mut self, period: Duration) -> &mut Self {
        // SAFETY: `self.raw` is a live options handle owned by `self`.
        unsafe {
            ffi::rocksdb_options_set_periodic_compaction_seconds(self.raw.as_ptr(), seconds(period))
        };
        self
    }

    /// `ttl`: with level compaction, files whose data is older than `ttl` are compacted
    /// down (and, with FIFO, deleted), in whole seconds rounded up (`Duration::ZERO`: off).
    pub fn compaction_ttl(&mut self, ttl: Duration) -> &mut Self {
        // SAFETY: `self.raw` is a live options handle owned by `self`.
        unsafe { ffi::rocksdb_options_set_ttl(self.raw.as_ptr(), seconds(ttl)) };
        self
    }

    /// `stats_dump_period_sec`: how often statistics are written to the info log, in whole
    /// seconds rounded up, at most `u32::MAX` (`Duration::ZERO`: never).
    pub fn stats_dump_period(&mut self, period: Duration) -> &mut Self {
        let secs = u32::try_from(seconds(period)).unwrap_or(u32::MAX);
        // SAFETY: `self.raw` is a live options handle owned by `self`.
        unsafe { ffi::rocksdb_options_set_stats_dump_period_sec(self.raw.as_ptr(), secs) };
        self
    }
}

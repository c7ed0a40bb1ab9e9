//! The gate every read tier calls before RocksDB sees the read: no read from inside a
//! callback that holds one (`reentry`), and timestamps that fit the family
//! (`timestamps.rs`). Its common case is inlined into every read.

use crate::raw::error::Result;
use crate::raw::reentry;
use crate::read::reader::Reader;
use crate::read::source::ReadSource;

impl<S: ReadSource> Reader<'_, S> {
    /// `Err` where a read must not go: inside a callback that holds a read, or with
    /// timestamps that do not fit the family.
    #[inline]
    pub(super) fn check_read(&self, operation: &'static str) -> Result<()> {
        // The common case inlined into every read (no callback on this thread, no
        // timestamps anywhere), the rest out of line: measured, 30 instructions per pinned
        // read when the whole check was a call.
        if !reentry::is_inside() && self.without_timestamps() {
            return Ok(());
        }
        self.check_read_slow(operation)
    }

    #[cold]
    #[inline(never)]
    fn check_read_slow(&self, operation: &'static str) -> Result<()> {
        reentry::refuse_read_inside(operation)?;
        self.check_timestamp().map_err(|refusal| refusal.error())
    }
}

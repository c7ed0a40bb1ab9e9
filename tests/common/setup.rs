//! Options every test starts from, and the append merge operator the crash workload's model
//! follows: shared with the fuzz targets, which include this file alone.

use pinrocks::callbacks::MergeOperator;
use pinrocks::Options;

/// Options that create the database and any named column family.
pub fn create_options() -> Options {
    let mut options = Options::new();
    options
        .create_if_missing(true)
        .create_missing_column_families(true);
    options
}

/// A database at `dir` that flushes nothing before its memtable holds 1 GiB: big values stay
/// in memory, for the children that cap their address space (a flush would allocate them on
/// a background thread, past the cap, and end the process there).
pub fn open_without_flushes(dir: impl AsRef<std::path::Path>) -> pinrocks::Db {
    let mut options = create_options();
    options
        .set_by_name(&[("write_buffer_size", "1GB")])
        .unwrap();
    pinrocks::Db::open(&options, dir).unwrap()
}

/// Append-only lists: a value is its operands, concatenated (a merge appends its operand).
pub fn append() -> MergeOperator {
    MergeOperator::associative("append", |input, out| {
        let len = input.existing.map_or(0, <[u8]>::len)
            + input.operands.iter().map(<[u8]>::len).sum::<usize>();
        let buf = out.resize(len)?;
        let mut at = 0;
        for part in input.existing.into_iter().chain(input.operands.iter()) {
            buf[at..at + part.len()].copy_from_slice(part);
            at += part.len();
        }
        Ok(())
    })
}

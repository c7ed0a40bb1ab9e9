//! The one size check every write makes before RocksDB: a key and its value together must
//! fit the 32-bit size of a memtable entry, which RocksDB does not check. The other 32-bit
//! size, a batch's count of records (at most `i32::MAX`), is checked in C++
//! (`rocksdb-c/torn_records.h`), tested with a batch's header (`batch_bytes.rs`).

use crate::raw::error::{Error, Result};

/// The most bytes a key and its value (a range's two ends, an entity's serialized columns)
/// may hold together. RocksDB checks each alone (a key below 4 GiB - 8, a value up to
/// 4 GiB), but its memtable sizes an entry in 32 bits (`MemTable::Add`'s `encoded_len`: the
/// key, 8 bytes of sequence and type, two length varints of up to 5 bytes, the value, up to
/// 8 of checksum): past 4 GiB the size wraps and the copy overruns the allocation, and the
/// WAL, written first, replays the overrun at every open. Less room for timestamps (8 bytes
/// on the key, 8 on a range's end; a TTL database, which takes none, adds 4 to the value).
pub(crate) const MAX_ENTRY: usize = u32::MAX as usize - 42;

/// `Err` if `key` and `value` together are more than the memtable can size
/// ([`MAX_ENTRY`]). One addition and one compare on the way of every write.
#[inline(always)]
pub(crate) fn check_entry(operation: &'static str, key: &[u8], value: &[u8]) -> Result<()> {
    if key.len() + value.len() > MAX_ENTRY {
        return entry_too_large(operation, key.len(), value.len());
    }
    Ok(())
}

/// A key and value too large together. One over 4 GiB alone, which RocksDB refuses on
/// every write path (each checks a key and a value against `u32::MAX` at least), is left to
/// RocksDB, whose message names it.
#[cold]
#[inline(never)]
fn entry_too_large(operation: &'static str, key: usize, value: usize) -> Result<()> {
    if key > u32::MAX as usize || value > u32::MAX as usize {
        return Ok(());
    }
    Err(too_large(operation, key, value))
}

/// The refusal of a key and value too large together.
#[cold]
#[inline(never)]
pub(crate) fn too_large(operation: &'static str, key: usize, value: usize) -> Error {
    Error::invalid(
        operation,
        format!(
            "a key of {key} bytes and a value of {value} together: RocksDB's memtable sizes an \
             entry in 32 bits (at most {MAX_ENTRY} bytes of key and value)"
        ),
    )
}

//! Compression of SST blocks: one algorithm, or one per level, a different one for the
//! bottom level, and zstd's dictionaries.

use std::ffi::c_int;

use crate::raw::c_consts::*;
use crate::raw::options_handle::OptionsHandle;

/// Block compression for SST files. Only the algorithms compiled in (the `lz4`, `zstd`,
/// `snappy`, `zlib` and `bzip2` features, all on by default) can be used; RocksDB rejects
/// others when the database opens. (RocksDB's Xpress exists only on Windows.)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// No compression.
    None,
    /// Snappy (feature `snappy`).
    Snappy,
    /// LZ4 (feature `lz4`).
    Lz4,
    /// LZ4HC (feature `lz4`).
    Lz4hc,
    /// Zstandard (feature `zstd`).
    Zstd,
    /// zlib's deflate (feature `zlib`).
    Zlib,
    /// bzip2 (feature `bzip2`).
    Bzip2,
}

impl Compression {
    pub(crate) fn raw(self) -> c_int {
        (match self {
            Compression::None => NO_COMPRESSION,
            Compression::Snappy => SNAPPY_COMPRESSION,
            Compression::Lz4 => LZ4_COMPRESSION,
            Compression::Lz4hc => LZ4HC_COMPRESSION,
            Compression::Zstd => ZSTD_COMPRESSION,
            Compression::Zlib => ZLIB_COMPRESSION,
            Compression::Bzip2 => BZ2_COMPRESSION,
        }) as c_int
    }
}

/// Compression settings beyond the algorithm: its level and, for zstd, a dictionary trained
/// per SST file from samples of its blocks (small values compress much better with one).
///
/// ```
/// use pinrocks::Options;
/// use pinrocks::options::{Compression, CompressionOptions};
/// let mut options = Options::new();
/// options
///     .compression_per_level(&[Compression::None, Compression::None, Compression::Lz4])
///     .bottommost_compression(Compression::Zstd)
///     .bottommost_compression_options(&CompressionOptions::zstd_dictionary(16 << 10, 100 << 10));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CompressionOptions {
    /// The algorithm's level (`None`: its default).
    pub level: Option<i32>,
    /// Size of the dictionary per SST file; 0 means none.
    pub max_dict_bytes: u32,
    /// Bytes of samples zstd trains the dictionary on; 0 uses the samples as the dictionary.
    pub zstd_max_train_bytes: u32,
}

impl CompressionOptions {
    /// A zstd dictionary of `dict_bytes`, trained on up to `train_bytes` of samples.
    pub fn zstd_dictionary(dict_bytes: u32, train_bytes: u32) -> Self {
        CompressionOptions {
            level: None,
            max_dict_bytes: dict_bytes,
            zstd_max_train_bytes: train_bytes,
        }
    }

    /// RocksDB's `CompressionOptions::level` default: the library's own default level.
    const DEFAULT_LEVEL: c_int = 32767;

    /// Sets these on `options`, for the bottom level if `bottommost`.
    pub(crate) fn apply(&self, options: &mut OptionsHandle, bottommost: bool) {
        let level = self.level.unwrap_or(Self::DEFAULT_LEVEL);
        let dict = self.max_dict_bytes as c_int;
        let train = self.zstd_max_train_bytes as c_int;
        options.set_compression_options(bottommost, level, dict, train);
    }
}

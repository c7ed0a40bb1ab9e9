//! The sweep's keys, values and key counts (`benches/sweep/base.rs`, mounted by main.rs as
//! `base`: this bench reads exactly the sweep's keys and values), and what a reader does
//! with the bytes.

pub use crate::base::{key, key_count, random_keys, value};

/// What the reader does with the bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Consumer {
    /// The length and the last byte: the value must be there, but only one byte of it is
    /// touched (the sweep's `len` consumer reads the length alone).
    LenByte,
    /// Every byte, summed (the sweep's `checksum` consumer), as a parser of the whole value.
    Sum,
}

impl Consumer {
    pub const ALL: [Consumer; 2] = [Consumer::LenByte, Consumer::Sum];

    pub fn name(self) -> &'static str {
        match self {
            Consumer::LenByte => "length + one byte",
            Consumer::Sum => "every byte",
        }
    }

    #[inline]
    pub fn consume(self, value: &[u8]) -> u64 {
        match self {
            Consumer::LenByte => value.len() as u64 + value.last().map_or(0, |&b| u64::from(b)),
            Consumer::Sum => value
                .iter()
                .fold(0u64, |sum, &b| sum.wrapping_add(u64::from(b))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Fixed bytes (the random keys from an independent xorshift64 in Python): a change to
    // the sweep's keys or values shows here as well as in the sweep's reports.
    #[test]
    fn the_sweeps_keys_and_values() {
        assert_eq!(key(7), b"key-000007");
        assert_eq!(key(123_456), b"key-123456");
        assert_eq!(value(3, 8), [93, 94, 95, 96, 97, 98, 99, 100]);
        assert_eq!(value(9, 4), [23, 24, 25, 26]);
        assert_eq!(value(0, 300)[255..258], [255, 0, 1]);
        assert_eq!(
            [8, 128, 1024, 4096, 65536, 1 << 20].map(key_count),
            [4096, 4096, 4096, 4096, 4096, 256]
        );
        let keys = random_keys(4096);
        assert_eq!(keys.len(), 4096);
        assert_eq!(keys[..3], [key(3501), key(118), key(310)]);
        assert_eq!(random_keys(16).len(), 1024);
    }

    #[test]
    fn consumers() {
        assert_eq!(Consumer::LenByte.consume(&[1, 2, 250]), 3 + 250);
        assert_eq!(Consumer::Sum.consume(&[1, 2, 250]), 253);
    }
}

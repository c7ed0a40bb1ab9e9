//! The typed section (`typed.rs`) where the build has the record codecs (features `serde`,
//! `postcard`, `rkyv` and `flatbuffers`, which `scripts/setup.sh`'s `sweep_binary` turns
//! on), and a message that names them where it has not: the rest of the sweep builds and
//! runs with the default features.

#[cfg(all(
    feature = "serde",
    feature = "postcard",
    feature = "rkyv",
    feature = "flatbuffers"
))]
pub use crate::typed::{main as section, per_read, PATHS};

#[cfg(not(all(
    feature = "serde",
    feature = "postcard",
    feature = "rkyv",
    feature = "flatbuffers"
)))]
pub use without::*;

#[cfg(not(all(
    feature = "serde",
    feature = "postcard",
    feature = "rkyv",
    feature = "flatbuffers"
)))]
mod without {
    /// No typed paths without the record codecs.
    pub const PATHS: [&str; 0] = [];

    fn missing() -> ! {
        panic!(
            "the typed section needs the record codecs: build the sweep with \
             --features serde,postcard,rkyv,flatbuffers (scripts/sweep.sh does)"
        )
    }

    pub fn section(_out: &std::path::Path, _quick: bool) {
        missing()
    }

    pub fn per_read(_name: &str, _size: usize, _reads: usize) -> u64 {
        missing()
    }
}

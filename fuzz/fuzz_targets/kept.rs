//! What the targets that keep their databases from one input to the next (`operations`,
//! `pin_owners`) share: how many inputs a database serves before a fresh one replaces it.

use std::sync::OnceLock;

/// Inputs run on the kept databases before fresh ones replace them: 256, or
/// `PINROCKS_FUZZ_INPUTS_PER_DATABASE` (1 gives every input databases of its own, so a
/// crash that repeats then needs nothing but its input).
pub fn inputs_per_database() -> u32 {
    static N: OnceLock<u32> = OnceLock::new();
    *N.get_or_init(|| {
        std::env::var("PINROCKS_FUZZ_INPUTS_PER_DATABASE")
            .map(|n| {
                n.parse()
                    .expect("PINROCKS_FUZZ_INPUTS_PER_DATABASE: a number")
            })
            .unwrap_or(256)
    })
}

//! Hostile values for random option names through every path that sets options, then a
//! database's whole life (tests/soundness/option_fuzz.rs): only an `Err` or a database that
//! gives back every byte may come of it. fuzz.sh runs it without AddressSanitizer under an
//! address-space limit (`ulimit -v`), with libFuzzer's per-input timeout as the watchdog.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/soundness/option_fuzz.rs"]
mod option_fuzz;

static NAMES: OnceLock<Vec<(String, &'static str)>> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let names = NAMES.get_or_init(option_fuzz::names);
    option_fuzz::run(data, names);
});

//! The crash test driven by the fuzzer: the workload of `tests/operations/crash_workload.rs`
//! (puts, deletes, merges, batches over families, range deletes or two-phase transactions,
//! families created and dropped, flushes, compactions, ingest; flushes and compactions
//! failing, writes meeting a full disk or a failing WAL) over a `FaultFs` in memory, each
//! choice one byte of the input, each cycle ending in a power loss (all unsynced data, or a
//! random part of each file's) or a kill, then the reopen checked against the same
//! expected-state model. A violation panics with what the model expected.
#![no_main]

use libfuzzer_sys::fuzz_target;

/// The tests' own options and merge operator (the model's append).
#[path = "../../tests/common/setup.rs"]
mod common;

#[path = "../../tests/operations/crash_workload.rs"]
#[allow(dead_code)]
mod crash_workload;

fuzz_target!(|data: &[u8]| {
    if let Err(violation) = crash_workload::run_fuzzed(data) {
        panic!("{violation}");
    }
});

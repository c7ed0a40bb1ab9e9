#!/usr/bin/env bash
# The test command: formatting, lints, the docs, the sweep in quick mode (a smoke test of
# the benchmark harness and its report; no timing is judged), the unsafe paths' tests
# under valgrind memcheck, then every test and doctest.
# Everything runs in the release profile so RocksDB is compiled once, for tests and
# benchmarks alike.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

cargo fmt --check
cargo clippy --release --all-targets --all-features -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc --release --no-deps --all-features
scripts/sweep.sh --quick >/dev/null
echo "sweep harness: ok ($CARGO_TARGET_DIR/pinrocks-sweep-quick/report.md)"
scripts/memcheck.sh
cargo test --release --all-features

#!/usr/bin/env bash
# The test command: formatting, lints, every test and doctest, and the docs.
# Everything runs in the release profile so RocksDB is compiled once, for tests and
# benchmarks alike.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

cargo fmt --check
cargo clippy --release --all-targets --all-features -- -D warnings
cargo test --release --all-features
RUSTDOCFLAGS="-D warnings" cargo doc --release --no-deps --all-features

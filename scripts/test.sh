#!/usr/bin/env bash
# The test command: formatting (Rust and our C++), lints, the docs (and as docs.rs builds
# them, without RocksDB), the sweep and the engines bench in quick mode (smoke tests of the
# benchmark harnesses; no timing is judged), the unsafe paths' tests under valgrind
# memcheck, every test and doctest, the user examples, then the package.
# Everything but the package check runs in the release profile so RocksDB is compiled
# once for tests and benchmarks alike.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

cargo fmt --check
scripts/clang-format-check.sh
cargo clippy --release --all-targets --features "$PINROCKS_TEST_FEATURES" -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc --release --no-deps --features "$PINROCKS_TEST_FEATURES"
scripts/docs-rs.sh
scripts/sweep.sh --quick >/dev/null
echo "sweep harness: ok ($CARGO_TARGET_DIR/pinrocks-sweep-quick/report.md)"
# The engines bench (benches/engines/, a workspace member the commands above do not build):
# its lints, its tests (the sweep's keys and values pinned to fixed bytes) and a quick run.
cargo clippy --release -p pinrocks-engines --all-targets -- -D warnings
cargo test --quiet --release -p pinrocks-engines
scripts/engines.sh --quick >/dev/null
echo "engines bench: ok"
scripts/memcheck.sh
cargo test --release --features "$PINROCKS_TEST_FEATURES"
# rkyv's other format (a build-wide choice): the rkyv tests, every pinned value in place.
cargo test --quiet --release --features "$PINROCKS_TEST_FEATURES,rkyv-unaligned" --test reads typed_rkyv
# The examples a user would copy, run as they are.
for example in typed_table typed_records flat_records hot_path scan migrate_from_rocksdb transaction_retry merge_counter \
    backup_restore shared_service; do
    cargo run --quiet --release --features "$PINROCKS_TEST_FEATURES" --example "$example" >/dev/null
done
cargo run --quiet --release --features "$PINROCKS_TEST_FEATURES" --example service_monitor -- 2 >/dev/null
echo "examples: typed_table typed_records flat_records hot_path scan migrate_from_rocksdb transaction_retry merge_counter" \
    "backup_restore shared_service service_monitor ran"
# The package as crates.io would get it: Cargo.toml's include list, built on its own in the
# dev profile (the first run compiles RocksDB once more, unoptimized, about 17 minutes on
# 2 cores; then it is cached), nothing uploaded. Needs the crates.io index, as any build.
cargo publish --dry-run --allow-dirty --quiet
echo "package: cargo publish --dry-run passed"


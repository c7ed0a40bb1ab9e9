#!/usr/bin/env bash
# The engines a Rust user weighs instead: warm point reads through pinrocks' pinned read,
# the `rocksdb` crate's get_pinned, heed (LMDB) and fjall, every way of a cell timed in the
# same interleaved rounds, with allocations per read (benches/engines/, a workspace member
# the root's cargo commands do not build). 23 s on the 2-core EPYC VM once built; the first
# build of heed and fjall adds about 25 s (RocksDB is the sweep's build, not a second one).
# A markdown report on stdout (docs/reports/engines-2026-12-03-epyc.md is one).
#
#   scripts/engines.sh [--quick]   (--quick: 2 rounds of 1 ms, two sizes, under a second
#                                   once built: proves it runs, its timings mean nothing)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
cargo build --quiet --release -p pinrocks-engines
# Versions as Cargo.lock resolved them.
locked() {
    awk -v name="$1" '$0 == "name = \"" name "\"" { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock
}
echo "Machine: $(nproc) cores, $(awk '/^MemTotal/ { printf "%.1f", $2 / 1048576 }' /proc/meminfo) GiB," \
    "$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1), $(uname -sr), $(rustc --version)"
echo
echo "Crates: librocksdb-sys $(locked librocksdb-sys), rocksdb $(locked rocksdb)," \
    "heed $(locked heed) (lmdb-master-sys $(locked lmdb-master-sys)), fjall $(locked fjall)" \
    "(lsm-tree $(locked lsm-tree))."
echo
"$CARGO_TARGET_DIR/release/pinrocks-engines" "$@"

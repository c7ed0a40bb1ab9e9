#!/usr/bin/env bash
# The main job: the value-size sweep. Runs the criterion benchmark (every tier, the
# `rocksdb` crate as the peer, raw C calls as the floor; memtable and block cache; length-only
# and every-byte consumers), counts instructions and allocations per read under valgrind,
# and writes the report ($CARGO_TARGET_DIR/pinrocks-sweep/report.md) and a log-log plot
# (sweep.svg) beside it. About 25 minutes on 2 cores once RocksDB is built.
#
#   scripts/sweep.sh            the full sweep
#   scripts/sweep.sh --quick    every cell briefly, no valgrind: proves the harness works
#   PINROCKS_SIZES=8,4096 scripts/sweep.sh   fewer sizes
#   PINROCKS_LIBCXX=1 scripts/sweep.sh       also the clang + libc++ build's allocations
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

quick=0
[ "${1:-}" = "--quick" ] && quick=1
# A quick run keeps its own directories, so it never overwrites a full sweep's report.
suffix=""
[ "$quick" = 1 ] && suffix="-quick"
out="$CARGO_TARGET_DIR/pinrocks-sweep$suffix"
export CRITERION_HOME="$CARGO_TARGET_DIR/criterion$suffix"
mkdir -p "$out"
# Only this run's cells go into the report.
rm -rf "$CRITERION_HOME" "$out"/*.md "$out"/*.svg

machine="$(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), \
$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1), $(uname -sr)"

if [ "$quick" = 1 ]; then
    PINROCKS_QUICK=1 cargo bench --bench sweep
    "$(sweep_binary)" merge --quick >"$out/merge.md"
else
    cargo bench --bench sweep
    # Reads of keys with 1, 10 and 100 pending merge operands, ours and the peer's.
    "$(sweep_binary)" merge >"$out/merge.md"
    scripts/count-merge-reads.sh >"$out/merge-allocations.md"
    scripts/count-per-read.sh instructions "8 128 1024" >"$out/instructions.md"
    scripts/count-per-read.sh allocations "8 128 1024 4096 65536 1048576" >"$out/allocations.md"
    # With PINROCKS_LIBCXX=1, the libc++ build's counts beside the default build's (the
    # first run compiles RocksDB with clang, about 15 minutes more).
    if [ "${PINROCKS_LIBCXX:-0}" = 1 ]; then
        scripts/zero-alloc.sh "8 4096 1048576" >"$out/zero-alloc.md" || true
    fi
fi
"$(sweep_binary)" report "$CRITERION_HOME" "$out" "$machine"

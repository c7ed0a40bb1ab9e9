#!/usr/bin/env bash
# The main job: the value-size sweep. Times every tier (the `rocksdb` crate as the peer,
# raw C calls as the floor) in paired, interleaved rounds (`sweep run`: memtable, block
# cache, no block cache, concurrent readers on LRU and HyperClock caches and the hot-read profile; length-only and
# every-byte consumers); times scans (`sweep scans`), batches (`sweep batches`), large
# memtable values pinned in place (`sweep memtable`), reads against database size (`sweep
# scale`, plot scale.svg), reads of merged keys, in transactions
# and of values in blob files (`sweep blobs`), typed reads of records through every codec
# (`sweep typed`, plot typed.svg), what every kind of write costs (`sweep writes`, plot
# writes.svg) and writers across cores (`sweep concurrent-writes`); counts
# instructions and allocations per read and per write
# under valgrind, and writes the report ($CARGO_TARGET_DIR/pinrocks-sweep/report.md) and four
# log-log plots (sweep.svg, ratio.svg, scale.svg, typed.svg, writes.svg) beside it. 8 min 50 s
# on the 2-core EPYC VM once RocksDB is built (2026-12-07; 10 min 19 s the day before, in a
# slower state of the VM), before the writes grew: their sections and counts add about 3 min
# 40 s (measured apart: writes 1 min 40 s, concurrent-writes 25 s, per-write counts 99 s). (`cargo bench --bench sweep`
# still runs criterion over the block cache and memtable cells, for its statistics and HTML
# on single cells.)
#
#   scripts/sweep.sh            the full sweep
#   scripts/sweep.sh --quick    every cell briefly, no valgrind: proves the harness works
#   PINROCKS_SIZES=8,4096 scripts/sweep.sh   fewer sizes (your settings: `sweep --help`)
#   PINROCKS_LIBCXX=1 scripts/sweep.sh       also the clang + libc++ build's allocations
#   scripts/sweep.sh --help     the sweep binary's sections and flags
#   scripts/sweep.sh scans --quick           one section of the binary (any of --help's)
#   scripts/sweep.sh concurrent OUT --threads 1,2,4,8,16   readers across cores: LRU,
#                               HyperClockCache and the hot-read profile, both libraries
set -euo pipefail
caller="$PWD"
cd "$(dirname "$0")/.."
source scripts/setup.sh

bin=$(sweep_binary)
[ -x "$bin" ] || need "could not build the sweep binary (cargo bench --bench sweep --no-run)"
# A section, or the binary's help: the binary itself, in the caller's directory (its paths
# are the caller's).
case "${1:-}" in
"" | --quick) ;;
*) cd "$caller" && exec "$bin" "$@" ;;
esac

quick=0
[ "${1:-}" = "--quick" ] && quick=1
# A quick run keeps its own directories, so it never overwrites a full sweep's report.
suffix=""
[ "$quick" = 1 ] && suffix="-quick"
out="$CARGO_TARGET_DIR/pinrocks-sweep$suffix"
mkdir -p "$out"
# Only this run's cells go into the report.
rm -f "$out"/*.md "$out"/*.svg "$out"/samples.tsv

machine="$(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), \
$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1), $(uname -sr)"

if [ "$quick" = 1 ]; then
    "$bin" run "$out" --quick
    "$bin" scans --quick >"$out/scans.md"
    "$bin" batches --quick >"$out/batches.md"
    "$bin" memtable --quick >"$out/memtable.md"
    "$bin" scale "$out" --quick >/dev/null
    "$bin" merge --quick >"$out/merge.md"
    "$bin" txn --quick >"$out/txn.md"
    "$bin" blobs --quick >"$out/blobs.md"
    "$bin" watched --quick >"$out/watched.md"
    "$bin" writes "$out" --quick >/dev/null
    "$bin" concurrent-writes "$out" --quick >/dev/null
    "$bin" typed "$out" --quick >/dev/null
else
    # Timing has the machine to itself; then the deterministic counts (no clock) run one
    # per core. Each part's duration goes to stderr: where to trim when the sweep grows.
    SECONDS=0
    "$bin" run "$out"
    "$bin" scans >"$out/scans.md"
    "$bin" batches >"$out/batches.md"
    "$bin" memtable >"$out/memtable.md"
    # 10^4 to 10^6 keys; `sweep scale <dir> --long` adds 10^7 (by hand: minutes more).
    "$bin" scale "$out" >/dev/null
    "$bin" merge >"$out/merge.md"
    "$bin" txn >"$out/txn.md"
    "$bin" blobs >"$out/blobs.md"
    "$bin" watched >"$out/watched.md"
    "$bin" writes "$out" >/dev/null
    "$bin" concurrent-writes "$out" >/dev/null
    "$bin" typed "$out" >/dev/null
    echo "sweep: timing took ${SECONDS} s" >&2
    SECONDS=0
    # Each count script runs its valgrind runs one per core; a run gives both counts, kept
    # for the other table (`per_read_count` in setup.sh).
    PINROCKS_COUNT_CACHE=$(mktemp -d)
    export PINROCKS_COUNT_CACHE
    trap 'rm -rf "$PINROCKS_COUNT_CACHE"' EXIT
    scripts/count-per-read.sh instructions "8 128 1024" >"$out/instructions.md"
    scripts/count-per-read.sh allocations "8 4096 1048576" >"$out/allocations.md"
    scripts/count-per-read.sh allocations "1048576" "$("$bin" blob-paths)" \
        >"$out/blob-allocations.md"
    # Each instruction count beside the previous report's (the newest committed report of a
    # machine with this CPU model that has them; PINROCKS_PREVIOUS_REPORT names another), so
    # a regression shows as a difference.
    model="$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)"
    previous="${PINROCKS_PREVIOUS_REPORT:-}"
    if [ -z "$previous" ]; then
        for report in $(ls docs/reports/sweep-*.md | sort); do
            if grep -q "Instructions per read" "$report" && grep -qF "Machine: $(nproc) cores" "$report" &&
                grep -qF -- "$model" "$report"; then
                previous="$report"
            fi
        done
    fi
    if [ -n "$previous" ]; then
        mv "$out/instructions.md" "$out/instructions-now.md"
        python3 scripts/counts-beside.py "$previous" "$out/instructions-now.md" >"$out/instructions.md"
    fi
    scripts/count-merge-reads.sh >"$out/merge-allocations.md"
    # Per write: every write way (`sweep write-paths`), 1,024 writes each (a whole number of
    # every way's calls: batches of up to 1,024), WAL on, at 16 B and 4 KiB.
    write_paths="$("$bin" write-paths)"
    PINROCKS_COUNT_READS=1024 scripts/count-per-read.sh instructions "16 4096" "$write_paths" |
        sed '1s/per read/per write/' >"$out/write-instructions.md"
    PINROCKS_COUNT_READS=1024 scripts/count-per-read.sh allocations "16 4096" "$write_paths" |
        sed '1s/per read/per write/' >"$out/write-allocations.md"
    # Typed reads of records, one run per format, consumer and size, beside the pinned read
    # of plain values of those sizes (what every typed read adds to): both tables.
    typed_sizes="64 512 4096 65536"
    typed_paths="pinned $("$bin" typed-paths)"
    scripts/count-per-read.sh allocations "$typed_sizes" "$typed_paths" >"$out/typed-allocations.md"
    scripts/count-per-read.sh instructions "$typed_sizes" "$typed_paths" >"$out/typed-instructions.md"
    echo "sweep: valgrind counts took ${SECONDS} s" >&2
    # With PINROCKS_LIBCXX=1, the libc++ build's counts beside the default build's (the
    # first run compiles RocksDB with clang, about 15 minutes more).
    if [ "${PINROCKS_LIBCXX:-0}" = 1 ]; then
        scripts/zero-alloc.sh "8 4096 1048576" >"$out/zero-alloc.md" || true
    fi
fi
"$bin" report "$out" "$out" "$machine"

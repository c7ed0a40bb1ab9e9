#!/usr/bin/env bash
# Per-read counts under valgrind, both sides of the FFI boundary, deterministic (no clock):
#   allocations   heap allocations (calls to the C allocator: C++ `new` and Rust alike)
#   instructions  instructions executed (callgrind's Ir)
# both from one callgrind run, of the reads alone
# Each tier (and each other read path: multi_get per key, iterate per entry, typed) reads
# from the block cache; how each count is made: `per_read_count` in setup.sh. The runs go
# PINROCKS_COUNT_JOBS at a time (default: one per core): each is one process, alone with
# its own database.
#
# scripts/count-per-read.sh allocations|instructions [sizes, default "8 4096 1048576"]
#     [tiers and paths, default all]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
what="${1:?usage: count-per-read.sh allocations|instructions [sizes]}"
sizes="${2:-8 4096 1048576}"
require_valgrind
bin=$(sweep_binary)
export BIN="$bin"
[ -x "$bin" ] || need "could not build the sweep binary (cargo bench --bench sweep --no-run)"
tiers="${3:-$("$bin" tiers) $("$bin" paths)}"
case "$what" in
allocations | instructions) ;;
*) need "unknown count: $what (allocations or instructions)" ;;
esac

results=$(mktemp)
trap 'rm -f "$results"' EXIT
export -f per_read_count need
# One line per run, "tier size count", in whatever order the runs end.
for tier in $tiers; do
    for size in $sizes; do echo "$tier $size"; done
done | xargs -P "${PINROCKS_COUNT_JOBS:-$(nproc)}" -L 1 bash -c \
    'echo "$1 $2 $(per_read_count "$0" "$BIN" per-read "$1" "$2")"' "$what" >"$results"

printf '| %s per read |' "$what"
for size in $sizes; do printf ' %s B |' "$size"; done
printf '\n|---|'
for _ in $sizes; do printf '%s' '---:|'; done
printf '\n'
for tier in $tiers; do
    printf '| %s |' "$tier"
    for size in $sizes; do
        printf ' %s |' "$(awk -v t="$tier" -v s="$size" '$1 == t && $2 == s { print $3 }' "$results")"
    done
    printf '\n'
done

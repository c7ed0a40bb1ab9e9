#!/usr/bin/env bash
# Per-read counts under valgrind, both sides of the FFI boundary, deterministic (no clock):
#   allocations   heap allocations (memcheck's heap totals; C++ `new` and Rust alike)
#   instructions  instructions executed (callgrind's Ir)
# Each tier (and each other read path: multi_get per key, iterate per entry, typed) reads
# from the block cache at two read counts; the difference divided by the extra reads
# removes opening, populating, warming up and closing.
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
[ -x "$bin" ] || need "could not build the sweep binary (cargo bench --bench sweep --no-run)"
tiers="${3:-$("$bin" tiers) $("$bin" paths)}"
case "$what" in
allocations | instructions) ;;
*) need "unknown count: $what (allocations or instructions)" ;;
esac

printf '| %s per read |' "$what"
for size in $sizes; do printf ' %s B |' "$size"; done
printf '\n|---|'
for _ in $sizes; do printf '%s' '---:|'; done
printf '\n'
for tier in $tiers; do
    printf '| %s |' "$tier"
    for size in $sizes; do
        printf ' %s |' "$(per_read_count "$what" "$bin" per-read "$tier" "$size")"
    done
    printf '\n'
done

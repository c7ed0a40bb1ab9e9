#!/usr/bin/env bash
# Heap allocations per read of a merged key (a u64 counter with 1, 10 and 100 operands
# pending in the memtable), both sides of the FFI boundary, pinrocks' pinned read and merge
# operator against the `rocksdb` crate's `get_pinned` and merge operator, under valgrind.
# Same method as count-per-read.sh (`per_read_count` in setup.sh): one callgrind run, the
# allocator calls of the reads alone, divided by their number.
#
# scripts/count-merge-reads.sh [operand counts, default "1 10 100"]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
counts="${1:-1 10 100}"
require_valgrind
bin=$(sweep_binary)
[ -x "$bin" ] || need "could not build the sweep binary (cargo bench --bench sweep --no-run)"
printf '| allocations per merged read |'
for n in $counts; do printf ' %s operands |' "$n"; done
printf '\n|---|'
for _ in $counts; do printf '%s' '---:|'; done
printf '\n'
for side in ours peer; do
    case "$side" in
    ours) printf '| pinrocks `get_pinned`, `MergeOperator::fold` |' ;;
    peer) printf '| rocksdb `get_pinned`, `set_merge_operator_associative` |' ;;
    esac
    for n in $counts; do
        count=$(per_read_count allocations "$bin" merge-per-read "$side" "$n")
        printf ' %s |' "$count"
    done
    printf '\n'
done

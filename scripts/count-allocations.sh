#!/usr/bin/env bash
# Heap allocations per read, both sides of the FFI boundary, from valgrind's heap totals:
# each tier runs at two read counts and the difference is divided by the extra reads, so
# opening, warming up and closing cancel out. Deterministic: no clock involved.
#
# scripts/count-allocations.sh [sizes, default "8 4096 1048576"]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
command -v valgrind >/dev/null || {
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        apt-get update -qq && apt-get install -y -qq valgrind >/dev/null
    else
        need "valgrind is missing (Debian: apt-get install -y valgrind)"
    fi
}
cargo build --release --example alloc_count >&2
bin="$CARGO_TARGET_DIR/release/examples/alloc_count"
sizes="${1:-8 4096 1048576}"
tiers="vec buffer pinned pinned_v2 guard bytes rocksdb_get rocksdb_get_pinned"
low=200
high=1200

allocs() {
    valgrind --tool=memcheck --leak-check=no "$bin" "$1" "$2" "$3" 2>&1 |
        sed -n 's/.*total heap usage: \([0-9,]*\) allocs.*/\1/p' | tr -d ,
}

printf '| tier |'
for size in $sizes; do printf ' %s B |' "$size"; done
printf '\n|---|'
for _ in $sizes; do printf '%s' '---:|'; done
printf '\n'
for tier in $tiers; do
    printf '| %s |' "$tier"
    for size in $sizes; do
        a=$(allocs "$tier" "$size" $low)
        b=$(allocs "$tier" "$size" $high)
        printf ' %s |' "$(awk -v a="$a" -v b="$b" -v n=$((high - low)) 'BEGIN { printf "%.2f", (b - a) / n }')"
    done
    printf '\n'
done

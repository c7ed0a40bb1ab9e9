#!/usr/bin/env bash
# Heap allocations per read, both sides of the FFI boundary (valgrind's heap totals), on
# the default build (GCC, libstdc++) and on the clang + libc++ build (scripts/libcxx.sh),
# for every read path that should allocate nothing: the buffer tier, the one-call pinned
# read (ours, the raw C call, and ours on a row-cache hit of the hot-read profile), a
# pinned multi-get (per key), forward iteration (per step), a seek, a typed read. Fails if
# any is above zero on the libc++ build, except the two that RocksDB itself allocates for,
# which are shown and named: backward iteration (`DataBlockIter`'s cache of previous
# entries) and a multi-get whose keys share a data block (one `SharedCleanablePtr` per
# shared block). The default build's counts (one per
# point read: RocksDB's `Defer`) are shown beside them. docs/zero-allocation-reads.md.
#
# scripts/zero-alloc.sh [sizes, default "8 4096 1048576"]
#     (about 10 minutes once both builds exist; the first libc++ build adds ~15)
set -euo pipefail
cd "$(dirname "$0")/.."
sizes="${1:-8 4096 1048576}"
paths="buffer pinned raw_pinned hot_pinned multi_get iterate iterate_back seek typed"

default=$(bash scripts/count-per-read.sh allocations "$sizes" "$paths")
libcxx=$(bash scripts/libcxx.sh bash scripts/count-per-read.sh allocations "$sizes" "$paths")

# Both tables, cell by cell as "default / libc++"; fails on any libc++ cell above zero.
python3 - "$default" "$libcxx" "$paths" "$sizes" <<'PY'
import sys
default, libcxx, paths, sizes = sys.argv[1:]
def rows(table):
    lines = [l for l in table.splitlines() if l.startswith("|")]
    return lines[0], {l.split("|")[1].strip(): [c.strip() for c in l.split("|")[2:-1]] for l in lines[2:]}
head, d = rows(default)
_, l = rows(libcxx)
print("Heap allocations per read, both sides of the FFI boundary (valgrind), default build / libc++ build:\n")
print(head.replace("allocations per read", "path"))
print("|---|" + "---:|" * (head.count("|") - 2))
# RocksDB's own, named in docs/zero-allocation-reads.md: not ours to remove.
def rocksdb_allocates(name, size):
    if name == "iterate_back":
        return ("DataBlockIter::PrevImpl caches the previous entries of a block (a vector and a "
                "string); SeekForPrev builds a new table iterator (LevelIterator::InitFileIterator)")
    if name == "multi_get" and int(size) < 4096:
        return "keys that share a data block share its pin through one SharedCleanablePtr"
    return None
bad, named = [], {}
for name, cells in l.items():
    print(f"| {name} | " + " | ".join(f"{a} / {b}" for a, b in zip(d[name], cells)) + " |")
    for size, b in zip(sizes.split(), cells):
        if float(b) > 0:
            why = rocksdb_allocates(name, size)
            if why:
                named[name] = why
            else:
                bad.append(f"{name} at {size} B: {b}")
for name, why in named.items():
    print(f"\n{name}: RocksDB's own allocation: {why}")
if bad:
    print("\nzero-alloc: FAILED, heap allocations per read on the libc++ build: " + "; ".join(bad))
    sys.exit(1)
print(f"\nzero-alloc: no heap allocation per read on the libc++ build ({paths}; sizes {sizes} B)")
PY

#!/usr/bin/env python3
"""Instructions and heap allocations in one callgrind dump (the reads between
`callgrind::zero_stats` and `callgrind::dump_stats` in benches/sweep/, one thread's file
with --separate-threads=yes): prints "<instructions> <allocations>".

Instructions: the dump's `summary` (the thread's cost since the zeroing; its `totals` line
also counts what was on the stack at the dump). Allocations: the calls to the C allocator's
entry points, whoever made them (C++ `operator new` and Rust's allocator call `malloc`,
`posix_memalign` or `realloc`): what memcheck's "allocs" counts, less the calls it counts
at `operator new` itself.

scripts/callgrind-counts.py DUMP
"""
import re
import sys

ALLOCATORS = {"malloc", "calloc", "realloc", "posix_memalign", "aligned_alloc", "memalign", "valloc"}
# The same entry points as glibc names them inside (with its debug symbols).
ALLOCATORS |= {"__libc_" + name for name in ALLOCATORS}


def counts(path):
    names = {}  # compressed id -> name
    instructions = None
    allocations = 0
    target = None
    caller = ""  # the function whose calls the lines now list
    with open(path) as dump:
        for line in dump:
            if line.startswith("summary:"):
                instructions = int(line.split()[1])
            elif line.startswith("cfn="):
                m = re.match(r"cfn=\((\d+)\)(?: (.*))?", line.rstrip("\n"))
                if m.group(2) is not None:
                    names[m.group(1)] = m.group(2)
                target = names.get(m.group(1), "")
            elif line.startswith(("fn=", "fl=", "fi=", "fe=")):
                m = re.match(r"fn=\((\d+)\) (.*)", line.rstrip("\n"))
                if m:
                    names[m.group(1)] = m.group(2)
                if line.startswith("fn="):
                    m = re.match(r"fn=\((\d+)\)", line)
                    caller = names.get(m.group(1), "") if m else ""
                    target = None
            elif line.startswith("calls=") and target is not None:
                # Recursion levels show as "malloc'2". An allocator calling another
                # (glibc's posix_memalign of a small alignment calls malloc) is one
                # allocation, as memcheck counts it.
                if target.split("'")[0] in ALLOCATORS and caller.split("'")[0] not in ALLOCATORS:
                    allocations += int(line.split("=")[1].split()[0])
                target = None
    if instructions is None:
        sys.exit(f"{path}: no summary line (not a callgrind dump?)")
    return instructions, allocations


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    print(*counts(sys.argv[1]))

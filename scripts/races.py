#!/usr/bin/env python3
"""Reads a helgrind log and sorts each reported race by who owns the raced memory.

helgrind models pthread locks, not atomics: RocksDB's lock-free structures (write thread,
skip list, arena, caches, statistics) and Rust's std (channels, `Arc`, the futex-based
`Mutex`/`RwLock`) synchronize through acquire/release atomics that it cannot see, so it
reports their accesses as races. Those are not ours to judge. A race on memory that
pinrocks owns is: its Rust heap objects and the C API handles it creates and owns (a
`rocksdb_writebatch_t`, an iterator, options). Each rule below explains a report away,
with its reason; whatever no rule explains fails the run.

    races.py LOG [--expect-race]   (--expect-race: the positive control must be flagged)
"""
import re
import sys

ALLOCATOR = re.compile(
    r"^(malloc|calloc|realloc|operator new|__rust_alloc|__rust_realloc|__rdl_|__rg_|"
    r"alloc::|<alloc::|core::|std::alloc|<std::alloc|_mm_malloc|posix_memalign|aligned_alloc)"
)
# Rust frames of pinrocks or of its tests.
RUST_OURS = re.compile(r"^<?(pinrocks|concurrency|soundness)::")
# A native entry point: what it allocates belongs to the caller if it creates or fills an
# object the caller owns (a batch, options, an iterator...), else to RocksDB.
ENTRY = re.compile(r"^(rocksdb|pinrocks)_[a-z0-9_]+$")
OWNED_BY_CALLER = re.compile(r"_create|_writebatch_|^rocksdb_writebatch")

# (name, pattern over the racing access's first frames, pattern over the stack that
# allocated the memory, reason). Each explains reports that are synchronization helgrind
# cannot see.
RULES = [
    (
        "rust-sync-primitives",
        re.compile(r"std::sys::sync::|<std::sync::(rwlock|mutex|poison)|std::sync::once::|"
                   r"lock_families|column_families"),
        re.compile(r"."),
        "std's Mutex/RwLock/Once are futex-based atomics, not pthread locks: helgrind sees "
        "their state words raced and what they guard unguarded",
    ),
    (
        "shared-ptr-refcount",
        re.compile(r"^std::_Sp_counted|^std::__shared_count|^rocksdb::\w+Factory::~"),
        re.compile(r"<- rocksdb_options_create <- pinrocks::(\w+::)*Options::new"),
        "the options share their table factory and block cache with the databases opened "
        "from them through shared_ptr, whose atomic reference count orders the last "
        "release before the destructor",
    ),
    (
        "cf-write-gate",
        re.compile(r"^pinrocks::(\w+::)*(CfHandle::(enter_counted|leave_counted|note_prepared|close_for_drop)|DbInner::drop_cf)"),
        re.compile(r"pinrocks::(\w+::)*DbInner>?::(create_cf|new|keep_family)"),
        "a column family's write gate (writers in flight, prepared transactions, dropped), "
        "read and changed only under its std Mutex, a futex helgrind does not see",
    ),
    (
        "dirs-in-use",
        re.compile(r"pinrocks::(\w+::)*(DirInUse|in_use)\b"),
        re.compile(r"pinrocks::(\w+::)*DirInUse::claim"),
        "the process's list of directories in use (IN_USE) and its paths, read and changed "
        "only under its std Mutex, a futex helgrind does not see",
    ),
    (
        "default-options-once",
        re.compile(r"^rocksdb::(DBImpl::|ReadOptions::ReadOptions|WriteOptions::WriteOptions)"),
        re.compile(r"rocksdb_(read|write)options_create <- .*OnceLock"),
        "the process-wide default read and write options are built once in a OnceLock, "
        "whose atomic publication helgrind cannot see, and only read after",
    ),
]


def blocks(text):
    for chunk in text.split("Possible data race")[1:]:
        yield chunk.split("-" * 60)[0]


def frames(lines):
    out = []
    for line in lines:
        m = re.match(r"==\d+==\s+(?:at|by) 0x[0-9A-F]+: (.*?)(?: \(in .*| \([^)]*:\d+\))?$", line)
        if m:
            out.append(m.group(1))
        elif out:
            break
    return out


def classify(block):
    lines = block.splitlines()
    access = frames(lines[1:])
    addr = next((i for i, l in enumerate(lines) if re.search(r"Address 0x[0-9a-f]+ is", l)), None)
    if addr is None:
        return "unknown-address", access, None
    where = lines[addr]
    if "stack" in where:
        return "thread-stack", access, where
    if "alloc'd" not in where:
        return "global", access, where
    alloc = frames(lines[addr + 1:])
    where = " <- ".join(re.sub(r"\(.*", "", f) for f in alloc)
    for frame in alloc:
        if ALLOCATOR.match(frame):
            continue
        if RUST_OURS.match(frame):
            return "ours", access, where
        if ENTRY.match(frame):
            return ("ours" if OWNED_BY_CALLER.search(frame) else "internal"), access, where
    return "internal", access, where


def main():
    path = sys.argv[1]
    expect_race = "--expect-race" in sys.argv
    text = open(path, errors="replace").read()
    counts, unexplained, explained = {}, [], {}
    for block in blocks(text):
        kind, access, origin = classify(block)
        counts[kind] = counts.get(kind, 0) + 1
        if kind != "ours":
            continue
        head = " <- ".join(re.sub(r"\(.*", "", f) for f in access[:6])
        rule = next((r for r in RULES if r[1].search(head) and r[2].search(origin)), None)
        if rule:
            explained[rule[0]] = explained.get(rule[0], 0) + 1
            if "-v" in sys.argv:
                print(f"  [{rule[0]}] {head} (memory from {origin})")
        else:
            unexplained.append((head, origin))
    print(f"races by owner of the memory: {counts}")
    for name, _, _, reason in RULES:
        if name in explained:
            print(f"  explained ({explained[name]}): {name}: {reason}")
    for head, origin in unexplained:
        print(f"  RACE on pinrocks-owned memory:\n    {head}\n    (memory from {origin})")
    if expect_race:
        if not unexplained:
            print("positive control NOT flagged: the detector would miss this class of race")
            return 1
        print("positive control flagged, as it must be")
        return 0
    return 1 if unexplained else 0


sys.exit(main())

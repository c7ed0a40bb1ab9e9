#!/usr/bin/env bash
# RocksDB's build options as cargo features (jemalloc, io-uring, rtti by default) built
# together, in a target folder of their own ($CARGO_TARGET_DIR-features: its own RocksDB
# build, about 15 minutes on 2 cores the first time, then cached), and the read and write
# tests and two examples run on that build. Not in the test command: its RocksDB build
# would nearly double a CI run that starts cold.
#
#   scripts/features.sh [features, default jemalloc,io-uring,rtti]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

features="${1:-jemalloc,io-uring,rtti}"
if [[ ",$features," == *,io-uring,* ]] && ! pkg-config --exists liburing 2>/dev/null; then
    apt_install "io-uring needs liburing and pkg-config (Debian: sudo apt-get install -y \
liburing-dev pkg-config)" liburing-dev pkg-config
fi
if [[ ",$features," == *,lto,* ]]; then
    need "lto needs clang and a bitcode-reading link: CC=clang CXX=clang++ \
RUSTFLAGS='-Clinker-plugin-lto -Clinker=clang -Clink-arg=-fuse-ld=lld' (not set up here)"
fi
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR%-features}-features"

cargo test --release --features "$features,$PINROCKS_TEST_FEATURES" --test reads --test writes
# jemalloc: the test binary's malloc is jemalloc's (its mallocx beside it).
if [[ ",$features," == *,jemalloc,* ]]; then
    bin=$(cargo test --release --features "$features,$PINROCKS_TEST_FEATURES" --test reads \
        --no-run --message-format=json 2>/dev/null |
        sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -1)
    nm "$bin" | grep ' T mallocx$' >/dev/null || need "jemalloc: the binary's malloc is not jemalloc's ($bin)"
    echo "features: jemalloc is the malloc of $(basename "$bin")"
fi
# io_uring: RocksDB sets one up (io_uring_setup) at its first MultiRead of a file, when it was
# built with io_uring and the program answers RocksDbIOUringEnable with true.
if [[ ",$features," == *,io-uring,* ]]; then
    command -v strace >/dev/null ||
        apt_install "strace is missing (Debian: sudo apt-get install -y strace)" strace
    bin=$(cargo test --release --features "$features,$PINROCKS_TEST_FEATURES" --test reads \
        --no-run --message-format=json 2>/dev/null |
        sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -1)
    trace="$CARGO_TARGET_DIR/io_uring.strace"
    strace -f -e trace=io_uring_setup -o "$trace" "$bin" a_multi_get_reads_many_blocks >/dev/null
    grep -q 'io_uring_setup(' "$trace" ||
        need "io-uring: RocksDB never set up an io_uring in a multi-get from files ($trace)"
    if grep -qE 'io_uring_setup\(.*\) = [0-9]+' "$trace"; then
        echo "features: io_uring set up by RocksDB ($(grep -c 'io_uring_setup(' "$trace") rings)"
    else
        echo "features: RocksDB asked for an io_uring and the kernel refused:" \
            "$(grep -m1 'io_uring_setup(' "$trace"); it read synchronously"
    fi
fi
for example in hot_path shared_service; do
    cargo run --quiet --release --features "$features" --example "$example" >/dev/null
done
echo "features: $features built; the reads and writes tests, hot_path and shared_service passed"

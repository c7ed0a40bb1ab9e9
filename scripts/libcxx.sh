#!/usr/bin/env bash
# The clang + libc++ build mode: RocksDB, pinrocks' C++ and the Rust code linked against
# LLVM's libc++ instead of GCC's libstdc++. On it a point read makes no heap allocation at
# all (docs/zero-allocation-reads.md says why the default build makes one).
#
#   scripts/libcxx.sh CMD...        runs `CMD...` in the libc++ mode, for example
#   scripts/libcxx.sh cargo test --release
#   scripts/libcxx.sh scripts/test.sh
#
# It keeps its own build folder ($CARGO_TARGET_DIR-libcxx, by default
# ~/.cache/pinrocks-target-libcxx), so it never evicts the default build; the first run
# compiles RocksDB with clang (about 15 minutes on 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

command -v clang++ >/dev/null ||
    apt_install "clang is missing (Debian: sudo apt-get install -y clang)" clang
if ! echo '#include <functional>' | clang++ -x c++ -stdlib=libc++ -fsyntax-only - 2>/dev/null; then
    apt_install "libc++ is missing (Debian: sudo apt-get install -y libc++-dev libc++abi-dev)" \
        libc++-dev libc++abi-dev
fi

# What a crate that depends on pinrocks sets, too (docs/zero-allocation-reads.md: "The libc++ build mode").
export CC=clang CXX=clang++ CXXFLAGS="-stdlib=libc++" CXXSTDLIB=c++
# setup.sh may have set the default folder: this mode always has its own.
export CARGO_TARGET_DIR="${PINROCKS_LIBCXX_TARGET_DIR:-${CARGO_TARGET_DIR%-libcxx}-libcxx}"
export PINROCKS_BUILD_MODE=libcxx
[ $# -gt 0 ] || set -- cargo build --release --all-targets --features "$PINROCKS_TEST_FEATURES"
exec "$@"

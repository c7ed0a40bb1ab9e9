#!/usr/bin/env bash
# The whole test suite on RocksDB 11.12.0 instead of 11.8.1: the working tree copied to
# ~/.cache/pinrocks-11.12/tree with its manifests rewritten to build RocksDB 11.12.0 through
# `rust-librocksdb-sys =0.49.0+11.12.0` (the maintained fork's sys crate, renamed
# `librocksdb-sys` there so nothing else changes) and the tests' `rocksdb` crate to
# `rust-rocksdb =0.54.0` (the fork's, on that sys crate). Both sys crates link "rocksdb", so
# cargo refuses them in one lock file: the other version needs its own manifest, not a
# feature. Its own target folder (~/.cache/pinrocks-11.12/target): the first run builds
# RocksDB 11.12 (12-15 minutes on 2 cores), later runs reuse it. Arguments go to
# `cargo test` (e.g. `--test writes`); none runs every test and doctest.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

# rsync copies the tree (Debian 12 images may lack it): installed as clang is, or named.
if ! command -v rsync >/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "pinrocks: installing rsync (apt-get install -y rsync)" >&2
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq rsync >/dev/null
    else
        echo "pinrocks: rsync is missing (Debian: sudo apt-get install -y rsync), then rerun." >&2
        exit 1
    fi
fi

home="$HOME/.cache/pinrocks-11.12"
tree="$home/tree"
mkdir -p "$tree"
# The files git knows and the new ones it does not ignore, as they are now. A changed file is
# written with the time of the copy, not its own (--no-times, compared by content): a
# file edited before the copy's last build would otherwise look older than that build's
# outputs, and cargo would not rerun the build script (bindgen) for it.
git ls-files -z --cached --others --exclude-standard |
    rsync -a --no-times --checksum --delete --from0 --files-from=- ./ "$tree/"
cd "$tree"
rm -f Cargo.lock
python3 - <<'PY'
import re

def rewrite(path, old, new):
    text = open(path).read()
    if old not in text:
        raise SystemExit(f"pinrocks: {path} no longer has {old!r}: update scripts/rocksdb-11.12.sh")
    open(path, "w").write(text.replace(old, new))

# With RTTI, as librocksdb-sys 0.19 builds RocksDB: rust-librocksdb-sys passes -fno-rtti
# unless asked, and rocksdb-c/ (compiled with RTTI) names the typeinfo of the RocksDB classes
# it derives from (Logger, EventListener, WriteBatch::Handler).
sys_old = ('librocksdb-sys = { version = "=0.19.0", default-features = false, '
           'features = ["static", "bindgen-runtime"] }')
sys_new = ('librocksdb-sys = { package = "rust-librocksdb-sys", version = "=0.49.0", '
           'default-features = false, features = ["static", "bindgen-runtime", "rtti"] }')
rewrite("Cargo.toml", sys_old, sys_new)
rewrite("rocksdb-c-dev/Cargo.toml", sys_old, sys_new)
rewrite("Cargo.toml", 'rocksdb = { version = "0.25", default-features = false',
        'rocksdb = { package = "rust-rocksdb", version = "=0.54.0", default-features = false')
# The engines bench pins the rocksdb crate 0.25 (RocksDB 11.8.1): not a member here.
rewrite("Cargo.toml", 'members = ["benches/engines", "rocksdb-c-dev"]', 'members = ["rocksdb-c-dev"]')
PY
export CARGO_TARGET_DIR="$home/target"
if [ $# -gt 0 ]; then
    exec cargo test --release --features "$PINROCKS_TEST_FEATURES" "$@"
fi
# The library's and integration tests, then the doctests. Not the examples: they are what a
# user of the `rocksdb` crate 0.25 copies (examples/migrate_from_rocksdb.rs writes a batch the
# way 0.25 takes it, by value; the fork takes it by reference), and they are built and run on
# 11.8.1 by scripts/test.sh.
cargo test --release --no-fail-fast --features "$PINROCKS_TEST_FEATURES" --lib --tests
cargo test --release --no-fail-fast --features "$PINROCKS_TEST_FEATURES" --doc

#!/usr/bin/env bash
# The documentation as docs.rs builds it: DOCS_RS=1, the features, cargo arguments and rustdoc
# arguments of Cargo.toml's [package.metadata.docs.rs], rustdoc with -D warnings, in a target
# folder of its own (~/.cache/pinrocks-docsrs-target, so the RocksDB build is not evicted).
# Fails if RocksDB or any C++ of ours is compiled on the way: docs.rs stops a build after 15
# minutes, and these docs need neither. Uses the nightly toolchain when rustup has one (docs.rs
# builds with nightly: `--cfg docsrs` turns on `doc(cfg)`), stable without `--cfg docsrs`
# otherwise. About 30 s from cold on 2 cores (the registry already downloaded), seconds warm.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

# The metadata, read by Python's TOML reader: features, cargo-args, rustdoc-args.
read_metadata() {
    python3 -c 'import sys, tomllib
meta = tomllib.load(open("Cargo.toml", "rb"))["package"]["metadata"]["docs"]["rs"]
print("\n".join(meta[sys.argv[1]]))' "$1"
}
features=$(read_metadata features | paste -sd, -)
mapfile -t cargo_args < <(read_metadata cargo-args)
rustdoc_args=$(read_metadata rustdoc-args | paste -sd' ' -)

toolchain=()
if rustup run nightly rustc --version >/dev/null 2>&1; then
    toolchain=(+nightly)
else
    echo "pinrocks: no nightly toolchain: the docs are built with stable, without --cfg docsrs" >&2
    rustdoc_args=""
fi
target="$HOME/.cache/pinrocks-docsrs-target"
DOCS_RS=1 RUSTDOCFLAGS="$rustdoc_args -D warnings" \
    cargo "${toolchain[@]}" doc --no-deps --lib --features "$features" \
    --target-dir "$target" "${cargo_args[@]}"

# Nothing of RocksDB's or ours compiled: no object of RocksDB's sources, no pinrocks_native.
if find "$target/debug/build" -path '*librocksdb-sys-*/out/*' -name '*db_impl*.o' | grep -q . ||
    find "$target/debug/build" -name 'libpinrocks_native.a' | grep -q .; then
    echo "pinrocks: the docs.rs build compiled RocksDB or rocksdb-c/" >&2
    exit 1
fi
echo "docs.rs build: $target/doc/pinrocks/index.html, no RocksDB or rocksdb-c/ compiled"

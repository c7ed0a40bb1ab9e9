#!/usr/bin/env bash
# Fuzzes each target with coverage feedback (cargo fuzz: libFuzzer, AddressSanitizer on the
# Rust side, which also catches Rust reading memory that C++ freed) for a set time. The
# fuzz build links the crate's own RocksDB build as a prebuilt static library, so it does
# not compile RocksDB again (it needs nightly Rust, which compiles everything else anew).
#
#   scripts/fuzz.sh [seconds per target, default 600] [target...]
#   targets: decode, operations, pin_owners (all by default)
# A crash leaves its input in fuzz/artifacts/TARGET/; replay it with
#   cargo +nightly fuzz run TARGET fuzz/artifacts/TARGET/crash-...
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
rustup toolchain list 2>/dev/null | grep -q '^nightly' ||
    need "fuzzing needs a nightly toolchain: rustup toolchain install nightly"
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked

seconds="${1:-600}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(decode operations pin_owners)

# RocksDB and Snappy as built for the crate (one build per machine), linked as they are.
cargo build --release >&2
lib=$(ls -t "$CARGO_TARGET_DIR"/release/build/librocksdb-sys-*/out/librocksdb.a | head -1)
export ROCKSDB_LIB_DIR="${lib%/*}" ROCKSDB_STATIC=1 SNAPPY_LIB_DIR="${lib%/*}" SNAPPY_STATIC=1
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR}-fuzz"
mkdir -p "$CARGO_TARGET_DIR"

for target in "${targets[@]}"; do
    echo "fuzz: $target for $seconds s" >&2
    mkdir -p "fuzz/corpus/$target"
    # Inputs long enough for a whole sequence of operations (libFuzzer grows its length
    # limit slowly, and these targets run tens of inputs a second, not thousands).
    case "$target" in
    operations) max_len=256 ;; # 64 operations of 4 bytes
    pin_owners) max_len=360 ;; # 3 epochs of 40 operations of 3 bytes
    *) max_len=4096 ;;
    esac
    # fuzz/seeds/TARGET: inputs kept in the repository (each a sequence that once broke
    # something), read as seeds; the growing corpus is fuzz/corpus/TARGET.
    seeds=()
    [ -d "fuzz/seeds/$target" ] && seeds=("fuzz/seeds/$target")
    cargo +nightly fuzz run "$target" "fuzz/corpus/$target" "${seeds[@]}" -- \
        -max_total_time="$seconds" -max_len="$max_len" -len_control=0 -print_final_stats=1 2>&1 |
        tee "$CARGO_TARGET_DIR/fuzz-$target.log" | grep -E '^(#[0-9]+\s+DONE|stat::|==[0-9]+==ERROR|SUMMARY)' || true
    # cargo fuzz exits non-zero on a crash; tee hides it, so look at the log.
    if grep -qE '^==[0-9]+==ERROR|panicked at|deadly signal' "$CARGO_TARGET_DIR/fuzz-$target.log"; then
        echo "fuzz: $target FOUND A CRASH (fuzz/artifacts/$target/)" >&2
        exit 1
    fi
done
echo "fuzz: no crash in ${targets[*]} ($seconds s each)"

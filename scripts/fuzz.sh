#!/usr/bin/env bash
# Fuzzes each target with coverage feedback (cargo fuzz: libFuzzer; AddressSanitizer on the
# Rust side of the memory-safety targets, which also catches Rust reading memory that C++
# freed) for a set time, the databases on file systems in memory. The
# fuzz build links the crate's own RocksDB build as a prebuilt static library, so it does
# not compile RocksDB again (it needs nightly Rust, which compiles everything else anew).
#
#   scripts/fuzz.sh [seconds per target, default 600] [target...]
#   targets: decode, operations, pin_owners, faults, options (all by default)
# A crash leaves its input in fuzz/artifacts/TARGET/; replay it with
#   cargo +nightly fuzz run [-s none] TARGET fuzz/artifacts/TARGET/crash-...
# (operations and pin_owners reuse their databases for 256 inputs: a crash that needs what
# earlier inputs left may not repeat alone; PINROCKS_FUZZ_INPUTS_PER_DATABASE=1 gives each
# input fresh databases, to tell which kind of crash it is; PINROCKS_FUZZ_TRACE=1 makes
# pin_owners print each operation, to see what the inputs before the crash did).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
rustup toolchain list 2>/dev/null | grep -q '^nightly' ||
    need "fuzzing needs a nightly toolchain: rustup toolchain install nightly"
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked

seconds="${1:-600}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(decode operations pin_owners faults options)

# RocksDB and Snappy as built for the crate with its default features (one build per
# machine), linked as they are: the folder librocksdb-sys' build script of this very build
# reported (not the newest of several, which may be a build with other features).
out=$(cargo build --release --message-format=json 2>/dev/null |
    sed -n 's/.*"reason":"build-script-executed","package_id":"[^"]*librocksdb-sys[^"]*".*"out_dir":"\([^"]*\)".*/\1/p' |
    tail -1)
[ -f "$out/librocksdb.a" ] || need "could not find librocksdb-sys' build of RocksDB (cargo build --release)"
lib="$out/librocksdb.a"
# build.rs refuses ROCKSDB_LIB_DIR (a system RocksDB may not be 11.8.1) unless
# PINROCKS_PREBUILT_ROCKSDB names the same directory: this one, librocksdb-sys' own build.
export ROCKSDB_LIB_DIR="${lib%/*}" ROCKSDB_STATIC=1 SNAPPY_LIB_DIR="${lib%/*}" SNAPPY_STATIC=1
export PINROCKS_PREBUILT_ROCKSDB="${lib%/*}"
# One target folder per sanitizer: a build under one flag set would evict the other's.
fuzz_dir="${CARGO_TARGET_DIR}-fuzz"

for target in "${targets[@]}"; do
    echo "fuzz: $target for $seconds s" >&2
    mkdir -p "fuzz/corpus/$target"
    # Inputs long enough for a whole sequence of operations (libFuzzer grows its length
    # limit slowly, and these targets run tens to a hundred inputs a second, not thousands).
    case "$target" in
    operations) max_len=256 ;; # 64 operations of 4 bytes
    pin_owners) max_len=360 ;; # 3 epochs of 40 operations of 3 bytes
    faults) max_len=1024 ;;    # one byte a choice: about 8 crash cycles
    options) max_len=19 ;;     # a path byte and six (name, value) triples
    *) max_len=4096 ;;
    esac
    # fuzz/seeds/TARGET: inputs kept in the repository (each a sequence that once broke
    # something), read as seeds; the growing corpus is fuzz/corpus/TARGET.
    seeds=()
    [ -d "fuzz/seeds/$target" ] && seeds=("fuzz/seeds/$target")
    # The memory-safety targets (decode, pin_owners) run under AddressSanitizer; the model
    # targets (operations, faults) without it, four times as many inputs a second (RocksDB's
    # C++ allocates on every call, and under AddressSanitizer each allocation records its
    # stack): PINROCKS_FUZZ_SANITIZER=address runs every target under it.
    case "$target" in
    operations | faults | options) sanitizer="${PINROCKS_FUZZ_SANITIZER:-none}" ;;
    *) sanitizer="${PINROCKS_FUZZ_SANITIZER:-address}" ;;
    esac
    export CARGO_TARGET_DIR="$fuzz_dir-$sanitizer"
    mkdir -p "$CARGO_TARGET_DIR"
    # pin_owners keeps its databases from one input to the next: an input that opens one
    # allocates more than it frees, which libFuzzer takes for a leak and checks by a scan of
    # the whole heap (a third of its time). With PINROCKS_FUZZ_INPUTS_PER_DATABASE=1 (every
    # input on databases of its own) leaks are checked.
    leaks=()
    if [ "$target" = pin_owners ] && [ "${PINROCKS_FUZZ_INPUTS_PER_DATABASE:-}" != 1 ]; then
        leaks=(-detect_leaks=0)
    fi
    # The option fuzzer: a hostile size must be refused before RocksDB allocates it, so
    # its inputs run under an address-space limit of 8 GiB (an allocation past it is an
    # exception, caught or fatal: a finding either way), each input at most 60 s.
    limit=unlimited
    # A crash-test input runs in well under a second: one that runs for minutes is a hang
    # (libFuzzer then prints where it waits), not worth libFuzzer's default 20 minutes.
    [ "$target" = faults ] && leaks+=(-timeout=120)
    if [ "$target" = options ]; then
        limit=$((8 << 20))
        leaks+=(-timeout=60 -rss_limit_mb=0)
        cargo +nightly fuzz build -s "$sanitizer" "$target" # rustc outside the limit
    fi
    # (${a[@]+"${a[@]}"}: an empty array under `set -u`, in bash before 4.4 too.)
    (ulimit -v "$limit"; cargo +nightly fuzz run -s "$sanitizer" "$target" "fuzz/corpus/$target" \
        ${seeds[@]+"${seeds[@]}"} -- \
        -max_total_time="$seconds" -max_len="$max_len" -len_control=0 -print_final_stats=1 \
        ${leaks[@]+"${leaks[@]}"} 2>&1) |
        tee "$CARGO_TARGET_DIR/fuzz-$target.log" | grep -E '^(#[0-9]+\s+DONE|stat::|==[0-9]+==ERROR|SUMMARY)' || true
    # cargo fuzz exits non-zero on a crash; tee hides it, so look at the log.
    if grep -qE '^==[0-9]+== ?ERROR|panicked at|deadly signal' "$CARGO_TARGET_DIR/fuzz-$target.log"; then
        echo "fuzz: $target FOUND A CRASH (fuzz/artifacts/$target/)" >&2
        exit 1
    fi
done
echo "fuzz: no crash in ${targets[*]} ($seconds s each)"

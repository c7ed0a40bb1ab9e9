# Sourced by the other scripts: checks (and on Debian installs) what the build needs, and
# keeps the RocksDB build in one cache shared by every checkout.
set -euo pipefail

need() {
    echo "pinrocks: $1" >&2
    exit 1
}

command -v cargo >/dev/null || need "cargo is missing: install Rust (https://rustup.rs), then rerun."
command -v c++ >/dev/null || command -v g++ >/dev/null || command -v clang++ >/dev/null ||
    need "a C++ compiler is missing (Debian: apt-get install -y g++)."

# Installs Debian packages when we may (root with apt-get); otherwise stops with `hint`.
apt_install() { # hint package...
    local hint="$1"
    shift
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "pinrocks: installing $* (apt-get install -y $*)" >&2
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
    else
        need "$hint"
    fi
}

# For the scripts that run under valgrind.
require_valgrind() {
    command -v valgrind >/dev/null ||
        apt_install "valgrind is missing (Debian: sudo apt-get install -y valgrind)" valgrind
}

# Per-read counts under valgrind, deterministic (no clock).
#   per_read_count allocations|instructions BIN ARGS...
# One run of `BIN ARGS... N` (the last argument is the number of reads: 1,000, or 128 when
# the last of ARGS, the value size, is 64 KiB or more; PINROCKS_COUNT_READS sets another)
# under callgrind, which zeroes its
# costs before the reads and dumps them after (`counted` in benches/sweep/callgrind.rs: the
# reads after a warm-up, on the main thread): the instructions and the calls to the
# allocator in the dump (scripts/callgrind-counts.py), divided by N. Nothing else of the
# run (opening, populating, closing, other threads) is in the count. With
# PINROCKS_COUNT_CACHE naming a directory, a run's two counts are kept there, so asking for
# the other count of the same run (sweep.sh's tables share 8 B) does not run it again.
per_read_count() {
    local what="$1" bin="$2" reads=1000 dir counts kept=""
    shift 2
    # The client requests that bound the reads exist for x86-64 only (callgrind.rs).
    [ "$(uname -m)" = x86_64 ] || need "per-read counts need x86-64 (callgrind's client requests)"
    # 128 reads, not 1,000, of values of 64 KiB and more (a multiple of multi_get's batch
    # of 8 and of the 16 keys a cursor cycles through): copying a gigabyte under valgrind
    # takes long, and the count per read is the same.
    if [ "${*: -1}" -ge 65536 ] 2>/dev/null; then
        reads=128
    fi
    reads="${PINROCKS_COUNT_READS:-$reads}"
    [ -n "${PINROCKS_COUNT_CACHE:-}" ] &&
        kept="$PINROCKS_COUNT_CACHE/$(echo "$bin $* $reads" | md5sum | cut -d' ' -f1)"
    if [ -n "$kept" ] && [ -s "$kept" ]; then
        counts=$(cat "$kept")
    else
        dir=$(mktemp -d)
        valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$dir/out" \
            "$bin" "$@" "$reads" >"$dir/log" 2>&1 ||
            { cat "$dir/log" >&2; rm -rf "$dir"; need "valgrind failed: $bin $* $reads"; }
        # No dump, or no count in it: an error, never a count of zero.
        counts=$(python3 scripts/callgrind-counts.py "$dir/out.1-01" 2>&1) || true
        rm -rf "$dir"
        [[ "$counts" =~ ^[0-9]+\ [0-9]+$ ]] ||
            need "no callgrind dump of the reads ($bin $* $reads): $counts"
        [ -z "$kept" ] || echo "$counts" >"$kept"
    fi
    case "$what" in
    instructions) awk -v c="${counts% *}" -v n="$reads" 'BEGIN { printf "%.2f", c / n }' ;;
    allocations) awk -v c="${counts#* }" -v n="$reads" 'BEGIN { printf "%.2f", c / n }' ;;
    *) need "unknown count: $what (allocations or instructions)" ;;
    esac
}

# bindgen loads libclang at build time; libclang-cpp alone is not enough.
has_libclang() {
    [ -n "${LIBCLANG_PATH:-}" ] ||
        ldconfig -p 2>/dev/null | grep -Eq 'libclang(-[0-9.]+)?\.so' ||
        compgen -G '/usr/lib/llvm-*/lib/libclang.so*' >/dev/null
}
has_libclang || apt_install "libclang is missing. Debian/Ubuntu: sudo apt-get install -y \
clang libclang-dev; elsewhere install libclang and set LIBCLANG_PATH to its directory." \
    clang libclang-dev

# Builds the sweep's one binary (timing, per-read counts, report: benches/sweep/) and prints
# its path.
# A failed build stops the caller with the command that shows why (errexit alone would stop
# it silently, in the command substitution).
sweep_binary() {
    local built
    built=$(cargo bench --bench sweep --no-run --features "$PINROCKS_SWEEP_FEATURES" \
        --message-format=json 2>/dev/null) ||
        need "the sweep binary does not build: run cargo bench --bench sweep --no-run \
--features $PINROCKS_SWEEP_FEATURES to see why"
    echo "$built" | sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -1
}

# RocksDB takes many minutes to compile: build it once per machine, not per checkout.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-${HOME:-$PWD}/.cache/pinrocks-target}"

# The features the tests, lints and docs build with: the default compressions plus these
# (not the RocksDB build options, jemalloc, io-uring, lto, rtti and mt_static, each a new
# RocksDB build: scripts/features.sh builds and tests them).
export PINROCKS_TEST_FEATURES=serde,postcard,rkyv,flatbuffers,fault-injection
# The sweep's: the record codecs its typed section reads through (`sweep typed`).
export PINROCKS_SWEEP_FEATURES=serde,postcard,rkyv,flatbuffers

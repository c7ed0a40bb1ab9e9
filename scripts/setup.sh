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
# Instructions: one run of `BIN ARGS... 1000` (the last argument is the number of reads)
# under callgrind, collecting only inside `counted_reads` (benches/sweep/per_read.rs), the
# reads after a warm-up: the total divided by 1,000. Allocations (memcheck counts the whole
# process): `BIN ARGS... 200` and `BIN ARGS... 1200` (200 and 328 when the last of ARGS, the
# value size, is 64 KiB or more), the difference divided by the extra reads, so opening,
# populating and closing cancel out. `sweep merge-per-read` has no
# `counted_reads`: count its allocations only.
per_read_count() {
    local what="$1" bin="$2" low=200 high=1200 a b
    shift 2
    # 128 extra reads, not 1,000, of values of 64 KiB and more (a multiple of multi_get's
    # batch of 8 and of the 16 keys a cursor cycles through): copying a gigabyte under
    # memcheck took most of the sweep's counting. After 200 reads the one-time allocations
    # are behind, so the count per read is the same.
    if [ "${*: -1}" -ge 65536 ] 2>/dev/null; then
        low=200 high=328
    fi
    if [ "$what" = instructions ]; then
        a=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null \
            --toggle-collect='*counted_reads*' "$bin" "$@" 1000 2>&1 |
            sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
        awk -v a="$a" 'BEGIN { printf "%.2f", a / 1000 }'
        return
    fi
    a=$(valgrind_total "$what" "$bin" "$@" "$low")
    b=$(valgrind_total "$what" "$bin" "$@" "$high")
    awk -v a="$a" -v b="$b" -v n=$((high - low)) 'BEGIN { printf "%.2f", (b - a) / n }'
}

# One run's total: heap allocations (memcheck, C++ `new` and Rust alike) or instructions
# executed (callgrind's Ir).
valgrind_total() {
    local what="$1"
    shift
    case "$what" in
    allocations)
        # Only the heap totals are read: no definedness tracking (about 20% faster).
        valgrind --tool=memcheck --leak-check=no --undef-value-errors=no "$@" 2>&1 |
            sed -n 's/.*total heap usage: \([0-9,]*\) allocs.*/\1/p' | tr -d , ;;
    instructions)
        valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 |
            sed -n 's/.*Collected : \([0-9]*\).*/\1/p' ;;
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
sweep_binary() {
    cargo bench --bench sweep --no-run --message-format=json 2>/dev/null |
        sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -1
}

# RocksDB takes many minutes to compile: build it once per machine, not per checkout.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-${HOME:-$PWD}/.cache/pinrocks-target}"

# The features the tests, lints and docs build with: the default compressions plus these
# (not the RocksDB build options, jemalloc, io-uring, lto, rtti and mt_static, each a new
# RocksDB build: scripts/features.sh builds and tests them).
export PINROCKS_TEST_FEATURES=serde,fault-injection

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

# bindgen loads libclang at build time; libclang-cpp alone is not enough.
has_libclang() {
    [ -n "${LIBCLANG_PATH:-}" ] ||
        ldconfig -p 2>/dev/null | grep -Eq 'libclang(-[0-9.]+)?\.so' ||
        compgen -G '/usr/lib/llvm-*/lib/libclang.so*' >/dev/null
}
if ! has_libclang; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "pinrocks: installing libclang for bindgen (apt-get install -y clang libclang-dev)" >&2
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang libclang-dev >/dev/null
    else
        need "libclang is missing. Debian/Ubuntu: sudo apt-get install -y clang libclang-dev; \
elsewhere install libclang and set LIBCLANG_PATH to its directory."
    fi
fi

# RocksDB takes many minutes to compile: build it once per machine, not per checkout.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-${HOME:-$PWD}/.cache/pinrocks-target}"

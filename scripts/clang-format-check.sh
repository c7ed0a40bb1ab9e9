#!/usr/bin/env bash
# Checks that the C and C++ of rocksdb-c/ and rocksdb-c-dev/ are formatted as .clang-format
# says: clang-format --dry-run --Werror over their *.h and *.cc prints each difference and
# fails, changing nothing. To format them:
#   clang-format -i rocksdb-c/*.h rocksdb-c/*.cc rocksdb-c-dev/*.h rocksdb-c-dev/*.cc
# Installs clang-format on Debian when it may (root with apt-get), as scripts/setup.sh does for
# clang; otherwise says what is missing. The code was formatted with Debian 12's clang-format
# (14): another major version may format a few lines differently.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v clang-format >/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "pinrocks: installing clang-format (apt-get install -y clang-format)" >&2
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang-format >/dev/null
    else
        echo "pinrocks: clang-format is missing (Debian: sudo apt-get install -y clang-format;" \
            "elsewhere install LLVM's clang-format), then rerun." >&2
        exit 1
    fi
fi

shopt -s nullglob
files=(rocksdb-c/*.h rocksdb-c/*.cc rocksdb-c-dev/*.h rocksdb-c-dev/*.cc)
if [ ${#files[@]} -eq 0 ]; then
    echo "pinrocks: no rocksdb-c/*.h or rocksdb-c/*.cc to check" >&2
    exit 1
fi
clang-format --dry-run --Werror "${files[@]}"
echo "clang-format: the ${#files[@]} files of rocksdb-c/ and rocksdb-c-dev/ are formatted ($(clang-format --version))"

#!/usr/bin/env bash
# Hardware CRC32c, measured. librocksdb-sys compiles RocksDB with -msse4.2 (and so with
# hardware CRC32c) only when the Rust target has the feature; by default it does not, and
# RocksDB computes CRC32c in software (WAL records, MANIFEST, blocks with crc32c checksums).
# This script builds the sweep binary a second time with
#   RUSTFLAGS="-C target-feature=+sse4.2,+pclmulqdq"
# in its own build folder (~/.cache/pinrocks-target-crc: the first run compiles RocksDB
# again, about 12 minutes), then runs `sweep crc` from the two builds alternately, so each
# pair of runs sees the same machine state, and reports per-round ratios and their median.
#
# scripts/crc-bench.sh [rounds, default 5]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
rounds="${1:-5}"
command -v python3 >/dev/null || apt_install "python3 is missing (Debian: apt-get install -y python3)" python3

default_bin=$(sweep_binary)
[ -x "$default_bin" ] || need "could not build the sweep binary"
crc_bin=$(CARGO_TARGET_DIR="$HOME/.cache/pinrocks-target-crc" \
    RUSTFLAGS="-C target-feature=+sse4.2,+pclmulqdq" \
    cargo bench --bench sweep --no-run --message-format=json 2>/dev/null |
    sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -1)
[ -x "$crc_bin" ] || need "could not build the SSE4.2 sweep binary"

out=$(mktemp)
for _ in $(seq "$rounds"); do
    echo "default $("$default_bin" crc)" >>"$out"
    echo "sse4.2 $("$crc_bin" crc)" >>"$out"
done
python3 - "$out" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
def parse(r):  # build "mode words" puts flush_ms reads
    return r[0], " ".join(r[1:-3]).strip('"'), float(r[-3]), float(r[-2]), float(r[-1])
runs = [parse(r) for r in rows]
pairs = list(zip(runs[0::2], runs[1::2]))
print(f"CRC32c: default build {pairs[0][0][1]!r}, SSE4.2 build {pairs[0][1][1]!r}\n")
print("| round | puts/s default / SSE4.2 | flush ms default / SSE4.2 | cold reads/s default / SSE4.2 |")
print("|---:|---|---|---|")
for i, (d, c) in enumerate(pairs, 1):
    print(f"| {i} | {d[2]:,.0f} / {c[2]:,.0f} | {d[3]:.1f} / {c[3]:.1f} | {d[4]:,.0f} / {c[4]:,.0f} |")
med = lambda xs: statistics.median(xs)
print(f"\nMedian of per-round ratios (SSE4.2 over default; >1 is faster): "
      f"puts {med([c[2]/d[2] for d,c in pairs]):.3f}x, "
      f"flush {med([d[3]/c[3] for d,c in pairs]):.3f}x, "
      f"cold reads {med([c[4]/d[4] for d,c in pairs]):.3f}x ({len(pairs)} rounds)")
PY
rm -f "$out"

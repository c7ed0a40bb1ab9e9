#!/usr/bin/env bash
# The loading bench: 1,000,000 keys of 100 B and of 4 KB into an empty database through
# puts, write batches of 1,000, and an SST file + ingest, pinrocks beside the `rocksdb`
# crate, interleaved round by round (benches/load/main.rs). About 5 minutes; writes about
# 25 GB in temporary directories, deleted as it goes.
#
#   scripts/load-bench.sh [rounds, default 3]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
rounds="${1:-3}"
echo "Machine: $(nproc) cores, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1), $(uname -sr)"
cargo bench --bench load -- 1000000 100 "$rounds" | grep '^|'
echo
cargo bench --bench load -- 1000000 4096 "$rounds" | grep '^|'

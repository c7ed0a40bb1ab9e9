#!/usr/bin/env bash
# The crash test for as long as you like: seeded runs of the crash workload
# (tests/operations/crash_workload.rs: random writes, transactions, families, ingest, failing
# flushes, then a power loss or a kill, a reopen and the check against the model) until the
# time is up or the runs are done. Prints the runs, cycles, acknowledged writes, faults and
# every violation with the seed that repeats it. The test command runs 6 runs of 5 cycles.
#
#   scripts/crash.sh [--seconds N | --runs N] [--cycles N] [--first-seed N]
#
# Defaults: 600 seconds, 5 cycles per run, seeds from 1. Repeat one violation with
#   PINROCKS_CRASH_SEED=<seed> PINROCKS_CRASH_CYCLES=<cycles> cargo test --release \
#     --features serde,fault-injection --test operations crash_cycles -- --nocapture
# A seed that runs past PINROCKS_CRASH_RUN_LIMIT seconds (300) is a violation too (a hang):
# printed with its seed and every thread's stack, and the run stops there.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

seconds=600 runs="" cycles=5 first=1
while [ $# -gt 0 ]; do
    case "$1" in
        --seconds) seconds="$2"; runs=""; shift 2 ;;
        --runs) runs="$2"; seconds=""; shift 2 ;;
        --cycles) cycles="$2"; shift 2 ;;
        --first-seed) first="$2"; shift 2 ;;
        *) echo "usage: scripts/crash.sh [--seconds N | --runs N] [--cycles N] [--first-seed N]" >&2
           exit 2 ;;
    esac
done

export PINROCKS_CRASH_CYCLES="$cycles" PINROCKS_CRASH_FIRST_SEED="$first"
if [ -n "$runs" ]; then
    export PINROCKS_CRASH_RUNS="$runs"
else
    export PINROCKS_CRASH_SECONDS="$seconds"
fi
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
status=0
cargo test --quiet --release --features "$PINROCKS_TEST_FEATURES" --test operations \
    crash_workload::crash_cycles -- --nocapture >"$log" 2>&1 || status=$?
grep -E '^crash-(figures|violation)' "$log" || { cat "$log"; exit 1; }
if [ "$status" -ne 0 ]; then
    echo "crash test: violations found (each line above names its seed)" >&2
    exit "$status"
fi
echo "crash test: no violation"

#!/usr/bin/env bash
# Runs the concurrency tests under valgrind's race detector (helgrind), then sorts every
# reported race by who owns the raced memory (scripts/races.py): races inside RocksDB's and
# Rust std's lock-free code, which helgrind cannot model, are counted and set aside; a race
# on memory that pinrocks owns fails the run unless a rule in races.py explains it. A
# positive control (one WriteBatch written by two threads through an unsafe Sync wrapper)
# must be flagged, or the run fails: it proves the sorting hides no race of that kind.
#
# scripts/races.sh            (about 2 minutes, once the tests are built)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
require_valgrind
command -v python3 >/dev/null || apt_install "python3 is missing" python3

binary() { # test target
    cargo test --release --features "$PINROCKS_TEST_FEATURES" --no-run --message-format=json --test "$1" 2>/dev/null |
        sed -n 's/.*"executable":"\([^"]*\)".*/\1/p'
}
concurrency=$(binary concurrency)
soundness=$(binary soundness)
logs=$(mktemp -d)
export PINROCKS_STRESS_SECS=25 PINROCKS_STRESS_MIN_OPS=5
helgrind() { # log binary args... (the tests must pass under it too)
    local log="$1"
    shift
    if ! valgrind --tool=helgrind --fair-sched=yes --error-limit=no --log-file="$log" "$@" --test-threads=1 \
        >"$log.out" 2>&1; then
        tail -20 "$log.out" >&2
        return 1
    fi
}

failed=0
echo "races: the stress and Send/Sync tests" >&2
helgrind "$logs/concurrency.log" "$concurrency"
python3 scripts/races.py "$logs/concurrency.log" || failed=1
echo "races: dropping a column family under concurrent writers" >&2
helgrind "$logs/drop.log" "$soundness" --exact \
    soundness::dropping_a_family_under_concurrent_writers_loses_no_acknowledged_write
python3 scripts/races.py "$logs/drop.log" || failed=1
echo "races: the positive control" >&2
helgrind "$logs/control.log" "$concurrency" --ignored --exact race_detector_positive_control
python3 scripts/races.py "$logs/control.log" --expect-race || failed=1
[ "$failed" = 0 ] && echo "races: no race on memory pinrocks owns; the positive control was flagged"
echo "races: logs in $logs" >&2
exit "$failed"

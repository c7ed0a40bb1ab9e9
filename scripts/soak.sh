#!/usr/bin/env bash
# Every reliability instrument, one after another, then one summary: each fuzz target
# (scripts/fuzz.sh: decode, operations, pin_owners, faults, options), the option fuzzer's
# in-process harness (hostile values through every option path), the crash test (plain,
# and with refused writes mixed into cycles whose flushes fail), the recovery stress (flush
# faults, refused flushes and closes in a loop: tests/operations/recovery_hangs.rs), each
# for the time given;
# then the race detector (scripts/races.sh) and memcheck (scripts/memcheck.sh), once each.
# An instrument stops only at a real finding (a crash, a model violation, a race or a
# memory error), keeping its input and log; the others still run. The summary
# ($CARGO_TARGET_DIR/soak/summary.md) has each one's figures and verdict; the exit status
# is 1 if anything was found.
#
#   scripts/soak.sh [seconds per timed instrument, default 3600]
#   PINROCKS_SOAK_ONLY="fuzz-faults crash-mixed" scripts/soak.sh 600     (some of them)
#   PINROCKS_SOAK_OUT=DIR: logs and summary there (two soaks side by side)
#
# Timed: fuzz-decode fuzz-operations fuzz-pin_owners fuzz-faults fuzz-options options
# crash crash-mixed recovery (9 x the time); races and memcheck add about 5 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

seconds="${1:-3600}"
all=(fuzz-decode fuzz-operations fuzz-pin_owners fuzz-faults fuzz-options options crash crash-mixed
    recovery races memcheck)
read -r -a chosen <<<"${PINROCKS_SOAK_ONLY:-${all[*]}}"
out="${PINROCKS_SOAK_OUT:-$CARGO_TARGET_DIR/soak}"
mkdir -p "$out"
summary="$out/summary.md"
{
    echo "# Soak, $(date -u +%Y-%m-%dT%H:%MZ), $seconds s per timed instrument"
    echo
    echo "Machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores;" \
        "commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet 2>/dev/null || echo ' (changed)')"
    echo
    echo "| instrument | verdict | seconds | figures |"
    echo "|---|---|---|---|"
} >"$summary"

found=0
# run NAME LOG FIGURES-PATTERN COMMAND...: the command's output to LOG, a summary row.
run() {
    local name="$1" log="$out/$1.log" pattern="$2"
    shift 2
    echo "soak: $name" >&2
    local start=$SECONDS status=0
    "$@" >"$log" 2>&1 || status=$?
    local figures
    figures=$(grep -E "$pattern" "$log" | tail -1 | tr '|' '/' | cut -c1-400 || true)
    local verdict="clean"
    if [ "$status" -ne 0 ]; then
        verdict="**FOUND** (exit $status; $log)"
        found=1
    fi
    echo "| $name | $verdict | $((SECONDS - start)) | ${figures:-} |" >>"$summary"
}

option_fuzzer() {
    PINROCKS_OPTION_FUZZ_SECONDS="$seconds" PINROCKS_OPTION_FUZZ_INPUTS=100000000 \
        PINROCKS_OPTION_FUZZ_SEED="${PINROCKS_SOAK_SEED:-$(date +%s)}" bash -c \
        'ulimit -v 16000000; cargo test --release --features "$PINROCKS_TEST_FEATURES" \
            --test soundness option_fuzzer_seeded_run -- --nocapture'
}

crash_mixed() {
    PINROCKS_CRASH_MIX_REFUSALS=1 scripts/crash.sh --seconds "$seconds" \
        --first-seed "${PINROCKS_SOAK_SEED:-1}"
}

recovery_stress() {
    PINROCKS_RECOVERY_STRESS_SECONDS="$seconds" cargo test --release \
        --features "$PINROCKS_TEST_FEATURES" --test operations \
        recovery_hangs::recovery_stress_closes_every_database -- --ignored --nocapture
}

for name in "${chosen[@]}"; do
    case "$name" in
    fuzz-*) run "$name" 'DONE|FOUND A CRASH' scripts/fuzz.sh "$seconds" "${name#fuzz-}" ;;
    options) run "$name" '^option fuzzer:|hung or panicked|signal' option_fuzzer ;;
    crash) run "$name" '^crash-figures' scripts/crash.sh --seconds "$seconds" \
        --first-seed "${PINROCKS_SOAK_SEED:-1}" ;;
    crash-mixed) run "$name" '^crash-figures' crash_mixed ;;
    recovery) run "$name" '^recovery stress' recovery_stress ;;
    races) run "$name" '^races: no race' scripts/races.sh ;;
    memcheck) run "$name" '^memcheck: (no errors|.*FAILED)' scripts/memcheck.sh ;;
    *) echo "soak: unknown instrument $name (one of: ${all[*]})" >&2; exit 2 ;;
    esac
done
cat "$summary"
[ "$found" -eq 0 ] || { echo "soak: something was found (see above)" >&2; exit 1; }
echo "soak: nothing found"

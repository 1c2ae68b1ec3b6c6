#!/usr/bin/env bash
# The test stages on a loaded machine: scripts/test.sh --only STAGE... while CPU hogs run
# beside it, as on a shared CI runner or a developer's laptop with a build going. A test
# that passes only on an idle machine is a broken test; this finds it.
#
# Usage: scripts/load-check.sh [--runs N] [--hogs N] [STAGE...]
#   --runs N   runs of the stages, one after another (default 3)
#   --hogs N   CPU-bound processes beside them (default 2: both cores of a 2-core machine)
#   STAGE...   scripts/test.sh stages (default: corpus golden protection_vectors swift_test
#              daemon -- swift test with its inputs, and the daemon end to end, which
#              builds the release binaries when they are missing)
# Each run's output goes to .build/load-check/run-N.log; a table of runs, their wall
# times and results is printed at the end, then "load check: N passed, 0 failed" (one
# line that scripts/test.sh's summary counts once). Exits non-zero when a run failed.
# The full test command runs it once (its stage under_load); IntegrationTests/README.md
# has the figures.
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RUNS=3
HOGS=2
STAGES=()
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) RUNS="$2"; shift 2 ;;
        --hogs) HOGS="$2"; shift 2 ;;
        -h|--help) sed -n '2,16p' "${BASH_SOURCE[0]}"; exit 0 ;;
        -*) echo "load-check: unknown option $1 (see --help)" >&2; exit 2 ;;
        *) STAGES+=("$1"); shift ;;
    esac
done
[ "${#STAGES[@]}" -gt 0 ] || STAGES=(corpus golden protection_vectors swift_test daemon)

OUT="$REPO_ROOT/.build/load-check"
mkdir -p "$OUT"

HOG_PIDS=()
stop_hogs() {
    local pid
    for pid in "${HOG_PIDS[@]+"${HOG_PIDS[@]}"}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${HOG_PIDS[@]+"${HOG_PIDS[@]}"}"; do wait "$pid" 2>/dev/null || true; done
    HOG_PIDS=()
}
trap stop_hogs EXIT

start_hogs() {
    local i
    for ((i = 0; i < HOGS; i++)); do
        # A busy loop at normal priority: it competes for the CPU as another job would.
        bash -c 'while :; do :; done' &
        HOG_PIDS+=($!)
    done
}

failed=0
rows=()
for ((run = 1; run <= RUNS; run++)); do
    log="$OUT/run-$run.log"
    echo "==> load check run $run of $RUNS: ${STAGES[*]} beside $HOGS CPU hogs (log: ${log#"$REPO_ROOT"/})"
    rm -f "$OUT/results-$run.txt" "$OUT/swift-test-$run.log"
    start_hogs
    start=$SECONDS
    # A results file of its own: the stages' passed counts must not add to a full run's.
    if CARPLAYD_TEST_RESULTS="$OUT/results-$run.txt" CARPLAYD_SWIFT_TEST_LOG="$OUT/swift-test-$run.log" \
        bash "$REPO_ROOT/scripts/test.sh" --only "${STAGES[@]}" > "$log" 2>&1; then
        result=passed
    else
        result="FAILED (tail of ${log#"$REPO_ROOT"/} below)"
        failed=$((failed + 1))
    fi
    elapsed=$((SECONDS - start))
    stop_hogs
    tests="$(sed -n 's/.*Test run with \([0-9]*\) tests.*/\1 swift tests/p' "$OUT/swift-test-$run.log" 2>/dev/null | tail -n 1)"
    rows+=("$(printf '  run %d  %4d s  %s%s' "$run" "$elapsed" "$result" "${tests:+, $tests}")")
    if [ "$result" != passed ]; then tail -n 60 "$log"; fi
done

echo "load check, $HOGS CPU hogs beside ${STAGES[*]}:"
printf '%s\n' "${rows[@]}"
if [ "$failed" -gt 0 ]; then
    echo "load check: $((RUNS - failed)) passed, $failed failed"
    exit 1
fi
echo "load check: $RUNS passed, 0 failed"

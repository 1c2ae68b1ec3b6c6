#!/usr/bin/env bash
# Builds (Fuzz/build.sh) and runs the libFuzzer targets, each for a bounded time.
#
#   Fuzz/run.sh [--seconds N] [--jobs J] [--parallel P] [TARGET...]   (default: 60 s, every target)
#
# Each target starts from its seed corpus, Fuzz/corpus/<target>/ (read only; new
# inputs go to .build/fuzz/corpus/<target>/, which persists between runs so long
# runs build on each other). A crash, an ASan report, a leak, a timeout (> 10 s for one
# input) or an out-of-memory (> 2 GiB) fails the run; the input is kept under
# .build/fuzz-crashes/<target>/ and the log under .build/fuzz/logs/<target>.log.
# Prints one line per target: "fuzz <target> (N s, R runs, C inputs in the working corpus): 1 passed, 0 failed".
# Reproduce a crash: .build/fuzz/bin/<target> .build/fuzz-crashes/<target>/crash-...
#
# --jobs J runs J fuzzing processes per target (libFuzzer -fork); default 1.
# --parallel P fuzzes P targets at once, each still for N s (default 1; P = the number
# of cores gives each target a core of its own, as one at a time does); each target's
# lines are printed when all are done, in target order.
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO_ROOT"

SECONDS_PER_TARGET=60
JOBS=1
PARALLEL=1
targets=()
while [ $# -gt 0 ]; do
    case "$1" in
        --seconds) SECONDS_PER_TARGET="$2"; shift 2 ;;
        --jobs) JOBS="$2"; shift 2 ;;
        --parallel) PARALLEL="$2"; shift 2 ;;
        -h|--help) sed -n '2,19p' "${BASH_SOURCE[0]}"; exit 0 ;;
        -*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
        *) targets+=("$1"); shift ;;
    esac
done
if [ "${#targets[@]}" -eq 0 ]; then
    for file in Fuzz/*.swift; do
        [ "$(basename "$file")" = FuzzSupport.swift ] && continue
        targets+=("$(basename "$file" .swift)")
    done
fi

bash Fuzz/build.sh "${targets[@]}"

OUT="${FUZZ_BUILD_DIR:-$REPO_ROOT/.build/fuzz}"
CRASHES="$REPO_ROOT/.build/fuzz-crashes"
mkdir -p "$OUT/logs" "$CRASHES"
# The Swift runtime's backtracer would race libFuzzer's own crash handling.
export SWIFT_BACKTRACE=enable=no
# detect_leaks: a leak is a failure too; the Swift runtime's metadata caches are not leaks
# LeakSanitizer reports (they stay reachable).
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}"

# fuzz_one TARGET: fuzzes it; prints its line; fails on a finding.
fuzz_one() {
    local target="$1" work crashes log max_len
    work="$OUT/corpus/$target"
    crashes="$CRASHES/$target"
    log="$OUT/logs/$target.log"
    mkdir -p "$work" "$crashes"
    # Per-target maximum input size: DBCs and profiles are larger than frames.
    case "$target" in
        dbc|profile) max_len=131072 ;;
        varlink) max_len=1200000 ;;
        *) max_len=16384 ;;
    esac
    local args=(-max_total_time="$SECONDS_PER_TARGET" -timeout=10 -rss_limit_mb=2048 -max_len="$max_len"
          -artifact_prefix="$crashes/" -print_final_stats=1)
    [ "$JOBS" -gt 1 ] && args+=(-fork="$JOBS" -ignore_crashes=0)
    local dict="Fuzz/$target.dict"
    [ -f "$dict" ] && args+=(-dict="$dict")
    echo "==> fuzz $target for $SECONDS_PER_TARGET s (log: $log)"
    if "$OUT/bin/$target" "${args[@]}" "$work" "Fuzz/corpus/$target" > "$log" 2>&1; then
        local runs corpus
        runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)"
        corpus="$(ls "$work" | wc -l)"
        echo "fuzz $target ($SECONDS_PER_TARGET s, ${runs:-?} runs, $corpus inputs in the working corpus): 1 passed, 0 failed"
    else
        echo "fuzz $target: FAILED; the last lines of $log:" >&2
        grep -v '^#[0-9]' "$log" | tail -n 40 >&2
        echo "fuzz $target: crashing inputs in $crashes:" >&2
        ls -la "$crashes" >&2
        return 1
    fi
}

failed=0
if [ "$PARALLEL" -le 1 ]; then
    for target in "${targets[@]}"; do fuzz_one "$target" || failed=1; done
    exit "$failed"
fi
# P at a time, each into its own output file; then the outputs in target order.
echo "==> fuzz ${targets[*]}: $PARALLEL at a time"
running=0
for target in "${targets[@]}"; do
    if [ "$running" -ge "$PARALLEL" ]; then wait -n || true; running=$((running - 1)); fi
    rm -f "$OUT/logs/$target.rc"
    ( rc=0; fuzz_one "$target" > "$OUT/logs/$target.out" 2> "$OUT/logs/$target.err" || rc=$?; echo "$rc" > "$OUT/logs/$target.rc" ) &
    running=$((running + 1))
done
wait
for target in "${targets[@]}"; do
    cat "$OUT/logs/$target.out"
    cat "$OUT/logs/$target.err" >&2
    [ "$(cat "$OUT/logs/$target.rc" 2>/dev/null)" = 0 ] || { failed=1; echo "fuzz $target: no success reported" >&2; }
done
exit "$failed"

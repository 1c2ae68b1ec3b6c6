#!/usr/bin/env bash
# Intents end to end, footprint and scaling benchmarks of carplayd (embedded default),
# driven by carplay-bench; rewrites the intents-bench, footprint-bench and scaling-bench
# sections of docs/BENCHMARKS.md.
#
# Usage: Benchmarks/intents/run.sh [options]
#   --runs N        runs per figure (default 3; the median is shown with min-max)
#   --seconds S     measuring window per run (default 5)
#   --warmup S      load before each window (default 1)
#   --total N       intents of the footprint run (default 1000000)
#   --quick         1 run, 1 s windows, 20000 footprint intents, a short client curve
#   --only LIST     comma-separated subset of intents,footprint,scaling
#   --no-doc        print, do not update docs/BENCHMARKS.md
#
# Environment: SWIFT (default swift), SWIFT_BUILD_ARGS (extra `swift build` arguments,
# e.g. --scratch-path DIR), CARPLAYD_BIN_DIR (use the release binaries there, no build).
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$REPO_ROOT"

SWIFT="${SWIFT:-swift}"
command -v "$SWIFT" >/dev/null 2>&1 || SWIFT=/opt/swift/usr/bin/swift
for arg in "$@"; do
    case "$arg" in -h|--help) sed -n '2,18p' "${BASH_SOURCE[0]}"; exit 0 ;; esac
done

BIN="${CARPLAYD_BIN_DIR:-}"
if [ -n "$BIN" ]; then
    echo "==> using the binaries in $BIN (no build)"
else
    # shellcheck disable=SC2086
    echo "==> swift build -c release ${SWIFT_BUILD_ARGS:-}"
    # shellcheck disable=SC2086
    "$SWIFT" build -c release ${SWIFT_BUILD_ARGS:-}
    # shellcheck disable=SC2086
    BIN="$("$SWIFT" build -c release ${SWIFT_BUILD_ARGS:-} --show-bin-path)"
fi
for tool in carplayd carplay-bench; do
    [ -x "$BIN/$tool" ] || { echo "run.sh: $BIN/$tool missing" >&2; exit 1; }
done
exec python3 "$REPO_ROOT/Benchmarks/intents/bench.py" --bin "$BIN" --command "Benchmarks/intents/run.sh $*" "$@"

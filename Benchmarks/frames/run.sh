#!/usr/bin/env bash
# Frame-path micro-benchmark: the CPU cost of one intent's frames (controller
# encode + reportedValue, simulated vehicle receive, controller decode), in one
# thread, no bus, no actors, no Varlink. Prints ns per intent.
#
# Usage: Benchmarks/frames/run.sh [--scratch-path DIR] [frames-bench options]
#   --profile DIR   vehicle profile folder (default VehicleProfiles/sedan)
#   --intents N     intents per timed run (default 200000)
#   --runs R        timed runs (default 5; best and median printed)
#   --json          one JSON line
# Environment: SWIFT (default swift).
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$REPO_ROOT"
SWIFT="${SWIFT:-swift}"
SCRATCH=()
if [ "${1:-}" = "--scratch-path" ]; then
    SCRATCH=(--scratch-path "$2")
    shift 2
fi
"$SWIFT" build -c release "${SCRATCH[@]}" --product frames-bench -Xswiftc -warnings-as-errors >&2
bin="$("$SWIFT" build -c release "${SCRATCH[@]}" --show-bin-path)/frames-bench"
exec "$bin" "$@"

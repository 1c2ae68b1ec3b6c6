#!/usr/bin/env bash
# Soak carplayd: many clients, random vehicle faults, SIGTERM/SIGKILL restarts, with
# invariants checked continuously (IntegrationTests/soak/soak.py has the list).
#
#   IntegrationTests/soak/run.sh --minutes N [--seed S] [--clients K] [--restart-every SEC] [...]
#   IntegrationTests/soak/run.sh --help
#
# The daemon: $CARPLAYD_BIN if set, else `swift build --product carplayd` (incremental)
# and that build. Python 3 standard library only (no venv needed).
# Exit 0 when every invariant held; the last line is "soak: N passed, M failed".
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$REPO"
case " $* " in *" --help "*|*" -h "*) exec python3 "$REPO/IntegrationTests/soak/soak.py" --help ;; esac
SWIFT="${SWIFT:-swift}"
command -v "$SWIFT" >/dev/null 2>&1 || SWIFT=/opt/swift/usr/bin/swift
if [ -n "${CARPLAYD_BIN:-}" ] && [ -x "$CARPLAYD_BIN" ]; then
    BIN="$CARPLAYD_BIN"
else
    "$SWIFT" build --product carplayd >&2
    BIN="$("$SWIFT" build --show-bin-path)/carplayd"
fi
exec python3 "$REPO/IntegrationTests/soak/soak.py" --carplayd "$BIN" "$@"

#!/usr/bin/env bash
# End-to-end tests of the real carplayd binary over its Varlink socket (pytest).
#
#   IntegrationTests/daemon/run.sh [PYTEST ARGS...]
#
# Uses $CARPLAYD_BIN when it names an executable; otherwise builds the daemon
# (`swift build --product carplayd`, `carplay-bench` and `carplayctl`, incremental) and tests that build. Creates the
# venv (scripts/bootstrap.sh) when it has no pytest, or tmux is missing. Exits with pytest's exit code.
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$REPO_ROOT"

SWIFT="${SWIFT:-swift}"
if ! command -v "$SWIFT" >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
    SWIFT=/opt/swift/usr/bin/swift
fi
PY="$REPO_ROOT/.venv/bin/python"

# tmux: test_dash.py drives carplayctl dash in it.
if ! [ -x "$PY" ] || ! "$PY" -c 'import pytest, varlink' >/dev/null 2>&1 || ! command -v tmux >/dev/null 2>&1; then
    bash "$REPO_ROOT/scripts/bootstrap.sh"
fi

if [ -n "${CARPLAYD_BIN:-}" ] && [ -x "$CARPLAYD_BIN" ]; then
    echo "IntegrationTests/daemon: carplayd = $CARPLAYD_BIN"
else
    echo "==> swift build --product carplayd"
    "$SWIFT" build --product carplayd
    "$SWIFT" build --product carplay-bench  # IntegrationTests/daemon/test_load_generator.py
    "$SWIFT" build --product carplayctl     # IntegrationTests/daemon/test_dash.py (beside carplayd)
    CARPLAYD_BIN="$("$SWIFT" build --show-bin-path)/carplayd"
    [ -x "$CARPLAYD_BIN" ] || { echo "IntegrationTests/daemon: no carplayd at $CARPLAYD_BIN after the build" >&2; exit 1; }
fi
export CARPLAYD_BIN

echo "==> pytest IntegrationTests/daemon (carplayd end to end)"
# -p no:cacheprovider: no .pytest_cache in the source tree.
exec "$PY" -m pytest "$REPO_ROOT/IntegrationTests/daemon" -q -p no:cacheprovider "$@"

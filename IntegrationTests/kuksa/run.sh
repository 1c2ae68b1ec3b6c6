#!/usr/bin/env bash
# carplayd-kuksa end to end (pytest): the real carplayd with its embedded simulated car
# behind the real carplayd-kuksa (kuksa/), kuksa-client from PyPI as the client.
#
#   IntegrationTests/kuksa/run.sh [PYTEST ARGS...]
#
# carplayd: $CARPLAYD_BIN, else $CARPLAYD_BIN_DIR/carplayd (scripts/test.sh gives the release
# build's directory), else `swift build --product carplayd` (incremental) and that build.
# Creates the venv (scripts/bootstrap.sh) when it lacks pytest, grpcio, kuksa-client or
# PyJWT. Exits with pytest's exit code.
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$REPO_ROOT"

SWIFT="${SWIFT:-swift}"
if ! command -v "$SWIFT" >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
    SWIFT=/opt/swift/usr/bin/swift
fi
PY="$REPO_ROOT/.venv/bin/python"

if ! [ -x "$PY" ] || ! "$PY" -c 'import pytest, varlink, grpc, grpc_tools, kuksa_client, jwt, cryptography' >/dev/null 2>&1; then
    bash "$REPO_ROOT/scripts/bootstrap.sh"
fi

if [ -z "${CARPLAYD_BIN:-}" ] && [ -n "${CARPLAYD_BIN_DIR:-}" ]; then
    CARPLAYD_BIN="$CARPLAYD_BIN_DIR/carplayd"
fi
if [ -n "${CARPLAYD_BIN:-}" ]; then
    [ -x "$CARPLAYD_BIN" ] || { echo "IntegrationTests/kuksa: no executable carplayd at $CARPLAYD_BIN" >&2; exit 1; }
else
    echo "==> swift build --product carplayd"
    "$SWIFT" build --product carplayd
    CARPLAYD_BIN="$("$SWIFT" build --show-bin-path)/carplayd"
    [ -x "$CARPLAYD_BIN" ] || { echo "IntegrationTests/kuksa: no carplayd at $CARPLAYD_BIN after the build" >&2; exit 1; }
fi
export CARPLAYD_BIN
echo "IntegrationTests/kuksa: carplayd = $CARPLAYD_BIN"

echo "==> pytest IntegrationTests/kuksa (carplayd-kuksa end to end, kuksa-client $("$PY" -c 'from importlib.metadata import version; print(version("kuksa-client"))'))"
# -p no:cacheprovider: no .pytest_cache in the source tree.
exec "$PY" -m pytest "$REPO_ROOT/IntegrationTests/kuksa" -q -p no:cacheprovider "$@"

#!/usr/bin/env bash
# THE run command of carplayd (README): sets up a fresh Debian 12 machine that has
# the Swift toolchain, builds the release binaries and runs the main job: carplayd
# on its embedded default -- an in-process virtual CAN bus with the simulated
# vehicle of the example sedan (VehicleProfiles/sedan: the daemon's default, unless
# --profile or --config chooses another). It prints where its
# socket is and a line to try next, then logs every intent until Ctrl-C / SIGTERM.
#
# Arguments go to carplayd (e.g. --profile VehicleProfiles/suv, --log-level debug).
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO_ROOT"
SWIFT="${SWIFT:-swift}"
command -v "$SWIFT" >/dev/null 2>&1 || SWIFT=/opt/swift/usr/bin/swift

bash scripts/bootstrap.sh --no-venv
echo "==> swift build -c release (carplayd, carplayctl)"
"$SWIFT" build -c release --product carplayd
"$SWIFT" build -c release --product carplayctl
BIN="$("$SWIFT" build -c release --show-bin-path)"
echo "==> $BIN/carplayd $*"
echo "    (clients: $BIN/carplayctl --help)"
exec "$BIN/carplayd" "$@"

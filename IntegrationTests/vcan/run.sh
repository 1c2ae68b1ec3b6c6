#!/usr/bin/env bash
# The vcan bench: carplayd, carplay-ecu, an independent Python ECU, candump and cansend
# on a real kernel CAN stack -- natively where the kernel has vcan, otherwise in a
# throwaway VM (IntegrationTests/support/vm/run-in-vm.sh). Fails loudly when neither works.
# Two pytest-xdist workers share the tests, the first on vcan0, the second on vcan1
# (test_vcan.IFACE): two buses, so that the emulator's second vCPU has work too.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$REPO"
SWIFT="${SWIFT:-swift}"
command -v "$SWIFT" >/dev/null 2>&1 || SWIFT=/opt/swift/usr/bin/swift
BIN="${CARPLAYD_BIN_DIR:-$("$SWIFT" build --show-bin-path)}"
if [ ! -x "$BIN/carplayd" ] || [ ! -x "$BIN/carplay-ecu" ]; then
    "$SWIFT" build --product carplayd
    "$SWIFT" build --product carplay-ecu
fi
[ -x "$REPO/.venv/bin/python" ] || bash "$REPO/scripts/bootstrap.sh"
echo "==> vcan bench (binaries: $BIN)"
exec "$REPO/IntegrationTests/support/vm/run-in-vm.sh" --timeout "${VCAN_TIMEOUT:-900}" --env CARPLAYD_BIN_DIR="$BIN" -- \
    "$REPO/.venv/bin/python" -m pytest -p no:cacheprovider -q --durations=12 -n 2 --dist load "$REPO/IntegrationTests/vcan"

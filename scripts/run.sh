#!/usr/bin/env bash
# THE run command of carplayd (README): sets up a fresh Debian 12 machine that has
# the Swift toolchain, builds the release binaries and runs the main job.
#
# Today the main job is the CAN layer on the example DBC: the daemon (carplayd on
# its embedded default, a simulated car on an in-process bus) is not built yet --
# see the roadmap in README.md. This script then exercises what exists: it shows
# the example database, encodes a command frame, and decodes a candump log of it.
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO_ROOT"
SWIFT="${SWIFT:-swift}"
command -v "$SWIFT" >/dev/null 2>&1 || SWIFT=/opt/swift/usr/bin/swift

bash scripts/bootstrap.sh --no-venv
echo "==> swift build -c release"
"$SWIFT" build -c release --product carplayctl
BIN="$("$SWIFT" build -c release --show-bin-path)"
CTL="$BIN/carplayctl"
DBC="$REPO_ROOT/docs/examples/climate.dbc"

echo
echo "==> carplayctl dbc show $DBC"
"$CTL" dbc show "$DBC"

echo
echo "==> carplayctl dbc encode (driver zone to 21.5 degC, fan 4, A/C on)"
FRAME="$("$CTL" dbc encode "$DBC" ClimateCommand Crc=0 AliveCounter=3 Zone=driver TargetTemperature=21.5 FanLevel=4 AirConditioner=on)"
echo "$FRAME"

echo
echo "==> carplayctl dbc decode (candump -L lines on stdin)"
printf '(%s.000000) vcan0 %s\n(%s.100000) vcan0 18FF0200#FDD0000118000000\n' \
    "$(date +%s)" "$FRAME" "$(date +%s)" | "$CTL" dbc decode "$DBC"

echo
echo "Next: 'carplayctl dbc --help', or decode your own capture:"
echo "  candump -L vcan0 | $CTL dbc decode YOUR.dbc"

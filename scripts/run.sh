#!/usr/bin/env bash
# THE run command of carplayd (README): sets up a fresh Debian 12 machine that has
# the Swift toolchain, builds the release binaries and runs the main job.
#
# Until the daemon exists (roadmap step 3), the main job is one intent through the
# whole pipeline against the simulated sedan on an in-process CAN bus, with
# `carplayctl perform --simulate`.
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
PROFILE="$REPO_ROOT/VehicleProfiles/sedan"

echo
echo "==> carplayctl profile check $PROFILE"
"$CTL" profile check "$PROFILE"

echo
echo "==> carplayctl perform --simulate: set the driver's zone to 22.5 degC"
echo "    (resolve, confirm, command frame on an in-process CAN bus, the simulated"
echo "     sedan applies it, its status frame confirms it)"
"$CTL" perform --simulate "$PROFILE" \
    '{"intent":"SetClimateSettingsInCar","parameters":{"temperature":{"value":22.5,"unit":"celsius"},"climateZone":"driver"}}'

echo
echo "Next: try other intents (docs/INTENTS.md), e.g."
echo "  $CTL perform --simulate VehicleProfiles/suv '{\"intent\":\"GetCarPowerLevelStatus\",\"parameters\":{}}'"
echo "  $CTL dbc decode VehicleProfiles/sedan/sedan.dbc < capture.log"

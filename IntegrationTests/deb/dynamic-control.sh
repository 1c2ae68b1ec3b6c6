#!/usr/bin/env bash
# The deb tests' control (deb/host.sh, deb/run.sh): a carplayd that loads the Swift
# runtime from the toolchain, which must NOT start where /opt/swift is hidden -- else the
# mask hides nothing and "the package runs without a toolchain" proves nothing.
# Prints its path: $CARPLAYD_DYNAMIC_BIN, else the debug build's (.build/debug/carplayd,
# what `swift build` makes), else a dynamic release build's (.build/release/carplayd).
# Fails, saying why, when none loads libswiftCore: the control is never skipped.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
if [ -n "${CARPLAYD_DYNAMIC_BIN:-}" ]; then
    candidates=("$CARPLAYD_DYNAMIC_BIN")
else
    candidates=("$REPO/.build/debug/carplayd" "$REPO/.build/release/carplayd")
fi
# grep reads to the end (not -q): under pipefail, grep -q's early exit can kill ldd
# with SIGPIPE and fail the pipeline though the library is there (it did, once).
for bin in "${candidates[@]}"; do
    if [ -x "$bin" ] && ldd "$bin" 2>/dev/null | grep libswiftCore >/dev/null; then
        echo "$bin"
        exit 0
    fi
done
echo "IntegrationTests/deb: no carplayd that loads libswiftCore for the control (${candidates[*]}): run swift build (or set CARPLAYD_DYNAMIC_BIN)" >&2
exit 1

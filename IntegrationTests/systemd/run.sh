#!/usr/bin/env bash
# carplayd under a real systemd (PID 1 in a qemu VM, IntegrationTests/support/vm/run-in-vm.sh --systemd):
# the units installed the way `make install` does, socket activation, READY/STATUS,
# an intent confirmed by carplay-ecu@vcan0, journal fields, restart after kill -9 with
# saved car profiles intact, the watchdog after SIGSTOP, a clean stop.
# Prints "N passed, N failed"; exits non-zero on any failure.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$REPO"
SWIFT="${SWIFT:-swift}"
command -v "$SWIFT" >/dev/null 2>&1 || SWIFT=/opt/swift/usr/bin/swift
# Release binaries, installed as `make install` does: by default the static ones the
# Debian package ships (`make build STATIC=1`, .build/static: the build scripts/test.sh
# makes once for this test, the daemon tests and the package), built here, on the host
# (the repo is read-only in the VM).
BIN="${CARPLAYD_RELEASE_BIN_DIR:-}"
if [ -z "$BIN" ]; then
    make -s build STATIC=1 SWIFT="$SWIFT" >/dev/null
    BIN="$("$SWIFT" build -c release --scratch-path "$REPO/.build/static" --show-bin-path)"
fi
for p in carplayd carplayctl carplay-ecu; do [ -x "$BIN/$p" ] || { echo "IntegrationTests/systemd: $BIN/$p missing" >&2; exit 1; }; done
# The VM sees the host root, except /tmp (a fresh tmpfs there): stage binaries from /tmp.
case "$BIN" in
    /tmp/*) mkdir -p "$REPO/.build/systemd-test-bin"
            for p in carplayd carplayctl carplay-ecu; do cp "$BIN/$p" "$REPO/.build/systemd-test-bin/"; done
            BIN="$REPO/.build/systemd-test-bin" ;;
esac
# carplayd-kuksa's packages and kuksa-client, as wheels from PyPI (the VM has no network),
# for make install-kuksa and the client in the guest.
WHEELS="$REPO/.build/kuksa-wheels"
"$REPO/.venv/bin/python" -m pip download --disable-pip-version-check --quiet --only-binary=:all: -d "$WHEELS" \
    -r "$REPO/kuksa/requirements.txt" kuksa-client==0.6.0 \
    || { echo "IntegrationTests/systemd: cannot download carplayd-kuksa's wheels into $WHEELS" >&2; exit 1; }
echo "==> carplayd under systemd in a VM (binaries: $BIN)"
exec "$REPO/IntegrationTests/support/vm/run-in-vm.sh" --systemd --timeout "${SYSTEMD_TEST_TIMEOUT:-900}" \
    --env CARPLAYD_RELEASE_BIN_DIR="$BIN" --env CARPLAYD_REPO="$REPO" --env CARPLAYD_KUKSA_WHEELS="$WHEELS" -- \
    bash "$REPO/IntegrationTests/systemd/in-vm.sh"

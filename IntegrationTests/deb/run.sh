#!/usr/bin/env bash
# The Debian package as an in-car unit gets it: systemd 252 as PID 1 in the qemu VM
# (IntegrationTests/support/vm/run-in-vm.sh --systemd), the host's Swift toolchain hidden
# from the guest (a tmpfs over /opt/swift before anything is installed), then dpkg -i,
# socket activation, an intent confirmed by carplay-ecu@vcan0, systemctl reload,
# dpkg -r (units stopped, config kept), dpkg --purge (nothing left). IntegrationTests/deb/in-vm.sh.
#
# Usage: IntegrationTests/deb/run.sh [DEB]   (default: make deb-files' output)
# Prints "N passed, N failed"; exits non-zero on any failure.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
VERSION="$(make -s -C "$REPO" version)"
DEB="${1:-$REPO/.build/deb/carplayd_${VERSION}_$(dpkg --print-architecture).deb}"
[ -f "$DEB" ] || { echo "IntegrationTests/deb: $DEB missing (make deb)" >&2; exit 1; }
DEB="$(cd "$(dirname "$DEB")" && pwd)/$(basename "$DEB")"
# The guest's /tmp is a fresh tmpfs: a package there is staged into the repo's .build.
case "$DEB" in
    /tmp/*) mkdir -p "$REPO/.build/deb-test"; cp "$DEB" "$REPO/.build/deb-test/"; DEB="$REPO/.build/deb-test/$(basename "$DEB")" ;;
esac
# The control in the guest: a build that loads the Swift runtime from the toolchain must
# not start there (IntegrationTests/deb/dynamic-control.sh: the debug build).
DYNAMIC="$(bash "$REPO/IntegrationTests/deb/dynamic-control.sh")" || exit 1
echo "==> the package under systemd in a VM, no Swift toolchain in the guest ($DEB)"
exec "$REPO/IntegrationTests/support/vm/run-in-vm.sh" --systemd --timeout "${DEB_TEST_TIMEOUT:-900}" \
    --env CARPLAYD_DEB="$DEB" --env CARPLAYD_VERSION="$VERSION" --env CARPLAYD_DYNAMIC="$DYNAMIC" -- \
    bash "$REPO/IntegrationTests/deb/in-vm.sh"

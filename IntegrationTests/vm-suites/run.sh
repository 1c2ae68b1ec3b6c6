#!/usr/bin/env bash
# The three suites that need a real kernel CAN stack or systemd as PID 1 -- vcan, systemd
# and deb -- in ONE boot of the systemd VM (IntegrationTests/support/vm/run-in-vm.sh
# --systemd) instead of one boot each. Each suite's run.sh prepares its run exactly as
# when it runs alone (binaries, the package, the control, the environment); with
# RUN_IN_VM_COLLECT set, run-in-vm.sh records the command instead of booting. Then one VM
# runs them in order (IntegrationTests/vm-suites/in-vm.sh): the vcan bench's pytest,
# systemd/in-vm.sh, deb/in-vm.sh -- last, since it hides /opt/swift -- undoing between
# two suites what the first leaves behind. Where the host kernel has vcan, the vcan
# bench runs natively first (as vcan/run.sh alone does) and the VM runs the other two.
#
# Each suite prints its own result lines, as when it runs alone; a failing suite does
# not stop the next. Exits non-zero when any suite (or the VM) failed.
#
# Usage: IntegrationTests/vm-suites/run.sh [--vm]
#   --vm   the vcan bench in the VM too, even where the host kernel has vcan
# Environment: what the suites' run.sh take (CARPLAYD_BIN_DIR, CARPLAYD_RELEASE_BIN_DIR,
#   CARPLAYD_DYNAMIC_BIN, VCAN_TIMEOUT, SYSTEMD_TEST_TIMEOUT, DEB_TEST_TIMEOUT); the
#   VM's timeout is theirs added up plus 300 s for the boot.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$REPO"
VM="$REPO/IntegrationTests/support/vm/run-in-vm.sh"
FORCE_VM=0
case "${1:-}" in
    "") ;;
    --vm) FORCE_VM=1 ;;
    *) echo "vm-suites: unknown argument: $1 (usage: IntegrationTests/vm-suites/run.sh [--vm])" >&2; exit 2 ;;
esac

# The plan lives under the repository: the guest sees the host's root, but not its /tmp.
PLAN_DIR="$REPO/.build/vm-suites"
rm -rf "$PLAN_DIR"
mkdir -p "$PLAN_DIR"
PLAN="$PLAN_DIR/plan"
: > "$PLAN"
failed=()
T0=$SECONDS

# collect NAME SCRIPT: SCRIPT's VM run goes into the plan.
collect() {
    local name="$1"; shift
    if ! RUN_IN_VM_COLLECT="$PLAN" RUN_IN_VM_COLLECT_NAME="$name" bash "$@"; then
        echo "vm-suites: FAILED to prepare the $name suite ($*)" >&2
        failed+=("$name (not run: preparing it failed)")
    fi
}

if [ "$FORCE_VM" -eq 0 ] && "$VM" --check-native; then
    bash "$REPO/IntegrationTests/vcan/run.sh" || failed+=(vcan)
else
    collect vcan "$REPO/IntegrationTests/vcan/run.sh"
fi
collect systemd "$REPO/IntegrationTests/systemd/run.sh"
collect deb "$REPO/IntegrationTests/deb/run.sh"

if [ -s "$PLAN" ]; then
    timeout=300
    while read -r _ _ t _; do timeout=$((timeout + t)); done < "$PLAN"
    echo "==> one systemd VM for: $(cut -d' ' -f1 "$PLAN" | tr '\n' ' ')(timeout ${timeout}s)"
    rc=0
    "$VM" --systemd --timeout "$timeout" -- bash "$REPO/IntegrationTests/vm-suites/in-vm.sh" "$PLAN" || rc=$?
    [ "$rc" -eq 0 ] || failed+=("the VM run (exit $rc)")
fi

if [ "${#failed[@]}" -gt 0 ]; then
    echo "==> vm-suites: FAILED: $(printf '%s; ' "${failed[@]}")$((SECONDS - T0)) s" >&2
    exit 1
fi
echo "==> vm-suites: vcan, systemd and deb suites passed ($((SECONDS - T0)) s)"

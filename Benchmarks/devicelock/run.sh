#!/usr/bin/env bash
# What SiriKit's "restricted while locked" costs per call: the caller's device lock is
# read from logind on every call of a restricted intent (GetSessionByPID and the
# session's LockedHint, two D-Bus round trips), so a Confirm of SetCarLockStatus
# (restricted by default) is compared with one of GetCarLockStatus (not restricted)
# from a client in a logind session, on one daemon, alternating. Needs logind: runs
# under systemd as PID 1 in the throwaway VM (TCG unless VM_ACCEL=kvm is given: under
# TCG every figure is several times a real CPU's, the difference too). Prints one JSON
# object; docs/BENCHMARKS.md has the figures.
#
# Usage: Benchmarks/devicelock/run.sh [CALLS]   (default 2000 calls of each)
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$REPO"
SWIFT="${SWIFT:-swift}"
command -v "$SWIFT" >/dev/null 2>&1 || SWIFT=/opt/swift/usr/bin/swift
"$SWIFT" build -c release --product carplayd >/dev/null
BIN="$("$SWIFT" build -c release --show-bin-path)"
[ -x .venv/bin/python ] || bash scripts/bootstrap.sh
ACCEL="${VM_ACCEL:-tcg,thread=multi}"
VM_ACCEL="$ACCEL" exec IntegrationTests/support/vm/run-in-vm.sh --systemd --timeout 900 \
    --env CARPLAYD_BIN="$BIN/carplayd" --env CALLS="${1:-2000}" --env REPO="$REPO" --env ACCEL="$ACCEL" -- \
    bash "$REPO/Benchmarks/devicelock/in-vm.sh"

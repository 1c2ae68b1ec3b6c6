#!/usr/bin/env bash
# Proves IntegrationTests/support/vm/run-in-vm.sh: frames really cross the kernel's SocketCAN
# (vcan0) wherever the harness runs (natively or in the VM).
#
# Usage: IntegrationTests/support/vm/smoke.sh [--quick] [-- extra run-in-vm.sh options, e.g. --vm]
#   --quick   skip the --systemd boot (about a minute under TCG)
#
# Checks:
#   candump    candump -n 1 vcan0 sees `cansend vcan0 123#DEADBEEF`
#   python-can .venv's python-can (interface='socketcan') sends and receives
#              on vcan0 (skipped when the repo has no .venv: run
#              scripts/bootstrap.sh)
#   exit-code  the command's exit code and stderr come back separately
#   systemd    --systemd: the system reaches `running`/`degraded`, vcan0 is up,
#              and the command runs as run-in-vm.service
# Prints `N passed, N failed` (and `, N skipped`); exits non-zero on a failure.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$HERE/../../.." && pwd)"
RUN="$HERE/run-in-vm.sh"
QUICK=0
RUN_OPTS=()
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) QUICK=1; shift ;;
        --) shift; RUN_OPTS=("$@"); break ;;
        -h|--help) sed -n '2,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "smoke: unknown argument: $1" >&2; exit 2 ;;
    esac
done

cd "$REPO_ROOT"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
passed=0; failed=0; skipped=0
pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1: $2"; failed=$((failed + 1)); }
skip() { echo "SKIP $1: $2"; skipped=$((skipped + 1)); }
show() { sed 's/^/    | /' "$@"; }

# ---------------------------------------------------------------- candump
t0=$(date +%s)
rc=0
"$RUN" --timeout 300 "${RUN_OPTS[@]+"${RUN_OPTS[@]}"}" -- bash -c \
    'candump -n 1 vcan0 & sleep 1; cansend vcan0 123#DEADBEEF; wait' \
    >"$WORK/candump.out" 2>"$WORK/candump.err" || rc=$?
if [ "$rc" -ne 0 ]; then
    fail candump "run-in-vm exited $rc"; show "$WORK/candump.err"
elif grep -Eq '^ *vcan0 +123 +\[4\] +DE AD BE EF *$' "$WORK/candump.out"; then
    pass "candump ($(( $(date +%s) - t0 ))s): $(grep -E 'vcan0 +123' "$WORK/candump.out" | sed 's/^ *//')"
else
    fail candump "no '  vcan0  123   [4]  DE AD BE EF' line in the output"; show "$WORK/candump.out" "$WORK/candump.err"
fi

# ---------------------------------------------------------------- python-can
if [ -x "$REPO_ROOT/.venv/bin/python" ]; then
    t0=$(date +%s)
    rc=0
    "$RUN" --timeout 300 "${RUN_OPTS[@]+"${RUN_OPTS[@]}"}" -- .venv/bin/python -c '
import can
with can.Bus(interface="socketcan", channel="vcan0") as rx, can.Bus(interface="socketcan", channel="vcan0") as tx:
    tx.send(can.Message(arbitration_id=0x123, data=bytes.fromhex("DEADBEEF"), is_extended_id=False))
    m = rx.recv(5.0)
    assert m is not None, "no frame received within 5 s"
    assert m.arbitration_id == 0x123 and bytes(m.data) == bytes.fromhex("DEADBEEF"), m
    print("python-can received", hex(m.arbitration_id), bytes(m.data).hex())
' >"$WORK/pycan.out" 2>"$WORK/pycan.err" || rc=$?
    if [ "$rc" -eq 0 ] && grep -q '^python-can received 0x123 deadbeef$' "$WORK/pycan.out"; then
        pass "python-can ($(( $(date +%s) - t0 ))s)"
    else
        fail python-can "exit $rc"; show "$WORK/pycan.out" "$WORK/pycan.err"
    fi
else
    skip python-can "no .venv in $REPO_ROOT (run scripts/bootstrap.sh)"
fi

# ---------------------------------------------------------------- exit code
t0=$(date +%s)
rc=0
"$RUN" --timeout 300 "${RUN_OPTS[@]+"${RUN_OPTS[@]}"}" -- bash -c \
    'echo "out $RUN_IN_VM $PWD"; echo "to-stderr" >&2; exit 7' \
    >"$WORK/rc.out" 2>"$WORK/rc.err" || rc=$?
if [ "$rc" -eq 7 ] && grep -qx "out [a-z]* $REPO_ROOT" "$WORK/rc.out" \
        && ! grep -q to-stderr "$WORK/rc.out" && grep -qx to-stderr "$WORK/rc.err"; then
    pass "exit-code ($(( $(date +%s) - t0 ))s): 7 came back; stdout/stderr separate; cwd $REPO_ROOT"
else
    fail exit-code "want exit 7, got $rc"; show "$WORK/rc.out" "$WORK/rc.err"
fi

# ---------------------------------------------------------------- systemd
if [ "$QUICK" -eq 1 ]; then
    skip systemd "--quick"
else
    t0=$(date +%s)
    rc=0
    "$RUN" --systemd --timeout 400 -- bash -c \
        'echo "state: $(systemctl is-system-running --wait)"; echo "pid1: $(cat /proc/1/comm)";
         echo "unit: $(systemctl show -P ActiveState run-in-vm.service)";
         candump -n 1 vcan0 & sleep 1; cansend vcan0 456#CAFE; wait;
         systemd-analyze time | head -n 1' \
        >"$WORK/sd.out" 2>"$WORK/sd.err" || rc=$?
    if [ "$rc" -eq 0 ] && grep -Eqx 'state: (running|degraded)' "$WORK/sd.out" \
            && grep -qx 'pid1: systemd' "$WORK/sd.out" && grep -qx 'unit: active' "$WORK/sd.out" \
            && grep -Eq 'vcan0 +456 +\[2\] +CA FE' "$WORK/sd.out"; then
        pass "systemd ($(( $(date +%s) - t0 ))s): $(grep -E '^state:|^Startup' "$WORK/sd.out" | tr '\n' ' ')"
    else
        fail systemd "exit $rc"; show "$WORK/sd.out" "$WORK/sd.err"
    fi
fi

echo
if [ "$skipped" -gt 0 ]; then
    echo "$passed passed, $failed failed, $skipped skipped"
else
    echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]

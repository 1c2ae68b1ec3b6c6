#!/usr/bin/env bash
# Runs inside the systemd VM (IntegrationTests/vm-suites/run.sh): the collected suites of
# PLAN in order, each with its own timeout, each printing its own result lines; a suite
# collected for a plain VM (the vcan bench) runs without the unit's systemd environment.
# Between
# two suites, what the first leaves that the next must not see is undone and checked:
# after the vcan bench, no process of it left and vcan0/vcan1 up; after the systemd
# suite, its `make install` (units, users, configuration, state, journal) removed, so
# that the deb suite starts from a system that never had carplayd (its first check).
# A failing suite does not stop the next. Exits 1 when any suite or clean-up failed.
#
# Usage (in the guest): bash IntegrationTests/vm-suites/in-vm.sh PLAN
set -u
PLAN="${1:?usage: in-vm.sh PLAN}"
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
failed=()

fail() { echo "FAIL - $1"; failed+=("$1"); }

after_vcan() {
    local left="" _
    for _ in $(seq 20); do
        left="$(for p in carplayd carplay-ecu candump cansend; do pgrep -a -x "$p"; done)"
        [ -z "$left" ] && break
        sleep 0.5
    done
    if [ -n "$left" ]; then
        fail "the vcan bench left processes running: $(tr '\n' ';' <<<"$left")"
        # shellcheck disable=SC2046
        kill -9 $(cut -d' ' -f1 <<<"$left") 2>/dev/null
    fi
    local ifc
    for ifc in vcan0 vcan1; do
        if ! ip link show dev "$ifc" 2>/dev/null | grep -q ',UP'; then
            fail "$ifc is not up after the vcan bench"
            ip link add dev "$ifc" type vcan 2>/dev/null; ip link set "$ifc" up
        fi
    done
}

after_systemd() {
    systemctl stop carplayd-kuksa.service carplayd.socket carplayd.service 'carplayd@*.service' 'carplay-ecu@*.service' >/dev/null 2>&1
    loginctl terminate-user driver >/dev/null 2>&1
    make -s -C "$REPO" uninstall PREFIX=/usr >/dev/null 2>&1 || fail "make uninstall PREFIX=/usr after the systemd suite"
    make -s -C "$REPO" uninstall-kuksa PREFIX=/usr >/dev/null 2>&1 || fail "make uninstall-kuksa PREFIX=/usr after the systemd suite"
    rm -rf /etc/carplayd /var/lib/carplayd /var/lib/private/carplayd /run/carplayd /run/carplayd-kuksa \
        /var/cache/carplayd-kuksa /home/driver /tmp/kuksa-client
    local who
    for who in driver carplayd-kuksa carplayd; do getent passwd "$who" >/dev/null && { userdel "$who" || fail "userdel $who"; }; done
    getent group carplay >/dev/null && { groupdel carplay || fail "groupdel carplay"; }
    systemctl daemon-reload
    systemctl reset-failed >/dev/null 2>&1
    # The deb suite reads the journal of carplayd.service: only its own lines.
    journalctl --rotate >/dev/null 2>&1 && journalctl --vacuum-time=1s >/dev/null 2>&1 || fail "journal not cleared after the systemd suite"
    local left
    left="$(ls -d /usr/bin/carplay* /lib/systemd/system/carplay* /usr/share/carplayd /etc/carplayd /usr/lib/carplayd-kuksa 2>/dev/null
            pgrep -a -x carplayd; pgrep -a -x carplay-ecu; getent passwd carplayd; getent group carplay)"
    [ -z "$left" ] || fail "left after the systemd suite's clean-up: $(tr '\n' ';' <<<"$left")"
    echo "# vm-suites: the systemd suite's install removed (units, users, configuration, state, journal)"
}

systemctl is-system-running --wait >/dev/null 2>&1 || true
mapfile -t steps < "$PLAN"
prev=""
for line in "${steps[@]}"; do
    read -r name mode timeout script <<<"$line"
    case "$prev" in
        vcan) after_vcan ;;
        systemd) after_systemd ;;
    esac
    echo "==> suite $name (in the VM, $mode mode in one systemd boot, timeout ${timeout}s)"
    t=$SECONDS
    if [ "$mode" = plain ]; then
        # As in a plain VM (a chroot from the initramfs): none of the variables systemd
        # gives this unit. carplayd takes JOURNAL_STREAM or INVOCATION_ID for "started by
        # systemd" and would log to the journal instead of its stderr, which the tests read.
        # The step script exports what the command gets (PATH, HOME, ... as run-in-vm.sh does).
        timeout -k 10 "$timeout" env -i /bin/bash "$script" </dev/null
    else
        timeout -k 10 "$timeout" bash "$script" </dev/null
    fi
    rc=$?
    [ "$rc" -eq 124 ] && echo "vm-suites: the $name suite ran longer than ${timeout}s and was killed"
    echo "==> suite $name: exit $rc ($((SECONDS - t)) s)"
    [ "$rc" -eq 0 ] || failed+=("$name (exit $rc)")
    prev="$name"
done
if [ "${#failed[@]}" -gt 0 ]; then
    echo "vm-suites (guest): FAILED: $(printf '%s; ' "${failed[@]}")"
    exit 1
fi

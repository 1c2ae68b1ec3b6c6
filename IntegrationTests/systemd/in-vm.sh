#!/usr/bin/env bash
# Runs inside the systemd VM (IntegrationTests/systemd/run.sh). Everything written lands in the
# VM's tmpfs overlay.
set -u
REPO="${CARPLAYD_REPO:?}"
BIN="${CARPLAYD_RELEASE_BIN_DIR:?}"
SOCK=/run/carplayd/io.carplayd.Vehicle
# shellcheck source=../support/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/../support/checks.sh"
ctl() { timeout 20 /usr/bin/carplayctl --socket "$SOCK" "$@"; }
mainpid() { systemctl show -p MainPID --value carplayd.service; }
finish() {
    echo "---- journal (carplayd, carplay-ecu@vcan0, carplayd-kuksa), last lines"
    journalctl --no-pager -u carplayd.service -u carplay-ecu@vcan0.service -u carplayd.socket -u carplayd-kuksa.service | tail -n 40
    summary
    exit
}

systemctl is-system-running --wait >/dev/null 2>&1 || true

# make install, with PREFIX=/usr, from the prebuilt release binaries.
make -s -C "$REPO" install-files PREFIX=/usr BIN_SRC="$BIN" >/tmp/install.log 2>&1 \
    && ok "make install-files PREFIX=/usr" || { bad "make install-files PREFIX=/usr"; cat /tmp/install.log; finish; }
check "systemd-sysusers creates carplayd and carplay" bash -c 'systemd-sysusers && getent passwd carplayd >/dev/null && getent group carplay >/dev/null'
printf 'profile = /usr/share/carplayd/VehicleProfiles/sedan\ncan = vcan0\n' > /etc/carplayd/carplayd.conf
systemctl daemon-reload
for u in carplayd.service carplayd.socket carplayd@.service carplay-ecu@.service; do
    check "systemd-analyze verify $u" bash -c "systemd-analyze verify /lib/systemd/system/$u 2>&1 | tee /dev/stderr | grep -q . && exit 1 || exit 0"
done

check "carplay-ecu@vcan0 starts" systemctl start carplay-ecu@vcan0.service
check "carplayd.socket starts" systemctl start carplayd.socket
check "socket is srw-rw---- root:carplay" bash -c "[ \"\$(stat -c '%A %U %G' $SOCK)\" = 'srw-rw---- root carplay' ]"
check "carplayd.service not started before the first call" bash -c '! systemctl is-active -q carplayd.service'

# Socket activation: the first carplayctl call starts the daemon.
out="$(ctl status 2>&1)"; echo "$out" | head -5
check "first carplayctl call answered (socket activation)" grep -q "^ *reachable *\(yes\|no\)" <<<"$out"
check "carplayd.service active after the first call" systemctl is-active -q carplayd.service
check "carplayd runs as user carplayd" bash -c '[ "$(ps -o user= -p "$(systemctl show -p MainPID --value carplayd.service)")" = carplayd ]'
check "READY: StatusText says vehicle reachable" wait_for 10 bash -c 'systemctl show -p StatusText --value carplayd.service | grep -q "^vehicle reachable on vcan0"'
systemctl show -p StatusText -p NRestarts -p WatchdogUSec carplayd.service

out="$(ctl climate --temperature 22.5 --zone driver 2>&1)"; echo "$out"
check "intent confirmed by carplay-ecu@vcan0" grep -q "confirmed by the vehicle" <<<"$out"
json="$(journalctl -u carplayd.service -o json --no-pager)"
check "journal entry with CARPLAYD_INTENT=SetClimateSettingsInCar" grep -q '"CARPLAYD_INTENT":"SetClimateSettingsInCar"' <<<"$json"
for f in CARPLAYD_PARAMETERS CARPLAYD_RESULT CARPLAYD_LATENCY_MS CARPLAYD_CAN_IDS SYSLOG_IDENTIFIER; do
    check "journal has $f" grep -q "\"$f\"" <<<"$json"
done
check "journal CARPLAYD_RESULT=success" grep -q '"CARPLAYD_RESULT":"success"' <<<"$json"

out="$(ctl car-profile save 2 --name Alice 2>&1)"; echo "$out"
check "car profile Alice saved in the StateDirectory" bash -c 'grep -qs Alice /var/lib/carplayd/car-profiles-*.json || grep -qs Alice /var/lib/private/carplayd/car-profiles-*.json'

# SiriKit's "restricted while locked" is the caller's device: its logind session's
# LockedHint. A user "driver" in the carplay group calls from sessions of its own
# (runuser -l: pam_systemd), each setting its session's hint first (logind lets a
# session's owner do that); a call from outside any session is refused by default.
systemctl start dbus.socket dbus.service systemd-logind.service >/dev/null 2>&1
check "systemd-logind runs" systemctl is-active -q systemd-logind.service
useradd -m -s /bin/bash -G carplay driver 2>/dev/null || usermod -aG carplay driver
as_driver() {  # as_driver HINT ARGS...: carplayctl ARGS as driver in a new session whose LockedHint is HINT
    local hint="$1"; shift
    timeout 30 runuser -l driver -c "busctl call org.freedesktop.login1 /org/freedesktop/login1/session/self org.freedesktop.login1.Session SetLockedHint b $hint \
        && busctl get-property org.freedesktop.login1 /org/freedesktop/login1/session/self org.freedesktop.login1.Session LockedHint \
        && /usr/bin/carplayctl --socket $SOCK $*"
}
out="$(ctl lock 2>&1)"; echo "$out"
check "root (no session) locks the car" grep -q "confirmed by the vehicle" <<<"$out"
out="$(as_driver true climate --temperature 22.5 --zone driver 2>&1)"; echo "$out"
check "locked session, locked car: climate succeeds (not restricted)" grep -q "confirmed by the vehicle" <<<"$out"
out="$(as_driver true unlock 2>&1)"; echo "$out"
check "LockedHint=yes: unlocking the car is refused" grep -q "needs an unlocked device: the caller's session .* is locked: unlock it first" <<<"$out"
out="$(ctl lock --status 2>&1)"; echo "$out"
check "... and the car stays locked" grep -q "The car is locked" <<<"$out"
out="$(as_driver false unlock 2>&1)"; echo "$out"
check "LockedHint cleared: unlocking succeeds" grep -q "confirmed by the vehicle" <<<"$out"
out="$(timeout 20 setpriv --reuid=driver --regid=driver --init-groups /usr/bin/carplayctl --socket "$SOCK" unlock 2>&1)"; echo "$out"
check "no session (setpriv): refused by default, naming why" grep -q "needs an unlocked device: .*no logind session" <<<"$out"
check "journal: the refusal is logged" bash -c 'journalctl -u carplayd.service --no-pager | grep -q "refused (restrictedWhileLocked)"'

# carplayd-kuksa (docs/KUKSA.md): make install-kuksa (its venv from the wheels the host
# downloaded: the VM has no network), its unit under this systemd, kuksa-client as the
# client. Through the system unit, carplayd sees carplayd-kuksa as the caller: in no
# session, so the central lock is refused (sessionless-callers = refuse). A user's own
# carplayd-kuksa, started in their session, carries that session's lock: per caller.
WHEELS="${CARPLAYD_KUKSA_WHEELS:?}"
KDIR=/usr/lib/carplayd-kuksa
KSOCK=/run/carplayd-kuksa/kuksa.sock
TEMPERATURE=Vehicle.Cabin.HVAC.Station.Row1.Driver.Temperature
LOCKED=Vehicle.Cabin.Door.Row1.DriverSide.IsLocked
# --no-compile: bytecode compiled at each start instead, minutes saved in an emulated VM.
make -s -C "$REPO" install-kuksa PREFIX=/usr KUKSA_PIP_FLAGS="--no-index --find-links $WHEELS --no-compile" >/tmp/install-kuksa.log 2>&1 \
    && ok "make install-kuksa PREFIX=/usr" || { bad "make install-kuksa PREFIX=/usr"; cat /tmp/install-kuksa.log; }
# The client: kuksa-client's own package beside the installed venv's grpcio and protobuf
# (the versions it pins), not installed into the service's venv.
CLIENT="env PYTHONPATH=/tmp/kuksa-client $KDIR/venv/bin/python $REPO/IntegrationTests/systemd/kuksa_set.py"
$KDIR/venv/bin/python -m pip install --disable-pip-version-check --quiet --no-index --find-links "$WHEELS" --no-deps \
    --target /tmp/kuksa-client kuksa-client==0.6.0 typing_extensions >/tmp/kuksa-client.log 2>&1 \
    && ok "kuksa-client 0.6.0, PyPI's wheel" || { bad "kuksa-client 0.6.0, PyPI's wheel"; cat /tmp/kuksa-client.log; }
kset() {  # kset USER SOCKET PATH JSON: kuksa-client's set_target_values as USER (groups: USER's)
    timeout 60 setpriv --reuid="$1" --regid="$(id -g "$1")" --init-groups $CLIENT "$2" "$3" "$4" 2>&1
}
check "systemd-sysusers: carplayd-kuksa in group carplay" bash -c 'systemd-sysusers && [ "$(id -gn carplayd-kuksa)" = carplay ]'
systemctl daemon-reload
check "systemd-analyze verify carplayd-kuksa.service" bash -c "systemd-analyze verify /lib/systemd/system/carplayd-kuksa.service 2>&1 | tee /dev/stderr | grep -q . && exit 1 || exit 0"
check "carplayd-kuksa.service starts (Type=notify: READY=1)" timeout 120 systemctl start carplayd-kuksa.service \
    || journalctl -u carplayd-kuksa.service --no-pager | tail -n 30
systemctl show -p StatusText -p MainPID -p ActiveState carplayd-kuksa.service
check "carplayd-kuksa runs as user carplayd-kuksa" bash -c '[ "$(ps -o user= -p "$(systemctl show -p MainPID --value carplayd-kuksa.service)")" = carplayd-kuksa ]'
check "StatusText: serving its Unix socket" bash -c "systemctl show -p StatusText --value carplayd-kuksa.service | grep -q 'serving unix:$KSOCK'"
check "its socket is srw-rw---- carplayd-kuksa:carplay" bash -c "[ \"\$(stat -c '%A %U %G' $KSOCK)\" = 'srw-rw---- carplayd-kuksa carplay' ]"
out="$(kset driver "$KSOCK" "$TEMPERATURE" 19.5)"; echo "$out"
check "driver (group carplay): set_target_values confirmed by carplay-ecu@vcan0, read back" grep -q "^ok $TEMPERATURE=19.5 in" <<<"$out"
out="$(ctl status 2>&1)"
check "... carplayd's own state says 19.5" grep -q "19.5" <<<"$out"
out="$(kset nobody "$KSOCK" "$TEMPERATURE" 20.5)"; echo "$out"
check "nobody (not in carplay): refused by the socket" bash -c '! grep -q "^ok" <<<"$1" && grep -q "^error 14 .*Permission denied" <<<"$1"' _ "$out"
out="$(kset driver "$KSOCK" "$LOCKED" true)"; echo "$out"
check "the system unit, in no session: locking is refused, PERMISSION_DENIED naming why" grep -q "^error 7 .*no logind session" <<<"$out"
check "journal: carplayd-kuksa's start-up line" bash -c 'journalctl -u carplayd-kuksa.service --no-pager | grep -q "carplayd-kuksa: kuksa.val.v1 and kuksa.val.v2 on unix:"'
# driver's own carplayd-kuksa in a session of theirs (runuser -l: pam_systemd), on its
# default socket ($XDG_RUNTIME_DIR/carplayd-kuksa/kuksa.sock), the stubs install-kuksa made.
as_driver_kuksa() {  # HINT PATH JSON: set the session's LockedHint, then one set through driver's own carplayd-kuksa
    timeout 120 runuser -l driver -c "busctl call org.freedesktop.login1 /org/freedesktop/login1/session/self org.freedesktop.login1.Session SetLockedHint b $1 \
        && { $KDIR/venv/bin/python $KDIR/carplayd-kuksa --carplayd-socket $SOCK >\$XDG_RUNTIME_DIR/kuksa.log 2>&1 & pid=\$!; \
             for i in \$(seq 120); do [ -S \$XDG_RUNTIME_DIR/carplayd-kuksa/kuksa.sock ] && break; sleep 0.5; done; \
             $CLIENT \$XDG_RUNTIME_DIR/carplayd-kuksa/kuksa.sock $2 $3; \
             kill \$pid; wait \$pid; echo \"carplayd-kuksa exit \$?\"; cat \$XDG_RUNTIME_DIR/kuksa.log; }" 2>&1
}
out="$(as_driver_kuksa true "$LOCKED" true)"; echo "$out"
check "driver's own carplayd-kuksa, session locked: locking refused, naming the session" grep -q "^error 7 .*the caller's session .* is locked" <<<"$out"
check "... it stopped cleanly on SIGTERM (exit 0)" grep -q "^carplayd-kuksa exit 0" <<<"$out"
out="$(as_driver_kuksa false "$LOCKED" true)"; echo "$out"
check "driver's own carplayd-kuksa, session unlocked: the car locks, confirmed" grep -q "^ok $LOCKED=true in" <<<"$out"
out="$(ctl lock --status 2>&1)"; echo "$out"
check "... and carplayd says the car is locked" grep -q "The car is locked" <<<"$out"
# Back to what the checks after this one expect: 22.5 °C, the car unlocked.
out="$(kset driver "$KSOCK" "$TEMPERATURE" 22.5)"; echo "$out"
check "driver: set_target_values back to 22.5, confirmed" grep -q "^ok $TEMPERATURE=22.5 in" <<<"$out"
out="$(as_driver false unlock 2>&1)"; echo "$out"
check "driver unlocks the car again (carplayctl, unlocked session)" grep -q "confirmed by the vehicle" <<<"$out"
check "systemctl stop carplayd-kuksa.service" systemctl stop carplayd-kuksa.service
check "stopped cleanly (Result=success), its socket removed" bash -c "[ \"\$(systemctl show -p Result --value carplayd-kuksa.service)\" = success ] && [ ! -e $KSOCK ]"

# kill -9: Restart=on-failure brings it back, state resynchronised, saved profiles intact.
pid="$(mainpid)"; kill -9 "$pid"
check "kill -9 -> restarted (new MainPID)" wait_for 20 bash -c "p=\$(systemctl show -p MainPID --value carplayd.service); [ \"\$p\" != 0 ] && [ \"\$p\" != $pid ] && systemctl is-active -q carplayd.service"
check "after restart: vehicle reachable again" wait_for 10 bash -c 'systemctl show -p StatusText --value carplayd.service | grep -q "^vehicle reachable"'
out="$(ctl status 2>&1)"
check "after restart: state resynchronised from status frames (22.5 °C)" grep -q "22.5" <<<"$out"
out="$(ctl car-profile set --name Alice 2>&1)"; echo "$out"
check "after restart: saved car profile Alice still there" bash -c "! grep -qi 'fail\|unknown\|no profile\|needs' <<<\"\$1\"" _ "$out"

# SIGSTOP: no WATCHDOG=1 any more; systemd kills and restarts it.
pid="$(mainpid)"; kill -STOP "$pid"
check "SIGSTOP -> watchdog restarts it" wait_for 40 bash -c "p=\$(systemctl show -p MainPID --value carplayd.service); [ \"\$p\" != 0 ] && [ \"\$p\" != $pid ] && systemctl is-active -q carplayd.service"
check "journal: watchdog timeout" bash -c 'journalctl -u carplayd.service --no-pager | grep -qi "watchdog timeout"'
out="$(ctl status 2>&1)"
check "after watchdog restart: answering" grep -q "^ *reachable *\(yes\|no\)" <<<"$out"

# systemctl stop: STOPPING=1, graceful, exit 0.
check "systemctl stop carplayd.service" systemctl stop carplayd.service
check "stopped cleanly (Result=success)" bash -c '[ "$(systemctl show -p Result --value carplayd.service)" = success ]'
check "journal: stopped" bash -c 'journalctl -u carplayd.service --no-pager -n 20 | grep -q "stopped"'
check "socket path kept by carplayd.socket after the service stops" test -S "$SOCK"
out="$(ctl status 2>&1)"
check "activated again by the next call" grep -q "^ *reachable *\(yes\|no\)" <<<"$out"
check "systemctl stop carplayd.socket carplayd.service" systemctl stop carplayd.socket carplayd.service
check "socket removed with the socket unit" test ! -e "$SOCK"
finish

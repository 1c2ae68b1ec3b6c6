#!/usr/bin/env bash
# Inside the systemd VM (Benchmarks/devicelock/run.sh): carplayd on its embedded
# default, a user "driver" in a logind session (runuser -l: pam_systemd) measuring.
set -euo pipefail
systemctl start dbus.socket dbus.service systemd-logind.service >/dev/null 2>&1
useradd -m -s /bin/bash driver 2>/dev/null || true
mkdir -p /run/bench && chmod 0777 /run/bench
SOCK=/run/bench/vehicle.sock
"$CARPLAYD_BIN" --socket "$SOCK" --profile "$REPO/VehicleProfiles/sedan" --allow-user driver \
    --state-dir /run/bench/state --log-level warning >/run/bench/carplayd.log 2>&1 &
for _ in $(seq 100); do [ -S "$SOCK" ] && break; sleep 0.1; done
chmod 0666 "$SOCK"
# driver cannot read the repository (a root-owned checkout): the client and the varlink
# package go where it can.
cp "$REPO/Benchmarks/devicelock/measure.py" /run/bench/
cp -r "$("$REPO/.venv/bin/python" -c 'import os, varlink; print(os.path.dirname(varlink.__file__))')" /run/bench/varlink
chmod -R a+rX /run/bench
runuser -l driver -c "PYTHONPATH=/run/bench python3 /run/bench/measure.py $SOCK $CALLS $ACCEL"

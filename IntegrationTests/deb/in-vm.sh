#!/usr/bin/env bash
# Runs inside the systemd VM (IntegrationTests/deb/run.sh); everything written lands in
# the VM's tmpfs overlay.
set -u
DEB="${CARPLAYD_DEB:?}"
VERSION="${CARPLAYD_VERSION:?}"
SOCK=/run/carplayd/io.carplayd.Vehicle
# shellcheck source=../support/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/../support/checks.sh"
ctl() { timeout 20 /usr/bin/carplayctl --socket "$SOCK" "$@"; }
finish() {
    echo "# from dpkg -i to the end: $((SECONDS - ${T0:-0})) s"
    echo "---- journal (carplayd, carplay-ecu@vcan0), last lines"
    journalctl --no-pager -u carplayd.service -u carplayd@vcan1.service -u carplay-ecu@vcan0.service -u carplayd.socket | tail -n 30
    summary
    exit
}
inactive() { ! systemctl is-active -q "$1"; }

systemctl is-system-running --wait >/dev/null 2>&1 || true

# No Swift toolchain: the guest sees the host's root, so its /opt/swift goes under a tmpfs
# (this unit shares the root mount namespace: every unit started later sees the same).
mount -t tmpfs -o size=1m,mode=0755 tmpfs /opt/swift
check "/opt/swift is empty in the guest" test -z "$(ls -A /opt/swift)"
if [ -n "${CARPLAYD_DYNAMIC:-}" ]; then
    check "control: the host's dynamic build ($CARPLAYD_DYNAMIC) does not start in the guest" bash -c '! "$1" --version >/dev/null 2>&1' _ "$CARPLAYD_DYNAMIC"
else
    bad "control: no dynamic build given (CARPLAYD_DYNAMIC; IntegrationTests/deb/run.sh finds it)"
fi
check "no Swift runtime library anywhere ldconfig knows" bash -c '! ldconfig -p | grep -qi swift'
# The host is a Docker image: its /usr/sbin/policy-rc.d (exit 101) forbids maintainer
# scripts to start services, which a unit's Debian does not. Gone in the guest's overlay.
if [ -e /usr/sbin/policy-rc.d ]; then rm -f /usr/sbin/policy-rc.d; echo "# removed the host image's /usr/sbin/policy-rc.d in the guest"; fi
# man-db's trigger re-indexes every man page of the host root over 9p under TCG (minutes);
# man finds the package's pages by path without the index.
rm -f /var/lib/man-db/auto-update
check "nothing of carplayd installed before" bash -c '! test -e /usr/bin/carplayd && ! test -e /etc/carplayd'

# ---- install
T0=$SECONDS; t=$SECONDS; dpkg -i "$DEB" >/tmp/dpkg-i.log 2>&1 && ok "dpkg -i $(basename "$DEB") ($((SECONDS - t)) s)" || { bad "dpkg -i"; cat /tmp/dpkg-i.log; finish; }
check "dpkg: carplayd $VERSION installed" bash -c '[ "$(dpkg-query -W -f="\${Status} \${Version}" carplayd)" = "install ok installed $1" ]' _ "$VERSION"
check "ldd /usr/bin/carplayd: no Swift path, nothing missing" bash -c '! ldd /usr/bin/carplayd | grep -qi "swift\|not found"'
check "carplayd --version = the package's version" test "$(/usr/bin/carplayd --version)" = "carplayd $(dpkg-query -W -f='${Version}' carplayd)"
check "postinst: user carplayd, group carplay (systemd-sysusers)" bash -c 'getent passwd carplayd >/dev/null && getent group carplay >/dev/null'
check "postinst: carplayd.socket enabled" bash -c '[ "$(systemctl is-enabled carplayd.socket)" = enabled ]'
check "postinst: carplayd.socket started" systemctl is-active -q carplayd.socket
check "carplayd.service not enabled (socket-activated only)" bash -c '[ "$(systemctl is-enabled carplayd.service)" = disabled ]'
check "carplayd.service not running before the first call" inactive carplayd.service
check "socket is srw-rw---- root:carplay" bash -c "[ \"\$(stat -c '%A %U %G' $SOCK)\" = 'srw-rw---- root carplay' ]"
check "man carplayctl works" bash -c 'MANWIDTH=80 man carplayctl 2>/dev/null | grep -q "^CARPLAYCTL(1)"'
check "man 8 carplayd works" bash -c 'MANWIDTH=80 man 8 carplayd 2>/dev/null | grep -q "^CARPLAYD(8)"'
check "/etc/carplayd/carplayd.conf is a conffile" bash -c 'dpkg-query -W -f="\${Conffiles}" carplayd | grep -q /etc/carplayd/carplayd.conf'

# The unit's vehicle: carplay-ecu@vcan0 (the VM made vcan0), carplayd on vcan0.
printf 'profile = /usr/share/carplayd/VehicleProfiles/sedan\ncan = vcan0\n' >> /etc/carplayd/carplayd.conf
check "carplay-ecu@vcan0 starts" systemctl start carplay-ecu@vcan0.service

# ---- socket activation, an intent, GetInfo
out="$(ctl status 2>&1)"; echo "$out" | head -3
check "first carplayctl call answered (socket activation)" grep -q "^ *reachable *\(yes\|no\)" <<<"$out"
check "carplayd.service active after the first call" systemctl is-active -q carplayd.service
check "READY: StatusText says vehicle reachable on vcan0" wait_for 10 bash -c 'systemctl show -p StatusText --value carplayd.service | grep -q "^vehicle reachable on vcan0"'
out="$(ctl climate --temperature 22.5 --zone driver 2>&1)"; echo "$out"
check "intent confirmed by carplay-ecu@vcan0" grep -q "confirmed by the vehicle" <<<"$out"
info="$(ctl call org.varlink.service.GetInfo 2>&1)"; echo "$info"
check "Varlink GetInfo version = the package's version" grep -q "\"version\":\"$VERSION\"" <<<"$info"
out="$(ctl car-profile save 2 --name Alice 2>&1)"; echo "$out"
check "a car profile saved in the StateDirectory" bash -c 'grep -qs Alice /var/lib/carplayd/car-profiles-*.json || grep -qs Alice /var/lib/private/carplayd/car-profiles-*.json'

# ---- systemctl reload: SIGHUP, the same process, the new config read
pid="$(systemctl show -p MainPID --value carplayd.service)"
sed -i 's|^profile = .*|profile = /usr/share/carplayd/VehicleProfiles/suv|' /etc/carplayd/carplayd.conf
check "systemctl reload carplayd" systemctl reload carplayd.service
check "reload: the same MainPID" test "$(systemctl show -p MainPID --value carplayd.service)" = "$pid"
check "reload: journal says reloaded with the suv profile" wait_for 10 bash -c 'journalctl -u carplayd.service --no-pager | grep -q "reloaded: .*VehicleProfiles/suv"'
out="$(ctl status 2>&1)"
check "after reload: answering" grep -q "^ *reachable *\(yes\|no\)" <<<"$out"

# ---- upgrade path: dpkg -i again (postinst configure with the old version): the running
# daemon restarts on the (new) binary, the admin's config and the saved profile stay.
check "carplayd@vcan1 (the per-interface template) starts" systemctl start carplayd@vcan1.service
check "carplayd@vcan1 answers on /run/carplayd/vcan1/" wait_for 10 bash -c 'timeout 20 /usr/bin/carplayctl --socket /run/carplayd/vcan1/io.carplayd.Vehicle status 2>&1 | grep -q "^ *reachable"'
pid="$(systemctl show -p MainPID --value carplayd.service)"
ipid="$(systemctl show -p MainPID --value carplayd@vcan1.service)"
t=$SECONDS; dpkg -i "$DEB" >/tmp/dpkg-u.log 2>&1 && ok "dpkg -i again, the upgrade path ($((SECONDS - t)) s)" || { bad "dpkg -i again"; cat /tmp/dpkg-u.log; }
check "upgrade: config kept with the admin's edits" grep -q "^can = vcan0" /etc/carplayd/carplayd.conf
check "upgrade: carplayd.socket still enabled and listening" bash -c '[ "$(systemctl is-enabled carplayd.socket)" = enabled ] && systemctl is-active -q carplayd.socket'
check "upgrade: the running daemon was restarted (new MainPID or started again on the next call)" bash -c '[ "$(systemctl show -p MainPID --value carplayd.service)" != "$1" ]' _ "$pid"
check "upgrade: carplayd@vcan1 restarted (new MainPID)" wait_for 10 bash -c 'p="$(systemctl show -p MainPID --value carplayd@vcan1.service)"; [ "$p" != 0 ] && [ "$p" != "$1" ]' _ "$ipid"
out="$(ctl status 2>&1)"
check "upgrade: answering" grep -q "^ *reachable *\(yes\|no\)" <<<"$out"
check "upgrade: the saved car profile Alice kept in the StateDirectory" bash -c 'grep -qs Alice /var/lib/carplayd/car-profiles-*.json || grep -qs Alice /var/lib/private/carplayd/car-profiles-*.json'

# ---- dpkg -r: units stopped, binaries gone, configuration and state kept
t=$SECONDS; dpkg -r carplayd >/tmp/dpkg-r.log 2>&1 && ok "dpkg -r carplayd ($((SECONDS - t)) s)" || { bad "dpkg -r"; cat /tmp/dpkg-r.log; }
check "remove: carplayd.service stopped" inactive carplayd.service
check "remove: carplayd.socket stopped" inactive carplayd.socket
check "remove: carplay-ecu@vcan0 stopped" inactive carplay-ecu@vcan0.service
check "remove: carplayd@vcan1 stopped" inactive carplayd@vcan1.service
check "remove: no carplayd process left" bash -c '! pgrep -x carplayd >/dev/null && ! pgrep -x carplay-ecu >/dev/null'
check "remove: socket gone" test ! -e "$SOCK"
check "remove: binaries and units gone" bash -c '! test -e /usr/bin/carplayd && ! test -e /lib/systemd/system/carplayd.service'
check "remove: /etc/carplayd/carplayd.conf kept, with the admin's edits" grep -q "^can = vcan0" /etc/carplayd/carplayd.conf
check "remove: dpkg state config-files" bash -c '[ "$(dpkg-query -W -f="\${Status}" carplayd)" = "deinstall ok config-files" ]'

# ---- dpkg --purge: nothing left
echo "CARPLAYD_ECU_PROFILE=/usr/share/carplayd/VehicleProfiles/suv" > /etc/carplayd/carplay-ecu.env
t=$SECONDS; dpkg --purge carplayd >/tmp/dpkg-p.log 2>&1 && ok "dpkg --purge carplayd ($((SECONDS - t)) s)" || { bad "dpkg --purge"; cat /tmp/dpkg-p.log; }
check "purge: /etc/carplayd gone" test ! -e /etc/carplayd
check "purge: state directory gone (saved car profiles)" bash -c '! test -e /var/lib/carplayd && ! test -e /var/lib/private/carplayd'
check "purge: /run/carplayd gone" test ! -e /run/carplayd
check "purge: no enablement symlink left" bash -c '! find /etc/systemd/system -name "carplayd*" | grep -q .'
check "purge: dpkg knows nothing of carplayd" bash -c '! dpkg-query -W carplayd >/dev/null 2>&1 || [ -z "$(dpkg-query -W -f="\${Status}" carplayd 2>/dev/null | grep -v "not-installed")" ]'
# Where the package or its units put anything (the whole /usr over 9p would take minutes).
# Not /var/cache/man: man-db's cat pages of `man carplayctl` are its cache, not ours.
t=$SECONDS
left="$(find /etc /lib/systemd /usr/bin /usr/lib/sysusers.d /usr/share/carplayd /usr/share/doc/carplayd /usr/share/man/man1 \
    /usr/share/man/man8 /var/lib /run -xdev -name '*carplay*' 2>/dev/null || true)"
[ -n "$left" ] && echo "$left"
check "purge: no file named *carplay* left in /etc /lib/systemd /usr/{bin,lib/sysusers.d,share} /var/lib /run ($((SECONDS - t)) s)" test -z "$left"
check "purge: the system user stays (Debian convention; docs/DEPLOY.md)" bash -c 'getent passwd carplayd >/dev/null'
finish

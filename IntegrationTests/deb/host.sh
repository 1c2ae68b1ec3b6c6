#!/usr/bin/env bash
# The Debian package, checked on the host without a VM: lintian (no errors; only the
# warnings docs/DEPLOY.md explains), its fields and version, the man pages rendered
# without warnings, then `dpkg -x` into a fresh folder and the binaries run from there
# with /opt/swift masked by a tmpfs in a mount namespace (no Swift toolchain visible):
# --version, --help, the daemon on its embedded default answering one intent and GetInfo.
#
# Usage: IntegrationTests/deb/host.sh [DEB]   (default: make deb-files' output)
# Needs root (unshare -m, mount). Prints "N passed, N failed".
set -u
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
VERSION="$(make -s -C "$REPO" version)"
DEB="${1:-$REPO/.build/deb/carplayd_${VERSION}_$(dpkg --print-architecture).deb}"
# Warnings of lintian that docs/DEPLOY.md explains; any other warning or error fails.
EXPLAINED_WARNINGS="maintainer-script-calls-systemctl"
# shellcheck source=../support/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/../support/checks.sh"

[ -f "$DEB" ] || { echo "deb/host.sh: $DEB missing (make deb)" >&2; exit 1; }
echo "==> $DEB"
WORK="$(mktemp -d)"
cleanup() { [ -n "${DAEMON_PID:-}" ] && kill "$DAEMON_PID" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT

# ---- lintian
if ! command -v lintian >/dev/null 2>&1; then
    echo "==> apt-get install lintian"
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends lintian >/dev/null 2>&1 \
        || { apt-get update >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends lintian >/dev/null 2>&1; }
fi
lint="$(lintian --pedantic "$DEB" 2>&1 | grep -v '^running with root privileges')"
printf '%s\n' "$lint" | grep '^[EW]:' | sort | uniq -c | sed 's/^/lintian: /'
check "lintian: no errors" bash -c '! grep -q "^E:" <<<"$1"' _ "$lint"
unexplained="$(printf '%s\n' "$lint" | sed -n 's/^W: [^:]*: \([^ ]*\).*/\1/p' | sort -u | grep -vxF -f <(tr ' ' '\n' <<<"$EXPLAINED_WARNINGS") || true)"
check "lintian: no warnings but the explained ones ($EXPLAINED_WARNINGS)${unexplained:+; new: $unexplained}" test -z "$unexplained"

# ---- fields, version from one place
check "file name carplayd_${VERSION}_ARCH.deb" bash -c '[[ "$(basename "$1")" == carplayd_"$2"_*.deb ]]' _ "$DEB" "$VERSION"
check "Version: $VERSION (CarplaydVersion.current)" test "$(dpkg-deb -f "$DEB" Version)" = "$VERSION"
check "Architecture: $(dpkg --print-architecture)" test "$(dpkg-deb -f "$DEB" Architecture)" = "$(dpkg --print-architecture)"
check "conffile /etc/carplayd/carplayd.conf" bash -c 'dpkg-deb --ctrl-tarfile "$1" | tar -xO ./conffiles | grep -qx /etc/carplayd/carplayd.conf' _ "$DEB"
check "Depends names libsystemd0, libsocketcan2, libc6, systemd" bash -c 'd="$(dpkg-deb -f "$1" Depends)"; for p in libsystemd0 libsocketcan2 libc6 systemd; do grep -qw "$p" <<<"$d" || exit 1; done' _ "$DEB"

# ---- dpkg -x into a fresh folder
X="$WORK/root"
check "dpkg -x" dpkg -x "$DEB" "$X"
for f in usr/bin/carplayd usr/bin/carplayctl usr/bin/carplay-ecu lib/systemd/system/carplayd.socket \
         lib/systemd/system/carplayd.service lib/systemd/system/carplayd@.service lib/systemd/system/carplay-ecu@.service \
         usr/lib/sysusers.d/carplayd.conf etc/carplayd/carplayd.conf usr/share/carplayd/VehicleProfiles/sedan/profile.json \
         usr/share/doc/carplayd/copyright usr/share/doc/carplayd/SYSTEMD.md usr/share/doc/carplayd/DEPLOY.md.gz \
         usr/share/man/man8/carplayd.8.gz usr/share/man/man1/carplayctl.1.gz usr/share/man/man8/carplay-ecu.8.gz; do
    check "contains /$f" test -e "$X/$f"
done
check "copyright keeps opendbc's MIT notice" grep -q "Copyright: 2020, Comma.ai, Inc." "$X/usr/share/doc/carplayd/copyright"
for p in carplayd carplayctl carplay-ecu; do
    libs="$(ldd "$X/usr/bin/$p")"
    check "ldd $p: no Swift toolchain path, nothing missing" bash -c '! grep -qi "swift\|not found\|/opt/" <<<"$1"' _ "$libs"
    check "$p is stripped (no .symtab)" bash -c 'readelf -S "$1" >/dev/null && ! readelf -S "$1" | grep -q "\.symtab"' _ "$X/usr/bin/$p"
done

# ---- man pages: render without warnings; the same text as --help
for page in "$X"/usr/share/man/man*/*.gz; do
    n="$(basename "$page" .gz)"
    out="$(MANWIDTH=80 man -l "$page" 2>&1 >/dev/null)"
    check "man -l $n: no warnings" test -z "$out"
    out="$(zcat "$page" | groff -ww -z -man 2>&1)"
    check "groff -ww -z $n: no warnings" test -z "$out"
done
check "carplayd(8) has carplayd --help's options" bash -c 'MANWIDTH=200 man -l "$1" 2>/dev/null | grep -q -- "--sessionless-callers refuse|SEAT"' _ "$X/usr/share/man/man8/carplayd.8.gz"
check "carplayctl(1) has every verb's --help (climate, dbc)" bash -c 'p="$(MANWIDTH=200 man -l "$1" 2>/dev/null)"; grep -q "usage: carplayctl climate" <<<"$p" && grep -q "usage: carplayctl dbc decode" <<<"$p"' _ "$X/usr/share/man/man1/carplayctl.1.gz"
check "carplayd(8) names version $VERSION" bash -c 'MANWIDTH=80 man -l "$1" 2>/dev/null | tail -1 | grep -q "carplayd $2"' _ "$X/usr/share/man/man8/carplayd.8.gz" "$VERSION"

# ---- run with /opt/swift masked (a mount namespace of its own: tmpfs over /opt/swift)
cat > "$WORK/masked.sh" <<'INNER'
set -u
X="$1" VERSION="$2" W="$3" DYNAMIC="${4:-}"
mkdir -p /opt/swift && mount -t tmpfs -o size=1m tmpfs /opt/swift || { echo "FAIL - cannot mask /opt/swift"; exit 1; }
[ -z "$(ls -A /opt/swift)" ] && echo "ok - /opt/swift masked (empty)" || echo "FAIL - /opt/swift masked (empty)"
# The control: a dynamic build cannot start here.
if [ -n "$DYNAMIC" ]; then
    "$DYNAMIC" --version >/dev/null 2>&1 && echo "FAIL - the dynamic build starts with /opt/swift masked (the mask hides nothing)" \
        || echo "ok - control: the dynamic build ($DYNAMIC) does not start with /opt/swift masked"
fi
command -v swift >/dev/null 2>&1 && swift --version >/dev/null 2>&1 && echo "FAIL - no swift runs" || echo "ok - no swift runs"
v="$("$X/usr/bin/carplayd" --version 2>&1)"
[ "$v" = "carplayd $VERSION" ] && echo "ok - carplayd --version: $v" || echo "FAIL - carplayd --version: $v"
"$X/usr/bin/carplayctl" --help >"$W/help" 2>&1 && grep -q "usage: carplayctl VERB" "$W/help" \
    && echo "ok - carplayctl --help" || { echo "FAIL - carplayctl --help"; cat "$W/help"; }
"$X/usr/bin/carplay-ecu" --help >/dev/null 2>&1 && echo "ok - carplay-ecu --help" || echo "FAIL - carplay-ecu --help"
SOCK="$W/carplayd.sock"
env -u NOTIFY_SOCKET -u JOURNAL_STREAM -u INVOCATION_ID -u LISTEN_FDS -u LISTEN_PID \
    "$X/usr/bin/carplayd" --config /dev/null --profile "$X/usr/share/carplayd/VehicleProfiles/sedan" \
    --socket "$SOCK" --state-dir "$W/state" >"$W/daemon.log" 2>&1 &
pid=$!
for _ in $(seq 100); do [ -S "$SOCK" ] && break; sleep 0.1; done
out="$(timeout 20 "$X/usr/bin/carplayctl" --socket "$SOCK" climate --temperature 22.5 --zone driver 2>&1)"
grep -q "confirmed by the vehicle" <<<"$out" && echo "ok - carplayd (embedded default) + carplayctl climate: $out" || { echo "FAIL - intent: $out"; cat "$W/daemon.log"; }
info="$(timeout 20 "$X/usr/bin/carplayctl" --socket "$SOCK" call org.varlink.service.GetInfo 2>&1)"
grep -q "\"version\":\"$VERSION\"" <<<"$info" && echo "ok - GetInfo version $VERSION" || echo "FAIL - GetInfo version: $info"
kill -TERM "$pid"; wait "$pid"; rc=$?
[ "$rc" -eq 0 ] && echo "ok - carplayd stops on SIGTERM (exit 0)" || { echo "FAIL - carplayd exit $rc"; tail -5 "$W/daemon.log"; }
INNER
mkdir -p "$WORK/run"
# The control: a build that loads the Swift runtime from the toolchain (the debug build).
dynamic="$(bash "$REPO/IntegrationTests/deb/dynamic-control.sh")" || bad "control: a dynamic build to start with /opt/swift masked"
while IFS= read -r line; do
    echo "$line"
    case "$line" in ok\ -*) passed=$((passed + 1)) ;; FAIL\ -*) failed=$((failed + 1)) ;; esac
done < <(unshare -m --propagation private bash "$WORK/masked.sh" "$X" "$VERSION" "$WORK/run" "$dynamic" 2>&1)
check "/opt/swift still there outside the namespace" bash -c '[ ! -d /opt/swift ] || [ -n "$(ls -A /opt/swift)" ]'

summary

#!/usr/bin/env bash
# Builds carplayd_VERSION_ARCH.deb from already built binaries (Makefile: `make deb`,
# `make deb-files BIN_SRC=DIR`), with dpkg-deb and debhelper's conventions written out:
# stripped binaries, gzipped man pages, copyright and changelog.gz in /usr/share/doc,
# md5sums, conffiles, shlib Depends from dpkg-shlibdeps. docs/DEPLOY.md.
#
# Usage: packaging/deb/build.sh BIN_SRC VERSION ARCH OUTDIR
set -euo pipefail
BIN_SRC="$1" VERSION="$2" ARCH="$3"
OUT="$(mkdir -p "$4" && cd "$4" && pwd)"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
MAKE="${MAKE:-make}"
[ -n "$VERSION" ] || { echo "deb: no version (CarplaydVersion.current in Sources/CarplaydProduct/CarplaydVersion.swift)" >&2; exit 1; }
[ -n "$ARCH" ] || { echo "deb: no architecture (dpkg --print-architecture)" >&2; exit 1; }
for tool in dpkg-deb dpkg-shlibdeps strip gzip perl; do
    command -v "$tool" >/dev/null 2>&1 || { echo "deb: $tool missing (apt-get install dpkg-dev binutils)" >&2; exit 1; }
done
for p in carplayd carplayctl carplay-ecu; do
    [ -x "$BIN_SRC/$p" ] || { echo "deb: $BIN_SRC/$p missing: run make build STATIC=1" >&2; exit 1; }
    if ldd "$BIN_SRC/$p" | grep 'libswiftCore\|/usr/lib/swift' >/dev/null; then
        echo "deb: $BIN_SRC/$p loads the Swift runtime from the toolchain; build with STATIC=1" >&2; exit 1
    fi
done
# Dates from the commit (a rebuild of the same commit gives the same package).
export SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git -C "$REPO" log -1 --format=%ct 2>/dev/null || date +%s)}"
DATE="$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%d)"
MAINTAINER="${DEB_MAINTAINER:-$(git -C "$REPO" log -1 --format='%an <%ae>' 2>/dev/null || echo 'carplayd maintainers <root@localhost>')}"

mkdir -p "$OUT"
ROOT="$OUT/root"
rm -rf "$ROOT"
umask 022
"$MAKE" -s -C "$REPO" install-files DESTDIR="$ROOT" PREFIX=/usr BIN_SRC="$BIN_SRC" >/dev/null
DOC="$ROOT/usr/share/doc/carplayd"

# The configuration, a conffile: the example itself (every line a comment: the
# embedded default until "can = can0" is set). The vcan0 networkd files are examples
# here: a package must not create interfaces on a car's unit (make install does, for benches).
mv "$ROOT/etc/carplayd/carplayd.conf.example" "$ROOT/etc/carplayd/carplayd.conf"
install -d "$DOC/examples"
install -m 0644 "$REPO/Systemd/carplayd.conf.example" "$DOC/examples/"
mv "$ROOT/usr/lib/systemd/network/80-vcan0.netdev" "$ROOT/usr/lib/systemd/network/80-vcan0.network" "$DOC/examples/"
rmdir "$ROOT/usr/lib/systemd/network" "$ROOT/usr/lib/systemd"

# dh_strip: no symbols, no .comment/.note (the Swift runtime's backtracer still names
# functions from the dynamic symbol table).
for p in carplayd carplayctl carplay-ecu; do
    strip --strip-unneeded --remove-section=.comment --remove-section=.note "$ROOT/usr/bin/$p"
done

# Man pages from man/*.in and the programs' --help (scripts/manpage.sh), gzip -9n.
for t in "$REPO"/man/*.in; do
    page="$(basename "$t" .in)"; section="${page##*.}"
    install -d "$ROOT/usr/share/man/man$section"
    "$REPO/scripts/manpage.sh" "$t" "$BIN_SRC" "$VERSION" "$DATE" | gzip -9n > "$ROOT/usr/share/man/man$section/$page.gz"
done

# /usr/share/doc/carplayd: copyright; changelog.gz (a native package); docs as installed.
install -m 0644 "$HERE/copyright" "$DOC/copyright"
{
    echo "carplayd ($VERSION) unstable; urgency=medium"
    echo
    echo "  * Release $VERSION; the changes are the git history of carplayd."
    echo
    echo " -- $MAINTAINER  $(date -u -R -d "@$SOURCE_DATE_EPOCH")"
} | gzip -9n > "$DOC/changelog.gz"
# Policy 12.3: documentation over 4 kB compressed; the units' Documentation= names
# SYSTEMD.md, README.md (the Varlink GetInfo url) and the .varlink files stay plain.
find "$DOC" -maxdepth 1 -name '*.md' ! -name SYSTEMD.md ! -name README.md -size +4k -exec gzip -9n {} +

# DEBIAN/: control, conffiles, maintainer scripts, md5sums.
install -d "$ROOT/DEBIAN"
scratch="$(mktemp -d)"; trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/debian"
printf 'Source: carplayd\n\nPackage: carplayd\nArchitecture: any\n' > "$scratch/debian/control"
shlibs="$(cd "$scratch" && dpkg-shlibdeps -O -e"$ROOT/usr/bin/carplayd" -e"$ROOT/usr/bin/carplayctl" -e"$ROOT/usr/bin/carplay-ecu" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')"
[ -n "$shlibs" ] || { echo "deb: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
size="$(du -sk --exclude=DEBIAN "$ROOT" | cut -f1)"
sed -e "s|@VERSION@|$VERSION|" -e "s|@ARCH@|$ARCH|" -e "s|@MAINTAINER@|$MAINTAINER|" \
    -e "s|@INSTALLED_SIZE@|$size|" -e "s|@SHLIBS@|$shlibs|" "$HERE/control.in" > "$ROOT/DEBIAN/control"
echo /etc/carplayd/carplayd.conf > "$ROOT/DEBIAN/conffiles"
for s in postinst prerm postrm; do install -m 0755 "$HERE/$s" "$ROOT/DEBIAN/$s"; done
(cd "$ROOT" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | LC_ALL=C sort -z | xargs -0 md5sum) > "$ROOT/DEBIAN/md5sums"
chmod 0644 "$ROOT/DEBIAN/control" "$ROOT/DEBIAN/conffiles" "$ROOT/DEBIAN/md5sums"
# Every file's mtime the commit's (clamped), owned by root.
find "$ROOT" -newermt "@$SOURCE_DATE_EPOCH" -exec touch --no-dereference -d "@$SOURCE_DATE_EPOCH" {} +

deb="$OUT/carplayd_${VERSION}_${ARCH}.deb"
dpkg-deb --root-owner-group -Zxz --build "$ROOT" "$deb" >/dev/null
echo "$deb"

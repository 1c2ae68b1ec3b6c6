#!/usr/bin/env bash
# Idempotent set-up of a fresh Debian 12 machine that already has the Swift
# toolchain: Debian packages the build and the tests need (tmux: the dash's test
# drives it as a person would), plus a Python venv (.venv in the repo root) with the
# peers used as independent checks (cantools, python-can, varlink, pytest, kuksa-client,
# vss-tools) and what carplayd-kuksa runs on (grpcio, PyJWT). Reruns are fast: nothing is installed that is already there.
#
# Usage: scripts/bootstrap.sh [--no-venv]
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$REPO_ROOT/.venv"

APT_PACKAGES=(libsocketcan-dev libsystemd-dev pkg-config python3-venv can-utils tmux)
# opendbc (the DBC corpus and its parser and packer, a peer) with its own dependencies pinned;
# kuksa-client, unmodified, is carplayd-kuksa's tests' client; vss-tools validates VSS 5.1
# and carplayd's overlay (vss/). What carplayd-kuksa itself runs on is pinned once, in
# kuksa/requirements.txt (make install-kuksa reads it too).
PIP_PACKAGES=(cantools==45.1.0 python-can==4.6.1 pytest==8.3.4 pytest-xdist==3.6.1 autosar-e2e==1.0.0
    opendbc==0.3.1 numpy==2.4.6 tqdm==4.70.1 pycapnp==2.1.0 pycryptodome==4.5.0
    kuksa-client==0.6.0 vss-tools==6.1.0)
mapfile -t KUKSA_PACKAGES < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$REPO_ROOT/kuksa/requirements.txt")
PIP_PACKAGES+=("${KUKSA_PACKAGES[@]}")

WITH_VENV=1
for arg in "$@"; do
    case "$arg" in
        --no-venv) WITH_VENV=0 ;;
        -h|--help) sed -n '2,9p' "${BASH_SOURCE[0]}"; exit 0 ;;
        *) echo "bootstrap: unknown argument: $arg" >&2; exit 2 ;;
    esac
done

say() { echo "bootstrap: $*"; }

as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo "$@"
    else
        echo "bootstrap: need root (or sudo) to run: $*" >&2
        exit 1
    fi
}

# ---------------------------------------------------------------- Debian
missing=()
for pkg in "${APT_PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep "install ok installed" >/dev/null; then
        missing+=("$pkg")
    fi
done
if [ "${#missing[@]}" -gt 0 ]; then
    say "installing Debian packages: ${missing[*]}"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
else
    say "Debian packages present: ${APT_PACKAGES[*]}"
fi

if [ "$WITH_VENV" -eq 0 ]; then
    say "--no-venv: skipping the Python venv"
    exit 0
fi

# ---------------------------------------------------------------- Python venv
# True when every pinned package is installed in the venv at its pinned version.
venv_complete() {
    [ -x "$VENV/bin/python" ] || return 1
    "$VENV/bin/python" - "${PIP_PACKAGES[@]}" <<'EOF' 2>/dev/null
import sys
from importlib.metadata import version, PackageNotFoundError
for spec in sys.argv[1:]:
    name, _, want = spec.partition("==")
    try:
        if version(name) != want:
            sys.exit(1)
    except PackageNotFoundError:
        sys.exit(1)
EOF
}

if venv_complete; then
    say "venv ready: $VENV (${PIP_PACKAGES[*]})"
    exit 0
fi

if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import sys' >/dev/null 2>&1; then
    rm -rf "$VENV"
    created=0
    # python3 may be a pyenv shim or another non-Debian python; use it if it
    # can make a venv with pip, else fall back to Debian's (python3-venv).
    for py in "$(command -v python3 || true)" /usr/bin/python3; do
        [ -n "$py" ] && [ -x "$py" ] || continue
        say "creating venv with $py ($("$py" --version 2>&1))"
        if "$py" -m venv "$VENV"; then
            created=1
            break
        fi
        say "venv creation with $py failed; trying the next python"
        rm -rf "$VENV"
    done
    if [ "$created" -eq 0 ]; then
        echo "bootstrap: could not create $VENV (is python3-venv installed?)" >&2
        exit 1
    fi
fi

say "installing into venv: ${PIP_PACKAGES[*]}"
"$VENV/bin/python" -m pip install --disable-pip-version-check --quiet "${PIP_PACKAGES[@]}"
venv_complete || { echo "bootstrap: venv still incomplete after pip install" >&2; exit 1; }
say "venv ready: $VENV"

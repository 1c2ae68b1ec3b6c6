#!/usr/bin/env bash
# THE test command of carplayd (CI runs it through .ci/run).
#
#   1. bootstrap (Debian packages, .venv with cantools/python-can/varlink)
#   2. swift build --build-tests, warnings are errors
#   3. golden vectors from cantools into .build/golden
#   4. swift test, with CARPLAYD_GOLDEN_DIR and CARPLAYD_DBC_CORPUS exported
#   5. later stages (vcan bench, systemd VM tests): see the stage_* stubs
#
# Environment:
#   CARPLAYD_DBC_CORPUS  DBC corpus directory
#                        (default: ../shared/dbc-corpus/cantools-tests, relative
#                        to the repo root; the repo sits next to shared/)
#   CARPLAYD_GOLDEN_SEED seed for the golden vectors (default 1)
#   SWIFT                swift driver to use (default: swift on PATH)
#
# Exits non-zero on any failure.
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO_ROOT"

SWIFT="${SWIFT:-swift}"
if ! command -v "$SWIFT" >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
    SWIFT=/opt/swift/usr/bin/swift
fi
PY="$REPO_ROOT/.venv/bin/python"
GOLDEN_DIR="$REPO_ROOT/.build/golden"
SEED="${CARPLAYD_GOLDEN_SEED:-1}"

step() { printf '\n==> %s\n' "$*"; }
die() { echo "test.sh: FAIL: $*" >&2; exit 1; }

abspath() {  # abspath PATH (relative paths are relative to the repo root)
    case "$1" in
        /*) printf '%s\n' "$1" ;;
        *)  printf '%s\n' "$REPO_ROOT/$1" ;;
    esac
}

stage_bootstrap() {
    step "bootstrap"
    bash "$REPO_ROOT/scripts/bootstrap.sh"
}

stage_build() {
    step "swift build --build-tests (warnings are errors)"
    "$SWIFT" build --build-tests -Xswiftc -warnings-as-errors
}

stage_golden() {
    step "golden vectors (cantools) -> $GOLDEN_DIR"
    local corpus
    corpus="$(abspath "${CARPLAYD_DBC_CORPUS:-../shared/dbc-corpus/cantools-tests}")"
    [ -d "$corpus" ] || die "DBC corpus directory not found: $corpus (set CARPLAYD_DBC_CORPUS)"
    corpus="$(cd "$corpus" && pwd)"
    local dbcs=()
    shopt -s nullglob
    dbcs+=("$corpus"/*.dbc)
    [ "${#dbcs[@]}" -gt 0 ] || die "no .dbc files in $corpus"
    dbcs+=("$REPO_ROOT"/VehicleProfiles/*/*.dbc)
    shopt -u nullglob
    rm -rf "$GOLDEN_DIR"
    mkdir -p "$GOLDEN_DIR"
    "$PY" "$REPO_ROOT/tools/golden/generate_vectors.py" -q \
        --seed "$SEED" --out "$GOLDEN_DIR" "${dbcs[@]}"
    export CARPLAYD_DBC_CORPUS="$corpus"
    export CARPLAYD_GOLDEN_DIR="$GOLDEN_DIR"
    echo "CARPLAYD_DBC_CORPUS=$CARPLAYD_DBC_CORPUS"
    echo "CARPLAYD_GOLDEN_DIR=$CARPLAYD_GOLDEN_DIR"
}

stage_swift_test() {
    step "swift test"
    "$SWIFT" test -Xswiftc -warnings-as-errors
}

stage_decode_cli() {
    # carplayctl dbc decode against cantools on a generated candump log.
    # Runs only once the CLI has the verb (the other branch is adding it).
    local bin
    bin="$("$SWIFT" build --show-bin-path)/carplayctl"
    # Skipped only while the sources have no decode verb at all; once they
    # do, any failure here fails the run.
    if ! grep -rqs '"decode"' "$REPO_ROOT/Sources/carplayctl"; then
        step "decode CLI check: skipped (Sources/carplayctl has no 'dbc decode' verb yet)"
        return 0
    fi
    [ -x "$bin" ] || die "carplayctl not built: $bin"
    step "carplayctl dbc decode vs cantools"
    local corpus="$CARPLAYD_DBC_CORPUS" dbc log
    for dbc in "$corpus/motohawk.dbc" "$corpus/multiplex_2.dbc" "$corpus/choices.dbc" \
               "$corpus/signed.dbc" "$corpus/floating_point.dbc" "$corpus/vehicle.dbc"; do
        [ -f "$dbc" ] || continue
        log="$REPO_ROOT/.build/golden/$(basename "$dbc" .dbc).log"
        "$PY" "$REPO_ROOT/Benchmarks/codec/make_log.py" --frames 2000 --seed "$SEED" \
            --out "$log" "$dbc"
        "$PY" "$REPO_ROOT/tools/golden/check_decode_cli.py" --carplayctl "$bin" "$dbc" "$log"
    done
}

# ---------------------------------------------------------------- later stages
stage_vcan_bench() {
    # TODO(vcan): python-can / can-utils peers against carplayd on vcan0.
    # Natively when the kernel has vcan (ip link add dev vcan0 type vcan),
    # otherwise inside the qemu VM described in DESIGN.md.
    :
}

stage_systemd_vm() {
    # TODO(systemd): boot the Debian kernel + systemd 252 in qemu (DESIGN.md,
    # "Testing on a real kernel CAN stack") and run the unit tests there.
    :
}

main() {
    stage_bootstrap
    stage_build
    stage_golden
    stage_swift_test
    stage_decode_cli
    stage_vcan_bench
    stage_systemd_vm
    step "all tests passed"
}

main "$@"

#!/usr/bin/env bash
# Intents end to end on vcan: carplayd + carplay-ecu as separate processes on vcan0
# (in the qemu VM of IntegrationTests/support/vm/run-in-vm.sh where the host kernel has no vcan), driven
# by a load generator over Varlink, against a Python peer (python-can + cantools) that
# sends the same command frames to the same carplay-ecu, in the same VM and run.
#
# Usage: Benchmarks/vcan/run.sh [options]
#   --runs N          runs (default 3); figures are median/min/max over them
#   --quick           smoke run: 1 run, 100 intents per measurement (--runs/--intents after it win)
#   --python-loadgen  drive carplayd with Benchmarks/vcan/loadgen.py instead of carplay-bench
#   --clients LIST    client counts (default 1,8)
#   --intents N       intents per measurement, split between the clients (default 400)
#   --count-intents N the short run of the counts (syscalls, context switches, CPU per
#                     intent and per idle frame; the long run is 4x; default 200, 0: none)
#   --count-rounds N  rounds of carplayd's and the peer's CPU per intent, side by side
#                     (the host's speed drifts; the median ratio is reported; default 3)
#   --counts-only     only the counts (no throughput runs), printed, docs untouched
#   --instructions    instead: instructions per intent under callgrind (carplayd, carplay-ecu,
#                     the peer; exact where CPU times drift), printed, docs untouched; on
#                     the static release build (make build STATIC=1) unless CARPLAYD_BIN_DIR
#   --instruction-intents A,B  its short and long run (default 100,300)
#   --profile DIR     vehicle profile (default VehicleProfiles/sedan; the workload is written for it)
#   --vm | --native   passed to IntegrationTests/support/vm/run-in-vm.sh (default: native if the kernel has vcan)
#   --timeout S       whole VM run (default 1800)
#   --no-doc          do not update docs/BENCHMARKS.md
#
# Environment: CARPLAYD_LOADGEN  the load generator (default: the built carplay-bench, which
#                 implements the contract with --json; with --python-loadgen,
#                 Benchmarks/vcan/loadgen.py); the contract is in Benchmarks/vcan/README.md
#              CARPLAYD_BIN_DIR  release binaries to use instead of building
#              SWIFT, SCRATCH   swift binary, --scratch-path for the build
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$REPO"

RUNS=3
CLIENTS=1,8
INTENTS=400
PROFILE="$REPO/VehicleProfiles/sedan"
MODE=()
TIMEOUT=1800
UPDATE_DOC=1
PYTHON_LOADGEN=0
COUNT_INTENTS=200
COUNT_ROUNDS=3
INSTRUCTIONS=0
INSTRUCTION_INTENTS=100,300
ORIG_ARGS=("$@")
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) RUNS="$2"; shift 2 ;;
        --quick) RUNS=1; INTENTS=100; shift ;;
        --python-loadgen) PYTHON_LOADGEN=1; shift ;;
        --clients) CLIENTS="$2"; shift 2 ;;
        --count-intents) COUNT_INTENTS="$2"; shift 2 ;;
        --count-rounds) COUNT_ROUNDS="$2"; shift 2 ;;
        --counts-only) RUNS=0; UPDATE_DOC=0; shift ;;
        --instructions) INSTRUCTIONS=1; UPDATE_DOC=0; shift ;;
        --instruction-intents) INSTRUCTION_INTENTS="$2"; shift 2 ;;
        --intents) INTENTS="$2"; shift 2 ;;
        --profile) PROFILE="$(cd "$2" && pwd)"; shift 2 ;;
        --vm|--native) MODE=("$1"); shift ;;
        --timeout) TIMEOUT="$2"; shift 2 ;;
        --no-doc) UPDATE_DOC=0; shift ;;
        -h|--help) sed -n '2,27p' "${BASH_SOURCE[0]}"; exit 0 ;;
        *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
    esac
done

SWIFT="${SWIFT:-swift}"
command -v "$SWIFT" >/dev/null 2>&1 || SWIFT=/opt/swift/usr/bin/swift
BUILD=("$SWIFT" build -c release)
[ -n "${SCRATCH:-}" ] && BUILD+=(--scratch-path "$SCRATCH")
if [ -n "${CARPLAYD_BIN_DIR:-}" ]; then
    BIN="$CARPLAYD_BIN_DIR"
elif [ "$INSTRUCTIONS" = 1 ]; then
    # The static build (what the package ships): under valgrind in the VM the dynamically
    # linked release build stopped with valgrind's own SIGSEGV in libdispatch's
    # _dispatch_sig_thread; the runtime linked in runs there.
    echo "==> make build STATIC=1 EXTRA_PROGRAMS=carplay-bench (the static release build, .build/static)"
    make -s -C "$REPO" build STATIC=1 EXTRA_PROGRAMS=carplay-bench SWIFT="$SWIFT"
    BIN="$("$SWIFT" build -c release --scratch-path "$REPO/.build/static" --show-bin-path)"
else
    echo "==> ${BUILD[*]} --product carplayd / carplay-ecu"
    "${BUILD[@]}" --product carplayd
    "${BUILD[@]}" --product carplay-ecu
    [ -n "${CARPLAYD_LOADGEN:-}" ] || [ "$PYTHON_LOADGEN" = 1 ] || "${BUILD[@]}" --product carplay-bench
    BIN="$("${BUILD[@]}" --show-bin-path)"
fi
for tool in carplayd carplay-ecu; do
    [ -x "$BIN/$tool" ] || { echo "run.sh: $BIN/$tool missing" >&2; exit 1; }
done
[ -x "$REPO/.venv/bin/python" ] || bash "$REPO/scripts/bootstrap.sh"
PY="$REPO/.venv/bin/python"

if [ -n "${CARPLAYD_LOADGEN:-}" ]; then
    LOADGEN="$CARPLAYD_LOADGEN"
elif [ "$PYTHON_LOADGEN" = 1 ]; then
    LOADGEN="$PY $REPO/Benchmarks/vcan/loadgen.py"
else
    [ -x "$BIN/carplay-bench" ] || { echo "run.sh: $BIN/carplay-bench missing (or pass --python-loadgen)" >&2; exit 1; }
    LOADGEN="$BIN/carplay-bench"
fi
OUT_DIR="$REPO/.build/vm-out"   # the only directory the VM writes back to the host
mkdir -p "$OUT_DIR"
OUT="$OUT_DIR/vcan-bench.json"
rm -f "$OUT"
if [ "$INSTRUCTIONS" = 1 ]; then
    command -v valgrind >/dev/null 2>&1 || { echo "==> apt-get install valgrind"; apt-get install -y -qq valgrind >/dev/null; }
    OUT="$OUT_DIR/vcan-instructions.json"
    rm -f "$OUT"
    echo "==> vcan instructions: runs of $INSTRUCTION_INTENTS intents under callgrind, load generator: $LOADGEN"
    "$REPO/IntegrationTests/support/vm/run-in-vm.sh" "${MODE[@]}" --timeout "$TIMEOUT" -- \
        "$PY" "$REPO/Benchmarks/vcan/instructions.py" --bin-dir "$BIN" --profile "$PROFILE" --intents "$INSTRUCTION_INTENTS" \
        --loadgen "$LOADGEN" --out "$OUT"
    [ -s "$OUT" ] || { echo "run.sh: no results in $OUT" >&2; exit 1; }
    exec "$PY" "$REPO/Benchmarks/vcan/report.py" --instructions "$OUT"
fi
echo "==> vcan bench: $RUNS runs, clients $CLIENTS, $INTENTS intents each, load generator: $LOADGEN"
"$REPO/IntegrationTests/support/vm/run-in-vm.sh" "${MODE[@]}" --timeout "$TIMEOUT" -- \
    "$PY" "$REPO/Benchmarks/vcan/inside.py" --bin-dir "$BIN" --profile "$PROFILE" --runs "$RUNS" \
    --clients "$CLIENTS" --intents "$INTENTS" --loadgen "$LOADGEN" --count-intents "$COUNT_INTENTS" --count-rounds "$COUNT_ROUNDS" --out "$OUT"
[ -s "$OUT" ] || { echo "run.sh: no results in $OUT" >&2; exit 1; }

CMDLINE="Benchmarks/vcan/run.sh ${ORIG_ARGS[*]}"
[ -n "${CARPLAYD_LOADGEN:-}" ] && CMDLINE="CARPLAYD_LOADGEN=... $CMDLINE"
exec "$PY" "$REPO/Benchmarks/vcan/report.py" "$OUT" --doc "$REPO/docs/BENCHMARKS.md" --command "$CMDLINE" \
    $([ "$UPDATE_DOC" = 1 ] || echo --no-doc)

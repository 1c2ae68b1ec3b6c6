#!/usr/bin/env bash
# All benchmarks, in order, each rewriting its own section of docs/BENCHMARKS.md:
#   1. Benchmarks/codec/run.sh    carplayctl dbc decode vs cantools decode
#   2. Benchmarks/intents/run.sh  intents end to end, footprint, scaling (embedded default)
#   3. Benchmarks/vcan/run.sh     intents on vcan in the VM vs python-can + cantools (if present)
# and the header (machine, toolchain, commands).
#
# Usage: Benchmarks/run.sh [--quick] [--runs N] [--skip codec,intents,vcan]
#   --quick     smoke run: one run per figure, short windows, small logs
#   --runs N    runs per figure (default: each script's own, 3)
#   --skip L    comma-separated stages to leave out
# A failing stage does not stop the others; the exit status is 1 if any failed.
set -uo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO_ROOT"

QUICK=0
RUNS=""
SKIP=""
ORIG="$*"
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) QUICK=1; shift ;;
        --runs) RUNS="$2"; shift 2 ;;
        --skip) SKIP="$2"; shift 2 ;;
        -h|--help) sed -n '2,14p' "${BASH_SOURCE[0]}"; exit 0 ;;
        *) echo "Benchmarks/run.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
skipped() { case ",$SKIP," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }

FAILED=()
run_stage() {
    local name="$1"; shift
    if skipped "$name"; then echo "==> $name: skipped"; return; fi
    echo "==> $name: $*"
    if ! "$@"; then FAILED+=("$name"); echo "==> $name FAILED" >&2; fi
}

CODEC_ARGS=()
INTENT_ARGS=()
VCAN_ARGS=()
if [ "$QUICK" = 1 ]; then
    CODEC_ARGS+=(--frames 100000 --runs 1 --encode-calls 2)
    INTENT_ARGS+=(--quick)
    VCAN_ARGS+=(--quick)
fi
if [ -n "$RUNS" ]; then
    [ "$QUICK" = 1 ] || CODEC_ARGS+=(--runs "$RUNS")
    INTENT_ARGS+=(--runs "$RUNS")
    VCAN_ARGS+=(--runs "$RUNS")
fi

# The corpus's plain, big-endian-heavy and multiplexed DBCs, and the shipped profiles' own.
# The corpus as scripts/test.sh finds it: CARPLAYD_DBC_CORPUS, ../shared beside the
# repository, else its download (scripts/test.sh --only bootstrap corpus).
CORPUS="${CARPLAYD_DBC_CORPUS:-../shared/dbc-corpus/cantools-tests}"
[ -n "${CARPLAYD_DBC_CORPUS:-}" ] || [ -d "$CORPUS" ] || CORPUS=.build/dbc-corpus/cantools-tests
CODEC_DBCS=("$CORPUS/motohawk.dbc" "$CORPUS/vehicle.dbc" "$CORPUS/multiplex_2.dbc" VehicleProfiles/*/*.dbc)
run_stage codec bash Benchmarks/codec/run.sh "${CODEC_ARGS[@]}" "${CODEC_DBCS[@]}"
run_stage intents bash Benchmarks/intents/run.sh "${INTENT_ARGS[@]}"
if [ -x Benchmarks/vcan/run.sh ] || [ -f Benchmarks/vcan/run.sh ]; then
    run_stage vcan bash Benchmarks/vcan/run.sh "${VCAN_ARGS[@]}"
else
    echo "==> vcan: Benchmarks/vcan/run.sh not present; skipped"
fi
python3 Benchmarks/intents/bench.py --bin . --header --command "Benchmarks/run.sh $ORIG"

if [ "${#FAILED[@]}" -gt 0 ]; then
    echo "Benchmarks/run.sh: failed stages: ${FAILED[*]}" >&2
    exit 1
fi
echo "Benchmarks/run.sh: all stages ran; see docs/BENCHMARKS.md"

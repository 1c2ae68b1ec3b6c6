#!/usr/bin/env bash
# Instructions per confirmed intent: carplayd on its embedded default (the sedan and its
# simulated vehicle in process), driven by carplay-bench with one client, under
# valgrind's callgrind. Instruction counts do not move with the host's load or the
# emulator's speed, so they compare two builds exactly (an A/B is two runs with two
# CARPLAYD_BIN_DIR values); the vcan bench's CPU times are the figures on a kernel bus.
#
# Usage: Benchmarks/instructions/run.sh [--intents N] [--out DIR]
#   --intents N   measured intents (default 300, after 60 unmeasured)
#   --out DIR     where the callgrind profile and its annotation go (default .build/instructions)
#
# Prints the instructions per intent: in all, in the in-process simulated vehicle
# (what a real car does instead: not carplayd's), and the rest with its largest parts.
# Environment: CARPLAYD_BIN_DIR  release binaries (carplayd, carplay-bench) instead of building
#              SWIFT            swift binary
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
INTENTS=300
OUT="$REPO/.build/instructions"
while [ $# -gt 0 ]; do
    case "$1" in
        --intents) INTENTS="$2"; shift 2 ;;
        --out) OUT="$2"; shift 2 ;;
        -h|--help) sed -n '2,16p' "${BASH_SOURCE[0]}"; exit 0 ;;
        *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
command -v valgrind >/dev/null 2>&1 || { echo "==> apt-get install valgrind"; apt-get install -y -qq valgrind >/dev/null; }
SWIFT="${SWIFT:-swift}"
command -v "$SWIFT" >/dev/null 2>&1 || SWIFT=/opt/swift/usr/bin/swift
if [ -n "${CARPLAYD_BIN_DIR:-}" ]; then
    BIN="$CARPLAYD_BIN_DIR"
else
    "$SWIFT" build -c release --product carplayd
    "$SWIFT" build -c release --product carplay-bench
    BIN="$("$SWIFT" build -c release --show-bin-path)"
fi
mkdir -p "$OUT"
WORK="$(mktemp -d)"
DAEMON=""
cleanup() { [ -n "$DAEMON" ] && kill "$DAEMON" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
# Debian 12's valgrind does not read DWARF 5: a copy without debug info keeps the symbols.
strip --strip-debug -o "$WORK/carplayd" "$BIN/carplayd"
rm -f "$OUT"/callgrind.out*
valgrind --tool=callgrind --callgrind-out-file="$OUT/callgrind.out" "$WORK/carplayd" \
    --profile "$REPO/VehicleProfiles/sedan" --socket "$WORK/sock" --state-dir "$WORK/state" \
    --log-level warning --confirmation-timeout 20000 >"$OUT/carplayd.log" 2>&1 &
DAEMON=$!
for _ in $(seq 120); do [ -S "$WORK/sock" ] && break; sleep 0.5; done
[ -S "$WORK/sock" ] || { echo "run.sh: carplayd did not start:"; cat "$OUT/carplayd.log"; exit 1; } >&2
"$BIN/carplay-bench" --socket "$WORK/sock" --clients 1 --intents 60 --json >/dev/null
callgrind_control -z "$DAEMON" >/dev/null 2>&1
"$BIN/carplay-bench" --socket "$WORK/sock" --clients 1 --intents "$INTENTS" --json >"$OUT/bench.json"
callgrind_control -d "$DAEMON" >/dev/null 2>&1
kill "$DAEMON"; wait "$DAEMON" 2>/dev/null || true; DAEMON=""
PROFILE="$(ls "$OUT"/callgrind.out.* | head -1)"
callgrind_annotate --inclusive=yes --threshold=100 "$PROFILE" 2>/dev/null | "$SWIFT" demangle --simplified >"$OUT/inclusive.txt"
exec python3 - "$OUT" "$INTENTS" <<'PY'
import json, re, sys
out, intents = sys.argv[1], int(sys.argv[2])
bench = json.load(open(out + "/bench.json"))
if bench.get("failures") or bench.get("intents") != intents:
    sys.exit("run.sh: the measured run did not confirm every intent: %s" % bench)
rows = {}
for line in open(out + "/inclusive.txt"):
    m = re.match(r"\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*)", line)
    if m:
        rows.setdefault(m.group(2).split(" [")[0].replace("???:", ""), int(m.group(1).replace(",", "")))
total = rows["PROGRAM TOTALS"]
vehicle = rows.get("SimulatedVehicleNode.receive(_:)", 0)
per = lambda value: value / intents / 1000
print("instructions per confirmed intent (thousands), %d intents, 1 client:" % intents)
print("  in all %.1f; the simulated vehicle %.1f; carplayd %.1f" % (per(total), per(vehicle), per(total - vehicle)))
parts = [("reading and parsing the call", "VarlinkConnection.readAvailable()"),
         ("the intent from its parameters", "specialized static VehicleService.intent(from:_:)"),
         ("resolving", "specialized static IntentResolver.resolve(_:profile:state:savedProfiles:)"),
         ("the command frames", "VehicleFrames.commandFrames(for:context:counters:)"),
         ("the head unit: received frames", "HeadUnit.receive(_:at:)"),
         ("the reply's members (state, resolutions, frames)", "IntentOutcome.replyMembers(stateJSON:)"),
         ("  of which the state", "StateJSONCache.json(_:version:of:)"),
         ("writing the reply", "VarlinkReply.serialized(adding:)")]
for label, name in parts:
    print("  %-50s %6.1f" % (label, per(rows.get(name, 0))))
PY

#!/usr/bin/env bash
# The static build against the dynamic one (docs/BENCHMARKS.md, "Static binaries"):
# builds both (make build, make build STATIC=1) unless given their folders, then
# compare.py prints size, start-to-READY and idle RSS.
#
# Usage: Benchmarks/static/run.sh [--runs N]
# Environment: DYNAMIC_BIN_DIR, STATIC_BIN_DIR (no build), SWIFT.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$REPO"
SWIFT="${SWIFT:-swift}"
command -v "$SWIFT" >/dev/null 2>&1 || SWIFT=/opt/swift/usr/bin/swift
DYN="${DYNAMIC_BIN_DIR:-}" STA="${STATIC_BIN_DIR:-}"
if [ -z "$DYN" ]; then make -s build SWIFT="$SWIFT"; DYN="$("$SWIFT" build -c release --show-bin-path)"; fi
if [ -z "$STA" ]; then make -s build STATIC=1 SWIFT="$SWIFT"; STA="$("$SWIFT" build -c release --scratch-path .build/static --show-bin-path)"; fi
exec python3 "$REPO/Benchmarks/static/compare.py" "$DYN" "$STA" "$@"

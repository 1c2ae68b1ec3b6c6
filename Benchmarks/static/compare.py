#!/usr/bin/env python3
"""The static build (make build STATIC=1) against the dynamic one: size of the three
binaries (as built and stripped), carplayd's start to READY=1 and its idle VmRSS, with
the harness of Benchmarks/intents (bench.py's Daemon: NOTIFY_SOCKET, /proc/PID/status).

Usage: compare.py DYNAMIC_BIN_DIR STATIC_BIN_DIR [--runs N]
Prints a Markdown table (docs/BENCHMARKS.md, "Static binaries")."""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(REPO, "Benchmarks", "intents"))
from bench import Daemon  # noqa: E402

PROGRAMS = ("carplayd", "carplayctl", "carplay-ecu")


def sizes(bin_dir, work):
    out = {}
    for p in PROGRAMS:
        path = os.path.join(bin_dir, p)
        stripped = os.path.join(work, p + ".stripped")
        subprocess.run(["strip", "--strip-unneeded", "-o", stripped, path], check=True)
        out[p] = (os.path.getsize(path), os.path.getsize(stripped))
    return out


def measure(bin_dir, runs, work):
    profile = os.path.join(REPO, "VehicleProfiles", "sedan")
    ready, idle = [], []
    for _ in range(runs):
        d = Daemon(bin_dir, profile, work)
        ready.append(d.ready_seconds * 1000)
        time.sleep(1)
        idle.append(d.rss()[0])
        d.stop()
    return ready, idle


def fig(values, fmt="{:.0f}"):
    return f"{fmt.format(statistics.median(values))} ({fmt.format(min(values))}-{fmt.format(max(values))})"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dynamic")
    ap.add_argument("static")
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    mb = lambda n: f"{n / 1e6:.1f} MB"  # noqa: E731
    with tempfile.TemporaryDirectory() as work:
        rows = {}
        for name, d in (("dynamic", a.dynamic), ("static", a.static)):
            rows[name] = (sizes(d, work), *measure(d, a.runs, work))
    print(f"| build | {' | '.join(f'{p} (stripped)' for p in PROGRAMS)} | carplayd start to READY, ms | idle VmRSS, KiB |")
    print("| --- |" + " --- |" * (len(PROGRAMS) + 2))
    for name, (sz, ready, idle) in rows.items():
        cells = " | ".join(f"{mb(sz[p][0])} ({mb(sz[p][1])})" for p in PROGRAMS)
        print(f"| {name} | {cells} | {fig(ready, '{:.1f}')} | {fig(idle)} |")
    print(f"\n(median (min-max) of {a.runs} starts each; the embedded default, sedan profile)")


if __name__ == "__main__":
    main()

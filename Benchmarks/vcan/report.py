#!/usr/bin/env python3
"""Turns the vcan bench's JSON (Benchmarks/vcan/inside.py --out) into a table:
median/min/max over the runs, the ratio carplayd / Python peer, and rewrites the
section between <!-- vcan-bench:begin --> and <!-- vcan-bench:end --> of
docs/BENCHMARKS.md (appending the pair if missing)."""

import argparse
import json
import os
import platform
import statistics
import subprocess
import time

BEGIN, END = "<!-- vcan-bench:begin -->", "<!-- vcan-bench:end -->"


def loadgen_note(loadgen, doc):
    """The load generator as the doc shows it: which one, and what it is."""
    if 'loadgen.py' in loadgen:
        path = os.path.relpath(loadgen.split()[-1], os.path.dirname(os.path.dirname(os.path.abspath(doc))))
        return f"`{path}` (Python, multi-process, raw Varlink)"
    if os.path.basename(loadgen.split()[0]) == 'carplay-bench':
        return "`carplay-bench --json` (Swift, `Benchmarks/intents/carplay-bench`, one thread per client)"
    return f"`{loadgen}` (CARPLAYD_LOADGEN)"


def host():
    model = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    mem = next((int(l.split()[1]) for l in open("/proc/meminfo") if l.startswith("MemTotal")), 0)
    return "%d CPUs, %s, %.1f GiB RAM, %s" % (os.cpu_count(), model, mem / 1024 / 1024, platform.platform())


def swift_version():
    try:
        out = subprocess.run([os.environ.get("SWIFT", "swift"), "--version"], capture_output=True, text=True).stdout
        return out.strip().splitlines()[0]
    except (OSError, IndexError):
        return "?"


def stats(values):
    values = [v for v in values if v is not None]
    if not values:
        return None
    return statistics.median(values), min(values), max(values)


def fmt(triple, digits=0, scale=1.0):
    if triple is None:
        return "-"
    med, lo, hi = (v * scale for v in triple)
    return "%s (%s-%s)" % tuple(("{:,.%df}" % digits).format(v) for v in (med, lo, hi))


def counts_table(counts):
    """The counts per confirmed intent and per idle frame (inside.py's measure_counts)."""
    if not counts:
        return ""
    who = [("carplayd", "carplayd"), ("carplay-ecu", "carplay-ecu"), ("python", "Python peer (whole process)")]
    rows = ["| per confirmed intent, 1 client | " + " | ".join(label for _, label in who) + " |",
            "| --- |" + " --- |" * len(who)]
    for key, label, digits in (("syscalls", "syscalls", 1), ("context_switches", "context switches", 1), ("cpu_us", "CPU µs", 0),
                               ("user_us", "of which user µs", 0)):
        cells = []
        for name, _ in who:
            value = counts.get(name, {}).get("per_intent", {}).get(key)
            cells.append("-" if value is None else ("{:,.%df}" % digits).format(value))
        rows.append("| %s | %s |" % (label, " | ".join(cells)))
    def breakdown(entry):
        calls = sorted(((n, c) for n, c in entry.get("by_syscall", {}).items() if c >= 0.05), key=lambda item: -item[1])
        return ", ".join("%s %.1f" % item for item in calls[:10])
    lines = ["\n".join(rows), ""]
    daemon = counts.get("carplayd", {})
    if daemon.get("per_intent"):
        lines.append("- carplayd's syscalls per intent: " + breakdown(daemon["per_intent"]))
    if counts.get("python", {}).get("per_intent"):
        lines.append("- the peer's syscalls per intent: " + breakdown(counts["python"]["per_intent"]))
    rounds = counts.get("rounds") or []
    if rounds:
        lines.append("- carplayd / peer CPU per intent: **%.2fx** (median of %d rounds, each carplayd's run right before the "
                     "peer's: %s); CPU, user and context switches above are the rounds' medians" % (
                         counts["ratio"], len(rounds),
                         ", ".join("%.0f / %.0f µs = %.2fx" % (r["carplayd"]["cpu_us"], r["python"]["cpu_us"], r["ratio"]) for r in rounds)))
    idle = daemon.get("per_idle_frame")
    if idle:
        lines.append("- carplayd at idle (%.1f status frames/s received): per received frame %.2f syscalls, %.2f context "
                     "switches, %.0f µs CPU; syscalls: %s" % (idle["frames_per_second"], idle["syscalls"],
                                                           idle["context_switches"], idle["cpu_us"], breakdown(idle)))
    bus_load = counts.get("bus_load") or {}
    if bus_load:
        lines += ["", "carplayd on a quiet bus (the simulated vehicle alone) -> on the car's full bus "
                  "(`carplay-ecu --bus-load`: every other message of the DBC at its cycle time), per second, idle and "
                  "under intents (carplay-bench, 1 client, the profile's own properties):", "",
                  "| profile | load | other frames on the bus /s | received by carplayd /s | confirmed intents /s | CPU ms/s "
                  "| context switches /s | syscalls /s |",
                  "| --- | --- | --- | --- | --- | --- | --- | --- |"]
        for name, entry in bus_load.items():
            for load, suffix in (("idle", ""), ("intents", "_intents")):
                quiet, full = entry.get("quiet" + suffix), entry.get("full" + suffix)
                if not quiet or not full:
                    continue

                def pair(key, digits=1):
                    return "%s -> %s" % tuple(("{:,.%df}" % digits).format(side.get(key, 0)) for side in (quiet, full))
                lines.append("| `%s` | %s | %s | %s | %s | %s | %s | %s |" % (
                    name, load, pair("extra_bus_frames_per_s", 0), pair("received_per_s"),
                    pair("intents_per_s") if load == "intents" else "--", pair("cpu_ms_per_s", 2),
                    pair("context_switches_per_s"), pair("syscalls_per_s")))
        lines.append("")
    lines.append("- each figure: (long - short) / (intents or frames of long - short), runs of %s intents and idle "
                 "windows of %s s; syscalls from `strace -f -c` in runs of their own, context switches (every "
                 "thread's, /proc) and CPU from untraced runs" % (" and ".join(map(str, counts["intents"])),
                                                                  " and ".join("%g" % s for s in counts["idle_seconds"])))
    return "\n".join(lines)


def instructions_table(data):
    """Benchmarks/vcan/instructions.py's figures: instructions per confirmed intent."""
    rows = ["| per confirmed intent, 1 client | carplayd | carplay-ecu | Python peer (whole process) | carplayd / peer |",
            "| --- | --- | --- | --- | --- |",
            "| instructions (callgrind, thousands) | %.1f | %.1f | %.1f | **%.2fx** |" % (
                data["carplayd"] / 1000, data["carplay-ecu"] / 1000, data["python"] / 1000, data["ratio"])]
    note = ("Profile %s with its status messages every %d ms (callgrind's slowdown would otherwise count periodic frames "
            "per intent); carplayd received %.2f frames per intent; runs of %s intents, their difference." % (
                data["profile"], data["status_cycle_ms"], data["frames_received_per_intent"], " and ".join(map(str, data["intents"]))))
    return "\n".join(rows) + "\n\n" + note


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("results", nargs="?")
    parser.add_argument("--instructions", metavar="FILE", help="print Benchmarks/vcan/instructions.py's figures from FILE, nothing else")
    parser.add_argument("--doc")
    parser.add_argument("--command", default="Benchmarks/vcan/run.sh")
    parser.add_argument("--no-doc", action="store_true")
    args = parser.parse_args()
    if args.instructions:
        print(instructions_table(json.load(open(args.instructions))))
        return
    if not args.results:
        parser.error("the results file is needed")
    data = json.load(open(args.results))
    runs = data["runs"]
    clients = [str(c) for c in data["clients"]]
    sides = [("carplayd", "carplayd (Varlink -> carplayd -> vcan0 -> carplay-ecu -> confirmed)"),
             ("python", "Python peer (python-can + cantools -> vcan0 -> carplay-ecu -> confirmed)")]
    rows = ["| who | clients | confirmed intents/s | p50 ms | p99 ms | max ms | failures | CPU ms per intent: client / carplayd / carplay-ecu |",
            "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    medians = {}
    for side, label in sides:
        for c in clients:
            entries = [run[side][c] for run in runs if c in run.get(side, {})]
            if not entries:
                continue
            rate = stats([e["rate"] for e in entries])
            medians[(side, c)] = (rate[0], stats([e["p50_us"] for e in entries])[0])
            def cpu(*keys):
                triple = stats([next((e[k] for k in keys if e.get(k) is not None), None) for e in entries])
                return "%.2f" % (triple[0] / 1000) if triple else "-"
            rows.append("| %s | %s | %s | %s | %s | %s | %d | %s / %s / %s |" % (
                label, c, fmt(rate, 1), fmt(stats([e["p50_us"] for e in entries]), 2, 1e-3),
                fmt(stats([e["p99_us"] for e in entries]), 2, 1e-3), fmt(stats([e["max_us"] for e in entries]), 1, 1e-3),
                sum(e["failures"] for e in entries), cpu("client_cpu_us_per_intent", "process_cpu_us_per_intent"),
                cpu("carplayd_cpu_us_per_intent"), cpu("ecu_cpu_us_per_intent")))
    ratios = []
    for c in clients:
        if ("carplayd", c) in medians and ("python", c) in medians:
            (rate_d, p50_d), (rate_p, p50_p) = medians[("carplayd", c)], medians[("python", c)]
            verdict = "carplayd faster" if rate_d > rate_p else "carplayd SLOWER"
            ratios.append("- %s client%s: carplayd / Python peer = **%.2fx** confirmed intents/s (%s); p50 latency %.2f ms vs %.2f ms" % (
                c, "" if c == "1" else "s", rate_d / rate_p, verdict, p50_d / 1000, p50_p / 1000))
    table = "\n".join(rows)
    frames = data.get("frames", {})
    frame_note = "%d command frames compared, %s" % (frames.get("checked", 0),
                 "identical signals" if not frames.get("problems") else "DIFFERENCES: " + "; ".join(frames["problems"][:5]))
    counts = counts_table(data.get("counts"))
    print(table)
    print("\n".join(ratios))
    print(counts)
    print("frames: " + frame_note)
    if args.no_doc or not args.doc:
        return 0
    section = f"""{BEGIN}
## Intents end to end on vcan: carplayd vs a Python CAN stack

carplayd and carplay-ecu run as separate processes on `vcan0`; a load generator
performs intents over carplayd's Varlink socket, each needing a confirmed change
(client *i* toggles a property of its own between two values: temperature left/right,
defroster front/rear, seat heating left/right, A/C, air circulation -- see
`Benchmarks/vcan/workload.py`). The peer, in the same VM and run, is a Python program
with python-can + cantools (`Benchmarks/vcan/python_peer.py`) that sends the same
command frames (same DBC messages and signals, E2E CRC-8 and alive counter) to a fresh
carplay-ecu and waits for the status frame showing the value (CRC checked, decoded with
cantools). carplayd's figures include its Varlink hop and the load generator.

**Emulated machine**: these figures come from a qemu VM under TCG (software CPU
emulation, no KVM: {data.get('cpus')} vCPUs, kernel {data.get('kernel')}), because the
build host's kernel has no vcan. Absolute numbers are far below native ones; the ratio
between the two stacks, measured side by side in the same VM, is the point.

Last run: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}

- host: {host()}; {swift_version()}
- VM: `IntegrationTests/support/vm/run-in-vm.sh` (qemu TCG, `-smp 2`), vCPU "{data.get('cpu')}", profile `{data.get('profile')}`
- load generator: {loadgen_note(data['loadgen'], args.doc)};
  the last column is CPU time per intent (medians) of the client side (load generator;
  for the peer its whole process), carplayd and carplay-ecu, read from /proc
- each figure: median (min-max) of {len(runs)} runs, {data['intents']} intents per measurement
- reproduce: `{args.command.strip()}`
- frames: {frame_note}

{table}

{chr(10).join(ratios)}

### Counts: syscalls, context switches and CPU

Counts do not drift with the emulator's speed the way times do: they are the figures
to hold (goals: docs/BENCHMARKS.md, "On the bus").

{counts}
{END}
"""
    text = open(args.doc).read() if os.path.exists(args.doc) else "# Benchmarks\n\n"
    if BEGIN in text and END in text:
        pre, post = text[:text.index(BEGIN)], text[text.index(END) + len(END):].lstrip("\n")
        text = pre + section + ("\n" + post if post else "")
    else:
        text = text.rstrip("\n") + "\n\n" + section
    open(args.doc, "w").write(text)
    print("updated " + args.doc)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

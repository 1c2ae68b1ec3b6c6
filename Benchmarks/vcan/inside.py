#!/usr/bin/env python3
"""The vcan bench's measuring half, run where vcan0 exists (in the VM, through
IntegrationTests/support/vm/run-in-vm.sh; Benchmarks/vcan/run.sh starts it). For each run:

1. carplay-ecu + carplayd --can vcan0 as separate processes; the load generator
   ($CARPLAYD_LOADGEN contract, default loadgen.py) with each client count;
2. a fresh carplay-ecu and the Python peer (python-can + cantools) with each client
   count, sending the same command frames.

Before the first run it checks that the peer's command frames carry the same signals
as the frames carplayd sent for the same intents. Writes one JSON document to --out.
"""

import argparse
import json
import os
import platform
import shlex
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO / "IntegrationTests" / "support" / "intents"))
import check_intents  # noqa: E402
import counts  # noqa: E402
import loadgen  # noqa: E402
import protection  # noqa: E402
import python_peer  # noqa: E402
import workload  # noqa: E402


def log(text):
    print("vcan-bench: " + text, file=sys.stderr, flush=True)


class Process:
    def __init__(self, name, argv, directory):
        self.name = name
        self.log_path = directory / (name + ".log")
        self.proc = subprocess.Popen(argv, stdout=open(self.log_path, "w"), stderr=subprocess.STDOUT, start_new_session=True)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def tail(self):
        return self.log_path.read_text(errors="replace")[-3000:]


def start_ecu(args, directory, name, profile=None, extra=(), prefix=()):
    """carplay-ecu on the bus; `prefix` runs it under a tool (callgrind)."""
    return Process(name, [*prefix, str(args.bin_dir / "carplay-ecu"), "--can", args.interface, "--profile", str(profile or args.profile),
                          "--quiet", *extra], directory)


def start_daemon(args, directory, profile=None, prefix=(), start_seconds=60):
    """carplayd on the bus, once it answers and the car is reachable; `prefix` runs it
    under a tool (callgrind: give it more `start_seconds`)."""
    sock = str(directory / "carplayd.sock")
    daemon = Process("carplayd", [*prefix, str(args.bin_dir / "carplayd"), "--can", args.interface, "--profile", str(profile or args.profile),
                                  "--socket", sock, "--state-dir", str(directory / "state"), "--log-level", "warning",
                                  "--confirmation-timeout", str(args.confirmation_ms)], directory)
    deadline = time.time() + start_seconds
    while time.time() < deadline:
        if daemon.proc.poll() is not None:
            raise SystemExit("carplayd exited:\n" + daemon.tail())
        if os.path.exists(sock):
            try:
                reply = loadgen.Connection(sock).call("io.carplayd.Vehicle.GetState", {})
                if reply.get("parameters", {}).get("reachable"):
                    return daemon, sock
            except (OSError, ValueError):
                pass
        time.sleep(0.1)
    raise SystemExit("carplayd not reachable on %s within %d s:\n%s" % (args.interface, start_seconds, daemon.tail()))


def wait_complete(sock):
    """Until the state shows every property the workload touches (status frames seen)."""
    deadline = time.time() + 30
    keys = [key for key, _, _ in workload.SLOTS]
    while time.time() < deadline:
        state = loadgen.Connection(sock).call("io.carplayd.Vehicle.GetState", {})["parameters"]["state"]
        if all(key in state for key in keys):
            return
        time.sleep(0.1)
    raise SystemExit("carplayd's state never showed %s" % keys)


def compare_frames(args, sock):
    """carplayd's command frame for each slot and value against the peer's."""
    vehicle = check_intents.Vehicle(args.profile)
    peer = python_peer.Peer(args.profile, args.interface, 3.0)
    connection = loadgen.Connection(sock)
    problems, checked = [], 0
    for key, (intent_a, value_a), (intent_b, value_b) in workload.SLOTS:
        for intent, value in ((intent_b, value_b), (intent_a, value_a)):
            reply = connection.perform(intent)
            if loadgen.outcome(reply):
                problems.append("%s=%r: %s" % (key, value, loadgen.outcome(reply)))
                continue
            message, values = peer.command_values(key, value)
            skip = vehicle.protected_signals(message.name)
            frames = [check_intents.parse_log_line(line) for line in reply["parameters"]["frames"]]
            sent = [data for frame_id, data in frames if frame_id == message.frame_id]
            if len(sent) != 1:
                problems.append("%s=%r: carplayd sent %d %s frames" % (key, value, len(sent), message.name))
                continue
            problem = protection.Protection(vehicle.protection_entries).check(message, sent[0])
            if problem:
                problems.append("%s=%r: carplayd's frame: %s" % (key, value, problem))
            decoded = message.decode(sent[0][: message.length])
            for name, want in values.items():
                if name in skip:
                    continue
                if str(decoded[name]) != str(want) and decoded[name] != want:
                    problems.append("%s=%r: %s.%s is %s from carplayd, %s from the peer" % (key, value, message.name, name, decoded[name], want))
            checked += 1
    return {"checked": checked, "problems": problems}


cpu_seconds = counts.cpu_seconds


def run_loadgen(args, sock, clients, intents=None):
    argv = shlex.split(args.loadgen) + ["--socket", sock, "--clients", str(clients), "--intents", str(intents or args.intents), "--json"]
    result = subprocess.run(argv, capture_output=True, text=True, timeout=args.step_timeout)
    try:
        data = json.loads(result.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise SystemExit("load generator gave no JSON (exit %d): %s\n%s" % (result.returncode, result.stdout, result.stderr))
    if "error" in data:
        raise SystemExit("load generator: %s" % data["error"])
    return data


def run_peer(args, clients, intents=None, strace_out=None, prefix=()):
    """The Python peer's run; under strace with `strace_out`, under another tool with `prefix`."""
    argv = [*prefix, sys.executable, str(HERE / "python_peer.py"), "--profile", str(args.profile), "--interface", args.interface,
            "--clients", str(clients), "--intents", str(intents or args.intents), "--timeout", str(args.confirmation_ms / 1000), "--json"]
    if strace_out:
        argv = counts.traced_command(argv, strace_out)
    result = subprocess.run(argv, capture_output=True, text=True, timeout=args.step_timeout)
    try:
        data = json.loads(result.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise SystemExit("python peer gave no JSON (exit %d): %s\n%s" % (result.returncode, result.stdout, result.stderr))
    if "error" in data:
        raise SystemExit("python peer: %s" % data["error"])
    return data


def received_frames(sock):
    """Frames carplayd's socket received so far (its kernel filters passed them)."""
    reply = loadgen.Connection(sock).call("io.carplayd.Vehicle.GetBusTraffic", {})
    return sum(message["received"] for message in reply["parameters"]["messages"])


def done(result):
    return result["intents"] + result["failures"]


def measure_counts(args, directory):
    """Syscalls, context switches and CPU per confirmed intent (1 client) for carplayd,
    carplay-ecu and the Python peer, and per received frame at idle for carplayd: each
    the difference of a short and a long measurement. Syscalls are counted in runs of
    their own, under strace, since tracing adds context switches and CPU.

    CPU and context switches come from `args.count_rounds` rounds, each a carplayd
    measurement right before a peer measurement: the host's speed drifts by tens of
    percent over minutes, so carplayd / peer is taken per round, from figures measured
    side by side, and the medians are reported with every round's ratio."""
    lengths = (args.count_intents, 4 * args.count_intents)
    result = {"intents": list(lengths), "idle_seconds": [2.0, 6.0], "rounds": []}
    traced = None
    for round_index in range(args.count_rounds):
        first = round_index == 0
        daemon_side = measure_daemon_counts(args, directory, lengths, traced=first)
        peer_side = measure_peer_counts(args, directory, lengths, traced=first)
        if first:
            traced = daemon_side["traced"], peer_side["traced"], daemon_side["per_idle_frame"]
        round_figures = {"carplayd": daemon_side["untraced"]["carplayd"], "carplay-ecu": daemon_side["untraced"]["carplay-ecu"],
                         "python": peer_side["untraced"]}
        round_figures["ratio"] = round_figures["carplayd"]["cpu_us"] / round_figures["python"]["cpu_us"]
        result["rounds"].append(round_figures)
        log("counts, round %d/%d: carplayd %.0f us, peer %.0f us per intent (%.2fx)" % (
            round_index + 1, args.count_rounds, round_figures["carplayd"]["cpu_us"], round_figures["python"]["cpu_us"],
            round_figures["ratio"]))
    daemon_traced, peer_traced, per_idle_frame = traced
    for name in ("carplayd", "carplay-ecu", "python"):
        rounds = [figures[name] for figures in result["rounds"]]
        calls = dict(peer_traced if name == "python" else daemon_traced[name])
        result[name] = {"per_intent": {key: statistics.median(r[key] for r in rounds) for key in ("cpu_us", "user_us", "context_switches")}}
        result[name]["per_intent"]["syscalls"] = calls.pop("total")
        result[name]["per_intent"]["by_syscall"] = calls
    result["carplayd"]["per_idle_frame"] = per_idle_frame
    result["ratio"] = statistics.median(figures["ratio"] for figures in result["rounds"])
    return result


def measure_daemon_counts(args, directory, lengths, traced):
    """carplayd and its carplay-ecu: CPU and context switches per intent, and with `traced`
    also syscalls per intent and everything per idle frame."""
    out = {}
    ecu = start_ecu(args, directory, "carplay-ecu-counts")
    daemon = None
    try:
        daemon, sock = start_daemon(args, directory)
        wait_complete(sock)
        run_loadgen(args, sock, 1, 50)  # warm-up: first intents, first allocations
        pids = {"carplayd": daemon.proc.pid, "carplay-ecu": ecu.proc.pid}
        untraced = {}
        for n in lengths:
            before = {name: counts.process_counters(pid) for name, pid in pids.items()}
            finished = done(run_loadgen(args, sock, 1, n))
            untraced[n] = ({name: counts.difference(counts.process_counters(pid), before[name]) for name, pid in pids.items()}, finished)
        out["untraced"] = {name: counts.cpu_figure([(untraced[n][0][name], untraced[n][1]) for n in lengths]) for name in pids}
        if not traced:
            return out
        calls = {}
        for n in lengths:
            with counts.Strace(pids["carplayd"], directory / ("strace-carplayd-%d" % n)) as daemon_calls, \
                    counts.Strace(pids["carplay-ecu"], directory / ("strace-ecu-%d" % n)) as ecu_calls:
                finished = done(run_loadgen(args, sock, 1, n))
            calls[n] = ({"carplayd": daemon_calls.calls, "carplay-ecu": ecu_calls.calls}, finished)
        out["traced"] = {name: counts.per_unit(calls[lengths[0]][0][name], calls[lengths[1]][0][name], calls[lengths[0]][1],
                                               calls[lengths[1]][1]) for name in pids}
        idle_windows = (2.0, 6.0)
        idle, idle_traced = {}, {}
        for seconds in idle_windows:
            first, before = received_frames(sock), counts.process_counters(pids["carplayd"])
            time.sleep(seconds)
            idle[seconds] = (counts.difference(counts.process_counters(pids["carplayd"]), before), received_frames(sock) - first)
        for seconds in idle_windows:
            with counts.Strace(pids["carplayd"], directory / ("strace-idle-%g" % seconds)) as calls_idle:
                first = received_frames(sock)
                time.sleep(seconds)
                frames = received_frames(sock) - first
            idle_traced[seconds] = (calls_idle.calls, frames)
        per_frame = counts.figure([idle[w] for w in idle_windows], [idle_traced[w] for w in idle_windows])
        short_frames, long_frames = (idle_traced[w][1] for w in idle_windows)
        per_frame["frames_per_second"] = (long_frames - short_frames) / (idle_windows[1] - idle_windows[0])
        out["per_idle_frame"] = per_frame
        return out
    finally:
        if daemon:
            daemon.stop()
        ecu.stop()


def measure_peer_counts(args, directory, lengths, traced):
    """The Python peer (whole process) against a fresh carplay-ecu per run: CPU and
    context switches per intent, and with `traced` also its syscalls per intent."""
    out = {}
    if traced:
        # A first peer run unmeasured: its imports (python-can, cantools) come from a cold
        # disk cache once, which would count against whichever run came first.
        ecu = start_ecu(args, directory, "carplay-ecu-peer-counts")
        try:
            time.sleep(0.5)
            run_peer(args, 1, 20)
        finally:
            ecu.stop()
    untraced, calls = {}, {}
    for n in lengths:
        ecu = start_ecu(args, directory, "carplay-ecu-peer-counts")
        try:
            time.sleep(0.5)
            before = counts.children_counters()
            finished = done(run_peer(args, 1, n))
            untraced[n] = (counts.difference(counts.children_counters(), before), finished)
        finally:
            ecu.stop()
    out["untraced"] = counts.cpu_figure([untraced[n] for n in lengths])
    if not traced:
        return out
    for n in lengths:
        ecu = start_ecu(args, directory, "carplay-ecu-peer-counts")
        try:
            time.sleep(0.5)
            trace = directory / ("strace-peer-%d" % n)
            finished = done(run_peer(args, 1, n, strace_out=trace))
            calls[n] = (counts.parse_strace_summary(trace.read_text()), finished)
        finally:
            ecu.stop()
    out["traced"] = counts.per_unit(calls[lengths[0]][0], calls[lengths[1]][0], calls[lengths[0]][1], calls[lengths[1]][1])
    return out


def measure_bus_load(args, directory, profile, window=5.0):
    """carplayd per second on a quiet bus (the simulated vehicle alone) and on the car's
    full bus (carplay-ecu --bus-load: every DBC message at its cycle time), idle and under
    intents (carplay-bench, one client, on the profile's own properties): CPU, context
    switches, syscalls and the frames its socket received. The kernel filters should keep
    the full bus's cost near the quiet one's."""
    result = {}
    bench = [str(args.bin_dir / "carplay-bench"), "--profile", str(profile), "--clients", "1", "--seconds", "%g" % window, "--warmup", "0"]
    for name, extra in (("quiet", ()), ("full", ("--bus-load",))):
        ecu = start_ecu(args, directory, "carplay-ecu-%s-%s" % (profile.name, name), profile, extra)
        daemon = None
        try:
            daemon, sock = start_daemon(args, directory, profile)
            time.sleep(2.0)
            pid = daemon.proc.pid

            def idle():
                time.sleep(window)
                return None

            def intents():
                done = subprocess.run(bench + ["--socket", sock], capture_output=True, text=True, timeout=args.step_timeout)
                try:
                    return json.loads(done.stdout)
                except ValueError:
                    raise SystemExit("carplay-bench gave no JSON (exit %d): %s" % (done.returncode, done.stderr[-2000:]))

            for load, work in (("idle", idle), ("intents", intents)):
                first, before, start = received_frames(sock), counts.process_counters(pid), time.monotonic()
                report = work()
                seconds = time.monotonic() - start
                used = counts.difference(counts.process_counters(pid), before)
                received = received_frames(sock) - first
                with counts.Strace(pid, directory / ("strace-%s-%s-%s" % (profile.name, name, load))) as calls:
                    traced_start = time.monotonic()
                    work()
                    traced_seconds = time.monotonic() - traced_start
                tail = [line for line in ecu.tail().splitlines() if "bus load:" in line]
                bus_rate = float(tail[-1].split(",")[-1].split()[0]) if tail else 0.0
                key = name if load == "idle" else name + "_intents"
                result[key] = {"cpu_ms_per_s": used["cpu_s"] * 1000 / seconds, "context_switches_per_s": used["context_switches"] / seconds,
                               "syscalls_per_s": calls.calls["total"] / traced_seconds, "received_per_s": received / seconds,
                               "extra_bus_frames_per_s": bus_rate}
                if report is not None:
                    result[key]["intents_per_s"] = report["confirmed"] / seconds
                    result[key]["failed"] = report["failed"]
                log("bus load, %s, %s bus, %s: %s" % (profile.name, name, load, json.dumps(result[key])))
        finally:
            if daemon:
                daemon.stop()
            ecu.stop()
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin-dir", type=Path, required=True)
    parser.add_argument("--profile", type=Path, default=REPO / "VehicleProfiles" / "sedan")
    parser.add_argument("--interface", default="vcan0")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--clients", default="1,8")
    parser.add_argument("--intents", type=int, default=400)
    parser.add_argument("--confirmation-ms", type=int, default=3000)
    parser.add_argument("--loadgen", default="%s %s" % (sys.executable, HERE / "loadgen.py"))
    parser.add_argument("--step-timeout", type=int, default=600)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--bus-load-profiles", default="sedan,hyundai-mcan",
                        help="profiles whose idle cost is measured on a quiet and a full bus (with the counts)")
    parser.add_argument("--count-intents", type=int, default=200,
                        help="the short run of the counts (the long one is 4x); 0: no counts")
    parser.add_argument("--count-rounds", type=int, default=3,
                        help="rounds of carplayd's and the peer's CPU per intent side by side (the median is reported)")
    args = parser.parse_args()
    clients = [int(c) for c in args.clients.split(",")]
    document = {"kernel": platform.release(), "machine": platform.machine(), "cpus": os.cpu_count(),
                "in_vm": os.environ.get("RUN_IN_VM", "?"), "loadgen": args.loadgen, "profile": args.profile.name,
                "intents": args.intents, "clients": clients, "runs": []}
    cpu = [l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")]
    document["cpu"] = cpu[0] if cpu else "?"
    for run in range(args.runs):
        directory = Path(tempfile.mkdtemp(prefix="vcan-bench-"))
        results = {"carplayd": {}, "python": {}}
        log("run %d/%d: carplay-ecu + carplayd" % (run + 1, args.runs))
        ecu = start_ecu(args, directory, "carplay-ecu")
        daemon = None
        try:
            daemon, sock = start_daemon(args, directory)
            wait_complete(sock)
            if run == 0:
                document["frames"] = compare_frames(args, sock)
                log("frame comparison: %d checked, %d problems" % (document["frames"]["checked"], len(document["frames"]["problems"])))
            for count in clients:
                before = cpu_seconds(daemon.proc.pid), cpu_seconds(ecu.proc.pid)
                result = run_loadgen(args, sock, count)
                done = result["intents"] + result["failures"]
                if done:
                    result["carplayd_cpu_us_per_intent"] = round((cpu_seconds(daemon.proc.pid) - before[0]) / done * 1e6, 1)
                    result["ecu_cpu_us_per_intent"] = round((cpu_seconds(ecu.proc.pid) - before[1]) / done * 1e6, 1)
                results["carplayd"][str(count)] = result
                log("  carplayd, %d clients: %s" % (count, json.dumps(results["carplayd"][str(count)])))
        finally:
            if daemon:
                daemon.stop()
            ecu.stop()
        for count in clients:
            log("run %d/%d: carplay-ecu + python peer, %d clients" % (run + 1, args.runs, count))
            ecu = start_ecu(args, directory, "carplay-ecu-peer")
            try:
                time.sleep(0.5)  # the ECU opens its socket; the peer's first intent is not timed anyway
                before = cpu_seconds(ecu.proc.pid)
                result = run_peer(args, count)
                done = result["intents"] + result["failures"]
                if done:
                    result["ecu_cpu_us_per_intent"] = round((cpu_seconds(ecu.proc.pid) - before) / done * 1e6, 1)
                results["python"][str(count)] = result
                log("  python peer, %d clients: %s" % (count, json.dumps(results["python"][str(count)])))
            finally:
                ecu.stop()
        document["runs"].append(results)
    if args.count_intents:
        log("counts: syscalls, context switches and CPU per intent and per idle frame")
        document["counts"] = measure_counts(args, Path(tempfile.mkdtemp(prefix="vcan-counts-")))
        document["counts"]["bus_load"] = {
            name: measure_bus_load(args, Path(tempfile.mkdtemp(prefix="vcan-busload-")), REPO / "VehicleProfiles" / name)
            for name in args.bus_load_profiles.split(",") if name}
        log("counts: %s" % json.dumps({k: v for k, v in document["counts"].items() if k in ("carplayd", "python")}))
    args.out.write_text(json.dumps(document, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

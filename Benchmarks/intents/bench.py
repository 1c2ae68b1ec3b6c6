#!/usr/bin/env python3
"""Intents end to end, footprint and scaling benchmarks of carplayd (embedded default:
the simulated vehicle on the in-process bus), driven by carplay-bench (a Swift load
generator, its own process). Writes the marked sections of docs/BENCHMARKS.md:
<!-- intents-bench -->, <!-- footprint-bench -->, <!-- scaling-bench -->.

Run through Benchmarks/intents/run.sh (which builds the release binaries), or directly:
  bench.py --bin DIR [--runs N] [--seconds S] [--quick] [--only intents,footprint,scaling] [--no-doc]
"""
import argparse
import json
import os
import platform
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DOC = os.path.join(REPO, "docs", "BENCHMARKS.md")
SEDAN = os.path.join(REPO, "VehicleProfiles", "sedan")

GOAL_RATE = 22500      # confirmed intents/s with 8 clients
GOAL_P99_US = 1000     # p99 latency with 8 clients


class Daemon:
    """carplayd on the embedded default, started with a NOTIFY_SOCKET we listen on."""

    def __init__(self, bin_dir, profile, work, log_level=None):
        self.work = tempfile.mkdtemp(dir=work)
        self.socket = os.path.join(self.work, "carplayd.sock")
        notify_path = os.path.join(self.work, "notify.sock")
        self.notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.notify.bind(notify_path)
        env = {k: v for k, v in os.environ.items() if k not in ("JOURNAL_STREAM", "INVOCATION_ID", "LISTEN_FDS", "LISTEN_PID")}
        env["NOTIFY_SOCKET"] = notify_path
        args = [os.path.join(bin_dir, "carplayd"), "--config", "/dev/null", "--profile", profile,
                "--socket", self.socket, "--state-dir", os.path.join(self.work, "state")]
        if log_level:
            args += ["--log-level", log_level]
        started = time.monotonic()
        # stderr (one info line per intent at the default log level) goes to /dev/null.
        self.process = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.notify.settimeout(15)
        while True:
            try:
                message = self.notify.recv(4096).decode()
            except socket.timeout:
                self.stop()
                raise SystemExit(f"bench.py: carplayd sent no READY=1 within 15 s ({' '.join(args)})")
            if "READY=1" in message.split("\n"):
                self.ready_seconds = time.monotonic() - started
                break

    def rss(self):
        """(VmRSS, VmHWM) in KiB."""
        values = {}
        with open(f"/proc/{self.process.pid}/status") as f:
            for line in f:
                key, _, rest = line.partition(":")
                if key in ("VmRSS", "VmHWM"):
                    values[key] = int(rest.split()[0])
        return values["VmRSS"], values["VmHWM"]

    def cpu_seconds(self):
        with open(f"/proc/{self.process.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        ticks = os.sysconf("SC_CLK_TCK")
        return (int(fields[11]) + int(fields[12])) / ticks

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.notify.close()


def load(bin_dir, daemon, profile, clients, seconds=None, intents=None, warmup=None, verify=False):
    args = [os.path.join(bin_dir, "carplay-bench"), "--socket", daemon.socket, "--profile", profile,
            "--clients", str(clients)]
    if intents is not None:
        args += ["--intents", str(intents)]
    else:
        args += ["--seconds", str(seconds)]
    if warmup is not None:
        args += ["--warmup", str(warmup)]
    if verify:
        args.append("--verify")
    cpu_before = daemon.cpu_seconds()
    out = subprocess.run(args, capture_output=True, text=True)
    if out.returncode != 0 and not out.stdout.strip():
        raise SystemExit(f"bench.py: carplay-bench failed: {out.stderr.strip()}")
    result = json.loads(out.stdout)
    result["daemon_cpu_seconds"] = daemon.cpu_seconds() - cpu_before
    if result["errors"]:
        raise SystemExit(f"bench.py: carplay-bench errors: {result['errors']}")
    return result


def med(values):
    return statistics.median(values) if values else float("nan")


def fig(values, fmt="{:,.0f}"):
    """median (min-max)"""
    if not values:
        return "-"
    if len(values) == 1:
        return fmt.format(values[0])
    return f"{fmt.format(med(values))} ({fmt.format(min(values))}-{fmt.format(max(values))})"


def machine_header(args):
    def cpu():
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
        return "?"

    def memory():
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal"):
                return f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
        return "?"

    def swift():
        try:
            return subprocess.run([os.environ.get("SWIFT", "swift"), "--version"], capture_output=True, text=True).stdout.strip().splitlines()[0]
        except Exception:
            return "?"

    load1 = open("/proc/loadavg").read().split()[0]
    return (f"- machine: {os.cpu_count()} CPUs, {cpu()}, {memory()} RAM, {platform.platform()}; "
            f"load average {load1} when the run started\n"
            f"- toolchain: {swift()}, release build (`swift build -c release`)\n")


# ----------------------------------------------------------------- intents

def bench_intents(args, work):
    rows = []
    for clients in args.intent_clients:
        runs = []
        for _ in range(args.runs):
            daemon = Daemon(args.bin, SEDAN, work)
            try:
                runs.append(load(args.bin, daemon, SEDAN, clients, seconds=args.seconds, warmup=args.warmup))
            finally:
                daemon.stop()
        rows.append((clients, runs))
        r = [x["rate"] for x in runs]
        print(f"intents: {clients} clients: {fig(r)} confirmed/s, p99 {fig([x['latency_us']['p99'] for x in runs], '{:,.0f}')} us", flush=True)
    return rows


def section_intents(args, rows):
    lines = ["| clients | confirmed intents/s | failed | latency p50 µs | p99 µs | max µs | intent→first frame p50 µs | p99 µs | command→confirming frame p50 µs | daemon CPU µs/intent |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    verdict = []
    for clients, runs in rows:
        rate = [x["rate"] for x in runs]
        failed = sum(x["failed"] for x in runs)
        cpu = [x["daemon_cpu_seconds"] * 1e6 / max(1, x["completed"]) for x in runs]
        lines.append(
            f"| {clients} | {fig(rate)} | {failed} | {fig([x['latency_us']['p50'] for x in runs])} | "
            f"{fig([x['latency_us']['p99'] for x in runs])} | {fig([x['latency_us']['max'] for x in runs])} | "
            f"{fig([x['first_frame_us']['p50'] for x in runs if x['first_frame_us']])} | "
            f"{fig([x['first_frame_us']['p99'] for x in runs if x['first_frame_us']])} | "
            f"{fig([x['confirm_us']['p50'] for x in runs if x['confirm_us']])} | {fig(cpu)} |")
        if clients == 8:
            rate_med = med(rate)
            p99_med = med([x["latency_us"]["p99"] for x in runs])
            verdict.append(
                f"- 8 clients: **{rate_med:,.0f}** confirmed intents/s = **{rate_med / GOAL_RATE:.2f}x** the goal of "
                f"{GOAL_RATE:,}/s ({'meets' if rate_med >= GOAL_RATE else f'MISSED by {GOAL_RATE / max(rate_med, 1):.1f}x'}); "
                f"p99 **{p99_med:,.0f} µs** against < {GOAL_P99_US:,} µs "
                f"({'meets' if p99_med < GOAL_P99_US else f'MISSED by {p99_med / GOAL_P99_US:.1f}x'})")
    per_message = rows[0][1][0]["clients_per_command_message"] if rows else {}
    return f"""## Intents end to end (embedded default, Varlink over a Unix socket)

Goal: **>= {GOAL_RATE:,} confirmed intents/s** (ten times what a 500 kbit/s CAN bus
carries at two frames per confirmed change) and **p99 < 1 ms** with 8 clients.

- what runs: `carplayd --profile VehicleProfiles/sedan` (the embedded default: the
  simulated vehicle on the in-process bus; log level info, stderr to /dev/null) as one
  process; `carplay-bench` (Swift, `Benchmarks/intents/carplay-bench`) as another, with N client
  threads, one Varlink connection each, calling `io.carplayd.Vehicle.Handle` back to back
  (each waits for its reply in `poll`, then reads it: see "What changed" below).
- every intent changes the vehicle: each client owns a property and two values of it
  that no other client uses and that differ from the starting state (climate zone
  temperatures, fan speed, A/C, auto mode, air circulation, defrosters, seat heating,
  radio frequency, audio source), and alternates between them. A success is the
  daemon's `success`, which it answers only when a status frame shows the value
  (acknowledged, E2E-checked). Clients spread round-robin over the command messages.
- latency: from writing the call to reading the whole reply (client's monotonic clock).
- intent→first frame: the command frame's timestamp in the reply's candump `frames`
  (the in-process bus stamps each frame with the wall clock when it takes it) minus the
  client's wall clock just before writing the call; both are CLOCK_REALTIME on one machine,
  in µs. command→confirming frame: last frame of the reply minus the command frame.
- daemon CPU: carplayd's user+system CPU time (/proc/PID/stat) over the whole load run
  divided by the intents completed in it (warm-up included).
- each figure: median of {args.runs} runs (min-max), each run a fresh daemon, {args.warmup} s of
  load before a {args.seconds} s measuring window.

{chr(10).join(lines)}

{chr(10).join(verdict)}
"""


# ----------------------------------------------------------------- footprint

def binary_sizes(bin_dir, work):
    rows = []
    for name in ("carplayd", "carplayctl", "carplay-ecu", "carplay-bench"):
        path = os.path.join(bin_dir, name)
        if not os.path.exists(path):
            continue
        stripped = os.path.join(work, name + ".stripped")
        subprocess.run(["strip", "-o", stripped, path], check=True)
        rows.append((name, os.path.getsize(path), os.path.getsize(stripped)))
    return rows


def bench_footprint(args, work):
    result = {"ready": [], "idle": [], "samples": [], "sizes": binary_sizes(args.bin, work)}
    for _ in range(max(args.runs, 3)):
        daemon = Daemon(args.bin, SEDAN, work)
        result["ready"].append(daemon.ready_seconds * 1000)
        time.sleep(1.0)
        result["idle"].append(daemon.rss()[0])
        daemon.stop()
    # The long run: one daemon, args.total intents in chunks, RSS after each chunk.
    daemon = Daemon(args.bin, SEDAN, work)
    try:
        time.sleep(1.0)
        done = 0
        rss, hwm = daemon.rss()
        result["samples"].append((0, rss, hwm))
        chunk = max(1, args.total // 10)
        while done < args.total:
            n = min(chunk, args.total - done)
            r = load(args.bin, daemon, SEDAN, 8, intents=n, warmup=0)
            if r["failed"]:
                result.setdefault("failed", 0)
                result["failed"] += r["failed"]
            done += n
            rss, hwm = daemon.rss()
            result["samples"].append((done, rss, hwm))
            print(f"footprint: {done:,} intents, VmRSS {rss} KiB, VmHWM {hwm} KiB, {r['rate']:,.0f}/s", flush=True)
        time.sleep(1.0)
        rss, hwm = daemon.rss()
        result["samples"].append(("idle after", rss, hwm))
    finally:
        daemon.stop()
    return result


def section_footprint(args, f):
    samples = "\n".join(f"| {s[0] if isinstance(s[0], str) else f'{s[0]:,}'} | {s[1]:,} | {s[2]:,} |" for s in f["samples"])
    sizes = "\n".join(f"| {name} | {size / 1024:,.0f} KiB | {stripped / 1024:,.0f} KiB |" for name, size, stripped in f["sizes"])
    first = f["samples"][1][1] if len(f["samples"]) > 1 else f["samples"][0][1]
    last = f["samples"][-2][1] if len(f["samples"]) > 2 else f["samples"][-1][1]
    growth = last - first
    return f"""## Footprint

- start to READY: from `Popen` of carplayd (embedded default, sedan) to its `READY=1` on
  `NOTIFY_SOCKET` (a datagram socket the harness listens on; carplayd sends it once the
  socket listens and the simulated vehicle's status frames arrived): **{fig(f['ready'], '{:.1f}')} ms**
  (median (min-max) of {len(f['ready'])} starts)
- resident memory idle (VmRSS 1 s after READY): **{fig(f['idle'])} KiB**
- {f['samples'][-2][0]:,} intents with 8 clients (in chunks of one carplay-bench run each), VmRSS / VmHWM after
  each chunk; {'no failures' if not f.get('failed') else f"{f['failed']} failed intents"}. Growth from the first chunk to the last: {growth:+,} KiB.

| intents so far | VmRSS KiB | VmHWM KiB |
| --- | --- | --- |
{samples}

Binary sizes (release build; they link the Swift runtime libraries from the toolchain
dynamically: libswiftCore, Concurrency, Dispatch; Foundation is not linked):

| binary | as built | stripped (`strip`) |
| --- | --- | --- |
{sizes}
"""


# ----------------------------------------------------------------- scaling

def bench_scaling(args, work):
    curve = []
    for clients in args.scaling_clients:
        runs = []
        for _ in range(args.runs):
            daemon = Daemon(args.bin, SEDAN, work)
            try:
                r = load(args.bin, daemon, SEDAN, clients, seconds=args.seconds, warmup=args.warmup)
                r["rss"] = daemon.rss()
                runs.append(r)
            finally:
                daemon.stop()
        curve.append((clients, runs))
        print(f"scaling: {clients} clients: {fig([x['rate'] for x in runs])}/s", flush=True)
    big_dir = os.path.join(work, "big-profile")
    subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "make_big_profile.py"), big_dir, "--factor", "10"],
                   check=True, capture_output=True)
    profiles = []
    for label, profile in (("sedan", SEDAN), ("sedan, 10x DBC", big_dir)):
        for clients in args.profile_clients:
            runs = []
            for _ in range(args.runs):
                daemon = Daemon(args.bin, profile, work)
                try:
                    idle = daemon.rss()[0]
                    r = load(args.bin, daemon, profile, clients, seconds=args.seconds, warmup=args.warmup)
                    r["rss"] = daemon.rss()
                    r["idle"] = idle
                    r["ready"] = daemon.ready_seconds * 1000
                    runs.append(r)
                finally:
                    daemon.stop()
            profiles.append((label, clients, runs))
            print(f"scaling: {label}, {clients} clients: {fig([x['rate'] for x in runs])}/s", flush=True)
    return curve, profiles


def section_scaling(args, curve, profiles):
    lines = ["| clients | confirmed intents/s | latency p50 µs | p99 µs | VmRSS after KiB | VmHWM KiB |",
             "| --- | --- | --- | --- | --- | --- |"]
    for clients, runs in curve:
        lines.append(f"| {clients} | {fig([x['rate'] for x in runs])} | {fig([x['latency_us']['p50'] for x in runs])} | "
                     f"{fig([x['latency_us']['p99'] for x in runs])} | {fig([x['rss'][0] for x in runs])} | {fig([x['rss'][1] for x in runs])} |")
    plines = ["| profile | clients | start to READY ms | VmRSS idle KiB | confirmed intents/s | p99 µs | VmRSS after KiB |",
              "| --- | --- | --- | --- | --- | --- | --- |"]
    for label, clients, runs in profiles:
        plines.append(f"| {label} | {clients} | {fig([x['ready'] for x in runs], '{:.1f}')} | {fig([x['idle'] for x in runs])} | "
                      f"{fig([x['rate'] for x in runs])} | {fig([x['latency_us']['p99'] for x in runs])} | {fig([x['rss'][0] for x in runs])} |")
    return f"""## Scaling

Throughput and memory against the number of clients (same setup as above; median
(min-max) of {args.runs} runs, fresh daemon each):

{chr(10).join(lines)}

Against a profile with 10x the DBC messages and signals (`Benchmarks/intents/make_big_profile.py`:
the sedan's 10 messages / 64 signals copied to 100 / 640 under new frame IDs; the
bindings stay on the original messages, so the same intents run; the copies are DBC the
daemon parses, compiles and keeps, with no traffic of their own):

{chr(10).join(plines)}
"""


# ----------------------------------------------------------------- doc

def replace_section(text, name, body):
    begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
    section = f"{begin}\n{body.rstrip()}\n{end}"
    if begin in text and end in text:
        pre = text[:text.index(begin)]
        post = text[text.index(end) + len(end):]
        return pre + section + post
    return text.rstrip("\n") + "\n\n" + section + "\n"


def write_header(args):
    body = f"""Every figure below comes from one command, run on one machine:

```
Benchmarks/run.sh            # all: codec, intents, footprint, scaling, vcan; rewrites this file
Benchmarks/run.sh --quick    # a smoke run (1 run each, short windows, small logs)
Benchmarks/run.sh --runs 5   # more runs per figure
```

Each section is rewritten by its own script between its `<!-- name:begin/end -->`
markers (`Benchmarks/codec/run.sh`, `Benchmarks/intents/run.sh`, `Benchmarks/vcan/run.sh`);
text outside the markers is kept. Figures are medians of several runs with (min-max);
they are benchmarks, not tests: nothing fails on a slow machine.

Header written {time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())} by `{args.command}`; each section
names its own run, machine load and command. The machines these run on are shared:
check the load average a section reports before comparing figures.

{machine_header(args)}"""
    text = open(DOC).read() if os.path.exists(DOC) else "# Benchmarks\n"
    begin = "<!-- bench-header:begin -->"
    if begin not in text:
        # The header goes right after the title.
        title, _, rest = text.partition("\n")
        text = f"{title}\n\n{begin}\n<!-- bench-header:end -->\n" + rest
    open(DOC, "w").write(replace_section(text, "bench-header", body))
    print(f"updated the header of {DOC}")


def main():
    parser = argparse.ArgumentParser(description="carplayd intents/footprint/scaling benchmarks")
    parser.add_argument("--bin", required=True, help="directory of the release binaries")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=5.0, help="measuring window per run")
    parser.add_argument("--warmup", type=float, default=1.0)
    parser.add_argument("--total", type=int, default=1_000_000, help="intents of the footprint run")
    parser.add_argument("--quick", action="store_true", help="1 run, 1 s windows, 20,000 footprint intents, short curves")
    parser.add_argument("--only", default="intents,footprint,scaling")
    parser.add_argument("--no-doc", action="store_true")
    parser.add_argument("--command", default="Benchmarks/intents/run.sh", help="the command line shown in the doc")
    parser.add_argument("--header", action="store_true", help="only write the doc's header section (machine, toolchain, commands)")
    args = parser.parse_args()
    args.command = args.command.strip()
    if args.header:
        write_header(args)
        return
    args.intent_clients = [1, 8, 64]
    args.scaling_clients = [1, 2, 4, 8, 16, 32, 64, 128]
    args.profile_clients = [1, 8]
    if args.quick:
        args.runs, args.seconds, args.warmup, args.total = 1, 1.0, 0.3, 20_000
        args.scaling_clients = [1, 8, 64]
    only = set(args.only.split(","))
    work = tempfile.mkdtemp(prefix="carplayd-bench-")
    sections = {}
    if "intents" in only:
        sections["intents-bench"] = section_intents(args, bench_intents(args, work))
    if "footprint" in only:
        sections["footprint-bench"] = section_footprint(args, bench_footprint(args, work))
    if "scaling" in only:
        sections["scaling-bench"] = section_scaling(args, *bench_scaling(args, work))
    shutil.rmtree(work, ignore_errors=True)
    for body in sections.values():
        print(body)
    if args.no_doc:
        return
    text = open(DOC).read() if os.path.exists(DOC) else "# Benchmarks\n"
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    for name, body in sections.items():
        text = replace_section(text, name, body + f"\nLast run: {stamp}; reproduce: `{args.command}`\n\n" + machine_header(args))
    open(DOC, "w").write(text)
    print(f"updated {DOC}")


if __name__ == "__main__":
    main()

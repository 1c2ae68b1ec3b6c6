#!/usr/bin/env python3
"""Instructions per confirmed intent on a kernel bus, counted by valgrind's callgrind:
carplayd and its carplay-ecu, and the Python peer (whole process), on vcan0 (in the VM
where the host kernel has no vcan; Benchmarks/vcan/run.sh --instructions starts it).

CPU times in the TCG VM swing by up to 2x between rounds minutes apart (the host shares
its cores); instruction counts do not. Each figure is the difference of a short and a
long run divided by the difference of their intents, so start-up (the peer's imports and
DBC parsing) drops out.

Callgrind runs a process ~50x slower, so anything the bus does per second would count
many times per intent: the status messages' cycle time is set to 10 s in a copy of the
profile (both sides read it), and the frames carplayd received per intent are reported
to show that no periodic frame is in the figure.

    instructions.py --bin-dir DIR --profile DIR --out FILE [--intents 100,300]
"""

import argparse
import glob
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import inside  # noqa: E402

QUIET_CYCLE_MS = 10000


def log(text):
    print("vcan-instructions: " + text, file=sys.stderr, flush=True)


def quiet_profile(profile, directory):
    """A copy of `profile` whose status messages repeat every QUIET_CYCLE_MS."""
    copy = directory / ("quiet-" + profile.name)
    shutil.copytree(profile, copy)
    document = json.loads((copy / "profile.json").read_text())
    status = {binding["status"]["message"] for binding in document["bindings"].values() if "status" in binding}
    messages = document.setdefault("messages", {})
    for name in sorted(status):
        messages.setdefault(name, {})["cycleTimeMs"] = QUIET_CYCLE_MS
    (copy / "profile.json").write_text(json.dumps(document, indent=2))
    return copy


def callgrind(out):
    """The prefix that runs a command under callgrind, its counts written to `out`."""
    return ["valgrind", "--tool=callgrind", "--callgrind-out-file=%s" % out]


def total(path):
    """The instructions a callgrind output file counted."""
    for line in open(path):
        if line.startswith(("summary:", "totals:")):
            return int(line.split()[1])
    raise SystemExit("no totals in %s" % path)


def dump(process, prefix):
    """Asks callgrind in `process` for its counts since the last zeroing (a file of its own)."""
    before = set(glob.glob("%s.*" % prefix))
    subprocess.run(["callgrind_control", "-d", str(process.proc.pid)], capture_output=True, check=True)
    deadline = time.time() + 60
    while time.time() < deadline:
        new = set(glob.glob("%s.*" % prefix)) - before
        if new:
            time.sleep(0.5)  # written whole
            return total(new.pop())
        time.sleep(0.2)
    raise SystemExit("callgrind wrote no dump for %s" % process.name)


def zero(process):
    subprocess.run(["callgrind_control", "-z", str(process.proc.pid)], capture_output=True, check=True)


def per_intent(short, long):
    """(instructions, intents) of a short and a long run -> instructions per intent."""
    return (long[0] - short[0]) / (long[1] - short[1])


def measure_daemon(args, directory, lengths):
    # Debian 12's valgrind does not read DWARF 5: copies without debug info keep the symbols.
    stripped = argparse.Namespace(**vars(args))
    stripped.bin_dir = directory
    for tool in ("carplayd", "carplay-ecu"):
        subprocess.run(["strip", "--strip-debug", "-o", str(directory / tool), str(args.bin_dir / tool)], check=True)
    prefixes = {name: directory / (name + ".cg") for name in ("carplayd", "carplay-ecu")}
    ecu = inside.start_ecu(stripped, directory, "carplay-ecu", prefix=callgrind(prefixes["carplay-ecu"]))
    daemon = None
    try:
        daemon, sock = inside.start_daemon(stripped, directory, prefix=callgrind(prefixes["carplayd"]), start_seconds=300)
        processes = {"carplayd": daemon, "carplay-ecu": ecu}
        inside.wait_complete(sock)
        inside.run_loadgen(args, sock, 1, 30)  # warm-up
        runs = {}
        for n in lengths:
            frames = inside.received_frames(sock)
            for process in processes.values():
                zero(process)
            finished = inside.done(inside.run_loadgen(args, sock, 1, n))
            runs[n] = {name: (dump(process, prefixes[name]), finished) for name, process in processes.items()}
            runs[n]["frames"] = (inside.received_frames(sock) - frames, finished)
            log("carplayd, %d intents: %d instructions (carplay-ecu %d)" % (n, runs[n]["carplayd"][0], runs[n]["carplay-ecu"][0]))
        short, long = (runs[n] for n in lengths)
        return {name: per_intent(short[name], long[name]) for name in ("carplayd", "carplay-ecu", "frames")}
    finally:
        if daemon:
            daemon.stop()
        ecu.stop()


def measure_peer(args, directory, lengths):
    runs = {}
    for n in lengths:
        ecu = inside.start_ecu(args, directory, "carplay-ecu-peer")
        try:
            time.sleep(0.5)
            out = directory / ("python-peer-%d.cg" % n)
            reply = inside.run_peer(args, 1, n, prefix=callgrind(out))
            runs[n] = (total(out), inside.done(reply))
            log("python peer, %d intents: %d instructions" % (n, runs[n][0]))
        finally:
            ecu.stop()
    return per_intent(runs[lengths[0]], runs[lengths[1]])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin-dir", type=Path, required=True)
    parser.add_argument("--profile", type=Path, required=True)
    parser.add_argument("--interface", default="vcan0")
    parser.add_argument("--intents", default="100,300", help="the short and the long run")
    parser.add_argument("--loadgen", required=True)
    parser.add_argument("--step-timeout", type=int, default=3000)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    args.confirmation_ms = 30000
    lengths = tuple(int(n) for n in args.intents.split(","))
    if len(lengths) != 2 or lengths[0] >= lengths[1]:
        raise SystemExit("--intents: two lengths, the short one first (e.g. 100,300)")
    directory = Path(tempfile.mkdtemp(prefix="vcan-instructions-"))
    name = args.profile.name
    args.profile = quiet_profile(args.profile, directory)
    daemon_side = measure_daemon(args, directory, lengths)
    peer = measure_peer(args, directory, lengths)
    result = {"intents": list(lengths), "profile": name, "status_cycle_ms": QUIET_CYCLE_MS,
              "carplayd": daemon_side["carplayd"], "carplay-ecu": daemon_side["carplay-ecu"], "python": peer,
              "frames_received_per_intent": daemon_side["frames"], "ratio": daemon_side["carplayd"] / peer}
    args.out.write_text(json.dumps(result, indent=2))
    log("done: %s" % json.dumps(result))


if __name__ == "__main__":
    main()

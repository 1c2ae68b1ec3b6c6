#!/usr/bin/env python3
"""Every DBC file of the pinned opendbc package, read by carplayctl and by opendbc itself.

- Loads: every shipped file (opendbc/dbc/*.dbc) and every generator source
  (opendbc/dbc/generator/**.dbc, some of them `CM_ "IMPORT ...";` forms) must load with
  `carplayctl dbc show` (exit 0; problems are warnings or messages set aside, which are
  counted). cantools (strict=False) is tried on the same files, for the figures only.
- Decoding: for every message of every shipped file, frames packed by opendbc's own
  CANPacker (valid checksums and counters) from random signal values are decoded by
  opendbc's CANParser and by `carplayctl dbc decode --raw-choices`; every signal both
  decode must agree (relative 1e-9). Frames of messages carplayd set aside are counted,
  not compared.

Usage: opendbc_corpus.py --carplayctl PATH [--frames N] [--seed S]
Exit 1 on any file carplayd refuses or any disagreement; the last line is the summary.
"""

import argparse
import json
import math
import os
import random
import subprocess
import sys
import warnings

import opendbc
from opendbc.can.dbc import DBC
from opendbc.can.packer import CANPacker
from opendbc.can.parser import CANParser

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from opendbc_frames import DBC_DIR, dbc_name, generator_sources, random_values, shipped_paths  # noqa: E402


def carplayctl_loads(carplayctl, path):
    """(loaded, problems, set aside) as `carplayctl dbc show` reports them."""
    run = subprocess.run([carplayctl, "dbc", "show", path], capture_output=True, text=True)
    problems = [line for line in run.stderr.splitlines() if ": error: " in line]
    aside = [line for line in run.stderr.splitlines() if "set aside" in line]
    return run.returncode == 0, problems, aside, run.stderr


def cantools_loads(path):
    try:
        import cantools

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cantools.database.load_file(path, strict=False)
        return True
    except Exception:
        return False


def candump_line(address, data):
    # opendbc keeps an extended ID as the DBC writes it: with bit 31, or above 0x7FF without.
    extended = address & 0x80000000 or address > 0x7FF
    address &= 0x1FFFFFFF
    can_id = ("%08X" if extended else "%03X") % address
    # More than 8 bytes: a CAN FD frame, `##` and its flags nibble in candump -L form.
    separator = "##0" if len(data) > 8 else "#"
    return "(0.000000) can0 %s%s%s" % (can_id, separator, data.hex().upper())


def agree(ours, theirs):
    return math.isclose(float(ours), float(theirs), rel_tol=1e-9, abs_tol=1e-9)


def compare_decoding(carplayctl, name, path, frames_per_message, rng):
    """(frames compared, values compared, disagreements, frames not decoded by carplayd)."""
    dbc = DBC(name)
    packer = CANPacker(name)
    # VECTOR__INDEPENDENT_SIG_MSG holds signals of no message (cantools and carplayd drop it).
    messages = [m for m in dbc.msgs.values() if m.size <= 64 and m.name != "VECTOR__INDEPENDENT_SIG_MSG"]
    parser = CANParser(name, [(m.name, 0) for m in messages], 0)
    lines, expected, addresses = [], [], []
    nanos = 0
    for message in messages:
        for _ in range(frames_per_message):
            address, data, _ = packer.make_can_msg(message.name, 0, random_values(message, rng, skip=("CHECKSUM", "COUNTER")))
            nanos += 10_000_000
            updated = parser.update([(nanos, [(address, bytes(data), 0)])])
            if address not in updated:
                continue  # opendbc's own parser dropped it (its counter or checksum check)
            lines.append(candump_line(address, bytes(data)))
            addresses.append(address)
            expected.append((message.name, dict(parser.vl[address])))
    run = subprocess.run(
        [carplayctl, "dbc", "decode", "--raw-choices", path], input="\n".join(lines) + "\n", capture_output=True, text=True
    )
    decoded = [json.loads(line) for line in run.stdout.splitlines() if line.strip()]
    by_line = {}
    for entry in decoded:
        by_line[entry.get("line", len(by_line) + 1)] = entry
    problems, values, undecoded = [], 0, {}
    for index, (message_name, want) in enumerate(expected, start=1):
        got = by_line.get(index)
        signals = (got or {}).get("signals")
        if not isinstance(signals, dict):
            error = (got or {}).get("error", "no output")
            # Refused as cantools refuses them: a signal that reaches past the message's
            # length, a multiplexer value the DBC does not list (opendbc decodes both anyway).
            if (addresses[index - 1] & 0x7FFFFFFF) > 0x1FFFFFFF:
                reason = "an ID of more than 29 bits: carplayd sets the message aside"
            elif "does not fit in the" in error:
                reason = "a signal reaches past the message"
            elif "expected multiplexer id" in error:
                reason = "a multiplexer value the DBC does not list"
            else:
                reason = "other"
                problems.append("%s %s: carplayd could not decode %s: %s" % (name, message_name, lines[index - 1], error))
            undecoded[reason] = undecoded.get(reason, 0) + 1
            continue
        for signal, value in want.items():
            if signal not in signals or isinstance(signals[signal], str):
                continue
            values += 1
            if not agree(signals[signal], value):
                problems.append("%s %s %s: carplayd %r, opendbc %r" % (name, message_name, signal, signals[signal], value))
    return len(lines), values, problems, undecoded


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--carplayctl", required=True)
    parser.add_argument("--frames", type=int, default=3)
    parser.add_argument("--seed", type=int, default=35)
    args = parser.parse_args()
    rng = random.Random(args.seed)

    shipped = shipped_paths()
    sources = generator_sources()
    failures = []
    counts = {"shipped": [0, 0, 0], "sources": [0, 0, 0]}  # carplayd, cantools, set aside
    for kind, files in (("shipped", shipped), ("sources", sources)):
        for path in files:
            loaded, problems, aside, stderr = carplayctl_loads(args.carplayctl, path)
            counts[kind][0] += loaded
            counts[kind][1] += cantools_loads(path)
            counts[kind][2] += len(aside)
            if not loaded:
                failures.append("%s: carplayctl dbc show failed: %s" % (os.path.relpath(path, DBC_DIR), stderr.strip()[-400:]))
            elif problems:
                print("note %s: %d problem(s), first: %s" % (os.path.relpath(path, DBC_DIR), len(problems), problems[0]))

    frames = values = 0
    undecoded = {}
    for path in shipped:
        name = dbc_name(path)
        compared, checked, problems, skipped = compare_decoding(args.carplayctl, name, path, args.frames, rng)
        frames += compared
        values += checked
        for reason, count in skipped.items():
            undecoded[reason] = undecoded.get(reason, 0) + count
        failures += problems[:5]
        if problems:
            print("FAIL %s: %d disagreements" % (name, len(problems)))

    for failure in failures:
        print("FAIL " + failure)
    print(
        "opendbc %s: carplayd loads %d of %d shipped DBCs and %d of %d generator sources (cantools: %d and %d; %d files with messages set aside); "
        "%d frames from opendbc's packer, %d signal values, carplayd = opendbc's parser on all but %d; frames carplayd refused as cantools does: %s"
        % (
            getattr(opendbc, "__version__", "0.3.1"),
            counts["shipped"][0], len(shipped), counts["sources"][0], len(sources),
            counts["shipped"][1], counts["sources"][1], counts["shipped"][2] + counts["sources"][2],
            frames, values, len([f for f in failures if "carplayd" in f and "opendbc" in f]),
            ", ".join("%d (%s)" % (count, reason) for reason, count in sorted(undecoded.items())) or "none",
        )
    )
    loaded = counts["shipped"][0] + counts["sources"][0]
    print("opendbc: %d passed, %d failed" % (loaded + frames, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

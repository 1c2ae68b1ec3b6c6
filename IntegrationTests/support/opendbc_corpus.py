#!/usr/bin/env python3
"""Every DBC file of the pinned opendbc package, read by carplayctl, by opendbc itself and by cantools.

- Loads: every shipped file (opendbc/dbc/*.dbc) and every generator source
  (opendbc/dbc/generator/**.dbc, some of them `CM_ "IMPORT ...";` forms) must load with
  `carplayctl dbc show` (exit 0; problems are warnings or messages set aside, which are
  counted). cantools (strict=False) is tried on the same files; the files it does not
  load are counted by its reason.
- Decoding, against opendbc: for every message of every shipped file, frames packed by
  opendbc's own CANPacker (valid checksums and counters) from random signal values
  (opendbc_frames.py) are decoded by opendbc's CANParser and by
  `carplayctl dbc decode --raw-choices`; every signal both decode must agree (relative
  1e-9; opendbc gives every value as a float). Frames of messages carplayd refuses
  are counted by reason, not compared.
- Decoding, against cantools: the same frames of every shipped file cantools loads are
  decoded by cantools' Message.decode(decode_choices=False, scaling=True); carplayd must
  decode the same signals to exactly the same values: an int where cantools gives an
  int, a float with the same 64 bits where it gives a float (carplayctl writes Python's
  repr, which reads back to the very double). A frame only one of them decodes is a
  failure, but for the exclusions counted by reason in the summary: cantools cannot
  unpack a message whose signals overlap (it keeps such messages with strict=False;
  carplayd decodes them, and agrees with opendbc's parser there), and frames both
  refuse (a multiplexer value the DBC does not list, a signal past the message).

Usage: opendbc_corpus.py --carplayctl PATH [--frames N] [--seed S]
Exit 1 on any file carplayd refuses or any disagreement (each named: file, message,
frame, signal, both values); the last lines are the summary.
"""

import argparse
import copy
import json
import math
import os
import random
import struct
import subprocess
import sys
import warnings

import cantools
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


def cantools_load(path):
    """(database, None) as cantools (strict=False) loads the file, or (None, why not)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return cantools.database.load_file(path, strict=False), None
    except Exception as error:
        text = str(error)
        if "is more than 11 bits" in text:
            return None, "an ID above 0x7FF without bit 31"
        if "Invalid syntax" in text:
            return None, "grammar it does not read"
        if "unused VAL_" in text:
            return None, "a VAL_ for a signal the message does not have"
        return None, "%s: %s" % (type(error).__name__, text[:120])


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


def same_value(ours, theirs):
    """carplayd's JSON value is cantools' exactly: an int equal to cantools' int, or a float
    with the same 64 bits as cantools' float (carplayctl writes Python's repr, which reads
    back to the same double; any NaN matches any NaN, JSON carries no payload)."""
    if type(theirs) is int:
        return type(ours) is int and ours == theirs
    if type(theirs) is float and type(ours) is float:
        return struct.pack("<d", ours) == struct.pack("<d", theirs) or (math.isnan(ours) and math.isnan(theirs))
    return False


def cantools_refusal(message, error, strict_reasons):
    """Why cantools refused to decode a frame of `message`, as one of the known reasons,
    or None for any other (then it is a failure). Its DecodeError says only "unpacking
    failed"; the message's strict check (cached per message) names the cause."""
    if "expected multiplexer id" in str(error):
        return "a multiplexer value the DBC does not list"
    if message.name not in strict_reasons:
        try:
            copy.deepcopy(message).refresh(strict=True)
            strict_reasons[message.name] = None
        except Exception as strict:
            text = str(strict)
            strict_reasons[message.name] = (
                "overlapping signals" if "are overlapping" in text else
                "a signal reaches past the message" if "does not fit in" in text else None
            )
    return strict_reasons[message.name]


def carplayd_refusal(error):
    """carplayctl's error for a frame, as one of the reasons cantools' are counted by."""
    if "does not fit in the" in error:
        return "a signal reaches past the message"
    if "expected multiplexer id" in error:
        return "a multiplexer value the DBC does not list"
    return "other: " + error


def compare_cantools(db, name, frames, decoded):
    """carplayd's decoding of `frames` ([(message name, address, data)]) against cantools'
    Message.decode(decode_choices=False, scaling=True), value for value, bit for bit.
    Returns (frames compared, values compared, disagreements, {reason: frames not compared})."""
    problems, compared, values, excluded, strict_reasons = [], 0, 0, {}, {}

    def exclude(reason):
        excluded[reason] = excluded.get(reason, 0) + 1

    for (message_name, address, data), got in zip(frames, decoded):
        ours = (got or {}).get("signals")
        where = "%s %s %s#%s" % (name, message_name, "%X" % (address & 0x1FFFFFFF), data.hex().upper())
        try:
            message = db.get_message_by_frame_id(address & 0x1FFFFFFF)
        except KeyError:
            problems.append("%s: cantools has no message of that ID" % where)
            continue
        try:
            theirs = message.decode(data, decode_choices=False, scaling=True)
        except Exception as error:
            reason = cantools_refusal(message, error, strict_reasons)
            if reason is None:
                problems.append("%s: cantools could not decode it: %s" % (where, error))
            elif not isinstance(ours, dict):
                mine = carplayd_refusal((got or {}).get("error", ""))
                exclude("both refuse: " + reason if mine == reason else "both refuse; cantools: %s, carplayd: %s" % (reason, mine))
            elif reason == "overlapping signals":
                # Loaded with strict=False, cantools keeps such a message but cannot unpack
                # it; carplayd decodes it (and agrees with opendbc's parser on it).
                exclude("cantools cannot unpack a message with overlapping signals")
            else:
                problems.append("%s: carplayd decodes it, cantools refuses it (%s): %s" % (where, reason, error))
            continue
        if not isinstance(ours, dict):
            problems.append("%s: cantools decodes it, carplayd refuses it: %s" % (where, (got or {}).get("error", "no output")))
            continue
        compared += 1
        if got.get("name") != message.name:
            problems.append("%s: carplayd names the message %r, cantools %r" % (where, got.get("name"), message.name))
        for signal in sorted(set(ours) | set(theirs)):
            if signal not in ours or signal not in theirs:
                problems.append("%s %s: only %s decodes this signal" % (where, signal, "carplayd" if signal in ours else "cantools"))
                continue
            values += 1
            if not same_value(ours[signal], theirs[signal]):
                problems.append("%s %s: carplayd %r, cantools %r" % (where, signal, ours[signal], theirs[signal]))
    return compared, values, problems, excluded


def compare_decoding(carplayctl, name, path, frames_per_message, rng, cantools_db):
    """The frames of one shipped file decoded by carplayctl, against opendbc's parser and,
    when cantools loads the file (cantools_db), against cantools. A dict of counts:
    frames/values compared with opendbc, frames not decoded by carplayd by reason,
    the same for cantools, and the disagreements."""
    dbc = DBC(name)
    packer = CANPacker(name)
    # VECTOR__INDEPENDENT_SIG_MSG holds signals of no message (cantools and carplayd drop it).
    messages = [m for m in dbc.msgs.values() if m.size <= 64 and m.name != "VECTOR__INDEPENDENT_SIG_MSG"]
    parser = CANParser(name, [(m.name, 0) for m in messages], 0)
    lines, expected, frames = [], [], []
    nanos = 0
    for message in messages:
        for _ in range(frames_per_message):
            address, data, _ = packer.make_can_msg(message.name, 0, random_values(message, rng, skip=("CHECKSUM", "COUNTER")))
            nanos += 10_000_000
            updated = parser.update([(nanos, [(address, bytes(data), 0)])])
            if address not in updated:
                continue  # opendbc's own parser dropped it (its counter or checksum check)
            lines.append(candump_line(address, bytes(data)))
            frames.append((message.name, address, bytes(data)))
            expected.append((message.name, dict(parser.vl[address])))
    run = subprocess.run(
        [carplayctl, "dbc", "decode", "--raw-choices", path], input="\n".join(lines) + "\n", capture_output=True, text=True
    )
    decoded = [json.loads(line) for line in run.stdout.splitlines() if line.strip()]
    by_line = {}
    for entry in decoded:
        by_line[entry.get("line", len(by_line) + 1)] = entry
    result = {"frames": len(lines), "values": 0, "problems": [], "disagreements": 0, "undecoded": {},
              "cantools_frames": 0, "cantools_values": 0, "cantools_excluded": {}, "cantools_disagreements": 0}
    problems, undecoded = result["problems"], result["undecoded"]
    for index, (message_name, want) in enumerate(expected, start=1):
        got = by_line.get(index)
        signals = (got or {}).get("signals")
        if not isinstance(signals, dict):
            error = (got or {}).get("error", "no output")
            # Refused as cantools refuses them: a signal that reaches past the message's
            # length, a multiplexer value the DBC does not list (opendbc decodes both anyway).
            if (frames[index - 1][1] & 0x7FFFFFFF) > 0x1FFFFFFF:
                reason = "an ID of more than 29 bits: carplayd sets the message aside"
            elif not carplayd_refusal(error).startswith("other"):
                reason = carplayd_refusal(error)
            else:
                reason = "other"
                problems.append("%s %s: carplayd could not decode %s: %s" % (name, message_name, lines[index - 1], error))
            undecoded[reason] = undecoded.get(reason, 0) + 1
            continue
        for signal, value in want.items():
            if signal not in signals or isinstance(signals[signal], str):
                continue
            result["values"] += 1
            if not agree(signals[signal], value):
                result["disagreements"] += 1
                problems.append("%s %s %s: carplayd %r, opendbc %r" % (name, message_name, signal, signals[signal], value))
    if cantools_db is not None:
        compared, values, disagreements, excluded = compare_cantools(cantools_db, name, frames, [by_line.get(i) for i in range(1, len(frames) + 1)])
        result.update(cantools_frames=compared, cantools_values=values, cantools_excluded=excluded, cantools_disagreements=len(disagreements))
        problems += disagreements
    return result


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
    cantools_dbs, cantools_refused = {}, {}
    for kind, files in (("shipped", shipped), ("sources", sources)):
        for path in files:
            loaded, problems, aside, stderr = carplayctl_loads(args.carplayctl, path)
            db, why_not = cantools_load(path)
            counts[kind][0] += loaded
            counts[kind][1] += db is not None
            counts[kind][2] += len(aside)
            if kind == "shipped":
                cantools_dbs[path] = db
                if db is None:
                    cantools_refused[why_not] = cantools_refused.get(why_not, 0) + 1
            if not loaded:
                failures.append("%s: carplayctl dbc show failed: %s" % (os.path.relpath(path, DBC_DIR), stderr.strip()[-400:]))
            elif problems:
                print("note %s: %d problem(s), first: %s" % (os.path.relpath(path, DBC_DIR), len(problems), problems[0]))

    totals = {"frames": 0, "values": 0, "disagreements": 0, "cantools_files": 0, "cantools_frames": 0, "cantools_values": 0, "cantools_disagreements": 0}
    undecoded, excluded = {}, {}
    for path in shipped:
        name = dbc_name(path)
        result = compare_decoding(args.carplayctl, name, path, args.frames, rng, cantools_dbs[path])
        for key in totals:
            totals[key] += result.get(key, 0)
        totals["cantools_files"] += cantools_dbs[path] is not None
        for reason, count in result["undecoded"].items():
            undecoded[reason] = undecoded.get(reason, 0) + count
        for reason, count in result["cantools_excluded"].items():
            excluded[reason] = excluded.get(reason, 0) + count
        problems = result["problems"]
        failures += problems[:5]
        if problems:
            print("FAIL %s: %d disagreements" % (name, len(problems)))

    def reasons(table):
        return ", ".join("%d (%s)" % (count, reason) for reason, count in sorted(table.items())) or "none"

    for failure in failures:
        print("FAIL " + failure)
    print(
        "opendbc %s: carplayd loads %d of %d shipped DBCs and %d of %d generator sources (cantools: %d and %d; %d files with messages set aside); "
        "%d frames from opendbc's packer, %d signal values, carplayd = opendbc's parser on all but %d; frames carplayd refused as cantools does: %s"
        % (
            getattr(opendbc, "__version__", "0.3.1"),
            counts["shipped"][0], len(shipped), counts["sources"][0], len(sources),
            counts["shipped"][1], counts["sources"][1], counts["shipped"][2] + counts["sources"][2],
            totals["frames"], totals["values"], totals["disagreements"], reasons(undecoded),
        )
    )
    print(
        "cantools %s (strict=False) on the %d shipped DBCs it loads: %d of those frames, %d signal values, carplayd = cantools bit for bit on all but %d; "
        "frames not compared: %s; shipped DBCs cantools does not load: %s"
        % (
            cantools.__version__, totals["cantools_files"], totals["cantools_frames"], totals["cantools_values"],
            totals["cantools_disagreements"], reasons(excluded), reasons(cantools_refused),
        )
    )
    loaded = counts["shipped"][0] + counts["sources"][0]
    print("opendbc: %d passed, %d failed" % (loaded + totals["frames"] + totals["cantools_frames"], len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

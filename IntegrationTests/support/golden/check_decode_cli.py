#!/usr/bin/env python3
"""Compare `carplayctl dbc decode DBC < LOG` with cantools, frame by frame.

carplayctl writes one JSON object per frame line of the candump log:

    {"id":496,"name":"ExampleMessage","signals":{"Enable":"Disabled","AverageRadius":0.0}}
    {"id":496,"error":"..."}

For each frame this script computes what cantools says (the same log parser
as `cantools decode`, message lookup by frame id, Message.decode_simple with
decode_choices=True) and compares:

  - cantools decodes  -> carplayctl must give the same name and exactly the
                         same signals: choice names as strings, ints as JSON
                         integers, floats as JSON numbers with the identical
                         double (NaN/inf may be written as NaN/Infinity, null
                         or the strings "nan"/"inf"/"-inf");
  - cantools refuses  -> carplayctl must give {"error": ...} (text is only
                         compared with --compare-error-text).

cantools' strict mode: messages that `refresh(strict=True)` refuses
(overlapping / not fitting signals) are expected to be errors as well.
By default, like `cantools decode` without --no-strict, payloads longer than
the message are errors (allow_excess=False); --allow-excess flips that.

Usage:
    check_decode_cli.py --carplayctl PATH [--max-report N] DBC LOG
Prints mismatches and "N passed, N failed"; exit status 1 on any failure.
"""

from __future__ import annotations

import argparse
import io
import json
import math
import subprocess
import sys

import cantools
from cantools import logreader
from cantools.database import DecodeError
from cantools.database.namedsignalvalue import NamedSignalValue

NAN_SPELLINGS = {"nan", "NaN"}
INF_SPELLINGS = {"inf": math.inf, "Infinity": math.inf, "+inf": math.inf,
                 "-inf": -math.inf, "-Infinity": -math.inf}


def expected_for(db, strict_ok, frame_id, data, allow_excess):
    """(name, signals) or ("error", message)."""
    try:
        msg = db.get_message_by_frame_id(frame_id)
    except KeyError:
        return "error", f"Unknown frame id {frame_id} (0x{frame_id:x})"
    if msg.is_container:
        return "error", f"Frame 0x{frame_id:x} is a container message"
    if not strict_ok[msg.name]:
        return "error", f"message {msg.name} refused by cantools strict mode"
    try:
        decoded = msg.decode_simple(data, decode_choices=True,
                                    allow_truncated=False, allow_excess=allow_excess)
    except DecodeError as e:
        return "error", str(e)
    return msg.name, decoded


def same_value(want, got, loose_types):
    """None if equal, else a reason string."""
    if isinstance(want, NamedSignalValue) or isinstance(want, str):
        return None if got == str(want) else f"want choice {str(want)!r}, got {got!r}"
    if isinstance(want, bool) or isinstance(got, bool):
        return f"unexpected bool (want {want!r}, got {got!r})"
    if isinstance(want, int):
        if isinstance(got, int):
            return None if got == want else f"want int {want}, got {got}"
        if isinstance(got, float) and loose_types and got == want:
            return None
        return f"want int {want}, got {got!r} ({type(got).__name__})"
    if isinstance(want, float):
        if math.isnan(want):
            ok = (got is None or (isinstance(got, float) and math.isnan(got))
                  or got in NAN_SPELLINGS)
            return None if ok else f"want nan, got {got!r}"
        if math.isinf(want):
            if got is None:
                return None
            g = INF_SPELLINGS.get(got, got) if isinstance(got, str) else got
            return None if g == want else f"want {want}, got {got!r}"
        if isinstance(got, float):
            return None if got == want else f"want {want!r} ({want.hex()}), got {got!r} ({got.hex()})"
        if isinstance(got, int) and float(got) == want:
            # a JSON writer printed an integral double without ".0"
            return None if loose_types else f"want float {want!r}, got int {got}"
        return f"want float {want!r}, got {got!r}"
    return f"unsupported expected type {type(want).__name__}"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dbc")
    ap.add_argument("log")
    ap.add_argument("--carplayctl", required=True, help="path to the carplayctl binary")
    ap.add_argument("--allow-excess", action="store_true",
                    help="payloads longer than the message are decoded (cantools --no-strict)")
    ap.add_argument("--loose-types", action="store_true",
                    help="accept 5 for 5.0 and 5.0 for 5")
    ap.add_argument("--compare-error-text", action="store_true")
    ap.add_argument("--max-report", type=int, default=20)
    args = ap.parse_args(argv)

    db = cantools.database.load_file(args.dbc, strict=False)
    strict_ok = {}
    for msg in db.messages:
        try:
            msg.refresh(strict=True)
            strict_ok[msg.name] = True
        except Exception:  # noqa: BLE001
            strict_ok[msg.name] = False

    with open(args.log, "rb") as f:
        log_bytes = f.read()
    proc = subprocess.run([args.carplayctl, "dbc", "decode", args.dbc],
                          input=log_bytes, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          check=False)
    if proc.returncode != 0:
        print(f"carplayctl exited with status {proc.returncode}", file=sys.stderr)
        sys.stderr.write(proc.stderr.decode(errors="replace")[-2000:])
    out_lines = proc.stdout.decode("utf-8", errors="replace").splitlines()

    parser = logreader.Parser(io.StringIO(log_bytes.decode("utf-8", errors="replace")))
    frames = [(line, frame) for line, frame in parser.iterlines(keep_unknowns=True)
              if frame is not None]

    passed = failed = reported = 0

    def report(lineno, line, why):
        nonlocal reported
        if reported < args.max_report:
            print(f"MISMATCH frame {lineno}: {line.strip()}\n    {why}")
        reported += 1

    if len(out_lines) != len(frames):
        print(f"carplayctl printed {len(out_lines)} lines for {len(frames)} frames")
        failed += abs(len(out_lines) - len(frames))

    for i, ((line, frame), out) in enumerate(zip(frames, out_lines), 1):
        want_name, want = expected_for(db, strict_ok, frame.frame_id, frame.data,
                                       args.allow_excess)
        try:
            got = json.loads(out)
        except json.JSONDecodeError as e:
            failed += 1
            report(i, line, f"output is not JSON ({e}): {out[:200]}")
            continue
        problems = []
        if got.get("id") != frame.frame_id:
            problems.append(f"id: want {frame.frame_id}, got {got.get('id')!r}")
        if want_name == "error":
            if "error" not in got:
                problems.append(f"want error ({want}), got {out[:300]}")
            elif args.compare_error_text and got["error"] != want:
                problems.append(f"error text: want {want!r}, got {got['error']!r}")
        elif "error" in got:
            problems.append(f"want {want_name} decoded, got error {got['error']!r}")
        else:
            if got.get("name") != want_name:
                problems.append(f"name: want {want_name!r}, got {got.get('name')!r}")
            sigs = got.get("signals")
            if not isinstance(sigs, dict):
                problems.append("no 'signals' object")
            else:
                if set(sigs) != set(want):
                    problems.append(f"signal set: missing {sorted(set(want) - set(sigs))}, "
                                    f"extra {sorted(set(sigs) - set(want))}")
                for name, wv in want.items():
                    if name in sigs:
                        why = same_value(wv, sigs[name], args.loose_types)
                        if why:
                            problems.append(f"{name}: {why}")
        if problems:
            failed += 1
            report(i, line, "; ".join(problems))
        else:
            passed += 1

    if reported > args.max_report:
        print(f"... {reported - args.max_report} more mismatches not shown")
    if proc.returncode != 0:
        failed += 1
    print(f"{args.dbc}: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

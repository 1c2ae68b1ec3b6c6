#!/usr/bin/env python3
"""Writes a vehicle profile with N times the DBC messages and signals of a source
profile (default VehicleProfiles/sedan, N = 10), for the scaling benchmark.

Each copy k = 1..N-1 of every message gets a fresh 11-bit frame ID and the name
<Name>_X<k>; its signals, comments, attributes and value tables are copied with it.
The profile JSON is the source's, pointing at the new DBC: the bindings (and so the
intents) stay on the original messages, the copies are the rest of the car's traffic
description that carplayd parses, compiles and keeps in memory.

Usage: make_big_profile.py OUT_DIR [--source DIR] [--factor N]
"""
import argparse
import json
import os
import re
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--source", default=os.path.join(os.path.dirname(__file__), "..", "..", "VehicleProfiles", "sedan"))
    parser.add_argument("--factor", type=int, default=10)
    args = parser.parse_args()
    if args.factor < 1:
        sys.exit("make_big_profile.py: --factor must be >= 1")

    profile = json.load(open(os.path.join(args.source, "profile.json")))
    dbc_lines = open(os.path.join(args.source, profile["dbc"])).read().splitlines()

    # Message blocks: a BO_ line and the SG_ lines after it.
    messages = []  # (id, name, [lines])
    header, trailer = [], []
    current = None
    for line in dbc_lines:
        m = re.match(r"^BO_ (\d+) (\w+):", line)
        if m:
            current = (int(m.group(1)), m.group(2), [line])
            messages.append(current)
            continue
        if current is not None and line.startswith(" SG_"):
            current[2].append(line)
            continue
        if current is not None and line.strip() == "":
            current = None if messages else current
            continue
        (trailer if messages else header).append(line)
    if not messages:
        sys.exit(f"make_big_profile.py: no BO_ messages in {args.source}")

    used = {mid for mid, _, _ in messages}
    next_id = max(used) + 1
    id_map = {}  # (original id, k) -> new id
    for k in range(1, args.factor):
        for mid, _, _ in messages:
            while next_id in used:
                next_id += 1
            if next_id > 0x7FF:
                sys.exit("make_big_profile.py: out of 11-bit frame IDs; use a smaller --factor")
            id_map[(mid, k)] = next_id
            used.add(next_id)
            next_id += 1

    out = list(header)
    for k in range(0, args.factor):
        for mid, name, lines in messages:
            if k == 0:
                out.extend(lines)
            else:
                new_id = id_map[(mid, k)]
                out.append(re.sub(r"^BO_ \d+ (\w+):", f"BO_ {new_id} \\1_X{k}:", lines[0]))
                out.extend(lines[1:])
            out.append("")
    # Comments, attributes and value tables that name a message by ID: once per copy.
    by_id = re.compile(r"^(CM_ BO_ |CM_ SG_ |BA_ \"\w+\" BO_ |BA_ \"\w+\" SG_ |VAL_ )(\d+)( .*)$")
    extra = []
    for line in trailer:
        out.append(line)
        m = by_id.match(line)
        if m and int(m.group(2)) in {mid for mid, _, _ in messages}:
            for k in range(1, args.factor):
                extra.append(f"{m.group(1)}{id_map[(int(m.group(2)), k)]}{m.group(3)}")
    out.extend(extra)

    os.makedirs(args.out, exist_ok=True)
    dbc_name = f"big{args.factor}x.dbc"
    with open(os.path.join(args.out, dbc_name), "w") as f:
        f.write("\n".join(out) + "\n")
    profile["dbc"] = dbc_name
    profile["name"] = f"{profile['name']} ({args.factor}x DBC)"
    with open(os.path.join(args.out, "profile.json"), "w") as f:
        json.dump(profile, f, indent=2)
    signals = sum(len(lines) - 1 for _, _, lines in messages)
    print(f"{args.out}: {len(messages) * args.factor} messages, {signals * args.factor} signals "
          f"({len(messages)} and {signals} in {args.source})")


if __name__ == "__main__":
    main()

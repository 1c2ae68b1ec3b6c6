#!/usr/bin/env python3
"""Frames protected by opendbc's own packer, for every checksummed message opendbc knows.

For every DBC opendbc loads (its shipped files and the ones its generator builds), every
message with a checksum-typed signal (opendbc's own typing: CHECKSUM, or Tesla's
`...Checksum`) gets FRAMES frames packed by CANPacker from random signal values: the
checksum is opendbc's, the counter the packer's. FrameProtectionTests.OpendbcPackerVectors
recomputes each checksum with carplayd's scheme of that name and fails without this file.

Usage: opendbc_vectors.py --out FILE [--frames N] [--seed S]
"""

import argparse
import json
import os
import random
import sys

from opendbc.can.dbc import DBC
from opendbc.can.packer import CANPacker

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from opendbc_frames import SCHEMES, checksum_and_counter, packer_names, random_values  # noqa: E402


def field(sig):
    """A payload field as carplayd writes it: the DBC start bit, length, byte order."""
    return {"startBit": sig.start_bit, "length": sig.size, "byteOrder": "littleEndian" if sig.is_little_endian else "bigEndian"}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--frames", type=int, default=4)
    parser.add_argument("--seed", type=int, default=12)
    args = parser.parse_args()
    rng = random.Random(args.seed)

    names = packer_names()
    messages = []
    for name in names:
        dbc = DBC(name)
        packer = CANPacker(name)
        for message in dbc.msgs.values():
            checksum, counter = checksum_and_counter(message)
            if checksum is None:
                continue
            frames = []
            # Raw values unsigned, as this script always drew them: a seed packs the same frames.
            skip = {checksum.name} | ({counter.name} if counter else set())
            for _ in range(args.frames):
                values = random_values(message, rng, skip=skip, signed=False)
                _, data, _ = packer.make_can_msg(message.name, 0, values)
                frames.append(bytes(data).hex())
            messages.append({
                "scheme": SCHEMES[checksum.type], "dbc": name, "name": message.name,
                "frameID": message.address & 0x1FFFFFFF, "checksum": field(checksum),
                "counter": field(counter) if counter else None, "frames": frames,
            })
    with open(args.out, "w") as out:
        json.dump({"opendbc": "0.3.1", "messages": messages}, out)
    by_scheme = {}
    for message in messages:
        by_scheme[message["scheme"]] = by_scheme.get(message["scheme"], 0) + 1
    print("opendbc packer vectors: %d messages of %d DBCs, %d frames each (%s) -> %s" % (
        len(messages), len(names), args.frames, ", ".join("%s %d" % kv for kv in sorted(by_scheme.items())), args.out))


if __name__ == "__main__":
    main()

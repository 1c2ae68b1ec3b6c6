#!/usr/bin/env python3
"""AUTOSAR E2E vectors from the autosar-e2e package, for FrameProtectionTests.

For profiles 1 (every data-ID mode), 2 and 5, in the layouts autosar-e2e supports
(P1: CRC at byte `offset`, counter in the low nibble of the next byte, the nibble mode's
data-ID nibble in its high nibble; P2: CRC byte 0, counter low nibble of byte 1; P5: CRC
little-endian at `offset`, counter byte `offset + 2`), random payloads (fixed seed) are
protected by autosar-e2e and written as JSON:

  {"generator": ..., "autosar_e2e": "<version>", "seed": N,
   "configs": [{"profile": "autosar-p1" | "autosar-p2" | "autosar-p5",
                "dataID": int (P1, P5), "dataIDMode": "both"|"alt"|"low"|"nibble" (P1),
                "dataIDs": [16 ints] (P2), "length": bytes, "offset": header byte,
                "checksum": {"startBit", "length", "byteOrder"},   # DBC numbering
                "counter": {"startBit", "length", "byteOrder"},
                "vectors": [{"in": hex, "counter": int, "out": hex}, ...]}, ...]}

"in" is a random payload (garbage in the CRC and counter too); "out" is what autosar-e2e
makes of it with that counter: the counter written here (the package reads it from the
payload when increment_counter is false), then e2e_pXX_protect. Every "out" is checked
with e2e_pXX_check, and a copy with one other bit than a counter bit flipped must
fail it.

Usage: vectors.py --out FILE [--seed N] [--per-config N]
"""

import argparse
import json
import random
import sys
from importlib.metadata import version

from e2e import p01, p02, p05

P1_MODES = {
    "both": p01.E2E_P01_DATAID_BOTH,
    "alt": p01.E2E_P01_DATAID_ALT,
    "low": p01.E2E_P01_DATAID_LOW,
    "nibble": p01.E2E_P01_DATAID_NIBBLE,
}
# Classic CAN lengths and a few CAN FD ones.
LENGTHS = [2, 3, 4, 5, 6, 7, 8, 12, 16, 24, 32, 48, 64]


def field(start_byte, bit, length, byte_order):
    """A DBC field whose least significant bit is `bit` of byte `start_byte` (Intel), or
    the same bits as a Motorola signal (start bit = its most significant bit)."""
    if byte_order == "little_endian":
        return {"startBit": 8 * start_byte + bit, "length": length, "byteOrder": byte_order}
    assert bit + length <= 8, "Motorola fields here stay within one byte"
    return {"startBit": 8 * start_byte + bit + length - 1, "length": length, "byteOrder": byte_order}


def corrupted(rng, data, counter_byte):
    """`data` with one bit flipped, not a counter bit: a changed counter also selects
    another data-ID byte (P2) or data-ID byte (P1 alt), which a CRC-8 may not notice."""
    bad = bytearray(data)
    bit = rng.choice([b for b in range(8 * len(bad)) if not (b // 8 == counter_byte and b % 8 < 4)])
    bad[bit // 8] ^= 1 << (bit % 8)
    return bad


def p1_configs(rng, per_config):
    configs = []
    for mode_name, mode in P1_MODES.items():
        for length in LENGTHS:
            for offset in sorted({0, length - 2, rng.randrange(length - 1)}):
                data_id = rng.randrange(0x1000 if mode_name == "nibble" else 0x10000)
                order = rng.choice(["little_endian", "big_endian"])
                config = {
                    "profile": "autosar-p1", "dataID": data_id, "dataIDMode": mode_name,
                    "length": length, "offset": offset,
                    "checksum": field(offset, 0, 8, order),
                    "counter": field(offset + 1, 0, 4, order),
                    "vectors": [],
                }
                for index in range(per_config):
                    payload = bytearray(rng.randbytes(length))
                    counter = index % 15
                    data = bytearray(payload)
                    data[offset + 1] = (data[offset + 1] & 0xF0) | counter
                    p01.e2e_p01_protect(data, data_id, data_id_mode=mode, offset=offset, increment_counter=False)
                    assert p01.e2e_p01_check(data, data_id, data_id_mode=mode, offset=offset)
                    assert not p01.e2e_p01_check(corrupted(rng, data, offset + 1), data_id, data_id_mode=mode, offset=offset)
                    config["vectors"].append({"in": payload.hex(), "counter": counter, "out": data.hex()})
                configs.append(config)
    return configs


def p2_configs(rng, per_config):
    configs = []
    for length in LENGTHS:
        for _ in range(2):
            data_ids = list(rng.randbytes(16))
            order = rng.choice(["little_endian", "big_endian"])
            config = {
                "profile": "autosar-p2", "dataIDs": data_ids, "length": length, "offset": 0,
                "checksum": field(0, 0, 8, order),
                "counter": field(1, 0, 4, order),
                "vectors": [],
            }
            for index in range(per_config):
                payload = bytearray(rng.randbytes(length))
                counter = index % 16
                data = bytearray(payload)
                data[1] = (data[1] & 0xF0) | counter
                p02.e2e_p02_protect(data, bytes(data_ids), increment_counter=False)
                assert p02.e2e_p02_check(data, bytes(data_ids))
                assert not p02.e2e_p02_check(corrupted(rng, data, 1), bytes(data_ids))
                config["vectors"].append({"in": payload.hex(), "counter": counter, "out": data.hex()})
            configs.append(config)
    return configs


def p5_configs(rng, per_config):
    configs = []
    for length in LENGTHS:
        if length < 3:
            continue
        for offset in sorted({0, length - 3, rng.randrange(length - 2)}):
            data_id = rng.randrange(0x10000)
            counter_order = rng.choice(["little_endian", "big_endian"])
            config = {
                "profile": "autosar-p5", "dataID": data_id, "length": length, "offset": offset,
                # P5 stores the CRC low byte first: an Intel 16-bit signal.
                "checksum": {"startBit": 8 * offset, "length": 16, "byteOrder": "little_endian"},
                "counter": field(offset + 2, 0, 8, counter_order),
                "vectors": [],
            }
            for index in range(per_config):
                payload = bytearray(rng.randbytes(length))
                # Every counter value over the configs, with the wrap 255 -> 0 among them.
                counter = (index * 7 + rng.randrange(256)) % 256 if index else 255
                data = bytearray(payload)
                data[offset + 2] = counter
                p05.e2e_p05_protect(data, data_id, offset=offset, increment_counter=False)
                assert p05.e2e_p05_check(data, data_id, offset=offset)
                assert not p05.e2e_p05_check(corrupted(rng, data, -1), data_id, offset=offset)
                config["vectors"].append({"in": payload.hex(), "counter": counter, "out": data.hex()})
            configs.append(config)
    return configs


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--per-config", type=int, default=40)
    args = parser.parse_args()

    rng = random.Random(args.seed)
    configs = p1_configs(rng, args.per_config) + p2_configs(rng, args.per_config) + p5_configs(rng, args.per_config)
    document = {
        "generator": "IntegrationTests/support/protection/vectors.py",
        "autosar_e2e": version("autosar-e2e"),
        "seed": args.seed,
        "configs": configs,
    }
    with open(args.out, "w") as out:
        json.dump(document, out)
    counts = {}
    for config in configs:
        counts[config["profile"]] = counts.get(config["profile"], 0) + len(config["vectors"])
    summary = ", ".join(f"{profile} {count}" for profile, count in counts.items())
    print(f"protection vectors (autosar-e2e {document['autosar_e2e']}, seed {args.seed}): {summary} -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

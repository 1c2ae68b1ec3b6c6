#!/usr/bin/env python3
"""Write a `candump -L` log of random frames for the messages of one DBC.

    (1700000000.000000) vcan0 1F0#0123456789ABCDEF
    (1700000000.000100) vcan0 18FEF100#00112233       (extended: 8 hex digits)
    (1700000000.000200) vcan0 123##10011223344...     (CAN FD: ##<flags><data>)

Payloads are random bytes of each message's length; for multiplexed messages
the multiplexer bits are set to a valid id (so most frames decode, as on a
real bus). IDs are mixed uniformly over the messages. Deterministic per seed.

Usage: make_log.py [--frames N] [--seed S] [--iface vcan0] --out FILE DBC
"""

from __future__ import annotations

import argparse
import os
import random
import sys

import cantools
from cantools.database.utils import create_encode_decode_formats, encode_data

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "IntegrationTests", "support", "golden"))
from generate_vectors import mux_paths, mux_raw_candidates  # noqa: E402


def message_templates(db, rng):
    """Per message: (id text, fd flag, length, list of (mask, value) mux
    patterns as ints over the payload, big-endian)."""
    out = []
    for msg in db.messages:
        if msg.is_container:
            continue
        try:
            msg.refresh(strict=True)
        except Exception:  # noqa: BLE001 -- cantools strict mode refuses it
            continue
        n = msg.length
        idtxt = f"{msg.frame_id:08X}" if msg.is_extended_frame else f"{msg.frame_id:03X}"
        fd = bool(msg.is_fd) or n > 8
        patterns = []
        if msg.is_multiplexed() and n > 0:
            for path in mux_paths(msg, rng):
                raw, sigs = {}, []
                for name, mux_id in path:
                    if mux_id is None:
                        continue
                    sig = msg.get_signal_by_name(name)
                    cands = mux_raw_candidates(sig, mux_id)
                    if not cands:
                        raw = None
                        break
                    raw[name] = cands[0]
                    sigs.append(sig)
                if not raw:
                    continue
                order = {s.name: i for i, s in enumerate(msg.signals)}
                sigs.sort(key=lambda s: order[s.name])
                formats = create_encode_decode_formats(sigs, n)
                value = encode_data(raw, sigs, formats, scaling=False)
                patterns.append((formats.padding_mask, value))
        out.append((idtxt, fd, n, patterns))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dbc")
    ap.add_argument("--out", required=True)
    ap.add_argument("--frames", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--iface", default="vcan0")
    args = ap.parse_args(argv)

    rng = random.Random(f"{args.seed}:{os.path.basename(args.dbc)}")
    db = cantools.database.load_file(args.dbc, strict=False)
    templates = message_templates(db, rng)
    if not templates:
        sys.exit(f"make_log: {args.dbc}: no encodable messages")

    ts = 1_700_000_000_000_000  # microseconds
    tmp = args.out + ".tmp"
    with open(tmp, "w", encoding="ascii") as f:
        buf = []
        for i in range(args.frames):
            idtxt, fd, n, patterns = templates[rng.randrange(len(templates))]
            if n:
                v = rng.getrandbits(8 * n)
                if patterns:
                    mask, value = patterns[rng.randrange(len(patterns))]
                    v = (v & mask) | value
                data = v.to_bytes(n, "big").hex().upper()
            else:
                data = ""
            ts += rng.randrange(50, 500)
            stamp = f"({ts // 1_000_000}.{ts % 1_000_000:06d})"
            sep = "##0" if fd else "#"
            buf.append(f"{stamp} {args.iface} {idtxt}{sep}{data}\n")
            if len(buf) >= 10000:
                f.write("".join(buf))
                buf.clear()
        f.write("".join(buf))
    os.replace(tmp, args.out)
    print(f"make_log: {args.frames} frames, {len(templates)} messages -> {args.out}",
          file=sys.stderr)


if __name__ == "__main__":
    main()

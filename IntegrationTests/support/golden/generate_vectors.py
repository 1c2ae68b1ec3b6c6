#!/usr/bin/env python3
"""Generate golden decode/encode vectors for DBC files with cantools.

cantools is the reference implementation of DBC semantics for carplayd; the
Swift codec (CANKit) must reproduce these vectors bit for bit.

Usage:
    generate_vectors.py [--out DIR] [--seed N] [--frames K] DBC [DBC ...]

Writes DIR/<basename>.json per DBC (basename = file name without ".dbc").

File format (all values tagged so that ints, floats and choice names survive
JSON exactly):

    {"i": "123"}               Python int, decimal string (may exceed 64 bits)
    {"f": "0x1.8000000000000p+1"}  Python float as float.hex(); "nan", "inf", "-inf"
    {"c": "Name"}              a choice name (NamedSignalValue or str)

    {
      "dbc": "motohawk",
      "cantools_version": "45.1.0",
      "seed": 1,
      "frames": 40,
      "messages": [
        {"name": ..., "frame_id": 496, "extended": false, "length": 8,
         "is_fd": false, "multiplexed": false,
         "decode": [
            {"data": "<hex>", "choices": {SIG: V}, "raw": {SIG: V}},
            {"data": "<hex>", "error": "Wrong data size: 7 instead of 8 bytes"},
            ...],
         "encode": [
            {"input": {SIG: V}, "data": "<hex>"},
            {"input": {SIG: V}, "error": "...", "error_type": "EncodeError"},
            ...]}],
      "skipped": [{"name": ..., "frame_id": ..., "reason": ...}],
      "dropped": 0,
      "dropped_reasons": {"ValueError: cannot convert float NaN to integer": 3}
    }

    A decode vector where only one of the two decodes raised DecodeError has
    "choices" or "choices_error" and "raw" or "raw_error" instead of "error".

If the DBC fails to load: {"dbc": basename, "load_error": "<message>", ...}.

Decode vectors: "choices" is msg.decode(data) (decode_choices=True, scaling,
allow_truncated=False, allow_excess=True -- the cantools defaults), "raw" is
msg.decode(data, decode_choices=False). Encode vectors: msg.encode(input)
with scaling=True, padding=False, strict=True (the defaults).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import random
import struct
import sys
import time
from collections import Counter

import cantools
from cantools.database import DecodeError
from cantools.database.namedsignalvalue import NamedSignalValue
from cantools.database.utils import create_encode_decode_formats, encode_data

MAX_PATHS = 64  # multiplexer paths enumerated per message (sampled beyond)
UNKNOWN_CHOICE = "__carplayd_no_such_choice__"
UNKNOWN_SIGNAL = "__carplayd_no_such_signal__"


# ---------------------------------------------------------------- tagging

def tag(v):
    if isinstance(v, bool):
        raise TypeError("bool value in signal dictionary")
    if isinstance(v, NamedSignalValue):
        return {"c": v.name}
    if isinstance(v, str):
        return {"c": v}
    if isinstance(v, int):
        return {"i": str(v)}
    if isinstance(v, float):
        return {"f": float.hex(v)}
    raise TypeError(f"cannot tag value of type {type(v).__name__}: {v!r}")


def tag_dict(d):
    return {k: tag(v) for k, v in d.items()}


# ---------------------------------------------------------------- signal trees

def count_paths(tree) -> int:
    n = 1
    for node in tree:
        if isinstance(node, dict):
            (_, children), = node.items()
            n *= max(1, sum(count_paths(sub) for sub in children.values()))
    return n


def enumerate_paths(tree):
    """Yield every mux path of a signal tree as a list of (signal, mux_id|None)."""
    per_node = []
    for node in tree:
        if isinstance(node, str):
            per_node.append([[(node, None)]])
        else:
            (mux, children), = node.items()
            options = []
            for mux_id in sorted(children):
                for sub in enumerate_paths(children[mux_id]):
                    options.append([(mux, mux_id)] + sub)
            if not options:  # multiplexer without any ids
                options.append([(mux, None)])
            per_node.append(options)
    for combo in itertools.product(*per_node):
        yield [item for part in combo for item in part]


def random_path(tree, rng):
    out = []
    for node in tree:
        if isinstance(node, str):
            out.append((node, None))
        else:
            (mux, children), = node.items()
            if not children:
                out.append((mux, None))
                continue
            mux_id = rng.choice(sorted(children))
            out.append((mux, mux_id))
            out.extend(random_path(children[mux_id], rng))
    return out


def mux_paths(msg, rng):
    tree = msg.signal_tree
    if count_paths(tree) <= MAX_PATHS:
        return list(enumerate_paths(tree))
    seen, paths = set(), []
    for _ in range(MAX_PATHS * 4):
        p = random_path(tree, rng)
        key = tuple(p)
        if key not in seen:
            seen.add(key)
            paths.append(p)
        if len(paths) >= MAX_PATHS:
            break
    return paths


# ---------------------------------------------------------------- ranges

def raw_range(sig):
    if sig.is_signed:
        return -(1 << (sig.length - 1)), (1 << (sig.length - 1)) - 1
    return 0, (1 << sig.length) - 1


def raw_phys_range(sig):
    """Physical range representable by the signal's raw bits."""
    conv = sig.conversion
    if conv.is_float:
        return -1.0e6, 1.0e6  # arbitrary, keeps values sane for f32/f64
    rlo, rhi = raw_range(sig)
    a = conv.raw_to_scaled(rlo, decode_choices=False)
    b = conv.raw_to_scaled(rhi, decode_choices=False)
    return min(a, b), max(a, b)


def declared_range(sig):
    """[minimum, maximum] from the DBC, missing ends from the raw range."""
    dlo, dhi = raw_phys_range(sig)
    lo = sig.minimum if sig.minimum is not None else dlo
    hi = sig.maximum if sig.maximum is not None else dhi
    if lo > hi:
        lo, hi = hi, lo
    return lo, hi


def phys_range(sig):
    """Range to draw ordinary values from: the declared range intersected
    with what the raw bits can hold (many DBCs declare wider ranges than the
    signal's bits allow; those values are exercised separately)."""
    lo, hi = declared_range(sig)
    rlo, rhi = raw_phys_range(sig)
    ilo, ihi = max(lo, rlo), min(hi, rhi)
    if ilo <= ihi:
        return ilo, ihi
    return lo, hi


def fits(sig, raw) -> bool:
    lo, hi = raw_range(sig)
    return lo <= raw <= hi


def random_raw(sig, rng):
    if sig.conversion.is_float:
        if sig.length == 32:
            return struct.unpack("<f", rng.randbytes(4))[0]
        if sig.length == 64:
            return struct.unpack("<d", rng.randbytes(8))[0]
        return 0.0
    lo, hi = raw_range(sig)
    return rng.randint(lo, hi)


# ---------------------------------------------------------------- payloads

class PayloadBuilder:
    """Builds payloads with given raw values for some signals and random bits
    elsewhere, using cantools' own packing code."""

    def __init__(self, msg):
        self.msg = msg
        self.length = msg.length

    def build(self, raw_values: dict, rng) -> bytes:
        n = self.length
        if n == 0:
            return b""
        sigs = [self.msg.get_signal_by_name(name) for name in raw_values]
        # keep cantools' signal order (matters only for formats' layout)
        order = {s.name: i for i, s in enumerate(self.msg.signals)}
        sigs.sort(key=lambda s: order[s.name])
        formats = create_encode_decode_formats(sigs, n)
        packed = encode_data(raw_values, sigs, formats, scaling=False)
        noise = int.from_bytes(rng.randbytes(n), "big")
        value = (noise & formats.padding_mask) | packed
        return value.to_bytes(n, "big")


def mux_raw_candidates(sig, mux_id):
    """Raw values of a multiplexer signal that may select mux_id on decode
    (cantools selects with int(scaled value))."""
    cands = []
    if fits(sig, mux_id):
        cands.append(mux_id)
    conv = sig.conversion
    if conv.scale != 1 or conv.offset != 0:
        try:
            r = round((mux_id - conv.offset) / conv.scale)
            if fits(sig, r) and r not in cands:
                cands.append(r)
        except (ZeroDivisionError, ValueError, OverflowError):
            pass
    return cands


# ---------------------------------------------------------------- generators

class MessageVectors:
    def __init__(self, msg, rng, frames, dropped: Counter):
        self.msg = msg
        self.rng = rng
        self.frames = frames
        self.dropped = dropped
        self.builder = PayloadBuilder(msg)
        self.paths = mux_paths(msg, rng) if msg.is_multiplexed() else [
            [(s, None) for s in msg.signal_tree]]

    # ------------------------------------------------------------ decode

    def decode_one(self, data: bytes):
        msg = self.msg
        out = {"data": data.hex()}
        results = {}
        for key, dc in (("choices", True), ("raw", False)):
            try:
                results[key] = ("ok", tag_dict(msg.decode(data, decode_choices=dc)))
            except DecodeError as e:
                results[key] = ("error", str(e))
            except Exception as e:  # noqa: BLE001 -- cantools bug territory
                self.dropped[f"{type(e).__name__}: {e}"] += 1
                return None
        if results["choices"][0] == "error" and results["raw"][0] == "error":
            out["error"] = results["choices"][1]
            return out
        for key in ("choices", "raw"):
            kind, val = results[key]
            if kind == "ok":
                out[key] = val
            else:
                out[key + "_error"] = val
        return out

    def branch_payload(self, path):
        """Random payload whose multiplexers select the given path (or None
        when a multiplexer id cannot be represented in the raw bits)."""
        raw = {}
        for name, mux_id in path:
            if mux_id is None:
                continue
            cands = mux_raw_candidates(self.msg.get_signal_by_name(name), mux_id)
            if not cands:
                return None
            raw[name] = self.rng.choice(cands)
        return self.builder.build(raw, self.rng)

    def decode_vectors(self):
        msg, rng, n = self.msg, self.rng, msg_len(self.msg)
        payloads = []
        if n == 0:
            payloads.append(b"")
        else:
            payloads.append(bytes(n))
            payloads.append(b"\xff" * n)
            # mux branches: every (enumerated) path twice, then random paths
            # for half of the remaining budget, then fully random payloads
            if msg.is_multiplexed():
                for path in self.paths:
                    for _ in range(2):
                        p = self.branch_payload(path)
                        if p is not None:
                            payloads.append(p)
                extra = max(self.frames - len(payloads), self.frames // 2) // 2
                for _ in range(extra):
                    p = self.branch_payload(rng.choice(self.paths))
                    if p is not None:
                        payloads.append(p)
            want = max(self.frames - len(payloads), self.frames // 4)
            for _ in range(want):
                payloads.append(rng.randbytes(n))
            payloads.append(rng.randbytes(n - 1))      # too short -> error
            payloads.append(rng.randbytes(n + 1))      # too long -> excess ignored
        vecs = []
        for p in payloads:
            v = self.decode_one(p)
            if v is not None:
                vecs.append(v)
        return vecs

    # ------------------------------------------------------------ encode

    def signal_value(self, sig, mode=None):
        rng = self.rng
        conv = sig.conversion
        lo, hi = phys_range(sig)
        choices = conv.choices or {}
        r = rng.random() if mode is None else mode
        if r < 0.45:
            return lo + (hi - lo) * rng.random()                 # off-grid
        if r < 0.60 and not conv.is_float:                        # exact grid
            return self.grid_value(sig, lo, hi, 0.0)
        if r < 0.70 and not conv.is_float:                        # half grid
            return self.grid_value(sig, lo, hi, 0.5)
        if r < 0.82:                                              # Python int
            a, b = math.ceil(lo), math.floor(hi)
            if a <= b:
                return rng.randint(a, b)
            return lo + (hi - lo) * rng.random()
        if r < 0.95:                                              # choice name
            if choices:
                return str(rng.choice(list(choices.values())))
            return lo + (hi - lo) * rng.random()
        return rng.choice(declared_range(sig))                    # min/max

    def grid_value(self, sig, lo, hi, frac):
        conv = sig.conversion
        scale, offset = conv.scale, conv.offset
        try:
            ra = (lo - offset) / scale
            rb = (hi - offset) / scale
        except ZeroDivisionError:
            return lo
        ra, rb = min(ra, rb), max(ra, rb)
        a, b = math.ceil(ra), math.floor(rb)
        if a > b:
            return lo
        raw = self.rng.randint(a, b)
        if frac and raw + frac <= rb:
            return (raw + frac) * scale + offset
        return raw * scale + offset

    def mux_value(self, sig, mux_id):
        conv = sig.conversion
        choices = conv.choices or {}
        if mux_id in choices and self.rng.random() < 0.3:
            return str(choices[mux_id])
        if conv.scale == 1 and conv.offset == 0:
            return mux_id
        # int(scaled) must equal mux_id; give the physical value directly
        return mux_id if self.rng.random() < 0.5 else float(mux_id)

    def input_for(self, path):
        msg = self.msg
        data = {}
        for name, mux_id in path:
            sig = msg.get_signal_by_name(name)
            if mux_id is not None:
                data[name] = self.mux_value(sig, mux_id)
            else:
                data[name] = self.signal_value(sig)
        return data

    def encode_one(self, data):
        tagged = tag_dict(data)
        try:
            out = self.msg.encode(data)
            return {"input": tagged, "data": out.hex()}
        except Exception as e:  # noqa: BLE001 -- every failure is a vector
            return {"input": tagged, "error": str(e), "error_type": type(e).__name__}

    def encode_vectors(self):
        msg, rng = self.msg, self.rng
        vecs = []
        paths = self.paths
        if not msg.signals:
            vecs.append(self.encode_one({}))
            vecs.append(self.encode_one({UNKNOWN_SIGNAL: 1}))
            return vecs
        for i in range(self.frames):
            path = paths[i % len(paths)] if i < 2 * len(paths) else rng.choice(paths)
            vecs.append(self.encode_one(self.input_for(path)))
        # exact bounds for every signal of one path
        for path in paths[:4]:
            for which in (0, 1):
                d = self.input_for(path)
                for name, mux_id in path:
                    if mux_id is None:
                        lo, hi = declared_range(msg.get_signal_by_name(name))
                        d[name] = (lo, hi)[which]
                vecs.append(self.encode_one(d))
        # deliberately bad inputs
        path = rng.choice(paths)
        plain = [name for name, mux_id in path if mux_id is None]
        if plain:
            for name in plain[:3]:
                sig = msg.get_signal_by_name(name)
                lo, hi = declared_range(sig)
                step = abs(sig.conversion.scale) or 1.0
                d = self.input_for(path)
                d[name] = hi + step                       # beyond maximum
                vecs.append(self.encode_one(d))
                d = self.input_for(path)
                d[name] = lo - step                       # below minimum
                vecs.append(self.encode_one(d))
            name = rng.choice(plain)
            d = self.input_for(path)
            d[name] = UNKNOWN_CHOICE                      # unknown choice
            vecs.append(self.encode_one(d))
            d = self.input_for(path)
            d[name] = float("nan")                        # NaN
            vecs.append(self.encode_one(d))
            d = self.input_for(path)
            d[name] = float("inf")                        # inf
            vecs.append(self.encode_one(d))
        d = self.input_for(path)
        del d[rng.choice(list(d))]                        # missing signal
        vecs.append(self.encode_one(d))
        d = self.input_for(path)
        d[UNKNOWN_SIGNAL] = 1                             # extra signal
        vecs.append(self.encode_one(d))
        muxes = [(name, mux_id) for name, mux_id in path if mux_id is not None]
        if muxes:
            name, _ = rng.choice(muxes)
            sig = msg.get_signal_by_name(name)
            ids = set()
            for node in walk_mux_nodes(msg.signal_tree):
                if name in node:
                    ids.update(node[name].keys())
            rlo, rhi = raw_range(sig)
            bad = next((v for v in range(rlo, rhi + 1) if v not in ids), None)
            if bad is not None:
                d = self.input_for(path)
                d[name] = bad                             # invalid mux id
                vecs.append(self.encode_one(d))
        return vecs


def walk_mux_nodes(tree):
    for node in tree:
        if isinstance(node, dict):
            yield node
            for children in node.values():
                for sub in children.values():
                    yield from walk_mux_nodes(sub)


def msg_len(msg):
    return msg.length


# ---------------------------------------------------------------- per file

def strict_check(msg):
    """Return None if cantools' strict mode accepts the message, else the reason.

    Message.refresh() rebuilds codecs and signal tree deterministically from
    the signals, so calling it on the loaded message is equivalent to calling
    it on a deep copy."""
    try:
        msg.refresh(strict=True)
    except Exception as e:  # noqa: BLE001
        return f"{type(e).__name__}: {e}"
    return None


def generate(path, seed, frames):
    base = os.path.basename(path)
    if base.lower().endswith(".dbc"):
        base = base[:-4]
    doc = {"dbc": base, "cantools_version": cantools.__version__, "seed": seed,
           "frames": frames}
    try:
        db = cantools.database.load_file(path, strict=False)
    except Exception as e:  # noqa: BLE001
        doc["load_error"] = str(e)
        doc["load_error_type"] = type(e).__name__
        return doc
    messages, skipped = [], []
    dropped: Counter = Counter()
    for msg in db.messages:
        if msg.is_container:
            skipped.append({"name": msg.name, "frame_id": msg.frame_id,
                            "reason": "container message"})
            continue
        reason = strict_check(msg)
        if reason is not None:
            skipped.append({"name": msg.name, "frame_id": msg.frame_id, "reason": reason})
            continue
        rng = random.Random(f"{seed}:{base}:{msg.name}:{msg.frame_id}")
        gen = MessageVectors(msg, rng, frames, dropped)
        messages.append({
            "name": msg.name,
            "frame_id": msg.frame_id,
            "extended": bool(msg.is_extended_frame),
            "length": msg.length,
            "is_fd": bool(msg.is_fd),
            "multiplexed": bool(msg.is_multiplexed()),
            "decode": gen.decode_vectors(),
            "encode": gen.encode_vectors(),
        })
    doc["messages"] = messages
    doc["skipped"] = skipped
    doc["dropped"] = sum(dropped.values())
    doc["dropped_reasons"] = dict(sorted(dropped.items()))
    return doc


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dbc", nargs="+", help="DBC files")
    ap.add_argument("--out", required=True, help="output directory")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--frames", type=int, default=40,
                    help="random decode/encode vectors per message (default 40)")
    ap.add_argument("-q", "--quiet", action="store_true")
    args = ap.parse_args(argv)

    os.makedirs(args.out, exist_ok=True)
    t0 = time.monotonic()
    totals = Counter()
    names_seen = {}
    for path in args.dbc:
        doc = generate(path, args.seed, args.frames)
        base = doc["dbc"]
        if base in names_seen:
            sys.exit(f"error: {path} and {names_seen[base]} share the basename {base!r}")
        names_seen[base] = path
        out = os.path.join(args.out, base + ".json")
        tmp = out + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(doc, f, ensure_ascii=False, indent=None, separators=(",", ":"))
            f.write("\n")
        os.replace(tmp, out)
        if "load_error" in doc:
            totals["load_errors"] += 1
            if not args.quiet:
                print(f"{base}: load error: {doc['load_error']}")
            continue
        nd = sum(len(m["decode"]) for m in doc["messages"])
        ne = sum(len(m["encode"]) for m in doc["messages"])
        totals["files"] += 1
        totals["messages"] += len(doc["messages"])
        totals["skipped"] += len(doc["skipped"])
        totals["decode"] += nd
        totals["encode"] += ne
        totals["dropped"] += doc["dropped"]
        if not args.quiet:
            extra = f", {len(doc['skipped'])} skipped" if doc["skipped"] else ""
            extra += f", {doc['dropped']} dropped" if doc["dropped"] else ""
            print(f"{base}: {len(doc['messages'])} messages, {nd} decode, {ne} encode{extra}")
    dt = time.monotonic() - t0
    print(f"golden: {totals['files']} files ({totals['load_errors']} load errors), "
          f"{totals['messages']} messages ({totals['skipped']} skipped), "
          f"{totals['decode']} decode + {totals['encode']} encode vectors, "
          f"{totals['dropped']} dropped, {dt:.1f}s -> {args.out}")


if __name__ == "__main__":
    main()

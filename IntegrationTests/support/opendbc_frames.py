"""The pinned opendbc package's DBC files, and random signal values for its CANPacker.

Shared by opendbc_corpus.py (decoding against opendbc's parser and cantools) and
protection/opendbc_vectors.py (checksums against opendbc's packer), so both read the
same list of files and draw their values the same way.
"""

import glob
import os

import opendbc
from opendbc import get_generated_dbcs

DBC_DIR = os.path.join(os.path.dirname(opendbc.__file__), "dbc")


def shipped_paths():
    """The DBC files opendbc ships (opendbc/dbc/*.dbc), sorted."""
    return sorted(glob.glob(os.path.join(DBC_DIR, "*.dbc")))


def generator_sources():
    """The sources opendbc's generator builds from (opendbc/dbc/generator/**.dbc), sorted."""
    return sorted(glob.glob(os.path.join(DBC_DIR, "generator", "**", "*.dbc"), recursive=True))


def dbc_name(path):
    """The name opendbc's DBC, CANPacker and CANParser take for a file: no folder, no .dbc."""
    return os.path.splitext(os.path.basename(path))[0]


def packer_names():
    """Every name opendbc's packer knows: the shipped files and the ones its generator
    builds in memory (*_generated), sorted."""
    return sorted({dbc_name(path) for path in shipped_paths()} | set(get_generated_dbcs()))


def random_values(message, rng, skip=(), signed=True):
    """{signal: physical value} for opendbc's CANPacker.make_can_msg: a random raw value of
    each signal's full width, scaled. `message` is an opendbc.can.dbc.Msg; signals named in
    `skip` are left to the packer (its counter and checksum), and signals of more than 52
    bits too (a float carries no more). With `signed`, a raw value with the sign bit set
    becomes the negative number it is; without, it stays unsigned. The packer writes the
    same bits either way but for float rounding of the largest signals, so each caller
    keeps the form it always used and a seed keeps packing the same frames. One rng draw
    per signal, in the message's order.
    """
    values = {}
    for sig in message.sigs.values():
        if sig.name in skip or sig.size > 52:
            continue
        raw = rng.randrange(0, 1 << sig.size)
        if signed and sig.is_signed and raw >= 1 << (sig.size - 1):
            raw -= 1 << sig.size
        values[sig.name] = raw * sig.factor + sig.offset
    return values

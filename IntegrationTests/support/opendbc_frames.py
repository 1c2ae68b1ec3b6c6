"""The pinned opendbc package's DBC files, random signal values for its CANPacker, and
its checksum types by carplayd's scheme names.

Shared by opendbc_corpus.py (decoding against opendbc's parser and cantools),
protection/opendbc_vectors.py (checksums against opendbc's packer) and
intents/protection.py's self-test, so they read the same files, draw their values the
same way and name opendbc's checksums alike.
"""

import glob
import os

import opendbc
from opendbc import get_generated_dbcs
from opendbc.can.dbc import SignalType

DBC_DIR = os.path.join(os.path.dirname(opendbc.__file__), "dbc")

# opendbc's checksum types, by carplayd's scheme names (VehicleProfiles/README.md).
SCHEMES = {
    SignalType.HONDA_CHECKSUM: "honda",
    SignalType.TOYOTA_CHECKSUM: "toyota",
    SignalType.HKG_CAN_FD_CHECKSUM: "hkg-can-fd",
    SignalType.VOLKSWAGEN_MQB_MEB_CHECKSUM: "vw-mqb",
    SignalType.VOLKSWAGEN_MLB_CHECKSUM: "vw-mlb",
    SignalType.XOR_CHECKSUM: "xor",
    SignalType.SUBARU_CHECKSUM: "subaru",
    SignalType.CHRYSLER_CHECKSUM: "chrysler",
    SignalType.FCA_GIORGIO_CHECKSUM: "fca-giorgio",
    SignalType.BODY_CHECKSUM: "body",
    SignalType.TESLA_CHECKSUM: "tesla",
    SignalType.PSA_CHECKSUM: "psa",
}


def checksum_and_counter(message):
    """An opendbc.can.dbc.Msg's checksum signal (opendbc's own typing: CHECKSUM, or Tesla's
    `...Checksum`) and counter signal, each None when it has none."""
    checksum = next((s for s in message.sigs.values() if s.type in SCHEMES), None)
    counter = next((s for s in message.sigs.values() if s.type == SignalType.COUNTER or s.name == "COUNTER"), None)
    # vw_mqb's Getriebe_11 names it COUNTER_DISABLED (the packer leaves it alone; its CRC
    # still covers it, and carplayd's vw-mqb reads its data ID by it).
    counter = counter or next((s for s in message.sigs.values() if s.name.startswith("COUNTER")), None)
    return checksum, counter


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

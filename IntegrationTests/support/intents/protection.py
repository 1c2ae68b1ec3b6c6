#!/usr/bin/env python3
"""Frame protection schemes of vehicle profiles, checked from outside the Swift code.

One `Protection` per profile: `check(message, payload)` answers None when a frame of a
cantools `message` is protected as its profile entry says, else what is wrong. The
schemes (VehicleProfiles/README.md, `messages.<M>.protection`):

- `none` (or no entry): nothing;
- `carplayd-e2e`: what IntegrationTests/support/carplay_e2e.py checks -- CRC-8 SAE
  J1850 over the data ID (low, high) and the payload without the CRC byte; the alive
  counter 0...14;
- `counter`: the counter signal moves on by 1 modulo 2^bits from one frame of the
  message to the next;
- `vw-mqb`: CRC-8H2F (polynomial 0x2F, init 0xFF, final XOR 0xFF) over the payload
  after the checksum byte, continued with the data-ID byte `dataIDs[counter]`; the
  counter moves on by 1 modulo 2^bits; `autosar-p2` is checked the same way (opendbc
  tests the VW MQB frames as "AUTOSAR E2E Profile 2 CRCs");
- `honda`: 4-bit sum of the frame ID's nibbles and the payload's nibbles (the low
  nibble of the last byte, where the checksum is, left out), 8 minus that, plus 3 for
  an extended ID; the optional counter moves on by 1 modulo 2^bits;
- `toyota`: 8-bit sum of the frame ID's bytes, the length and every payload byte but
  the last (the checksum's).

`autosar-p1` and `autosar-p5` are not checked: a frame of such a message is reported
as a problem ("not checked here") rather than passed unseen.

The vw-mqb, honda and toyota algorithms follow the facts published in commaai/opendbc
(`opendbc/car/crc.py`, `opendbc/car/volkswagen/mqbcan.py`,
`opendbc/car/honda/hondacan.py`, `opendbc/car/toyota/toyotacan.py`, commit
7343a66d46213d5f73528afc6c6db713ebd88a9d); the code here is written anew.
`python3 protection.py --self-test` checks it against opendbc's sample frames.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import carplay_e2e  # noqa: E402

SCHEMES = ("none", "carplayd-e2e", "counter", "vw-mqb", "autosar-p2", "honda", "toyota")


# ----- algorithms (pure functions on bytes) ---------------------------------------------

def crc8(data, poly, init, xor_out):
    """MSB-first CRC-8 without reflection."""
    crc = init
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = ((crc << 1) ^ poly) & 0xFF if crc & 0x80 else (crc << 1) & 0xFF
    return crc ^ xor_out


def vw_mqb_checksum(payload, checksum_byte, data_id):
    """CRC-8H2F over the bytes after the checksum byte, then the counter's data-ID byte."""
    return crc8(bytes(payload[checksum_byte + 1:]) + bytes([data_id]), 0x2F, 0xFF, 0xFF)


def honda_checksum(frame_id, payload):
    total = 0
    identifier = frame_id
    while identifier:
        total += identifier & 0xF
        identifier >>= 4
    for index, byte in enumerate(payload):
        if index == len(payload) - 1:
            byte >>= 4          # the checksum's own nibble does not count
        total += (byte & 0xF) + (byte >> 4)
    total = 8 - total
    if frame_id > 0x7FF:
        total += 3
    return total & 0xF


def toyota_checksum(frame_id, payload):
    total = len(payload)
    identifier = frame_id
    while identifier:
        total += identifier & 0xFF
        identifier >>= 8
    total += sum(payload[:-1])
    return total & 0xFF


# ----- per-profile checker ---------------------------------------------------------------

def entries(profile):
    """The profile's protection entries (`messages.<M>.protection`) by message name."""
    return {name: settings["protection"] for name, settings in profile.get("messages", {}).items() if "protection" in settings}


class Protection:
    """Checks frames against a profile's protection entries, message by message.

    Stateful: the counter of each message is compared with the one of the previous
    frame of that message given to `check`.
    """

    def __init__(self, entries):
        self.entries = entries
        self.last_counter = {}

    def check(self, message, payload):
        entry = self.entries.get(message.name)
        scheme = (entry or {}).get("scheme", "none")
        if scheme == "none":
            return None
        payload = bytes(payload[: message.length])
        raw = message.decode(payload, decode_choices=False, scaling=False)
        name = message.name
        if scheme == carplay_e2e.SCHEME:
            if not carplay_e2e.trusted(message, entry, payload):
                return "%s: CRC 0x%02X, expected 0x%02X" % (
                    name, payload[carplay_e2e.crc_byte(message, entry)], carplay_e2e.expected_crc(message, entry, payload))
            if not 0 <= raw[entry["counter"]] <= 14:
                return "%s: alive counter %d outside 0..14" % (name, raw[entry["counter"]])
            return None
        if scheme in ("vw-mqb", "autosar-p2"):
            counter = raw[entry["counter"]]
            data_ids = entry["dataIDs"]
            if not 0 <= counter < len(data_ids):
                return "%s: counter %d has no data ID (%d given)" % (name, counter, len(data_ids))
            checksum_byte = message.get_signal_by_name(entry["checksum"]).start // 8
            expected = vw_mqb_checksum(payload, checksum_byte, data_ids[counter])
            if raw[entry["checksum"]] != expected:
                return "%s: %s checksum 0x%02X, expected 0x%02X (counter %d)" % (name, scheme, raw[entry["checksum"]], expected, counter)
        elif scheme == "honda":
            expected = honda_checksum(message.frame_id, payload)
            if raw[entry["checksum"]] != expected:
                return "%s: honda checksum 0x%X, expected 0x%X" % (name, raw[entry["checksum"]], expected)
        elif scheme == "toyota":
            expected = toyota_checksum(message.frame_id, payload)
            if raw[entry["checksum"]] != expected:
                return "%s: toyota checksum 0x%02X, expected 0x%02X" % (name, raw[entry["checksum"]], expected)
        elif scheme != "counter":
            return "%s: protection scheme %r is not checked here (known: %s)" % (name, scheme, ", ".join(SCHEMES))
        if entry.get("counter"):
            return self._counter_moves_on(message, entry["counter"], raw[entry["counter"]])
        return None

    def _counter_moves_on(self, message, signal_name, counter):
        bits = message.get_signal_by_name(signal_name).length
        previous = self.last_counter.get(message.name)
        self.last_counter[message.name] = counter
        if previous is not None and counter != (previous + 1) % (1 << bits):
            return "%s: counter %s went %d -> %d, expected %d" % (
                message.name, signal_name, previous, counter, (previous + 1) % (1 << bits))
        return None


# ----- self-test -------------------------------------------------------------------------

# Sample frames and data IDs copied from commaai/opendbc at commit
# 7343a66d46213d5f73528afc6c6db713ebd88a9d, MIT licence (Copyright (c) 2020, Comma.ai, Inc.;
# the full notice is in VehicleProfiles/hyundai-mcan/LICENSE.opendbc):
# - frames: opendbc/can/tests/test_checksums.py, test_volkswagen_mqb_crc_* (known-good
#   frames recorded from cars, one per counter value);
# - data IDs: opendbc/car/volkswagen/mqbcan.py, VOLKSWAGEN_MQB_MEB_CONSTANTS.
# Checksum in byte 0, counter in the low nibble of byte 1.
VW_MQB_SAMPLES = [
    ("LWI_01", 0x86, [0x86] * 16, [
        "6B00BD0000000000", "EE010A0000000000", "D802A90000000000", "0303BEA212000000",
        "7B04312003000000", "8B05E28509000000", "6306132100000000", "6607050000000000",
        "49080D0000000000", "5F097E6001000000", "AF0A722000000000", "590B1B0000000000",
        "A80C060000000000", "BC0D722000000000", "F90E0F0000000000", "600F62C000000000"]),
    ("Airbag_01", 0x40, [0x40] * 16, [
        "AF000080C000203E", "54010080C000201A", "54020080C0006000", "31030080C00060F2",
        "E0040080C00060CC", "B3050080C00040DE", "A4060080C0004018", "94070080C0002038",
        "2D080080C00060AE", "C2090080C000001C", "1F0A0080C000602C", "7F0B0080C0000000",
        "030C0080C00040D6", "560D0080C0002050", "4A0E0080C00020F2", "E50F0080C00040F6"]),
    ("ESP_21", 0xFD, [0xB4, 0xEF, 0xF8, 0x49, 0x1E, 0xE5, 0xC2, 0xC0,
                      0x97, 0x19, 0x3C, 0xC9, 0xF1, 0x98, 0xD6, 0x61], [
        "66D01F8045050000", "87D11F8052050000", "CDD21F8050060000", "FDD31F8035020000",
        "FAD41F8022050000", "FDD51F8084040000", "2ED61F80F0030000", "9FD71F8000000000",
        "1ED81F80B3030000", "61D91F806D050000", "44DA1F8047020000", "86DB1F803A020000",
        "39DC1F80CB010000", "19DD1F8000000000", "8CDE1F80BA040000", "FBDF1F8046000000"]),
    ("GRA_ACC_01", 0x12B, [0x6A, 0x38, 0xB4, 0x27, 0x22, 0xEF, 0xE1, 0xBB,
                           0xF8, 0x80, 0x84, 0x49, 0xC7, 0x9E, 0x1E, 0x2B], [
        "8640802A00000000", "F441802A00000000", "5042802A00000000", "0843802A00000000",
        "8844802A00000000", "2D45802A00000000", "3446802A00000000", "1147802A00000000",
        "C448802A00000000", "CC49802A00000000", "DC4A802A00000000", "794B802A00000000",
        "3C4C802A00000000", "684D802A00000000", "274E802A00000000", "0D4F802A00000000"]),
    ("Klemmen_Status_01", 0x3C0, [0xC3] * 16, [
        "74000300", "C1010300", "31020300", "84030300", "FE040300", "4B050300", "BB060300", "0E070300",
        "4F080300", "FA090300", "0A0A0300", "BF0B0300", "C50C0300", "700D0300", "800E0300", "350F0300"]),
    ("Licht_Anf_01", 0x3D5, [0xC5, 0x39, 0xC7, 0xF9, 0x92, 0xD8, 0x24, 0xCE,
                             0xF1, 0xB5, 0x7A, 0xC4, 0xBC, 0x60, 0xE3, 0xD1], [
        "C800000400000000", "9F01000400000000", "5E02000400000000", "5203000400000000",
        "F204000400000000", "7905000400000000", "E606000400000000", "FD07000400000000",
        "F808000400000000", "C609000400000000", "F50A000400000000", "1A0B000400000000",
        "650C000400000000", "410D000400000000", "7F0E000400000000", "980F000400000000"]),
]

# Honda, from opendbc/can/tests/test_checksums.py test_honda_checksum (same commit and
# licence): LKAS_HUD (0x33D) and LKAS_HUD_A (0x33DA, extended) packed with LKAS_READY,
# LKAS_STATE_CHANGE, STEERING_REQUIRED and SOLID_LANES = 1, COUNTER 0...3, have the
# CHECKSUM 11, 10, 9, 8 and 4, 3, 2, 1. The frames below are those values laid out as
# opendbc/dbc/generator/honda/_lkas_hud_5byte.dbc and _bosch_2018.dbc place them (5 bytes,
# Motorola: LKAS_READY bit 0, LKAS_STATE_CHANGE bit 6, STEERING_REQUIRED bit 8, SOLID_LANES
# bit 10, COUNTER bits 37-36, CHECKSUM bits 35-32 = low nibble of the last byte); the
# test gives the checksums, not the bytes.
HONDA_SAMPLES = [
    (0x33D, "410500000B"), (0x33D, "410500001A"), (0x33D, "4105000029"), (0x33D, "4105000038"),
    (0x33DA, "4105000004"), (0x33DA, "4105000013"), (0x33DA, "4105000022"), (0x33DA, "4105000031"),
]

# Toyota, from opendbc/can/tests/test_packer_parser.py test_allow_undefined_msgs (same
# commit and licence): toyota_nodsu_pt_generated ACC_CONTROL packed from nothing is
# (835, b'\x00\x00\x00\x00\x00\x00\x00N'): checksum 0x4E in the last byte.
TOYOTA_SAMPLES = [(835, "000000000000004E")]


def self_test():
    failures = 0
    checked = 0
    for name, frame_id, data_ids, frames in VW_MQB_SAMPLES:
        for text in frames:
            payload = bytes.fromhex(text)
            counter = payload[1] & 0x0F
            got = vw_mqb_checksum(payload, 0, data_ids[counter])
            checked += 1
            if got != payload[0]:
                failures += 1
                print("FAIL vw-mqb %s 0x%X#%s: computed 0x%02X" % (name, frame_id, text, got))
            # a flipped bit must be noticed
            damaged = bytearray(payload)
            damaged[-1] ^= 0x01
            if vw_mqb_checksum(damaged, 0, data_ids[counter]) == payload[0]:
                failures += 1
                print("FAIL vw-mqb %s 0x%X#%s: a flipped bit keeps the checksum" % (name, frame_id, text))
    for frame_id, text in HONDA_SAMPLES:
        payload = bytes.fromhex(text)
        got = honda_checksum(frame_id, payload)
        checked += 1
        if got != payload[-1] & 0xF:
            failures += 1
            print("FAIL honda 0x%X#%s: computed 0x%X" % (frame_id, text, got))
    for frame_id, text in TOYOTA_SAMPLES:
        payload = bytes.fromhex(text)
        got = toyota_checksum(frame_id, payload)
        checked += 1
        if got != payload[-1]:
            failures += 1
            print("FAIL toyota 0x%X#%s: computed 0x%02X" % (frame_id, text, got))
    try:
        import cantools  # noqa: F401
    except ImportError:
        print("cantools is not installed: the Protection class is not exercised (the venv's python has it)")
    else:
        failures += _self_test_checker()
    print("protection self-test: %d sample frames, %d failures" % (checked, failures))
    return 1 if failures else 0


def _self_test_checker():
    """The Protection class on a message built in memory (cantools), sample frames and a few broken ones."""
    import cantools
    failures = 0
    dbc = """VERSION ""
BS_:
BU_: XXX
BO_ 981 Licht_Anf_01: 8 XXX
 SG_ CHECKSUM : 0|8@1+ (1,0) [0|255] "" XXX
 SG_ COUNTER : 8|4@1+ (1,0) [0|15] "" XXX
 SG_ Rest : 12|52@1+ (1,0) [0|0] "" XXX
BO_ 829 LKAS_HUD: 5 XXX
 SG_ CHECKSUM : 35|4@0+ (1,0) [0|15] "" XXX
 SG_ COUNTER : 37|2@0+ (1,0) [0|3] "" XXX
BO_ 835 ACC_CONTROL: 8 XXX
 SG_ CHECKSUM : 63|8@0+ (1,0) [0|255] "" XXX
BO_ 900 Counted: 8 XXX
 SG_ Count : 16|8@1+ (1,0) [0|255] "" XXX
"""
    db = cantools.database.load_string(dbc, strict=False)
    licht = next(s for s in VW_MQB_SAMPLES if s[0] == "Licht_Anf_01")
    protection = Protection({
        "Licht_Anf_01": {"scheme": "vw-mqb", "checksum": "CHECKSUM", "counter": "COUNTER", "dataIDs": licht[2]},
        "LKAS_HUD": {"scheme": "honda", "checksum": "CHECKSUM", "counter": "COUNTER"},
        "ACC_CONTROL": {"scheme": "toyota", "checksum": "CHECKSUM"},
        "Counted": {"scheme": "counter", "counter": "Count"},
    })

    def expect(message_name, text, ok):
        nonlocal failures
        problem = protection.check(db.get_message_by_name(message_name), bytes.fromhex(text))
        if (problem is None) != ok:
            failures += 1
            print("FAIL checker %s %s: %s" % (message_name, text, problem or "accepted, expected a problem"))

    for text in licht[3]:
        expect("Licht_Anf_01", text, True)
    expect("Licht_Anf_01", "C800000400000000", True)       # 15 -> 0 wraps
    expect("Licht_Anf_01", "C800000400000000", False)      # repeated counter
    expect("Licht_Anf_01", "5E02000400000001", False)      # wrong checksum
    for frame_id, text in HONDA_SAMPLES[:4]:
        expect("LKAS_HUD", text, True)
    expect("LKAS_HUD", "410500000C", False)                # counter 0 after 3 fine, checksum wrong
    expect("ACC_CONTROL", TOYOTA_SAMPLES[0][1], True)
    expect("ACC_CONTROL", "000000000000004F", False)
    expect("Counted", "0000FE0000000000", True)
    expect("Counted", "0000FF0000000000", True)
    expect("Counted", "0000000000000000", True)            # 255 -> 0 wraps
    expect("Counted", "0000020000000000", False)           # skipped one
    return failures


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    print("usage: protection.py --self-test", file=sys.stderr)
    sys.exit(2)

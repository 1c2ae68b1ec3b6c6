"""The profiles' E2E protection in Python, for the test and benchmark peers.

CRC-8 SAE J1850 over the data ID (low byte, high byte) and every payload byte but the
CRC's own; the CRC signal is a byte-aligned 8-bit signal (`start // 8` is its byte in
either byte order). Written from docs/CAN.md, independently of the Swift code.

A `config` is a profile's `messages.<M>.protection` entry of scheme `carplayd-e2e`:
{"scheme": "carplayd-e2e", "dataID": N, "checksum": SIGNAL, "counter": SIGNAL}.
"""

SCHEME = "carplayd-e2e"


def entries(profile):
    """The profile's carplayd-e2e entries by message name. The peers that use this module
    protect nothing else, so another scheme is an error rather than frames sent unprotected."""
    out = {}
    for name, settings in profile.get("messages", {}).items():
        entry = settings.get("protection", {"scheme": "none"})
        if entry["scheme"] == "none":
            continue
        if entry["scheme"] != SCHEME:
            raise ValueError("messages[%r].protection: scheme %r; this peer knows only %s" % (name, entry["scheme"], SCHEME))
        out[name] = entry
    return out


def crc8_j1850(data):
    crc = 0xFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1D) & 0xFF if crc & 0x80 else (crc << 1) & 0xFF
    return crc ^ 0xFF


def crc_byte(message, config):
    """Index of the CRC byte of `message` under its E2E `config`."""
    return message.get_signal_by_name(config["checksum"]).start // 8


def expected_crc(message, config, payload):
    """The CRC `payload` should carry (its CRC byte is ignored)."""
    index = crc_byte(message, config)
    data_id = config["dataID"]
    covered = bytes([data_id & 0xFF, (data_id >> 8) & 0xFF]) + bytes(b for i, b in enumerate(payload) if i != index)
    return crc8_j1850(covered)


def protect(message, config, payload):
    """Writes the CRC into `payload` (a bytearray) in place."""
    payload[crc_byte(message, config)] = expected_crc(message, config, payload)


def trusted(message, config, data):
    """True when the frame's CRC is right (only the message's own length counts)."""
    payload = data[: message.length]
    return expected_crc(message, config, payload) == payload[crc_byte(message, config)]

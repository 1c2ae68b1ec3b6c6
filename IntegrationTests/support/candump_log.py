"""A candump -L log of a profile's status frames, encoded with cantools from its DBC and
E2E-protected as the profile says (carplay_e2e): what a recorded drive looks like, for
the replay tests (`carplayd --replay`, `carplay-ecu --replay`)."""

import json
import sys
from pathlib import Path

import cantools

sys.path.insert(0, str(Path(__file__).resolve().parent))
import carplay_e2e  # noqa: E402


def status_messages(profile_dir):
    profile = json.loads((Path(profile_dir) / "profile.json").read_text())
    names = sorted({b["status"]["message"] for b in profile["bindings"].values() if "status" in b})
    return profile, names


def write_status_log(path, profile_dir, phases, interval=0.1, start=1700000000.0, interface="can0"):
    """Writes `phases`: a list of (cycles, {message: {signal: value}}); each cycle sends
    every status message once (signals not given: 0, or their minimum), `interval` apart,
    alive counters running 0...14 per message across the whole log. Returns the lines."""
    profile = json.loads((Path(profile_dir) / "profile.json").read_text())
    dbc = next(Path(profile_dir).glob("*.dbc"))
    db = cantools.database.load_file(str(dbc), strict=False)
    _, names = status_messages(profile_dir)
    e2e = carplay_e2e.entries(profile)
    counters = {name: 0 for name in names}
    lines = []
    t = start
    for cycles, overrides in phases:
        for _ in range(cycles):
            for index, name in enumerate(names):
                message = db.get_message_by_name(name)
                values = {}
                for signal in message.signals:
                    values[signal.name] = signal.minimum if signal.minimum is not None else 0
                values.update(overrides.get(name, {}))
                config = e2e.get(name)
                if config:
                    values[config["counter"]] = counters[name]
                    counters[name] = (counters[name] + 1) % 15
                    values[config["checksum"]] = 0
                payload = bytearray(message.encode(values, strict=False, scaling=True))
                if config:
                    carplay_e2e.protect(message, config, payload)
                lines.append("(%.6f) %s %03X#%s" % (t + index * 0.001, interface, message.frame_id, payload.hex().upper()))
            t += interval
    Path(path).write_text("\n".join(lines) + "\n")
    return lines


# The sedan before and after: what the replay tests drive the daemon to.
SEDAN_BEFORE = {
    "ClimateStatus": {"TargetTempLeft": 21, "TargetTempRight": 21, "Fan": 1, "FanSpeed": 3, "ClimateControl": 1, "CabinTemperature": 22},
    "BodyStatus": {"Lock": 0},
    "PowerStatus": {"FuelLevel": 40, "DistanceRemaining": 300},
    "SeatStatus": {"HeatFrontLeft": 0},
}
SEDAN_AFTER = {
    "ClimateStatus": {"TargetTempLeft": 18.5, "TargetTempRight": 21, "Fan": 1, "FanSpeed": 3, "ClimateControl": 1, "CabinTemperature": 22},
    "BodyStatus": {"Lock": 1},
    "PowerStatus": {"FuelLevel": 33, "DistanceRemaining": 250},
    "SeatStatus": {"HeatFrontLeft": 2},
}
EXPECTED_AFTER = {"climate.temperature.left": 18.5, "lock.locked": True, "power.fuelPercent": 33, "power.distanceRemaining": 250,
                  "seat.frontLeft.heating": 2}

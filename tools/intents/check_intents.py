#!/usr/bin/env python3
"""Every intent on a vehicle profile, checked from outside with cantools.

Runs `carplayctl perform --simulate PROFILE_DIR INTENT_JSON` for a scenario per
intent (built from the profile's own capabilities, so nothing is hard-coded per
car) and checks, independently of the Swift code:

- the response code;
- each command frame the intent sent, decoded by cantools with the profile's DBC,
  carries the commanded value in the bound command signal (and only "no request"
  in command signals of other properties);
- the E2E CRC (CRC-8 SAE J1850 over data ID low, high, payload without the CRC
  byte) and the alive counter of every command and status frame;
- the vehicle state printed afterwards shows the commanded value.

Prints one line per scenario and `N passed, N failed`; exits 1 on any failure.
"""

import argparse
import json
import math
import subprocess
import sys
from pathlib import Path

import cantools

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import carplay_e2e  # noqa: E402


def parse_log_line(line):
    # (1700000000.000100) vcan0 123#DEADBEEF   or   123##1DEADBEEF
    _, _, frame = line.split(" ", 2)
    ident, _, data = frame.partition("#")
    if data.startswith("#"):
        data = data[2:]
    return int(ident, 16), bytes.fromhex(data)


class Vehicle:
    def __init__(self, directory):
        self.directory = Path(directory)
        self.profile = json.loads((self.directory / "profile.json").read_text())
        self.db = cantools.database.load_file(str(self.directory / self.profile["dbc"]), strict=True)
        self.bindings = self.profile["bindings"]
        self.e2e = self.profile.get("e2e", {})

    def message(self, name):
        return self.db.get_message_by_name(name)

    def signal(self, message, signal):
        return self.message(message).get_signal_by_name(signal)

    def check_e2e(self, frame_id, data):
        """None when the frame's E2E is right (or the message is unprotected)."""
        try:
            message = self.db.get_message_by_frame_id(frame_id)
        except KeyError:
            return "frame 0x%X is not in the DBC" % frame_id
        config = self.e2e.get(message.name)
        if config is None:
            return None
        payload = data[: message.length]
        decoded = message.decode(payload, decode_choices=False)
        if not carplay_e2e.trusted(message, config, payload):
            return "%s: CRC 0x%02X, expected 0x%02X" % (
                message.name, payload[carplay_e2e.crc_byte(message, config)], carplay_e2e.expected_crc(message, config, payload))
        if not 0 <= decoded[config["counter"]] <= 14:
            return "%s: alive counter %d outside 0..14" % (message.name, decoded[config["counter"]])
        return None

    def to_signal(self, key, value, expected):
        """The DBC value (choice name or number) that carries a state value."""
        values = self.bindings[key].get("values", {})
        signal_unit = self.bindings[key].get("signalUnit")
        if key == "radio.frequency" and signal_unit:
            band = next(b for b in self.profile["radio"]["bands"] if b["type"] == expected["radio.band"])
            khz = {"kHz": 1, "MHz": 1000}
            return value * khz[band["unit"]] / khz[signal_unit]
        if isinstance(value, bool):
            return values.get("true" if value else "false", 1 if value else 0)
        if isinstance(value, str):
            return values[value]
        return value


def same(a, b):
    if isinstance(a, str) or isinstance(b, str):
        return str(a) == str(b)
    return math.isclose(float(a), float(b), rel_tol=1e-6, abs_tol=1e-6)


def scenarios(vehicle):
    """(name, intent json, expected response code, {property: value} commanded)."""
    p = vehicle.profile
    out = []
    climate = p.get("climate")
    if climate:
        zone = climate["zones"][0]
        seat = zone["seats"][0]
        c = climate["temperature"]["celsius"]
        target = c["min"] + c["step"] * round(((c["max"] - c["min"]) / 2) / c["step"])
        out.append(("climate temperature", {"intent": "SetClimateSettingsInCar", "parameters": {
            "temperature": {"value": target, "unit": "celsius"}, "climateZone": seat}},
            "success", {"climate.temperature.%s" % zone["id"]: target}))
        if climate.get("fanSpeedLevels", 0) >= 2:
            out.append(("climate fan", {"intent": "SetClimateSettingsInCar", "parameters": {"fanSpeedIndex": 2}},
                        "success", {"climate.fanSpeed": 2}))
        if climate.get("airConditioner"):
            out.append(("climate A/C off", {"intent": "SetClimateSettingsInCar", "parameters": {"enableAirConditioner": False}},
                        "success", {"climate.airConditioner": False}))
        if climate.get("recirculation"):
            out.append(("climate recirculation", {"intent": "SetClimateSettingsInCar", "parameters": {"airCirculationMode": "recirculateAir"}},
                        "success", {"climate.airCirculation": "recirculateAir"}))
    for defroster in p.get("defrosters", []):
        out.append(("defroster %s" % defroster, {"intent": "SetDefrosterSettingsInCar", "parameters": {"enable": True, "defroster": defroster}},
                    "success", {"defroster.%s" % defroster: True}))
    for seat in p.get("seats", []):
        for feature in ("heating", "cooling", "massage"):
            level = seat.get(feature, 0)
            if level:
                enable = "enable" + feature.capitalize()
                out.append(("seat %s %s" % (seat["seat"], feature), {"intent": "SetSeatSettingsInCar", "parameters": {
                    enable: True, "seat": seat["seat"], "level": level}},
                    "success", {"seat.%s.%s" % (seat["seat"], feature): level}))
    sources = p.get("audioSources", [])
    if len(sources) >= 2:
        out.append(("audio source", {"intent": "SetAudioSourceInCar", "parameters": {"audioSource": sources[1]}},
                    "success", {"audio.source": sources[1]}))
    radio = p.get("radio")
    if radio:
        for band in radio["bands"]:
            if band["type"] in ("satellite", "DAB"):
                channel = int(band["min"]) + 1
                code = "failureNotSubscribed" if band["type"] == "satellite" and not radio.get("satelliteSubscribed", True) else "success"
                expected = {"radio.band": band["type"], "radio.channel": channel} if code == "success" else {}
                out.append(("radio %s" % band["type"], {"intent": "SetRadioStation", "parameters": {
                    "radioType": band["type"], "channel": str(channel)}}, code, expected))
            else:
                frequency = band["min"] + band["step"] * 3
                frequency = round(frequency, 3)
                out.append(("radio %s" % band["type"], {"intent": "SetRadioStation", "parameters": {
                    "radioType": band["type"], "frequency": frequency}},
                    "success", {"radio.band": band["type"], "radio.frequency": frequency}))
    if p.get("lock"):
        out.append(("lock", {"intent": "SetCarLockStatus", "parameters": {"locked": True}}, "success", {"lock.locked": True}))
        out.append(("lock status", {"intent": "GetCarLockStatus", "parameters": {}}, "success", {}))
    signals = p.get("carSignals", [])
    if signals:
        out.append(("signal", {"intent": "ActivateCarSignal", "parameters": {"signals": signals}}, "success",
                    {"signal.%s" % s: True for s in signals}))
    out.append(("power level", {"intent": "GetCarPowerLevelStatus", "parameters": {}}, "success", {}))
    if p.get("profileSlots", 0) >= 2:
        expected = {"profile.active": 2} if "profile.active" in vehicle.bindings else {}
        out.append(("save profile", {"intent": "SaveProfileInCar", "parameters": {"profileNumber": 2, "profileName": "Alex"}},
                    "success", expected))
        # SetProfileInCar restores settings saved earlier (given with --car-profiles).
        restored = {}
        if climate and climate.get("fanSpeedLevels", 0) >= 3:
            restored["climate.fanSpeed"] = 3
        if len(sources) >= 3:
            restored["audio.source"] = sources[2]
        saved = [{"slot": 2, "name": "Alex", "settings": restored}]
        expected = dict(restored)
        if "profile.active" in vehicle.bindings:
            expected["profile.active"] = 2
        out.append(("set profile", {"intent": "SetProfileInCar", "parameters": {"profileName": "alex"}},
                    "success", expected, ["--car-profiles", json.dumps(saved)]))
    return out


def run(carplayctl, vehicle, intent, extra):
    result = subprocess.run([carplayctl, "perform", "--simulate", str(vehicle.directory), json.dumps(intent)] + extra,
                            capture_output=True, text=True, timeout=60)
    try:
        return json.loads(result.stdout), result
    except json.JSONDecodeError:
        return None, result


def check(carplayctl, vehicle, name, intent, code, expected, extra=()):
    output, process = run(carplayctl, vehicle, intent, list(extra))
    if output is None:
        return "no JSON on stdout (exit %d): %s" % (process.returncode, process.stderr.strip()[:300])
    response = output["response"]
    if response["code"] != code:
        return "response %s, expected %s: %s" % (response["code"], code, json.dumps(response)[:300])
    frames = [parse_log_line(line) for line in output["frames"]]
    for frame_id, data in frames:
        problem = vehicle.check_e2e(frame_id, data)
        if problem:
            return "E2E: " + problem
    for key, value in expected.items():
        binding = vehicle.bindings[key]
        command = binding["command"]
        message = vehicle.message(command["message"])
        sent = [data for frame_id, data in frames if frame_id == message.frame_id]
        if not sent:
            return "no %s frame among %d frames for %s" % (message.name, len(frames), key)
        decoded = message.decode(sent[0][: message.length])
        want = vehicle.to_signal(key, value, expected)
        if not same(decoded[command["signal"]], want):
            return "%s.%s = %r (cantools), expected %r for %s" % (message.name, command["signal"], decoded[command["signal"]], want, key)
        state = output["state"].get(key)
        if state is None or not same(state, value):
            return "state %s = %r, expected %r" % (key, state, value)
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--carplayctl", required=True)
    parser.add_argument("profiles", nargs="+")
    args = parser.parse_args()
    passed = failed = 0
    for directory in args.profiles:
        vehicle = Vehicle(directory)
        for scenario in scenarios(vehicle):
            name = scenario[0]
            problem = check(args.carplayctl, vehicle, *scenario)
            label = "%s: %s" % (vehicle.directory.name, name)
            if problem:
                failed += 1
                print("FAIL %s: %s" % (label, problem))
            else:
                passed += 1
                print("ok   %s" % label)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Every intent on a vehicle profile, checked from outside with cantools.

Runs `carplayctl perform --simulate PROFILE_DIR INTENT_JSON` for a scenario per
intent (built from the profile's own capabilities, so nothing is hard-coded per
car) and checks, independently of the Swift code (VehicleProfiles/README.md):

- the response code; a property bound without a command (read-only) or not bound at all
  (a fan without levels), or a value a
  momentary command has no request for, makes the intent answer `failure`/`notResolved`
  with a parameter resolved `unsupported`, sends no command frame and leaves the state as
  it was;
- the command frames, decoded by cantools with the profile's DBC (plus the profile's
  `messages.<M>.choices`) and compared raw:
  - setpoint: the first frame of the message carries the commanded value through the
    binding's mapping (`values`: the first raw of the entry; `unit`; `linear`;
    `signalUnit`), later frames that value or the idle;
  - momentary: one press -- the request value held `holdFrames` frames, then a frame
    with the signal back at its idle;
  - toggle: such a press when the state before differs from the target, else no frame;
  - step: |target - start| / step presses of `up` (or `down`), at most maxSteps, each
    held `holdFrames` frames and followed by a release, none the other way;
  - every other signal of the message at its idle: the idle of a setpoint binding that
    has one (setpoints without idle are not checked), else `messages.<M>.defaults`, a
    `NoRequest` choice, the DBC's GenSigStartValue, or 0;
  - no frame of a command message that no commanded property uses;
  - what an intent sets besides its scenario's property (docs/INTENTS.md: a fan speed
    sets the fan on, seat heating sets cooling 0 and the other way round, a station
    sets the radio source) is checked like the property itself where it has a command;
- the protection of every frame (IntegrationTests/support/intents/protection.py: carplayd-e2e, counter,
  vw-mqb, autosar-p2, every opendbc vendor checksum through opendbc's own functions, and
  `declared`);
- the last status frame of each commanded property, read through the status mapping,
  and the vehicle state printed afterwards show the commanded value (numbers within
  the status signal's resolution when a unit or linear mapping converts them).

"The state before" is what the simulated vehicle prints for an intent that changes
nothing (GetCarPowerLevelStatus), read once per profile. The scenarios include every
climate zone, fan off, auto mode, climate control (the whole car's, and each climate
control zone's own through a seat it serves) and each value a momentary command
cannot set. A profile that `carplayctl profile check` refuses is one FAIL line. DBCs
that cantools refuses in strict mode (overlapping signals in production files) are
read non-strict; the two bends of opendbc's files that cantools refuses in any mode are
read as carplayd reads them (`cantools_readable`).

Prints one line per scenario and `N passed, N failed`; exits 1 on any failure.
"""

import argparse
import json
import math
import re
import subprocess
import sys
import time
from pathlib import Path

import cantools
from cantools.database.namedsignalvalue import NamedSignalValue

sys.path.insert(0, str(Path(__file__).resolve().parent))
import protection  # noqa: E402

FAHRENHEIT = ("fahrenheit", 9 / 5, 32)     # signal = property * f + o (property in °C)
MILES = ("mi", 1 / 1.609344, 0)            # property in km
KHZ = {"kHz": 1, "MHz": 1000}


def parse_log_line(line):
    # (1700000000.000100) vcan0 123#DEADBEEF   or   123##1DEADBEEF
    _, _, frame = line.split(" ", 2)
    ident, _, data = frame.partition("#")
    if data.startswith("#"):
        data = data[2:]
    return int(ident, 16), bytes.fromhex(data)


def value_key(value):
    """A property value as the keys of `values` tables spell it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def same(a, b):
    if isinstance(a, str) or isinstance(b, str):
        return str(a) == str(b)
    return math.isclose(float(a), float(b), rel_tol=1e-6, abs_tol=1e-6)


def cantools_readable(text):
    """The DBC text with the two bends of opendbc's files that cantools refuses outright
    (in strict mode or not) read as carplayd reads them, each with a warning (docs/CLI.md,
    "Reading a DBC"), in memory: the files stay as published.

    - `CM_ 145 "..."` (hyundai_kia_generic.dbc), a message comment without `BO_`: a
      syntax error to cantools, `CM_ BO_ 145 "..."` to carplayd;
    - `VAL_ 568 UI_mapSpeedLimit ...;` (tesla_can.dbc), a value table for a signal its
      message does not have: "unused VAL_ entries" to cantools, ignored by carplayd.
    """
    text = re.sub(r'^CM_ (\d+) "', r'CM_ BO_ \1 "', text, flags=re.MULTILINE)
    signals, message = set(), None
    for line in text.splitlines():
        words = line.split()
        if len(words) > 2 and words[0] == "BO_":
            message = words[1]
        elif len(words) > 1 and words[0] == "SG_":
            signals.add((message, words[1]))
    return re.sub(r'^VAL_ (\d+) (\w+) .*;[ \t]*\r?\n?',
                  lambda m: m.group(0) if (m.group(1), m.group(2)) in signals else "", text, flags=re.MULTILINE)


class Vehicle:
    def __init__(self, directory):
        self.directory = Path(directory)
        self.profile = json.loads((self.directory / "profile.json").read_text())
        text = cantools_readable((self.directory / self.profile["dbc"]).read_text(encoding="cp1252"))
        try:
            self.db = cantools.database.load_string(text, database_format="dbc", strict=True)
        except cantools.database.UnsupportedDatabaseFormatError:
            # production DBCs (vw_mqb.dbc) have overlapping signals in messages no profile uses
            self.db = cantools.database.load_string(text, database_format="dbc", strict=False)
        self.bindings = self.profile["bindings"]
        self.settings = self.profile.get("messages", {})
        for message_name, table in self.settings.items():
            for signal_name, choices in table.get("choices", {}).items():
                signal = self.signal(message_name, signal_name)
                known = dict(signal.choices or {})
                for raw, name in choices.items():
                    known.setdefault(int(raw), NamedSignalValue(int(raw), name))
                signal.choices = known
        self.protection_entries = protection.entries(self.profile)
        self.initial = None

    def message(self, name):
        return self.db.get_message_by_name(name)

    def signal(self, message, signal):
        return self.message(message).get_signal_by_name(signal)

    # ----- the binding model -----

    def command(self, key):
        """The binding's command with its `kind` (setpoint when not given), None when read-only (or unbound)."""
        command = self.bindings.get(key, {}).get("command")
        return None if command is None else dict({"kind": "setpoint"}, **command)

    def status(self, key):
        return self.bindings.get(key, {}).get("status")

    def read_only(self, key):
        return key in self.bindings and self.command(key) is None

    def refused(self, key, value):
        """Why setting `key` to `value` must resolve unsupported, or None.

        Read-only (bound without a command), unbound (a fan without levels may be left
        out), or a momentary command without a request for that value ("a momentary
        command may set only some values").
        """
        if self.read_only(key):
            return "read-only %s" % key
        if key not in self.bindings:
            return "%s is not bound" % key
        command = self.command(key) or {}
        if command.get("kind") == "momentary" and value_key(value) not in command["requests"]:
            return "%s = %s has no momentary request" % (key, value_key(value))
        return None

    def protected_signals(self, message_name):
        entry = self.protection_entries.get(message_name) or {}
        return {entry.get("checksum"), entry.get("counter")} - {None}

    # ----- raw values -----

    def raw(self, message_name, signal_name, spec):
        """A choice name or raw integer as the signal's raw value."""
        if isinstance(spec, str):
            signal = self.signal(message_name, signal_name)
            for raw, name in (signal.choices or {}).items():
                if str(name) == spec:
                    return int(raw)
            raise KeyError("%s.%s has no choice %r" % (message_name, signal_name, spec))
        return int(spec)

    def idle_raw(self, message_name, signal_name):
        """An unbound or released signal: messages.M.defaults, NoRequest, GenSigStartValue, 0."""
        defaults = self.settings.get(message_name, {}).get("defaults", {})
        if signal_name in defaults:
            return self.raw(message_name, signal_name, defaults[signal_name])
        signal = self.signal(message_name, signal_name)
        for raw, name in (signal.choices or {}).items():
            if str(name) == "NoRequest":
                return int(raw)
        if signal.raw_initial is not None:
            return int(signal.raw_initial)
        return 0

    def physical(self, key, mapping, value, expected):
        """(physical signal value, converted?) for a numeric property value."""
        if isinstance(value, bool):
            return (1 if value else 0), False
        signal_unit = self.bindings[key].get("signalUnit")
        if key == "radio.frequency" and signal_unit:
            band = next(b for b in self.profile["radio"]["bands"] if b["type"] == expected["radio.band"])
            return value * KHZ[band["unit"]] / KHZ[signal_unit], True
        unit = mapping.get("unit")
        if unit == "fahrenheit":
            return value * FAHRENHEIT[1] + FAHRENHEIT[2], True
        if unit == "mi":
            return value * MILES[1], True
        if "linear" in mapping:
            linear = mapping["linear"]
            return (value - linear.get("offset", 0)) / linear["factor"], True
        return value, False

    def table(self, message_name, signal_name, mapping):
        """{value key: [raw, ...]} of a mapping's `values`."""
        out = {}
        for text, entry in mapping.get("values", {}).items():
            items = entry if isinstance(entry, list) else [entry]
            out[text] = [self.raw(message_name, signal_name, item) for item in items]
        return out

    def expect(self, key, side, value, expected, is_status):
        """A predicate on the raw value of `side`'s signal for `value`, and its description.

        `side` is a setpoint command or a status; a command sends the first raw of a
        `values` entry, a status may show any of them (or anything outside the table for
        `otherwise`).
        """
        message_name, signal_name = side["message"], side["signal"]
        signal = self.signal(message_name, signal_name)
        table = self.table(message_name, signal_name, side)
        invalid = {self.raw(message_name, signal_name, item) for item in side.get("invalid", [])}
        text = value_key(value)
        if text in table:
            raws = table[text] if is_status else table[text][:1]
            return (lambda raw: raw in raws), "raw %s" % "/".join(map(str, raws))
        if is_status and "otherwise" in side and value_key(side["otherwise"]) == text:
            listed = {raw for raws in table.values() for raw in raws} | invalid
            return (lambda raw: raw not in listed), "raw outside %s" % sorted(listed)
        if isinstance(value, str):
            raw = self.raw(message_name, signal_name, value)   # a case the table leaves out: a choice of that name
            return (lambda got: got == raw), "raw %d" % raw
        phys, converted = self.physical(key, side, value, expected)
        exact = (phys - signal.offset) / signal.scale
        # a converted value lands on the signal's grid: within its resolution (1 raw step)
        tolerance = 1 - 1e-9 if converted else 1e-6 * max(1, abs(exact))
        return ((lambda raw: raw not in invalid and abs(raw - exact) <= tolerance),
                "raw %g (%g%s)" % (round(exact, 3), phys, " " + signal.unit if signal.unit else ""))

    def state_tolerance(self, key, value):
        """How far the printed state may be from a numeric target: the status signal's resolution."""
        status = self.status(key)
        if status is None or isinstance(value, (bool, str)):
            return None
        scale = abs(self.signal(status["message"], status["signal"]).scale)
        if status.get("unit") == "fahrenheit":
            return scale / FAHRENHEIT[1] + 1e-9
        if status.get("unit") == "mi":
            return scale / MILES[1] + 1e-9
        if "linear" in status:
            return scale * abs(status["linear"]["factor"]) + 1e-9
        return None

    def command_messages(self):
        return {c["message"] for c in (self.command(k) for k in self.bindings) if c}

    def is_idle_frame(self, message_name, data):
        """Whether a frame of a command message requests nothing: every signal a binding
        commands (setpoint, request, companion) at its idle raw value. A setpoint without
        an idle value always carries one, so its frames are never idle."""
        message = self.message(message_name)
        raws = decode_raw(message, data)
        for key in self.bindings:
            command = self.command(key)
            if not command or command["message"] != message_name:
                continue
            if command["kind"] == "setpoint":
                if "idle" not in command:
                    return False
                for signal in command.get("signals") or [command["signal"]]:
                    if raws[signal] != self.raw(message_name, signal, command["idle"]):
                        return False
            else:
                requests = (list(command["requests"].values()) if command["kind"] == "momentary"
                            else [command[d] for d in ("up", "down")] if command["kind"] == "step" else [command])
                for request in requests:
                    if raws[request["signal"]] != self.idle_raw(message_name, request["signal"]):
                        return False
            for companion in command.get("with", {}):
                if raws[companion] != self.idle_raw(message_name, companion):
                    return False
        return True

    def without_cyclic_idle(self, message_name, frames):
        """A cyclic command message (`send: cyclic`) goes out idle between commands: its
        idle frames before the first one that requests something are not the command's."""
        if self.settings.get(message_name, {}).get("send") != "cyclic":
            return frames
        for index, data in enumerate(frames):
            if not self.is_idle_frame(message_name, data):
                return frames[index:]
        return []

    def step_size(self, key, command):
        if "step" in command:
            return command["step"]
        if key.startswith("climate.temperature."):
            return self.profile["climate"]["temperature"]["celsius"]["step"]
        return 1

    def max_steps(self, key, command):
        if "maxSteps" in command:
            return command["maxSteps"]
        step = self.step_size(key, command)
        if key.startswith("climate.temperature."):
            c = self.profile["climate"]["temperature"]["celsius"]
            return round((c["max"] - c["min"]) / step) + 1
        if key == "climate.fanSpeed":
            return round((self.profile["climate"]["fanSpeedLevels"] - 1) / step) + 1
        if key.startswith("seat."):
            seat, feature = key.split(".")[1:]
            level = next(s for s in self.profile["seats"] if s["seat"] == seat).get(feature, 0)
            return round(level / step) + 1
        return None


def scenarios(vehicle, carplayctl):
    """(name, intent json, expected response code, {property: value} commanded[, extra args])."""
    p = vehicle.profile
    initial = initial_state(vehicle, carplayctl)
    out = []

    def flipped(key, default):
        """A boolean target differing from the state before where the command can ask for it."""
        command = vehicle.command(key) or {}
        candidates = [not initial[key], initial[key]] if isinstance(initial.get(key), bool) else [default]
        if command.get("kind") == "momentary":
            candidates = [c for c in candidates if value_key(c) in command["requests"]] or candidates
        return candidates[0]

    climate = p.get("climate")
    if climate:
        # every climate capability stands alone: no zones, no temperature
        zones = climate.get("zones", [])
        if zones:
            c = climate["temperature"]["celsius"]
            target = c["min"] + c["step"] * round(((c["max"] - c["min"]) / 2) / c["step"])
        for zone in zones:
            key = "climate.temperature.%s" % zone["id"]
            zone_target = target
            if initial.get(key) is not None and same(initial[key], target):
                zone_target = target + c["step"]       # a step scenario that presses nothing checks nothing
            out.append(("climate temperature %s" % zone["id"], {"intent": "SetClimateSettingsInCar", "parameters": {
                "temperature": {"value": zone_target, "unit": "celsius"}, "climateZone": zone["seats"][0]}},
                "success", {key: zone_target}))
        if climate.get("fanSpeedLevels", 0) >= 2:
            out.append(("climate fan", {"intent": "SetClimateSettingsInCar", "parameters": {"fanSpeedIndex": 2}},
                        "success", {"climate.fanSpeed": 2}))
        out.append(("climate fan off", {"intent": "SetClimateSettingsInCar", "parameters": {"enableFan": False}},
                    "success", {"climate.fan": False}))
        if climate.get("airConditioner"):
            out.append(("climate A/C off", {"intent": "SetClimateSettingsInCar", "parameters": {"enableAirConditioner": False}},
                        "success", {"climate.airConditioner": False}))
        if climate.get("autoMode"):
            value = flipped("climate.autoMode", True)
            out.append(("climate auto %s" % value_key(value), {"intent": "SetClimateSettingsInCar", "parameters": {
                "enableAutoMode": value}}, "success", {"climate.autoMode": value}))
        if climate.get("climateControl"):
            value = flipped("climate.climateControl", False)
            out.append(("climate control %s" % value_key(value), {"intent": "SetClimateSettingsInCar", "parameters": {
                "enableClimateControl": value}}, "success", {"climate.climateControl": value}))
        # a climate control zone's own switch, through a seat it serves (climateZone)
        for zone in climate.get("climateControlZones", []):
            key = "climate.climateControl.%s" % zone["id"]
            value = flipped(key, False)
            out.append(("climate control %s %s" % (zone["id"], value_key(value)), intent_for(key, value, p), "success", {key: value}))
        if climate.get("recirculation"):
            out.append(("climate recirculation", {"intent": "SetClimateSettingsInCar", "parameters": {"airCirculationMode": "recirculateAir"}},
                        "success", {"climate.airCirculation": "recirculateAir"}))
    # a momentary command may leave values without a request: those must be refused
    domains = {"climate.airConditioner": [True, False], "climate.autoMode": [True, False],
               "climate.climateControl": [True, False], "climate.fan": [True, False],
               "climate.airCirculation": ["freshAir", "recirculateAir"], "lock.locked": [True, False]}
    domains.update({"defroster.%s" % d: [True, False] for d in p.get("defrosters", [])})
    domains.update({"climate.climateControl.%s" % z["id"]: [True, False] for z in (climate or {}).get("climateControlZones", [])})
    for key, domain in sorted(domains.items()):
        command = vehicle.command(key) or {}
        if command.get("kind") != "momentary":
            continue
        for value in domain:
            if value_key(value) not in command["requests"]:
                out.append(("%s %s (no request)" % (key, value_key(value)), intent_for(key, value, p), "failure", {key: value}))
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
    power = p.get("power", {})
    # INTENTS.md: a car that reports no power reading (neither fuel nor battery, and no
    # power.* binding: a range alone counts) resolves carName unsupported
    reports = power.get("fuel") or power.get("battery") or any(k.startswith("power.") for k in p.get("bindings", {}))
    out.append(("power level", {"intent": "GetCarPowerLevelStatus", "parameters": {}}, "success" if reports else "failure", {}))
    if p.get("profileSlots", 0) >= 2:
        # INTENTS.md: saving sends nothing; `profile.active` selects a slot, a recall on a real car
        out.append(("save profile", {"intent": "SaveProfileInCar", "parameters": {"profileNumber": 2, "profileName": "Alex"}},
                    "success", {}))
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


def intent_for(key, value, profile):
    """The intent that sets one switch-like property of `profile`."""
    climate = {"climate.airConditioner": "enableAirConditioner", "climate.autoMode": "enableAutoMode",
               "climate.climateControl": "enableClimateControl", "climate.fan": "enableFan",
               "climate.airCirculation": "airCirculationMode"}
    if key in climate:
        return {"intent": "SetClimateSettingsInCar", "parameters": {climate[key]: value}}
    if key.startswith("climate.climateControl."):
        # the zone's first seat: climateZone selects its switch alone
        zones = profile.get("climate", {}).get("climateControlZones", [])
        zone = next(z for z in zones if "climate.climateControl.%s" % z["id"] == key)
        return {"intent": "SetClimateSettingsInCar", "parameters": {"enableClimateControl": value, "climateZone": zone["seats"][0]}}
    if key.startswith("defroster."):
        return {"intent": "SetDefrosterSettingsInCar", "parameters": {"enable": value, "defroster": key.split(".")[1]}}
    if key == "lock.locked":
        return {"intent": "SetCarLockStatus", "parameters": {"locked": value}}
    raise KeyError(key)


def carplayctl_run(arguments):
    for attempt in range(5):
        try:
            return subprocess.run(arguments, capture_output=True, text=True, timeout=60)
        except OSError:          # "text file busy" while carplayctl is being rebuilt
            if attempt == 4:
                raise
            time.sleep(3)


def run(carplayctl, vehicle, intent, extra):
    result = carplayctl_run([carplayctl, "perform", "--simulate", str(vehicle.directory), json.dumps(intent)] + extra)
    try:
        return json.loads(result.stdout), result
    except json.JSONDecodeError:
        return None, result


def initial_state(vehicle, carplayctl):
    """The state the simulated vehicle starts from: what an intent that changes nothing prints."""
    if vehicle.initial is None:
        output, _ = run(carplayctl, vehicle, {"intent": "GetCarPowerLevelStatus", "parameters": {}}, [])
        vehicle.initial = (output or {}).get("state", {})
    return vehicle.initial


# ----- frame checks ------------------------------------------------------------------------

def decode_raw(message, data):
    """Every signal's raw value. A message with overlapping signals (GMLAN's group signals
    over a value and its validity bit) cantools cannot decode as a whole even when not
    strict: each signal is then decoded on its own, as a receiver reads it."""
    data = bytes(data[: message.length])
    try:
        return message.decode(data, decode_choices=False, scaling=False)
    except cantools.database.errors.DecodeError:
        raws = {}
        for signal in message.signals:
            formats = cantools.database.utils.create_encode_decode_formats([signal], message.length)
            raws.update(cantools.database.utils.decode_data(data, message.length, [signal], formats, False, False, True, True))
        return raws


def presses(values, request, idle, hold, what):
    """Runs of `request` in a signal's raw values, each `hold` long and followed by `idle`.

    Returns (number of presses, problem or None).
    """
    count = 0
    index = 0
    while index < len(values):
        if values[index] != request:
            index += 1
            continue
        start = index
        while index < len(values) and values[index] == request:
            index += 1
        count += 1
        if index - start != hold:
            return count, "%s held %d frames, expected holdFrames %d" % (what, index - start, hold)
        if index == len(values):
            return count, "%s: no release frame after the press" % what
        if values[index] != idle:
            return count, "%s released to raw %d, expected the idle %d" % (what, values[index], idle)
    return count, None


def check_message(vehicle, message, frames, active, initial, expected):
    """The frames of one command message against the properties `active` commands in it."""
    name = message.name
    protected = vehicle.protected_signals(name)
    roles = {}          # signal -> ("idle", raw) | ("free",) | ("setpoint", key, predicate, text, idle) | ("request", key)
                        #   | ("companion", key, raw, idle)
    checks = []         # per active key: a function of the raw frames -> problem or None
    for key in vehicle.bindings:
        command = vehicle.command(key)
        if not command or command["message"] != name:
            continue
        kind = command["kind"]
        if key in active:
            # "with": fixed companions in the frame that carries the command (the first),
            # idle in the others (a released press).
            for companion, value in command.get("with", {}).items():
                roles[companion] = ("companion", key, vehicle.raw(name, companion, value), vehicle.idle_raw(name, companion))
        if kind == "setpoint":
            # "signals": one value in each (a left and a right request).
            for signal in command.get("signals") or [command["signal"]]:
                idle = vehicle.raw(name, signal, command["idle"]) if "idle" in command else None
                if key in active:
                    predicate, text = vehicle.expect(key, dict(command, signal=signal), active[key], expected, False)
                    roles[signal] = ("setpoint", key, predicate, text, idle)
                elif signal not in roles:
                    roles[signal] = ("idle", idle) if idle is not None else ("free",)
            continue
        if kind == "momentary":
            targets = [(command["requests"][v]["signal"], command["requests"][v]["value"], v) for v in command["requests"]]
        elif kind == "toggle":
            targets = [(command["signal"], command["value"], None)]
        elif kind == "step":
            targets = [(command[d]["signal"], command[d]["value"], d) for d in ("up", "down")]
        else:
            return "%s: unknown command kind %r" % (key, kind)
        pressed = set()
        if key in active:
            if kind == "momentary":
                request = command["requests"].get(value_key(active[key]))
                pressed = {request["signal"]} if request else set()
            else:
                pressed = {signal for signal, _, _ in targets}
        for signal, _, _ in targets:
            if signal in pressed:
                roles[signal] = ("request", key)
            elif signal not in roles:
                roles[signal] = ("idle", vehicle.idle_raw(name, signal))
        if key not in active:
            continue
        hold = command.get("holdFrames", 1)
        value = active[key]
        if kind == "momentary":
            request = command["requests"].get(value_key(value))
            if request is None:
                return "%s = %r has no request in the profile" % (key, value)
            checks.append(momentary_check(vehicle, name, key, request, hold, targets))
        elif kind == "toggle":
            start = initial.get(key)
            checks.append(toggle_check(vehicle, name, key, command, hold, None if start is None else start != value))
        else:
            checks.append(step_check(vehicle, name, key, command, hold, initial.get(key), value))
    decoded = [decode_raw(message, data) for data in frames]
    for index, raw in enumerate(decoded):
        for signal in message.signals:
            if signal.name in protected:
                continue
            role = roles.get(signal.name) or ("idle", vehicle.idle_raw(name, signal.name))
            got = raw[signal.name]
            if role[0] == "idle" and got != role[1]:
                return "%s frame %d: %s = raw %d, expected its idle %d" % (name, index + 1, signal.name, got, role[1])
            if role[0] == "companion":
                _, key, fixed, idle = role
                if got != fixed and (index == 0 or got != idle):
                    return "%s frame %d: %s = raw %d, expected %d beside %s (with)" % (name, index + 1, signal.name, got, fixed, key)
            if role[0] == "setpoint":
                _, key, predicate, text, idle = role
                if not predicate(got) and (index == 0 or got != idle):
                    return "%s frame %d: %s = raw %d, expected %s for %s = %r" % (
                        name, index + 1, signal.name, got, text, key, active[key])
    for check in checks:
        problem = check(decoded)
        if problem:
            return problem
    return None


def momentary_check(vehicle, name, key, request, hold, targets):
    signal = request["signal"]
    raw_request = vehicle.raw(name, signal, request["value"])
    idle = vehicle.idle_raw(name, signal)
    others = {vehicle.raw(name, s, v) for s, v, _ in targets if s == signal} - {raw_request}

    def check(decoded):
        values = [raw[signal] for raw in decoded]
        wrong = [v for v in values if v in others]
        if wrong:
            return "%s: %s carries raw %d, the request of another value" % (key, signal, wrong[0])
        bad = [v for v in values if v not in (raw_request, idle)]
        if bad:
            return "%s: %s = raw %d, neither the request %d nor the idle %d" % (key, signal, bad[0], raw_request, idle)
        count, problem = presses(values, raw_request, idle, hold, "%s %s=%d" % (key, signal, raw_request))
        if problem:
            return problem
        if count != 1:
            return "%s: %d presses of %s=%d in %d %s frames, expected 1" % (key, count, signal, raw_request, len(values), name)
        return None
    return check


def toggle_check(vehicle, name, key, command, hold, press_expected):
    signal = command["signal"]
    raw_request = vehicle.raw(name, signal, command["value"])
    idle = vehicle.idle_raw(name, signal)

    def check(decoded):
        values = [raw[signal] for raw in decoded]
        bad = [v for v in values if v not in (raw_request, idle)]
        if bad:
            return "%s: %s = raw %d, neither the press %d nor the idle %d" % (key, signal, bad[0], raw_request, idle)
        count, problem = presses(values, raw_request, idle, hold, "%s %s=%d" % (key, signal, raw_request))
        if problem:
            return problem
        want = {True: [1], False: [0], None: [0, 1]}[press_expected]
        if count not in want:
            return "%s: %d presses of the toggle %s, expected %s (the state before %s the target)" % (
                key, count, signal, " or ".join(map(str, want)), "differs from" if press_expected else "shows")
        return None
    return check


def step_check(vehicle, name, key, command, hold, start, target):
    up = (command["up"]["signal"], vehicle.raw(name, command["up"]["signal"], command["up"]["value"]))
    down = (command["down"]["signal"], vehicle.raw(name, command["down"]["signal"], command["down"]["value"]))
    step = vehicle.step_size(key, command)
    limit = vehicle.max_steps(key, command)

    def check(decoded):
        counts = {}
        for direction, (signal, raw_request) in (("up", up), ("down", down)):
            idle = vehicle.idle_raw(name, signal)
            values = [raw[signal] for raw in decoded]
            allowed = {idle, up[1] if up[0] == signal else None, down[1] if down[0] == signal else None} - {None}
            bad = [v for v in values if v not in allowed]
            if bad:
                return "%s: %s = raw %d, no press and not the idle %d" % (key, signal, bad[0], idle)
            counts[direction], problem = presses(values, raw_request, idle, hold, "%s %s %s=%d" % (key, direction, signal, raw_request))
            if problem:
                return problem
        if start is None:
            if counts["up"] + counts["down"] == 0:
                return "%s: no step press (the state before is unknown)" % key
            return None
        distance = (target - start) / step
        if abs(distance - round(distance)) > 1e-6:
            return "%s: %s -> %s is not a whole number of %s steps" % (key, start, target, step)
        want = {"up": max(0, round(distance)), "down": max(0, -round(distance))}
        if counts != want:
            return "%s: %d up and %d down presses from %s to %s (step %s), expected %d up and %d down" % (
                key, counts["up"], counts["down"], start, target, step, want["up"], want["down"])
        if limit is not None and counts["up"] + counts["down"] > limit:
            return "%s: %d presses, more than maxSteps %d" % (key, counts["up"] + counts["down"], limit)
        return None
    return check


def implied(vehicle, intent, expected):
    """What an intent sets besides its scenario's properties (docs/INTENTS.md), where it can be commanded.

    A fan speed sets `climate.fan` true; a seat's heating or cooling going on sets the
    other one to 0; a radio station sets `audio.source` to radio when the car has that
    source. A read-only implied property is left out (the vehicle follows by itself).
    SetProfileInCar restores the saved settings as they are.
    """
    out = {}
    if intent["intent"] == "SetProfileInCar":
        return out
    if expected.get("climate.fanSpeed"):
        out["climate.fan"] = True
    for key, value in expected.items():
        parts = key.split(".")
        if parts[0] == "seat" and parts[2] in ("heating", "cooling") and value:
            other = "cooling" if parts[2] == "heating" else "heating"
            seat = next((s for s in vehicle.profile.get("seats", []) if s["seat"] == parts[1]), {})
            if seat.get(other):
                out["seat.%s.%s" % (parts[1], other)] = 0
    if "radio.band" in expected and "sourceRadio" in vehicle.profile.get("audioSources", []):
        out["audio.source"] = "sourceRadio"
    return {k: v for k, v in out.items() if k not in expected and vehicle.command(k)}


def first_line(text):
    lines = [line for line in text.splitlines() if line.strip() and "warning:" not in line]
    return (lines[0] if lines else text.strip())[:300]


def check(carplayctl, vehicle, name, intent, code, expected, extra=()):
    output, process = run(carplayctl, vehicle, intent, list(extra))
    if output is None:
        return "no JSON on stdout (exit %d): %s" % (process.returncode, first_line(process.stderr))
    initial = initial_state(vehicle, carplayctl)
    frames = [parse_log_line(line) for line in output["frames"]]
    return check_output(vehicle, intent, code, expected, output, frames, initial)


def check_output(vehicle, intent, code, expected, output, frames, initial):
    """The checks of one scenario on what an intent produced: `output` (response,
    resolutions, state) and the frames seen while it ran, `(id, data)`, from carplayctl
    perform --simulate or a candump of a real bus; `initial`: the state before it."""
    response = output["response"]
    refused = {key: vehicle.refused(key, value) for key, value in expected.items() if vehicle.refused(key, value)}
    why = " (%s)" % "; ".join(refused[k] for k in sorted(refused)) if refused else ""
    if refused:
        code = "failure"
    if response["code"] != code:
        return "response %s, expected %s%s: %s" % (response["code"], code, why, json.dumps(response)[:300])
    checker = protection.Protection(vehicle.protection_entries)
    by_message = {}
    for frame_id, data in frames:
        try:
            message = vehicle.db.get_message_by_frame_id(frame_id)
        except KeyError:
            return "protection: frame 0x%X is not in the DBC" % frame_id
        problem = checker.check(message, data)
        if problem:
            return "protection: " + problem
        by_message.setdefault(message.name, []).append(data)
    for name in list(by_message):
        by_message[name] = vehicle.without_cyclic_idle(name, by_message[name])
        if not by_message[name]:
            del by_message[name]
    command_messages = vehicle.command_messages()
    if refused:
        if response.get("reason") != "notResolved":
            return "reason %r, expected notResolved%s" % (response.get("reason"), why)
        unsupported = [p for p, r in output.get("resolutions", {}).items() if r.get("kind") == "unsupported"]
        if not unsupported:
            return "no parameter resolved unsupported%s" % why
        sent = sorted(m for m in by_message if m in command_messages)
        if sent:
            return "command frames of %s sent%s" % (", ".join(sent), why)
        for key in sorted(refused):
            if key in initial and not same(output["state"].get(key), initial[key]):
                return "state %s = %r after a refused intent, was %r" % (key, output["state"].get(key), initial[key])
        return None
    if code != "success":
        return None
    expected = dict(expected, **implied(vehicle, intent, expected))
    active = {}
    for key, value in expected.items():
        command = vehicle.command(key)
        if command is None:
            return "%s has no binding with a command in the profile" % key
        active.setdefault(command["message"], {})[key] = value
    for message_name in sorted(set(by_message) & command_messages - set(active)):
        return "%d %s frames, but no commanded property uses %s" % (len(by_message[message_name]), message_name, message_name)
    for message_name, keys in active.items():
        message = vehicle.message(message_name)
        sent = by_message.get(message_name, [])
        # a message whose targets the car all shows already is not sent (a toggle is not
        # pressed, a step not taken, a setpoint not repeated); momentary requests always are
        quiet = all(vehicle.command(k)["kind"] != "momentary" and k in initial and same(initial[k], v) for k, v in keys.items())
        if quiet and sent:
            return "%d %s frames for %s, which the car already shows" % (len(sent), message_name, ", ".join(keys))
        if quiet:
            continue
        if not sent:
            return "no %s frame among %d frames for %s" % (message_name, len(frames), ", ".join(keys))
        problem = check_message(vehicle, message, sent, keys, initial, expected)
        if problem:
            return problem
    for key, value in expected.items():
        status = vehicle.status(key)
        if status:
            shown = by_message.get(status["message"])
            if shown:
                message = vehicle.message(status["message"])
                raw = decode_raw(message, shown[-1])[status["signal"]]
                predicate, text = vehicle.expect(key, status, value, expected, True)
                if not predicate(raw):
                    return "last %s: %s = raw %d, expected %s for %s = %r" % (status["message"], status["signal"], raw, text, key, value)
        state = output["state"].get(key)
        tolerance = vehicle.state_tolerance(key, value)
        if state is None or not (same(state, value) if tolerance is None else abs(float(state) - float(value)) <= tolerance):
            return "state %s = %r, expected %r" % (key, state, value)
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--carplayctl", required=True)
    parser.add_argument("profiles", nargs="+")
    args = parser.parse_args()
    passed = failed = 0
    for directory in args.profiles:
        # a profile that does not load is one failure, not one per scenario
        loaded = carplayctl_run([args.carplayctl, "profile", "check", directory])
        if loaded.returncode != 0:
            failed += 1
            print("FAIL %s: carplayctl profile check: %s" % (Path(directory).name, first_line(loaded.stderr + loaded.stdout)))
            continue
        vehicle = Vehicle(directory)
        for scenario in scenarios(vehicle, args.carplayctl):
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

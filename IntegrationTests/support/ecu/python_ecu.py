#!/usr/bin/env python3
"""An independent vehicle ECU in Python: python-can on a SocketCAN interface and
cantools with the profile's DBC -- none of carplayd's code.

It reads the profile's profile.json for which signals carry which property (the
bindings: setpoint commands only) and its E2E layout (`messages.<M>.protection`,
carplayd-e2e), then:
- accepts command frames whose E2E CRC (CRC-8 SAE J1850 over data ID low, high and
  the payload without the CRC byte) is right, applies every command signal that is
  not at its "no request" value, acknowledges with the result "Accepted";
- sends every status message at its GenMsgCycleTime, and at once after a change,
  with a fresh alive counter and CRC.

Usage: python_ecu.py --profile DIR [--interface vcan0] [--seconds N]
Prints one line per applied command; exits on SIGTERM or after --seconds.
"""

import argparse
import json
import signal
import sys
import threading
import time
from pathlib import Path

import can
import cantools

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import carplay_e2e  # noqa: E402


class Ecu:
    def __init__(self, directory, interface):
        directory = Path(directory)
        self.profile = json.loads((directory / "profile.json").read_text())
        self.db = cantools.database.load_file(str(directory / self.profile["dbc"]), strict=True)
        self.e2e = carplay_e2e.entries(self.profile)
        self.fd = any(m.is_fd for m in self.db.messages)
        self.bus = can.Bus(interface="socketcan", channel=interface, fd=self.fd)
        self.lock = threading.Lock()
        self.counters = {}
        self.state = {}          # status message -> {signal: value}
        self.command_props = {}  # command message -> [(command signal, status message, status signal, idle raw)]
        for key, binding in self.profile["bindings"].items():
            status = binding["status"]
            self.state.setdefault(status["message"], {})
            command = binding.get("command")
            if command:
                if command.get("kind", "setpoint") != "setpoint":
                    raise SystemExit("python-ecu: bindings[%r].command is %s; this ECU plays setpoint commands only" % (key, command["kind"]))
                message = self.db.get_message_by_name(command["message"])
                signal_ = message.get_signal_by_name(command["signal"])
                idle = command["idle"]
                if isinstance(idle, str):
                    idle = next(v for v, n in signal_.choices.items() if str(n) == idle)
                self.command_props.setdefault(command["message"], []).append(
                    (command["signal"], status["message"], status["signal"], idle))
        # Initial status values: the middle of each signal's range, or its first choice.
        for name in self.state:
            message = self.db.get_message_by_name(name)
            for s in message.signals:
                if name in self.e2e and s.name in (self.e2e[name]["checksum"], self.e2e[name]["counter"]):
                    continue
                if s.choices:
                    names = [str(n) for v, n in s.choices.items() if str(n) not in ("NoRequest", "Invalid")]
                    self.state[name][s.name] = names[0] if names else 0
                else:
                    low = s.minimum if s.minimum is not None else 0
                    self.state[name][s.name] = low
        self.last_sent = {}
        self.running = True

    def protect(self, message, payload):
        config = self.e2e.get(message.name)
        if not config:
            return payload
        counter = self.counters.get(message.name, 0)
        self.counters[message.name] = (counter + 1) % 15
        values = message.decode(bytes(payload), decode_choices=False)
        values[config["counter"]] = counter
        values[config["checksum"]] = 0
        payload = bytearray(message.encode(values, strict=False))
        carplay_e2e.protect(message, config, payload)
        return bytes(payload)

    def check(self, message, data):
        config = self.e2e.get(message.name)
        return not config or carplay_e2e.trusted(message, config, data)

    def send(self, message, values):
        full = {}
        for s in message.signals:
            full[s.name] = values.get(s.name, 0 if not s.choices else 0)
        payload = message.encode(full, strict=False, scaling=True)
        payload = self.protect(message, payload)
        if message.is_fd:
            length = next(n for n in (8, 12, 16, 20, 24, 32, 48, 64) if n >= len(payload))
            payload = payload + bytes(length - len(payload))
        self.bus.send(can.Message(arbitration_id=message.frame_id, is_extended_id=message.is_extended_frame,
                                  is_fd=message.is_fd, bitrate_switch=message.is_fd, data=payload))

    def send_status(self, name):
        message = self.db.get_message_by_name(name)
        with self.lock:
            values = dict(self.state[name])
        self.send(message, values)
        self.last_sent[name] = time.monotonic()

    def acknowledge(self, command_message, data):
        ack = self.profile.get("acknowledgement")
        if not ack:
            return
        message = self.db.get_message_by_name(ack["message"])
        config = self.e2e.get(command_message.name)
        counter = command_message.decode(data[: command_message.length], decode_choices=False)[config["counter"]] if config else 0
        self.send(message, {ack["commandId"]: command_message.frame_id, ack["counter"]: counter, ack["result"]: ack["accepted"]})

    def handle(self, frame):
        try:
            message = self.db.get_message_by_frame_id(frame.arbitration_id)
        except KeyError:
            return
        if message.name not in self.command_props:
            return
        data = bytes(frame.data)
        if len(data) < message.length or not self.check(message, data):
            print("python-ecu: ignored %s (E2E)" % message.name, flush=True)
            return
        # Raw values to compare with the profile's raw idle value ("NoRequest" of a scaled
        # signal is raw 0, physical its offset); scaled ones to apply.
        raw = message.decode(data[: message.length], decode_choices=False, scaling=False)
        scaled = message.decode(data[: message.length])
        changed = set()
        applied = []
        with self.lock:
            for command_signal, status_message, status_signal, idle in self.command_props[message.name]:
                if raw[command_signal] == idle:
                    continue
                value = scaled[command_signal]
                self.state[status_message][status_signal] = str(value) if hasattr(value, "name") else value
                changed.add(status_message)
                applied.append("%s=%s" % (status_signal, value))
        # Said before the acknowledgement and the status go out: once carplayd has seen
        # them (and answered), the line is in the log.
        print("python-ecu: applied %s %s" % (message.name, " ".join(applied)), flush=True)
        self.acknowledge(message, data)
        for name in sorted(changed):
            self.send_status(name)

    def cyclic(self):
        while self.running:
            now = time.monotonic()
            for name in self.state:
                cycle = self.db.get_message_by_name(name).cycle_time or 1000
                if now - self.last_sent.get(name, 0) >= cycle / 1000.0:
                    self.send_status(name)
            time.sleep(0.01)

    def run(self, seconds):
        thread = threading.Thread(target=self.cyclic, daemon=True)
        thread.start()
        deadline = time.monotonic() + seconds if seconds else None
        while self.running and (deadline is None or time.monotonic() < deadline):
            frame = self.bus.recv(timeout=0.1)
            if frame is not None and not frame.is_error_frame:
                self.handle(frame)
        self.running = False
        thread.join()
        self.bus.shutdown()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", required=True)
    parser.add_argument("--interface", default="vcan0")
    parser.add_argument("--seconds", type=float, default=0)
    args = parser.parse_args()
    ecu = Ecu(args.profile, args.interface)

    def stop(*_):
        ecu.running = False
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    print("python-ecu: %s on %s" % (ecu.profile["name"], args.interface), flush=True)
    ecu.run(args.seconds)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The Python peer of the vcan bench: what someone would write instead of carplayd,
with python-can and cantools. It sends the command frames carplayd's intents produce
(the same DBC messages and signals, "no request" in the others, E2E CRC-8 and alive
counter as the profile's `messages.<M>.protection` says) to carplay-ecu and waits for
the status frame that shows the commanded value (its CRC checked, decoded with cantools).

    python_peer.py --profile DIR --interface vcan0 --clients N --intents M --json

N threads in one process (the alive counter of a command message is one sequence, so
the frames of one message must leave from one sender in counter order), M intents in
total, client i toggling the property of workload slot i. Prints one JSON object with
the same fields as the load generator contract. `--print-frames` prints, per slot and
value, the payload it would send (without the counter and CRC), for the comparison with
carplayd's frames.
"""

import argparse
import json
import os
import sys
import threading
import time
from pathlib import Path

import can
import cantools

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import workload  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "IntegrationTests" / "support"))
import carplay_e2e  # noqa: E402


class Peer:
    def __init__(self, directory, interface, timeout):
        directory = Path(directory)
        self.profile = json.loads((directory / "profile.json").read_text())
        self.db = cantools.database.load_file(str(directory / self.profile["dbc"]), strict=True)
        self.e2e = carplay_e2e.entries(self.profile)
        self.bindings = self.profile["bindings"]
        self.interface = interface
        self.timeout = timeout
        self.bus = None
        self.send_lock = threading.Lock()
        self.counters = {}
        self.waiters = {}  # status frame id -> list of waiters
        self.wait_lock = threading.Lock()
        self.running = True
        self.untrusted = 0
        # Per command message: every bound command signal at its idle value.
        self.idle = {}
        for key, binding in self.bindings.items():
            command = binding.get("command")
            if command:
                self.idle.setdefault(command["message"], {})[command["signal"]] = command["idle"]

    def open(self):
        self.bus = can.Bus(interface="socketcan", channel=self.interface)
        status_ids = sorted({self.db.get_message_by_name(b["status"]["message"]).frame_id for b in self.bindings.values()})
        self.bus.set_filters([{"can_id": i, "can_mask": 0x7FF, "extended": False} for i in status_ids])
        self.reader = threading.Thread(target=self.read, daemon=True)
        self.reader.start()

    def close(self):
        self.running = False
        self.reader.join()
        self.bus.shutdown()

    # -- frames
    def signal_value(self, key, side, value):
        """The DBC signal value (a number or a choice name) of property value `value` on the
        binding's `side` ("command" or "status"), through that side's `values`."""
        mapping = self.bindings[key][side].get("values")
        if mapping is not None:
            text = json.dumps(value) if isinstance(value, bool) else str(value)
            return mapping[text]
        return value

    def command_values(self, key, value):
        command = self.bindings[key]["command"]
        message = self.db.get_message_by_name(command["message"])
        values = {s.name: 0 for s in message.signals}
        values.update(self.idle[command["message"]])
        values[command["signal"]] = self.signal_value(key, "command", value)
        return message, values

    def protect(self, message, values):
        config = self.e2e.get(message.name)
        if config:
            values[config["counter"]] = self.counters.get(message.name, 0)
            self.counters[message.name] = (values[config["counter"]] + 1) % 15
            values[config["checksum"]] = 0
        payload = bytearray(message.encode(values, scaling=True, strict=False))
        if config:
            carplay_e2e.protect(message, config, payload)
        return bytes(payload)

    def trusted(self, message, data):
        config = self.e2e.get(message.name)
        return not config or carplay_e2e.trusted(message, config, data)

    # -- the receiving side
    def read(self):
        while self.running:
            frame = self.bus.recv(timeout=0.2)
            if frame is None:
                continue
            with self.wait_lock:
                waiting = list(self.waiters.get(frame.arbitration_id, ()))
            if not waiting:
                continue
            message = self.db.get_message_by_frame_id(frame.arbitration_id)
            data = bytes(frame.data)
            if not self.trusted(message, data):
                self.untrusted += 1
                continue
            decoded = message.decode(data[: message.length])
            for waiter in waiting:
                signal_name, expected, event = waiter
                if str(decoded[signal_name]) == str(expected) or decoded[signal_name] == expected:
                    event.set()

    def perform(self, key, value):
        """Sends the command and waits for the status frame showing `value`; True when confirmed."""
        status = self.bindings[key]["status"]
        status_message = self.db.get_message_by_name(status["message"])
        event = threading.Event()
        waiter = (status["signal"], self.signal_value(key, "status", value), event)
        with self.wait_lock:
            self.waiters.setdefault(status_message.frame_id, []).append(waiter)
        try:
            message, values = self.command_values(key, value)
            with self.send_lock:
                payload = self.protect(message, values)
                self.bus.send(can.Message(arbitration_id=message.frame_id, is_extended_id=message.is_extended_frame, data=payload))
            return event.wait(self.timeout)
        finally:
            with self.wait_lock:
                self.waiters[status_message.frame_id].remove(waiter)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", required=True)
    parser.add_argument("--interface", default="vcan0")
    parser.add_argument("--clients", type=int, default=1)
    parser.add_argument("--intents", type=int, default=1000)
    parser.add_argument("--timeout", type=float, default=3.0, help="seconds to wait for each confirmation")
    parser.add_argument("--json", action="store_true", help="print the JSON object (the only output format)")
    parser.add_argument("--print-frames", action="store_true", help="print the command payloads per slot and exit")
    args = parser.parse_args()
    peer = Peer(args.profile, args.interface, args.timeout)

    if args.print_frames:
        out = {}
        for key, (_, value_a), (_, value_b) in workload.SLOTS:
            for value in (value_a, value_b):
                message, values = peer.command_values(key, value)
                config = peer.e2e.get(message.name, {})
                shown = {k: str(v) for k, v in values.items() if k not in (config.get("checksum"), config.get("counter"))}
                out["%s=%s" % (key, json.dumps(value))] = {"message": message.name, "signals": shown}
        print(json.dumps(out))
        return 0

    peer.open()
    barrier = threading.Barrier(args.clients)
    results = [None] * args.clients

    def client(index, count):
        key, (_, value_a), (_, value_b) = workload.slot(index)
        if not peer.perform(key, value_a):
            results[index] = {"error": "client %d: setting %s before the run was not confirmed" % (index, key)}
            barrier.abort()
            return
        try:
            barrier.wait()
        except threading.BrokenBarrierError:
            return
        latencies, failures = [], 0
        start = time.monotonic()
        for n in range(count):
            value = value_b if n % 2 == 0 else value_a
            t0 = time.monotonic()
            ok = peer.perform(key, value)
            t1 = time.monotonic()
            if ok:
                latencies.append(t1 - t0)
            else:
                failures += 1
        results[index] = {"latencies": latencies, "failures": failures, "start": start, "end": time.monotonic()}

    cpu0 = time.process_time()
    threads = []
    for index in range(args.clients):
        count = args.intents // args.clients + (1 if index < args.intents % args.clients else 0)
        thread = threading.Thread(target=client, args=(index, count))
        thread.start()
        threads.append(thread)
    for thread in threads:
        thread.join()
    cpu = time.process_time() - cpu0
    peer.close()
    broken = [r["error"] for r in results if r and "error" in r]
    if broken or any(r is None for r in results):
        print(json.dumps({"error": "; ".join(broken) or "a client did not finish"}))
        return 1
    latencies = [v for r in results for v in r["latencies"]]
    failures = sum(r["failures"] for r in results)
    wall = max(r["end"] for r in results) - min(r["start"] for r in results)
    total = len(latencies) + failures
    print(json.dumps(workload.summary(latencies, wall, failures, {
        "clients": args.clients, "peer": "python-can %s + cantools %s" % (can.__version__, cantools.__version__),
        "untrusted_frames": peer.untrusted,
        "process_cpu_us_per_intent": round(cpu / total * 1e6, 1) if total else None})))
    return 0 if failures == 0 else 2


if __name__ == "__main__":
    sys.exit(main())

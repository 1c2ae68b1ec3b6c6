"""Scenarios and replays on a real kernel CAN stack: carplay-ecu --scenario and
carplay-ecu --replay on vcan0, carplayd --can vcan0 watching (docs/SIMULATION.md).

Run by IntegrationTests/vcan/run.sh (natively where the kernel has vcan, in a VM otherwise).
"""

import json
import os
import socket
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import varlink

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "IntegrationTests" / "support"))
import candump_log  # noqa: E402
from monitor_stream import MonitorStream  # noqa: E402
from test_vcan import BIN, IFACE, Process, vcan  # noqa: E402,F401  (vcan: the fixture)

SEDAN = str(REPO / "VehicleProfiles" / "sedan")

# Spaced by a second or more: an emulated VM (TCG) is slow, and carplayd must be
# subscribed before the first event.
SCENARIO = {
    "seed": 5,
    "events": [
        {"at": 8.0, "set": {"climate.temperature.left": 19}},
        {"at": 9.0, "set": {"seat.frontLeft.heating": 2}},
        {"at": 10.0, "fault": {"kind": "silence", "message": "SeatStatus", "forMs": 2500}},
        {"at": 11.0, "set": {"seat.frontLeft.heating": 3}},
        {"at": 12.0, "set": {"lock.locked": True}},
        {"every": 1.0, "from": 8.5, "until": 11.9, "jitter": 0.3, "add": {"power.fuelPercent": -1}},
        {"at": 14.0, "set": {"defroster.rear": True}},
    ],
}
LAST_AT = 14.0


class Daemon(Process):
    def __init__(self, directory):
        self.socket = str(directory / "carplayd.sock")
        super().__init__("carplayd", [str(BIN / "carplayd"), "--can", IFACE, "--profile", SEDAN, "--socket", self.socket,
                                      "--state-dir", str(directory / "state"), "--log-level", "debug",
                                      "--confirmation-timeout", os.environ.get("CARPLAYD_CONFIRMATION_MS", "3000")])

    def call(self, method, **parameters):
        with varlink.Client(address="unix:" + self.socket) as client, client.open("io.carplayd.Vehicle") as vehicle:
            return getattr(vehicle, method)(**parameters)

    def wait(self, predicate, timeout=20):
        deadline = time.time() + timeout
        reply = None
        while time.time() < deadline:
            if os.path.exists(self.socket):
                try:
                    reply = self.call("GetState")
                    if predicate(reply):
                        return reply
                except Exception:
                    pass
            time.sleep(0.1)
        raise AssertionError("carplayd never got there: %s\n%s" % (reply, self.text()[-3000:]))


def run_scenario(path):
    directory = Path(tempfile.mkdtemp(prefix="vcan-scn-"))
    started = time.monotonic()
    ecu = Process("carplay-ecu", [str(BIN / "carplay-ecu"), "--can", IFACE, "--profile", SEDAN, "--scenario", str(path), "--quiet"])
    daemon = Daemon(directory)
    try:
        daemon.wait(lambda reply: reply["reachable"])
        time.sleep(1.2)  # every status message once
        assert time.monotonic() - started < 7.5, "too slow to subscribe before the first event at 8 s"
        with MonitorStream(daemon.socket, settle=0) as monitor:
            # Until the last event shows, not for its scheduled time plus a margin: under
            # emulation on a busy host it can show seconds late (it was left out once).
            monitor.wait_for(lambda reply: reply.get("state", {}).get("defroster.rear") is True,
                             "defroster.rear true (the scenario's last event)", timeout=LAST_AT + 30)
        sequence = monitor.states(leave_out=("climate.cabinTemperature",))
        return sequence, ecu.text()
    finally:
        daemon.stop()
        ecu.stop()


def test_carplay_ecu_scenario_same_seed_same_monitor_sequence(tmp_path):
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(SCENARIO))
    first, ecu_log = run_scenario(path)
    second, _ = run_scenario(path)
    assert first == second, "\n%s\n!=\n%s" % (first, second)
    assert {"climate.temperature.left": 19.0} in first
    seat = [i for i, state in enumerate(first) if "seat.frontLeft.heating" in state]
    lock = first.index({"lock.locked": True})
    assert [first[i]["seat.frontLeft.heating"] for i in seat] == [2, 3]
    assert seat[0] < lock < seat[1], "3 is reported only when SeatStatus speaks again"
    assert [s["power.fuelPercent"] for s in first if "power.fuelPercent" in s] == [61.0, 60.0, 59.0, 58.0]
    assert first[-1] == {"defroster.rear": True}
    assert "scenario: events[2] at 10 s: fault silence message=SeatStatus" in ecu_log


def frames(path):
    """(id, data) of each frame in a candump -L file."""
    result = []
    for line in Path(path).read_text().splitlines():
        parts = line.split()
        if len(parts) == 3:
            result.append(tuple(parts[2].split("#")))
    return result


def next_frames(sock, count, timeout):
    """(id, data) of the next `count` frames on a bound raw CAN socket, written as candump
    -L writes them, or fewer when `timeout` seconds pass first."""
    got = []
    deadline = time.monotonic() + timeout
    while len(got) < count and time.monotonic() < deadline:
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            data = sock.recv(16)
        except socket.timeout:
            break
        can_id, length = struct.unpack("=IB3x", data[:8])
        extended = can_id & socket.CAN_EFF_FLAG
        ident = "%08X" % (can_id & socket.CAN_EFF_MASK) if extended else "%03X" % (can_id & socket.CAN_SFF_MASK)
        got.append((ident, data[8:8 + length].hex().upper()))
    return got


def test_carplay_ecu_replay_drives_carplayd(tmp_path):
    log = tmp_path / "drive.log"
    candump_log.write_status_log(log, SEDAN, [(8, candump_log.SEDAN_BEFORE), (7, candump_log.SEDAN_AFTER)], interface="can3")
    daemon = Daemon(tmp_path)
    try:
        daemon.wait(lambda reply: True)  # listening
        # The bus read from a raw socket bound before the replay starts (candump's start
        # cannot be waited for: under load it missed the first frames).
        with socket.socket(socket.AF_CAN, socket.SOCK_RAW, socket.CAN_RAW) as bus:
            bus.bind((IFACE,))
            started = time.monotonic()
            replay = subprocess.run([str(BIN / "carplay-ecu"), "--can", IFACE, "--replay", str(log)], capture_output=True, text=True,
                                    timeout=60)
            took = time.monotonic() - started
            assert replay.returncode == 0, replay.stderr
            assert "replay done: 75 frames sent" in replay.stderr
            assert took >= 1.4, "timing kept: the log lasts 1.404 s, the replay took %.3f s" % took
            # The same frames, in the same order (the log's interface name can3 is not kept).
            assert next_frames(bus, 75, timeout=10) == frames(log)
        reply = daemon.wait(lambda reply: all(reply["state"].get(k) == v for k, v in candump_log.EXPECTED_AFTER.items()), timeout=10)
        assert reply["bus"]["untrustedFrames"] == 0
    finally:
        daemon.stop()


def test_carplay_ecu_replay_step_mode(tmp_path):
    """--step: one frame per line of standard input. The bus is read from a raw socket
    bound before carplay-ecu starts (candump's start cannot be waited for), and each
    frame is waited for: a loaded machine starts a process late, it does not send more."""
    log = tmp_path / "step.log"
    candump_log.write_status_log(log, SEDAN, [(2, candump_log.SEDAN_AFTER)])
    with socket.socket(socket.AF_CAN, socket.SOCK_RAW, socket.CAN_RAW) as bus:
        bus.bind((IFACE,))
        step = subprocess.Popen([str(BIN / "carplay-ecu"), "--can", IFACE, "--replay", str(log), "--step"],
                                stdin=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            seen = []
            for line in range(3):
                step.stdin.write("\n")
                step.stdin.flush()
                seen += next_frames(bus, 1, timeout=30)
                assert len(seen) == line + 1, "line %d: no frame within 30 s" % (line + 1)
            assert seen == frames(log)[:3], "one frame per line, in the log's order"
            step.stdin.close()  # end of input: the replay stops
            assert step.wait(timeout=30) == 0
            err = step.stderr.read()
            assert "step mode" in err and "replay done: 3 frames sent" in err, err
            assert next_frames(bus, 1, timeout=0.5) == [], "no frame without a line"
        finally:
            if step.poll() is None:
                step.kill()


def test_carplay_ecu_after_command_the_driver_turns_the_knob_back(tmp_path):
    # carplay-ecu's scenario waits for carplayd's command on vcan0, then the driver acts.
    path = tmp_path / "fight.json"
    path.write_text(json.dumps({"events": [{"afterCommand": "ClimateCommand", "delay": 1.0, "set": {"climate.temperature.left": 19}}]}))
    ecu = Process("carplay-ecu", [str(BIN / "carplay-ecu"), "--can", IFACE, "--profile", SEDAN, "--scenario", str(path)])
    daemon = Daemon(tmp_path)
    try:
        daemon.wait(lambda reply: reply["reachable"])
        time.sleep(1.2)  # every status message once
        reply = daemon.call("Perform", intent="SetClimateSettingsInCar",
                            parameters={"temperature": {"value": 24, "unit": "celsius"}, "climateZone": "driver"})
        assert reply["response"]["code"] == "success" and reply["state"]["climate.temperature.left"] == 24, reply
        daemon.wait(lambda reply: reply["state"].get("climate.temperature.left") == 19, timeout=20)
        assert daemon.call("GetState")["state"]["climate.temperature.left"] == 19
        assert "set climate.temperature.left=19" in ecu.text(), ecu.text()[-2000:]
    finally:
        daemon.stop()
        ecu.stop()

"""Conflicting clients against the real carplayd, and its simulator test interface.

Many clients set the same property (the radio frequency) to different values at once.
carplayd handles intents one at a time in arrival order (IntentEngine), so the command
frames reach the bus in that order and "the last confirmed intent" is well defined: the
successful reply whose command frame (in the reply's `frames`, candump -L) has the latest
timestamp. At the end the daemon's state and the vehicle's own state hold its value, and
every client was told the truth: a success only for a value that status frames showed
(Monitor), a rejection only for a value the vehicle never took.

The daemon runs with --simulator-control so the test can inject a fault plan
(io.carplayd.Simulator.SetFaults) and read the vehicle's own state (GetVehicle).
"""

import json
import sys
import threading
import time
from pathlib import Path

import cantools
import pytest

from conftest import PROFILES, REPO, RawConnection, varlink_error

sys.path.insert(0, str(REPO / "IntegrationTests" / "support"))
from monitor_stream import MonitorStream  # noqa: E402

SIMULATOR = "io.carplayd.Simulator"
DBC = cantools.database.load_file(str(PROFILES / "sedan" / "sedan.dbc"))
AUDIO_COMMAND = DBC.get_message_by_name("AudioCommand").frame_id


@pytest.fixture(scope="module")
def simulated(daemons):
    return daemons("conflicts", "sedan", args=("--simulator-control", "--confirmation-timeout", "3000"))


def simulator(daemon, method, **parameters):
    with daemon.client() as client, client.open(SIMULATOR, namespaced=False) as proxy:
        return getattr(proxy, method)(**parameters)


def command_time(reply):
    """The timestamp of the AudioCommand frame this intent sent (from its reply)."""
    times = []
    for line in reply["frames"]:
        stamp, _, frame = line.split(" ", 2)
        frame_id = int(frame.split("#", 1)[0], 16)
        if frame_id == AUDIO_COMMAND:
            times.append(float(stamp.strip("()")))
    return max(times) if times else None


def close(a, b):
    return abs(a - b) < 1e-6


@pytest.mark.parametrize("clients,rejections", [(32, 0), (64, 12)])
def test_many_clients_same_property_last_confirmed_wins(simulated, clients, rejections):
    daemon = simulated
    current = daemon.state()["radio.frequency"]
    values = [round(88.0 + 0.3 * i, 1) for i in range(clients)]
    values = [v for v in values if not close(v, current)]
    if rejections:
        simulator(daemon, "SetFaults", plan={"rules": [{"kind": "reject", "message": "AudioCommand", "count": rejections}]})
    monitor = MonitorStream(daemon.socket)
    replies = {}
    errors = []
    barrier = threading.Barrier(len(values))

    def client(value):
        try:
            barrier.wait(30)
            replies[value] = daemon.perform("SetRadioStation", {"radioType": "FM", "frequency": value})
        except Exception as error:  # recorded and asserted below
            errors.append((value, repr(error)))

    threads = [threading.Thread(target=client, args=(v,)) for v in values]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    time.sleep(0.5)
    monitor.close()
    assert not errors, errors
    assert len(replies) == len(values)
    shown = [state["radio.frequency"] for state in monitor.states() if "radio.frequency" in state]
    seen = shown + [current]

    succeeded = {v: r for v, r in replies.items() if r["response"]["code"] == "success"}
    failed = {v: r for v, r in replies.items() if r["response"]["code"] != "success"}
    for value, reply in succeeded.items():
        assert any(close(value, s) for s in seen), "%s: success, but no status frame showed it (seen %s)" % (value, seen)
    for value, reply in failed.items():
        assert reply["response"]["reason"] == "rejectedByVehicle", reply["response"]
        assert not any(close(value, s) for s in seen), "%s: rejected, but the vehicle took it" % value
    assert len(failed) == min(rejections, len(values)), "exactly the rejected ones failed: %s" % sorted(failed)

    # The last confirmed intent: the success whose command frame went out last.
    times = {v: command_time(r) for v, r in succeeded.items()}
    assert all(t is not None for t in times.values()), "every reply lists its command frame"
    last = max(times, key=times.get)
    assert len(set(times.values())) == len(times), "command frames went out one at a time"
    vehicle = simulator(daemon, "GetVehicle")["state"]["radio.frequency"]
    deadline = time.monotonic() + 10
    while not close(daemon.state()["radio.frequency"], last) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert close(daemon.state()["radio.frequency"], last), (daemon.state()["radio.frequency"], last)
    assert close(vehicle, last), (vehicle, last)
    assert shown and close(shown[-1], last), "the last change Monitor showed is the last confirmed value: %s" % shown[-3:]
    assert simulator(daemon, "GetVehicle")["faults"]["rules"] == [], "the count-limited rule used itself up"


def test_simulator_interface_rejects_a_bad_plan(simulated):
    with pytest.raises(Exception) as excinfo:
        simulator(simulated, "SetFaults", plan={"rules": [{"kind": "explode"}]})
    name, parameters = varlink_error(excinfo)
    assert name == "io.carplayd.Simulator.InvalidFaultPlan"
    assert "explode" in parameters["reason"]


def test_simulator_faults_reach_the_vehicle(simulated):
    simulator(simulated, "SetFaults", plan={"rules": [{"kind": "reject", "property": "seat.", "count": 1}]})
    reply = simulated.perform("SetSeatSettingsInCar", {"enableHeating": True, "seat": "driver", "level": 2})
    assert reply["response"]["code"] == "failure"
    assert reply["response"]["reason"] == "rejectedByVehicle"
    vehicle = simulator(simulated, "GetVehicle")
    assert vehicle["statistics"]["commandsRejected"] >= 1
    assert vehicle["faults"]["rules"] == []
    reply = simulated.perform("SetSeatSettingsInCar", {"enableHeating": True, "seat": "driver", "level": 2})
    assert reply["response"]["code"] == "success", reply["response"]
    assert simulator(simulated, "GetVehicle")["state"]["seat.frontLeft.heating"] == 2


def test_simulator_interface_is_absent_when_turned_off(daemons):
    # Served by default for the embedded vehicle (test_panel.py); off, it is not there at all.
    plain = daemons("plain", "sedan", args=("--no-simulator-control",))
    with pytest.raises(Exception) as excinfo:
        simulator(plain, "GetVehicle")
    name, _ = varlink_error(excinfo)
    assert name == "org.varlink.service.InterfaceNotFound"

"""GetCarPowerLevelStatus as SiriKit's power-level observer: the full response at once,
a pushed response when the simulated SUV is plugged in and charges, at most one reply
per 250 ms, and the stream stopped when the client goes.

The car is plugged in through io.carplayd.Simulator.SetDriveState (--simulator-control):
the vehicle applies it as its own doing and the daemon learns of it from BatteryStatus
frames (cyclic every 1000 ms in suv.dbc)."""

import json
import time

import pytest

from conftest import INTERFACE

SIMULATOR = "io.carplayd.Simulator"
# BatteryStatus' GenMsgCycleTime in VehicleProfiles/suv/suv.dbc.
BATTERY_CYCLE = 1.0
INTERVAL = 0.25

EVERY_FIELD = {
    "code", "carIdentifier", "chargePercentRemaining", "charging", "minutesToFull", "distanceRemaining",
    "maximumDistance", "distanceRemainingElectric", "maximumDistanceElectric", "minimumBatteryCapacity",
    "currentBatteryCapacity", "maximumBatteryCapacity", "consumptionFormulaArguments", "chargingFormulaArguments",
    "dateOfLastStateUpdate",
}


@pytest.fixture(scope="module")
def suv(daemons):
    return daemons("power", "suv", args=("--simulator-control",))


def simulator(daemon, method, **parameters):
    with daemon.raw() as conn:
        reply = conn.call("%s.%s" % (SIMULATOR, method), parameters)
    assert "error" not in reply, reply
    return reply["parameters"]


def receive_until(conn, predicate, timeout):
    """Replies until one satisfies predicate (returned with the list of all seen)."""
    deadline = time.monotonic() + timeout
    seen = []
    while time.monotonic() < deadline:
        conn.sock.settimeout(max(0.05, deadline - time.monotonic()))
        try:
            reply = conn.receive()
        except TimeoutError:
            break
        assert "error" not in reply, reply
        seen.append((time.monotonic(), reply["parameters"]["response"]))
        if predicate(seen[-1][1]):
            return seen[-1][1], seen
    return None, seen


def test_once_without_more_is_the_perform_response(suv):
    once = suv.call("GetCarPowerLevelStatus")["response"]
    perform = suv.perform("GetCarPowerLevelStatus")["response"]
    assert set(once) == EVERY_FIELD, sorted(set(once) ^ EVERY_FIELD)
    date = once.pop("dateOfLastStateUpdate")
    assert date.endswith("Z") and "T" in date
    perform.pop("dateOfLastStateUpdate")
    assert once == perform
    cars = suv.perform("ListCars")["response"]["cars"]
    assert once["carIdentifier"] == cars[0]["carIdentifier"]
    assert once["maximumBatteryCapacity"] == {"value": 90, "unit": "kilowattHours"}
    assert once["distanceRemaining"]["unit"] == "kilometers"
    assert "activeConnector" not in once  # nothing plugged in


def test_bad_parameters_name_the_parameter(suv):
    with suv.raw() as conn:
        reply = conn.call("io.carplayd.Vehicle.GetCarPowerLevelStatus", {"carName": 5})
        assert reply["error"] == "io.carplayd.Vehicle.InvalidParameter" and reply["parameters"]["parameter"] == "carName", reply
        # Once (perform) an unknown car is an unresolved intent, as Perform answers it;
        # the observer (more) cannot start on one: InvalidParameter, as Handle.
        reply = conn.call("io.carplayd.Vehicle.GetCarPowerLevelStatus", {"carName": "the boat"})
        assert reply["parameters"]["response"] == {"code": "failure", "reason": "notResolved"}, reply
        assert reply["parameters"]["resolutions"]["carName"]["kind"] == "unsupported", reply
        reply = conn.call("io.carplayd.Vehicle.GetCarPowerLevelStatus", {"carName": "the boat"}, more=True)
        assert reply["error"] == "io.carplayd.Vehicle.InvalidParameter" and reply["parameters"]["parameter"] == "carName", reply
        reply = conn.call("io.carplayd.Vehicle.GetCarPowerLevelStatus", {"speed": 1})
        assert reply["error"] == "io.carplayd.Vehicle.InvalidParameter" and reply["parameters"]["parameter"] == "speed", reply
        reply = conn.call(SIMULATOR + ".SetDriveState", {"connector": "chaDeMo"})
        assert reply["error"] == SIMULATOR + ".InvalidDriveState" and reply["parameters"]["parameter"] == "connector", reply
        reply = conn.call(SIMULATOR + ".SetDriveState", {"connector": "ccs2", "speedKmh": 50})
        assert reply["error"] == SIMULATOR + ".InvalidDriveState" and reply["parameters"]["parameter"] == "speedKmh", reply


def test_a_parked_car_is_not_pushed_every_status_cycle(suv):
    """Every BatteryStatus frame brings a new dateOfLastStateUpdate; alone it is no change."""
    simulator(suv, "SetDriveState", connector="none", speedKmh=0)
    with suv.raw(timeout=10) as conn:
        conn.send({"method": "io.carplayd.Vehicle.GetCarPowerLevelStatus", "more": True})
        first = conn.receive()["parameters"]["response"]
        assert first["charging"] is False
        _, seen = receive_until(conn, lambda r: False, 3.5 * BATTERY_CYCLE)
        assert seen == [], "pushed without a change: %s" % json.dumps(seen)[:1000]


def test_stream_pushes_charging_and_stops_when_the_client_goes(suv):
    simulator(suv, "SetDriveState", connector="none", speedKmh=0)
    conn = suv.raw(timeout=10)
    try:
        conn.send({"method": "io.carplayd.Vehicle.GetCarPowerLevelStatus", "parameters": {"carName": "SUV"}, "more": True})
        first = conn.receive()
        assert first.get("continues") is True, first
        first = first["parameters"]["response"]
        assert set(first) == EVERY_FIELD, sorted(set(first) ^ EVERY_FIELD)
        assert first["charging"] is False

        # Plugged in at the wallbox (mennekes, 11 kW in profile.json): charging, connector reported.
        assert simulator(suv, "SetDriveState", connector="mennekes") == {"connector": "mennekes", "speedKmh": 0}
        plugged, _ = receive_until(conn, lambda r: r.get("activeConnector") == "mennekes", 5 * BATTERY_CYCLE)
        assert plugged is not None, "no pushed response showed the connector"
        assert plugged["charging"] is True and plugged["minutesToFull"] > 0

        # 11 kW charge 0.01 kWh (EnergyStored's resolution) in ~3.3 s: within a few cycles.
        start = plugged["currentBatteryCapacity"]["value"]
        more, seen = receive_until(conn, lambda r: r["currentBatteryCapacity"]["value"] > start, 10 * BATTERY_CYCLE)
        assert more is not None, "no pushed response with more energy: %s" % json.dumps(seen)[:2000]
        assert more["chargePercentRemaining"] >= plugged["chargePercentRemaining"]

        # The rate limit: a burst of plug changes (each sends a BatteryStatus frame at
        # once) gives at most one reply per 250 ms, ending with the newest state.
        began = time.monotonic()
        for index in range(20):
            simulator(suv, "SetDriveState", connector="none" if index % 2 == 0 else "ccs2")
        burst = time.monotonic() - began
        final, seen = receive_until(conn, lambda r: r.get("activeConnector") == "ccs2" and r["minutesToFull"] < 60, 5)
        assert final is not None, "the newest state (ccs2) never arrived: %s" % json.dumps(seen)[:2000]
        # Let anything late arrive, then count.
        _, late = receive_until(conn, lambda r: False, 1.0)
        replies = len(seen) + len(late)
        assert replies <= int((burst + 1.0 + 1.0) / INTERVAL) + 2, (replies, burst)
        assert replies < 20, replies
    finally:
        conn.close()

    # The daemon notices at its next change (charging goes on) and logs the stop.
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and "updates for uid" not in suv.stderr().split("started")[-1]:
        time.sleep(0.1)
    log = suv.stderr()
    assert "GetCarPowerLevelStatus: updates for uid" in log and "stopped after" in log and "the client went away" in log, log[-3000:]
    simulator(suv, "SetDriveState", connector="none")
    assert suv.call("GetState")["reachable"] is True

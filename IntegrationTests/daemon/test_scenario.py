"""Scenarios and replays on the embedded default (docs/SIMULATION.md, "Scenarios" and
"Replaying a candump log"): a scenario of vehicle-side changes and faults gives the same
Monitor sequence on two runs with the same seed; a recorded log played with --replay
drives the daemon's state."""

import json
import sys
import time

from conftest import INTERFACE, REPO

sys.path.insert(0, str(REPO / "IntegrationTests" / "support"))
import candump_log  # noqa: E402
from monitor_stream import MonitorStream  # noqa: E402

# Vehicle-side changes, a jittered gauge and a silenced status message: the seat change
# at 5.4 s is reported only when SeatStatus speaks again (6.5 s), after the lock (5.8 s).
SCENARIO = {
    "seed": 42,
    "events": [
        {"at": 4.5, "set": {"climate.temperature.left": 19}},
        {"at": 4.8, "set": {"seat.frontLeft.heating": 2}},
        {"at": 5, "fault": {"kind": "silence", "message": "SeatStatus", "forMs": 1500}},
        {"at": 5.4, "set": {"seat.frontLeft.heating": 3}},
        {"at": 5.8, "set": {"lock.locked": True}},
        # Jittered, but always before SeatStatus speaks again (whose first frame the
        # cycle, not the scenario, times).
        {"every": 0.5, "from": 4.55, "until": 6.4, "jitter": 0.2, "add": {"power.fuelPercent": -1}},
        {"at": 7.2, "set": {"defroster.rear": True, "climate.temperature.left": 23.5}},
    ],
}
LAST_AT = 7.2
# The cabin temperature follows its target continuously (the dynamics): which of its
# values a cyclic frame carries depends on the wall clock, not on the scenario.
TIMED_BY_CLOCK = ("climate.cabinTemperature",)


def run_scenario(daemons, workdir, name, scenario):
    path = workdir / ("%s.json" % name)
    path.write_text(json.dumps(scenario))
    started = time.monotonic()
    daemon = daemons(name, "sedan", args=["--scenario", str(path)])
    # The first event is at 4.5 s: the subscription must be in place before.
    assert time.monotonic() - started < 4.0, "carplayd took too long to start for this test"
    with MonitorStream(daemon.socket, settle=0) as monitor:
        time.sleep(max(0.0, LAST_AT + 1.0 - (time.monotonic() - started)))
    sequence = monitor.states(leave_out=TIMED_BY_CLOCK)
    log = daemon.stderr()
    daemon.stop()
    return sequence, log


def test_same_seed_same_monitor_sequence(daemons, workdir):
    first, log = run_scenario(daemons, workdir, "scenario-a", SCENARIO)
    second, _ = run_scenario(daemons, workdir, "scenario-b", SCENARIO)
    assert first == second, "\n%s\n!=\n%s" % (first, second)
    changes = first
    assert {"climate.temperature.left": 19.0} in changes
    assert {"lock.locked": True} in changes
    # 2 went out before the silence; 3 (set at 5.4 s) only when it ended, after the lock.
    seat = [i for i, state in enumerate(changes) if "seat.frontLeft.heating" in state]
    lock = changes.index({"lock.locked": True})
    assert [changes[i]["seat.frontLeft.heating"] for i in seat] == [2, 3]
    assert seat[0] < lock < seat[1]
    fuel = [state["power.fuelPercent"] for state in changes if "power.fuelPercent" in state]
    assert fuel == [61.0, 60.0, 59.0, 58.0], fuel
    assert changes[-1] == {"climate.temperature.left": 23.5, "defroster.rear": True}
    assert "scenario: events[2] at 5 s: fault silence message=SeatStatus" in log


def test_scenario_is_refused_on_a_can_interface(daemons, workdir):
    import subprocess
    from conftest import binary
    path = workdir / "refused.json"
    path.write_text(json.dumps(SCENARIO))
    result = subprocess.run([binary(), "--can", "vcan-none", "--socket", str(workdir / "refused.sock"), "--scenario", str(path),
                             "--profile", str(REPO / "VehicleProfiles" / "sedan")], capture_output=True, text=True, timeout=20)
    assert result.returncode == 2
    assert "--scenario plays the embedded simulated vehicle; on a CAN interface (vcan-none)" in result.stderr


def test_scenario_error_names_the_json_path(daemons, workdir):
    import subprocess
    from conftest import binary
    path = workdir / "bad.json"
    path.write_text('{"events": [{"at": 1, "set": {"lock.locked": "yes"}}]}')
    result = subprocess.run([binary(), "--socket", str(workdir / "bad.sock"), "--scenario", str(path),
                             "--profile", str(REPO / "VehicleProfiles" / "sedan")], capture_output=True, text=True, timeout=20)
    assert result.returncode == 2
    assert '%s: events[0].set["lock.locked"]: "yes" is not a valid value of lock.locked' % path in result.stderr


def test_replay_drives_the_daemons_state(daemons, workdir):
    log = workdir / "drive.log"
    lines = candump_log.write_status_log(log, REPO / "VehicleProfiles" / "sedan",
                                         [(8, candump_log.SEDAN_BEFORE), (7, candump_log.SEDAN_AFTER)])
    assert len(lines) == 75
    daemon = daemons("replay", "sedan", args=["--replay", str(log)])
    deadline = time.monotonic() + 10
    while True:
        state = daemon.state()
        if all(state.get(k) == v for k, v in candump_log.EXPECTED_AFTER.items()):
            break
        assert time.monotonic() < deadline, state
        time.sleep(0.1)
    assert "replaying %s on an in-process vcan0" % log in daemon.stderr()
    # Nothing answers commands on a replay: an intent times out rather than lying.
    reply = daemon.perform("SetClimateSettingsInCar", {"temperature": {"value": 22, "unit": "celsius"}, "climateZone": "driver"})
    assert reply["response"]["code"] == "failure" and reply["response"]["reason"] == "timeout", reply
    daemon.stop()


def test_replay_loop_keeps_the_car_reachable(daemons, workdir):
    log = workdir / "loop.log"
    # 15 cycles: the alive counters run 0...14 and the next pass goes on with 0.
    candump_log.write_status_log(log, REPO / "VehicleProfiles" / "sedan", [(15, candump_log.SEDAN_AFTER)])
    daemon = daemons("replay-loop", "sedan", args=["--replay", str(log), "--replay-loop"])
    time.sleep(3.5)  # more than two passes of 1.5 s
    reply = daemon.call("GetState")
    assert reply["reachable"] is True
    assert reply["state"]["lock.locked"] is True
    assert reply["bus"]["untrustedFrames"] == 0, reply["bus"]
    daemon.stop()


def test_after_command_the_driver_turns_the_knob_back(daemons, workdir):
    # The scenario waits for the head unit: 0.3 s after each ClimateCommand the vehicle
    # applied, the driver sets the left zone back to 19 °C.
    path = workdir / "fight.json"
    path.write_text(json.dumps({"events": [
        {"afterCommand": "ClimateCommand", "delay": 0.3, "set": {"climate.temperature.left": 19}},
    ]}))
    daemon = daemons("fight", "sedan", args=["--scenario", str(path), "--log-level", "info"])
    with MonitorStream(daemon.socket) as monitor:
        reply = daemon.perform("SetClimateSettingsInCar", {"temperature": {"value": 24, "unit": "celsius"}, "climateZone": "driver"})
        assert reply["response"]["code"] == "success" and reply["state"]["climate.temperature.left"] == 24, reply
        monitor.wait_for(lambda r: r.get("state", {}).get("climate.temperature.left") == 19, "the driver's 19 °C")
    left = [state["climate.temperature.left"] for state in monitor.states() if "climate.temperature.left" in state]
    assert left[-2:] == [24, 19], left
    assert daemon.state()["climate.temperature.left"] == 19
    # A relative intent starts from the driver's value.
    resolved = daemon.call("Resolve", intent="SetClimateSettingsInCar",
                           parameters={"relativeTemperatureSetting": "higher", "climateZone": "driver"})
    assert resolved["resolutions"]["relativeTemperatureSetting"] == {"kind": "success", "value": {"left": 19.5}}, resolved
    assert "scenario: events[0] at " in daemon.stderr() and "set climate.temperature.left=19" in daemon.stderr()

"""The car's own panel (issue 17, part 2) against the real carplayd on the embedded sedan:
the driver changes the car through io.carplayd.Simulator (carplayctl car set, the dash's
panel mode); the vehicle applies it as its own and its status frames tell the daemon
(Monitor, GetState), and a following relative intent starts from the driver's value.
Also who may call it, and that it can be turned off.

No --simulator-control anywhere: the interface is served by default for a simulated car.
"""

import json
import os
import subprocess
import time

import pytest
import varlink

from conftest import varlink_error
from test_dash import DEADLINE, Tmux, carplayctl, start_dash

SIMULATOR = "io.carplayd.Simulator"
NOBODY = 65534
LEFT = "climate.temperature.left"


@pytest.fixture(scope="module")
def car(daemons):
    return daemons("panel", "sedan")


def ctl(daemon, *arguments, user=None):
    prefix = ["setpriv", "--reuid=%d" % user, "--regid=%d" % user, "--clear-groups"] if user is not None else []
    return subprocess.run(prefix + [carplayctl(), "--socket", daemon.socket, *arguments],
                          capture_output=True, text=True, timeout=30, cwd="/")


def simulator(daemon, method, **parameters):
    with daemon.client() as client, client.open(SIMULATOR, namespaced=False) as interface:
        return getattr(interface, method)(**parameters)


def interfaces(daemon):
    with daemon.client() as client:
        return client.get_interfaces()


def wait_state(daemon, key, value, timeout=DEADLINE):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if daemon.state().get(key) == value:
            return
        time.sleep(0.05)
    raise AssertionError("GetState never showed %s=%r (now %r)" % (key, value, daemon.state().get(key)))


def step(daemon):
    return daemon.call("Describe")["vehicle"]["climate"]["celsius"]["step"]


def test_a_panel_change_shows_in_monitor_getstate_and_the_next_relative_intent(car):
    assert SIMULATOR in interfaces(car), "served by default for the embedded vehicle"
    monitor = subprocess.Popen([carplayctl(), "monitor", "--json", "--socket", car.socket],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(0.5)  # the stream is open before the change
        result = ctl(car, "car", "set", LEFT, "19", "seat.frontLeft.heating", "2")
        assert result.returncode == 0, result.stderr
        assert "climate.temperature.left = 19" in result.stdout
        # Monitor: the change arrives as the vehicle's status frame.
        deadline = time.monotonic() + DEADLINE
        seen = None
        while time.monotonic() < deadline and seen is None:
            reply = json.loads(monitor.stdout.readline())
            if LEFT in reply.get("keys", []) and reply["state"][LEFT] == 19:
                seen = reply
        assert seen is not None, "Monitor never showed the driver's 19 °C"
        assert seen["frame"], "learned from a status frame: %r" % seen
    finally:
        monitor.terminate()
        monitor.wait(timeout=10)
    wait_state(car, LEFT, 19)
    wait_state(car, "seat.frontLeft.heating", 2)
    # What the vehicle itself holds agrees.
    assert simulator(car, "GetVehicle")["state"][LEFT] == 19
    # "Warmer" starts from the driver's 19 °C.
    reply = car.call("Resolve", intent="SetClimateSettingsInCar",
                     parameters={"relativeTemperatureSetting": "higher", "climateZone": "driver"})
    assert reply["resolutions"]["relativeTemperatureSetting"] == {"kind": "success", "value": {"left": 19 + step(car)}}
    assert "simulator: the driver set climate.temperature.left=19.0 seat.frontLeft.heating=2" in car.stderr()


def test_the_car_refuses_what_its_panel_cannot_do(car):
    with pytest.raises(varlink.VarlinkError) as excinfo:
        simulator(car, "SetVehicleState", values={LEFT: 40})
    assert varlink_error(excinfo) == ("io.carplayd.Simulator.InvalidVehicleState", {"key": LEFT, "reason": "40.0 outside 16...28"})
    result = ctl(car, "car", "set", "lock.locked", "maybe")
    assert result.returncode == 1
    assert "lock.locked: expected true or false" in result.stderr
    result = ctl(car, "car", "set", "power.fuelPercent", "150")
    assert result.returncode == 1 and "power.fuelPercent: outside 0...100 %" in result.stderr
    # A call that does not fit io.carplayd.Simulator's declaration (raw: the Python
    # client would drop or refuse it first), on the daemon's socket.
    before = simulator(car, "GetVehicle")["state"][LEFT]
    with car.raw() as conn:
        for parameters, path, reason in [
            ({"values": {LEFT: 17 if before != 17 else 18}, "now": True}, "now", "no such field"),
            ({"values": [LEFT, 19]}, "values", "expected an object, found an array"),
            ({}, "values", "missing"),
        ]:
            reply = conn.call(SIMULATOR + ".SetVehicleState", parameters)
            assert reply.get("error") == SIMULATOR + ".InvalidParameter", reply
            assert reply["parameters"]["parameter"] == path and reason in reply["parameters"]["reason"], reply
    assert simulator(car, "GetVehicle")["state"][LEFT] == before, "refused: nothing applied"


def test_car_show_and_the_fob_lock(car):
    assert ctl(car, "car", "set", "lock.locked", "on").returncode == 0
    wait_state(car, "lock.locked", True)
    shown = ctl(car, "car", "show")
    assert shown.returncode == 0, shown.stderr
    assert "lock.locked = on" in shown.stdout or "lock.locked = true" in shown.stdout, shown.stdout
    assert "Drive: parked, not plugged in" in shown.stdout
    assert json.loads(ctl(car, "car", "show", "--json").stdout)["drive"] == {"connector": None, "speedKmh": 0.0}
    assert ctl(car, "car", "set", "lock.locked", "off").returncode == 0
    wait_state(car, "lock.locked", False)


def left_zone(screen):
    """The left zone box's temperature row (the first box on the row with 'set')."""
    for line in screen.splitlines():
        if line.count("│ set ") == 2:
            return line.split("│ set ")[1]
    return ""


def test_the_dash_in_panel_mode_acts_as_the_driver(car):
    tmux = Tmux("cpd-panel-%d" % os.getpid())
    try:
        start_dash(tmux, car)
        before = car.state()[LEFT]
        want = before - step(car)
        tmux.send("p")
        tmux.wait_text("PANEL (driver)")
        tmux.wait_text("PANEL: you are the driver")
        tmux.send("-")
        tmux.wait_text("✓ the driver set climate.temperature.left=%s" % ("%g" % want))
        tmux.wait_for(lambda s: left_zone(s).startswith("%g °C" % want) and "→" not in left_zone(s), "the left zone at %g °C" % want)
        wait_state(car, LEFT, want)
        # Back to intents: the status line no longer says PANEL.
        tmux.send("p")
        tmux.wait_for(lambda s: "PANEL (driver)" not in s, "intent mode")
        tmux.send("q")
        tmux.wait_shell()
    finally:
        tmux.close()


# ------------------------------------------------------------------ who may call
def open_to_everyone(daemon):
    os.chmod(os.path.dirname(daemon.socket), 0o755)
    os.chmod(daemon.socket, 0o666)


needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="switching to another uid needs root")


@needs_root
def test_a_caller_the_vehicle_interface_allows_is_still_refused_the_panel(daemons):
    # nobody may ask for intents (--allow-user), not play the driver.
    daemon = daemons("panel-nobody", "sedan", args=["--allow-user", "nobody"])
    open_to_everyone(daemon)
    assert ctl(daemon, "status", user=NOBODY).returncode == 0
    result = ctl(daemon, "car", "set", LEFT, "19", user=NOBODY)
    assert result.returncode == 1
    assert "not authorized: uid 65534 (gid 65534) may not control the simulated vehicle" in result.stderr
    result = ctl(daemon, "car", "show", "--json", user=NOBODY)
    assert json.loads(result.stdout) == {"error": "io.carplayd.Simulator.NotAuthorized", "parameters": {"uid": NOBODY, "gid": NOBODY}}
    assert daemon.state()[LEFT] != 19
    assert "not a simulator-control user" in daemon.stderr()


@needs_root
def test_simulator_control_users_may(daemons, workdir):
    config = workdir / "panel.conf"
    config.write_text("allow-users = nobody\nsimulator-control-users = nobody\n")
    daemon = daemons("panel-allowed", "sedan", args=["--config", str(config)])
    open_to_everyone(daemon)
    result = ctl(daemon, "car", "set", LEFT, "18.5", user=NOBODY)
    assert result.returncode == 0, result.stderr
    wait_state(daemon, LEFT, 18.5)


def test_simulator_control_off_leaves_the_interface_out(daemons, workdir):
    config = workdir / "panel-off.conf"
    config.write_text("simulator-control = off\n")
    daemon = daemons("panel-off", "sedan", args=["--config", str(config)])
    assert SIMULATOR not in interfaces(daemon)
    with pytest.raises(varlink.VarlinkError) as excinfo:
        simulator(daemon, "GetVehicle")
    assert varlink_error(excinfo)[0] == "org.varlink.service.InterfaceNotFound"
    result = ctl(daemon, "car", "show")
    assert result.returncode == 1 and "no simulated vehicle here" in result.stderr


def test_car_plug_and_drive_on_the_suv(daemons):
    suv = daemons("panel-suv", "suv")
    result = ctl(suv, "car", "plug", "ccs2")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "The car is plugged in at ccs2.\n"
    wait_state(suv, "power.activeConnector", "ccs2")
    refused = ctl(suv, "car", "drive", "50")
    assert refused.returncode == 1 and refused.stderr.startswith("carplayctl car: invalid speedKmh: "), refused.stderr
    assert ctl(suv, "car", "plug", "none").returncode == 0
    result = ctl(suv, "car", "drive", "80")
    assert result.returncode == 0 and result.stdout == "The car is driving at 80 km/h.\n", result.stdout + result.stderr
    wait_state(suv, "power.activeConnector", "none")

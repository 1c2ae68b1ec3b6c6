"""Typed Varlink errors, each naming what is wrong."""

import json
import os
import shutil
import stat
import subprocess
import sys
import textwrap
import time

import pytest
import varlink

from conftest import PROFILES, INTERFACE, commanded, varlink_error


def perform_error(daemon, intent, parameters, method="Perform"):
    with pytest.raises(varlink.VarlinkError) as excinfo:
        daemon.perform(intent, parameters, method=method)
    return varlink_error(excinfo)


# ------------------------------------------------------------------ UnknownIntent
def test_unknown_intent(sedan):
    name, parameters = perform_error(sedan, "FlyToTheMoon", {})
    assert name == "io.carplayd.Vehicle.UnknownIntent"
    assert parameters == {"intent": "FlyToTheMoon"}


# ------------------------------------------------------------------ InvalidParameter
@pytest.mark.parametrize("parameters, bad", [
    ({"fanSpeedIndex": "fast"}, "fanSpeedIndex"),                                  # wrong type
    ({"enableFan": 1}, "enableFan"),                                               # wrong type
    ({"climateZone": "trunk"}, "climateZone"),                                     # not a case
    ({"temperature": {"value": "hot", "unit": "celsius"}}, "temperature.value"),   # wrong nested type
    ({"temperature": {"value": 21, "unit": "kelvin"}}, "temperature.unit"),
    ({"warpDrive": True}, "warpDrive"),                                            # unknown parameter
])
def test_invalid_parameter_names_the_bad_parameter(sedan, parameters, bad):
    name, error = perform_error(sedan, "SetClimateSettingsInCar", parameters)
    assert name == "io.carplayd.Vehicle.InvalidParameter"
    assert error["parameter"] == bad
    assert isinstance(error["reason"], str) and error["reason"]
    # The parameter is named once, in "parameter": a client prints "PARAMETER: REASON".
    assert not error["reason"].startswith(bad + ":"), error


def test_carplayctl_names_an_invalid_parameter_once(sedan):
    """`invalid parameter climateZone: climateZone: expected one of ...` named it twice."""
    from test_dash import carplayctl
    result = subprocess.run([carplayctl(), "--socket", sedan.socket, "call", "Perform",
                             json.dumps({"intent": "SetClimateSettingsInCar", "parameters": {"climateZone": "moon"}})],
                            capture_output=True, text=True, timeout=20)
    assert result.returncode == 1, result
    assert result.stderr.startswith("carplayctl call: invalid parameter climateZone: expected one of driver, "), result.stderr
    assert result.stderr.rstrip().endswith('found "moon"'), result.stderr


@pytest.mark.parametrize("call_parameters, bad", [
    ({"intent": "GetCarLockStatus", "parameters": {}, "priority": "high"}, "priority"),  # unknown top-level key
    ({"intent": 42, "parameters": {}}, "intent"),                                        # wrong type
    ({"parameters": {}}, "intent"),                                                      # missing
    ({"intent": "GetCarLockStatus", "parameters": [1, 2]}, "parameters"),               # wrong type
])
def test_invalid_call_parameters_raw(sedan, call_parameters, bad):
    with sedan.raw() as conn:
        reply = conn.call("io.carplayd.Vehicle.Perform", call_parameters)
    assert reply.get("error") == "io.carplayd.Vehicle.InvalidParameter", reply
    assert reply["parameters"]["parameter"] == bad


def test_parameters_on_a_method_that_takes_none(sedan):
    with sedan.raw() as conn:
        reply = conn.call("io.carplayd.Vehicle.GetState", {"verbose": True})
    assert reply.get("error") == "io.carplayd.Vehicle.InvalidParameter", reply
    assert reply["parameters"]["parameter"] == "verbose"


def test_handle_of_an_unresolved_intent_is_invalid_parameter(sedan):
    before = commanded(sedan.state())
    name, error = perform_error(sedan, "SetClimateSettingsInCar", {"temperature": {"value": 99, "unit": "celsius"}},
                                method="Handle")
    assert name == "io.carplayd.Vehicle.InvalidParameter"
    assert error["parameter"] == "temperature"
    assert commanded(sedan.state()) == before


# ------------------------------------------------------------------ a locked car
# That the shipped cars refuse nothing while locked is engine logic alone: EngineTests'
# aLockedCarTakesClimateSeatsAndSignals, in virtual time. Here: the policy's Varlink error.
def test_the_car_lock_policy_is_carplayds_own(daemons, workdir):
    """A profile may still refuse intents while the car is locked: carplayd's policy,
    answered as CarLocked (the old key name reads the same)."""
    profile = workdir / "locked-sedan"
    shutil.copytree(PROFILES / "sedan", profile)
    text = (profile / "profile.json").read_text()
    text = text.replace('"confirmationTimeoutMs": 300', '"refusedWhileCarLocked": ["SetClimateSettingsInCar"], "confirmationTimeoutMs": 300')
    (profile / "profile.json").write_text(text)
    car = daemons("locked-sedan", profile)
    climate = {"temperature": {"value": 25, "unit": "celsius"}, "climateZone": "frontLeft"}
    assert car.perform("SetCarLockStatus", {"locked": True})["response"]["code"] == "success"
    before = commanded(car.state())
    for method in ("Perform", "Handle"):
        name, parameters = perform_error(car, "SetClimateSettingsInCar", climate, method=method)
        assert name == "io.carplayd.Vehicle.CarLocked", method
        assert parameters == {"intent": "SetClimateSettingsInCar"}
    # Confirm reports the policy as a normal reply with a failure code.
    confirm = car.perform("SetClimateSettingsInCar", climate, method="Confirm")
    assert confirm["response"].get("reason") == "carLocked"
    assert commanded(car.state()) == before
    assert car.perform("SetCarLockStatus", {"locked": False})["response"]["code"] == "success"
    reply = car.perform("SetClimateSettingsInCar", climate)
    assert reply["response"]["code"] == "success"
    assert reply["state"]["climate.temperature.left"] == 25


# ------------------------------------------------------------------ VehicleUnavailable
def test_vehicle_unavailable_when_the_vehicle_falls_silent(daemons):
    silent = daemons("silent", "sedan")  # it speaks,
    # then falls silent, from now: a fault planned for 2 s after the start let a loaded
    # machine's gap of a few hundred ms pass for the silence, and the intent then met the
    # car still talking (seen once, with two builds beside the run).
    with silent.client() as client, client.open("io.carplayd.Simulator", namespaced=False) as simulator:
        simulator.SetFaults(plan={"rules": [{"kind": "silence"}]})
    silent.wait_reachable(False, timeout=10)
    for method in ("Perform", "Handle"):
        name, parameters = perform_error(silent, "SetDefrosterSettingsInCar", {"enable": True, "defroster": "rear"},
                                         method=method)
        assert name == "io.carplayd.Vehicle.VehicleUnavailable", method
        assert isinstance(parameters["reason"], str) and parameters["reason"]
    # Still serving: GetState answers, reachable false.
    assert silent.call("GetState")["reachable"] is False


# ------------------------------------------------------------------ NotAuthorized
NOBODY = 65534

# Runs as nobody with the system python (no venv needed): GetInfo (not restricted),
# then GetState and Perform; prints the replies as JSON lines.
CLIENT = textwrap.dedent("""
    import json, os, socket, sys
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(10)
    s.connect(sys.argv[1])
    buf = b""
    def call(message):
        global buf
        s.sendall(json.dumps(message).encode() + b"\\0")
        while b"\\0" not in buf:
            chunk = s.recv(65536)
            if not chunk:
                raise SystemExit("closed")
            buf += chunk
        reply, _, buf = buf.partition(b"\\0")
        return json.loads(reply)
    print(json.dumps({"uid": os.getuid(), "gid": os.getgid()}))
    print(json.dumps(call({"method": "org.varlink.service.GetInfo"})))
    print(json.dumps(call({"method": "io.carplayd.Vehicle.GetState"})))
    print(json.dumps(call({"method": "io.carplayd.Vehicle.Perform",
                           "parameters": {"intent": "SetCarLockStatus", "parameters": {"locked": True}}})))
""")


def run_as_nobody(socket_path):
    python = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else sys.executable
    result = subprocess.run([python, "-c", CLIENT, socket_path], user=NOBODY, group=NOBODY, extra_groups=[],
                            capture_output=True, text=True, timeout=30, cwd="/")
    assert result.returncode == 0, "client as nobody failed: %s" % result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


def open_to_everyone(daemon):
    """Lets any user reach the socket, so that only the daemon's own check can refuse."""
    os.chmod(os.path.dirname(daemon.socket), 0o755)
    os.chmod(daemon.socket, 0o666)


@pytest.fixture(scope="module")
def open_dir(workdir):
    path = workdir / "open"
    path.mkdir(mode=0o755, exist_ok=True)
    os.chmod(workdir, 0o755)
    return path


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to run a client as another user")
def test_not_authorized_for_another_user(daemons, open_dir):
    guarded = daemons("guarded", "sedan", socket_path=open_dir / "guarded.sock")
    open_to_everyone(guarded)
    before = commanded(guarded.state())
    ident, info, state, perform = run_as_nobody(guarded.socket)
    assert ident == {"uid": NOBODY, "gid": NOBODY}
    # The connection reached the daemon: the filesystem let it through.
    assert "error" not in info and INTERFACE in info["parameters"]["interfaces"], info
    for reply in (state, perform):
        assert reply.get("error") == "io.carplayd.Vehicle.NotAuthorized", reply
        assert reply["parameters"] == {"uid": NOBODY, "gid": NOBODY}
    assert commanded(guarded.state()) == before
    assert before["lock.locked"] is False
    assert "refused" in guarded.stderr() and "uid %d" % NOBODY in guarded.stderr()


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to run a client as another user")
def test_allowed_user_is_served(daemons, open_dir):
    # The client locks the car: SetCarLockStatus is restricted while the caller's device is
    # locked, and whether nobody's process has a logind session depends on where the test
    # runs (the systemd VM test covers the device lock): this test is about authorization.
    allowed = daemons("allowed", "sedan", socket_path=open_dir / "allowed.sock",
                      args=["--allow-user", "nobody", "--restricted-while-locked", "none"])
    open_to_everyone(allowed)
    ident, info, state, perform = run_as_nobody(allowed.socket)
    assert "error" not in state, state
    assert state["parameters"]["reachable"] is True
    assert "error" not in perform and perform["parameters"]["response"]["code"] == "success", perform
    assert allowed.perform("SetCarLockStatus", {"locked": False})["response"]["code"] == "success"


# ------------------------------------------------------------------ org.varlink.service errors
@pytest.mark.parametrize("method", ["io.carplayd.Vehicle.Teleport", "org.varlink.service.Reboot"])
def test_unknown_method_is_method_not_found(sedan, method):
    with sedan.raw() as conn:
        reply = conn.call(method, {})
    assert reply.get("error") == "org.varlink.service.MethodNotFound", reply
    assert reply["parameters"] == {"method": method}


def test_unknown_interface_is_interface_not_found(sedan):
    with sedan.raw() as conn:
        reply = conn.call("io.example.Nothing.Ping", {})
    assert reply.get("error") == "org.varlink.service.InterfaceNotFound", reply
    assert reply["parameters"] == {"interface": "io.example.Nothing"}


def test_method_not_found_through_the_varlink_package(sedan):
    # The package refuses unknown methods itself; GetInterfaceDescription of a bad name
    # goes to the daemon.
    with sedan.client() as client:
        connection = client.open_connection()
        with client.open("org.varlink.service", connection=connection) as service:
            with pytest.raises(varlink.VarlinkError) as excinfo:
                service.GetInterfaceDescription("io.carplayd.Nothing")
    assert varlink_error(excinfo) == ("org.varlink.service.InterfaceNotFound", {"interface": "io.carplayd.Nothing"})

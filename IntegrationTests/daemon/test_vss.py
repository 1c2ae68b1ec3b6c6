"""io.carplayd.VSS: the car by VSS 5.1 paths on carplayd's own socket (what
carplayd-kuksa serves as KUKSA's API). Reads answer from the state; Actuate answers
only once the car's status frames confirm, or with a typed error that says why not."""

import json
import os
import subprocess
import sys
import threading

import pytest
import varlink

from conftest import binary, varlink_error

VSS = "io.carplayd.VSS"
DRIVER_TEMPERATURE = "Vehicle.Cabin.HVAC.Station.Row1.Driver.Temperature"


def vss(daemon):
    client = daemon.client()
    return client, client.open(VSS, namespaced=False)


def vehicle_state(daemon):
    client = daemon.client()
    with client, client.open("io.carplayd.Vehicle", namespaced=False) as vehicle:
        return vehicle.GetState()["state"]


def test_the_interface_is_served_and_introspectable(sedan):
    result = subprocess.run([sys.executable, "-m", "varlink.cli", "help", "unix:%s/%s" % (sedan.socket, VSS)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "method Actuate(targets: object)" in result.stdout
    assert "error ActuationFailed" in result.stdout


def test_describe_lists_what_the_sedan_binds(sedan):
    client, service = vss(sedan)
    with client, service:
        reply = service.Describe()
    assert reply["release"] == "5.1"
    signals = {signal["path"]: signal for signal in reply["signals"]}
    temperature = signals[DRIVER_TEMPERATURE]
    assert (temperature["datatype"], temperature["unit"], temperature["entryType"]) == ("float", "celsius", "actuator")
    assert temperature["keys"] == ["climate.temperature.left"]
    assert signals["Vehicle.Powertrain.FuelSystem.RelativeLevel"]["entryType"] == "sensor"
    assert signals["Vehicle.Cabin.Infotainment.Media.Radio.Frequency"]["overlay"] is True
    assert "Vehicle.Powertrain.TractionBattery.StateOfCharge.Current" not in signals


def test_actuate_answers_with_what_the_car_confirmed(sedan):
    client, service = vss(sedan)
    with client, service:
        reply = service.Actuate(targets={DRIVER_TEMPERATURE: 23.5})
        print("Actuate confirmed in %.1f ms" % (reply["elapsed"] * 1000))
        assert reply["values"] == {DRIVER_TEMPERATURE: 23.5}
        assert service.Get(paths=[DRIVER_TEMPERATURE])["values"] == {DRIVER_TEMPERATURE: 23.5}
    # The same state io.carplayd.Vehicle reads from the status frames.
    assert vehicle_state(sedan)["climate.temperature.left"] == 23.5


def test_a_percentage_takes_the_nearest_level_and_says_so(sedan):
    client, service = vss(sedan)
    path = "Vehicle.Cabin.Seat.Row1.DriverSide.HeatingCooling"
    with client, service:
        reply = service.Actuate(targets={path: 60})
        # Three levels: 60 % is level 2, which reads as 67 %.
        assert reply["values"] == {path: 67}
        assert service.Actuate(targets={path: 0})["values"] == {path: 0}
    assert vehicle_state(sedan)["seat.frontLeft.heating"] == 0


@pytest.mark.parametrize("targets, error, parameters", [
    ({"Vehicle.Cabin.Nothing": 1}, "NoSuchSignal", {"path": "Vehicle.Cabin.Nothing"}),
    ({"Vehicle.Powertrain.FuelSystem.RelativeLevel": 5}, "NotActuatable",
     {"path": "Vehicle.Powertrain.FuelSystem.RelativeLevel", "reason": "a sensor"}),
    ({DRIVER_TEMPERATURE: "warm"}, "InvalidValue", {"path": DRIVER_TEMPERATURE, "reason": "expected float, found a string"}),
    ({"Vehicle.Body.Horn.IsActive": False}, "InvalidValue", None),
])
def test_what_cannot_be_set_is_a_typed_error(sedan, targets, error, parameters):
    client, service = vss(sedan)
    with client, service, pytest.raises(varlink.VarlinkError) as excinfo:
        service.Actuate(targets=targets)
    name, got = varlink_error(excinfo)
    assert name == "%s.%s" % (VSS, error)
    if parameters is not None:
        assert got == parameters
    assert got["path"] == next(iter(targets))


def test_a_value_out_of_the_cars_range_names_the_path_and_why(sedan):
    client, service = vss(sedan)
    with client, service, pytest.raises(varlink.VarlinkError) as excinfo:
        service.Actuate(targets={DRIVER_TEMPERATURE: 45})
    name, parameters = varlink_error(excinfo)
    assert name == VSS + ".InvalidValue"
    assert parameters["path"] == DRIVER_TEMPERATURE and "above the maximum" in parameters["reason"], parameters


def test_a_rejecting_car_is_an_error_never_a_success(daemons):
    rejecting = daemons("rejecting", "sedan", args=["--simulator-faults", '{"rules":[{"kind":"reject"}]}'])
    before = vehicle_state(rejecting)["climate.temperature.left"]
    client, service = vss(rejecting)
    with client, service, pytest.raises(varlink.VarlinkError) as excinfo:
        service.Actuate(targets={DRIVER_TEMPERATURE: before + 2})
    name, parameters = varlink_error(excinfo)
    assert name == VSS + ".ActuationFailed"
    assert parameters["reason"] == "rejectedByVehicle" and parameters["path"] == DRIVER_TEMPERATURE, parameters
    assert vehicle_state(rejecting)["climate.temperature.left"] == before


def test_monitor_streams_a_change_made_through_the_intents(sedan):
    client, service = vss(sedan)
    path = "Vehicle.Cabin.HVAC.IsRearDefrosterActive"
    replies = []
    seen = threading.Event()
    with client, service:
        stream = service.Monitor(paths=[path], _more=True)
        replies.append(next(stream))
        start = replies[0]["values"].get(path)

        def perform():
            other = sedan.client()
            with other, other.open("io.carplayd.Vehicle", namespaced=False) as vehicle:
                vehicle.SetDefrosterSettingsInCar(enable=not start, defroster="rear")
            seen.set()

        worker = threading.Thread(target=perform)
        worker.start()
        for reply in stream:
            replies.append(reply)
            if reply["values"].get(path) == (not start):
                break
        worker.join(timeout=120)
    assert seen.is_set()
    assert replies[-1]["values"] == {path: not start}, replies


def test_carplayctl_status_by_vss_path(sedan):
    carplayctl = os.path.join(os.path.dirname(binary()), "carplayctl")
    assert os.access(carplayctl, os.X_OK), "no carplayctl beside carplayd at %s (build it)" % carplayctl
    client, service = vss(sedan)
    with client, service:
        expected = service.Get(paths=[DRIVER_TEMPERATURE])["values"][DRIVER_TEMPERATURE]
    text = subprocess.run([carplayctl, "status", "--vss", "--socket", sedan.socket], capture_output=True, text=True, timeout=60)
    assert text.returncode == 0, text.stderr
    assert "%s = %s\n" % (DRIVER_TEMPERATURE, expected) in text.stdout
    assert text.stdout.endswith("reachable: yes\n")
    raw = subprocess.run([carplayctl, "status", "--vss", "--json", "--socket", sedan.socket], capture_output=True, text=True, timeout=60)
    assert raw.returncode == 0, raw.stderr
    assert json.loads(raw.stdout)["values"][DRIVER_TEMPERATURE] == expected

"""The typed methods of io.carplayd.Vehicle: one per intent, named as Apple names the
intent, every parameter and reply typed in the served description. The varlink
package's client checks the types of what it sends and receives (a reply member of the
wrong type raises InvalidParameter, an undeclared one is dropped), so these tests also
compare with the raw reply."""

import subprocess
import sys

import pytest
import varlink

from conftest import INTERFACE, varlink_error


def typed(daemon):
    client = daemon.client()
    return client, client.open(INTERFACE, namespaced=False)


def test_introspection_shows_typed_methods(sedan):
    """`python3 -m varlink.cli help` shows the contract, not `object`s."""
    address = "unix:" + sedan.socket
    result = subprocess.run([sys.executable, "-m", "varlink.cli", "help", f"{address}/{INTERFACE}"],
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    text = result.stdout
    assert "method SetClimateSettingsInCar(" in text
    assert "temperature: ?Temperature" in text
    assert "type CarAudioSource (sourceCarPlay" in text
    assert "method ListCars(" in text
    assert "type Car (carIdentifier: string" in text


def test_climate_through_the_typed_method(sedan):
    client, vehicle = typed(sedan)
    with client, vehicle:
        reply = vehicle.SetClimateSettingsInCar(temperature={"value": 22.0, "unit": "celsius"}, climateZone="driver")
    assert reply["response"] == {"code": "success"}, reply
    assert reply["resolutions"]["temperature"] == {"kind": "success", "value": {"value": 22.0, "unit": "celsius"}}
    assert reply["resolutions"]["enableFan"] == {"kind": "notRequired"}
    assert reply["frames"], "the frames sent and received"
    # The state grouped as VehicleState: climate.temperature[zone].
    assert 22.0 in reply["state"]["climate"]["temperature"].values(), reply["state"]
    # The typed reply is the raw reply: the client dropped nothing it did not declare.
    with sedan.raw() as conn:
        raw = conn.call(INTERFACE + ".SetClimateSettingsInCar",
                        {"temperature": {"value": 22.0, "unit": "celsius"}, "climateZone": "driver"})
    assert set(raw["parameters"]) == {"resolutions", "response", "frames", "state"}
    # The same settings both times; the cabin's reading moves toward the set point
    # between the two calls (by 0.5 °C steps, further the longer a loaded host takes).
    def settings(state):
        return {key: value for key, value in state["climate"].items() if key != "cabinTemperature"}
    assert settings(raw["parameters"]["state"]) == settings(reply["state"])
    assert set(raw["parameters"]["state"]["climate"]) == set(reply["state"]["climate"])


def test_phases_as_a_parameter(sedan):
    client, vehicle = typed(sedan)
    with client, vehicle:
        resolved = vehicle.SetSeatSettingsInCar(phase="resolve", enableHeating=True, seat="driver", level=9)
        confirmed = vehicle.SetSeatSettingsInCar(phase="confirm", enableHeating=True, seat="driver", level=2)
    assert resolved["ready"] is False
    assert resolved["resolutions"]["level"]["kind"] == "confirmationRequired"
    assert "response" not in resolved and "frames" not in resolved
    assert confirmed["response"]["code"] == "ready"
    assert "frames" not in confirmed


def test_enums_use_apples_swift_names(sedan):
    client, vehicle = typed(sedan)
    with client, vehicle:
        reply = vehicle.SetAudioSourceInCar(audioSource="sourceBluetooth")
        state = vehicle.GetState()
    assert reply["response"]["code"] == "success", reply
    assert reply["resolutions"]["audioSource"] == {"kind": "success", "value": "sourceBluetooth"}
    assert reply["state"]["audio"]["source"] == "sourceBluetooth"
    assert state["state"]["audio.source"] == "sourceBluetooth"
    assert state["bus"]["kind"] == "embedded"


def test_car_commands_typed(suv):
    client, vehicle = typed(suv)
    with client, vehicle:
        cars = vehicle.ListCars()
        signal = vehicle.ActivateCarSignal(signals=["visible"])
        locked = vehicle.SetCarLockStatus(locked=True)
        status = vehicle.GetCarLockStatus()
        power = vehicle.GetCarPowerLevelStatus()
    car = cars["response"]["cars"][0]
    assert car["carIdentifier"] and car["displayName"]
    assert "ccs2" in car["supportedChargingConnectors"]
    assert signal["response"] == {"code": "success", "signals": ["visible"]}, signal
    assert locked["response"]["code"] == "success"
    assert status["response"] == {"code": "success", "locked": True}
    assert 0.0 <= power["response"]["chargePercentRemaining"] <= 1.0


def test_bad_calls_name_the_parameter(sedan):
    """Checked against the declaration before the intent is parsed."""
    cases = [
        ({"temperature": {"value": 21, "unit": "kelvin"}}, "temperature.unit"),
        ({"temperature": {"unit": "celsius"}}, "temperature.value"),
        ({"climateZone": "trunk"}, "climateZone"),
        ({"fanSpeedIndex": "two"}, "fanSpeedIndex"),
        ({"phase": "later"}, "phase"),
        ({"seat": "driver"}, "seat"),
    ]
    for parameters, parameter in cases:
        with sedan.raw() as conn:
            reply = conn.call(INTERFACE + ".SetClimateSettingsInCar", parameters)
        assert reply.get("error") == INTERFACE + ".InvalidParameter", (parameters, reply)
        assert reply["parameters"]["parameter"] == parameter, (parameters, reply)
        assert reply["parameters"]["reason"], reply
    # The client refuses a value of the wrong type itself, before sending.
    client, vehicle = typed(sedan)
    with client, vehicle, pytest.raises(varlink.VarlinkError) as excinfo:
        vehicle.SetSeatSettingsInCar(seat="driver", level="high")
    name, _ = varlink_error(excinfo)
    assert name.endswith("InvalidParameter")


def test_typed_and_generic_run_one_pipeline(sedan):
    """The same intent through Perform and the typed method: the same response and
    resolutions; the state flat in one, grouped in the other."""
    parameters = {"enableHeating": True, "seat": "passenger", "level": 1}
    generic = sedan.perform("SetSeatSettingsInCar", parameters)
    client, vehicle = typed(sedan)
    with client, vehicle:
        typed_reply = vehicle.SetSeatSettingsInCar(**parameters)
    assert generic["response"] == typed_reply["response"] == {"code": "success"}
    assert generic["resolutions"] == typed_reply["resolutions"]
    flat = {key: value for key, value in generic["state"].items() if key.startswith("seat.")}
    for key, value in flat.items():
        _, seat, feature = key.split(".")
        assert typed_reply["state"]["seat"][seat][feature] == value


def test_namespaced_client_reads_typed_members(sedan):
    """docs/INTENTS.md's example: a namespaced client gives the typed members as attributes."""
    with sedan.client() as client, client.open(INTERFACE, namespaced=True) as vehicle:
        reply = vehicle.SetSeatSettingsInCar(enableHeating=True, seat="driver", level=2)
    assert reply.response.code == "success"
    assert reply.state.seat["frontLeft"].heating == 2

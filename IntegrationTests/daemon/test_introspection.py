"""org.varlink.service on carplayd: GetInfo, GetInterfaceDescription, and the
varlink package parsing the served description."""

import pytest
import varlink

from conftest import INTERFACE, REPO, varlink_error


def test_get_info_lists_the_vehicle_interface(sedan):
    with sedan.raw() as conn:
        reply = conn.call("org.varlink.service.GetInfo")
    assert "error" not in reply, reply
    info = reply["parameters"]
    assert INTERFACE in info["interfaces"]
    assert "org.varlink.service" in info["interfaces"]
    assert info["product"] == "carplayd"
    for key in ("vendor", "version", "url"):
        assert isinstance(info[key], str) and info[key]


def test_interface_description_is_the_shipped_file_byte_for_byte(sedan):
    expected = (REPO / "docs" / "io.carplayd.Vehicle.varlink").read_bytes()
    with sedan.raw() as conn:
        reply = conn.call("org.varlink.service.GetInterfaceDescription", {"interface": INTERFACE})
    assert "error" not in reply, reply
    assert reply["parameters"]["description"].encode("utf-8") == expected


def test_varlink_package_parses_the_description_and_lists_every_method(sedan):
    with sedan.client() as client:
        assert INTERFACE in client.get_interfaces()
        with client.open(INTERFACE, namespaced=False) as vehicle:
            for method in ("Describe", "GetState", "GetBusTraffic", "Resolve", "Confirm", "Handle", "Perform", "Monitor"):
                assert callable(getattr(vehicle, method, None)), method
            vehicle_description = vehicle.Describe()["vehicle"]
    assert vehicle_description["identifier"] == "sedan"
    # The package parsed every member of the served description: methods and typed errors.
    interface = client._interfaces[INTERFACE]
    kinds = {}
    for name, member in interface.members.items():
        kinds.setdefault(type(member).__name__, set()).add(name)
    intents = {"SetClimateSettingsInCar", "SetDefrosterSettingsInCar", "SetSeatSettingsInCar", "SetAudioSourceInCar",
               "SetRadioStation", "SaveProfileInCar", "SetProfileInCar", "SetCarLockStatus", "GetCarLockStatus",
               "ActivateCarSignal", "GetCarPowerLevelStatus", "ListCars"}
    assert kinds["_Method"] == {"Describe", "GetState", "GetBusTraffic", "Resolve", "Confirm", "Handle", "Perform", "Monitor"} | intents
    assert kinds["_Error"] == {"InvalidParameter", "UnknownIntent", "VehicleUnavailable", "NotAuthorized",
                               "RestrictedWhileLocked", "CarLocked", "BusOff"}
    assert {"VehicleState", "Car", "CANBus", "Temperature", "CarSeat", "CarAudioSource"} <= kinds["_Alias"]


def test_service_description_parses_with_the_varlink_package(sedan):
    with sedan.raw() as conn:
        reply = conn.call("org.varlink.service.GetInterfaceDescription", {"interface": "org.varlink.service"})
    interface = varlink.Interface(reply["parameters"]["description"])
    assert interface.name == "org.varlink.service"
    assert interface.get_method("GetInfo") is not None


def test_unknown_interface_description_is_interface_not_found(sedan):
    with sedan.client() as client, pytest.raises(varlink.VarlinkError) as excinfo:
        client.open("io.example.NoSuch")
    name, parameters = varlink_error(excinfo)
    assert name == "org.varlink.service.InterfaceNotFound"
    assert parameters == {"interface": "io.example.NoSuch"}

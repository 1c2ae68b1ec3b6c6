"""The car's own panel on a real kernel CAN stack: carplay-ecu --control serves
io.carplayd.Simulator on a socket of its own (the same methods as carplayd's embedded
vehicle), the daemon on vcan0 learns of the driver's change from the bus only, and
carplayd itself, on a real bus, does not offer the interface at all.
"""

import os
import subprocess
import time

import pytest
import varlink

from test_vcan import BIN, Rig, rig_factory, vcan  # noqa: F401  (fixtures)

LEFT = "climate.temperature.left"


def wait_state(rig, key, value, timeout=20):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if rig.call("GetState")["state"].get(key) == value:
            return
        time.sleep(0.1)
    raise AssertionError("carplayd never showed %s=%r:\n%s" % (key, value, rig.logs()))


def test_carplay_ecu_control_drives_the_car_and_carplayd_on_a_bus_has_no_simulator(rig_factory):  # noqa: F811
    # The rig's directory is made after the ECU starts: a fixed short path of its own.
    path = "/tmp/cpd-ecu-control-%d.sock" % os.getpid()
    rig = rig_factory("sedan", ecu_args=["--control", path])

    # carplayd on vcan0: io.carplayd.Simulator is absent, calls find no interface.
    with varlink.Client(address="unix:" + rig.socket) as client:
        assert "io.carplayd.Simulator" not in client.get_interfaces()
    with pytest.raises(varlink.VarlinkError) as excinfo:
        with varlink.Client(address="unix:" + rig.socket) as client, client.open("io.carplayd.Simulator", namespaced=False) as sim:
            sim.GetVehicle()
    assert excinfo.value.error() == "org.varlink.service.InterfaceNotFound"

    # carplay-ecu's own socket serves it; carplayctl car works against it.
    with varlink.Client(address="unix:" + path) as client:
        assert "io.carplayd.Simulator" in client.get_interfaces()
    result = subprocess.run([str(BIN / "carplayctl"), "--socket", path, "car", "set", LEFT, "19"],
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr + rig.logs()
    wait_state(rig, LEFT, 19)
    reply = rig.call("Resolve", intent="SetClimateSettingsInCar",
                     parameters={"relativeTemperatureSetting": "higher", "climateZone": "driver"})
    assert reply["resolutions"]["relativeTemperatureSetting"]["value"] == {"left": 19.5}
    assert "the driver set climate.temperature.left=19.0" in rig.ecu.text()

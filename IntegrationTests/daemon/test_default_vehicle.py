"""Without a profile carplayd serves the example sedan (Daemon.defaultVehicle), not the
first folder by name (the Ford), and its start-up line says so."""

import subprocess

from test_dash import carplayctl


def test_no_profile_serves_the_sedan_and_says_so(daemons):
    # --config /dev/null: a profile in this machine's /etc/carplayd/carplayd.conf must not count.
    daemon = daemons("default", profile=None, use_profile_option=False, args=["--config", "/dev/null"])
    vehicle = daemon.call("Describe")["vehicle"]
    assert vehicle["identifier"] == "sedan", vehicle["identifier"]
    assert "the Example Sedan (profile " in daemon.stderr()
    assert "VehicleProfiles/sedan, the default vehicle: no profile configured)" in daemon.stderr()
    reply = daemon.perform("GetCarPowerLevelStatus", {})
    assert reply["response"]["code"] == "success", reply["response"]


def test_carplayctl_status_names_the_car(daemons):
    daemon = daemons("default-status", profile="suv")
    status = subprocess.run([carplayctl(), "--socket", daemon.socket, "status"], capture_output=True, text=True, timeout=20)
    assert status.returncode == 0, status.stderr
    assert status.stdout.splitlines()[:2] == ["vehicle", "  car           Example SUV (profile suv)"], status.stdout

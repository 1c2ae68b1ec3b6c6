"""`carplayctl profile try` on a real kernel CAN stack against carplay-ecu (issue 26): a
binding whose message the car never sends is flagged, the others read; with
--commands each command goes out and is confirmed by the car's status."""

import shutil
import subprocess

from test_vcan import BIN, IFACE, REPO, Process, vcan  # noqa: F401  (fixture)


def test_a_wrong_binding_is_flagged_and_commands_are_confirmed(tmp_path):
    sedan = REPO / "VehicleProfiles" / "sedan"
    ecu = Process("carplay-ecu", [str(BIN / "carplay-ecu"), "--can", IFACE, "--profile", str(sedan)])
    try:
        # A copy with the cabin temperature bound to a message the car never sends (the
        # head unit's own climate request).
        wrong = tmp_path / "sedan-wrong"
        shutil.copytree(sedan, wrong)
        text = (wrong / "profile.json").read_text()
        good = '"climate.cabinTemperature": {"status": {"message": "ClimateStatus", "signal": "CabinTemperature"}}'
        assert good in text
        text = text.replace(good, '"climate.cabinTemperature": {"status": {"message": "ClimateCommand", "signal": "TargetTempLeft"}}')
        # As a status message it needs a period (the DBC gives the request none).
        text = text.replace('"ClimateCommand": {"protection"', '"ClimateCommand": {"cycleTimeMs": 100, "protection"')
        (wrong / "profile.json").write_text(text)
        result = subprocess.run([str(BIN / "carplayctl"), "profile", "try", str(wrong), "--can", IFACE, "--seconds", "2"],
                                capture_output=True, text=True, timeout=60)
        assert result.returncode == 1, result.stdout + result.stderr
        rows = {line.split()[0]: line for line in result.stdout.splitlines() if line.startswith(("climate.", "lock.", "seat."))}
        assert "NEVER ARRIVES" in rows["climate.cabinTemperature"], result.stdout
        assert "NEVER ARRIVES" not in rows["climate.temperature.left"] and "UNREADABLE" not in rows["climate.temperature.left"], result.stdout
        assert rows["climate.temperature.left"].split()[2] != "0", result.stdout

        # The right profile, with its commands: each confirmed by the car.
        result = subprocess.run([str(BIN / "carplayctl"), "profile", "try", str(sedan), "--can", IFACE, "--seconds", "1", "--commands"],
                                capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, result.stdout + result.stderr + ecu.text()
        assert "climate.airConditioner -> false: confirmed by the status" in result.stdout, result.stdout
        assert "NOT CONFIRMED" not in result.stdout, result.stdout
    finally:
        ecu.stop()

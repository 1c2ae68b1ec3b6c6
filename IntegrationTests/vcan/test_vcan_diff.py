"""`carplayctl dbc diff` closed on the project's own ground truth (issue 26): for every
shipped profile, candump records carplay-ecu's bus before and after a driver-side change
made through its control socket (`carplayctl car set`), and the diff of the two logs must
rank the profile's bound status signal for that property first.
"""

import json
import os
import subprocess
import time

import pytest

from test_vcan import BIN, IFACE, REPO, Process, vcan  # noqa: F401  (fixture)

# One driver-side change per car: a property with a status signal of its own.
CHANGES = {
    "sedan": ("climate.airConditioner", "false"),
    "suv": ("climate.airConditioner", "false"),
    "ford-cgea": ("lock.locked", "true"),
    "gm-global-a-lowspeed": ("defroster.rear", "true"),
    "hyundai-ccan": ("climate.autoMode", "true"),
    "hyundai-kia-generic": ("climate.airConditioner", "false"),
    "hyundai-mcan": ("climate.airConditioner", "false"),
    "tesla-model-s": ("defroster.front", "true"),
    "toyota-2017": ("defroster.front", "true"),
    "vw-mqb": ("lock.locked", "true"),
}


def record(path, seconds):
    with open(path, "w") as log:
        subprocess.run(["timeout", str(seconds), "candump", "-L", IFACE], stdout=log, stderr=subprocess.DEVNULL)


@pytest.mark.parametrize("profile", sorted(CHANGES))
def test_diff_ranks_the_changed_status_first(tmp_path, profile):
    key, value = CHANGES[profile]
    folder = REPO / "VehicleProfiles" / profile
    settings = json.loads((folder / "profile.json").read_text())
    binding = settings["bindings"][key]["status"]
    control = "/tmp/cpd-diff-%d.sock" % os.getpid()
    ecu = Process("carplay-ecu", [str(BIN / "carplay-ecu"), "--can", IFACE, "--profile", str(folder), "--control", control])
    try:
        deadline = time.time() + 20
        while not os.path.exists(control) and time.time() < deadline:
            time.sleep(0.05)
        assert os.path.exists(control), ecu.text()
        # Long enough for several frames of a 1 s status message.
        window = 3 if any(m.get("cycleTimeMs", 0) >= 500 for m in settings.get("messages", {}).values()) else 2
        record(tmp_path / "before.log", window)
        result = subprocess.run([str(BIN / "carplayctl"), "--socket", control, "car", "set", key, value],
                                capture_output=True, text=True, timeout=30)
        assert result.returncode == 0, result.stderr + ecu.text()
        time.sleep(0.2)
        record(tmp_path / "after.log", window)
    finally:
        ecu.stop()
    diff = subprocess.run([str(BIN / "carplayctl"), "dbc", "diff", "--json", str(folder / settings["dbc"]),
                           str(tmp_path / "before.log"), str(tmp_path / "after.log")], capture_output=True, text=True, timeout=60)
    assert diff.returncode == 0, diff.stderr
    changes = json.loads(diff.stdout)
    assert changes, "no signal changed in %s" % (tmp_path / "after.log").read_text()[:2000]
    first = changes[0]
    assert (first["message"], first["signal"]) == (binding["message"], binding["signal"]), json.dumps(changes[:5], indent=1)

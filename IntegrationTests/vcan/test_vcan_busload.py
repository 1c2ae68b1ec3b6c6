"""The kernel filters that keep a real car's full bus away from carplayd: only the IDs
the profile reads reach its socket, also after a reconnect and a reload. (The full bus
itself, carplay-ecu --bus-load, runs in test_vcan.py's every-intent matrix.)"""

import re
import signal
import subprocess
import time

from test_vcan import IFACE, foreign_received, rig_factory  # noqa: F401  (the fixture)

FOREIGN = ["7FF#DEADBEEF", "123#00", "1ABCDEF0#0011223344556677", "555#0102"]


def test_kernel_filters_after_reconnect_and_reload(rig_factory):  # noqa: F811
    rig = rig_factory("sedan")

    def send_foreign(when):
        for frame in FOREIGN:
            subprocess.run(["cansend", IFACE, frame], check=True)
        time.sleep(0.5)
        assert foreign_received(rig, "sedan") == [], "%s: frames past the kernel filters" % when

    send_foreign("at start")
    subprocess.run(["ip", "link", "set", IFACE, "down"], check=True)
    time.sleep(1.0)
    subprocess.run(["ip", "link", "set", IFACE, "up"], check=True)
    assert rig.wait_reachable(60), "not reachable within 60 s\n" + rig.logs()
    assert rig.call("GetState")["bus"]["restarts"] >= 1, "the socket was reopened"
    send_foreign("after a reconnect")
    rig.daemon.proc.send_signal(signal.SIGHUP)
    deadline = time.time() + 30
    while "reloaded" not in rig.daemon.text() and time.time() < deadline:
        time.sleep(0.1)
    assert "reloaded" in rig.daemon.text(), rig.logs()
    assert rig.wait_reachable(60), "not reachable within 60 s\n" + rig.logs()
    send_foreign("after a reload")
    reply = rig.perform({"intent": "SetCarLockStatus", "parameters": {"locked": True}})
    assert reply["response"]["code"] == "success", "%s\n%s" % (reply["response"], rig.logs())


def test_bus_load_fitted_to_a_slow_bus(rig_factory):  # noqa: F811
    """GM's low-speed body bus runs at 33.3 kbit/s and its DBC gives no cycle times: with
    --bitrate, carplay-ecu sends the rest of the bus as often as such a bus could carry
    (half of it), and carplayd still confirms intents on it."""
    rig = rig_factory("gm-global-a-lowspeed", ecu_args=["--bus-load", "--bitrate", "33333"])
    line = next((l for l in rig.ecu.text().splitlines() if "bus load:" in l), "")
    match = re.search(r"(\d+) % of 33333 bit/s \((\d+) % at 100 ms", line)
    assert match, "no fitted bus load in carplay-ecu's log: %r\n%s" % (line, rig.logs())
    fitted, planned = int(match.group(1)), int(match.group(2))
    assert fitted <= 50 < planned, line
    for enable in (True, False):
        reply = rig.perform({"intent": "SetDefrosterSettingsInCar", "parameters": {"enable": enable, "defroster": "rear"}})
        assert reply["response"]["code"] == "success", "%s\n%s" % (reply["response"], rig.logs())
    ids = {frame_id for frame_id, _ in rig.captured()}
    assert len(ids) > 40, "only %d IDs on the bus: the load did not run" % len(ids)
    assert foreign_received(rig, "gm-global-a-lowspeed") == [], "frames past the kernel filters"

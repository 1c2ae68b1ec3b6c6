"""The kernel filters that keep a real car's full bus away from carplayd: only the IDs
the profile reads reach its socket, also after a reconnect and a reload. (The full bus
itself, carplay-ecu --bus-load, runs in test_vcan.py's every-intent matrix.)"""

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

"""carplayd on a real car's full bus (carplay-ecu --bus-load: every message of the DBC at
its cycle time), and the kernel filters that keep that bus away from it: only the IDs
the profile reads reach carplayd's socket, also after a reconnect and a reload."""

import json
import signal
import subprocess
import time

from test_vcan import IFACE, REPO, every_intent_problems, rig_factory  # noqa: F401  (the fixture)

FOREIGN = ["7FF#DEADBEEF", "123#00", "1ABCDEF0#0011223344556677", "555#0102"]


def read_ids(profile):
    """The names of the messages carplayd reads: its bindings' status messages and the
    acknowledgement."""
    data = json.loads((REPO / "VehicleProfiles" / profile / "profile.json").read_text())
    names = {binding["status"]["message"] for binding in data["bindings"].values() if "status" in binding}
    if data.get("acknowledgement"):
        names.add(data["acknowledgement"]["message"])
    return names


def traffic(rig):
    return rig.call("GetBusTraffic")["messages"]


def foreign_received(rig, profile):
    """Messages carplayd's socket received that it does not read: the kernel filters let
    nothing else through."""
    wanted = read_ids(profile)
    return [m for m in traffic(rig) if m["received"] > 0 and m.get("name") not in wanted]


def wait_reachable(rig, seconds=60):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            if rig.call("GetState")["reachable"]:
                return
        except Exception:
            pass
        time.sleep(0.1)
    raise AssertionError("not reachable within %d s\n%s" % (seconds, rig.logs()))


def test_intents_confirmed_on_a_real_cars_full_bus(rig_factory):  # noqa: F811
    rig = rig_factory("hyundai-mcan", ecu_args=["--bus-load"])
    problems = every_intent_problems(rig, "hyundai-mcan")
    assert not problems, "\n".join(problems) + "\n" + rig.logs()
    # The bus carried the whole car, not only what carplayd reads.
    ids = {frame_id for frame_id, _ in rig.captured()}
    assert len(ids) > 40, "only %d IDs on the bus: the load did not run\n%s" % (len(ids), rig.ecu.text()[-2000:])
    assert "bus load:" in rig.ecu.text()
    assert foreign_received(rig, "hyundai-mcan") == [], "frames past the kernel filters"
    bus = rig.call("GetState")["bus"]
    assert bus["droppedFrames"] == 0 and bus["untrustedFrames"] == 0, bus


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
    wait_reachable(rig)
    assert rig.call("GetState")["bus"]["restarts"] >= 1, "the socket was reopened"
    send_foreign("after a reconnect")
    rig.daemon.proc.send_signal(signal.SIGHUP)
    deadline = time.time() + 30
    while "reloaded" not in rig.daemon.text() and time.time() < deadline:
        time.sleep(0.1)
    assert "reloaded" in rig.daemon.text(), rig.logs()
    wait_reachable(rig)
    send_foreign("after a reload")
    reply = rig.perform({"intent": "SetCarLockStatus", "parameters": {"locked": True}})
    assert reply["response"]["code"] == "success", "%s\n%s" % (reply["response"], rig.logs())

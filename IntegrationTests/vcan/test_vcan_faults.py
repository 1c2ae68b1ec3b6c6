"""Faults on a real kernel CAN stack (vcan0): a rogue process replays and forges
command frames, error frames reach carplayd's bus health, untrusted status frames are
counted and logged. Run with the rest of IntegrationTests/vcan (IntegrationTests/vcan/run.sh).

vcan has no controller, so it never produces error frames itself; but a CAN_RAW socket
may send a frame with CAN_ERR_FLAG set, and vcan delivers it to every socket whose error
mask accepts it (carplayd's does), which is how these tests inject error-passive,
bus-off and restarted.
"""

import subprocess
import time

import cantools
import pytest
import varlink

from test_vcan import IFACE, REPO, Rig, rig_factory, vcan, wait_for  # noqa: F401  (fixtures)

DBC = cantools.database.load_file(str(REPO / "VehicleProfiles" / "sedan" / "sedan.dbc"))
SEAT_COMMAND = DBC.get_message_by_name("SeatCommand")
SEAT_STATUS = DBC.get_message_by_name("SeatStatus")
CLIMATE_STATUS = DBC.get_message_by_name("ClimateStatus")


def captured_lines(rig):
    time.sleep(0.2)
    return [line for line in rig.capture.read_text().splitlines() if line.strip()]


def frames_with_id(rig, frame_id):
    out = []
    for line in captured_lines(rig):
        _, _, frame = line.split(" ", 2)
        ident, _, data = frame.partition("#")
        if int(ident, 16) == frame_id:
            out.append(data)
    return out


def cansend(frame):
    subprocess.run(["cansend", IFACE, frame], check=True)


def set_heating(rig, level):
    return rig.perform({"intent": "SetSeatSettingsInCar", "parameters": {"enableHeating": True, "seat": "driver", "level": level}})


def sent_frames(rig):
    """Frames carplayd sent so far, by its own count (GetBusTraffic)."""
    return sum(m["sent"] for m in rig.call("GetBusTraffic")["messages"])


def seat_statuses_after(rig, moment):
    """The front-left heating of every SeatStatus frame candump stamped after `moment`."""
    heating = []
    for line in captured_lines(rig):
        stamp, _, frame = line.split(" ", 2)
        ident, _, data = frame.partition("#")
        if int(ident, 16) == SEAT_STATUS.frame_id and float(stamp.strip("()")) > moment:
            heating.append(SEAT_STATUS.decode(bytes.fromhex(data), decode_choices=False)["HeatFrontLeft"])
    return heating


def last_seat_status_heating(rig):
    data = frames_with_id(rig, SEAT_STATUS.frame_id)[-1]
    return SEAT_STATUS.decode(bytes.fromhex(data), decode_choices=False)["HeatFrontLeft"]


def test_rogue_replayed_and_forged_commands_are_refused(rig_factory):
    """A rogue on vcan0 replays carplayd's captured command frames and forges one with a
    broken CRC: carplay-ecu applies none of them (its status frames keep saying 3)."""
    rig = rig_factory("sedan")
    assert set_heating(rig, 1)["response"]["code"] == "success"
    assert set_heating(rig, 3)["response"]["code"] == "success"
    sent = frames_with_id(rig, SEAT_COMMAND.frame_id)
    assert len(sent) >= 2, sent
    older, latest = sent[-2], sent[-1]
    # The latest again (a repeated alive counter), then the older one (an old counter),
    # then the older payload with a flipped bit (a wrong CRC).
    forged = bytearray(bytes.fromhex(older))
    forged[-1] ^= 0x01
    refused = rig.ecu.text().count("e2eError")
    for data in (latest, older, forged.hex().upper()):
        cansend("%03X#%s" % (SEAT_COMMAND.frame_id, data))
    assert wait_for(lambda: rig.ecu.text().count("e2eError") >= refused + 3), rig.logs()
    # A SeatStatus the ECU sent once it had refused all three (candump stamps frames with
    # the wall clock): waited for, however long a loaded host takes to send it.
    refused_all = time.time()
    assert wait_for(lambda: seat_statuses_after(rig, refused_all)), rig.logs()
    assert seat_statuses_after(rig, refused_all)[-1] == 3, "the vehicle's own status frames still say 3"
    assert rig.call("GetState")["state"]["seat.frontLeft.heating"] == 3
    # The old frame moved the ECU's reference counter back: carplayd's next command may
    # be refused once (a timeout); the one after is in sequence again.
    reply = set_heating(rig, 2)
    assert reply["response"]["code"] == "success" or reply["response"]["reason"] == "timeout", reply["response"]
    reply = set_heating(rig, 1)
    assert reply["response"]["code"] == "success", "%s\n%s" % (reply["response"], rig.logs())
    assert last_seat_status_heating(rig) == 1


def test_error_frames_reach_the_bus_health(rig_factory):
    """Error frames (CAN_ERR_FLAG) for error-passive, bus-off and restarted: GetState's bus
    object follows them. While bus-off carplayd sends nothing and Perform answers the typed
    error BusOff at once (vcan itself would still carry frames: the refusal is carplayd's);
    after the restart intents work again."""
    rig = rig_factory("sedan")
    assert rig.call("GetState")["bus"]["state"] == "error-active"
    # cansend: an 8-digit ID with 0x20000000 is an error frame; class in the ID, details in data.
    cansend("20000004#0020000000000000")  # controller problem: TX error-passive
    assert wait_for(lambda: rig.call("GetState")["bus"]["state"] == "error-passive"), rig.call("GetState")["bus"]
    cansend("20000040#0000000000000000")  # bus-off
    assert wait_for(lambda: rig.call("GetState")["bus"]["state"] == "bus-off"), rig.call("GetState")["bus"]
    bus = rig.call("GetState")["bus"]
    assert bus["lastError"] == "bus-off"
    sent_before = sent_frames(rig)
    started = time.monotonic()
    with pytest.raises(varlink.VarlinkError) as refused:
        set_heating(rig, 3)
    assert time.monotonic() - started < 5, "refused at once, not after a wait"
    assert refused.value.error() == "io.carplayd.Vehicle.BusOff", str(refused.value)
    assert refused.value.parameters()["interface"] == IFACE, str(refused.value)
    assert sent_frames(rig) == sent_before, "nothing sent while bus-off"
    cansend("20000100#0000000000000000")  # controller restarted
    assert wait_for(lambda: rig.call("GetState")["bus"]["state"] == "error-active"), rig.call("GetState")["bus"]
    bus = rig.call("GetState")["bus"]
    assert bus["errorFrames"] >= 3 and bus["restarts"] >= 1, bus
    reply = set_heating(rig, 2)
    assert reply["response"]["code"] == "success", reply["response"]


def test_untrusted_status_frames_are_counted_and_logged(rig_factory):
    """A ClimateStatus with a broken CRC from another sender: not applied, counted in
    GetState's bus.untrustedFrames and named in carplayd's log."""
    rig = rig_factory("sedan")
    before = rig.call("GetState")
    genuine = frames_with_id(rig, CLIMATE_STATUS.frame_id)[-1]
    forged = bytearray(bytes.fromhex(genuine))
    forged[-1] ^= 0x01
    cansend("%03X#%s" % (CLIMATE_STATUS.frame_id, forged.hex().upper()))
    assert wait_for(lambda: rig.call("GetState")["bus"]["untrustedFrames"] > before["bus"]["untrustedFrames"])
    assert wait_for(lambda: "untrusted frame" in rig.daemon.text() and "ClimateStatus" in rig.daemon.text()), rig.daemon.text()[-2000:]
    assert rig.call("GetState")["reachable"]

"""GetBusTraffic: every CAN ID the bus carried, counted by the daemon -- received,
untrusted (failed E2E/checksum), sent -- with the DBC's name and the last frame, and
the uptime to turn two readings into rates."""

import json
import re
import time

import pytest

from conftest import INTERFACE

CANDUMP = re.compile(r"^\(\d+\.\d{6}\) vcan0 ([0-9A-F]{3}|[0-9A-F]{8})#([0-9A-F]*)$")


@pytest.fixture(scope="module")
def corrupted(daemons):
    # Every SeatStatus frame fails its checksum: counted against its ID only.
    faults = {"rules": [{"kind": "badCRC", "message": "SeatStatus"}]}
    # Its seat state never completes: waited for on the traffic itself.
    return daemons("traffic", "sedan", args=["--simulator-faults", json.dumps(faults)], wait_reachable=False)


def by_name(reply):
    return {m["name"]: m for m in reply["messages"] if "name" in m}


def test_every_status_message_is_counted_with_its_name_and_last_frame(sedan):
    first = sedan.call("GetBusTraffic")
    time.sleep(0.5)
    second = sedan.call("GetBusTraffic")
    assert second["uptime"] > first["uptime"] > 0
    ids = [m["id"] for m in second["messages"]]
    assert ids == sorted(ids, key=lambda text: int(text, 16)), ids
    named = by_name(second)
    for status in ("ClimateStatus", "SeatStatus", "AudioStatus", "BodyStatus", "PowerStatus"):
        message = named[status]
        assert message["received"] > 0 and message["untrusted"] == 0 and message["sent"] == 0, message
        match = CANDUMP.match(message["lastFrame"])
        assert match and match.group(1) == message["id"], message
        # Counts only grow; the cyclic ones grew between the readings.
        assert message["received"] >= by_name(first)[status]["received"]
    assert named["ClimateStatus"]["received"] > by_name(first)["ClimateStatus"]["received"]


def test_a_command_counts_as_sent_on_its_message(sedan):
    before = by_name(sedan.call("GetBusTraffic")).get("SeatCommand", {}).get("sent", 0)
    level = 1 if sedan.state()["seat.frontLeft.heating"] != 1 else 2
    reply = sedan.perform("SetSeatSettingsInCar", {"enableHeating": True, "seat": "driver", "level": level})
    assert reply["response"]["code"] == "success", reply
    sent_frames = [line for line in reply["frames"] if " 410#" not in line and re.search(r" 310#", line)]
    after = by_name(sedan.call("GetBusTraffic"))["SeatCommand"]
    assert after["sent"] - before == len(sent_frames) >= 1, (after, reply["frames"])
    assert after["received"] == 0 and "lastFrame" not in after


def test_untrusted_frames_are_counted_on_their_id(corrupted):
    deadline = time.monotonic() + 15
    while True:
        named = by_name(corrupted.call("GetBusTraffic"))
        if named.get("SeatStatus", {}).get("received", 0) >= 3 or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    seat = named["SeatStatus"]
    assert seat["untrusted"] == seat["received"] > 0, seat
    assert named["ClimateStatus"]["untrusted"] == 0
    bus = corrupted.call("GetState")["bus"]
    assert bus["untrustedFrames"] >= seat["untrusted"]


def test_get_bus_traffic_takes_no_parameters(sedan):
    with sedan.raw() as conn:
        reply = conn.call(INTERFACE + ".GetBusTraffic", {"since": 3})
    assert reply.get("error") == INTERFACE + ".InvalidParameter" and reply["parameters"]["parameter"] == "since", reply

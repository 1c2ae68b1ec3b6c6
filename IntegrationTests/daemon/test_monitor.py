"""Monitor (more=True): a change made by Perform arrives as a reply with keys,
state and the frame that caused it; with commands, every intent's command in flight
too -- pending before the status frames that confirm it, then confirmed or failed."""

import json
import queue
import sys
import socket
import threading
import time

import pytest
import varlink

from conftest import INTERFACE, REPO

sys.path.insert(0, str(REPO / "IntegrationTests" / "support"))
from monitor_stream import MonitorStream  # noqa: E402


def test_monitor_reports_a_change_made_by_perform(sedan):
    replies = queue.Queue()
    client = sedan.client()
    connection = client.open_connection()

    def listen():
        try:
            with client.open(INTERFACE, namespaced=False, connection=connection) as vehicle:
                for reply in vehicle.Monitor(_more=True):
                    replies.put(reply)
        except Exception as error:  # the connection is shut down at the end
            replies.put(error)

    thread = threading.Thread(target=listen, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 10
        found = None
        enable = not sedan.state()["defroster.front"]
        while found is None and time.monotonic() < deadline:
            # Keep toggling until the subscription is in place and reports our change.
            reply = sedan.perform("SetDefrosterSettingsInCar", {"enable": enable, "defroster": "front"})
            assert reply["response"]["code"] == "success"
            wait_until = time.monotonic() + 1.0
            while time.monotonic() < wait_until:
                try:
                    item = replies.get(timeout=0.1)
                except queue.Empty:
                    continue
                assert not isinstance(item, Exception), repr(item)
                assert set(item) == {"keys", "state", "frame"}, item
                if "defroster.front" in item["keys"] and item["state"].get("defroster.front") == enable:
                    found = item
                    break
            enable = not enable
        assert found is not None, "no Monitor reply showed defroster.front changing"
        assert isinstance(found["frame"], str) and " vcan0 " in found["frame"] and "#" in found["frame"]
        assert set(found["state"]) == set(found["keys"])
    finally:
        try:
            connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        thread.join(5)
        connection.close()
    assert not thread.is_alive()
    # The daemon is fine after a monitoring client went away.
    assert sedan.call("GetState")["reachable"] is True


def test_monitor_without_more_is_expected_more(sedan):
    with sedan.raw() as conn:
        reply = conn.call("io.carplayd.Vehicle.Monitor")
    assert reply.get("error") == "org.varlink.service.ExpectedMore", reply


@pytest.fixture(scope="module")
def slow_seats(daemons):
    # Seat commands are answered 1 s late, defroster commands rejected: a command is seen
    # pending, then confirmed, and another pending, then failed.
    faults = {"rules": [{"kind": "delay", "ms": 1000, "property": "seat."}, {"kind": "reject", "property": "defroster."}]}
    return daemons("monitor-commands", "sedan", args=["--simulator-faults", json.dumps(faults), "--confirmation-timeout", "5000"])


def test_monitor_with_commands_shows_a_command_pending_then_confirmed(slow_seats):
    before = slow_seats.state()["seat.frontLeft.heating"]
    want = 3 if before != 3 else 1
    with MonitorStream(slow_seats.socket, commands=True) as monitor:
        reply = slow_seats.perform("SetSeatSettingsInCar", {"enableHeating": True, "seat": "driver", "level": want})
        assert reply["response"]["code"] == "success", reply
        seen = monitor.wait_for(lambda r: r.get("command", {}).get("status") == "confirmed", "the seat command confirmed")
    commands = [r["command"] for r in seen if "command" in r]
    assert [c["status"] for c in commands] == ["pending", "confirmed"], commands
    pending, confirmed = commands
    assert set(pending) == {"id", "intent", "targets", "status"}
    assert pending["intent"] == "SetSeatSettingsInCar" and pending["targets"] == {"seat.frontLeft.heating": want}
    assert confirmed["id"] == pending["id"] and confirmed["targets"] == pending["targets"]
    # The status frame that shows the new level comes between the two.
    order = ["command:" + r["command"]["status"] if "command" in r else ",".join(r["keys"]) for r in seen]
    change = next(i for i, r in enumerate(seen) if "seat.frontLeft.heating" in r.get("keys", []))
    assert order.index("command:pending") < change < order.index("command:confirmed"), order
    assert seen[change]["state"]["seat.frontLeft.heating"] == want
    for r in seen:
        assert set(r) in ({"command"}, {"keys", "state", "frame"}), r


def test_monitor_with_commands_shows_a_rejected_command_failed_with_its_reason(slow_seats):
    enable = not slow_seats.state()["defroster.front"]
    with MonitorStream(slow_seats.socket, commands=True) as monitor:
        reply = slow_seats.perform("SetDefrosterSettingsInCar", {"enable": enable, "defroster": "front"})
        assert reply["response"]["code"] == "failure" and reply["response"]["reason"] == "rejectedByVehicle", reply
        seen = monitor.wait_for(lambda r: r.get("command", {}).get("status") == "failed", "the defroster command failed")
    commands = [r["command"] for r in seen if "command" in r]
    assert [c["status"] for c in commands] == ["pending", "failed"], commands
    assert commands[1]["intent"] == "SetDefrosterSettingsInCar"
    assert commands[1]["targets"] == {"defroster.front": enable}
    assert commands[1]["reason"] == "rejectedByVehicle" and "rejected" in commands[1]["detail"], commands[1]


def test_monitor_without_commands_sends_no_command_replies(slow_seats):
    before = slow_seats.state()["seat.frontLeft.heating"]
    want = 2 if before != 2 else 1
    with MonitorStream(slow_seats.socket) as monitor:
        slow_seats.perform("SetSeatSettingsInCar", {"enableHeating": True, "seat": "driver", "level": want})
        seen = monitor.wait_for(lambda r: "seat.frontLeft.heating" in r.get("keys", []), "the seat change")
    assert all(set(r) == {"keys", "state", "frame"} for r in seen), seen


def test_monitor_commands_must_be_a_boolean(sedan):
    with sedan.raw() as conn:
        reply = conn.call(INTERFACE + ".Monitor", {"commands": "yes"}, more=True)
        assert reply.get("error") == INTERFACE + ".InvalidParameter", reply
        assert reply["parameters"]["parameter"] == "commands"
    with sedan.raw() as conn:
        reply = conn.call(INTERFACE + ".Monitor", {"since": 1}, more=True)
        assert reply.get("error") == INTERFACE + ".InvalidParameter" and reply["parameters"]["parameter"] == "since", reply

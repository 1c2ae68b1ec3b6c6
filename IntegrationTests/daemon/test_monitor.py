"""Monitor (more=True): a change made by Perform arrives as a reply with keys,
state and the frame that caused it."""

import queue
import socket
import threading
import time

import varlink

from conftest import INTERFACE


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

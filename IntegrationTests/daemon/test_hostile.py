"""Hostile input on the socket. After each test the daemon still answers a
well-behaved client (the varlink package), and the commanded part of the
vehicle state is exactly what it was before. The hostile messages try to lock
the car, so an input that slipped through would show in the state."""

import json
import select
import socket
import threading
import time

import pytest

from conftest import INTERFACE, commanded

LOCK = {"method": "io.carplayd.Vehicle.Perform",
        "parameters": {"intent": "SetCarLockStatus", "parameters": {"locked": True}}}
LOCK_BYTES = json.dumps(LOCK).encode()
LIMIT = 1 << 20


@pytest.fixture(scope="module")
def target(daemons):
    daemon = daemons("target", "sedan")
    # A state that is not the simulator's default, so a reset would show too.
    assert daemon.perform("SetSeatSettingsInCar", {"enableHeating": True, "seat": "frontLeft", "level": 2})["response"]["code"] == "success"
    assert daemon.perform("SetDefrosterSettingsInCar", {"enable": True, "defroster": "rear"})["response"]["code"] == "success"
    return daemon


@pytest.fixture(autouse=True)
def unharmed(target):
    before = commanded(target.state())
    assert before["lock.locked"] is False
    yield
    assert target.alive(), "carplayd died:\n" + target.stderr()[-3000:]
    # A well-behaved client with the varlink package: introspection and calls work.
    with target.client() as client, client.open(INTERFACE, namespaced=False) as vehicle:
        assert vehicle.Describe()["vehicle"]["identifier"] == "sedan"
        reply = vehicle.GetState()
    assert reply["reachable"] is True
    assert commanded(reply["state"]) == before


def assert_invalid_message(reply):
    assert reply.get("error") == "org.varlink.service.InvalidParameter", reply
    assert reply["parameters"]["parameter"] == "message", reply


@pytest.mark.parametrize("garbage", [
    LOCK_BYTES[:-1],                      # the lock call without its closing brace
    b"{\"method\": \"io.carplayd.Vehicle.Perform\", \"parameters\": {\"intent\": ",
    b"\xff\xfe\xfd not utf-8",
    b"[1, 2, 3]",
    b"\"io.carplayd.Vehicle.Perform\"",
    b"",
    b"{\"method\": \"io.carplayd.Vehicle.GetState\"} trailing",
])
def test_malformed_json_is_an_error_and_the_connection_stays_usable(target, garbage):
    with target.raw() as conn:
        conn.send_bytes(garbage + b"\0")
        assert_invalid_message(conn.receive())
        # The same connection goes on with the next well-formed call.
        reply = conn.call("io.carplayd.Vehicle.GetState")
        assert "error" not in reply and reply["parameters"]["reachable"] is True


def test_a_message_without_its_nul_then_close_is_never_executed(target):
    with target.raw() as conn:
        conn.send_bytes(LOCK_BYTES)  # a complete, valid call, but no NUL
    time.sleep(0.3)  # the daemon had time to (wrongly) act on it


def test_a_message_without_its_nul_waits_for_the_nul(target):
    # Framing is by NUL only: the daemon waits, it does not guess.
    with target.raw() as conn:
        conn.send_bytes(b'{"method": "io.carplayd.Vehicle.Get')
        time.sleep(0.1)
        conn.send_bytes(b'State"}\0')
        reply = conn.receive()
    assert "error" not in reply and "state" in reply["parameters"]


def send_ignoring_hangup(conn, data):
    try:
        conn.send_bytes(data)
    except (BrokenPipeError, ConnectionResetError):
        pass


@pytest.mark.parametrize("with_nul", [True, False])
def test_a_message_over_1_mib_is_answered_with_an_error_and_closed(target, with_nul):
    call = json.dumps({"method": "io.carplayd.Vehicle.Perform",
                       "parameters": {"intent": "SetCarLockStatus", "parameters": {"locked": True, "carName": "x" * (LIMIT + 1000)}}})
    data = call.encode() + (b"\0" if with_nul else b"")
    with target.raw(timeout=10) as conn:
        sender = threading.Thread(target=send_ignoring_hangup, args=(conn, data), daemon=True)
        sender.start()
        reply = conn.receive()
        assert_invalid_message(reply)
        assert str(LIMIT) in reply["parameters"]["reason"]
        assert conn.closed_by_peer(timeout=5), "the connection stayed open after an oversized message"
        sender.join(5)


def test_a_message_just_under_1_mib_is_served(target):
    name = "x" * (LIMIT - 4096)
    with target.raw() as conn:
        reply = conn.call("io.carplayd.Vehicle.Resolve",
                          {"intent": "GetCarLockStatus", "parameters": {"carName": name}})
        assert "error" not in reply, str(reply)[:300]
        assert reply["parameters"]["resolutions"]["carName"]["kind"] != "success"
        assert "error" not in conn.call("io.carplayd.Vehicle.GetState")


@pytest.mark.parametrize("message, error", [
    ({"method": 42}, "org.varlink.service.InvalidParameter"),
    ({"method": "io.carplayd.Vehicle.Perform", "parameters": "lock the car"}, "org.varlink.service.InvalidParameter"),
    ({"method": "io.carplayd.Vehicle.Perform", "parameters": LOCK["parameters"], "more": "yes"}, "org.varlink.service.InvalidParameter"),
    ({"method": "io.carplayd.Vehicle.Perform", "parameters": {"intent": "SetCarLockStatus", "parameters": {"locked": "true"}}},
     "io.carplayd.Vehicle.InvalidParameter"),
    ({"method": "io.carplayd.Vehicle.Perform", "parameters": {"intent": "SetCarLockStatus", "parameters": {"locked": 1}}},
     "io.carplayd.Vehicle.InvalidParameter"),
    ({"method": "io.carplayd.Vehicle.Perform", "parameters": {"intent": ["SetCarLockStatus"], "parameters": {"locked": True}}},
     "io.carplayd.Vehicle.InvalidParameter"),
])
def test_wrong_types_are_refused(target, message, error):
    with target.raw() as conn:
        reply = conn.call(**{"method": message.pop("method"), "parameters": message.pop("parameters", None)}, **message)
    assert reply.get("error") == error, reply


@pytest.mark.parametrize("method", [
    "io.carplayd.Vehicle.Lock", "io.carplayd.Vehicle.", "io.carplayd.Vehicle.perform", "Perform",
    "org.varlink.service.Perform", "io.carplayd.Vehicle.Perform.Now",
])
def test_unknown_methods_are_refused(target, method):
    with target.raw() as conn:
        reply = conn.call(method, LOCK["parameters"])
    assert reply.get("error") in ("org.varlink.service.MethodNotFound", "org.varlink.service.InterfaceNotFound"), reply


@pytest.mark.parametrize("parameters, bad", [
    ({"intent": "SetCarLockStatus", "parameters": {"locked": True, "allDoors": True}}, "allDoors"),
    ({"intent": "SetCarLockStatus", "parameters": {"locked": True}, "force": True}, "force"),
])
def test_unknown_parameters_are_refused(target, parameters, bad):
    with target.raw() as conn:
        reply = conn.call("io.carplayd.Vehicle.Perform", parameters)
    assert reply.get("error") == "io.carplayd.Vehicle.InvalidParameter", reply
    assert reply["parameters"]["parameter"] == bad


def test_an_unknown_field_in_the_call_is_refused(target):
    with target.raw() as conn:
        reply = conn.call("io.carplayd.Vehicle.Perform", LOCK["parameters"], sudo=True)
    assert_invalid_message(reply)


def test_a_silent_client_does_not_block_others(target):
    silent = [target.raw(), target.raw()]
    silent[1].send_bytes(LOCK_BYTES[:20])  # and one that stalls mid-message
    try:
        started = time.monotonic()
        for _ in range(5):
            with target.client() as client, client.open(INTERFACE, namespaced=False) as vehicle:
                assert vehicle.GetState()["reachable"] is True
        toggle = target.perform("SetDefrosterSettingsInCar", {"enable": False, "defroster": "front"})
        assert toggle["response"]["code"] == "success"
        assert time.monotonic() - started < 5
        # The silent ones are still connected and are served when they speak.
        silent[1].send_bytes(b"\0")
        assert_invalid_message(silent[1].receive())
        assert "error" not in silent[0].call("io.carplayd.Vehicle.GetState")
    finally:
        for conn in silent:
            conn.close()


def test_200_connections_at_once_while_another_client_keeps_working(target):
    stop = threading.Event()
    latencies = []
    errors = []

    def worker():
        try:
            with target.client() as client, client.open(INTERFACE, namespaced=False) as vehicle:
                while not stop.is_set():
                    started = time.monotonic()
                    assert vehicle.GetState()["reachable"] is True
                    latencies.append(time.monotonic() - started)
        except Exception as error:
            errors.append(error)

    thread = threading.Thread(target=worker, daemon=True)
    thread.start()
    crowd = []
    try:
        for _ in range(200):
            crowd.append(target.raw(timeout=20))
        # Every one of them is a real, served connection.
        for conn in crowd:
            conn.send({"method": "org.varlink.service.GetInfo"})
        for conn in crowd:
            reply = conn.receive()
            assert INTERFACE in reply["parameters"]["interfaces"]
        time.sleep(0.2)
    finally:
        for conn in crowd:
            conn.close()
        stop.set()
        thread.join(10)
    assert not errors, errors
    assert len(latencies) >= 5
    assert max(latencies) < 3.0, "the working client waited %.2f s" % max(latencies)


def test_a_client_that_never_reads_is_disconnected_and_others_are_served(target):
    greedy = target.raw(timeout=20)
    call = json.dumps({"method": "io.carplayd.Vehicle.Describe"}).encode() + b"\0"
    count = 6000  # about 3 KiB per reply: well over the daemon's 8 MiB outbound queue
    try:
        sender = threading.Thread(target=send_ignoring_hangup, args=(greedy, call * count), daemon=True)
        sender.start()
        sender.join(20)
        assert not sender.is_alive(), "the daemon stopped reading calls"
        # Others are served meanwhile.
        started = time.monotonic()
        with target.client() as client, client.open(INTERFACE, namespaced=False) as vehicle:
            assert vehicle.GetState()["reachable"] is True
        assert time.monotonic() - started < 3
        # The stuck client is disconnected once its queue of replies is full. Poll for the
        # hang-up without reading: reading would unstick it.
        poller = select.poll()
        poller.register(greedy.sock, select.POLLHUP | select.POLLRDHUP)
        events = poller.poll(20000)
        assert events and events[0][1] & (select.POLLHUP | select.POLLRDHUP), \
            "a client that never reads was not disconnected within 20 s"
    finally:
        greedy.close()

"""Subscribe (v2 and v1) streams carplayd's Monitor: the current values first, then every
change, whoever made it -- an intent over io.carplayd.Vehicle, the car's own panel."""

import os
import time

import grpc

from conftest import (LOCKED, RPC_TIMEOUT, SEAT_HEATING, TEMPERATURE, StreamReader, actuate_request, rpc_error,
                      signal_id, simulator, v1, v1_types, v2, value_of, vss, wait_until)


def current(carplayd, path):
    return vss(carplayd, "Get", paths=[path])["values"][path]


def test_subscribe_sees_a_change_made_by_an_intent(carplayd, kuksa):
    """kuksa-client's subscribe_current_values (kuksa.val.v2 Subscribe) sees a set point
    that a SiriKit intent changed through io.carplayd.Vehicle."""
    target = 19.5 if current(carplayd, TEMPERATURE) != 19.5 else 24.0
    with kuksa.vss_client() as client:
        stream = client.subscribe_current_values([TEMPERATURE, LOCKED], timeout=RPC_TIMEOUT * 5)
        reader = StreamReader(stream, cancel=client.disconnect)
        first = reader.wait_for(lambda update: TEMPERATURE in update, "the first values")[-1]
        assert set(first) == {TEMPERATURE, LOCKED}
        started = time.monotonic()
        reply = carplayd.perform("SetClimateSettingsInCar", {"temperature": {"value": target, "unit": "celsius"},
                                                             "climateZone": "driver"})
        assert reply["response"]["code"] == "success", reply
        seen = reader.wait_for(lambda update: TEMPERATURE in update and update[TEMPERATURE].value == target,
                               "%s = %s" % (TEMPERATURE, target))
        elapsed = time.monotonic() - started
        reader.cancel()
    print("\nSubscribe: the intent's %s = %s seen %.1f ms after the intent was sent (%d updates)"
          % (TEMPERATURE, target, elapsed * 1000, len(seen)))


def test_subscribe_v2_stub_sees_the_cars_own_panel(carplayd, kuksa):
    """The driver turns the seat heating on at the car (io.carplayd.Simulator): carplayd
    learns it from the status frames, the subscriber from carplayd."""
    level = 2 if simulator(carplayd, "GetVehicle")["state"]["seat.frontLeft.heating"] != 2 else 1
    with kuksa.channel() as channel:
        call = kuksa.v2(channel).Subscribe(v2.SubscribeRequest(signal_paths=[SEAT_HEATING, TEMPERATURE]),
                                           timeout=RPC_TIMEOUT * 5)
        reader = StreamReader(call)
        first = reader.wait_for(lambda response: True, "the first response")[0]
        assert set(first.entries) == {SEAT_HEATING, TEMPERATURE}
        before = value_of(first.entries[SEAT_HEATING])
        simulator(carplayd, "SetVehicleState", values={"seat.frontLeft.heating": level})
        # carplayd's own reading of the new level (level L of the seat's n: round(100 L / n))
        expected = wait_until(lambda: current(carplayd, SEAT_HEATING) != before and current(carplayd, SEAT_HEATING),
                              "carplayd sees the driver's seat heating")
        seen = reader.wait_for(lambda response: SEAT_HEATING in response.entries
                               and value_of(response.entries[SEAT_HEATING]) == expected,
                               "%s = %s" % (SEAT_HEATING, expected))
        reader.cancel()
    assert all(set(response.entries) <= {SEAT_HEATING, TEMPERATURE} for response in seen)


def test_subscribe_v1_sees_an_actuation(carplayd, kuksa):
    target = 20.0 if current(carplayd, TEMPERATURE) != 20.0 else 26.5
    with kuksa.channel() as channel:
        call = kuksa.v1(channel).Subscribe(v1.SubscribeRequest(entries=[
            v1.SubscribeEntry(path=TEMPERATURE, view=v1_types.VIEW_CURRENT_VALUE)]), timeout=RPC_TIMEOUT * 5)
        reader = StreamReader(call)
        reader.wait_for(lambda response: True, "the first response")
        kuksa.v2(channel).Actuate(actuate_request(TEMPERATURE, float=target), timeout=RPC_TIMEOUT)
        reader.wait_for(lambda response: any(update.entry.path == TEMPERATURE and update.entry.value.float == target
                                             for update in response.updates), "%s = %s" % (TEMPERATURE, target))
        reader.cancel()


def test_subscribe_refuses_what_it_cannot_stream(kuksa):
    with kuksa.channel() as channel:
        stub = kuksa.v2(channel)
        code, details = rpc_error(lambda *a, **k: next(stub.Subscribe(*a, **k)),
                                  v2.SubscribeRequest(signal_paths=["Vehicle.Cabin.Teleporter.IsActive"]))
        assert code == grpc.StatusCode.NOT_FOUND and "Teleporter" in details
        code, details = rpc_error(lambda *a, **k: next(stub.Subscribe(*a, **k)), v2.SubscribeRequest())
        assert code == grpc.StatusCode.INVALID_ARGUMENT
        code, details = rpc_error(lambda *a, **k: next(stub.Subscribe(*a, **k)),
                                  v2.SubscribeRequest(signal_paths=[TEMPERATURE], buffer_size=5000))
        assert code == grpc.StatusCode.INVALID_ARGUMENT and "1000" in details


def open_fds(pid):
    return len(os.listdir("/proc/%d/fd" % pid))


def test_cancelled_subscriptions_free_their_workers(carplayd, kuksa):
    """Each open Subscribe holds a worker of carplayd-kuksa (32 by default) and a Monitor call
    on carplayd: 3 x 32 subscriptions opened and cancelled one after the other, then
    the server still answers and 5 subscriptions at once still stream; the Monitor
    connections are closed again (carplayd's and carplayd-kuksa's descriptors)."""
    with kuksa.channel() as channel:
        stub = kuksa.v2(channel)
        stub.GetValue(v2.GetValueRequest(signal_id=signal_id(TEMPERATURE)), timeout=RPC_TIMEOUT)
        fds = {"carplayd": open_fds(carplayd.pid), "carplayd-kuksa": open_fds(kuksa.process.pid)}
        started = time.monotonic()
        for _ in range(96):
            call = stub.Subscribe(v2.SubscribeRequest(signal_paths=[TEMPERATURE]), timeout=RPC_TIMEOUT)
            next(call)
            call.cancel()
        elapsed = time.monotonic() - started
        assert stub.GetValue(v2.GetValueRequest(signal_id=signal_id(TEMPERATURE)), timeout=RPC_TIMEOUT)
        readers = [StreamReader(stub.Subscribe(v2.SubscribeRequest(signal_paths=[TEMPERATURE]), timeout=RPC_TIMEOUT * 5))
                   for _ in range(5)]
        for reader in readers:
            reader.wait_for(lambda response: True, "the first response")
        target = 21.5 if current(carplayd, TEMPERATURE) != 21.5 else 22.5
        stub.Actuate(actuate_request(TEMPERATURE, float=target), timeout=RPC_TIMEOUT)
        for reader in readers:
            reader.wait_for(lambda response: TEMPERATURE in response.entries
                            and value_of(response.entries[TEMPERATURE]) == target, "the actuation")
            reader.cancel()
        # Closing a cancelled call's Monitor connection happens on carplayd-kuksa's side
        # after the cancellation: waited for, not assumed.
        for name, pid in (("carplayd", carplayd.pid), ("carplayd-kuksa", kuksa.process.pid)):
            wait_until(lambda: open_fds(pid) <= fds[name] + 2,
                       "%s back to ~%d descriptors (now %d)" % (name, fds[name], open_fds(pid)))
    print("\n96 subscriptions opened and cancelled in %.1f s; descriptors before %s, after: carplayd %d, "
          "carplayd-kuksa %d" % (elapsed, fds, open_fds(carplayd.pid), open_fds(kuksa.process.pid)))

"""Actuation through carplayd-kuksa: OK only once the car confirmed; every refusal or
failure a gRPC error naming the path and the reason, never a silent OK."""

import time

import grpc
import pytest
from kuksa_client.grpc import Datapoint, VSSClientError

from conftest import (CABIN_TEMPERATURE, CONFIRMATION_MS, LOCKED, RPC_TIMEOUT, SEAT_HEATING, SOURCE, TEMPERATURE,
                      actuate_request, car_value, rpc_error, signal_id, simulator, v2, value_of, vss)


def get_value(stub, path):
    return value_of(stub.GetValue(v2.GetValueRequest(signal_id=signal_id(path)), timeout=RPC_TIMEOUT).data_point)


def different(current, *choices):
    return next(choice for choice in choices if choice != current)


# ---------------------------------------------------------------------- confirmed
def test_actuate_returns_once_the_car_confirmed_the_driver_set_point(carplayd, kuksa):
    with kuksa.channel() as channel:
        stub = kuksa.v2(channel)
        target = different(get_value(stub, TEMPERATURE), 23.5, 19.5)
        started = time.monotonic()
        stub.Actuate(actuate_request(TEMPERATURE, float=target), timeout=RPC_TIMEOUT)
        elapsed = time.monotonic() - started
        read_after = get_value(stub, TEMPERATURE)
    print("\nActuate %s = %s: OK after %.1f ms (gRPC call, carplayd-kuksa and carplayd); read right after: %s"
          % (TEMPERATURE, target, elapsed * 1000, read_after))
    assert read_after == target
    assert car_value(carplayd, "climate.temperature.left") == target
    assert vss(carplayd, "Get", paths=[TEMPERATURE])["values"][TEMPERATURE] == target


def test_actuate_waits_for_a_car_that_applies_late(carplayd, kuksa):
    """The car applies the command 500 ms after it came (a `delay` fault, within the
    confirmation timeout): if Actuate answered before the car's status showed the target,
    the read right after would still see the old value."""
    with kuksa.channel() as channel:
        stub = kuksa.v2(channel)
        target = different(get_value(stub, TEMPERATURE), 20.5, 24.5)
        simulator(carplayd, "SetFaults", plan={"rules": [{"kind": "delay", "ms": 500, "property": "climate.", "count": 1}]})
        started = time.monotonic()
        stub.Actuate(actuate_request(TEMPERATURE, float=target), timeout=RPC_TIMEOUT)
        elapsed = time.monotonic() - started
        read_after = get_value(stub, TEMPERATURE)
    statistics = simulator(carplayd, "GetVehicle")["statistics"]
    print("\nActuate %s = %s with the car 500 ms late: OK after %.1f ms; read right after: %s; car statistics: %s"
          % (TEMPERATURE, target, elapsed * 1000, read_after, statistics))
    assert read_after == target
    assert statistics["commandsDelayed"] >= 1


def test_set_target_values_through_kuksa_client_v1(carplayd, kuksa):
    """kuksa-client 0.6's VSSClient.set_target_values goes through kuksa.val.v1 Set."""
    with kuksa.vss_client() as client:
        current = client.get_current_values([TEMPERATURE])[TEMPERATURE].value
        target = different(current, 22.0, 18.5)
        started = time.monotonic()
        client.set_target_values({TEMPERATURE: Datapoint(target)}, timeout=RPC_TIMEOUT)
        elapsed = time.monotonic() - started
        read_after = client.get_current_values([TEMPERATURE])[TEMPERATURE].value
    print("\nkuksa-client set_target_values %s = %s: returned after %.1f ms; read right after: %s"
          % (TEMPERATURE, target, elapsed * 1000, read_after))
    assert read_after == target
    assert car_value(carplayd, "climate.temperature.left") == target


def test_batch_actuate_confirms_every_target(carplayd, kuksa):
    with kuksa.channel() as channel:
        stub = kuksa.v2(channel)
        temperature = different(get_value(stub, TEMPERATURE), 21.0, 25.0)
        heating = different(get_value(stub, SEAT_HEATING), 67, 33)
        started = time.monotonic()
        stub.BatchActuate(v2.BatchActuateRequest(actuate_requests=[
            actuate_request(TEMPERATURE, float=temperature), actuate_request(SEAT_HEATING, int32=heating),
            actuate_request(SOURCE, string="BLUETOOTH")]), timeout=RPC_TIMEOUT)
        elapsed = time.monotonic() - started
        after = {path: get_value(stub, path) for path in (TEMPERATURE, SEAT_HEATING, SOURCE)}
    print("\nBatchActuate of 3 targets: OK after %.1f ms; read right after: %s" % (elapsed * 1000, after))
    assert after == {TEMPERATURE: temperature, SEAT_HEATING: heating, SOURCE: "BLUETOOTH"}


# ---------------------------------------------------------------------- the car refuses
def test_a_rejected_actuation_is_an_error_not_ok(carplayd, kuksa):
    with kuksa.channel() as channel:
        stub = kuksa.v2(channel)
        before = get_value(stub, TEMPERATURE)
        simulator(carplayd, "SetFaults", plan={"rules": [{"kind": "reject", "property": "climate."}]})
        code, details = rpc_error(stub.Actuate, actuate_request(TEMPERATURE, float=different(before, 26.0, 17.0)))
        after = get_value(stub, TEMPERATURE)
    print("\nrejected: %s %s" % (code, details))
    assert code == grpc.StatusCode.ABORTED
    assert TEMPERATURE in details and "rejected" in details and "rejectedByVehicle" in details
    assert after == before


def test_a_car_that_ignores_the_command_times_out(carplayd, kuksa):
    with kuksa.channel() as channel:
        stub = kuksa.v2(channel)
        before = get_value(stub, TEMPERATURE)
        simulator(carplayd, "SetFaults", plan={"rules": [{"kind": "drop", "property": "climate."}]})
        started = time.monotonic()
        code, details = rpc_error(stub.Actuate, actuate_request(TEMPERATURE, float=different(before, 26.0, 17.0)))
        elapsed = time.monotonic() - started
        after = get_value(stub, TEMPERATURE)
    print("\nignored (drop): %s %s after %.1f ms (confirmation timeout %d ms)" % (code, details, elapsed * 1000, CONFIRMATION_MS))
    assert code == grpc.StatusCode.DEADLINE_EXCEEDED
    assert TEMPERATURE in details and "timeout" in details
    assert after == before


def test_a_car_that_applies_a_wrong_value_is_not_ok(carplayd, kuksa):
    with kuksa.channel() as channel:
        stub = kuksa.v2(channel)
        target = different(get_value(stub, TEMPERATURE), 22.5, 20.0)
        simulator(carplayd, "SetFaults", plan={"rules": [{"kind": "wrongValue", "property": "climate.", "count": 1}]})
        code, details = rpc_error(stub.Actuate, actuate_request(TEMPERATURE, float=target))
        after = get_value(stub, TEMPERATURE)
    print("\nwrong value: %s %s; the car reports %s" % (code, details, after))
    assert code == grpc.StatusCode.DEADLINE_EXCEEDED
    assert TEMPERATURE in details and "the vehicle reports" in details
    assert after != target


def test_a_rejection_through_kuksa_client_v1_raises(carplayd, kuksa):
    with kuksa.vss_client() as client:
        before = client.get_current_values([TEMPERATURE])[TEMPERATURE].value
        simulator(carplayd, "SetFaults", plan={"rules": [{"kind": "reject", "property": "climate."}]})
        with pytest.raises(VSSClientError) as excinfo:
            client.set_target_values({TEMPERATURE: Datapoint(different(before, 26.0, 17.0))}, timeout=RPC_TIMEOUT)
        after = client.get_current_values([TEMPERATURE])[TEMPERATURE].value
    print("\nkuksa-client: %s" % excinfo.value.error)
    assert excinfo.value.error["code"] == grpc.StatusCode.ABORTED.value[0]
    assert "rejected" in excinfo.value.error["message"]
    assert after == before


# ---------------------------------------------------------------------- refused before the car
def test_a_sensor_actuated_answers_as_the_databroker(kuksa):
    with kuksa.channel() as channel:
        code, details = rpc_error(kuksa.v2(channel).Actuate, actuate_request(CABIN_TEMPERATURE, float=20.0))
    # The databroker: INVALID_ARGUMENT "Tried to set a value for a non-actuator: PATH".
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert details.startswith("Tried to set a value for a non-actuator: %s" % CABIN_TEMPERATURE)


def test_a_sensor_set_through_kuksa_client_v1(kuksa):
    with kuksa.vss_client() as client:
        with pytest.raises(VSSClientError) as excinfo:
            client.set_target_values({CABIN_TEMPERATURE: Datapoint(20.0)}, timeout=RPC_TIMEOUT)
    assert excinfo.value.error["code"] == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert CABIN_TEMPERATURE in excinfo.value.error["message"]


def test_an_unknown_path(kuksa):
    path = "Vehicle.Cabin.HVAC.Station.Row1.Driver.WarpFactor"
    with kuksa.channel() as channel:
        code, details = rpc_error(kuksa.v2(channel).Actuate, actuate_request(path, float=9.0))
    assert code == grpc.StatusCode.NOT_FOUND and path in details
    with kuksa.vss_client() as client:
        with pytest.raises(VSSClientError) as excinfo:
            client.set_target_values({path: Datapoint(9.0)}, timeout=RPC_TIMEOUT)
    # v1 answers per entry, as the databroker's Set: 404 not_found for the path.
    assert excinfo.value.errors == [{"path": path, "error": {"code": 404, "reason": "not_found",
                                                             "message": excinfo.value.errors[0]["error"]["message"]}}]


def test_an_out_of_range_value(carplayd, kuksa):
    with kuksa.channel() as channel:
        stub = kuksa.v2(channel)
        before = get_value(stub, TEMPERATURE)
        code, details = rpc_error(stub.Actuate, actuate_request(TEMPERATURE, float=40.0))
        assert get_value(stub, TEMPERATURE) == before
    print("\nout of range: %s %s" % (code, details))
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert TEMPERATURE in details and "40" in details and "maximum" in details
    with kuksa.vss_client() as client:
        with pytest.raises(VSSClientError) as excinfo:
            client.set_target_values({TEMPERATURE: Datapoint(40.0)}, timeout=RPC_TIMEOUT)
    assert [(e["path"], e["error"]["code"]) for e in excinfo.value.errors] == [(TEMPERATURE, 400)]
    assert car_value(carplayd, "climate.temperature.left") == before


@pytest.mark.parametrize("value, expected", [
    ({"double": 21.0}, "Expected type: float"),           # a float signal takes a float, as the databroker wants
    ({"string": "warm"}, "Expected type: float"),
    ({}, "no value provided"),
])
def test_a_value_of_the_wrong_type(kuksa, value, expected):
    with kuksa.channel() as channel:
        code, details = rpc_error(kuksa.v2(channel).Actuate, actuate_request(TEMPERATURE, **value))
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert TEMPERATURE in details and expected in details


def test_a_value_beyond_its_datatype(kuksa):
    # HeatingCooling is int8: 300 travels as int32 but no int8 holds it (OutOfBoundsType).
    with kuksa.channel() as channel:
        code, details = rpc_error(kuksa.v2(channel).Actuate, actuate_request(SEAT_HEATING, int32=300))
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert SEAT_HEATING in details and "int8" in details


def test_a_batch_with_one_bad_target_actuates_nothing(carplayd, kuksa):
    with kuksa.channel() as channel:
        stub = kuksa.v2(channel)
        before = get_value(stub, SEAT_HEATING)
        code, details = rpc_error(stub.BatchActuate, v2.BatchActuateRequest(actuate_requests=[
            actuate_request(SEAT_HEATING, int32=different(before, 100, 33)), actuate_request(TEMPERATURE, float=99.0)]))
        after = get_value(stub, SEAT_HEATING)
    assert code == grpc.StatusCode.INVALID_ARGUMENT and TEMPERATURE in details
    assert after == before


def test_locking_through_kuksa(carplayd, kuksa):
    """The central lock, an intent carplayd restricts while the caller's device is locked:
    carplayd-kuksa is the caller carplayd sees. In this test carplayd runs outside logind
    with the default sessionless-callers = refuse, and root outside a session counts as
    unlocked (docs/CONFIGURATION.md): the actuation goes through and is confirmed."""
    with kuksa.channel() as channel:
        stub = kuksa.v2(channel)
        target = not get_value(stub, LOCKED)
        stub.Actuate(actuate_request(LOCKED, bool=target), timeout=RPC_TIMEOUT)
        assert get_value(stub, LOCKED) is target
        stub.Actuate(actuate_request(LOCKED, bool=not target), timeout=RPC_TIMEOUT)
        assert get_value(stub, LOCKED) is (not target)


def test_the_horn_is_momentary(carplayd, kuksa):
    """Vehicle.Body.Horn.IsActive: true sounds it once (the car acknowledges the press);
    false is nothing the car can carry out."""
    horn = "Vehicle.Body.Horn.IsActive"
    with kuksa.channel() as channel:
        stub = kuksa.v2(channel)
        started = time.monotonic()
        stub.Actuate(actuate_request(horn, bool=True), timeout=RPC_TIMEOUT)
        elapsed = time.monotonic() - started
        code, details = rpc_error(stub.Actuate, actuate_request(horn, bool=False))
    print("\nhorn: OK after %.1f ms; false: %s %s" % (elapsed * 1000, code, details))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and horn in details

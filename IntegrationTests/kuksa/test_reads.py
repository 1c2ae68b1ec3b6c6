"""Reads and metadata through carplayd-kuksa, compared with carplayd's own io.carplayd.VSS."""

import grpc
import pytest
from kuksa_client.grpc import VSSClientError

from conftest import (CABIN_TEMPERATURE, LOCKED, RPC_TIMEOUT, SEAT_HEATING, SOURCE, TEMPERATURE, rpc_error,
                      signal_id, v1, v1_types, v2, v2_types, value_of, vss)

# Drift by the simulated physics; everything else only changes when something is set.
DRIFTING = ("Vehicle.Cabin.HVAC.AmbientAirTemperature", "Vehicle.Powertrain.", "Vehicle.Exterior.")


def steady(values):
    return {path: value for path, value in values.items() if not path.startswith(DRIFTING)}


def test_get_current_values_through_kuksa_client_v1(carplayd, kuksa):
    reference = vss(carplayd, "Get")["values"]
    paths = sorted(steady(reference))
    with kuksa.vss_client() as client:
        got = client.get_current_values(paths, timeout=RPC_TIMEOUT)
    print("\n%d values read with kuksa-client get_current_values (kuksa.val.v1 Get)" % len(got))
    assert {path: point.value for path, point in got.items()} == pytest.approx(steady(reference))


def test_get_values_v2_by_path_and_by_id(carplayd, kuksa):
    reference = steady(vss(carplayd, "Get")["values"])
    paths = sorted(reference)
    with kuksa.channel() as channel:
        stub = kuksa.v2(channel)
        by_path = stub.GetValues(v2.GetValuesRequest(signal_ids=[signal_id(p) for p in paths]), timeout=RPC_TIMEOUT)
        metadata = stub.ListMetadata(v2.ListMetadataRequest(root="Vehicle"), timeout=RPC_TIMEOUT).metadata
        ids = {meta.path: meta.id for meta in metadata}
        by_id = stub.GetValues(v2.GetValuesRequest(signal_ids=[v2_types.SignalID(id=ids[p]) for p in paths]),
                               timeout=RPC_TIMEOUT)
        one = stub.GetValue(v2.GetValueRequest(signal_id=signal_id(TEMPERATURE)), timeout=RPC_TIMEOUT)
    assert [value_of(point) for point in by_path.data_points] == pytest.approx([reference[p] for p in paths])
    assert [value_of(point) for point in by_id.data_points] == pytest.approx([reference[p] for p in paths])
    assert one.data_point.value.WhichOneof("typed_value") == "float"
    assert value_of(one.data_point) == reference[TEMPERATURE]
    assert one.data_point.timestamp.seconds > 0


def test_values_travel_in_the_field_of_their_datatype(kuksa):
    with kuksa.channel() as channel:
        stub = kuksa.v2(channel)
        fields = {path: stub.GetValue(v2.GetValueRequest(signal_id=signal_id(path)), timeout=RPC_TIMEOUT)
                  .data_point.value.WhichOneof("typed_value")
                  for path in (TEMPERATURE, SEAT_HEATING, LOCKED, SOURCE, "Vehicle.Powertrain.FuelSystem.RelativeLevel")}
    # float -> float, int8 -> int32, boolean -> bool, string -> string, uint8 -> uint32
    assert fields == {TEMPERATURE: "float", SEAT_HEATING: "int32", LOCKED: "bool", SOURCE: "string",
                      "Vehicle.Powertrain.FuelSystem.RelativeLevel": "uint32"}


def test_list_metadata_is_what_the_profile_binds(carplayd, kuksa):
    described = {signal["path"]: signal for signal in vss(carplayd, "Describe")["signals"]}
    with kuksa.channel() as channel:
        stub = kuksa.v2(channel)
        everything = stub.ListMetadata(v2.ListMetadataRequest(root="Vehicle"), timeout=RPC_TIMEOUT).metadata
        hvac = stub.ListMetadata(v2.ListMetadataRequest(root="Vehicle.Cabin.HVAC"), timeout=RPC_TIMEOUT).metadata
        stations = stub.ListMetadata(v2.ListMetadataRequest(root="Vehicle.Cabin.HVAC.Station.*.*.Temperature"),
                                     timeout=RPC_TIMEOUT).metadata
        missing = rpc_error(stub.ListMetadata, v2.ListMetadataRequest(root="Vehicle.Chassis"))
        invalid = rpc_error(stub.ListMetadata, v2.ListMetadataRequest(root="Vehicle..Cabin"))
    print("\nListMetadata: %d signals (%d under HVAC, %d station temperatures)" % (len(everything), len(hvac), len(stations)))
    assert sorted(meta.path for meta in everything) == sorted(described)
    assert sorted(meta.path for meta in hvac) == sorted(p for p in described if p.startswith("Vehicle.Cabin.HVAC."))
    assert sorted(meta.path for meta in stations) == sorted(p for p in described if p.startswith("Vehicle.Cabin.HVAC.Station.")
                                                           and p.endswith(".Temperature"))
    types = v2_types
    for meta in everything:
        signal = described[meta.path]
        assert types.DataType.Name(meta.data_type) == "DATA_TYPE_" + {"boolean": "BOOLEAN"}.get(
            signal["datatype"], signal["datatype"].upper()), meta.path
        assert types.EntryType.Name(meta.entry_type) == "ENTRY_TYPE_" + signal["entryType"].upper(), meta.path
        assert meta.unit == (signal.get("unit") or ""), meta.path
        assert meta.description == signal["description"], meta.path
    source = next(meta for meta in everything if meta.path == SOURCE)
    assert "CARPLAY" in source.allowed_values.string_array.values
    assert missing[0] == grpc.StatusCode.NOT_FOUND and "Vehicle.Chassis" in missing[1]
    assert invalid[0] == grpc.StatusCode.INVALID_ARGUMENT


def test_metadata_through_kuksa_client_v1(carplayd, kuksa):
    described = {signal["path"]: signal for signal in vss(carplayd, "Describe")["signals"]}
    with kuksa.vss_client() as client:
        metadata = client.get_metadata([TEMPERATURE, CABIN_TEMPERATURE, SEAT_HEATING], timeout=RPC_TIMEOUT)
    assert metadata[TEMPERATURE].entry_type.name == "ACTUATOR" and metadata[TEMPERATURE].unit == "celsius"
    assert metadata[CABIN_TEMPERATURE].entry_type.name == "SENSOR"
    assert metadata[SEAT_HEATING].data_type.name == "INT8"
    assert metadata[SEAT_HEATING].value_restriction.min == described[SEAT_HEATING]["min"]
    assert metadata[SEAT_HEATING].value_restriction.max == described[SEAT_HEATING]["max"]


def test_v1_get_of_a_branch_and_a_wildcard(carplayd, kuksa):
    described = sorted(signal["path"] for signal in vss(carplayd, "Describe")["signals"])
    with kuksa.channel() as channel:
        stub = kuksa.v1(channel)
        branch = stub.Get(v1.GetRequest(entries=[v1.EntryRequest(path="Vehicle.Cabin.Door", view=v1_types.VIEW_CURRENT_VALUE)]),
                          timeout=RPC_TIMEOUT)
        wildcard = stub.Get(v1.GetRequest(entries=[v1.EntryRequest(path="Vehicle.Cabin.Door.*.DriverSide.IsLocked",
                                                                    view=v1_types.VIEW_CURRENT_VALUE)]), timeout=RPC_TIMEOUT)
    assert sorted(entry.path for entry in branch.entries) == [p for p in described if p.startswith("Vehicle.Cabin.Door.")]
    assert sorted(entry.path for entry in wildcard.entries) == [p for p in described if p.startswith("Vehicle.Cabin.Door.")
                                                               and p.endswith("DriverSide.IsLocked")]
    assert not branch.errors and not wildcard.errors


def test_unknown_paths_are_not_found(kuksa):
    path = "Vehicle.Cabin.Teleporter.IsActive"
    with kuksa.channel() as channel:
        code, details = rpc_error(kuksa.v2(channel).GetValue, v2.GetValueRequest(signal_id=signal_id(path)))
        assert code == grpc.StatusCode.NOT_FOUND and path in details
        code, details = rpc_error(kuksa.v2(channel).GetValue, v2.GetValueRequest(signal_id=v2_types.SignalID(id=999999)))
        assert code == grpc.StatusCode.NOT_FOUND and "999999" in details
    with kuksa.vss_client() as client:
        with pytest.raises(VSSClientError) as excinfo:
            client.get_current_values([TEMPERATURE, path], timeout=RPC_TIMEOUT)
    assert [(e["path"], e["error"]["code"], e["error"]["reason"]) for e in excinfo.value.errors] == [(path, 404, "not_found")]


def test_targets_are_not_kept(kuksa):
    """kuksa.val.v1's target view: carplayd-kuksa keeps no targets (an actuation answers when
    the car has the value): an error that says so, not an empty answer."""
    with kuksa.vss_client() as client:
        with pytest.raises(VSSClientError) as excinfo:
            client.get_target_values([TEMPERATURE], timeout=RPC_TIMEOUT)
    assert excinfo.value.error["code"] == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert "keeps no actuator targets" in excinfo.value.error["message"]


def test_server_info_on_both_apis(kuksa):
    with kuksa.channel() as channel:
        info2 = kuksa.v2(channel).GetServerInfo(v2.GetServerInfoRequest(), timeout=RPC_TIMEOUT)
        info1 = kuksa.v1(channel).GetServerInfo(v1.GetServerInfoRequest(), timeout=RPC_TIMEOUT)
    assert info2.name == info1.name == "carplayd-kuksa"
    assert info2.version == info1.version and info1.version


@pytest.mark.parametrize("method, request_type", [
    ("PublishValue", lambda: v2.PublishValueRequest(signal_id=signal_id(TEMPERATURE))),
])
def test_the_provider_side_is_unimplemented(kuksa, method, request_type):
    with kuksa.channel() as channel:
        code, details = rpc_error(getattr(kuksa.v2(channel), method), request_type())
    assert code == grpc.StatusCode.UNIMPLEMENTED and "carplayd" in details


def test_set_current_values_is_refused(kuksa):
    """Publishing a value (kuksa-client's set_current_values: v2 PublishValue, then v1 Set
    of the value) is the provider's: carplayd's alone."""
    from kuksa_client.grpc import Datapoint
    with kuksa.vss_client() as client:
        with pytest.raises(VSSClientError) as excinfo:
            client.set_current_values({CABIN_TEMPERATURE: Datapoint(30.0)}, timeout=RPC_TIMEOUT)
    errors = excinfo.value.errors
    assert [(e["path"], e["error"]["code"]) for e in errors] == [(CABIN_TEMPERATURE, 403)]
    assert "only actuator targets may be set" in errors[0]["error"]["message"]

"""carplayd-kuksa on a real kernel CAN stack: carplayd on vcan0 with carplay-ecu as the
car, carplayd-kuksa in front of it, the unmodified kuksa-client from PyPI as the client.
An actuation answers only once carplay-ecu's status frames (captured by candump) show
it; one the ECU rejects is an error. Run with the rest of IntegrationTests/vcan."""

import importlib.util
import tempfile
import time
from pathlib import Path

import cantools
import grpc
import pytest
from kuksa_client.grpc import Datapoint, VSSClientError

from test_vcan import REPO, rig_factory, vcan  # noqa: F401  (fixtures)

_spec = importlib.util.spec_from_file_location("kuksa_conftest", REPO / "IntegrationTests" / "kuksa" / "conftest.py")
kuksa_conftest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(kuksa_conftest)

TEMPERATURE = kuksa_conftest.TEMPERATURE
DBC = cantools.database.load_file(str(REPO / "VehicleProfiles" / "sedan" / "sedan.dbc"))
CLIMATE_STATUS = DBC.get_message_by_name("ClimateStatus")
CLIMATE_COMMAND = DBC.get_message_by_name("ClimateCommand")


@pytest.fixture
def kuksa_for():
    servers = []

    def start(rig):
        server = kuksa_conftest.KuksaServer(Path(tempfile.mkdtemp(prefix="vcan-kuksa-")), "kuksa", rig.socket)
        servers.append(server)
        return server.start()
    yield start
    for server in servers:
        assert server.stop() == 0, server.log()[-3000:]


def status_temperatures(rig):
    """TargetTempLeft of every ClimateStatus frame candump captured, in order."""
    values = []
    for frame in rig.captured():
        if frame[0] == CLIMATE_STATUS.frame_id:
            values.append(CLIMATE_STATUS.decode(frame[1], decode_choices=False)["TargetTempLeft"])
    return values


def test_set_target_values_returns_once_the_ecus_status_frame_shows_it(rig_factory, kuksa_for):
    rig = rig_factory("sedan")
    kuksa = kuksa_for(rig)
    with kuksa.vss_client() as client:
        current = client.get_current_values([TEMPERATURE])[TEMPERATURE].value
        target = 23.5 if current != 23.5 else 19.5
        started = time.monotonic()
        client.set_target_values({TEMPERATURE: Datapoint(target)})
        elapsed = time.monotonic() - started
        read_after = client.get_current_values([TEMPERATURE])[TEMPERATURE].value
    print("\nvcan: set_target_values %s = %s answered after %.1f ms; read right after: %s" % (TEMPERATURE, target, elapsed * 1000, read_after))
    assert read_after == target
    # The car on the kernel bus said so: a ClimateStatus frame carrying the target.
    assert target in status_temperatures(rig), status_temperatures(rig)[-5:]


def test_an_actuation_the_ecu_rejects_is_an_error(rig_factory, kuksa_for):
    rig = rig_factory("sedan", ecu_args=["--faults", '{"rules":[{"kind":"reject","message":"ClimateCommand"}]}'])
    kuksa = kuksa_for(rig)
    with kuksa.vss_client() as client:
        before = client.get_current_values([TEMPERATURE])[TEMPERATURE].value
        target = 23.5 if before != 23.5 else 19.5
        with pytest.raises(VSSClientError) as raised:
            client.set_target_values({TEMPERATURE: Datapoint(target)})
        after = client.get_current_values([TEMPERATURE])[TEMPERATURE].value
    print("\nvcan: a rejected set_target_values raised %s" % raised.value)
    assert "rejected" in str(raised.value).lower(), raised.value
    assert after == before
    # carplayd did send the command: the refusal is the car's, on the bus.
    assert any(frame[0] == CLIMATE_COMMAND.frame_id for frame in rig.captured())
    with kuksa.channel() as channel:
        stub = kuksa.v2(channel)
        with pytest.raises(grpc.RpcError) as error:
            stub.Actuate(kuksa_conftest.actuate_request(TEMPERATURE, float=target), timeout=kuksa_conftest.RPC_TIMEOUT)
    assert error.value.code() == grpc.StatusCode.ABORTED, error.value

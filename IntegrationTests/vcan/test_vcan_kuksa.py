"""carplayd-kuksa on a real kernel CAN stack: carplayd on vcan0 with carplay-ecu as the
car, carplayd-kuksa in front of it, the unmodified kuksa-client from PyPI as the client.
An actuation answers only once carplay-ecu's status frames (captured by candump) show
it; one the ECU rejects is an error. Run with the rest of IntegrationTests/vcan."""

import importlib.util
import os
import re
import subprocess
import sys
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

    def start(rig, listen=None, args=()):
        server = kuksa_conftest.KuksaServer(Path(tempfile.mkdtemp(prefix="vcan-kuksa-")), "kuksa", rig.socket,
                                            listen=listen, args=args)
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


def test_a_subscription_sees_what_the_ecus_status_frames_confirm(rig_factory, kuksa_for):
    """kuksa-client's subscribe_current_values (v2 Subscribe) on the kernel bus: the value
    another client actuates arrives once carplay-ecu's status frames carry it."""
    rig = rig_factory("sedan")
    kuksa = kuksa_for(rig)
    with kuksa.vss_client() as watcher, kuksa.vss_client() as actor:
        before = actor.get_current_values([TEMPERATURE])[TEMPERATURE].value
        target = 24.5 if before != 24.5 else 18.5
        stream = watcher.subscribe_current_values([TEMPERATURE], timeout=kuksa_conftest.RPC_TIMEOUT * 5)
        reader = kuksa_conftest.StreamReader(stream, cancel=watcher.disconnect)
        reader.wait_for(lambda update: TEMPERATURE in update, "the first value")
        started = time.monotonic()
        actor.set_target_values({TEMPERATURE: Datapoint(target)})
        reader.wait_for(lambda update: TEMPERATURE in update and update[TEMPERATURE].value == target,
                        "%s = %s" % (TEMPERATURE, target))
        elapsed = time.monotonic() - started
        reader.cancel()
    print("\nvcan: the subscription saw %s = %s %.1f ms after set_target_values was sent" % (TEMPERATURE, target, elapsed * 1000))
    assert target in status_temperatures(rig)


def test_the_kuksa_client_cli_over_tcp_with_a_token(rig_factory, kuksa_for, tmp_path):
    """kuksa-client's command line, as a person types it, on carplayd-kuksa's TCP listener
    with a KUKSA token, in front of carplayd on vcan0."""
    rig = rig_factory("sedan")
    tokens = kuksa_conftest.Tokens(tmp_path)
    kuksa = kuksa_for(rig, listen=["tcp://127.0.0.1:0"], args=["--jwt-public-key", str(tokens.public_key_file)])
    token_file = tmp_path / "hvac.token"
    token_file.write_text(tokens.token("actuate:Vehicle.Cabin.HVAC read:Vehicle") + "\n")
    target = 20.5 if 20.5 not in status_temperatures(rig) else 26.5
    commands = "\n".join(["getValue %s" % TEMPERATURE, "setTargetValue %s %s" % (TEMPERATURE, target),
                          "getValue %s" % TEMPERATURE, "quit"]) + "\n"
    cli = os.path.join(os.path.dirname(sys.executable), "kuksa-client")
    result = subprocess.run([cli, "grpc://127.0.0.1:%d" % kuksa.tcp_port, "--token_or_tokenfile", str(token_file)],
                            input=commands, capture_output=True, text=True, timeout=300, cwd=str(tmp_path),
                            env=dict(os.environ, HOME=str(tmp_path), TERM="dumb"))
    out = re.sub(r"\x1b\[[0-9;]*m", "", result.stdout)
    print("\nvcan: kuksa-client CLI:\n%s\n%s" % (out[-2000:], result.stderr[-1000:]))
    assert result.returncode == 0
    assert "\nOK\n" in out and '"value": %s' % target in out, out
    assert target in status_temperatures(rig)

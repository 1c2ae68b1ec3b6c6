"""Who may reach the car through carplayd-kuksa: on the Unix socket the socket's mode and
group (carplayd's: only who may call carplayd); on TCP, opt-in, KUKSA's JWT tokens."""

import grp
import os
import re
import stat
import subprocess
import sys

import grpc
import pytest
from kuksa_client.grpc import Datapoint, VSSClient, VSSClientError

from conftest import (ENTRY, LOCKED, RPC_TIMEOUT, SEAT_HEATING, TEMPERATURE, Tokens, actuate_request,
                      NOBODY_GID, rpc_error, run_as_nobody, signal_id, v1, v2, value_of, vss)


# ---------------------------------------------------------------------- the Unix socket
def test_the_socket_is_made_like_carplayds(carplayd, kuksa):
    mine, theirs = os.stat(kuksa.socket), os.stat(carplayd.socket)
    print("\n%s: mode %o, group %s (carplayd's socket: mode %o, group %s)"
          % (kuksa.socket, stat.S_IMODE(mine.st_mode), grp.getgrgid(mine.st_gid).gr_name,
             stat.S_IMODE(theirs.st_mode), grp.getgrgid(theirs.st_gid).gr_name))
    assert stat.S_ISSOCK(mine.st_mode)
    assert stat.S_IMODE(mine.st_mode) == 0o660
    assert mine.st_gid == theirs.st_gid
    assert "group %s" % grp.getgrgid(theirs.st_gid).gr_name in kuksa.startup_line


def test_another_user_is_refused_on_the_unix_socket(carplayd, kuksa):
    """nobody, not in the socket's group, with kuksa-client from PyPI: the kernel refuses
    the connection; nothing reaches carplayd-kuksa or the car."""
    result = run_as_nobody(kuksa.socket, "kuksa-client")
    print("\nas nobody: %s" % result)
    assert result["connect"] == "Permission denied"
    assert "values" not in result
    assert result["error"]["code"] == int(grpc.StatusCode.UNAVAILABLE.value[0])
    assert "Permission denied" in result["error"]["message"]


def test_a_member_of_the_sockets_group_is_served(carplayd, servers):
    """The same client as nobody, on a carplayd-kuksa whose socket has nobody's group:
    the socket's group is who may call, as carplayd's is."""
    group = grp.getgrgid(NOBODY_GID).gr_name
    served = servers("kuksa-nobody", carplayd.socket, args=["--socket-group", group])
    assert os.stat(served.socket).st_gid == NOBODY_GID
    result = run_as_nobody(served.socket, "kuksa-client")
    print("\nas nobody, socket group %s: %s" % (group, result))
    assert result["connect"] == "ok"
    assert result["values"] == {TEMPERATURE: vss(carplayd, "Get", paths=[TEMPERATURE])["values"][TEMPERATURE]}


# ---------------------------------------------------------------------- TCP and JWT
@pytest.fixture(scope="module")
def tcp(carplayd, servers, tokens):
    return servers("kuksa-tcp", carplayd.socket,
                   listen=["tcp://127.0.0.1:0"], args=["--jwt-public-key", str(tokens.public_key_file)])


def tcp_channel(server):
    return grpc.insecure_channel("127.0.0.1:%d" % server.tcp_port)


def test_tcp_needs_a_key_to_start(carplayd, workdir):
    result = subprocess.run([sys.executable, str(ENTRY), "--carplayd-socket", carplayd.socket,
                             "--listen", "tcp://127.0.0.1:0"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert result.stderr.startswith("carplayd-kuksa: --listen tcp://127.0.0.1:0: ")
    assert "--jwt-public-key" in result.stderr and "Traceback" not in result.stderr


def test_tcp_without_a_token_is_refused(tcp):
    with tcp_channel(tcp) as channel:
        for call, request in ((v2_stub(channel).GetValue, v2.GetValueRequest(signal_id=signal_id(TEMPERATURE))),
                              (v2_stub(channel).Actuate, actuate_request(TEMPERATURE, float=22.0)),
                              (v1_stub(channel).GetServerInfo, v1.GetServerInfoRequest())):
            code, details = rpc_error(call, request)
            assert (code, details) == (grpc.StatusCode.UNAUTHENTICATED, "No auth token provided")


@pytest.mark.parametrize("make, why", [
    (lambda t: t.token("read actuate", key=t.other_key), "Signature verification failed"),
    (lambda t: t.token("read actuate", audience=("another.service",)), "Audience doesn't match"),
    (lambda t: t.token("read actuate", expires_in=-120), "Signature has expired"),
    (lambda t: t.token("read:Vehicle.Cabin actuate:vehicle.lower"), "bad scope"),
    (lambda t: "not.a.jwt", "Invalid auth token"),
])
def test_tcp_with_a_bad_token_is_refused(carplayd, tcp, tokens, make, why):
    before = vss(carplayd, "Get", paths=[TEMPERATURE])["values"][TEMPERATURE]
    with tcp_channel(tcp) as channel:
        code, details = rpc_error(v2_stub(channel).Actuate, actuate_request(TEMPERATURE, float=27.5),
                                  metadata=Tokens.metadata(make(tokens)))
    print("\n%s: %s" % (code, details))
    assert code == grpc.StatusCode.UNAUTHENTICATED
    assert why in details
    assert vss(carplayd, "Get", paths=[TEMPERATURE])["values"][TEMPERATURE] == before


def test_a_read_scope_reads_but_does_not_actuate(carplayd, tcp, tokens):
    token = tokens.token("read:Vehicle.Cabin.HVAC")
    with tcp_channel(tcp) as channel:
        stub = v2_stub(channel)
        point = stub.GetValue(v2.GetValueRequest(signal_id=signal_id(TEMPERATURE)), timeout=RPC_TIMEOUT,
                              metadata=Tokens.metadata(token)).data_point
        assert value_of(point) == vss(carplayd, "Get", paths=[TEMPERATURE])["values"][TEMPERATURE]
        code, details = rpc_error(stub.GetValue, v2.GetValueRequest(signal_id=signal_id(LOCKED)),
                                  metadata=Tokens.metadata(token))
        assert code == grpc.StatusCode.PERMISSION_DENIED and LOCKED in details
        code, details = rpc_error(stub.Actuate, actuate_request(TEMPERATURE, float=22.0), metadata=Tokens.metadata(token))
        assert code == grpc.StatusCode.PERMISSION_DENIED and TEMPERATURE in details
        listed = stub.ListMetadata(v2.ListMetadataRequest(root="Vehicle"), timeout=RPC_TIMEOUT,
                                   metadata=Tokens.metadata(token)).metadata
    assert listed and all(meta.path.startswith("Vehicle.Cabin.HVAC.") for meta in listed)


def test_an_actuate_scope_covers_its_paths_only(carplayd, tcp, tokens):
    token = tokens.token("actuate:Vehicle.Cabin.HVAC.Station.*.Driver.Temperature read:Vehicle.Cabin.Door")
    target = 23.0 if vss(carplayd, "Get", paths=[TEMPERATURE])["values"][TEMPERATURE] != 23.0 else 24.0
    with tcp_channel(tcp) as channel:
        stub = v2_stub(channel)
        stub.Actuate(actuate_request(TEMPERATURE, float=target), timeout=RPC_TIMEOUT, metadata=Tokens.metadata(token))
        assert value_of(stub.GetValue(v2.GetValueRequest(signal_id=signal_id(TEMPERATURE)), timeout=RPC_TIMEOUT,
                                      metadata=Tokens.metadata(token)).data_point) == target  # actuate includes read
        code, details = rpc_error(stub.Actuate, actuate_request(LOCKED, bool=True), metadata=Tokens.metadata(token))
        assert code == grpc.StatusCode.PERMISSION_DENIED and LOCKED in details
        code, details = rpc_error(stub.BatchActuate, v2.BatchActuateRequest(actuate_requests=[
            actuate_request(TEMPERATURE, float=21.0), actuate_request(SEAT_HEATING, int32=0)]),
            metadata=Tokens.metadata(token))
        assert code == grpc.StatusCode.PERMISSION_DENIED and SEAT_HEATING in details
    assert vss(carplayd, "Get", paths=[TEMPERATURE])["values"][TEMPERATURE] == target


def test_kuksa_client_with_a_token_over_tcp(carplayd, tcp, tokens):
    target = 25.5 if vss(carplayd, "Get", paths=[TEMPERATURE])["values"][TEMPERATURE] != 25.5 else 18.0
    with VSSClient("127.0.0.1", tcp.tcp_port, token=tokens.token("actuate:Vehicle.Cabin.HVAC")) as client:
        client.set_target_values({TEMPERATURE: Datapoint(target)}, timeout=RPC_TIMEOUT)
        assert client.get_current_values([TEMPERATURE], timeout=RPC_TIMEOUT)[TEMPERATURE].value == target
    with VSSClient("127.0.0.1", tcp.tcp_port, ensure_startup_connection=False) as client:
        with pytest.raises(VSSClientError) as excinfo:
            client.get_current_values([TEMPERATURE], timeout=RPC_TIMEOUT)
    assert excinfo.value.error["code"] == grpc.StatusCode.UNAUTHENTICATED.value[0]


def test_kuksa_client_cli_over_tcp(carplayd, tcp, tokens, workdir):
    """The kuksa-client command line, as a person types it (commands on its standard input)."""
    token_file = workdir / "actuate-hvac.token"
    token_file.write_text(tokens.token("actuate:Vehicle.Cabin.HVAC read:Vehicle") + "\n")
    target = 26.0 if vss(carplayd, "Get", paths=[TEMPERATURE])["values"][TEMPERATURE] != 26.0 else 17.5
    cli = os.path.join(os.path.dirname(sys.executable), "kuksa-client")
    commands = "\n".join(["getValue %s" % TEMPERATURE,
                          "setTargetValue %s %s" % (TEMPERATURE, target),
                          "getValue %s" % TEMPERATURE,
                          "getMetaData %s" % TEMPERATURE,
                          "setTargetValue %s true" % LOCKED,
                          "quit"]) + "\n"
    result = subprocess.run([cli, "grpc://127.0.0.1:%d" % tcp.tcp_port, "--token_or_tokenfile", str(token_file)],
                            input=commands, capture_output=True, text=True, timeout=300, cwd=str(workdir),
                            env=dict(os.environ, HOME=str(workdir), TERM="dumb"))
    print("\nkuksa-client CLI:\n%s\n%s" % (re.sub(r"\x1b\[[0-9;]*m", "", result.stdout)[-3000:], result.stderr[-2000:]))
    assert result.returncode == 0
    out = re.sub(r"\x1b\[[0-9;]*m", "", result.stdout)  # kuksa-client colours its JSON
    assert '"value": %s' % target in out or '"value": %r' % target in out, out
    assert "\nOK\n" in out  # setTargetValue's answer once carplayd confirmed
    assert "celsius" in out  # getMetaData
    assert "Permission denied" in out and LOCKED in out  # the token does not cover the lock
    assert vss(carplayd, "Get", paths=[TEMPERATURE])["values"][TEMPERATURE] == target


def v2_stub(channel):
    from conftest import v2_grpc
    return v2_grpc.VALStub(channel)


def v1_stub(channel):
    from conftest import v1_grpc
    return v1_grpc.VALStub(channel)

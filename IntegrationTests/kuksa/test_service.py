"""carplayd-kuksa as a program: its options, its socket's life, carplayd going away and
coming back."""

import os
import signal
import socket
import subprocess
import sys

import grpc
import pytest

from conftest import (CONFIRMATION_MS, ENTRY, RPC_TIMEOUT, TEMPERATURE, Daemon, KuksaServer, actuate_request,
                      rpc_error, signal_id, v2, value_of, wait_until)


def run(*args, timeout=120):
    return subprocess.run([sys.executable, str(ENTRY)] + list(args), capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("args, exit_code, message", [
    (["--listen", "http://127.0.0.1:80"], 2, "--listen http://127.0.0.1:80: expected unix:/PATH or tcp://HOST:PORT"),
    (["--listen", "tcp://127.0.0.1:0", "--jwt-public-key", "/etc/hostname"], 2, "--jwt-public-key /etc/hostname: not an RSA public key"),
    (["--listen", "tcp://127.0.0.1:99999"], 2, "--listen tcp://127.0.0.1:99999: the port is not a number from 0 to 65535"),
    (["--listen", "unix:relative.sock"], 2, "--listen unix:relative.sock: a Unix socket needs an absolute path"),
    (["--jwt-public-key", "/nonexistent/key.pub"], 2, "--jwt-public-key /nonexistent/key.pub: No such file or directory"),
    (["--carplayd-timeout", "0"], 2, "--carplayd-timeout 0.0: give a number of seconds above 0"),
    (["--carplayd-timeout", "soon"], 2, "argument --carplayd-timeout: invalid float value: 'soon'"),
    (["--workers", "1"], 2, "--workers 1: give at least 2"),
    (["--carplayd-socket", "/nonexistent/carplayd.sock", "--listen", "unix:/tmp/cpk-unused/k.sock"], 1,
     "carplayd's socket /nonexistent/carplayd.sock: No such file or directory; start carplayd first"),
    (["--socket-group", "no-such-group-here", "--listen", "unix:/tmp/cpk-unused/k.sock"], 1,
     "--socket-group no-such-group-here: no such group"),
])
def test_bad_options_are_named_without_a_traceback(args, exit_code, message):
    result = run(*args)
    assert result.returncode == exit_code, result
    assert message in result.stderr, result.stderr
    assert "Traceback" not in result.stderr + result.stdout


def test_a_private_key_is_refused(tokens):
    result = run("--listen", "tcp://127.0.0.1:0", "--jwt-public-key", str(tokens.private_key_file))
    assert result.returncode == 2
    assert "holds a private key" in result.stderr and "Traceback" not in result.stderr


def test_a_socket_another_server_answers_on_is_not_taken(carplayd, kuksa):
    result = run("--carplayd-socket", carplayd.socket, "--listen", "unix:" + kuksa.socket)
    assert result.returncode == 1
    assert "another server is listening there" in result.stderr
    with kuksa.channel() as channel:  # the running one is unharmed
        kuksa.v2(channel).GetValue(v2.GetValueRequest(signal_id=signal_id(TEMPERATURE)), timeout=RPC_TIMEOUT)


def test_a_stale_socket_is_replaced_and_removed_at_sigterm(carplayd, workdir):
    path = str(workdir / "stale.sock")
    stale = socket.socket(socket.AF_UNIX)
    stale.bind(path)
    stale.close()  # the file stays, nobody listens: what a killed server leaves
    server = KuksaServer(workdir, "stale", carplayd.socket)
    server.start()
    try:
        with server.channel() as channel:
            server.v2(channel).GetValue(v2.GetValueRequest(signal_id=signal_id(TEMPERATURE)), timeout=RPC_TIMEOUT)
    finally:
        code = server.stop()
    assert code == 0
    assert not os.path.exists(path)


def test_carplayd_going_away_and_coming_back(workdir, servers):
    """carplayd stops: calls answer UNAVAILABLE naming its socket, carplayd-kuksa keeps
    running; carplayd starts again on the same socket: calls work again."""
    daemon = Daemon(workdir, name="carplayd-restarting", profile="sedan",
                    args=["--confirmation-timeout", str(CONFIRMATION_MS)])
    daemon.start(timeout=60)
    try:
        server = servers("kuksa-restarting", daemon.socket)
        with server.channel() as channel:
            stub = server.v2(channel)
            stub.GetValue(v2.GetValueRequest(signal_id=signal_id(TEMPERATURE)), timeout=RPC_TIMEOUT)
            assert daemon.stop() == 0
            code, details = rpc_error(stub.GetValue, v2.GetValueRequest(signal_id=signal_id(TEMPERATURE)))
            print("\ncarplayd stopped: %s %s" % (code, details))
            assert code == grpc.StatusCode.UNAVAILABLE and daemon.socket in details
            code, details = rpc_error(stub.Actuate, actuate_request(TEMPERATURE, float=22.0))
            assert code == grpc.StatusCode.UNAVAILABLE
            assert server.alive()
            daemon.start(timeout=60)
            # Describe's answer is reused for 2 s: the first calls may still find the old one.
            point = wait_until(lambda: _value_or_none(stub), "carplayd-kuksa reaches the restarted carplayd")
            stub.Actuate(actuate_request(TEMPERATURE, float=23.5 if value_of(point) != 23.5 else 24.0),
                         timeout=RPC_TIMEOUT)
    finally:
        if daemon.alive():
            assert daemon.stop() == 0


def _value_or_none(stub):
    try:
        return stub.GetValue(v2.GetValueRequest(signal_id=signal_id(TEMPERATURE)), timeout=RPC_TIMEOUT).data_point
    except grpc.RpcError as error:
        assert error.code() == grpc.StatusCode.UNAVAILABLE, error
        return None


def test_sigterm_ends_open_subscriptions(carplayd, workdir):
    from conftest import StreamReader
    server = KuksaServer(workdir, "ending", carplayd.socket)
    server.start()
    with server.channel() as channel:
        reader = StreamReader(server.v2(channel).Subscribe(v2.SubscribeRequest(signal_paths=[TEMPERATURE]),
                                                           timeout=RPC_TIMEOUT * 5))
        reader.wait_for(lambda response: True, "the first response")
        server.process.send_signal(signal.SIGTERM)
        assert server.process.wait(60) == 0
        reader.thread.join(60)
    assert not reader.thread.is_alive()
    assert isinstance(reader.error, grpc.RpcError)
    assert not os.path.exists(server.socket)


def test_stubs_made_as_one_user_are_read_by_another(workdir):
    """make install-kuksa generates the stubs as root, beside the package, for the service's
    user and for users' own instances: the directory is readable as the umask allows, not
    mkdtemp's 0700."""
    root = workdir / "stubs"
    old = os.umask(0o022)
    try:
        result = subprocess.run([sys.executable, str(ENTRY), "--generate-stubs"], capture_output=True, text=True,
                                timeout=120, env=dict(os.environ, CARPLAYD_KUKSA_STUBS=str(root)))
    finally:
        os.umask(old)
    assert result.returncode == 0, result.stderr
    made = [entry for entry in root.iterdir() if not entry.name.startswith(".")]
    assert len(made) == 1, made
    assert (made[0].stat().st_mode & 0o777) == 0o755, oct(made[0].stat().st_mode)


def test_an_installed_copy_a_user_cannot_write_to_uses_the_users_cache(workdir, monkeypatch):
    """A user's own instance of a copy in /usr/lib: the stubs install-kuksa made there are
    used; where none were made, the user's cache, not beside the package (read-only)."""
    monkeypatch.syspath_prepend(str(ENTRY.parent))
    from carplayd_kuksa import stubs
    installed = workdir / "installed"
    (installed / "proto").mkdir(parents=True)
    monkeypatch.setattr(stubs, "PROTO_ROOT", str(installed / "proto"))
    monkeypatch.setattr(stubs, "fingerprint", lambda: "f")
    monkeypatch.setattr(os, "access", lambda path, mode: False)  # as a user: root may write anywhere
    monkeypatch.delenv("CARPLAYD_KUKSA_STUBS", raising=False)
    monkeypatch.delenv("CACHE_DIRECTORY", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(workdir / "cache"))
    assert stubs.cache_root() == str(workdir / "cache" / "carplayd-kuksa" / "stubs")
    (installed / ".stubs" / "f").mkdir(parents=True)
    assert stubs.cache_root() == str(installed / ".stubs")


def test_a_socket_already_of_its_group_is_not_chowned(workdir, monkeypatch):
    """Under the unit (Group=carplay) the socket is born with its group, and chown is
    outside the unit's system call filter (@privileged: EPERM): it must not be called."""
    monkeypatch.syspath_prepend(str(ENTRY.parent))
    from carplayd_kuksa import server
    path = workdir / "k.sock"
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(path))

        def refused(*_):
            raise PermissionError(1, "Operation not permitted")
        monkeypatch.setattr(os, "chown", refused)
        server.open_unix_sockets([("unix", str(path), os.getegid(), "own", "test")])
        assert (path.stat().st_mode & 0o777) == 0o660
        with pytest.raises(server.StartError, match="cannot give it group"):
            server.open_unix_sockets([("unix", str(path), os.getegid() + 1, "other", "test")])

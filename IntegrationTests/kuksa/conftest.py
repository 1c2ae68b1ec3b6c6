"""carplayd-kuksa end to end: the real carplayd (its embedded simulated car) behind the
real carplayd-kuksa, driven by the unmodified kuksa-client from PyPI (its VSSClient and
its CLI) and by the kuksa.val.v2 stubs kuksa-client ships.

carplayd is started as IntegrationTests/daemon starts it (that suite's `Daemon`, imported
from its conftest): $CARPLAYD_BIN, else $CARPLAYD_BIN_DIR/carplayd, else the SwiftPM
build's. carplayd-kuksa runs from kuksa/ with this Python (the venv that has grpcio).

Every wait is bounded and generous (the suite must pass beside two CPU-bound processes);
times are measured and printed, never asserted.
"""

import importlib.util
import json
import os
import pwd
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import grpc
import pytest

REPO = Path(__file__).resolve().parents[2]
KUKSA = REPO / "kuksa"
ENTRY = KUKSA / "carplayd-kuksa"

# carplayd's binaries: CARPLAYD_BIN wins, then CARPLAYD_BIN_DIR (what scripts/test.sh
# gives), then IntegrationTests/daemon's default (the SwiftPM build).
if not os.environ.get("CARPLAYD_BIN") and os.environ.get("CARPLAYD_BIN_DIR"):
    os.environ["CARPLAYD_BIN"] = os.path.join(os.environ["CARPLAYD_BIN_DIR"], "carplayd")

_spec = importlib.util.spec_from_file_location("daemon_conftest", REPO / "IntegrationTests" / "daemon" / "conftest.py")
daemon_conftest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(daemon_conftest)
Daemon = daemon_conftest.Daemon

# kuksa-client's own generated kuksa.val stubs (the client side never loads carplayd-kuksa's)
from kuksa.val.v1 import types_pb2 as v1_types  # noqa: E402
from kuksa.val.v1 import val_pb2 as v1  # noqa: E402
from kuksa.val.v1 import val_pb2_grpc as v1_grpc  # noqa: E402
from kuksa.val.v2 import types_pb2 as v2_types  # noqa: E402
from kuksa.val.v2 import val_pb2 as v2  # noqa: E402
from kuksa.val.v2 import val_pb2_grpc as v2_grpc  # noqa: E402

TEMPERATURE = "Vehicle.Cabin.HVAC.Station.Row1.Driver.Temperature"
SEAT_HEATING = "Vehicle.Cabin.Seat.Row1.DriverSide.HeatingCooling"
CABIN_TEMPERATURE = "Vehicle.Cabin.HVAC.AmbientAirTemperature"
LOCKED = "Vehicle.Cabin.Door.Row1.DriverSide.IsLocked"
SOURCE = "Vehicle.Cabin.Infotainment.Media.Played.Source"
RPC_TIMEOUT = 60.0          # per gRPC call: beside two CPU hogs, nothing should take a minute
CONFIRMATION_MS = 2000      # carplayd's confirmation timeout in these tests (the sedan's own: 300)
NOBODY = pwd.getpwnam("nobody").pw_uid
NOBODY_GID = pwd.getpwnam("nobody").pw_gid  # Debian: nogroup


def carplayctl():
    return os.path.join(os.path.dirname(daemon_conftest.binary()), "carplayctl")


# ---------------------------------------------------------------------- carplayd-kuksa
class KuksaServer:
    """One carplayd-kuksa process; its stdout and stderr go to a log file."""

    started = []

    def __init__(self, workdir, name, carplayd_socket, listen=None, args=()):
        self.workdir = Path(workdir)
        self.name = name
        self.socket = str(self.workdir / ("%s.sock" % name))
        self.log_path = self.workdir / ("%s.log" % name)
        self.argv = [sys.executable, str(ENTRY), "--carplayd-socket", str(carplayd_socket), "--log-level", "info"]
        for address in (listen if listen is not None else ["unix:" + self.socket]):
            self.argv += ["--listen", address]
        self.argv += list(args)
        self.process = None
        self.tcp_port = None
        self.startup_line = None

    def start(self, timeout=60.0):
        log = open(self.log_path, "ab")
        log.write(("---- %s\n" % " ".join(self.argv)).encode())
        log.flush()
        self.process = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log, cwd="/")
        log.close()
        KuksaServer.started.append(self)

        def startup_line():
            prefix = "carplayd-kuksa: kuksa.val.v1 and kuksa.val.v2 on "
            return next((line for line in self.log().splitlines() if line.startswith(prefix)), None)

        self.startup_line = daemon_conftest.wait_started(
            self.process, startup_line, "carplayd-kuksa", "print its start-up line", self.log, timeout)
        port = re.search(r"tcp://[^ ]*:(\d+) ", self.startup_line)
        self.tcp_port = int(port.group(1)) if port else None
        return self

    def stop(self, timeout=30.0):
        return daemon_conftest.stop_process(self.process, "carplayd-kuksa", self.log, timeout)

    def alive(self):
        return self.process is not None and self.process.poll() is None

    def log(self):
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    # clients ------------------------------------------------------------
    @property
    def target(self):
        return "unix:" + self.socket

    def channel(self):
        return grpc.insecure_channel(self.target)

    def v2(self, channel):
        return v2_grpc.VALStub(channel)

    def v1(self, channel):
        return v1_grpc.VALStub(channel)

    def vss_client(self, **kwargs):
        """kuksa-client's VSSClient on the Unix socket: it joins host and port as
        "host:port", so host "unix" and port "/path" make grpcio's "unix:/path"."""
        from kuksa_client.grpc import VSSClient
        return VSSClient("unix", self.socket, **kwargs)


# ---------------------------------------------------------------------- helpers
def signal_id(path):
    return v2_types.SignalID(path=path)


def actuate_request(path, **value):
    return v2.ActuateRequest(signal_id=signal_id(path), value=v2_types.Value(**value))


def value_of(datapoint):
    """The Python value of a v2 Datapoint (None: no value)."""
    which = datapoint.value.WhichOneof("typed_value")
    return None if which is None else getattr(datapoint.value, which)


def rpc_error(call, *args, **kwargs):
    """(status code, details) of a gRPC call that must fail."""
    kwargs.setdefault("timeout", RPC_TIMEOUT)
    with pytest.raises(grpc.RpcError) as excinfo:
        call(*args, **kwargs)
    return excinfo.value.code(), excinfo.value.details()


def vss(daemon, method, **parameters):
    """carplayd's own io.carplayd.VSS, straight over Varlink (the reference)."""
    with daemon.client() as client, client.open("io.carplayd.VSS", namespaced=False) as service:
        return getattr(service, method)(**parameters)


def simulator(daemon, method, **parameters):
    with daemon.client() as client, client.open("io.carplayd.Simulator", namespaced=False) as service:
        return getattr(service, method)(**parameters)


def car_value(daemon, key):
    """What the simulated car itself holds (not what its frames told carplayd)."""
    return simulator(daemon, "GetVehicle")["state"][key]


def wait_until(predicate, what, timeout=30.0, interval=0.05):
    deadline = time.monotonic() + timeout
    while True:
        result = predicate()
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError("not within %.0f s: %s" % (timeout, what))
        time.sleep(interval)


class StreamReader:
    """Reads a server stream (a gRPC response iterator or a generator) on a thread into a
    list; wait_for() bounds the wait, cancel() ends the stream."""

    def __init__(self, stream, cancel=None):
        self.stream = stream
        self._cancel = cancel or getattr(stream, "cancel", None)
        self.items = []
        self.error = None
        self.changed = threading.Condition()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        try:
            for item in self.stream:
                with self.changed:
                    self.items.append(item)
                    self.changed.notify_all()
        except Exception as error:  # the stream's end, or what ended it
            with self.changed:
                self.error = error
                self.changed.notify_all()

    def wait_for(self, predicate, what, timeout=30.0):
        deadline = time.monotonic() + timeout
        with self.changed:
            while True:
                for index, item in enumerate(self.items):
                    if predicate(item):
                        return self.items[:index + 1]
                if self.error is not None and not self.thread.is_alive():
                    raise AssertionError("the stream ended (%r) without %s; got %s" % (self.error, what, self.items[-5:]))
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError("no stream item with %s within %.0f s; got %s" % (what, timeout, self.items[-5:]))
                self.changed.wait(left)

    def cancel(self):
        if self._cancel:
            self._cancel()
        self.thread.join(30)


# ---------------------------------------------------------------------- another user
NOBODY_CLIENT = r'''
import json, socket, sys
path, mode = sys.argv[1], sys.argv[2]
out = {}
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(path)
    out["connect"] = "ok"
except OSError as error:
    out["connect"] = error.strerror
s.close()
if mode == "kuksa-client":
    from kuksa_client.grpc import VSSClient, VSSClientError
    try:
        with VSSClient("unix", path, ensure_startup_connection=False) as client:
            out["values"] = {p: dp.value for p, dp in client.get_current_values([sys.argv[3]], timeout=30).items()}
    except VSSClientError as error:
        out["error"] = {"code": int(error.error.get("code")), "message": error.error.get("message")}
print(json.dumps(out))
'''


def python_for(uid, gid):
    """An interpreter `user` can run that imports this venv's packages: this one when the
    user can reach it, else the system's python3 of the same version with this venv's
    site-packages (the venv's own python may sit under /root, closed to other users)."""
    version = "%d.%d" % sys.version_info[:2]
    site = [p for p in sys.path if p.endswith("site-packages") and p.startswith(sys.prefix)]
    for candidate in (sys.executable, "/usr/bin/python" + version, "/usr/bin/python3"):
        if not os.path.exists(candidate):
            continue
        try:
            probe = subprocess.run([candidate, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                                   user=uid, group=gid, extra_groups=[], capture_output=True, text=True,
                                   timeout=60, cwd="/")
        except PermissionError:
            continue  # e.g. a venv whose python links into /root
        if probe.returncode == 0 and probe.stdout.strip() == version:
            return candidate, site
    raise AssertionError("no Python %s that uid %d can run (tried %s and /usr/bin/python3): the test of "
                         "another user needs one" % (version, uid, sys.executable))


def run_as_nobody(socket_path, mode, path=TEMPERATURE):
    """Runs NOBODY_CLIENT as nobody (its own group only): a raw connect, then (mode
    "kuksa-client") kuksa-client's get_current_values. Its JSON result."""
    if os.geteuid() != 0:
        pytest.fail("this test runs a client as another user: it needs root (CI runs as root)")
    python, site = python_for(NOBODY, NOBODY_GID)
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": os.pathsep.join(site), "HOME": "/"}
    result = subprocess.run([python, "-c", NOBODY_CLIENT, socket_path, mode, path], user=NOBODY, group=NOBODY_GID,
                            extra_groups=[], capture_output=True, text=True, timeout=120, cwd="/", env=env)
    assert result.returncode == 0, "client as nobody failed:\n%s" % result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------------- JWT
class Tokens:
    """An RSA key pair of the test's own and KUKSA-style access tokens signed with it."""

    def __init__(self, directory):
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import rsa
        import jwt
        self.jwt = jwt
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.other_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.public_key_file = Path(directory) / "jwt.key.pub"
        self.public_key_file.write_bytes(self.key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
        self.private_key_file = Path(directory) / "jwt.key"
        self.private_key_file.write_bytes(self.key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))

    def token(self, scope, key=None, audience=("kuksa.val",), expires_in=3600, **extra):
        now = int(time.time())
        claims = {"sub": "carplayd-kuksa tests", "iss": "IntegrationTests/kuksa", "aud": list(audience),
                  "iat": now, "exp": now + expires_in, "scope": scope}
        claims.update(extra)
        return self.jwt.encode(claims, key or self.key, algorithm="RS256", headers={"typ": "at+jwt"})

    @staticmethod
    def metadata(token):
        return (("authorization", "Bearer " + token),)


# ---------------------------------------------------------------------- fixtures
@pytest.fixture(scope="module")
def workdir():
    # Short paths (AF_UNIX: 107 bytes), open to other users for the access tests.
    path = tempfile.mkdtemp(prefix="cpk-")
    os.chmod(path, 0o755)
    yield Path(path)
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="module")
def carplayd(workdir):
    """The sedan on carplayd's embedded simulated car, confirmation timeout 2 s."""
    daemon = Daemon(workdir, name="carplayd", profile="sedan",
                    args=["--confirmation-timeout", str(CONFIRMATION_MS)])
    daemon.start(timeout=60)
    yield daemon
    code = daemon.stop()
    assert code == 0, "carplayd exited with %s after SIGTERM:\n%s" % (code, daemon.stderr()[-4000:])


@pytest.fixture(scope="module")
def servers(workdir):
    """Starts carplayd-kuksa processes; stops them with SIGTERM afterwards, asserting 0."""
    running = []

    def start(name, carplayd_socket, listen=None, args=()):
        server = KuksaServer(workdir, name, carplayd_socket, listen=listen, args=args)
        running.append(server)
        return server.start()

    yield start
    failures = []
    for server in running:
        if server.alive():
            code = server.stop()
            if code != 0:
                failures.append("%s exited with %s after SIGTERM:\n%s" % (server.name, code, server.log()[-4000:]))
    assert not failures, "\n".join(failures)


@pytest.fixture(scope="module")
def kuksa(carplayd, servers):
    return servers("kuksa", carplayd.socket)


@pytest.fixture(scope="module")
def tokens(workdir):
    return Tokens(workdir)


@pytest.fixture(autouse=True)
def no_faults_left(request):
    """A test that plans faults must not leave them to the next."""
    yield
    if "carplayd" in request.fixturenames:
        daemon = request.getfixturevalue("carplayd")
        if daemon.alive():
            simulator(daemon, "SetFaults", plan={"rules": []})


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed:
        for daemon in Daemon.started:
            text = daemon.stderr()
            if text:
                report.sections.append(("carplayd %s stderr (last 6000 chars)" % daemon.name, text[-6000:]))
        for server in KuksaServer.started:
            text = server.log()
            if text:
                report.sections.append(("carplayd-kuksa %s log (last 6000 chars)" % server.name, text[-6000:]))

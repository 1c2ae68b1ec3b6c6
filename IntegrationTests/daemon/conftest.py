"""End-to-end tests of the real carplayd binary over its Varlink socket.

Each test module starts its own daemon(s) on a temporary socket and state
directory, drives them with the independent Python `varlink` package (and raw
sockets where that package cannot express hostile input), and stops them with
SIGTERM, asserting exit code 0. A failing test shows each daemon's stderr.

The binary: $CARPLAYD_BIN, else `swift build --show-bin-path`/carplayd.
"""

import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
import varlink

REPO = Path(__file__).resolve().parents[2]
PROFILES = REPO / "VehicleProfiles"
INTERFACE = "io.carplayd.Vehicle"
# Properties that drift by physics (cabin temperature follows its target, power
# levels change); everything else only changes when a command says so.
DRIFTING = ("climate.cabinTemperature", "power.")


def swift_driver():
    found = shutil.which("swift")
    if found:
        return found
    if os.access("/opt/swift/usr/bin/swift", os.X_OK):
        return "/opt/swift/usr/bin/swift"
    return "swift"


def carplayd_bin():
    env = os.environ.get("CARPLAYD_BIN")
    if env:
        return env
    out = subprocess.run([swift_driver(), "build", "--show-bin-path"], cwd=REPO,
                         capture_output=True, text=True, check=True, timeout=120)
    return os.path.join(out.stdout.strip(), "carplayd")


_BIN = None


def binary():
    global _BIN
    if _BIN is None:
        _BIN = carplayd_bin()
        if not os.access(_BIN, os.X_OK):
            pytest.exit("carplayd binary not found: %s (build it, or set CARPLAYD_BIN)" % _BIN, returncode=2)
    return _BIN


def commanded(state):
    """The state without the properties that drift by themselves."""
    return {k: v for k, v in state.items() if not k.startswith(DRIFTING)}


def wait_started(process, ready, what, waiting_for, output, timeout):
    """Polls ready() until it returns something true, and returns that. The process
    exiting first, or timeout passing, is an AssertionError naming `what` with output()."""
    deadline = time.monotonic() + timeout
    while True:
        found = ready()
        if found:
            return found
        if process.poll() is not None:
            raise AssertionError("%s exited with %d while starting:\n%s" % (what, process.returncode, output()))
        if time.monotonic() > deadline:
            raise AssertionError("%s did not %s within %.0f s:\n%s" % (what, waiting_for, timeout, output()))
        time.sleep(0.02)


def stop_process(process, what, output, timeout):
    """SIGTERM and the exit code (None if never started); one that outlives timeout is
    killed and an AssertionError."""
    if process is None or process.poll() is not None:
        return process.returncode if process else None
    process.send_signal(signal.SIGTERM)
    try:
        return process.wait(timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        raise AssertionError("%s did not stop within %.0f s of SIGTERM:\n%s" % (what, timeout, output()))


class Daemon:
    """One carplayd process on its own socket; stderr goes to a log file."""

    # Every daemon started in this pytest run, for the failure report.
    started = []

    def __init__(self, workdir, name="carplayd", profile="sedan", args=(), socket_path=None, state_dir=None,
                 use_profile_option=True, nofile=None):
        self.workdir = Path(workdir)
        self.name = name
        self.socket = str(socket_path or self.workdir / ("%s.sock" % name))
        self.state_dir = str(state_dir or self.workdir / "state")
        self.log_path = self.workdir / ("%s.stderr.log" % name)
        self.argv = [binary(), "--socket", self.socket, "--state-dir", self.state_dir, "--log-level", "debug"]
        if use_profile_option and profile is not None:
            self.argv += ["--profile", str(profile if os.path.isabs(str(profile)) else PROFILES / profile)]
        self.argv += list(args)
        # RLIMIT_NOFILE (soft, hard) for the daemon, e.g. to drive it to its fd limit.
        self.nofile = nofile
        self.process = None
        self.runs = 0

    # ------------------------------------------------------------------ lifecycle
    def start(self, wait_reachable=True, timeout=15.0):
        self.runs += 1
        log = open(self.log_path, "ab")
        log.write(("---- run %d: %s\n" % (self.runs, " ".join(self.argv))).encode())
        log.flush()
        limits = None
        if self.nofile is not None:
            import resource
            nofile = self.nofile
            limits = lambda: resource.setrlimit(resource.RLIMIT_NOFILE, nofile)  # noqa: E731
        self.process = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log, preexec_fn=limits)
        log.close()
        Daemon.started.append(self)
        deadline = time.monotonic() + timeout
        wait_started(self.process, self.connectable, "carplayd", "listen on %s" % self.socket, self.stderr, timeout)
        if wait_reachable:
            self.wait_complete(timeout=deadline - time.monotonic())
        return self

    def connectable(self):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(self.socket)
            return True
        except OSError:
            return False
        finally:
            s.close()

    def wait_reachable(self, want=True, timeout=10.0):
        deadline = time.monotonic() + max(timeout, 0.5)
        while True:
            reply = self.call("GetState")
            if reply["reachable"] == want:
                return reply
            if time.monotonic() > deadline:
                raise AssertionError("GetState reachable stayed %s for %.1f s" % (reply["reachable"], timeout))
            time.sleep(0.05)

    def wait_complete(self, timeout=10.0):
        """Waits until the vehicle is reachable and the state has every property of the
        profile: status messages come at their own cycles (power only once a second),
        and the fastest one alone makes the vehicle reachable."""
        deadline = time.monotonic() + max(timeout, 0.5)
        properties = set(self.call("Describe")["vehicle"]["properties"])
        while True:
            reply = self.call("GetState")
            missing = properties - set(reply["state"])
            if reply["reachable"] and not missing:
                return reply
            if time.monotonic() > deadline:
                raise AssertionError("after %.1f s: reachable %s, state still without %s"
                                     % (timeout, reply["reachable"], sorted(missing)))
            time.sleep(0.05)

    def stop(self, timeout=10.0):
        """SIGTERM; returns the exit code."""
        return stop_process(self.process, "carplayd", self.stderr, timeout)

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)

    def signal(self, signum):
        self.process.send_signal(signum)

    @property
    def pid(self):
        return self.process.pid

    def alive(self):
        return self.process is not None and self.process.poll() is None

    def stderr(self):
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    # ------------------------------------------------------------------ clients
    def client(self):
        return varlink.Client(address="unix:" + self.socket)

    def call(self, method, **parameters):
        """One call on a fresh connection with the varlink package; the reply parameters."""
        with self.client() as client, client.open(INTERFACE, namespaced=False) as vehicle:
            return getattr(vehicle, method)(**parameters)

    def perform(self, intent, parameters=None, method="Perform"):
        return self.call(method, intent=intent, parameters=parameters or {})

    def state(self):
        return self.call("GetState")["state"]

    def raw(self, timeout=10.0):
        return RawConnection(self.socket, timeout)


class RawConnection:
    """A plain AF_UNIX connection speaking NUL-terminated JSON, for input the varlink
    package refuses to send."""

    def __init__(self, path, timeout=10.0):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(path)
        self.buffer = b""

    def send_bytes(self, data):
        self.sock.sendall(data)

    def send(self, message):
        self.send_bytes(json.dumps(message).encode() + b"\0")

    def receive(self):
        """The next reply as a dict; raises EOFError when the daemon closed the connection."""
        while b"\0" not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError("connection closed by carplayd (%d bytes pending)" % len(self.buffer))
            self.buffer += chunk
        message, _, self.buffer = self.buffer.partition(b"\0")
        return json.loads(message)

    def call(self, method, parameters=None, **flags):
        message = {"method": method}
        if parameters is not None:
            message["parameters"] = parameters
        message.update(flags)
        self.send(message)
        return self.receive()

    def closed_by_peer(self, timeout=5.0):
        """True when the daemon hangs up (EOF or reset) within timeout."""
        self.sock.settimeout(timeout)
        try:
            while True:
                chunk = self.sock.recv(65536)
                if not chunk:
                    return True
                self.buffer += chunk
        except (ConnectionResetError, BrokenPipeError):
            return True
        except socket.timeout:
            return False

    def close(self):
        self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def varlink_error(excinfo):
    """(error name, parameters) of a varlink.VarlinkError."""
    error = excinfo.value
    return error.error(), error.parameters()


# ---------------------------------------------------------------------- fixtures
@pytest.fixture(scope="module")
def workdir():
    # Short paths: an AF_UNIX path has at most 107 bytes.
    path = tempfile.mkdtemp(prefix="cpd-")
    yield Path(path)
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="module")
def daemons(workdir):
    """Starts daemons for a module; stops every one still running with SIGTERM
    afterwards and asserts it exited with 0."""
    running = []

    def start(name="carplayd", profile="sedan", args=(), wait_reachable=True, **kwargs):
        daemon = Daemon(workdir, name=name, profile=profile, args=args, **kwargs)
        running.append(daemon)
        return daemon.start(wait_reachable=wait_reachable)

    yield start
    failures = []
    for daemon in running:
        if daemon.alive():
            code = daemon.stop()
            if code != 0:
                failures.append("%s exited with %s after SIGTERM:\n%s" % (daemon.name, code, daemon.stderr()[-4000:]))
    assert not failures, "\n".join(failures)


@pytest.fixture(scope="module")
def sedan(daemons):
    return daemons("sedan", "sedan")


@pytest.fixture(scope="module")
def suv(daemons):
    return daemons("suv", "suv")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed:
        seen = set()
        for daemon in Daemon.started:
            if id(daemon) in seen:
                continue
            seen.add(id(daemon))
            # Long lines (a request of 1 MiB is logged whole) are cut.
            text = "\n".join(line if len(line) <= 400 else line[:400] + "... (%d chars)" % len(line)
                             for line in daemon.stderr().splitlines())
            if text:
                report.sections.append(("carplayd %s stderr (last 6000 chars)" % daemon.name, text[-6000:]))
    if call.when == "teardown":
        Daemon.started = [d for d in Daemon.started if d.alive()]

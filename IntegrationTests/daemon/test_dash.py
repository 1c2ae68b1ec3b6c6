"""`carplayctl dash` as a person uses it: in tmux (80x24, send-keys, capture-pane)
against a real carplayd on the embedded sedan.

The daemon's vehicle delays seat commands by 1.5 s (a simulator fault) so that a
request -- from the dash, or from another terminal (the dash sees it on Monitor with
commands) -- is seen pending before the vehicle confirms it. Everything is
polled with generous deadlines; nothing asserts how fast it happens.

tmux comes from scripts/bootstrap.sh (apt); each test runs its own tmux server
(`-L`), so nothing touches a tmux the user has.
"""

import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import binary

DEADLINE = 20.0
SEAT_DELAY_MS = 1500


def carplayctl():
    path = os.path.join(os.path.dirname(binary()), "carplayctl")
    if not os.access(path, os.X_OK):
        pytest.fail("no carplayctl beside carplayd at %s (build it)" % path)
    return path


class Tmux:
    """One tmux server and session of its own, with a plain shell whose prompt is '$ '."""

    def __init__(self, name, columns=80, rows=24):
        tmux = shutil.which("tmux")
        if tmux is None:
            pytest.fail("tmux is not installed (scripts/bootstrap.sh installs it)")
        self.argv = [tmux, "-L", name, "-f", "/dev/null"]
        self.target = name
        self.run("new-session", "-d", "-s", name, "-x", str(columns), "-y", str(rows),
                 "env", "-i", "PATH=/usr/bin:/bin", "HOME=/tmp", "TERM=tmux-256color", "PS1=$ ",
                 "bash", "--norc", "--noprofile")
        self.wait_for(lambda screen: screen.rstrip().endswith("$"), "the shell prompt")

    def run(self, *arguments):
        return subprocess.run(self.argv + list(arguments), capture_output=True, text=True, check=True, timeout=10).stdout

    def send(self, *keys):
        self.run("send-keys", "-t", self.target, *keys)

    def type(self, line):
        self.run("send-keys", "-t", self.target, "-l", line)
        self.send("Enter")

    def capture(self, escapes=False):
        return self.run("capture-pane", "-p", *(["-e"] if escapes else []), "-t", self.target)

    def query(self, format):
        return self.run("display-message", "-p", "-t", self.target, format).strip()

    def wait_for(self, predicate, what, timeout=DEADLINE):
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.capture()
            if predicate(screen):
                return screen
            time.sleep(0.1)
        raise AssertionError("tmux never showed %s within %.0f s; the screen:\n%s" % (what, timeout, screen))

    def wait_text(self, text, timeout=DEADLINE):
        return self.wait_for(lambda screen: text in screen, repr(text), timeout)

    def dash_pid(self):
        """The dash: the shell's child process."""
        shell = self.query("#{pane_pid}")
        children = subprocess.run(["ps", "-o", "pid=", "--ppid", shell], capture_output=True, text=True).stdout.split()
        return int(children[0]) if children else None

    def wait_shell(self, timeout=DEADLINE):
        """The dash has ended and the terminal is the shell's again: normal screen, prompt."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.query("#{alternate_on}") == "0" and self.dash_pid() is None:
                lines = [line for line in self.capture().splitlines() if line.strip()]
                if lines and lines[-1].rstrip().endswith("$"):
                    return
            time.sleep(0.1)
        raise AssertionError("the dash did not give the terminal back; the screen:\n%s" % self.capture())

    def close(self):
        subprocess.run(self.argv + ["kill-server"], capture_output=True, timeout=10)


@pytest.fixture(scope="module")
def car(daemons):
    faults = {"rules": [{"kind": "delay", "ms": SEAT_DELAY_MS, "property": "seat."}]}
    return daemons("dash", "sedan", args=["--simulator-faults", json.dumps(faults), "--confirmation-timeout", "8000"])


@pytest.fixture
def tmux(request):
    session = Tmux("cpd-dash-%d-%s" % (os.getpid(), request.node.name[:20]))
    yield session
    session.close()


def start_dash(tmux, car, environment=""):
    tmux.type("%s%s dash --socket %s" % (environment, carplayctl(), car.socket))
    return tmux.wait_text("● reachable")


def right_zone(screen):
    """The right zone box's temperature row (the second box on the row with 'set')."""
    for line in screen.splitlines():
        if line.count("│ set ") == 2:
            return line.split("│ set ")[2]
    return ""


def test_dash_shows_changes_sends_keys_redraws_and_exits(car, tmux):
    screen = start_dash(tmux, car)
    assert "Example Sedan" in screen and "[Cabin]" in screen and "left · driver" in screen
    assert tmux.query("#{alternate_on}") == "1"

    # An intent from another client shows up in the cabin with its new value.
    subprocess.run([carplayctl(), "--socket", car.socket, "climate", "--temperature", "23", "--zone", "passenger"],
                   check=True, capture_output=True, timeout=20)
    tmux.wait_for(lambda s: right_zone(s).startswith("23 °C"), "the right zone at 23 °C")

    # An intent from another terminal, in flight (seat commands are answered 1.5 s late):
    # pending with its target in the cabin view, then confirmed with the new value.
    before = car.state()["seat.frontLeft.heating"]
    other = (before + 2) % 4
    sender = subprocess.Popen([carplayctl(), "--socket", car.socket, "seat", "driver", "--heating", str(other)],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        tmux.wait_text("heat %d → %d …" % (before, other))
        assert "… SetSeatSettingsInCar: seat.frontLeft.heating=%d, waiting for the vehicle" % other in tmux.capture()
        tmux.wait_text("✓ SetSeatSettingsInCar: seat.frontLeft.heating=%d confirmed" % other)
        tmux.wait_for(lambda s: "heat %d " % other in s and "→" not in s, "heat %d confirmed" % other)
        output = sender.communicate(timeout=20)[0].decode()
    finally:
        if sender.poll() is None:
            sender.kill()
    assert sender.returncode == 0 and "confirmed by the vehicle" in output, output

    # A key press sends an intent: pending with its target, then confirmed.
    before = car.state()["seat.frontLeft.heating"]
    want = (before + 1) % 4
    tmux.send("h")
    tmux.wait_text("heat %d → %d …" % (before, want))
    screen = tmux.wait_text("✓ Front left seat heating")
    tmux.wait_for(lambda s: "heat %d " % want in s and "→" not in s, "heat %d confirmed" % want)
    assert car.state()["seat.frontLeft.heating"] == want
    with open(os.environ.get("CARPLAYD_DASH_CAPTURE", os.devnull), "w") as capture:
        capture.write(tmux.capture())

    # The frame pane lists every CAN ID on the bus by its DBC name, with a rate from the
    # daemon's counts (GetBusTraffic), and what the dash sent with the command message.
    tmux.send("Tab")
    tmux.wait_text("[Frames]")
    tmux.wait_for(lambda s: any(line.split()[:2] == ["400", "ClimateStatus"] and float(line.split()[2]) > 0
                                for line in s.splitlines() if len(line.split()) > 2), "ClimateStatus with a rate")
    screen = tmux.capture()
    assert "changed" in screen and "SeatCommand" in screen and "sent " in screen, screen

    # A resize redraws at the new size.
    tmux.run("resize-window", "-t", tmux.target, "-x", "100", "-y", "30")
    tmux.wait_for(lambda s: any(line.startswith("─ Cabin ") and len(line) == 100 for line in s.splitlines()), "the cabin rule 100 wide")
    tmux.run("resize-window", "-t", tmux.target, "-x", "80", "-y", "24")
    tmux.wait_for(lambda s: any(line.startswith("─ Cabin ") and len(line) == 80 for line in s.splitlines()), "the cabin rule 80 wide")

    # Help, then q: the shell's screen is back.
    tmux.send("?")
    tmux.wait_text("[Keys]")
    tmux.send("Escape")
    tmux.wait_text("[Frames]")
    tmux.send("q")
    tmux.wait_shell()


def test_ctrl_c_and_sigterm_restore_the_terminal(car, tmux):
    start_dash(tmux, car, environment="NO_COLOR=1 ")
    # NO_COLOR: bold and reverse, no colour (SGR 30-37).
    assert not any("\x1b[3%dm" % hue in tmux.capture(escapes=True) for hue in range(8))
    tmux.send("C-c")
    tmux.wait_shell()

    start_dash(tmux, car)
    assert "\x1b[32m" in tmux.capture(escapes=True)  # colours otherwise ("● reachable" green)
    pid = tmux.dash_pid()
    assert pid is not None
    os.kill(pid, signal.SIGTERM)
    tmux.wait_shell()


def test_dumb_terminal_gets_the_plain_view(car, tmux):
    tmux.type("TERM=dumb %s dash --socket %s" % (carplayctl(), car.socket))
    screen = tmux.wait_text("● reachable")
    assert tmux.query("#{alternate_on}") == "0"
    assert "left · driver" in screen
    tmux.send("C-c")
    tmux.wait_shell()


def test_not_a_terminal_prints_the_cabin_until_interrupted(car):
    process = subprocess.Popen([carplayctl(), "dash", "--socket", car.socket], stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(2.5)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=DEADLINE)
    assert process.returncode == 0, err
    assert "Example Sedan" in out and "● reachable" in out and "fuel" in out
    assert "\x1b[" not in out


def test_unreachable_daemon_exits_3(workdir):
    process = subprocess.run([carplayctl(), "dash", "--socket", str(workdir / "nobody.sock")],
                             stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=DEADLINE)
    assert process.returncode == 3
    assert "cannot connect to carplayd" in process.stderr


def test_dbc_watch_shows_the_bus_decoded_resizes_filters_and_exits(tmux):
    """`carplayctl dbc watch` in the same terminal layer: a candump log played at its pace,
    decoded, a change highlighted; a resize redraws; --filter narrows; q restores."""
    repo = Path(__file__).resolve().parents[2]
    dbc = repo / "VehicleProfiles" / "toyota-2017" / "_toyota_2017.dbc"
    log = repo / "docs" / "examples" / "dbc-diff" / "after.log"
    tmux.type("%s dbc watch %s --replay %s" % (carplayctl(), dbc, log))
    screen = tmux.wait_text("WINDSCREEN_DEFOG")
    assert "AIR_CONDITIONER_2" in screen and "WHEEL_SPEEDS" in screen, screen
    assert screen.splitlines()[0].startswith("dbc watch  ") and "replaying after.log" in screen.splitlines()[0], screen
    tmux.wait_text("◂ changed")
    assert tmux.query("#{alternate_on}") == "1"
    tmux.run("resize-window", "-t", tmux.target, "-x", "100", "-y", "30")
    tmux.wait_for(lambda s: len(s.splitlines()[0]) > 80 or "q quit" in s.splitlines()[-1], "the watch redrawn at 100x30")
    tmux.run("resize-window", "-t", tmux.target, "-x", "80", "-y", "24")
    tmux.send("q")
    tmux.wait_shell()

    tmux.type("NO_COLOR=1 %s dbc watch --filter defog %s --replay %s" % (carplayctl(), dbc, log))
    screen = tmux.wait_text("WINDSCREEN_DEFOG")
    assert "WHEEL_SPEEDS" not in screen and "filter: defog" in screen, screen
    assert not any("\x1b[3%dm" % hue in tmux.capture(escapes=True) for hue in range(8))
    tmux.send("C-c")
    tmux.wait_shell()

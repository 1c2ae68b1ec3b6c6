"""Saved car profiles survive SIGKILL; a stale socket is replaced on restart; a
second daemon on a live socket fails and leaves the first one serving; SIGTERM
stops cleanly and removes the socket."""

import json
import os
import socket
import stat
import subprocess

import pytest

from conftest import Daemon, binary, PROFILES


@pytest.fixture(scope="module")
def car(daemons):
    return daemons("persist", "sedan")


def save(car, slot, name, fan):
    assert car.perform("SetClimateSettingsInCar", {"fanSpeedIndex": fan})["response"]["code"] == "success"
    reply = car.perform("SaveProfileInCar", {"profileNumber": slot, "profileName": name})
    assert reply["response"]["code"] == "success", reply["response"]
    assert reply["response"]["profileNumber"] == slot


def test_saved_profiles_survive_sigkill_and_the_stale_socket_is_replaced(car):
    save(car, 1, "Morning", 2)
    save(car, 2, "Evening", 5)
    path = os.path.join(car.state_dir, "car-profiles-sedan.json")
    saved = json.loads(open(path).read())  # valid JSON
    assert {(p["slot"], p["name"]) for p in saved} == {(1, "Morning"), (2, "Evening")}
    assert stat.S_IMODE(os.stat(path).st_mode) & 0o077 == 0, "saved profiles readable by others"

    car.kill()
    # SIGKILL leaves the socket file behind, with nobody listening.
    assert stat.S_ISSOCK(os.stat(car.socket).st_mode)
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    with pytest.raises(ConnectionRefusedError):
        probe.connect(car.socket)
    probe.close()
    assert json.loads(open(path).read()) == saved  # the file is intact after the kill

    car.start()  # fails unless the stale socket is replaced
    assert car.perform("SetClimateSettingsInCar", {"fanSpeedIndex": 4})["response"]["code"] == "success"
    for name, slot, fan in (("morning", 1, 2), ("Evening", 2, 5)):
        reply = car.perform("SetProfileInCar", {"profileName": name})
        assert reply["response"]["code"] == "success", reply["response"]
        assert reply["response"]["profileNumber"] == slot
        assert reply["state"]["profile.active"] == slot
        assert reply["state"]["climate.fanSpeed"] == fan
    leftovers = sorted(os.listdir(car.state_dir))
    assert leftovers == ["car-profiles-sedan.json"], leftovers


def test_a_second_daemon_on_a_live_socket_fails_and_the_first_keeps_serving(car, workdir):
    before = os.stat(car.socket).st_ino
    second = subprocess.run(
        [binary(), "--socket", car.socket, "--state-dir", str(workdir / "second-state"),
         "--profile", str(PROFILES / "suv")],
        capture_output=True, text=True, timeout=30)
    assert second.returncode != 0, second.stderr
    assert car.socket in second.stderr
    assert os.stat(car.socket).st_ino == before, "the second daemon replaced the live socket"
    assert car.alive()
    assert car.call("Describe")["vehicle"]["identifier"] == "sedan"
    assert car.call("GetState")["reachable"] is True


def test_sigterm_stops_with_0_and_removes_the_socket(car):
    assert car.stop() == 0
    assert not os.path.exists(car.socket)
    assert "stopped" in car.stderr()

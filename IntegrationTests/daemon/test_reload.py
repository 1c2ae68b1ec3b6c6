"""SIGHUP re-reads the config file: an invalid profile keeps the running one, a
valid one replaces it."""

import json
import shutil
import signal
import time

import pytest

from conftest import PROFILES


def wait_for(predicate, timeout=10.0, what="condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError("timed out waiting for %s" % what)


@pytest.fixture(scope="module")
def setup(daemons, workdir):
    config = workdir / "carplayd.conf"
    config.write_text("# test config\nprofile = %s\n" % (PROFILES / "sedan"))
    broken = workdir / "broken-profile"
    shutil.copytree(PROFILES / "sedan", broken)
    text = (broken / "profile.json").read_text()
    (broken / "profile.json").write_text(text[: len(text) // 2])  # truncated: not JSON
    daemon = daemons("reload", profile=None, use_profile_option=False, args=["--config", str(config)])
    return daemon, config, broken


def hangup_and_wait_for_log(daemon, text, timeout=10.0):
    offset = len(daemon.stderr())
    daemon.signal(signal.SIGHUP)
    return wait_for(lambda: text in daemon.stderr()[offset:], timeout, "%r in the log" % text)


def test_the_config_file_names_the_sedan(setup):
    daemon, config, broken = setup
    assert daemon.call("Describe")["vehicle"]["identifier"] == "sedan"


def test_sighup_with_a_broken_profile_keeps_the_running_one(setup):
    daemon, config, broken = setup
    config.write_text("profile = %s\n" % broken)
    hangup_and_wait_for_log(daemon, "keeping the running profile")
    assert daemon.alive()
    assert daemon.call("Describe")["vehicle"]["identifier"] == "sedan"
    reply = daemon.perform("SetDefrosterSettingsInCar", {"enable": True, "defroster": "rear"})
    assert reply["response"]["code"] == "success"


def test_sighup_with_a_broken_config_file_keeps_the_running_configuration(setup):
    daemon, config, broken = setup
    config.write_text("profile = %s\nturbo = yes\n" % (PROFILES / "suv"))
    hangup_and_wait_for_log(daemon, "keeping the running configuration")
    assert daemon.call("Describe")["vehicle"]["identifier"] == "sedan"


def test_sighup_with_the_suv_switches_to_the_suv(setup):
    daemon, config, broken = setup
    config.write_text("profile = %s\n" % (PROFILES / "suv"))
    hangup_and_wait_for_log(daemon, "reloaded")
    assert daemon.call("Describe")["vehicle"]["identifier"] == "suv"
    daemon.wait_complete()
    assert "climate.temperature.thirdRow" in daemon.state()
    reply = daemon.perform("SetSeatSettingsInCar", {"enableMassage": True, "seat": "frontLeft", "level": 3})
    assert reply["response"]["code"] == "success", reply["response"]
    assert reply["state"]["seat.frontLeft.massage"] == 3


class FaultPlanLost(AssertionError):
    """The one failure the xfail below expects; any other failure is a real one."""


def test_sighup_keeps_the_simulator_fault_plan(daemons, workdir):
    config = workdir / "faulty.conf"
    config.write_text("profile = %s\n" % (PROFILES / "sedan"))
    daemon = daemons("faulty-reload", profile=None, use_profile_option=False, wait_reachable=False,
                     args=["--config", str(config), "--simulator-faults", '{"rules":[{"kind":"silence","fromMs":1000}]}'])
    daemon.wait_reachable(True, timeout=5)   # the vehicle speaks for its first second,
    daemon.wait_reachable(False, timeout=8)  # then falls silent
    hangup_and_wait_for_log(daemon, "reloaded")
    daemon.wait_reachable(True, timeout=5)  # the reloaded vehicle speaks
    # The fault plan given on the command line still holds for the reloaded vehicle:
    # it falls silent again 1 s after its (new) start.
    try:
        daemon.wait_reachable(False, timeout=4)
    except AssertionError as error:
        raise FaultPlanLost("the reloaded vehicle runs without the fault plan: %s" % error)

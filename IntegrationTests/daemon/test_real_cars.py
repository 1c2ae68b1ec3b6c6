"""The production cars of VehicleProfiles/ (DBCs byte for byte from commaai/opendbc)
through the real daemon on its embedded default: every intent their capabilities allow
over Varlink, each reply checked as the in-process run checks `carplayctl perform
--simulate` (IntegrationTests/support/intents/check_intents.py: command kinds, protection, read-only
refusals, the state), and the live state and GetInfo of a car without acknowledgement."""

import os
import sys
from pathlib import Path

import pytest

from conftest import PROFILES, binary

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support" / "intents"))
import check_intents  # noqa: E402

REAL_CARS = ["ford-cgea", "gm-global-a-lowspeed", "hyundai-ccan", "hyundai-kia-generic", "hyundai-mcan", "tesla-model-s",
             "toyota-2017", "vw-mqb"]


@pytest.mark.parametrize("name", REAL_CARS)
def test_every_intent_over_varlink(daemons, name):
    car = daemons(name, name)
    vehicle = check_intents.Vehicle(PROFILES / name)
    carplayctl = str(Path(binary()).parent / "carplayctl")
    assert os.access(carplayctl, os.X_OK), carplayctl
    problems = []
    scenarios = check_intents.scenarios(vehicle, carplayctl)
    assert scenarios, "the capabilities give scenarios"
    for scenario in scenarios:
        label, intent, code, expected = scenario[:4]
        if len(scenario) > 4:
            continue  # saved car profiles: covered in process
        before = car.state()
        reply = car.perform(intent["intent"], intent["parameters"])
        frames = [check_intents.parse_log_line(line) for line in reply["frames"]]
        problem = check_intents.check_output(vehicle, intent, code, expected, reply, frames, before)
        if problem:
            problems.append("%s: %s" % (label, problem))
    assert not problems, "\n".join(problems) + "\n" + car.stderr()[-3000:]


@pytest.mark.parametrize("name", REAL_CARS)
def test_live_state_of_a_real_car(daemons, name):
    car = daemons(name + "-state", name)
    reply = car.call("GetState")
    assert reply["reachable"] is True
    assert reply["bus"]["untrustedFrames"] == 0, reply["bus"]
    vehicle = check_intents.Vehicle(PROFILES / name)
    bound = set(vehicle.profile["bindings"])
    assert bound <= set(reply["state"]) | {"climate.cabinTemperature"}, sorted(bound - set(reply["state"]))

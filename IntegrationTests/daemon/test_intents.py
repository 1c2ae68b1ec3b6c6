"""Every intent through Perform on both shipped profiles (one daemon per profile),
and Resolve / Confirm / Handle each on their own. Scenarios come from the
profile's capabilities, so a new profile is covered without new code."""

import json
import math

import pytest

from conftest import PROFILES, commanded

RESOLUTION_KINDS = {"success", "disambiguation", "confirmationRequired", "needsValue", "notRequired", "unsupported"}


@pytest.fixture(scope="module", params=["sedan", "suv"])
def car(request, daemons):
    name = request.param
    daemon = daemons(name, name)
    daemon.profile = json.loads((PROFILES / name / "profile.json").read_text())
    return daemon


def close(a, b, tolerance=1e-6):
    return math.isclose(float(a), float(b), rel_tol=0, abs_tol=tolerance)


def perform_ok(car, intent, parameters, command=True):
    """Perform; asserts success, the reply's shape, and frames for commands."""
    reply = car.perform(intent, parameters)
    assert set(reply) == {"resolutions", "response", "frames", "state"}, reply.keys()
    assert reply["response"]["code"] == "success", json.dumps(reply["response"])
    if command:
        assert reply["frames"], "a command sent no frames"
        for line in reply["frames"]:
            assert " vcan0 " in line and "#" in line, line
    else:
        assert reply["frames"] == []
    for name, resolution in reply["resolutions"].items():
        assert resolution["kind"] in ("success", "notRequired"), (name, resolution)
    return reply


def then_state(car, reply, expected):
    """The reply's state and a fresh GetState both show the expected values."""
    fresh = car.state()
    for key, value in expected.items():
        for where, state in (("reply", reply["state"]), ("GetState", fresh)):
            assert key in state, "%s: no %s in state" % (where, key)
            if isinstance(value, float):
                assert close(state[key], value, 1e-3), "%s: %s = %r, expected %r" % (where, key, state[key], value)
            else:
                assert state[key] == value, "%s: %s = %r, expected %r" % (where, key, state[key], value)


def test_set_climate_settings(car):
    climate = car.profile["climate"]
    zone = climate["zones"][0]
    key = "climate.temperature.%s" % zone["id"]
    c = climate["temperature"]["celsius"]
    before = car.state()[key]
    target = c["min"] + 2 * c["step"]
    if close(target, before):
        target += c["step"]
    reply = perform_ok(car, "SetClimateSettingsInCar", {
        "temperature": {"value": target, "unit": "celsius"}, "climateZone": zone["seats"][0]})
    assert reply["resolutions"]["temperature"]["kind"] == "success"
    then_state(car, reply, {key: float(target)})
    # A second property in the same intent family: fan speed.
    speed = 2 if car.state()["climate.fanSpeed"] != 2 else 1
    reply = perform_ok(car, "SetClimateSettingsInCar", {"fanSpeedIndex": speed})
    then_state(car, reply, {"climate.fanSpeed": speed})


def test_set_defroster_settings(car):
    defroster = car.profile["defrosters"][-1]
    key = "defroster.%s" % defroster
    enable = not car.state()[key]
    reply = perform_ok(car, "SetDefrosterSettingsInCar", {"enable": enable, "defroster": defroster})
    then_state(car, reply, {key: enable})


def test_set_seat_settings(car):
    seat = next(s for s in car.profile["seats"] if s.get("heating"))
    key = "seat.%s.heating" % seat["seat"]
    level = seat["heating"] if car.state()[key] != seat["heating"] else 1
    reply = perform_ok(car, "SetSeatSettingsInCar", {"enableHeating": True, "seat": seat["seat"], "level": level})
    then_state(car, reply, {key: level})


def test_set_audio_source(car):
    current = car.state()["audio.source"]
    source = next(s for s in car.profile["audioSources"] if s != current)
    reply = perform_ok(car, "SetAudioSourceInCar", {"audioSource": source})
    then_state(car, reply, {"audio.source": source})


def test_set_radio_station_on_every_band(car):
    radio = car.profile["radio"]
    checked = 0
    for band in radio["bands"]:
        if band["unit"] == "channel":
            channel = int(band["min"]) + 3
            parameters = {"radioType": band["type"], "channel": str(channel)}
            if band["type"] == "satellite" and not radio.get("satelliteSubscribed", True):
                reply = car.perform("SetRadioStation", parameters)
                assert reply["response"]["code"] == "failureNotSubscribed", reply["response"]
                assert reply["frames"] == []
                continue
            reply = perform_ok(car, "SetRadioStation", parameters)
            then_state(car, reply, {"radio.band": band["type"], "radio.channel": channel})
        else:
            frequency = round(band["min"] + band["step"] * 3, 3)
            reply = perform_ok(car, "SetRadioStation", {"radioType": band["type"], "frequency": frequency})
            then_state(car, reply, {"radio.band": band["type"], "radio.frequency": float(frequency)})
        checked += 1
    assert checked >= 2


def test_save_profile_then_set_profile_restores_it(car):
    slot = 1
    fan = car.state()["climate.fanSpeed"]
    saved = perform_ok(car, "SaveProfileInCar", {"profileNumber": slot, "profileName": "Robin"}, command=False)
    assert saved["response"]["profileNumber"] == slot
    assert saved["response"]["profileName"] == "Robin"
    # saving selects no slot on the car: selecting one is a memory recall on a real car
    assert saved["state"].get("profile.active") != slot
    changed = fan + 1 if fan + 1 <= car.profile["climate"]["fanSpeedLevels"] else fan - 1
    perform_ok(car, "SetClimateSettingsInCar", {"fanSpeedIndex": changed})
    assert car.state()["climate.fanSpeed"] == changed
    reply = perform_ok(car, "SetProfileInCar", {"profileName": "robin"})
    assert reply["response"]["profileNumber"] == slot
    then_state(car, reply, {"profile.active": slot, "climate.fanSpeed": fan})


def test_set_car_lock_status_and_get_car_lock_status(car):
    try:
        reply = perform_ok(car, "SetCarLockStatus", {"locked": True})
        then_state(car, reply, {"lock.locked": True})
        status = perform_ok(car, "GetCarLockStatus", {}, command=False)
        assert status["response"]["locked"] is True
    finally:
        reply = perform_ok(car, "SetCarLockStatus", {"locked": False})
    then_state(car, reply, {"lock.locked": False})
    status = perform_ok(car, "GetCarLockStatus", {}, command=False)
    assert status["response"]["locked"] is False


def test_activate_car_signal(car):
    signals = car.profile["carSignals"]
    reply = perform_ok(car, "ActivateCarSignal", {"signals": signals})
    assert sorted(reply["response"]["signals"]) == sorted(signals)
    for signal in signals:
        assert reply["state"]["signal.%s" % signal] is True


def test_get_car_power_level_status(car):
    reply = perform_ok(car, "GetCarPowerLevelStatus", {}, command=False)
    response = reply["response"]
    state = reply["state"]
    power = car.profile["power"]
    assert "distanceRemaining" in response and response["distanceRemaining"]["unit"] == "kilometers"
    assert close(response["distanceRemaining"]["value"], state["power.distanceRemaining"], 1e-3)
    if power.get("fuel"):
        assert 0 <= response["fuelPercentRemaining"] <= 1
        assert close(response["fuelPercentRemaining"] * 100, state["power.fuelPercent"], 1e-3)
    else:
        assert "fuelPercentRemaining" not in response
    if power.get("battery"):
        assert 0 <= response["chargePercentRemaining"] <= 1
        assert close(response["chargePercentRemaining"] * 100, state["power.chargePercent"], 1e-3)
        assert response["charging"] is state["power.charging"]
        assert response["minutesToFull"] == state["power.minutesToFull"]
    else:
        assert "chargePercentRemaining" not in response


def _climate_request(car):
    zone = car.profile["climate"]["zones"][0]
    key = "climate.temperature.%s" % zone["id"]
    c = car.profile["climate"]["temperature"]["celsius"]
    before = car.state()[key]
    target = c["max"] - c["step"]
    if close(target, before):
        target -= c["step"]
    return key, float(target), {"temperature": {"value": target, "unit": "celsius"}, "climateZone": zone["seats"][0]}


def test_resolve_alone_returns_kinds_and_changes_nothing(car):
    key, target, parameters = _climate_request(car)
    before = commanded(car.state())
    reply = car.perform("SetClimateSettingsInCar", parameters, method="Resolve")
    assert set(reply) == {"resolutions", "ready"}
    assert reply["ready"] is True
    assert reply["resolutions"]["temperature"] == {"kind": "success", "value": {"unit": "celsius", "value": target}}
    assert reply["resolutions"]["climateZone"]["kind"] == "success"
    assert reply["resolutions"]["fanSpeedIndex"] == {"kind": "notRequired"}
    for resolution in reply["resolutions"].values():
        assert resolution["kind"] in RESOLUTION_KINDS
    # A value the car cannot take resolves to something other than success, and ready is false.
    too_hot = car.perform("SetClimateSettingsInCar", {"temperature": {"value": 99, "unit": "celsius"}}, method="Resolve")
    assert too_hot["ready"] is False
    assert too_hot["resolutions"]["temperature"]["kind"] in RESOLUTION_KINDS - {"success", "notRequired"}
    assert commanded(car.state()) == before


def test_confirm_alone_is_ready_and_changes_nothing(car):
    key, target, parameters = _climate_request(car)
    before = commanded(car.state())
    reply = car.perform("SetClimateSettingsInCar", parameters, method="Confirm")
    assert set(reply) == {"resolutions", "response"}
    assert reply["response"]["code"] == "ready", reply["response"]
    assert reply["resolutions"]["temperature"]["kind"] == "success"
    assert commanded(car.state()) == before


def test_handle_alone_succeeds(car):
    key, target, parameters = _climate_request(car)
    reply = car.perform("SetClimateSettingsInCar", parameters, method="Handle")
    assert set(reply) == {"response", "frames", "state"}
    assert reply["response"]["code"] == "success", reply["response"]
    assert reply["frames"]
    then_state(car, reply, {key: target})

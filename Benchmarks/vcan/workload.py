"""The workload both halves of the vcan bench perform: per client slot, one vehicle
property that the client alone changes, back and forth between two values, so that
every intent needs a confirmed change and concurrent clients never conflict.

carplayd's load generator sends the intents (Varlink); the Python peer sends the
command frames those intents produce (same DBC message, same signals, E2E CRC and
alive counter) and waits for the status frame that shows the value.

Written for the sedan profile (VehicleProfiles/sedan); `check_profile` says what is
missing on another profile.
"""

# (property key, (intent A, value A), (intent B, value B)); values are the property
# values carplayd reports in its state (and the peer expects in the status frame).
SLOTS = [
    ("climate.temperature.left",
     ({"intent": "SetClimateSettingsInCar", "parameters": {"temperature": {"value": 20.0, "unit": "celsius"}, "climateZone": "frontLeft"}}, 20.0),
     ({"intent": "SetClimateSettingsInCar", "parameters": {"temperature": {"value": 22.5, "unit": "celsius"}, "climateZone": "frontLeft"}}, 22.5)),
    ("climate.temperature.right",
     ({"intent": "SetClimateSettingsInCar", "parameters": {"temperature": {"value": 20.0, "unit": "celsius"}, "climateZone": "frontRight"}}, 20.0),
     ({"intent": "SetClimateSettingsInCar", "parameters": {"temperature": {"value": 22.5, "unit": "celsius"}, "climateZone": "frontRight"}}, 22.5)),
    ("defroster.front",
     ({"intent": "SetDefrosterSettingsInCar", "parameters": {"enable": True, "defroster": "front"}}, True),
     ({"intent": "SetDefrosterSettingsInCar", "parameters": {"enable": False, "defroster": "front"}}, False)),
    ("defroster.rear",
     ({"intent": "SetDefrosterSettingsInCar", "parameters": {"enable": True, "defroster": "rear"}}, True),
     ({"intent": "SetDefrosterSettingsInCar", "parameters": {"enable": False, "defroster": "rear"}}, False)),
    ("seat.frontLeft.heating",
     ({"intent": "SetSeatSettingsInCar", "parameters": {"enableHeating": True, "seat": "frontLeft", "level": 1}}, 1),
     ({"intent": "SetSeatSettingsInCar", "parameters": {"enableHeating": True, "seat": "frontLeft", "level": 3}}, 3)),
    ("seat.frontRight.heating",
     ({"intent": "SetSeatSettingsInCar", "parameters": {"enableHeating": True, "seat": "frontRight", "level": 1}}, 1),
     ({"intent": "SetSeatSettingsInCar", "parameters": {"enableHeating": True, "seat": "frontRight", "level": 3}}, 3)),
    ("climate.airConditioner",
     ({"intent": "SetClimateSettingsInCar", "parameters": {"enableAirConditioner": True}}, True),
     ({"intent": "SetClimateSettingsInCar", "parameters": {"enableAirConditioner": False}}, False)),
    ("climate.airCirculation",
     ({"intent": "SetClimateSettingsInCar", "parameters": {"airCirculationMode": "recirculateAir"}}, "recirculateAir"),
     ({"intent": "SetClimateSettingsInCar", "parameters": {"airCirculationMode": "freshAir"}}, "freshAir")),
]


def slot(client):
    """The slot of client number `client` (0-based). More clients than slots share."""
    return SLOTS[client % len(SLOTS)]


def percentile(sorted_values, fraction):
    """Nearest-rank percentile of an ascending list."""
    if not sorted_values:
        return None
    rank = max(1, -(-int(round(fraction * 1000)) * len(sorted_values) // 1000))
    return sorted_values[min(rank, len(sorted_values)) - 1]


def summary(latencies_s, wall_s, failures, extra=None):
    """The JSON object of the loadgen contract (latencies in microseconds)."""
    values = sorted(latencies_s)
    out = {
        "intents": len(values),
        "failures": failures,
        "seconds": round(wall_s, 6),
        "rate": round(len(values) / wall_s, 3) if wall_s > 0 else None,
        "p50_us": round(percentile(values, 0.50) * 1e6, 1) if values else None,
        "p99_us": round(percentile(values, 0.99) * 1e6, 1) if values else None,
        "max_us": round(values[-1] * 1e6, 1) if values else None,
    }
    out.update(extra or {})
    return out

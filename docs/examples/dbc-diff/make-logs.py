#!/usr/bin/env python3
"""Writes before.log and after.log: two seconds each of a Toyota bus (VehicleProfiles/
toyota-2017's DBC, encoded with cantools) before and after the driver switched on the
windscreen defogger. Status messages at 10 Hz, the wheel speeds at 50 Hz with a
changing speed, SPEED with its counter-like byte and Toyota's checksum: what a candump
of a car parked with the engine running shows. The example of `carplayctl dbc diff`
in docs/CLI.md; run: .venv/bin/python docs/examples/dbc-diff/make-logs.py"""

from pathlib import Path

import cantools

HERE = Path(__file__).resolve().parent
DB = cantools.database.load_file(str(HERE.parents[2] / "VehicleProfiles" / "toyota-2017" / "_toyota_2017.dbc"), strict=False)


def toyota_checksum(frame_id, payload):
    total = (frame_id & 0xFF) + ((frame_id >> 8) & 0xFF) + len(payload) + sum(payload[:-1])
    return total & 0xFF


def line(t, message, values):
    full = {signal.name: 0 for signal in message.signals}
    full.update(values)
    data = bytearray(message.encode(full, strict=False))
    if any(s.name == "CHECKSUM" for s in message.signals):
        data[-1] = toyota_checksum(message.frame_id, data)
    return "(%.6f) vcan0 %03X#%s" % (t, message.frame_id, data.hex().upper())


def record(path, start, first, defog):
    lines = []
    for tick in range(first, first + 100):       # 2 s at 50 Hz, ticks go on across the logs
        t = start + (tick - first) * 0.02
        speed = 12.0 + (tick % 13) * 0.1         # creeping: the wheel speeds move
        lines.append(line(t, DB.get_message_by_name("WHEEL_SPEEDS"),
                          {"WHEEL_SPEED_FR": speed, "WHEEL_SPEED_FL": speed, "WHEEL_SPEED_RR": speed, "WHEEL_SPEED_RL": speed}))
        if tick % 5 == 0:                        # 10 Hz
            lines.append(line(t + 0.001, DB.get_message_by_name("SPEED"), {"ENCODER": tick % 256, "SPEED": speed, "CHECKSUM": 0}))
            lines.append(line(t + 0.002, DB.get_message_by_name("AIR_CONDITIONER"), {"CLIMATE_SET_POINT": 21, "AIR_CONDITIONER_STATE": 40}))
            lines.append(line(t + 0.003, DB.get_message_by_name("AIR_CONDITIONER_2"), {"WINDSCREEN_DEFOG": defog}))
            lines.append(line(t + 0.004, DB.get_message_by_name("DOOR_LOCKS"),
                              {"LOCK_STATUS_CHANGED": 0, "LOCK_STATUS": 1, "LOCKED_VIA_KEYFOB": 0}))
    (HERE / path).write_text("\n".join(lines) + "\n")


record("before.log", 1700000000.0, 0, 0)
record("after.log", 1700000010.0, 500, 1)

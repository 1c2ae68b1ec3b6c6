"""GetBusTraffic on a real kernel CAN stack: what carplayd counted of each CAN ID is
what candump saw -- every frame the ECU sent after the daemon opened its socket, the
same last frame (the kernel stamps a frame once for every socket), and the command
frames the daemon sent."""

import time

from test_vcan import Rig, rig_factory, vcan, wait_for  # noqa: F401  (fixtures)


def candump_lines(rig):
    lines = []
    for line in rig.capture.read_text().splitlines():
        parts = line.split()
        if len(parts) == 3:
            stamp, _, frame = parts
            lines.append((float(stamp.strip("()")), frame.split("#")[0], line))
    return lines


def stamp(line):
    return float(line.split()[0].strip("()"))


def traffic(rig):
    return {m["id"]: m for m in rig.call("GetBusTraffic")["messages"]}


def settled(rig, statuses):
    """The counts stand still across two readings and each status's last frame is the
    last one candump wrote."""
    first = traffic(rig)
    time.sleep(0.2)
    second = traffic(rig)
    if first != second:
        return False
    seen = candump_lines(rig)
    for status in statuses:
        frames = [line for _, frame_id, line in seen if frame_id == status]
        if not frames or second[status].get("lastFrame") != frames[-1]:
            return False
    return True


def test_bus_traffic_is_what_candump_saw(rig_factory):  # noqa: F811
    rig = rig_factory("sedan")
    before = {m["id"]: m for m in rig.call("GetBusTraffic")["messages"]}
    level = 1 if rig.call("GetState")["state"]["seat.frontLeft.heating"] != 1 else 2
    reply = rig.perform({"intent": "SetSeatSettingsInCar", "parameters": {"enableHeating": True, "seat": "driver", "level": level}})
    assert reply["response"]["code"] == "success", reply
    statuses = ("400", "410", "420", "430", "440")
    # Each status message again after the first reading (waited for, not slept: a loaded
    # host may take longer than a cycle).
    assert wait_for(lambda: all(traffic(rig)[status]["received"] > before[status]["received"] for status in statuses)), traffic(rig)
    rig.ecu.stop()  # the bus falls quiet: the counts stand still
    # Once quiet, the daemon's counts and candump's capture settle on the same last frames.
    assert wait_for(lambda: settled(rig, statuses)), (traffic(rig), candump_lines(rig)[-5:])
    after = traffic(rig)
    seen = candump_lines(rig)
    command = after["310"]
    assert command["name"] == "SeatCommand" and command["received"] == 0 and "lastFrame" not in command
    # Every SeatCommand on the bus is the daemon's (the ECU sends none).
    assert command["sent"] - before.get("310", {}).get("sent", 0) == sum(1 for _, frame_id, _ in seen if frame_id == "310") >= 1
    for status in ("400", "410", "420", "430", "440"):
        first, last = before[status], after[status]
        untrusted = [line for line in rig.daemon.text().splitlines() if "untrusted" in line]
        assert last["untrusted"] == 0 and last["received"] > first["received"], (first, last, untrusted)
        frames = [(when, line) for when, frame_id, line in seen if frame_id == status]
        # The same last frame, to the microsecond (the kernel stamps a frame once).
        assert last["lastFrame"] == frames[-1][1], (last, frames[-1])
        # Between the two readings the daemon counted exactly the frames candump saw.
        between = sum(1 for when, _ in frames if stamp(first["lastFrame"]) < when <= stamp(last["lastFrame"]))
        assert last["received"] - first["received"] == between, (status, first, last, between)

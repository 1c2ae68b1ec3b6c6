"""The per-call cost of reading the caller's device lock (Benchmarks/devicelock/run.sh).
Alternates Confirm calls of a restricted intent (SetCarLockStatus) and an unrestricted
one (GetCarLockStatus) on one connection; both resolve and confirm the same way, only
the restricted one asks logind. Prints one JSON object."""

import json
import statistics
import subprocess
import sys
import time

import varlink

socket, calls, accel = sys.argv[1], int(sys.argv[2]), sys.argv[3]
session = subprocess.run(["loginctl", "show-session", "self", "-p", "Id", "--value"],
                         capture_output=True, text=True).stdout.strip()
restricted = {"intent": "SetCarLockStatus", "parameters": {"locked": False}}
unrestricted = {"intent": "GetCarLockStatus", "parameters": {}}
timings = {"restricted": [], "unrestricted": []}
with varlink.Client(address="unix:" + socket) as client, client.open("io.carplayd.Vehicle", namespaced=False) as vehicle:
    for _ in range(200):  # warm up: the daemon's bus connection, caches
        vehicle.Confirm(**restricted)
        vehicle.Confirm(**unrestricted)
    for _ in range(calls):
        for name, request in (("restricted", restricted), ("unrestricted", unrestricted)):
            start = time.perf_counter_ns()
            reply = vehicle.Confirm(**request)
            timings[name].append((time.perf_counter_ns() - start) / 1000)
            assert reply["response"]["code"] == "ready", reply
median = {name: statistics.median(values) for name, values in timings.items()}
mean = {name: statistics.fmean(values) for name, values in timings.items()}
print(json.dumps({
    "calls": calls, "accel": accel, "session": session,
    "median_us": {k: round(v, 1) for k, v in median.items()},
    "mean_us": {k: round(v, 1) for k, v in mean.items()},
    "p99_us": {k: round(sorted(v)[int(len(v) * 0.99)], 1) for k, v in timings.items()},
    "device_lock_read_us": {"median": round(median["restricted"] - median["unrestricted"], 1),
                            "mean": round(mean["restricted"] - mean["unrestricted"], 1)},
}, indent=2))

#!/usr/bin/env python3
"""A load generator for carplayd over its Varlink socket: the Python implementation
of the CARPLAYD_LOADGEN contract (Benchmarks/vcan/README.md).

    loadgen.py --socket PATH --clients N --intents M --json

N client processes, each on its own connection, perform M intents in total (M/N each)
that each need a confirmed change: client i toggles the property of workload slot i
(Benchmarks/vcan/workload.py) between two values, so no two clients conflict and
every intent changes the vehicle. Before the clock starts each client sets its
property to the first value (not timed). An intent counts when its response code is
"success"; anything else is a failure. Prints one JSON object:

    {"intents": confirmed, "failures": n, "seconds": wall, "rate": confirmed/s,
     "p50_us": ..., "p99_us": ..., "max_us": ..., "client_cpu_us_per_intent": ...,
     "clients": N, "loadgen": "python"}

Raw Varlink (NUL-terminated JSON over AF_UNIX), not the `varlink` package, so the
client costs little; `client_cpu_us_per_intent` (user+system CPU of the client
processes per intent) shows how much it still costs.
"""

import argparse
import json
import multiprocessing
import os
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import workload  # noqa: E402


class Connection:
    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.buffer = b""

    def call(self, method, parameters):
        self.sock.sendall(json.dumps({"method": method, "parameters": parameters}).encode() + b"\0")
        while True:
            end = self.buffer.find(b"\0")
            if end >= 0:
                message, self.buffer = self.buffer[:end], self.buffer[end + 1:]
                return json.loads(message)
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("carplayd closed the connection")
            self.buffer += chunk

    def perform(self, intent):
        return self.call("io.carplayd.Vehicle.Perform", {"intent": intent["intent"], "parameters": intent["parameters"]})


def outcome(reply):
    """None on a confirmed success, else what went wrong."""
    if "error" in reply:
        return reply["error"]
    code = reply.get("parameters", {}).get("response", {}).get("code")
    return None if code == "success" else "response %s" % code


def client(index, path, count, barrier, results):
    key, (intent_a, _), (intent_b, _) = workload.slot(index)
    connection = Connection(path)
    problem = outcome(connection.perform(intent_a))
    if problem:
        results.send({"error": "client %d: setting %s before the run: %s" % (index, key, problem)})
        return
    barrier.wait()
    latencies = []
    failures = 0
    errors = []
    cpu0 = time.process_time()
    start = time.monotonic()
    for n in range(count):
        intent = intent_b if n % 2 == 0 else intent_a
        t0 = time.monotonic()
        reply = connection.perform(intent)
        t1 = time.monotonic()
        problem = outcome(reply)
        if problem:
            failures += 1
            if len(errors) < 3:
                errors.append("%s: %s" % (key, problem))
        else:
            latencies.append(t1 - t0)
    end = time.monotonic()
    results.send({"latencies": latencies, "failures": failures, "errors": errors, "start": start, "end": end,
                  "cpu": time.process_time() - cpu0})


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--socket", required=True)
    parser.add_argument("--clients", type=int, default=1)
    parser.add_argument("--intents", type=int, default=1000, help="intents in total, split between the clients")
    parser.add_argument("--json", action="store_true", help="print the JSON object (the only output format)")
    args = parser.parse_args()
    if args.clients < 1 or args.intents < args.clients:
        parser.error("need --clients >= 1 and --intents >= --clients")
    context = multiprocessing.get_context("fork")
    barrier = context.Barrier(args.clients)
    pipes, processes = [], []
    for index in range(args.clients):
        count = args.intents // args.clients + (1 if index < args.intents % args.clients else 0)
        receive, send = context.Pipe(duplex=False)
        process = context.Process(target=client, args=(index, args.socket, count, barrier, send))
        process.start()
        pipes.append(receive)
        processes.append(process)
    outcomes = []
    for receive in pipes:
        try:
            outcomes.append(receive.recv())
        except EOFError:
            outcomes.append({"error": "a client process died"})
    for process in processes:
        process.join()
    broken = [o["error"] for o in outcomes if "error" in o]
    if broken:
        barrier.abort()
        print(json.dumps({"error": "; ".join(broken)}))
        return 1
    latencies = [value for o in outcomes for value in o["latencies"]]
    failures = sum(o["failures"] for o in outcomes)
    wall = max(o["end"] for o in outcomes) - min(o["start"] for o in outcomes)
    cpu = sum(o["cpu"] for o in outcomes)
    total = len(latencies) + failures
    result = workload.summary(latencies, wall, failures, {
        "clients": args.clients,
        "loadgen": "python",
        "client_cpu_us_per_intent": round(cpu / total * 1e6, 1) if total else None,
        "errors": [e for o in outcomes for e in o["errors"]][:5],
    })
    print(json.dumps(result))
    return 0 if failures == 0 else 2


if __name__ == "__main__":
    sys.exit(main())

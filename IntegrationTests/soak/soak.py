#!/usr/bin/env python3
"""Soak carplayd: many clients, random vehicle faults and daemon restarts, with the
invariants checked as it runs.

    IntegrationTests/soak/run.sh --minutes N [--seed S] [--clients K] [...]   (see --help)

What runs: carplayd's embedded default (in-process bus + simulated vehicle) with
--simulator-control, so this script sets the vehicle's fault plan over Varlink
(io.carplayd.Simulator.SetFaults) and reads what the vehicle itself holds
(io.carplayd.Simulator.GetVehicle).

Threads:
  clients   K clients, each on its own connection (reconnecting after a restart), send a
            random mix: the eleven intents' setters and getters, GetState, Describe,
            SaveProfileInCar / SetProfileInCar.
  faults    every few seconds a random fault plan (1-2 rules of every kind, random scope
            and count) for 1-4 s, then cleared.
  restarts  every --restart-every seconds SIGTERM (must exit 0) or SIGKILL, then start again.
  sampler   VmRSS and the number of open fds of the daemon every second.

Invariants (each violation is printed and fails the run):
  answered     every request gets a reply within --request-timeout; a connection may
               drop only around a restart (counted as "dropped by a restart");
  outcomes     every reply is a Perform/GetState reply or one of the expected typed
               errors (VehicleUnavailable, RestrictedWhileLocked);
  converged    after each fault clears, the daemon's state (GetState) equals the vehicle's
               own (GetVehicle) on every commanded property, within a deadline;
  profiles     after every SIGKILL each saved car-profile file parses, and every slot whose
               save was acknowledged holds the acknowledged name (or one still in flight,
               or one sent since whose reply a restart dropped: it may have been written);
  stopped      SIGTERM exits 0;
  memory/fds   per daemon run, VmRSS and the fd count do not grow (last quarter vs the
               first quarter after warm-up, thresholds in --help).

Prints a summary with figures, and a last line "soak: N passed, 0 failed" (N = invariant
checks made) that scripts/test.sh counts. Exit 0 when every invariant held.
"""

import argparse
import json
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DRIFTING = ("climate.cabinTemperature", "power.", "signal.")


class Dropped(Exception):
    """The connection closed or failed before the reply."""


class Unanswered(Exception):
    """No reply within the request timeout."""


class VarlinkErrorReply(Exception):
    def __init__(self, name, parameters):
        super().__init__(name)
        self.name = name
        self.parameters = parameters


class Connection:
    """NUL-terminated JSON over AF_UNIX, with a timeout per reply."""

    def __init__(self, path, timeout):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(path)
        self.buffer = b""

    def call(self, method, parameters=None):
        message = {"method": method, "parameters": parameters or {}}
        try:
            self.sock.sendall(json.dumps(message).encode() + b"\0")
            while b"\0" not in self.buffer:
                chunk = self.sock.recv(65536)
                if not chunk:
                    raise Dropped("closed by carplayd")
                self.buffer += chunk
        except socket.timeout as error:
            raise Unanswered(str(error))
        except OSError as error:
            raise Dropped(str(error))
        raw, _, self.buffer = self.buffer.partition(b"\0")
        reply = json.loads(raw)
        if "error" in reply:
            raise VarlinkErrorReply(reply["error"], reply.get("parameters", {}))
        return reply.get("parameters", {})

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


class Soak:
    def __init__(self, args):
        self.args = args
        # One generator per thread, all from the seed: the same choices in every run
        # (the interleaving of the threads still varies).
        self.rng = random.Random(args.seed)          # restarts
        self.fault_rng = random.Random(args.seed + 1)
        self.work = Path(tempfile.mkdtemp(prefix="soak-"))
        self.socket = str(self.work / "carplayd.sock")
        self.state_dir = self.work / "state"
        self.log_path = self.work / "carplayd.log"
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.process = None
        self.runs = 0
        self.restart_windows = []   # (start, end) monotonic times when the daemon was (re)starting/stopping
        self.restarting_since = None
        self.counts = Counter()
        self.outcomes = Counter()
        self.violations = []
        self.checks = Counter()
        self.latencies = []
        self.samples = {}            # run -> [(t, rss_kib, fds)]
        self.acked_saves = {}        # slot -> name acknowledged last
        self.inflight_saves = {}     # (client, seq) -> (slot, name)
        # slot -> names whose save was sent but never answered (the connection dropped by a
        # restart): the daemon may have written them before it died, so until a later save
        # of that slot is acknowledged the file may hold any of them.
        self.unknown_saves = {}
        self.profile_dir = str(REPO / "VehicleProfiles" / args.profile)
        with open(os.path.join(self.profile_dir, "profile.json")) as f:
            self.profile = json.load(f)

    # ------------------------------------------------------------------ bookkeeping
    def violation(self, kind, text):
        with self.lock:
            self.violations.append("%s: %s" % (kind, text))
            self.checks[kind + " failed"] += 1
        print("VIOLATION %s: %s" % (kind, text), flush=True)

    def passed(self, kind, n=1):
        with self.lock:
            self.checks[kind] += n

    def count(self, key, n=1):
        with self.lock:
            self.counts[key] += n

    def near_restart(self, start, end):
        with self.lock:
            if self.restarting_since is not None:
                return True
            return any(a - 1.0 <= end and start <= b + 1.0 for a, b in self.restart_windows)

    # ------------------------------------------------------------------ daemon
    def start_daemon(self):
        self.runs += 1
        argv = [self.args.carplayd, "--socket", self.socket, "--state-dir", str(self.state_dir),
                "--profile", self.profile_dir, "--simulator-control", "--log-level", "info",
                "--confirmation-timeout", str(self.args.confirmation_ms)]
        log = open(self.log_path, "ab")
        log.write(("---- run %d: %s\n" % (self.runs, " ".join(argv))).encode())
        log.flush()
        self.process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        log.close()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise SystemExit("carplayd exited with %s while starting; log: %s" % (self.process.returncode, self.log_path))
            try:
                conn = Connection(self.socket, 5)
                try:
                    if conn.call("io.carplayd.Vehicle.GetState")["reachable"]:
                        break
                finally:
                    conn.close()
            except (Dropped, Unanswered, VarlinkErrorReply, OSError):
                pass
            time.sleep(0.05)
        else:
            raise SystemExit("carplayd did not become reachable within 30 s; log: %s" % self.log_path)
        with self.lock:
            self.samples[self.runs] = []

    def admin(self, method, parameters=None, timeout=15):
        conn = Connection(self.socket, timeout)
        try:
            return conn.call(method, parameters)
        finally:
            conn.close()

    def restart(self):
        kind = self.rng.choice(["SIGTERM", "SIGKILL"])
        with self.lock:
            self.restarting_since = time.monotonic()
        pid = self.process.pid
        if kind == "SIGKILL":
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(30)
            self.count("restarts SIGKILL")
            self.check_profiles_after_kill()
        else:
            self.process.send_signal(signal.SIGTERM)
            try:
                code = self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
                code = "timeout"
            self.count("restarts SIGTERM")
            if code == 0:
                self.passed("stopped")
            else:
                self.violation("stopped", "SIGTERM: pid %d exited with %s" % (pid, code))
        self.check_flat(self.runs)
        self.start_daemon()
        with self.lock:
            self.restart_windows.append((self.restarting_since, time.monotonic()))
            self.restarting_since = None

    def check_profiles_after_kill(self):
        files = sorted(self.state_dir.glob("*"))
        with self.lock:
            acked = dict(self.acked_saves)
            inflight = list(self.inflight_saves.values())
            unknown = {slot: set(names) for slot, names in self.unknown_saves.items()}
        for path in files:
            if not path.name.startswith("car-profiles-") or not path.name.endswith(".json"):
                self.count("stray files in the state directory")
                continue
            try:
                saved = json.loads(path.read_text())
                assert isinstance(saved, list)
            except Exception as error:
                self.violation("profiles", "%s is torn after SIGKILL: %s" % (path.name, error))
                continue
            self.passed("profiles")
            by_slot = {entry.get("slot"): entry.get("name") for entry in saved}
            for slot, name in acked.items():
                allowed = {name} | {n for s, n in inflight if s == slot} | unknown.get(slot, set())
                if by_slot.get(slot) not in allowed:
                    self.violation("profiles", "slot %s holds %r after SIGKILL, acknowledged %r (in flight %s)"
                                   % (slot, by_slot.get(slot), name, sorted(allowed - {name})))
                else:
                    self.passed("profiles")

    # ------------------------------------------------------------------ clients
    def random_request(self, rng, client, seq):
        r = rng.random()
        p = self.profile
        if r < 0.14:
            value = 16 + 0.5 * rng.randrange(0, 25)
            return "Perform", {"intent": "SetClimateSettingsInCar", "parameters": {"temperature": {"value": value, "unit": "celsius"}, "climateZone": "driver"}}
        if r < 0.26:
            level = rng.randrange(0, 4)
            return "Perform", {"intent": "SetSeatSettingsInCar", "parameters": {"enableHeating": level > 0, "seat": "driver", **({"level": level} if level else {})}}
        if r < 0.36:
            return "Perform", {"intent": "SetDefrosterSettingsInCar", "parameters": {"enable": rng.random() < 0.5, "defroster": rng.choice(p["defrosters"])}}
        if r < 0.46:
            return "Perform", {"intent": "SetRadioStation", "parameters": {"radioType": "FM", "frequency": round(87.5 + 0.1 * rng.randrange(0, 200), 1)}}
        if r < 0.53:
            return "Perform", {"intent": "SetAudioSourceInCar", "parameters": {"audioSource": rng.choice(p["audioSources"])}}
        if r < 0.58:
            return "Perform", {"intent": "SetCarLockStatus", "parameters": {"locked": rng.random() < 0.15}}
        if r < 0.62:
            return "Perform", {"intent": "GetCarLockStatus", "parameters": {}}
        if r < 0.66:
            return "Perform", {"intent": "GetCarPowerLevelStatus", "parameters": {}}
        if r < 0.70:
            return "Perform", {"intent": "ActivateCarSignal", "parameters": {"signals": [rng.choice(p["carSignals"])]}}
        if r < 0.78:
            slot = rng.randrange(1, p["profileSlots"] + 1)
            return "Perform", {"intent": "SaveProfileInCar", "parameters": {"profileNumber": slot, "profileName": "soak-%d-%d" % (client, seq)}}
        if r < 0.82:
            return "Perform", {"intent": "SetProfileInCar", "parameters": {"profileNumber": rng.randrange(1, p["profileSlots"] + 1)}}
        if r < 0.95:
            return "GetState", {}
        return "Describe", {}

    def client(self, index):
        conn = None
        seq = 0
        rng = random.Random(self.args.seed * 1009 + index)
        while not self.stop.is_set():
            if conn is None:
                try:
                    conn = Connection(self.socket, self.args.request_timeout)
                except OSError:
                    self.count("connects refused (daemon down)")
                    time.sleep(0.05)
                    continue
            seq += 1
            method, parameters = self.random_request(rng, index, seq)
            save = None
            if parameters.get("intent") == "SaveProfileInCar":
                save = (parameters["parameters"]["profileNumber"], parameters["parameters"]["profileName"])
                with self.lock:
                    self.inflight_saves[(index, seq)] = save
            start = time.monotonic()
            self.count("requests")
            try:
                reply = conn.call("io.carplayd.Vehicle." + method, parameters)
                elapsed = time.monotonic() - start
                self.passed("answered")
                with self.lock:
                    self.latencies.append(elapsed)
                if method == "Perform":
                    response = reply["response"]
                    key = "%s %s" % (response["code"], response.get("reason") or "")
                    self.count("outcome " + key.strip())
                    if save and response["code"] == "success":
                        with self.lock:
                            self.acked_saves[save[0]] = save[1]
                            self.unknown_saves.pop(save[0], None)
                self.passed("outcomes")
            except VarlinkErrorReply as error:
                self.passed("answered")
                name = error.name.rsplit(".", 1)[-1]
                self.count("error " + name)
                if name in ("VehicleUnavailable", "RestrictedWhileLocked"):
                    self.passed("outcomes")
                else:
                    self.violation("outcomes", "%s %s: unexpected error %s %s" % (method, parameters, error.name, error.parameters))
            except Dropped as error:
                conn.close()
                conn = None
                if save:
                    with self.lock:
                        self.unknown_saves.setdefault(save[0], set()).add(save[1])
                end = time.monotonic()
                if self.near_restart(start, end):
                    self.count("dropped by a restart")
                else:
                    self.violation("answered", "client %d: connection dropped without a restart (%s) during %s" % (index, error, method))
            except Unanswered:
                conn.close()
                conn = None
                if save:
                    with self.lock:
                        self.unknown_saves.setdefault(save[0], set()).add(save[1])
                self.violation("answered", "client %d: no reply to %s %s within %.0f s" % (index, method, parameters, self.args.request_timeout))
            finally:
                if save:
                    with self.lock:
                        self.inflight_saves.pop((index, seq), None)
            if self.args.think_ms:
                time.sleep(rng.random() * self.args.think_ms / 1000)
        if conn:
            conn.close()

    # ------------------------------------------------------------------ faults
    def random_plan(self):
        kinds = ["drop", "delay", "reject", "wrongValue", "badCRC", "repeatCounter", "silence", "busOff"]
        rules = []
        for _ in range(self.fault_rng.choice([1, 1, 2])):
            kind = self.fault_rng.choice(kinds)
            rule = {"kind": kind}
            if kind == "delay":
                rule["ms"] = self.fault_rng.choice([50, 300, 1500])
            scope = self.fault_rng.random()
            if scope < 0.3:
                rule["property"] = self.fault_rng.choice(["climate.", "seat.", "audio.", "radio.", "lock.", "defroster."])
            elif scope < 0.5 and kind not in ("silence", "busOff"):
                rule["message"] = self.fault_rng.choice(["ClimateCommand", "SeatCommand", "AudioCommand", "BodyCommand"] if kind in ("drop", "delay", "reject", "wrongValue")
                                                  else ["ClimateStatus", "SeatStatus", "AudioStatus", "BodyStatus", "CommandAck"])
            if self.fault_rng.random() < 0.4:
                rule["count"] = self.fault_rng.randrange(1, 6)
            rules.append(rule)
        return {"rules": rules}

    def converged(self):
        """The daemon's state equals the vehicle's on every commanded property (polled)."""
        deadline = time.monotonic() + self.args.converge_s
        last = None
        while time.monotonic() < deadline and not self.stop.is_set():
            try:
                daemon = self.admin("io.carplayd.Vehicle.GetState")
                vehicle = self.admin("io.carplayd.Simulator.GetVehicle")["state"]
            except (Dropped, Unanswered, VarlinkErrorReply, OSError) as error:
                last = "call failed: %s" % error
                time.sleep(0.2)
                continue
            differ = {k: (daemon["state"].get(k), v) for k, v in vehicle.items()
                      if not k.startswith(DRIFTING) and not same(daemon["state"].get(k), v)}
            if daemon["reachable"] and not differ:
                return None
            last = "reachable %s, differ (daemon, vehicle): %s" % (daemon["reachable"], differ)
            time.sleep(0.1)
        return last

    def faults(self):
        while not self.stop.wait(self.fault_rng.uniform(0.5, self.args.fault_every)):
            plan = self.random_plan()
            hold = self.fault_rng.uniform(1, 4)
            try:
                self.admin("io.carplayd.Simulator.SetFaults", {"plan": plan})
            except (Dropped, Unanswered, VarlinkErrorReply, OSError):
                continue  # a restart in between; the new daemon starts without faults
            self.count("fault plans injected")
            self.count("fault rules injected", len(plan["rules"]))
            for rule in plan["rules"]:
                self.count("fault " + rule["kind"])
            run = self.runs
            if self.stop.wait(hold):
                break
            try:
                self.admin("io.carplayd.Simulator.SetFaults", {"plan": {"rules": []}})
            except (Dropped, Unanswered, VarlinkErrorReply, OSError):
                pass
            # Delayed commands land up to 1.5 s later; status frames at most 1 s apart.
            if self.stop.wait(2.0):
                break
            if self.runs != run:
                continue  # restarted meanwhile: a fresh vehicle
            problem = self.converged()
            if problem is None:
                self.passed("converged")
            elif self.runs == run and not self.stop.is_set():
                self.violation("converged", "after %s: %s" % (json.dumps(plan), problem))

    # ------------------------------------------------------------------ sampler
    def sampler(self):
        while not self.stop.wait(1.0):
            process = self.process
            run = self.runs
            if process is None or process.poll() is not None:
                continue
            try:
                status = Path("/proc/%d/status" % process.pid).read_text()
                rss = int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmRSS:")))
                fds = len(os.listdir("/proc/%d/fd" % process.pid))
            except (OSError, StopIteration, ValueError):
                continue
            with self.lock:
                if run in self.samples:
                    self.samples[run].append((time.monotonic(), rss, fds))

    def check_flat(self, run):
        samples = self.samples.get(run, [])
        # Skip the warm-up (first 5 samples); need enough to compare quarters.
        samples = samples[5:]
        if len(samples) < 8:
            return
        quarter = max(2, len(samples) // 4)
        first_rss = statistics.median(s[1] for s in samples[:quarter])
        last_rss = statistics.median(s[1] for s in samples[-quarter:])
        first_fds = statistics.median(s[2] for s in samples[:quarter])
        last_fds = statistics.median(s[2] for s in samples[-quarter:])
        growth = last_rss - first_rss
        allowed = max(self.args.rss_slack_mib * 1024, 0.3 * first_rss)
        if growth > allowed:
            self.violation("memory", "run %d: VmRSS %d -> %d KiB (+%d KiB > %d allowed)" % (run, first_rss, last_rss, growth, allowed))
        else:
            self.passed("memory")
        if last_fds > first_fds + self.args.clients + 8:
            self.violation("fds", "run %d: open fds %d -> %d" % (run, first_fds, last_fds))
        else:
            self.passed("fds")

    # ------------------------------------------------------------------ main
    def run(self):
        print("soak: seed %d, %.1f min, %d clients, restarts every %s s, carplayd %s, work dir %s"
              % (self.args.seed, self.args.minutes, self.args.clients, self.args.restart_every or "never", self.args.carplayd, self.work), flush=True)
        self.start_daemon()
        threads = [threading.Thread(target=self.client, args=(i,), daemon=True) for i in range(self.args.clients)]
        threads.append(threading.Thread(target=self.faults, daemon=True))
        threads.append(threading.Thread(target=self.sampler, daemon=True))
        for thread in threads:
            thread.start()
        started = time.monotonic()
        end = started + self.args.minutes * 60
        next_restart = started + self.args.restart_every if self.args.restart_every else None
        next_report = started + 30
        while time.monotonic() < end:
            time.sleep(0.2)
            now = time.monotonic()
            if next_restart and now >= next_restart and end - now > 10:
                self.restart()
                next_restart = time.monotonic() + self.args.restart_every * self.rng.uniform(0.6, 1.4)
            if now >= next_report:
                with self.lock:
                    print("soak: %3.0f s: %d requests, %d fault plans, %d restarts, %d violations"
                          % (now - started, self.counts["requests"], self.counts["fault plans injected"],
                             self.counts["restarts SIGTERM"] + self.counts["restarts SIGKILL"], len(self.violations)), flush=True)
                next_report = now + 30
        self.stop.set()
        for thread in threads:
            thread.join(timeout=self.args.request_timeout + 5)
        # The end: no faults, converged, a clean stop.
        try:
            self.admin("io.carplayd.Simulator.SetFaults", {"plan": {"rules": []}})
        except (Dropped, Unanswered, VarlinkErrorReply, OSError) as error:
            self.violation("answered", "final SetFaults: %s" % error)
        time.sleep(2.0)
        self.stop.clear()
        problem = self.converged()
        self.stop.set()
        if problem is None:
            self.passed("converged")
        else:
            self.violation("converged", "at the end: %s" % problem)
        self.check_flat(self.runs)
        final_samples = self.samples.get(self.runs, [])
        self.process.send_signal(signal.SIGTERM)
        try:
            code = self.process.wait(20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            code = "timeout"
        if code == 0:
            self.passed("stopped")
        else:
            self.violation("stopped", "final SIGTERM: exit %s" % code)
        self.summary(time.monotonic() - started, final_samples)
        if not self.violations and not self.args.keep:
            shutil.rmtree(self.work, ignore_errors=True)
        return 0 if not self.violations else 1

    def summary(self, elapsed, final_samples):
        c = self.counts
        print("\n==== soak summary (seed %d, %.0f s, %d clients, %d daemon runs)" % (self.args.seed, elapsed, self.args.clients, self.runs))
        print("requests            %d (%.1f/s), answered %d, dropped by a restart %d"
              % (c["requests"], c["requests"] / max(elapsed, 1), self.checks["answered"], c["dropped by a restart"]))
        if self.latencies:
            lat = sorted(self.latencies)
            print("reply latency       median %.1f ms, p99 %.1f ms, max %.1f ms"
                  % (1000 * lat[len(lat) // 2], 1000 * lat[min(len(lat) - 1, int(len(lat) * 0.99))], 1000 * lat[-1]))
        print("restarts            SIGTERM %d, SIGKILL %d" % (c["restarts SIGTERM"], c["restarts SIGKILL"]))
        print("faults injected     %d plans, %d rules: %s" % (c["fault plans injected"], c["fault rules injected"],
              ", ".join("%s %d" % (k[6:], v) for k, v in sorted(c.items()) if k.startswith("fault ") and k not in ("fault plans injected", "fault rules injected"))))
        print("outcomes            " + ", ".join("%s %d" % (k[8:], v) for k, v in sorted(c.items()) if k.startswith("outcome ")))
        print("typed errors        " + (", ".join("%s %d" % (k[6:], v) for k, v in sorted(c.items()) if k.startswith("error ")) or "none"))
        for run, samples in sorted(self.samples.items()):
            if len(samples) > 6:
                s = samples[5:]
                # VmRSS at the start, each quarter and the end: a leak keeps climbing,
                # warm-up levels off.
                marks = [s[min(len(s) - 1, (len(s) * q) // 4)][1] for q in range(4)] + [s[-1][1]]
                print("daemon run %-3d      %3d s: VmRSS %s KiB, fds %d -> %d"
                      % (run, s[-1][0] - s[0][0], " -> ".join(str(m) for m in marks), s[0][2], s[-1][2]))
        checks = {k: v for k, v in self.checks.items() if not k.endswith(" failed")}
        print("invariant checks    " + ", ".join("%s %d" % (k, v) for k, v in sorted(checks.items())))
        if self.violations:
            print("VIOLATIONS (%d):" % len(self.violations))
            for line in self.violations[:50]:
                print("  " + line)
            print("daemon log: %s" % self.log_path)
        total = sum(checks.values())
        print("soak: %d passed, %d failed" % (total, len(self.violations)))


def same(a, b):
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool) and not isinstance(b, bool):
        return abs(a - b) <= 1e-6 * max(1, abs(b))
    return a == b


def main():
    parser = argparse.ArgumentParser(description="Soak carplayd with clients, vehicle faults and restarts.")
    parser.add_argument("--minutes", type=float, required=True)
    parser.add_argument("--seed", type=int, default=None, help="default: random (printed)")
    parser.add_argument("--clients", type=int, default=12)
    parser.add_argument("--profile", default="sedan", help="sedan (the fault scopes name its messages)")
    parser.add_argument("--carplayd", default=None, help="the binary (default: swift build --show-bin-path)/carplayd")
    parser.add_argument("--restart-every", type=float, default=30, help="seconds between restarts (x0.6-1.4); 0: never")
    parser.add_argument("--fault-every", type=float, default=4, help="at most this many seconds between fault plans")
    parser.add_argument("--confirmation-ms", type=int, default=1000)
    parser.add_argument("--request-timeout", type=float, default=30)
    parser.add_argument("--converge-s", type=float, default=15, help="deadline for the state to converge after a fault")
    parser.add_argument("--think-ms", type=float, default=20, help="a client waits up to this long between requests")
    parser.add_argument("--rss-slack-mib", type=float, default=16, help="VmRSS may grow by max(this, 30%%) within a run")
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    args = parser.parse_args()
    if args.seed is None:
        args.seed = random.randrange(1, 1_000_000)
    if args.carplayd is None:
        out = subprocess.run(["swift", "build", "--show-bin-path"], cwd=REPO, capture_output=True, text=True, check=True)
        args.carplayd = os.path.join(out.stdout.strip(), "carplayd")
    sys.exit(Soak(args).run())


if __name__ == "__main__":
    main()

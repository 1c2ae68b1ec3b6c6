"""carplay-bench (the load generator of Benchmarks/intents) against the real daemon:
a few hundred intents from two clients, each confirmed, each a real change of the
vehicle's state (counted on a Monitor connection by carplay-bench --verify). No timing
assertions: speed lives in the benchmarks."""

import json
import os
import subprocess

import pytest

from conftest import PROFILES, binary


def bench_binary():
    path = os.environ.get("CARPLAYD_BENCH_BIN") or os.path.join(os.path.dirname(binary()), "carplay-bench")
    if not os.access(path, os.X_OK):
        pytest.fail("carplay-bench not found at %s (swift build --product carplay-bench, or set CARPLAYD_BENCH_BIN)" % path)
    return path


def test_every_intent_is_confirmed_and_changes_the_state(sedan):
    out = subprocess.run(
        [bench_binary(), "--socket", sedan.socket, "--profile", str(PROFILES / "sedan"),
         "--clients", "2", "--intents", "300", "--verify"],
        capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, "carplay-bench failed (%d):\n%s\n%s" % (out.returncode, out.stdout, out.stderr)
    result = json.loads(out.stdout)
    assert result["intents"] == 300
    assert result["confirmed"] == 300 and result["failed"] == 0, result
    assert result["verify"]["ok"] is True, result["verify"]
    # One state change per confirmed intent, seen by the daemon's own Monitor stream.
    assert result["verify"]["monitored_changes"] == 300
    assert result["verify"]["state_mismatches"] == 0
    # The two clients used two properties on different command messages.
    assert sum(result["clients_per_command_message"].values()) == 2
    assert len(result["clients_per_command_message"]) == 2

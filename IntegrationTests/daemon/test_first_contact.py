"""What a newcomer runs first, as the README and the daemon's start-up lines print it
(issue 36, item 9): each must run as printed."""

import os
import subprocess


def test_the_start_up_hint_runs_as_printed(daemons):
    """`try: carplayctl ...` did not run: carplayctl is not on a newcomer's PATH."""
    daemon = daemons("hint", profile="sedan")
    line = next((l for l in daemon.stderr().splitlines() if "try: " in l), None)
    assert line is not None, daemon.stderr()
    hint, _, alternative = line.split("try: ", 1)[1].partition("   (or: ")
    # PATH as a login shell has it: no build directory on it.
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": os.environ.get("HOME", "/root")}
    for command in (hint, alternative.rstrip(")")):
        result = subprocess.run(command, shell=True, env=env, capture_output=True, text=True, timeout=30)
        assert result.returncode == 0, "%s: %s%s" % (command, result.stdout, result.stderr)


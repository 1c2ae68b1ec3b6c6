"""What a newcomer runs first, as the README and the daemon's start-up lines print it
(issue 36, item 9): each must run as printed."""

import os
import re
import subprocess
import sys

from conftest import REPO


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


def readme_python_example():
    """The README's Python example: its one ```python block."""
    text = (REPO / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) == 1, "the README has %d python blocks" % len(blocks)
    return blocks[0]


def test_the_readme_python_example_runs(daemons, tmp_path):
    """The README's example talked to root's socket whoever ran it; it finds the
    socket as carplayctl does ($CARPLAYD_SOCKET here: the test's daemon)."""
    daemon = daemons("readme", profile="sedan")
    script = tmp_path / "example.py"
    script.write_text(readme_python_example())
    env = dict(os.environ, CARPLAYD_SOCKET=daemon.socket)
    result = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "{'code': 'success'}" in result.stdout, result.stdout
    assert daemon.state()["seat.frontLeft.heating"] == 3


def test_a_bad_option_or_setting_says_what_and_not_the_whole_usage(tmp_path):
    """The daemon printed its 40-line usage page after a wrong value, which scrolled the one
    useful line away; a config file's error is a data error, which gets no usage either."""
    from conftest import binary
    config = tmp_path / "carplayd.conf"
    config.write_text("log-level = loud\n")
    for argv, fragment in (([binary(), "--log-level", "loud"], "--log-level must be debug, info, warning or error, not loud"),
                           ([binary(), "--bogus"], "unknown option --bogus"),
                           ([binary(), "--config", str(config)], "loud")):
        result = subprocess.run(argv, capture_output=True, text=True, timeout=60)
        assert result.returncode == 2, result
        lines = result.stderr.splitlines()
        assert len(lines) == 2 and fragment in lines[0], result.stderr
        assert lines[1] == "see: carplayd --help"

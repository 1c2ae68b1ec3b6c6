#!/usr/bin/env python3
"""`carplayctl profile draft` on every DBC file of the pinned opendbc package.

For each opendbc/dbc/*.dbc: draft a profile into a temporary folder, then load the draft
again with `carplayctl profile check`. Per file it prints what the draft bound (and how
many request signals and refused guesses its DRAFT.md lists); the draft's summary line
must count the bindings its profile.json holds.

Usage: opendbc_drafts.py --carplayctl PATH [--keep DIR]
Exit 1 when a file does not draft, a draft does not load again, or the counts disagree;
the last line is the summary.
"""

import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

import opendbc

DBC_DIR = os.path.join(os.path.dirname(opendbc.__file__), "dbc")
SUMMARY = re.compile(r": (\d+) properties bound read-only, (\d+) request candidates")


def draft_one(carplayctl, path, out):
    """(failure or None, bound properties, requests, dropped)."""
    run = subprocess.run([carplayctl, "profile", "draft", path, "--out", out], capture_output=True, text=True)
    if run.returncode != 0:
        return "profile draft exit %d: %s" % (run.returncode, run.stderr.strip()[-300:]), [], 0, 0
    summary = SUMMARY.search(run.stdout)
    with open(os.path.join(out, "profile.json")) as file:
        bindings = sorted(json.load(file)["bindings"])
    with open(os.path.join(out, "DRAFT.md")) as file:
        report = file.read()
    dropped = report.split("## Found, but refused by the loader")[1].count("\n| `") if "refused by the loader" in report else 0
    if not summary or int(summary.group(1)) != len(bindings):
        return "the summary says %r, profile.json binds %d" % (summary and summary.group(0), len(bindings)), bindings, 0, dropped
    check = subprocess.run([carplayctl, "profile", "check", out], capture_output=True, text=True)
    if check.returncode != 0:
        return "the draft does not load again: %s" % (check.stdout + check.stderr).strip()[-300:], bindings, 0, dropped
    return None, bindings, int(summary.group(2)), dropped


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--carplayctl", required=True)
    parser.add_argument("--keep", help="draft into DIR/<file> and keep the drafts")
    args = parser.parse_args()

    files = sorted(glob.glob(os.path.join(DBC_DIR, "*.dbc")))
    failures, bound, reloaded = [], 0, 0
    with tempfile.TemporaryDirectory(prefix="opendbc-drafts-") as temporary:
        root = args.keep or temporary
        for path in files:
            name = os.path.basename(path)
            out = os.path.join(root, name[:-4])
            failure, bindings, requests, dropped = draft_one(args.carplayctl, path, out)
            bound += len(bindings)
            if failure:
                failures.append("%s: %s" % (name, failure))
                print("FAIL %s: %s" % (name, failure))
                continue
            reloaded += 1
            print(
                "draft %-45s %2d bound, %3d requests, %d refused: %s"
                % (name, len(bindings), requests, dropped, " ".join(bindings) or "-")
            )
    with_bindings = "%d properties bound in all" % bound
    print(
        "opendbc %s drafts: %d of %d DBCs drafted and loaded again by profile check; %s"
        % (getattr(opendbc, "__version__", "0.3.1"), reloaded, len(files), with_bindings)
    )
    print("opendbc drafts: %d passed, %d failed" % (reloaded, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

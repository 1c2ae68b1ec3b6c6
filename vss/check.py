#!/usr/bin/env python3
"""carplayd's VSS catalog against COVESA's standard catalog and carplayd's overlay.

    vss/check.py --carplayctl BIN        the catalog from `BIN vss catalog --json`
    vss/check.py --catalog FILE          the same JSON from a file

1. COVESA's vss-tools (`vspec export json --strict`) validates the vendored VSS 5.1
   spec (vss/spec-5.1) with the errata (vss/errata-5.1.vspec), alone and with carplayd's
   overlay (vss/carplayd.vspec), and exports it: the standard catalog expanded (every
   instance's path), and with the overlay expanded and not expanded (the nodes the
   vspec files declare, with their instances). The three exports run side by side.
2. Every path of carplayd's catalog must be a signal of the expanded export, with the
   same datatype and unit; its allowed values among the export's; its min/max within
   the export's; an actuator only where VSS has an actuator (carplayd may read an
   actuator only: a sensor); marked overlay exactly when the node comes from the overlay.
3. Every signal the overlay declares must be used by at least one path of the catalog
   (an instantiated node, such as a station's, by at least one of its instances).

Prints what it found and one line "N passed, M failed" (N: catalog paths and overlay
nodes checked); exits 1 on any failure, 2 when it cannot run (vss-tools missing, no
catalog).
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SPEC = os.path.join(HERE, "spec-5.1", "spec")
ERRATA = os.path.join(HERE, "errata-5.1.vspec")
OVERLAY = os.path.join(HERE, "carplayd.vspec")
RELEASE = "5.1"


def fail_usage(message):
    print("vss/check.py: %s" % message, file=sys.stderr)
    sys.exit(2)


# ---------------------------------------------------------------------- vss-tools
def vspec_binary():
    beside = os.path.join(os.path.dirname(sys.executable), "vspec")
    if os.access(beside, os.X_OK):
        return beside
    found = shutil.which("vspec")
    if not found:
        fail_usage("COVESA's vss-tools (the `vspec` command) is not installed beside %s nor on PATH "
                   "(scripts/bootstrap.sh installs it into .venv)" % sys.executable)
    return found


def start_export(vspec, overlays, expand, out):
    """Starts `vspec export json --strict` (the exports run side by side)."""
    argv = [vspec, "export", "json", "--strict",
            "-u", os.path.join(SPEC, "units.yaml"), "-q", os.path.join(SPEC, "quantities.yaml"),
            "-s", os.path.join(SPEC, "VehicleSignalSpecification.vspec")]
    for overlay in overlays:
        argv += ["-l", overlay]
    argv += ["--expand" if expand else "--no-expand", "-o", out]
    # A wide terminal: vss-tools' rich log wraps its messages to COLUMNS.
    env = dict(os.environ, COLUMNS="200", NO_COLOR="1")
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    return process, argv, overlays, out


def finish_export(started):
    """The exported tree, or None after printing why vss-tools refused."""
    process, argv, overlays, out = started
    stdout, stderr = process.communicate(timeout=600)
    if process.returncode != 0 or not os.path.exists(out):
        sys.stdout.write(stdout)
        sys.stderr.write(stderr)
        print("FAIL: vss-tools refused the spec with %s (exit %d): %s"
              % (", ".join(os.path.relpath(o, HERE) for o in overlays), process.returncode, " ".join(argv)))
        return None
    with open(out) as f:
        return json.load(f)


def leaves(tree, prefix=""):
    """{path: node} of every signal (not branch) of an exported tree."""
    found = {}
    for name, node in tree.items():
        path = prefix + "." + name if prefix else name
        if node.get("type") == "branch":
            found.update(leaves(node.get("children", {}), path))
        else:
            found[path] = node
    return found


def instance_width(instances):
    """How many path segments an instance declaration adds: ["Row[1,4]", ["Driver",
    "Passenger"]] two, ["Left", "Right"] one."""
    if not instances:
        return 0
    if isinstance(instances, str):
        return 1
    if all(isinstance(item, str) for item in instances):
        # A list of names is one dimension; ranges (Row[1,4]) beside others are one each.
        ranges = [item for item in instances if re.search(r"\[\d+,\d+\]", item)]
        return len(instances) if ranges else 1
    return len(instances)


def declared_node(tree, path):
    """The unexpanded node path (as the vspec files write it) that an expanded path is
    an instance of, or None."""
    segments = path.split(".")
    node_children = tree
    declared = []
    index = 0
    node = None
    while index < len(segments):
        name = segments[index]
        if name in node_children:
            node = node_children[name]
            declared.append(name)
            index += 1
            node_children = node.get("children", {})
            continue
        if node is not None and node.get("instances"):
            index += instance_width(node["instances"])
            node = None  # the instance segments are consumed once
            continue
        return None
    return ".".join(declared)


def overlay_nodes(path):
    """The signal nodes the overlay file declares (key: its attributes), read as YAML."""
    import yaml  # vss-tools depends on PyYAML
    with open(path) as f:
        data = yaml.safe_load(f)
    return {key: value for key, value in data.items() if value.get("type") != "branch"}


# ---------------------------------------------------------------------- the catalog
def read_catalog(args):
    if args.catalog:
        try:
            with open(args.catalog) as f:
                text = f.read()
        except OSError as error:
            fail_usage("--catalog %s: %s" % (args.catalog, error.strerror))
        source = args.catalog
    else:
        argv = [args.carplayctl, "vss", "catalog", "--json"]
        try:
            result = subprocess.run(argv, capture_output=True, text=True, timeout=120)
        except OSError as error:
            fail_usage("cannot run %s: %s" % (args.carplayctl, error.strerror))
        if result.returncode != 0:
            fail_usage("%s exited with %d: %s" % (" ".join(argv), result.returncode, result.stderr.strip()))
        text = result.stdout
        source = " ".join(argv)
    try:
        data = json.loads(text)
    except ValueError as error:
        fail_usage("%s: not JSON: %s" % (source, error))
    signals = data.get("signals") if isinstance(data, dict) else data
    if not isinstance(signals, list) or not signals:
        fail_usage("%s: expected a list of signals (or an object with \"signals\"), got %s" % (source, type(data).__name__))
    release = data.get("release") if isinstance(data, dict) else None
    if release is not None and str(release) != RELEASE:
        fail_usage("%s: the catalog follows VSS %s; vss/ holds VSS %s" % (source, release, RELEASE))
    for index, signal in enumerate(signals):
        for key in ("path", "datatype", "entryType"):
            if not isinstance(signal, dict) or not isinstance(signal.get(key), str):
                fail_usage("%s: signals[%d] has no string %r" % (source, index, key))
    return signals, source


def number(value):
    return None if value is None else float(value)


def check_signal(signal, vss, declared, new_keys, extended_keys, standard_paths):
    """The reasons this catalog signal does not fit the export (empty: it fits). new_keys:
    the overlay's signals that VSS lacks; a path at an instance only the overlay declares
    (a third row of seats) is the overlay's too; a standard signal the overlay only
    extends (Played.Source's allowed values) may be marked overlay or not."""
    path = signal["path"]
    node = vss.get(path)
    if node is None:
        return ["not a signal of VSS %s nor of carplayd's overlay" % RELEASE]
    problems = []
    if signal["datatype"] != node.get("datatype"):
        problems.append("datatype %s, VSS says %s" % (signal["datatype"], node.get("datatype")))
    if (signal.get("unit") or None) != (node.get("unit") or None):
        problems.append("unit %s, VSS says %s" % (signal.get("unit"), node.get("unit")))
    allowed, vss_allowed = signal.get("allowed"), node.get("allowed")
    if vss_allowed is not None:
        if allowed is None:
            problems.append("no allowed values; VSS allows only %s" % vss_allowed)
        else:
            outside = [value for value in allowed if value not in vss_allowed]
            if outside:
                problems.append("allowed %s not among VSS's %s" % (outside, vss_allowed))
    for bound, below in (("min", True), ("max", False)):
        mine, theirs = number(signal.get(bound)), number(node.get(bound))
        if mine is not None and theirs is not None and (mine < theirs if below else mine > theirs):
            problems.append("%s %s beyond VSS's %s %s" % (bound, signal.get(bound), bound, node.get(bound)))
    if signal["entryType"] not in ("sensor", "actuator"):
        problems.append("entryType %r (sensor or actuator)" % signal["entryType"])
    elif signal["entryType"] == "actuator" and node.get("type") != "actuator":
        problems.append("an actuator here, a %s in VSS" % node.get("type"))
    in_overlay = declared.get(path) in new_keys or path not in standard_paths
    if "overlay" not in signal:
        problems.append("no \"overlay\" flag")
    elif bool(signal["overlay"]) != in_overlay and not (signal["overlay"] and declared.get(path) in extended_keys):
        problems.append("marked overlay %s, but the path %s"
                        % (str(bool(signal["overlay"])).lower(),
                           "is new in carplayd's overlay" if in_overlay else "is standard VSS %s" % RELEASE))
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--carplayctl", help="carplayctl binary: its `vss catalog --json` is the catalog")
    source.add_argument("--catalog", help="a file holding the catalog's JSON")
    parser.add_argument("--overlay", default=OVERLAY, help="the overlay (default: vss/carplayd.vspec)")
    parser.add_argument("--keep", help="write the exports into this directory")
    args = parser.parse_args()

    signals, source = read_catalog(args)
    vspec = vspec_binary()
    workdir = args.keep or tempfile.mkdtemp(prefix="vss-check-")
    os.makedirs(workdir, exist_ok=True)
    try:
        overlays = [ERRATA, args.overlay]
        started = [start_export(vspec, [ERRATA], True, os.path.join(workdir, "vss_standard.json")),
                   start_export(vspec, overlays, True, os.path.join(workdir, "vss.json")),
                   start_export(vspec, overlays, False, os.path.join(workdir, "vss_noexpand.json"))]
        standard_expanded, expanded, unexpanded = [finish_export(one) for one in started]
        if standard_expanded is None or expanded is None or unexpanded is None:
            print("0 passed, 1 failed")
            return 1
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)

    vss = leaves(expanded)
    standard_paths = set(leaves(standard_expanded))
    overlay = overlay_nodes(args.overlay)
    overlay_keys = set(overlay)
    # The nodes (as declared, instances not expanded) of the standard catalog's signals.
    standard_keys = {declared_node(unexpanded, path) for path in standard_paths}
    new_keys = overlay_keys - standard_keys
    extended_keys = overlay_keys & standard_keys
    print("vss-tools: VSS %s (%d signals expanded) with %s and %s validated (--strict)"
          % (RELEASE, len(vss), os.path.basename(ERRATA), os.path.relpath(args.overlay, os.path.dirname(HERE))))
    print("catalog: %d paths from %s" % (len(signals), source))

    declared = {signal["path"]: declared_node(unexpanded, signal["path"]) for signal in signals}
    passed, failures = 0, []
    seen = set()
    for signal in signals:
        path = signal["path"]
        if path in seen:
            failures.append("%s: listed twice in the catalog" % path)
            continue
        seen.add(path)
        problems = check_signal(signal, vss, declared, new_keys, extended_keys, standard_paths)
        if problems:
            failures.append("%s: %s" % (path, "; ".join(problems)))
        else:
            passed += 1

    used = {}
    for path, node in declared.items():
        if node in overlay_keys:
            used.setdefault(node, []).append(path)
    for key in sorted(overlay_keys):
        if key in used:
            passed += 1
        else:
            failures.append("%s: declared in %s but no path of carplayd's catalog uses it"
                            % (key, os.path.basename(args.overlay)))

    found = [signal["path"] for signal in signals if signal["path"] in vss]
    instances = [path for path in found if path not in standard_paths and declared.get(path) not in new_keys]
    if instances:
        print("note: %d paths are VSS %s signals at instances only the overlay declares (e.g. %s): "
              "marked overlay" % (len(instances), RELEASE, instances[0]))
    from_overlay = [path for path in found if declared.get(path) in new_keys]
    print("found: %d of %d catalog paths in the export: %d standard VSS %s signals (%d with values the overlay adds, "
          "%d at the overlay's instances), %d new in the overlay"
          % (len(found), len(signals), len(found) - len(from_overlay), RELEASE,
             sum(1 for path in found if declared.get(path) in extended_keys), len(instances), len(from_overlay)))
    print("overlay: %d signals declared in %s (%d new, %d extended), %d used by the catalog"
          % (len(overlay_keys), os.path.basename(args.overlay), len(new_keys), len(extended_keys), len(used)))
    for failure in failures:
        print("FAIL: %s" % failure)
    print("%d passed, %d failed" % (passed, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

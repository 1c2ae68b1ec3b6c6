"""KUKSA's Python stubs, generated from the vendored protos (kuksa/proto) by grpcio-tools.

No generated code is kept in the repository: the stubs are made at first use into a
cache directory, one per (protos' SHA-256, grpcio-tools version), and imported from
there as `kuksa.val.v1` / `kuksa.val.v2`. Where that directory comes first on sys.path,
these modules win over a `kuksa` package another distribution (kuksa-client) installs:
each generated directory gets an __init__.py, so it is a regular package.
"""

import hashlib
import importlib
import os
import shutil
import sys
import tempfile

PROTO_ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "proto")
PROTOS = ("kuksa/val/v1/types.proto", "kuksa/val/v1/val.proto",
          "kuksa/val/v2/types.proto", "kuksa/val/v2/val.proto")


class StubError(Exception):
    """The stubs cannot be made or loaded; the message says why and what to do."""


def cache_root(made=None):
    """Where the stubs are, or are generated: $CARPLAYD_KUKSA_STUBS; else kuksa/.stubs beside
    the package (gitignored) when it holds them already (make install-kuksa makes them
    there) or may be written; else systemd's $CACHE_DIRECTORY; else the user's cache
    ($XDG_CACHE_HOME or ~/.cache, carplayd-kuksa/stubs): an installed copy in /usr/lib
    run by a user in their own session. `made`: the stubs' fingerprint, when the caller has it."""
    if os.environ.get("CARPLAYD_KUKSA_STUBS"):
        return os.environ["CARPLAYD_KUKSA_STUBS"]
    beside = os.path.join(os.path.dirname(PROTO_ROOT), ".stubs")
    if os.path.isdir(os.path.join(beside, made or fingerprint())):
        return beside
    if os.environ.get("CACHE_DIRECTORY"):
        return os.path.join(os.environ["CACHE_DIRECTORY"].split(":")[0], "stubs")
    if os.access(beside if os.path.isdir(beside) else os.path.dirname(beside), os.W_OK):
        return beside
    user_cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(user_cache, "carplayd-kuksa", "stubs")


def fingerprint():
    digest = hashlib.sha256()
    for name in PROTOS:
        path = os.path.join(PROTO_ROOT, name)
        try:
            with open(path, "rb") as f:
                digest.update(name.encode() + b"\0" + f.read())
        except OSError as error:
            raise StubError("the vendored proto %s is missing (%s)" % (path, error.strerror))
    try:
        from importlib.metadata import version
        tools = version("grpcio-tools")
    except Exception:
        raise StubError("grpcio-tools is not installed (pip install grpcio-tools): it generates the stubs")
    return "%s-grpcio-tools-%s" % (digest.hexdigest()[:16], tools)


def generate(root=None):
    """Makes the stubs if they are not there yet; returns their directory."""
    made = fingerprint()  # reads the protos: once
    root = root or cache_root(made)
    target = os.path.join(root, made)
    if os.path.exists(os.path.join(target, "kuksa", "val", "v2", "val_pb2_grpc.py")):
        return target
    try:
        os.makedirs(root, exist_ok=True)
        scratch = tempfile.mkdtemp(prefix=".generating-", dir=root)
    except OSError as error:
        raise StubError("cannot write the generated stubs into %s (%s); set CARPLAYD_KUKSA_STUBS to a "
                        "writable directory or run `python -m carplayd_kuksa --generate-stubs` as the "
                        "directory's owner" % (root, error.strerror))
    try:
        from grpc_tools import protoc
        import grpc_tools
        include = os.path.join(os.path.dirname(grpc_tools.__file__), "_proto")
        argv = ["grpc_tools.protoc", "-I" + PROTO_ROOT, "-I" + include,
                "--python_out=" + scratch, "--grpc_python_out=" + scratch] + list(PROTOS)
        if protoc.main(argv) != 0:
            raise StubError("grpcio-tools' protoc failed on %s" % PROTO_ROOT)
        for package in ("kuksa", "kuksa/val", "kuksa/val/v1", "kuksa/val/v2"):
            open(os.path.join(scratch, package, "__init__.py"), "a").close()
        # mkdtemp made it 0700: readable as the umask allows, as every other file here is
        # (make install-kuksa generates them as root for the service's user and others).
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(scratch, 0o755 & ~umask)
        try:
            os.rename(scratch, target)
        except OSError:
            # Another process made them meanwhile: theirs are the same.
            if not os.path.isdir(target):
                raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return target


_LOADED = None


def load():
    """Imports the generated modules; returns a namespace with v1, v1_grpc, v1_types,
    v2, v2_grpc, v2_types."""
    global _LOADED
    if _LOADED is not None:
        return _LOADED
    directory = generate()
    if "kuksa" in sys.modules and not getattr(sys.modules["kuksa"], "__file__", "").startswith(directory):
        raise StubError("another `kuksa` package (%s) was imported before carplayd-kuksa's stubs"
                        % getattr(sys.modules["kuksa"], "__file__", "?"))
    sys.path.insert(0, directory)

    class Stubs:
        v1_types = importlib.import_module("kuksa.val.v1.types_pb2")
        v1 = importlib.import_module("kuksa.val.v1.val_pb2")
        v1_grpc = importlib.import_module("kuksa.val.v1.val_pb2_grpc")
        v2_types = importlib.import_module("kuksa.val.v2.types_pb2")
        v2 = importlib.import_module("kuksa.val.v2.val_pb2")
        v2_grpc = importlib.import_module("kuksa.val.v2.val_pb2_grpc")

    _LOADED = Stubs
    return Stubs

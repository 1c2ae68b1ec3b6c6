"""The error boundary every RPC of both servicers runs inside.

Each handler runs inside `unary` / `stream`: a KuksaError ends the call with its status
and message (errors.TABLE); anything else is carplayd-kuksa's own fault, logged with its
traceback on the server and answered INTERNAL -- the caller never sees a Python
traceback.
"""

import functools
import logging
import threading

import grpc

from .errors import KuksaError

log = logging.getLogger("carplayd-kuksa")


def _internal(method):
    log.exception("%s failed", method)
    return KuksaError("CarplaydProtocol", reason="carplayd-kuksa failed in %s (its log has the details)" % method)


def unary(fn):
    @functools.wraps(fn)
    def wrapped(self, request, context):
        try:
            return fn(self, request, context)
        except KuksaError as failure:
            error = failure
        except Exception:
            error = _internal(fn.__name__)
        log.info("%s: %s %s", fn.__name__, error.status.name, error.message)
        context.abort(error.status, error.message)
    return wrapped


def stream(fn):
    @functools.wraps(fn)
    def wrapped(self, request, context):
        try:
            yield from fn(self, request, context)
            return
        except KuksaError as failure:
            error = failure
        except Exception:
            if not context.is_active():
                return  # the caller went away; its stream was closed under us
            error = _internal(fn.__name__)
        if context.is_active():
            log.info("%s: %s %s", fn.__name__, error.status.name, error.message)
            context.abort(error.status, error.message)
    return wrapped


def unimplemented(name, why):
    def handler(self, request_or_iterator, context):
        context.abort(grpc.StatusCode.UNIMPLEMENTED, "%s is not served by carplayd-kuksa: %s" % (name, why))
    handler.__name__ = name
    return handler


def changes(backend, context, wanted, lasting_ms=0):
    """(first, values) for each Monitor reply on `wanted` while the caller listens: the
    first holds every wanted value, each later one what changed. The Monitor ends when
    the call does, or after lasting_ms when that is given (v2's filter)."""
    subscription = backend.monitor(wanted)
    context.add_callback(subscription.close)
    if lasting_ms:
        timer = threading.Timer(lasting_ms / 1000.0, subscription.close)
        timer.daemon = True
        timer.start()
        context.add_callback(timer.cancel)
    first = True
    for changed in subscription:
        yield first, changed
        first = False

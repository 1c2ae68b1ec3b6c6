"""carplayd-kuksa: KUKSA's kuksa.val.v1/v2 gRPC API in front of carplayd's io.carplayd.VSS
(docs/KUKSA.md). Run it with `python -m carplayd_kuksa` (kuksa/ on the path) or the
kuksa/carplayd-kuksa script."""

__version__ = "0.1.0"

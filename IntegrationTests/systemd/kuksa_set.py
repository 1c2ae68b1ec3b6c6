"""One kuksa-client call, for IntegrationTests/systemd/in-vm.sh: set_target_values of one
VSS path on carplayd-kuksa's Unix socket, then the value read back. Prints one line:
`ok PATH=VALUE in N ms` or `error CODE MESSAGE` (kuksa-client's VSSClientError)."""

import json
import sys
import time

from kuksa_client.grpc import Datapoint, VSSClient, VSSClientError

socket_path, path, value = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
with VSSClient("unix", socket_path, ensure_startup_connection=False) as client:
    try:
        started = time.monotonic()
        client.set_target_values({path: Datapoint(value)}, timeout=30)
        elapsed = time.monotonic() - started
    except VSSClientError as error:
        print("error %s %s" % (error.error.get("code"), error.error.get("message")))
        sys.exit(0)
    read = client.get_current_values([path], timeout=30)[path].value
print("ok %s=%s in %.0f ms" % (path, json.dumps(read), elapsed * 1000))

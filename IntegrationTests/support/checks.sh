# The checks of the shell test scripts (deb/host.sh, deb/in-vm.sh, systemd/in-vm.sh):
# sourced. Each check prints "ok - NAME" or "FAIL - NAME" and is counted; `summary`
# prints the counts and fails when any check did.
passed=0 failed=0
ok() { echo "ok - $1"; passed=$((passed + 1)); }
bad() { echo "FAIL - $1"; failed=$((failed + 1)); }
check() { local name="$1"; shift; if "$@"; then ok "$name"; else bad "$name"; fi; }
wait_for() {  # wait_for SECONDS COMMAND...: until COMMAND succeeds
    local deadline=$((SECONDS + $1)); shift
    until "$@"; do [ $SECONDS -ge $deadline ] && return 1; sleep 0.5; done
}
summary() {
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}

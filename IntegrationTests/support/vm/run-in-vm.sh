#!/usr/bin/env bash
# Run a command against a REAL kernel SocketCAN stack (vcan0 and vcan1 exist).
#
# Usage: IntegrationTests/support/vm/run-in-vm.sh [options] -- COMMAND [ARG...]
#
#   --timeout SECONDS   kill the command (native) or the whole VM (boot
#                       included) after SECONDS; exit 124. Default 900.
#   --systemd           boot the VM into systemd as PID 1 (implies --vm) and
#                       run COMMAND as a unit (run-in-vm.service).
#   --vm                use the VM even when the host kernel has vcan.
#   --native            never use the VM; fail if the host kernel has no vcan.
#   --env NAME[=VALUE]  pass one more environment variable to COMMAND.
#   --mem MB            guest memory (VM only). Default 2048.
#   --verbose           copy the VM's serial console to stderr as it boots.
#   --check-native      run nothing: exit 0 when the host kernel has vcan (a
#                       command would run natively), 1 when it would need the VM.
#
# RUN_IN_VM_COLLECT=FILE (environment): run nothing either; append the command
# (its mode, timeout, environment and working directory) to FILE, for one VM
# boot to run several suites (IntegrationTests/vm-suites/run.sh). Exit 0.
#
# Native path: if `modprobe vcan` + `ip link add ... type vcan` work on the
# host, vcan0 and vcan1 are created (if missing) and COMMAND runs directly.
# VM path: qemu (TCG) boots Debian's kernel with a cached initramfs, mounts the
# host root read-only over 9p under a tmpfs overlay, creates vcan0/vcan1 and
# runs COMMAND in a chroot of it (or under systemd) in the same working
# directory. COMMAND's stdout/stderr stream back to the host; its exit code is
# this script's exit code. Any harness failure exits 125 (never a skip).
# See IntegrationTests/support/vm/README.md.
set -euo pipefail

SCRIPT_PATH="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")"
REPO_ROOT="$(cd "$(dirname "$SCRIPT_PATH")/../../.." && pwd)"
VM_DIR="$REPO_ROOT/.build/vm"
OUT_DIR="$REPO_ROOT/.build/vm-out"

APT_PACKAGES=(qemu-system-x86 linux-image-amd64 busybox-static can-utils cpio kmod iproute2 xz-utils)
MODULES=(can can-raw can-bcm can-isotp vcan vxcan 9p 9pnet 9pnet_virtio virtio virtio_ring virtio_pci netfs overlay)
PASS_ENV=(PATH HOME USER LOGNAME LANG LC_ALL TZ CI TERM)

TIMEOUT=900
SYSTEMD=0
FORCE=""
MEM=2048
VERBOSE=0
CHECK_NATIVE=0
EXTRA_ENV=()

elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }
say()  { echo "run-in-vm: $*" >&2; }
die()  { echo "run-in-vm: ERROR: $*" >&2; exit 125; }
usage() { awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$SCRIPT_PATH"; }

while [ $# -gt 0 ]; do
    case "$1" in
        --timeout) TIMEOUT="${2:?--timeout needs a value}"; shift 2 ;;
        --timeout=*) TIMEOUT="${1#*=}"; shift ;;
        --systemd) SYSTEMD=1; shift ;;
        --vm) FORCE=vm; shift ;;
        --native) FORCE=native; shift ;;
        --env) EXTRA_ENV+=("${2:?--env needs NAME[=VALUE]}"); shift 2 ;;
        --mem) MEM="${2:?--mem needs a value}"; shift 2 ;;
        --verbose) VERBOSE=1; shift ;;
        --check-native) CHECK_NATIVE=1; shift ;;
        -h|--help) usage; exit 0 ;;
        --) shift; break ;;
        *) usage >&2; die "unknown argument: $1 (put the command after --)" ;;
    esac
done
if [ "$CHECK_NATIVE" -eq 1 ]; then
    [ $# -eq 0 ] || die "--check-native takes no COMMAND"
fi
[ $# -gt 0 ] || [ "$CHECK_NATIVE" -eq 1 ] || { usage >&2; die "no COMMAND given"; }
[[ "$TIMEOUT" =~ ^[0-9]+$ ]] && [ "$TIMEOUT" -gt 0 ] || die "--timeout must be a positive integer"
if [ "$SYSTEMD" -eq 1 ]; then
    [ "$FORCE" = native ] && die "--systemd needs the VM; it cannot be combined with --native"
    FORCE=vm
    # The guest boots the host's root: its logind, D-Bus and pam_systemd (user sessions
    # for the device-lock test) are the host's packages.
    APT_PACKAGES+=(dbus libpam-systemd)
fi

as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"
    elif command -v sudo >/dev/null 2>&1; then sudo "$@"
    else return 1
    fi
}

# The environment handed to COMMAND, as `export` lines (bash-quoted).
env_lines() {
    local mode="$1" name kv
    for name in "${PASS_ENV[@]}"; do
        [ -n "${!name+x}" ] && printf 'export %s=%q\n' "$name" "${!name}"
    done
    for kv in "${EXTRA_ENV[@]+"${EXTRA_ENV[@]}"}"; do
        name="${kv%%=*}"
        [[ "$name" =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || die "bad --env name: $name"
        if [[ "$kv" == *=* ]]; then printf 'export %s=%q\n' "$name" "${kv#*=}"
        elif [ -n "${!name+x}" ]; then printf 'export %s=%q\n' "$name" "${!name}"
        fi
    done
    printf 'export RUN_IN_VM=%s\n' "$mode"
}

# ------------------------------------------------------------------ native
native_vcan_works() {
    [ "$(uname -s)" = Linux ] || return 1
    command -v ip >/dev/null 2>&1 || return 1
    as_root modprobe vcan >/dev/null 2>&1 || true
    local probe="vcprobe$$"
    probe="${probe:0:15}"
    if as_root ip link add dev "$probe" type vcan >/dev/null 2>&1; then
        as_root ip link del dev "$probe" >/dev/null 2>&1 || true
        return 0
    fi
    return 1
}

run_native() {
    local ifc created=()
    for ifc in vcan0 vcan1; do
        if ! ip link show dev "$ifc" >/dev/null 2>&1; then
            as_root ip link add dev "$ifc" type vcan || die "native: cannot create $ifc"
            created+=("$ifc")
        fi
        as_root ip link set "$ifc" up || die "native: cannot bring $ifc up"
    done
    say "native: host kernel has vcan (vcan0, vcan1 up); running the command here"
    local rc=0
    local envs
    envs="$(env_lines native)"
    ( eval "$envs"; exec timeout -k 5 "$TIMEOUT" "$@" ) || rc=$?
    for ifc in "${created[@]+"${created[@]}"}"; do as_root ip link del dev "$ifc" >/dev/null 2>&1 || true; done
    [ "$rc" -eq 124 ] && say "TIMEOUT: the command ran longer than ${TIMEOUT}s and was killed"
    return "$rc"
}

# ------------------------------------------------------------------ VM: host side
ensure_packages() {
    local missing=() pkg
    for pkg in "${APT_PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep "install ok installed" >/dev/null || missing+=("$pkg")
    done
    [ "${#missing[@]}" -eq 0 ] && return 0
    command -v apt-get >/dev/null 2>&1 || die "missing packages (${missing[*]}) and no apt-get"
    say "installing Debian packages: ${missing[*]}"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q >&2 \
        || die "apt-get update failed"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >&2 \
        || die "apt-get install ${missing[*]} failed"
}

# Newest /boot/vmlinuz-* whose modules (with CAN) are installed.
pick_kernel() {
    local v best=""
    for k in /boot/vmlinuz-*; do
        [ -e "$k" ] || continue
        v="${k#/boot/vmlinuz-}"
        ls /lib/modules/"$v"/kernel/drivers/net/can/vcan.ko* >/dev/null 2>&1 || continue
        best="$(printf '%s\n%s\n' "$best" "$v" | sed '/^$/d' | sort -V | tail -n 1)"
    done
    [ -n "$best" ] || die "no /boot/vmlinuz-* with CAN modules under /lib/modules (is linux-image-amd64 installed?)"
    KVER="$best"
    KERNEL="/boot/vmlinuz-$KVER"
    [ -r "$KERNEL" ] || die "$KERNEL is not readable"
}

# Modules in load order (dependencies first), as full paths.
resolve_modules() {
    local -A seen=()
    ORDERED=()
    visit() {
        local m="$1" file deps d
        m="${m//-/_}"
        [ -n "${seen[$m]:-}" ] && return 0
        seen[$m]=1
        file="$(modinfo -k "$KVER" -F filename "$m" 2>/dev/null | head -n 1)" \
            || die "module $m not found for kernel $KVER"
        case "$file" in ""|"(builtin)"|*builtin*) return 0 ;; esac
        deps="$(modinfo -k "$KVER" -F depends "$m" 2>/dev/null | head -n 1)"
        for d in ${deps//,/ }; do visit "$d"; done
        ORDERED+=("$file")
    }
    local m
    for m in "${MODULES[@]}"; do visit "$m"; done
}

build_initramfs() {
    local key busybox
    busybox="$(command -v busybox || true)"
    [ -x /bin/busybox ] && busybox=/bin/busybox
    [ -n "$busybox" ] || die "busybox not found (busybox-static)"
    key="$(cat "$SCRIPT_PATH" "$busybox" | sha256sum | cut -c1-12)"
    INITRD="$VM_DIR/initramfs-$KVER-$key.cpio.gz"
    [ -s "$INITRD" ] && { INITRD_BUILD_S=cached; return 0; }

    local t0 stage f base
    t0=$(date +%s.%N)
    say "building initramfs for $KVER (cached as ${INITRD#$REPO_ROOT/})"
    resolve_modules
    stage="$(mktemp -d "$VM_DIR/stage.XXXXXX")"
    mkdir -p "$stage"/{bin,dev,proc,sys,tmp,lower,upper,newroot,vmout,mods,keep}
    cp "$busybox" "$stage/bin/busybox"
    : > "$stage/modules.order"
    for f in "${ORDERED[@]}"; do
        base="$(basename "$f")"
        case "$f" in
            *.ko.xz)  base="${base%.xz}";  xz -dc "$f" > "$stage/mods/$base" ;;
            *.ko.zst) base="${base%.zst}"; zstd -qdc "$f" > "$stage/mods/$base" ;;
            *.ko.gz)  base="${base%.gz}";  gzip -dc "$f" > "$stage/mods/$base" ;;
            *)        cp "$f" "$stage/mods/$base" ;;
        esac
        echo "$base" >> "$stage/modules.order"
    done
    mknod -m 600 "$stage/dev/console" c 5 1 2>/dev/null || true
    mknod -m 666 "$stage/dev/null" c 1 3 2>/dev/null || true
    guest_init > "$stage/init"
    chmod 755 "$stage/init"
    (cd "$stage" && find . | cpio -o -H newc --owner=0:0 --quiet | gzip -1) > "$INITRD.tmp"
    mv "$INITRD.tmp" "$INITRD"
    rm -rf "$stage"
    find "$VM_DIR" -maxdepth 1 -name 'initramfs-*.cpio.gz' ! -name "$(basename "$INITRD")" -delete
    INITRD_BUILD_S="$(elapsed "$t0")"
    say "initramfs built in ${INITRD_BUILD_S}s (${#ORDERED[@]} modules: $(for f in "${ORDERED[@]}"; do basename "$f" | sed 's/\.ko.*//'; done | tr '\n' ' '))"
}

# ------------------------------------------------------------------ VM: guest side
# The initramfs /init (busybox sh). Reads vm.run=<id> from the kernel command
# line and <vm-out>/.vm/<id>/run.conf (MODE, OUT_MOUNT).
guest_init() {
    cat <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t devtmpfs devtmpfs /dev
exec </dev/console >/dev/console 2>&1
mount -t proc proc /proc
mount -t sysfs sysfs /sys
log() { echo "vm-init: $*"; }
RUNDIR=""
fail() {
    log "FATAL: $*"
    [ -n "$RUNDIR" ] && [ -d "$RUNDIR" ] && echo "$*" > "$RUNDIR/init-error"
    sync; poweroff -f; sleep 5; exit 1
}
uptime_s() { cut -d' ' -f1 /proc/uptime; }
log "kernel up at $(uptime_s)s; loading modules"
while read -r m; do
    insmod "/mods/$m" || log "insmod $m failed"
done < /modules.order
RUN=""
for w in $(cat /proc/cmdline); do
    case "$w" in vm.run=*) RUN="${w#vm.run=}" ;; esac
done
[ -n "$RUN" ] || fail "no vm.run= on the kernel command line"
O9P="trans=virtio,version=9p2000.L,msize=512000"
mount -t 9p -o "$O9P" vmout /vmout || fail "cannot mount the vmout 9p share"
RUNDIR="/vmout/.vm/$RUN"
[ -f "$RUNDIR/run.conf" ] || fail "missing $RUNDIR/run.conf"
. "$RUNDIR/run.conf"
uptime_s > "$RUNDIR/t_init"
mount -t 9p -o "$O9P,cache=loose,ro" hostroot /lower || fail "cannot mount the host root (9p hostroot)"
mount -t tmpfs -o mode=755 tmpfs /upper || fail "tmpfs"
mkdir -p /upper/u /upper/w
if ! mount -t overlay -o lowerdir=/lower,upperdir=/upper/u,workdir=/upper/w overlay /newroot; then
    [ "$MODE" = systemd ] && fail "overlay mount failed (needed for --systemd)"
    log "WARNING: overlay failed; the root is read-only"
    mount -o bind /lower /newroot || fail "bind /lower"
fi
# A fresh tmpfs on /tmp (the host's /tmp is not the guest's business, and
# systemd-tmpfiles would clean it file by file over 9p). Paths the run needs
# that live under /tmp (the repo, the working directory) are carried over.
n=0
while read -r p; do
    [ -n "$p" ] || continue
    n=$((n + 1)); mkdir -p "/keep/$n"
    mount -o bind "/newroot$p" "/keep/$n" || fail "cannot keep $p"
done < "$RUNDIR/keep.list"
mount -t tmpfs -o mode=1777 tmpfs /newroot/tmp || fail "tmpfs /tmp"
n=0
while read -r p; do
    [ -n "$p" ] || continue
    n=$((n + 1)); mkdir -p "/newroot$p"
    mount -o move "/keep/$n" "/newroot$p" || fail "cannot put back $p"
done < "$RUNDIR/keep.list"
mkdir -p "/newroot$OUT_MOUNT" 2>/dev/null
mount -o bind /vmout "/newroot$OUT_MOUNT" || fail "cannot bind the vmout share at $OUT_MOUNT"

ip link set lo up
IP="ip"
if ! ip link add dev vcan0 type vcan 2>/dev/null; then
    IP="chroot /newroot /sbin/ip"
    $IP link add dev vcan0 type vcan || fail "cannot create vcan0 (busybox ip and host /sbin/ip)"
fi
$IP link add dev vcan1 type vcan || fail "cannot create vcan1"
$IP link set vcan0 up || fail "vcan0 up"
$IP link set vcan1 up || fail "vcan1 up"
log "vcan0, vcan1 up (with: $IP)"
G="$OUT_MOUNT/.vm/$RUN"    # the run dir as seen inside the new root

if [ "$MODE" = systemd ]; then
    S=/newroot/etc/systemd/system
    mkdir -p "$S/multi-user.target.wants"
    for u in $MASK_UNITS; do rm -f "$S/$u"; ln -s /dev/null "$S/$u"; done
    cat > "/newroot/run-in-vm.sh" <<EOF
#!/bin/sh
cut -d' ' -f1 /proc/uptime > $G/t_command_start
/bin/bash $G/cmd.sh </dev/null >$G/stdout 2>$G/stderr
rc=\$?
cut -d' ' -f1 /proc/uptime > $G/t_command_end
echo \$rc > $G/rc.tmp && mv $G/rc.tmp $G/rc
sync
exit 0
EOF
    chmod 755 /newroot/run-in-vm.sh
    cat > "$S/run-in-vm.service" <<EOF
[Unit]
Description=run-in-vm command
After=multi-user.target
SuccessAction=poweroff-immediate
FailureAction=poweroff-immediate
[Service]
Type=exec
ExecStart=/run-in-vm.sh
StandardOutput=journal+console
StandardError=journal+console
EOF
    ln -sf ../run-in-vm.service "$S/multi-user.target.wants/run-in-vm.service"
    # Not a container: a host /.dockerenv would make systemd skip units.
    rm -f /newroot/.dockerenv /newroot/run/.containerenv
    uptime_s > "$RUNDIR/t_switch_root"
    log "switch_root into systemd at $(uptime_s)s"
    mount -o move /dev /newroot/dev 2>/dev/null || umount /dev
    mount -o move /proc /newroot/proc 2>/dev/null || umount /proc
    mount -o move /sys /newroot/sys 2>/dev/null || umount /sys
    exec switch_root /newroot /lib/systemd/systemd
    fail "switch_root failed"
fi

mount -t proc proc /newroot/proc
mount -t sysfs sysfs /newroot/sys
mount -t cgroup2 cgroup2 /newroot/sys/fs/cgroup 2>/dev/null
mount -t devtmpfs devtmpfs /newroot/dev
mkdir -p /newroot/dev/pts /newroot/dev/shm
mount -t devpts devpts /newroot/dev/pts
mount -t tmpfs -o mode=1777 tmpfs /newroot/dev/shm
mount -t tmpfs -o mode=755 tmpfs /newroot/run
uptime_s > "$RUNDIR/t_command_start"
log "running the command at $(uptime_s)s"
chroot /newroot /bin/bash "$G/cmd.sh" </dev/null >"$RUNDIR/stdout" 2>"$RUNDIR/stderr"
rc=$?
uptime_s > "$RUNDIR/t_command_end"
echo "$rc" > "$RUNDIR/rc.tmp" && mv "$RUNDIR/rc.tmp" "$RUNDIR/rc"
log "command exited $rc at $(uptime_s)s; powering off"
sync
poweroff -f
sleep 10
INIT
}

# Units masked inside the systemd VM (they need a network, hardware or time
# the throwaway VM has not, or only slow the boot down).
MASK_UNITS="getty@tty1.service serial-getty@ttyS0.service getty.target timers.target \
systemd-timesyncd.service postgresql.service e2scrub_reap.service systemd-pstore.service \
apt-daily.timer apt-daily-upgrade.timer man-db.timer fstrim.timer e2scrub_all.timer dpkg-db-backup.timer"

run_vm() {
    ensure_packages
    command -v qemu-system-x86_64 >/dev/null 2>&1 || die "qemu-system-x86_64 not found after install"
    mkdir -p "$VM_DIR" "$OUT_DIR/.vm"
    pick_kernel
    exec 9>"$VM_DIR/.lock"
    flock 9
    build_initramfs
    flock -u 9

    local run_id rundir console mode=plain t0 qpid qrc=0 tails=()
    [ "$SYSTEMD" -eq 1 ] && mode=systemd
    run_id="$(date +%Y%m%d-%H%M%S)-$$"
    rundir="$OUT_DIR/.vm/$run_id"
    mkdir -p "$rundir"
    : > "$rundir/stdout"; : > "$rundir/stderr"
    {
        echo "MODE=$mode"
        printf 'OUT_MOUNT=%q\n' "$OUT_DIR"
        printf 'MASK_UNITS=%q\n' "$MASK_UNITS"
    } > "$rundir/run.conf"
    # Under /tmp (hidden by the guest's tmpfs /tmp): carried over by /init.
    {
        case "$REPO_ROOT/" in /tmp/*) echo "$REPO_ROOT" ;; esac
        case "$PWD/" in "$REPO_ROOT"/*) ;; /tmp/*) echo "$PWD" ;; esac
    } > "$rundir/keep.list"
    {
        echo '#!/bin/bash'
        env_lines "vm"
        printf 'cd %q || { echo "run-in-vm: cannot cd to %q in the VM" >&2; exit 126; }\n' "$PWD" "$PWD"
        printf 'exec'; printf ' %q' "$@"; echo
    } > "$rundir/cmd.sh"
    console="$VM_DIR/console.log"
    : > "$console"

    say "VM ($mode): kernel $KVER, accel ${VM_ACCEL:-tcg}, ${MEM} MiB, timeout ${TIMEOUT}s; console: ${console#$REPO_ROOT/}"
    t0=$(date +%s.%N)
    # tsc=reliable: under TCG every vCPU's TSC is the host's plus one offset, so they
    # run in step, but the guest's sync check fails on the emulator's timing and falls
    # back to the emulated HPET, which has no vDSO: every clock_gettime then becomes a
    # syscall and an emulated MMIO read. On the TSC the vDSO answers, as on hardware.
    # no_timer_check: the boot's check that the IO-APIC timer ticks counts ticks within a
    # busy-wait; a vCPU starved by a loaded host misses them and the kernel panics ("IO-APIC
    # + timer doesn't work"), seen with two CPU hogs and another VM beside it.
    # shellcheck disable=SC2054
    local qemu=(qemu-system-x86_64 -accel "${VM_ACCEL:-tcg,thread=multi}" -cpu max -m "$MEM" -smp 2
        -nographic -no-reboot -serial mon:stdio -nic none
        -kernel "$KERNEL" -initrd "$INITRD"
        -append "console=ttyS0 quiet loglevel=3 panic=-1 tsc=reliable no_timer_check vm.run=$run_id"
        -virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap"
        -virtfs "local,path=$OUT_DIR,mount_tag=vmout,security_model=none,multidevs=remap")
    echo "+ ${qemu[*]}" >> "$console"
    if [ "$VERBOSE" -eq 1 ]; then
        timeout -k 5 "$TIMEOUT" "${qemu[@]}" </dev/null > >(tee -a "$console" >&2) 2>&1 &
    else
        timeout -k 5 "$TIMEOUT" "${qemu[@]}" </dev/null >>"$console" 2>&1 &
    fi
    qpid=$!
    trap 'kill '"$qpid"' 2>/dev/null; exit 130' INT TERM
    tail -q -n +1 -F --pid="$qpid" "$rundir/stdout" 2>/dev/null &
    tails+=($!)
    tail -q -n +1 -F --pid="$qpid" "$rundir/stderr" >&2 2>/dev/null &
    tails+=($!)
    wait "$qpid" || qrc=$?
    wait "${tails[@]}" 2>/dev/null || true
    trap - INT TERM
    local total ts tc te
    total="$(elapsed "$t0")"
    ts="$(cat "$rundir/t_command_start" 2>/dev/null || echo '?')"
    te="$(cat "$rundir/t_command_end" 2>/dev/null || echo '?')"
    tc="$(cat "$rundir/rc" 2>/dev/null || true)"
    cp "$console" "$rundir/console.log" 2>/dev/null || true

    if [ -n "$tc" ]; then
        say "VM done: initramfs ${INITRD_BUILD_S}, boot to command ${ts}s (guest uptime), command ended at ${te}s, total ${total}s wall; exit $tc"
        rm -rf "$rundir"
        return "$tc"
    fi
    if [ -f "$rundir/init-error" ]; then
        say "VM init failed: $(cat "$rundir/init-error")"
    fi
    if [ "$qrc" -eq 124 ] || [ "$qrc" -eq 137 ]; then
        if [ "$ts" = "?" ]; then say "TIMEOUT: no result after ${TIMEOUT}s; the command never started (stuck while booting); qemu killed"; else say "TIMEOUT: no result after ${TIMEOUT}s (the command started at ${ts}s guest uptime); qemu killed"; fi
        tail -n 30 "$console" | sed 's/^/  console| /' >&2
        say "run files kept in ${rundir#$REPO_ROOT/}; console log: ${console#$REPO_ROOT/}"
        exit 124
    fi
    tail -n 40 "$console" | sed 's/^/  console| /' >&2
    say "run files kept in ${rundir#$REPO_ROOT/}"
    die "the VM produced no exit status (qemu exit $qrc after ${total}s); see ${console#$REPO_ROOT/}"
}

# ------------------------------------------------------------------ collect
# RUN_IN_VM_COLLECT=FILE: the command as a script FILE.N.sh (the environment it would
# get, its working directory, the command), and one line "NAME MODE TIMEOUT SCRIPT" in
# FILE; NAME is $RUN_IN_VM_COLLECT_NAME. FILE must be where the guest sees it (under
# the repository, not /tmp). IntegrationTests/vm-suites/in-vm.sh runs them in order.
collect() {
    local list="$RUN_IN_VM_COLLECT" n script mode=plain
    [ "$SYSTEMD" -eq 1 ] && mode=systemd
    [ "$FORCE" = native ] && die "RUN_IN_VM_COLLECT: a --native command cannot be collected for the VM"
    touch "$list" || die "RUN_IN_VM_COLLECT: cannot write $list"
    n=$(($(wc -l < "$list") + 1))
    script="$list.$n.sh"
    {
        echo '#!/bin/bash'
        env_lines "vm"
        printf 'cd %q || { echo "run-in-vm: cannot cd to %q in the VM" >&2; exit 126; }\n' "$PWD" "$PWD"
        printf 'exec'; printf ' %q' "$@"; echo
    } > "$script"
    printf '%s %s %s %s\n' "${RUN_IN_VM_COLLECT_NAME:-step$n}" "$mode" "$TIMEOUT" "$script" >> "$list"
    say "collected for one VM run ($mode, timeout ${TIMEOUT}s): $*"
}

# ------------------------------------------------------------------ main
if [ "$CHECK_NATIVE" -eq 1 ]; then
    if native_vcan_works; then say "host kernel has vcan: commands run natively"; exit 0; fi
    say "host kernel has no vcan: commands run in a VM"
    exit 1
fi
if [ -n "${RUN_IN_VM_COLLECT:-}" ]; then
    collect "$@"
    exit 0
fi
case "$FORCE" in
    native)
        native_vcan_works || die "--native: the host kernel cannot create vcan interfaces"
        run_native "$@" ;;
    vm)
        run_vm "$@" ;;
    *)
        if native_vcan_works; then
            run_native "$@"
        else
            say "host kernel has no vcan; using a VM"
            run_vm "$@"
        fi ;;
esac

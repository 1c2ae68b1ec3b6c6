#!/usr/bin/env bash
# THE test command of carplayd (CI runs it through .ci/run).
#
# The quick tier (--quick, and the first stages of a full run):
#   1. bootstrap (Debian packages, .venv with cantools/python-can/varlink); the DBC
#      corpus (see CARPLAYD_DBC_CORPUS below)
#   2. swift format lint --strict (the house style, .swift-format); swift build
#      --build-tests, warnings are errors
#   3. golden vectors from cantools into .build/golden, AUTOSAR E2E vectors from
#      autosar-e2e into .build/protection-vectors.json, frames of every checksummed
#      message opendbc knows, packed by opendbc, into .build/opendbc-vectors.json
#   4. swift test, with CARPLAYD_GOLDEN_DIR, CARPLAYD_DBC_CORPUS,
#      CARPLAYD_PROTECTION_VECTORS and CARPLAYD_OPENDBC_VECTORS exported
#   5. carplayctl dbc decode against cantools on generated candump logs
#   6. the real-car DBCs unchanged; every opendbc DBC loads and decodes as opendbc's
#      parser does, and drafts a profile that loads again; every intent on every
#      profile, frames checked with cantools
#  6b. vss: vss-tools validates VSS 5.1 with carplayd's overlay (vss/), and every path of
#      `carplayctl vss catalog --json` is checked against it (vss/check.py)
# Then, in a full run:
#   7. the release build, once: make build STATIC=1 (--static-swift-stdlib, .build/static)
#      with carplay-bench, for the daemon tests, the systemd test and the package
#   8. the Debian package: make deb-files, lintian, man pages, dpkg -x with /opt/swift
#      masked (IntegrationTests/deb/host.sh)
#  8b. under load: corpus, golden vectors, swift test, the daemon and carplayd-kuksa once more,
#      beside two CPU-bound processes (scripts/load-check.sh; before the VM starts)
#   9. ONE boot of the systemd VM (IntegrationTests/vm-suites), started in the background
#      at nice 10 (vm_suites_start), for, in order: the vcan bench (IntegrationTests/vcan;
#      natively before the boot where the kernel has vcan), carplayd under systemd as PID 1
#      (IntegrationTests/systemd), the Debian package's dpkg -i/reload/upgrade/-r/--purge
#      with no toolchain (IntegrationTests/deb); while it runs on one core, 10-13 use the
#      other:
#  10. the fuzz targets' ASan build (Fuzz/build.sh), in the background at idle CPU priority
#  11. the real carplayd end to end over its Varlink socket (IntegrationTests/daemon, pytest);
#      then carplayd-kuksa in front of it, kuksa-client from PyPI as the client
#      (IntegrationTests/kuksa, pytest: stage kuksa)
#  12. a short soak: clients, vehicle faults, SIGTERM/SIGKILL restarts (IntegrationTests/soak)
#  13. the fuzz targets, 30 s each, one per core the VM leaves (Fuzz/run.sh: DBC, profile,
#      candump, frames, Varlink)
#  14. vm_suites: waits for the VM suites and prints their results
# Each stage prints its wall time at its end; the run ends with a table of them and the
# total, then one line "N passed, 0 failed" (IntegrationTests/README.md has the figures).
#
# Usage: scripts/test.sh                    every stage, then one line "N passed, 0 failed"
#        scripts/test.sh --quick            stages 1-6 only (minutes), then the same line
#        scripts/test.sh --only STAGE...   just those stages, in that order, no summary
#          (stages: bootstrap format corpus build golden protection_vectors swift_test decode_cli
#          real_dbcs opendbc intents vss release_build package under_load vm_suites_start fuzz_build daemon
#          kuksa soak fuzz vm_suites (alone: in the foreground);
#          and vcan, systemd, deb: each VM suite alone, in a boot of its own, deb with the
#          package stage first. Each expects what earlier ones built, e.g. `--only corpus
#          golden`; the release build and the package are made when missing)
#
# Environment:
#   CARPLAYD_DBC_CORPUS  DBC corpus directory (relative paths: to the repo root).
#                        Unset: ../shared/dbc-corpus/cantools-tests if it exists,
#                        else cantools 45.1.0's test DBCs, downloaded once into
#                        .build/dbc-corpus (IntegrationTests/support/dbc-corpus.sha256)
#   CARPLAYD_GOLDEN_SEED seed for the golden vectors (default 1)
#   CARPLAYD_TEST_RESULTS, CARPLAYD_SWIFT_TEST_LOG  where the stages' results and swift
#                        test's output go (default .build/test-results.txt, .build/swift-test.log;
#                        scripts/load-check.sh gives each of its runs its own)
#   SWIFT                swift driver to use (default: swift on PATH)
#   CARPLAYD_SOAK_MINUTES, CARPLAYD_SOAK_SEED  the soak stage (default 1.5 min, seed 1)
#   CARPLAYD_FUZZ_SECONDS seconds per fuzz target (default 30; 0 skips the stage)
#   CARPLAYD_BIN_DIR     for the vss and kuksa stages: the directory of the carplayd and
#                        carplayctl to use instead of building them (default: vss the debug
#                        build's carplayctl, kuksa the release build's carplayd)
#
# Exits non-zero on any failure.
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO_ROOT"

SWIFT="${SWIFT:-swift}"
if ! command -v "$SWIFT" >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
    SWIFT=/opt/swift/usr/bin/swift
fi
PY="$REPO_ROOT/.venv/bin/python"
GOLDEN_DIR="$REPO_ROOT/.build/golden"
SEED="${CARPLAYD_GOLDEN_SEED:-1}"
SWIFT_TEST_LOG="${CARPLAYD_SWIFT_TEST_LOG:-$REPO_ROOT/.build/swift-test.log}"
RESULTS="${CARPLAYD_TEST_RESULTS:-$REPO_ROOT/.build/test-results.txt}"

step() { printf '\n==> %s\n' "$*"; }
die() { echo "test.sh: FAIL: $*" >&2; exit 1; }

abspath() {  # abspath PATH (relative paths are relative to the repo root)
    case "$1" in
        /*) printf '%s\n' "$1" ;;
        *)  printf '%s\n' "$REPO_ROOT/$1" ;;
    esac
}

stage_bootstrap() {
    step "bootstrap"
    bash "$REPO_ROOT/scripts/bootstrap.sh"
}

# The DBC corpus: cantools' own test files (the parser must load them; the golden vectors
# cover them). An explicit directory wins, then the shared folder beside the repository;
# otherwise the files come from cantools' source distribution on PyPI -- the same
# version as the venv's cantools, and only the 82 files IntegrationTests/support/
# dbc-corpus.sha256 lists: the sdist has 7 more, and cantools refuses two of them
# (incorrect-val.dbc, incorrect-sig_valtype.dbc) that carplayd loads with a warning,
# which GoldenVectorTests would report.
DBC_CORPUS=""
CORPUS_ORIGIN=""
CANTOOLS_SDIST="cantools==45.1.0"
CORPUS_SUMS="$REPO_ROOT/IntegrationTests/support/dbc-corpus.sha256"

stage_corpus() {
    step "DBC corpus"
    local origin
    if [ -n "${CARPLAYD_DBC_CORPUS:-}" ]; then
        DBC_CORPUS="$(abspath "$CARPLAYD_DBC_CORPUS")"
        origin="CARPLAYD_DBC_CORPUS"
    elif [ -d "$REPO_ROOT/../shared/dbc-corpus/cantools-tests" ]; then
        DBC_CORPUS="$REPO_ROOT/../shared/dbc-corpus/cantools-tests"
        origin="../shared/dbc-corpus/cantools-tests beside the repository"
    else
        DBC_CORPUS="$REPO_ROOT/.build/dbc-corpus/cantools-tests"
        download_corpus "$DBC_CORPUS"
        origin="$CORPUS_ORIGIN"
    fi
    [ -d "$DBC_CORPUS" ] || die "DBC corpus directory not found: $DBC_CORPUS (from $origin)"
    DBC_CORPUS="$(cd "$DBC_CORPUS" && pwd)"
    local dbcs=("$DBC_CORPUS"/*.dbc)
    [ -f "${dbcs[0]}" ] || die "no .dbc files in $DBC_CORPUS (from $origin)"
    export CARPLAYD_DBC_CORPUS="$DBC_CORPUS"  # for swift test
    echo "DBC corpus: ${#dbcs[@]} files in $DBC_CORPUS ($origin)"
}

need_corpus() { if [ -z "$DBC_CORPUS" ]; then stage_corpus; fi; }

# download_corpus DIR: fills DIR with the listed files of cantools' sdist, checked against
# their SHA-256; a DIR that already checks out is reused. Sets CORPUS_ORIGIN.
download_corpus() {
    local dest="$1" cache sdist tmp try fetched="downloaded earlier"
    cache="$(dirname "$dest")"
    if [ -d "$dest" ] && (cd "$dest" && sha256sum --check --strict --quiet "$CORPUS_SUMS") >/dev/null 2>&1; then
        CORPUS_ORIGIN="$CANTOOLS_SDIST's sdist, unpacked earlier into ${cache#"$REPO_ROOT"/}"
        return
    fi
    [ -x "$PY" ] || die "no $PY to download the DBC corpus with (run scripts/bootstrap.sh)"
    mkdir -p "$cache"
    sdist="$cache/cantools-${CANTOOLS_SDIST#*==}.tar.gz"
    if [ ! -f "$sdist" ]; then
        fetched="downloaded from PyPI now"
        # pip, not a URL: the venv's index settings (mirror, proxy, certificates) apply.
        for try in 1 2; do
            echo "downloading $CANTOOLS_SDIST's sdist into ${cache#"$REPO_ROOT"/} (try $try of 2)"
            if "$PY" -m pip download --disable-pip-version-check --quiet --no-binary :all: --no-deps \
                    --dest "$cache" "$CANTOOLS_SDIST" && [ -f "$sdist" ]; then
                break
            fi
            [ "$try" = 2 ] && die "could not download $CANTOOLS_SDIST's sdist (the DBC corpus) from PyPI with $PY -m pip, twice; or set CARPLAYD_DBC_CORPUS to a directory with the files ${CORPUS_SUMS#"$REPO_ROOT"/} lists"
            sleep 5
        done
    fi
    tmp="$(mktemp -d "$cache/extract.XXXXXX")"
    local files="cantools-${CANTOOLS_SDIST#*==}/tests/files/dbc"
    if ! tar -xzf "$sdist" -C "$tmp" "$files"; then
        rm -rf "$tmp" "$sdist"  # a broken download: fetched again next time
        die "could not extract $files from $sdist (removed; run again to download it again)"
    fi
    mkdir "$tmp/cantools-tests"
    local name
    while read -r _ name; do
        cp "$tmp/$files/$name" "$tmp/cantools-tests/" || { rm -rf "$tmp"; die "$sdist has no $files/$name"; }
    done < "$CORPUS_SUMS"
    if ! (cd "$tmp/cantools-tests" && sha256sum --check --strict --quiet "$CORPUS_SUMS"); then
        rm -rf "$tmp" "$sdist"
        die "the DBC files of $sdist differ from ${CORPUS_SUMS#"$REPO_ROOT"/} (the download is removed)"
    fi
    rm -rf "$dest"
    mv "$tmp/cantools-tests" "$dest"
    rm -rf "$tmp"
    CORPUS_ORIGIN="$files of $CANTOOLS_SDIST's sdist ($fetched), in ${cache#"$REPO_ROOT"/}"
}

# The house style (.swift-format) on every Swift file: `swift format format -i -r ...`
# with the same paths mends what this refuses.
SWIFT_FORMAT_PATHS=(Sources Tests Benchmarks Fuzz Plugins Package.swift)

stage_format() {
    step "swift format lint --strict (${SWIFT_FORMAT_PATHS[*]})"
    (cd "$REPO_ROOT" && "$SWIFT" format lint --strict --recursive "${SWIFT_FORMAT_PATHS[@]}") \
        || die "swift format lint: the files above differ from .swift-format's style (mend: swift format format -i -r ${SWIFT_FORMAT_PATHS[*]})"
    echo "swift format lint: $(cd "$REPO_ROOT" && git ls-files '*.swift' | wc -l) files in the house style"
}

stage_build() {
    step "swift build --build-tests (warnings are errors)"
    "$SWIFT" build --build-tests -Xswiftc -warnings-as-errors
}

# ONE release build for every stage that runs release binaries: the package's, `make
# build STATIC=1` (the Swift runtime linked in, in .build/static), with carplay-bench
# (IntegrationTests/daemon's load generator) built the same way beside the programs.
# The daemon tests, the systemd test and the Debian package all run these binaries; the
# optimizer sees the same code as in the run command's dynamic build (scripts/run.sh),
# only the linking differs. The dynamic side is the debug build (stage build), which
# is also the deb tests' control: it must not start where /opt/swift is hidden.
RELEASE_BIN=""

stage_release_build() {
    step "make build STATIC=1 EXTRA_PROGRAMS=carplay-bench (swift build -c release --static-swift-stdlib, warnings are errors, .build/static)"
    make -s build STATIC=1 EXTRA_PROGRAMS=carplay-bench SWIFT="$SWIFT"
    RELEASE_BIN="$("$SWIFT" build -c release --scratch-path "$REPO_ROOT/.build/static" --show-bin-path)"
    local p
    for p in carplayd carplayctl carplay-ecu carplay-bench; do
        [ -x "$RELEASE_BIN/$p" ] || die "release build: no $RELEASE_BIN/$p"
        ! ldd "$RELEASE_BIN/$p" | grep libswiftCore >/dev/null || die "release build: $RELEASE_BIN/$p loads libswiftCore (not static)"
    done
    echo "release binaries: $RELEASE_BIN"
}

# Stages that run the release binaries build them once per run (a full run's release_build
# stage; `--only deb` builds them itself).
need_release_build() { if [ -z "$RELEASE_BIN" ]; then stage_release_build; fi; }

# The deb tests' control: a build that loads the Swift runtime from the toolchain must
# fail to start where /opt/swift is hidden (else the mask hides nothing): this run's
# debug build (IntegrationTests/deb/dynamic-control.sh checks it and fails without it).
dynamic_control() {
    CARPLAYD_DYNAMIC_BIN="$("$SWIFT" build --show-bin-path)/carplayd"
    export CARPLAYD_DYNAMIC_BIN
}

# The package an in-car unit without a Swift toolchain installs (docs/DEPLOY.md), from the
# static release build: lintian, man pages, the binaries from `dpkg -x` with /opt/swift
# masked (IntegrationTests/deb/host.sh). Its test under systemd in the VM is in vm_suites
# (or the deb stage, alone).
PACKAGE_BUILT=0

stage_package() {
    need_release_build
    dynamic_control
    step "Debian package (make deb-files from $RELEASE_BIN; IntegrationTests/deb/host.sh)"
    make -s deb-files STATIC=1 SWIFT="$SWIFT"
    bash "$REPO_ROOT/IntegrationTests/deb/host.sh" | tee -a "$RESULTS"
    PACKAGE_BUILT=1
}

need_package() { if [ "$PACKAGE_BUILT" = 0 ]; then stage_package; fi; }

stage_deb() {
    # The package, then under systemd in a VM of its own with no toolchain in the guest
    # (a full run does this part in vm_suites' one boot).
    need_package
    step "Debian package under systemd in the VM (IntegrationTests/deb/run.sh)"
    bash "$REPO_ROOT/IntegrationTests/deb/run.sh" | tee -a "$RESULTS"
}

stage_golden() {
    need_corpus
    step "golden vectors (cantools) -> $GOLDEN_DIR"
    local dbcs=("$DBC_CORPUS"/*.dbc "$REPO_ROOT"/VehicleProfiles/*/*.dbc)
    rm -rf "$GOLDEN_DIR"
    mkdir -p "$GOLDEN_DIR"
    "$PY" "$REPO_ROOT/IntegrationTests/support/golden/generate_vectors.py" -q \
        --seed "$SEED" --out "$GOLDEN_DIR" "${dbcs[@]}"
    export CARPLAYD_GOLDEN_DIR="$GOLDEN_DIR"
    echo "CARPLAYD_DBC_CORPUS=$CARPLAYD_DBC_CORPUS"
    echo "CARPLAYD_GOLDEN_DIR=$CARPLAYD_GOLDEN_DIR"
}

stage_protection_vectors() {
    # AUTOSAR E2E profiles 1, 2 and 5 protected by the autosar-e2e package, compared
    # frame by frame by FrameProtectionTests (which fails without the file).
    local out="$REPO_ROOT/.build/protection-vectors.json"
    step "protection vectors (autosar-e2e) -> $out"
    rm -f "$out"
    "$PY" "$REPO_ROOT/IntegrationTests/support/protection/vectors.py" --out "$out"
    export CARPLAYD_PROTECTION_VECTORS="$out"
    echo "CARPLAYD_PROTECTION_VECTORS=$CARPLAYD_PROTECTION_VECTORS"
    # Every checksummed message opendbc knows, frames from opendbc's own packer
    # (FrameProtectionTests.OpendbcPackerVectors recomputes each checksum).
    local opendbc="$REPO_ROOT/.build/opendbc-vectors.json"
    rm -f "$opendbc"
    "$PY" "$REPO_ROOT/IntegrationTests/support/protection/opendbc_vectors.py" --out "$opendbc"
    export CARPLAYD_OPENDBC_VECTORS="$opendbc"
    echo "CARPLAYD_OPENDBC_VECTORS=$CARPLAYD_OPENDBC_VECTORS"
}

stage_swift_test() {
    need_corpus
    step "swift test"
    "$SWIFT" test -Xswiftc -warnings-as-errors 2>&1 | tee "$SWIFT_TEST_LOG"
}

stage_decode_cli() {
    # carplayctl dbc decode, whole process, against cantools on generated candump logs.
    local bin
    bin="$("$SWIFT" build --show-bin-path)/carplayctl"
    [ -x "$bin" ] || die "carplayctl not built: $bin"
    need_corpus
    step "carplayctl dbc decode vs cantools"
    local corpus="$DBC_CORPUS" dbc log
    for dbc in "$corpus/motohawk.dbc" "$corpus/multiplex_2.dbc" "$corpus/choices.dbc" \
               "$corpus/signed.dbc" "$corpus/floating_point.dbc" "$corpus/vehicle.dbc" \
               "$REPO_ROOT/VehicleProfiles/suv/suv.dbc"; do  # the suv: CAN FD and 29-bit IDs
        [ -f "$dbc" ] || die "corpus file missing: $dbc"
        log="$REPO_ROOT/.build/golden/$(basename "$dbc" .dbc).log"
        "$PY" "$REPO_ROOT/Benchmarks/codec/make_log.py" --frames 2000 --seed "$SEED" \
            --out "$log" "$dbc"
        "$PY" "$REPO_ROOT/IntegrationTests/support/golden/check_decode_cli.py" --carplayctl "$bin" "$dbc" "$log" \
            | tee -a "$RESULTS"
    done
}

stage_real_dbcs() {
    # The production cars' DBCs are used as published (commaai/opendbc), never edited:
    # each copy, in a vehicle profile (the tests' fixtures use those), must keep the
    # SHA-256 recorded from shared/real-dbc/README.md or, for a file the shared folder
    # does not hold, from the pinned opendbc package (scripts/bootstrap.sh).
    step "real-car DBCs unchanged (VehicleProfiles/SHA256SUMS)"
    local count=0 folder file shared package
    package="$("$PY" -c 'import os, opendbc; print(os.path.join(os.path.dirname(opendbc.__file__), "dbc"))')" \
        || die "the pinned opendbc package is not installed: scripts/bootstrap.sh"
    for folder in "$REPO_ROOT/VehicleProfiles"; do
        (cd "$folder" && sha256sum --check --strict SHA256SUMS) || die "a real-car DBC in $folder differs from its published file"
        count=$((count + $(grep -c . "$folder/SHA256SUMS")))
        while read -r _ file; do
            # Beside the shared folder: the copies are the shared files themselves; the
            # files it does not hold are the opendbc package's.
            shared="$REPO_ROOT/../shared/real-dbc/$(basename "$file")"
            if [ -f "$shared" ]; then
                cmp -s "$folder/$file" "$shared" || die "$folder/$file is not ../shared/real-dbc/$(basename "$file")"
            elif cmp -s "$folder/$file" "$package/$(basename "$file")"; then
                :
            else
                # Taken from an older opendbc commit than the pinned package's (the Toyota
                # is a generator source there, since changed): its recorded SHA-256 stands.
                echo "real-car DBCs: $file: by its SHA-256 only (the pinned opendbc holds another version)"
            fi
        done < "$folder/SHA256SUMS"
    done
    echo "real-car DBCs: $count passed, 0 failed" | tee -a "$RESULTS"
}

stage_opendbc() {
    # Every DBC file of the pinned opendbc package (and its generator's sources, IMPORT
    # forms among them) loads with carplayctl; frames packed by opendbc's own packer
    # decode to the values opendbc's own parser gives and, on every shipped file cantools
    # loads, bit for bit to cantools' values; what is not compared is counted by reason
    # (IntegrationTests/support/opendbc_corpus.py).
    local bin
    bin="$("$SWIFT" build --show-bin-path)/carplayctl"
    step "every opendbc DBC loads; decoding agrees with opendbc's parser and cantools"
    "$PY" "$REPO_ROOT/IntegrationTests/support/opendbc_corpus.py" --carplayctl "$bin" | tee -a "$RESULTS"
    # profile draft on every shipped opendbc DBC; each draft loads again with profile
    # check, and its summary counts what its profile.json binds (~15 s).
    step "every opendbc DBC drafts a profile that profile check loads"
    "$PY" "$REPO_ROOT/IntegrationTests/support/opendbc_drafts.py" --carplayctl "$bin" | tee -a "$RESULTS"
}

stage_intents() {
    # Every intent on every shipped profile, through carplayctl perform --simulate,
    # checked from outside: cantools decodes the command frames with the profile's DBC
    # (per command kind: setpoint, momentary, toggle, step; read-only properties refused),
    # each message's protection is recomputed in Python (IntegrationTests/support/intents/protection.py:
    # the vendor checksums by opendbc's own functions, `declared` from its description; first
    # checked on commaai/opendbc's published and packer-made frames), the state must show
    # the values.
    local bin
    bin="$("$SWIFT" build --show-bin-path)/carplayctl"
    step "every intent on every profile, frames checked with cantools"
    "$PY" "$REPO_ROOT/IntegrationTests/support/intents/protection.py" --self-test | tee -a "$RESULTS"
    local profiles=("$REPO_ROOT"/VehicleProfiles/*/)
    [ -f "${profiles[0]}/profile.json" ] || die "no vehicle profiles in VehicleProfiles/"
    "$PY" "$REPO_ROOT/IntegrationTests/support/intents/check_intents.py" --carplayctl "$bin" "${profiles[@]}" | tee -a "$RESULTS"
}

stage_vss() {
    # carplayd's VSS catalog against COVESA's VSS 5.1 and carplayd's overlay: vss-tools
    # validates the vendored spec with vss/carplayd.vspec (--strict); every path of
    # `carplayctl vss catalog --json` must be a signal of that export with the same
    # datatype and unit (allowed values, min/max within VSS's), and every overlay signal
    # must be used (vss/check.py, vss/README.md). CARPLAYD_BIN_DIR's carplayctl when set.
    local bin
    bin="${CARPLAYD_BIN_DIR:-$("$SWIFT" build --show-bin-path)}/carplayctl"
    [ -x "$bin" ] || die "carplayctl not built: $bin (the build stage makes it; or set CARPLAYD_BIN_DIR)"
    step "VSS 5.1 and carplayd's overlay validated by vss-tools; carplayd's catalog checked against them"
    "$PY" "$REPO_ROOT/vss/check.py" --carplayctl "$bin" | tee -a "$RESULTS"
}

# The fuzz targets' ASan build (Fuzz/build.sh, swiftc outside SwiftPM) needs no other
# stage's output but the sources, and ~2 CPU-minutes. A full run starts it after the last
# SwiftPM build, in the background under SCHED_IDLE (chrt --idle): it gets only CPU time
# that nothing else wants -- the daemon tests, the soak and above all the emulated VM
# leave much of the 2 cores idle -- and hardly slows those timing-bound stages. The
# fuzz stage then waits for it; Fuzz/run.sh builds again in the foreground (incremental:
# nothing left to do, or everything, with its errors shown, if the background build failed).
# The fuzzing itself stays in the foreground: libFuzzer's per-input timeout (-timeout=10)
# is wall time, and a target starved at idle priority reports false timeouts (tried).
FUZZ_BUILD_PID=""
FUZZ_BUILD_LOG="$REPO_ROOT/.build/fuzz-build.log"

stage_fuzz_build() {
    [ "${CARPLAYD_FUZZ_SECONDS:-30}" != 0 ] || return 0
    step "fuzz build (Fuzz/build.sh) started in the background, SCHED_IDLE (log: ${FUZZ_BUILD_LOG#"$REPO_ROOT"/})"
    local idle=(chrt --idle 0)
    "${idle[@]}" true 2>/dev/null || idle=(nice -n 19)
    # setsid: its own process group, ended with the run if the run fails first.
    setsid --wait "${idle[@]}" bash -c 'start=$(date +%s); bash "$1/Fuzz/build.sh"; rc=$?; echo "fuzz build: exit $rc after $(($(date +%s) - start)) s (in the background)"; exit "$rc"' \
        _ "$REPO_ROOT" > "$FUZZ_BUILD_LOG" 2>&1 < /dev/null &
    FUZZ_BUILD_PID=$!
}

stage_fuzz() {
    # libFuzzer + ASan on the parsers of untrusted input, from the seed corpus in Fuzz/corpus;
    # a crash fails the run and leaves the input in .build/fuzz-crashes. Longer runs:
    # Fuzz/run.sh --seconds 3600 (docs/RELIABILITY.md). As many targets at once as there
    # are cores, each for its own $seconds s on a core of its own, as one at a time did.
    local seconds="${CARPLAYD_FUZZ_SECONDS:-30}"
    if [ "$seconds" = 0 ]; then
        step "fuzz targets: skipped (CARPLAYD_FUZZ_SECONDS=0)"
        return
    fi
    if [ -n "$FUZZ_BUILD_PID" ]; then
        step "waiting for the fuzz build started in the background"
        wait "$FUZZ_BUILD_PID" || echo "the background fuzz build failed; Fuzz/run.sh builds again:"
        FUZZ_BUILD_PID=""
        cat "$FUZZ_BUILD_LOG"
    fi
    local cores
    cores="$(nproc 2>/dev/null || echo 1)"
    # A core of its own per target: the VM suites, when they run in the background, take one.
    if [ -n "$VM_SUITES_PID" ] && [ "$cores" -gt 1 ]; then cores=$((cores - 1)); fi
    step "fuzz targets, $seconds s each, $cores at a time (Fuzz/run.sh)"
    bash "$REPO_ROOT/Fuzz/run.sh" --seconds "$seconds" --parallel "$cores" | tee -a "$RESULTS"
}

stage_daemon() {
    # The daemon driven by the Python varlink package and raw sockets: every intent,
    # typed errors, hostile input, persistence, signals. The release build: what users
    # run (and what the systemd test installs and the package ships). The abuse tests
    # put hundreds of greedy clients on the daemon and bound how long a well-behaved one
    # may wait; a debug daemon on a 2-CPU host cannot serve them in time (the debug build
    # is covered by swift test and the soak).
    need_release_build
    step "carplayd end to end (IntegrationTests/daemon, the release binaries)"
    CARPLAYD_BIN="$RELEASE_BIN/carplayd" \
        bash "$REPO_ROOT/IntegrationTests/daemon/run.sh" 2>&1 | tee -a "$RESULTS"
}

stage_kuksa() {
    # carplayd-kuksa (kuksa/) end to end: the release carplayd with its embedded simulated
    # car behind it, kuksa-client from PyPI unmodified as the client -- reads, Subscribe,
    # Actuate confirmed by the car, refusals and the car's faults as gRPC errors, the Unix
    # socket's group and TCP's JWTs (IntegrationTests/kuksa). CARPLAYD_BIN_DIR's carplayd when
    # set (a full run sets it to the release build's once the VM starts), else the release build.
    local bin_dir="${CARPLAYD_BIN_DIR:-}"
    if [ -z "$bin_dir" ]; then
        need_release_build
        bin_dir="$RELEASE_BIN"
    fi
    step "carplayd-kuksa end to end (IntegrationTests/kuksa, carplayd from $bin_dir)"
    CARPLAYD_BIN="$bin_dir/carplayd" \
        bash "$REPO_ROOT/IntegrationTests/kuksa/run.sh" 2>&1 | tee -a "$RESULTS"
}

stage_under_load() {
    # swift test, the daemon and carplayd-kuksa end to end again, with two CPU-bound
    # processes beside them (scripts/load-check.sh): a test that passes only on an idle
    # machine fails here. Before the VM starts, so that the load is the hogs' alone.
    need_release_build
    step "swift test, the daemon and carplayd-kuksa beside two CPU hogs (scripts/load-check.sh)"
    bash "$REPO_ROOT/scripts/load-check.sh" --runs 1 --hogs 2 corpus golden protection_vectors swift_test daemon kuksa | tee -a "$RESULTS"
}

stage_soak() {
    # A short soak of the daemon binary (docs/RELIABILITY.md): 12 clients,
    # random vehicle faults, SIGTERM/SIGKILL restarts; invariants checked as it runs.
    # Its last line "soak: N passed, 0 failed" counts once in the summary.
    step "soak (${CARPLAYD_SOAK_MINUTES:-1.5} min, seed ${CARPLAYD_SOAK_SEED:-1})"
    CARPLAYD_BIN="$("$SWIFT" build --show-bin-path)/carplayd" \
        bash "$REPO_ROOT/IntegrationTests/soak/run.sh" --minutes "${CARPLAYD_SOAK_MINUTES:-1.5}" \
        --seed "${CARPLAYD_SOAK_SEED:-1}" --restart-every 20 2>&1 | tee -a "$RESULTS"
}

stage_vcan() {
    # The system on a real kernel CAN stack: natively where the kernel has vcan,
    # otherwise in a throwaway qemu VM (IntegrationTests/support/vm/run-in-vm.sh); never skipped.
    step "vcan bench (carplayd + carplay-ecu + Python ECU + can-utils on vcan0)"
    CARPLAYD_BIN_DIR="$("$SWIFT" build --show-bin-path)" bash "$REPO_ROOT/IntegrationTests/vcan/run.sh" | tee -a "$RESULTS"
}

stage_systemd() {
    # carplayd deployed as make install does, under systemd 252 as PID 1 in the qemu VM:
    # socket activation, READY/STATUS, journal fields, restart, watchdog, clean stop.
    need_release_build
    step "carplayd under systemd (IntegrationTests/systemd, systemd as PID 1 in the VM)"
    CARPLAYD_RELEASE_BIN_DIR="$RELEASE_BIN" \
        bash "$REPO_ROOT/IntegrationTests/systemd/run.sh" | tee -a "$RESULTS"
}

# The stages of each tier, in order: the quick tier first (a unit failure shows within
# minutes), then what needs the release build, the fuzzer or the VM.
QUICK_STAGES=(bootstrap format corpus build golden protection_vectors swift_test decode_cli real_dbcs opendbc intents vss)
FULL_STAGES=("${QUICK_STAGES[@]}" release_build package under_load vm_suites_start fuzz_build daemon kuksa soak fuzz vm_suites)

# Wall time per stage: printed at each stage's end, and as a table (with the total) at
# the end of the run -- also when a stage fails, for the stages that ran.
RUN_START=$SECONDS
STAGE_TIMES=()
CURRENT_STAGE=""
CURRENT_START=0

duration() {  # duration SECONDS -> "42 s" or "3 min 07 s"
    if [ "$1" -ge 60 ]; then printf '%d min %02d s' $(($1 / 60)) $(($1 % 60)); else printf '%d s' "$1"; fi
}

run_stage() {
    local name="$1" elapsed
    CURRENT_STAGE="$name"
    CURRENT_START=$SECONDS
    "stage_$name"
    elapsed=$((SECONDS - CURRENT_START))
    STAGE_TIMES+=("$name $elapsed")
    CURRENT_STAGE=""
    printf '==> stage %s: %s\n' "$name" "$(duration "$elapsed")"
}

stage_ran() {  # stage_ran NAME: NAME ran to its end in this run
    local entry
    for entry in "${STAGE_TIMES[@]+"${STAGE_TIMES[@]}"}"; do [ "${entry%% *}" = "$1" ] && return 0; done
    return 1
}

print_times() {
    local entry
    echo "stage times (wall):"
    for entry in "${STAGE_TIMES[@]+"${STAGE_TIMES[@]}"}"; do
        printf '  %-20s %s\n' "${entry%% *}" "$(duration "${entry#* }")"
    done
    if [ -n "$CURRENT_STAGE" ]; then
        printf '  %-20s %s (failed)\n' "$CURRENT_STAGE" "$(duration $((SECONDS - CURRENT_START)))"
    fi
    printf '  %-20s %s\n' total "$(duration $((SECONDS - RUN_START)))"
}

on_exit() {
    local rc=$?
    if [ -n "$FUZZ_BUILD_PID" ]; then kill -- -"$FUZZ_BUILD_PID" 2>/dev/null || true; fi
    if [ -n "$VM_SUITES_PID" ]; then kill -- -"$VM_SUITES_PID" 2>/dev/null || true; fi
    if [ "$rc" -ne 0 ] && [ -n "$CURRENT_STAGE" ]; then
        echo "test.sh: stage $CURRENT_STAGE failed (exit $rc)" >&2
        print_times >&2
    fi
}
trap on_exit EXIT

# The VM suites run under emulation for ~7 minutes on one core; a full run starts them in
# the background (vm_suites_start) as soon as the package exists, and runs the daemon
# tests, the soak and the fuzz targets on the other core meanwhile; vm_suites then waits
# for them and prints their results. The VM runs at nice 10: the daemon tests and the
# soak bound how long a client may wait, and must not lose the CPU to the emulator.
VM_SUITES_PID=""
VM_SUITES_LOG="$REPO_ROOT/.build/vm-suites.log"

vm_suites_command() {
    need_release_build
    need_package
    dynamic_control
    # The vcan bench on the release binaries too: what users run, and ~10 % less of the
    # emulated CPU than the debug build (`--only vcan` runs the debug build there; the
    # soak runs it too).
    export CARPLAYD_BIN_DIR="$RELEASE_BIN" CARPLAYD_RELEASE_BIN_DIR="$RELEASE_BIN"
}

stage_vm_suites_start() {
    vm_suites_command
    step "vcan bench, carplayd under systemd and the Debian package in one VM boot, in the background at nice 10 (log: ${VM_SUITES_LOG#"$REPO_ROOT"/})"
    # setsid: its own process group, ended with the run if the run fails first.
    setsid --wait nice -n 10 bash -c 'start=$(date +%s); bash "$1/IntegrationTests/vm-suites/run.sh"; rc=$?; echo "vm-suites: exit $rc after $(($(date +%s) - start)) s (in the background)"; exit "$rc"' \
        _ "$REPO_ROOT" > "$VM_SUITES_LOG" 2>&1 < /dev/null &
    VM_SUITES_PID=$!
}

stage_vm_suites() {
    # The vcan bench, carplayd under systemd and the Debian package under systemd in ONE
    # boot of the systemd VM (IntegrationTests/vm-suites; the vcan bench natively first
    # where the kernel has vcan). Each suite prints its own results; any failure fails.
    if [ -n "$VM_SUITES_PID" ]; then
        step "waiting for the VM suites started in the background"
        local rc=0
        wait "$VM_SUITES_PID" || rc=$?
        VM_SUITES_PID=""
        tee -a "$RESULTS" < "$VM_SUITES_LOG"
        [ "$rc" = 0 ] || die "the VM suites failed (exit $rc; above, and in ${VM_SUITES_LOG#"$REPO_ROOT"/})"
        return
    fi
    vm_suites_command
    step "vcan bench, carplayd under systemd and the Debian package in one VM boot (IntegrationTests/vm-suites)"
    bash "$REPO_ROOT/IntegrationTests/vm-suites/run.sh" | tee -a "$RESULTS"
}

main() {
    mkdir -p "$REPO_ROOT/.build"
    local stages=() stage summary=1
    case "${1:-}" in
        --only)
            shift
            [ $# -gt 0 ] || die "--only needs at least one stage name"
            stages=("$@")
            summary=0 ;;
        --quick)
            [ $# -eq 1 ] || die "--quick takes no other argument"
            stages=("${QUICK_STAGES[@]}") ;;
        "")
            stages=("${FULL_STAGES[@]}") ;;
        *)
            die "unknown argument: $1 (scripts/test.sh [--quick | --only STAGE...])" ;;
    esac
    for stage in "${stages[@]}"; do declare -F "stage_$stage" >/dev/null || die "no stage '$stage' (see the header of $0)"; done
    [ "$summary" = 0 ] || : > "$RESULTS"
    for stage in "${stages[@]}"; do run_stage "$stage"; done
    if [ "$summary" = 1 ]; then
        summary
    else
        print_times
    fi
}

# One closing line for the whole run: swift-testing's test count (when swift_test ran)
# plus each decode-CLI comparison plus pytest's passed tests (every stage has already
# failed the run on any failure). The stage times come just before it: the count stays
# alone on the last line, where CI reads it.
summary() {
    local swift_tests=0 cli_runs
    if stage_ran swift_test; then
        swift_tests="$(sed -n 's/.*Test run with \([0-9]*\) tests.* passed.*/\1/p' "$SWIFT_TEST_LOG" | tail -n 1)"
        [ -n "$swift_tests" ] || die "could not find swift test's result line"
    fi
    # Intent scenarios count one each; a decode-CLI comparison of a whole log counts once;
    # pytest's closing line ("52 passed, 1 xfailed in 4.10s") counts its passed tests.
    cli_runs="$(awk '
        /^[0-9]+ passed, 0 failed$/ { total += $1 }
        /^.+: [0-9]+ passed, 0 failed$/ { total += 1 }
        /^(=+ )?([0-9]+ [a-z]+, )*[0-9]+ passed(, [0-9]+ [a-z]+)* in [0-9.]+s( \([0-9:]+\))?( =+)?$/ {
            for (i = 1; i < NF; i++) if ($(i + 1) ~ /^passed,?$/) { total += $i; break }
        }
        END { print total + 0 }' "$RESULTS")"
    step "all stages passed"
    print_times
    echo "$((swift_tests + cli_runs)) passed, 0 failed"
}

main "$@"

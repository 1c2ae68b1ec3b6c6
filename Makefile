# carplayd: build and install (docs/SYSTEMD.md).
#
#   make                     release build of carplayd, carplayctl, carplay-ecu
#   make install             build, then install under $(DESTDIR)$(PREFIX)
#   make install-files       install without building (binaries from $(BIN_SRC))
#   make uninstall
#   make install-kuksa       carplayd-kuksa (docs/KUKSA.md): its files and unit, and a venv
#                            of its own with kuksa/requirements.txt (pip; KUKSA_PIP_FLAGS)
#   make uninstall-kuksa
#   make build STATIC=1      the same, the Swift runtime linked in (no toolchain needed
#                            where it runs), in .build/static (docs/DEPLOY.md)
#   make build EXTRA_PROGRAMS=carplay-bench   more products, built with the same flags
#                            (scripts/test.sh: the daemon tests' load generator)
#   make deb                 STATIC=1 build, then carplayd_$(VERSION)_ARCH.deb in .build/deb
#   make deb-files           the package without building (binaries from $(BIN_SRC))
#   make man                 the man pages, from man/*.in and the programs' --help
#   make version             the version: CarplaydVersion.current (the one place it is written)
#
# PREFIX=/usr (a Debian package) puts the units in /lib/systemd/system and the
# sysusers.d/tmpfiles.d snippets in /usr/lib; PREFIX=/usr/local (default) keeps
# everything under /usr/local, where systemd also looks. The config example
# always goes to $(DESTDIR)/etc/carplayd. After installing on a live system:
#   systemd-sysusers carplayd.conf && systemctl daemon-reload
#   systemctl enable --now carplayd.socket

PREFIX      ?= /usr/local
DESTDIR     ?=
SWIFT       ?= swift
SWIFT_FLAGS ?= -Xswiftc -warnings-as-errors
# STATIC=1: --static-swift-stdlib, in a scratch path of its own (switching flags in one
# build folder would rebuild everything each time).
STATIC      ?= 0
ifeq ($(STATIC),1)
SCRATCH     ?= .build/static
override SWIFT_FLAGS += --static-swift-stdlib -Xlinker -z -Xlinker now
endif
SCRATCH     ?=
# The version is written once, as CarplaydVersion.current (carplayd --version, Varlink GetInfo).
VERSION     := $(shell sed -n 's/^ *public static let current = "\([^"]*\)".*/\1/p' Sources/CarplaydProduct/CarplaydVersion.swift)
DEB_ARCH    ?= $(shell dpkg --print-architecture 2>/dev/null)
DEB_DIR     ?= .build/deb
BINDIR      ?= $(PREFIX)/bin
DATADIR     ?= $(PREFIX)/share/carplayd
DOCDIR      ?= $(PREFIX)/share/doc/carplayd
SYSCONFDIR  ?= /etc
ifeq ($(PREFIX),/usr)
UNITDIR     ?= /lib/systemd/system
LIBDIR_SD   ?= /usr/lib
else
UNITDIR     ?= $(PREFIX)/lib/systemd/system
LIBDIR_SD   ?= $(PREFIX)/lib
endif
SYSUSERSDIR ?= $(LIBDIR_SD)/sysusers.d
NETWORKDIR  ?= $(LIBDIR_SD)/systemd/network
# carplayd-kuksa: the program, its package, KUKSA's protos and its venv live together.
KUKSADIR    ?= $(PREFIX)/lib/carplayd-kuksa
# Debian's: the service runs as its own user, who cannot reach a python under /root (pyenv).
KUKSA_PYTHON ?= /usr/bin/python3
KUKSA_PIP_FLAGS ?=

PROGRAMS = carplayd carplayctl carplay-ecu
# Built by `make build` too, not installed.
EXTRA_PROGRAMS ?=
UNITS    = carplayd.service carplayd.socket carplayd@.service carplay-ecu@.service
SCRATCH_FLAG = $(if $(SCRATCH),--scratch-path $(SCRATCH))
BIN_SRC ?= $(shell $(SWIFT) build -c release $(SCRATCH_FLAG) --show-bin-path 2>/dev/null)

INSTALL ?= install

.PHONY: all build install install-files uninstall install-kuksa uninstall-kuksa deb deb-files man version

all: build

build:
	for p in $(PROGRAMS) $(EXTRA_PROGRAMS); do $(SWIFT) build -c release $(SCRATCH_FLAG) --product $$p $(SWIFT_FLAGS) || exit 1; done

install: build
	$(MAKE) install-files

# Units name /usr/bin and /usr/share/carplayd; they are rewritten to BINDIR and DATADIR.
install-files:
	@for p in $(PROGRAMS); do test -x "$(BIN_SRC)/$$p" || { echo "make: $(BIN_SRC)/$$p missing: run make build (or give BIN_SRC=)" >&2; exit 1; }; done
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSUSERSDIR) $(DESTDIR)$(NETWORKDIR) \
	    $(DESTDIR)$(DATADIR)/VehicleProfiles $(DESTDIR)$(DOCDIR) $(DESTDIR)$(SYSCONFDIR)/carplayd
	for p in $(PROGRAMS); do $(INSTALL) -m 0755 "$(BIN_SRC)/$$p" $(DESTDIR)$(BINDIR)/$$p || exit 1; done
	for u in $(UNITS); do \
	    sed -e 's|/usr/bin/|$(BINDIR)/|g' -e 's|/usr/share/carplayd/|$(DATADIR)/|g' -e 's|/usr/share/doc/carplayd/|$(DOCDIR)/|g' \
	        Systemd/$$u > $(DESTDIR)$(UNITDIR)/$$u && chmod 0644 $(DESTDIR)$(UNITDIR)/$$u || exit 1; done
	$(INSTALL) -m 0644 Systemd/carplayd.sysusers $(DESTDIR)$(SYSUSERSDIR)/carplayd.conf
	$(INSTALL) -m 0644 Systemd/80-vcan0.netdev Systemd/80-vcan0.network $(DESTDIR)$(NETWORKDIR)/
	for d in VehicleProfiles/*/; do \
	    n=$$(basename $$d); $(INSTALL) -d $(DESTDIR)$(DATADIR)/VehicleProfiles/$$n && \
	    $(INSTALL) -m 0644 $$d* $(DESTDIR)$(DATADIR)/VehicleProfiles/$$n/ || exit 1; done
	$(INSTALL) -m 0644 Systemd/carplayd.conf.example $(DESTDIR)$(SYSCONFDIR)/carplayd/carplayd.conf.example
	$(INSTALL) -m 0644 README.md docs/*.md docs/*.varlink $(DESTDIR)$(DOCDIR)/

# A venv is not relocatable: it is made where it will run, $(DESTDIR)$(KUKSADIR), so a
# DESTDIR other than the final root (a chroot) does not give a working one. The stubs are
# generated here, beside the package, where the unit (ProtectSystem=strict) and a user's
# own instance find them. KUKSA_PIP_FLAGS="--no-index --find-links DIR": from wheels.
install-kuksa:
	$(INSTALL) -d $(DESTDIR)$(KUKSADIR)/carplayd_kuksa $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSUSERSDIR) $(DESTDIR)$(DOCDIR)
	$(INSTALL) -m 0755 kuksa/carplayd-kuksa $(DESTDIR)$(KUKSADIR)/carplayd-kuksa
	$(INSTALL) -m 0644 kuksa/requirements.txt $(DESTDIR)$(KUKSADIR)/requirements.txt
	$(INSTALL) -m 0644 kuksa/carplayd_kuksa/*.py $(DESTDIR)$(KUKSADIR)/carplayd_kuksa/
	cd kuksa && find proto -type f | while read -r f; do $(INSTALL) -D -m 0644 "$$f" "$(DESTDIR)$(KUKSADIR)/$$f" || exit 1; done
	rm -rf $(DESTDIR)$(KUKSADIR)/venv $(DESTDIR)$(KUKSADIR)/.stubs
	$(KUKSA_PYTHON) -m venv $(DESTDIR)$(KUKSADIR)/venv
	$(DESTDIR)$(KUKSADIR)/venv/bin/python -m pip install --disable-pip-version-check --quiet $(KUKSA_PIP_FLAGS) \
	    -r kuksa/requirements.txt
	env -u CARPLAYD_KUKSA_STUBS -u CACHE_DIRECTORY PYTHONDONTWRITEBYTECODE=1 \
	    $(DESTDIR)$(KUKSADIR)/venv/bin/python $(DESTDIR)$(KUKSADIR)/carplayd-kuksa --generate-stubs
	sed -e 's|/usr/lib/carplayd-kuksa/|$(KUKSADIR)/|g' -e 's|/usr/share/doc/carplayd/|$(DOCDIR)/|g' \
	    Systemd/carplayd-kuksa.service > $(DESTDIR)$(UNITDIR)/carplayd-kuksa.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/carplayd-kuksa.service
	$(INSTALL) -m 0644 Systemd/carplayd-kuksa.sysusers $(DESTDIR)$(SYSUSERSDIR)/carplayd-kuksa.conf
	$(INSTALL) -m 0644 docs/KUKSA.md $(DESTDIR)$(DOCDIR)/

uninstall-kuksa:
	rm -rf $(DESTDIR)$(KUKSADIR)
	rm -f $(DESTDIR)$(UNITDIR)/carplayd-kuksa.service $(DESTDIR)$(SYSUSERSDIR)/carplayd-kuksa.conf

version:
	@echo $(VERSION)

# The package is always of the STATIC=1 binaries.
deb:
	$(MAKE) build STATIC=1
	$(MAKE) deb-files STATIC=1

deb-files:
	MAKE="$(MAKE)" packaging/deb/build.sh "$(BIN_SRC)" "$(VERSION)" "$(DEB_ARCH)" "$(DEB_DIR)"

man:
	@mkdir -p $(DEB_DIR)/man
	for t in man/*.in; do scripts/manpage.sh $$t "$(BIN_SRC)" "$(VERSION)" "$$(date -u +%Y-%m-%d)" > $(DEB_DIR)/man/$$(basename $$t .in) || exit 1; done

uninstall:
	for p in $(PROGRAMS); do rm -f $(DESTDIR)$(BINDIR)/$$p; done
	for u in $(UNITS); do rm -f $(DESTDIR)$(UNITDIR)/$$u; done
	rm -f $(DESTDIR)$(SYSUSERSDIR)/carplayd.conf $(DESTDIR)$(NETWORKDIR)/80-vcan0.netdev $(DESTDIR)$(NETWORKDIR)/80-vcan0.network
	rm -rf $(DESTDIR)$(DATADIR) $(DESTDIR)$(DOCDIR)
	rm -f $(DESTDIR)$(SYSCONFDIR)/carplayd/carplayd.conf.example
	-rmdir $(DESTDIR)$(SYSCONFDIR)/carplayd 2>/dev/null

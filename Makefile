# SPDX-License-Identifier: GPL-2.0
#
# ibpost top-level Makefile.
#   make                 module/ibpost.ko, module/blk/ibpost_blk.ko and
#                        tools/ibpost/ibpost for the running kernel
#   make KDIR=...        build the modules against another kbuild tree
#   make IBPOST_TESTS=y  the test build: also the test modules (kunit/) and
#                        ibpost.ko's test hooks (never installed by default)
#   make install         modules (+ depmod), the in-kernel API's headers and
#                        Module.symvers, and install-tool's; DESTDIR=,
#                        PREFIX= (/usr/local), INSTALL_TESTS=1 also
#                        installs the test modules
#   make install-tool    the tool, its man page and bash completion, the udev
#                        rule of /dev/ibpost (group rdma, UDEVRULESDIR=) and
#                        the sysusers.d file that creates the group
#                        (SYSUSERSDIR=), the systemd units (SYSTEMDUNITDIR=),
#                        the documentation and the example /etc/ibpost files
#                        (DOCDIR, DOCDIR/examples)
#   make install-headers the in-kernel API's headers (INCLUDEDIR/ibpost)
#   make uninstall       remove what 'make install' installed
#   make deb             the Debian packages ibpost and ibpost-dkms, built
#                        from a copy of the tree in build/deb (unsigned)
#   make dkms            install the sources into /usr/src/ibpost-VERSION and
#                        dkms add, build and install them for KVER
#   make check           everything: build, KUnit, integration (both kernels)
#   make check-long      the same plus the long rows (siw: bad inputs,
#                        hardening, sessions) and the packages installed
#                        in two Debian 12 guests that boot systemd
#   make demo            boot a stock-kernel guest and show what ibpost sees
#
# The test rig (tools/check.sh, bench.sh, demo.sh) builds for Debian's stock
# kernel and passes KDIR= itself (tools/rig/kver.sh).
include version.mk

KVER ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KVER)/build
# The release of the kernel KDIR builds for (its /lib/modules directory):
# UTS_RELEASE, as Debian's headers have the upstream version in
# include/config/kernel.release (6.1.192 for 6.1.0-57-amd64).
KREL = $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"/\1/p' \
	$(KDIR)/include/generated/utsrelease.h 2>/dev/null)

PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
INCLUDEDIR ?= $(PREFIX)/include
LIBDIR ?= $(PREFIX)/lib
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
# udev, systemd and systemd-sysusers read /usr/lib's directories (and
# /etc's), not PREFIX's; /usr/lib on a merged-/usr system (Debian 12) and
# on a split one alike.
UDEVRULESDIR ?= /usr/lib/udev/rules.d
SYSTEMDUNITDIR ?= /usr/lib/systemd/system
SYSUSERSDIR ?= /usr/lib/sysusers.d
DOCDIR ?= $(PREFIX)/share/doc/ibpost
# The documentation (DOCDIR): the udev rule and the units point at it.
DOCS := README.md $(wildcard Documentation/*.rst)
# The services (tools/systemd): their units name the tool's SBINDIR.
UNITS := ibpost-serve.service ibpost-blk.service
EXAMPLES := serve.conf blk.conf
# External modules go to /lib/modules/KREL/$(INSTALL_MOD_DIR) (kbuild's).
INSTALL_MOD_DIR ?= extra
INSTALL_TESTS ?= 0
# IBPOST_TESTS=y: the test build, the test modules (kunit/) and ibpost.ko's
# test hooks (module parameters that inject faults, Kbuild): make check
# and make demo build it; by default the product is built, without them.
# INSTALL_TESTS=1 installs the test build.
ifeq ($(INSTALL_TESTS),1)
override IBPOST_TESTS := y
endif
IBPOST_TESTS ?= n
export IBPOST_TESTS
# INSTALL_SIGN=y signs the modules with the key KDIR's configuration names
# (unsigned modules load and taint the kernel where signatures are not
# enforced; DKMS signs with its own key).
INSTALL_SIGN ?=
DKMS_SRC ?= /usr/src/ibpost-$(IBPOST_VERSION)
DKMS ?= dkms
DEPMOD ?= /sbin/depmod
# What a DKMS source tree holds: the modules' sources and their build files.
# The license: each file's SPDX line (the package's copyright file has the
# text).
DKMS_FILES := Makefile Kbuild version.mk VERSION dkms.conf include module

.PHONY: all modules tool clean check check-long demo deps testkernel \
	checkpatch sparse bench install install-tool install-headers uninstall \
	dkms dkms-src kdir deb

all: modules tool

kdir:
	@test -f "$(KDIR)/Makefile" -a -n "$(KREL)" || { \
		echo "ibpost: no kernel build tree at '$(KDIR)'." >&2; \
		echo "ibpost: install the headers of kernel $(KVER) (Debian: apt-get install linux-headers-$(KVER))" >&2; \
		echo "ibpost: or build for another kernel with KDIR=/path/to/kbuild (the rig: KDIR=\$$(tools/rig/kver.sh --kdir))" >&2; \
		exit 1; }

modules: kdir
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

tool:
	$(MAKE) -C tools/ibpost

clean:
	-test -f "$(KDIR)/Makefile" && $(MAKE) -C $(KDIR) M=$(CURDIR) clean
	if [ -d tools/ibpost ]; then $(MAKE) -C tools/ibpost clean; fi

# kbuild's modules_install skips depmod without a System.map (Debian's
# headers have none): depmod runs here (into DESTDIR: without the kernel's
# modules.order and modules.builtin, which it need not warn about).  Test modules (kunit/: the
# KUnit suites and ibpost_consumer.ko) only with INSTALL_TESTS=1: kbuild
# installs what the modules.order it is given lists.
install: all install-tool install-headers
	@mkdir -p build
	@if [ "$(INSTALL_TESTS)" = 1 ]; then cp modules.order build/install.order; \
	else grep -v '/kunit/' modules.order >build/install.order; fi
	$(MAKE) -C $(KDIR) M=$(CURDIR) MODORDER=$(CURDIR)/build/install.order \
		INSTALL_MOD_PATH=$(DESTDIR) INSTALL_MOD_DIR=$(INSTALL_MOD_DIR) \
		KERNELRELEASE=$(KREL) CONFIG_MODULE_SIG_ALL=$(INSTALL_SIGN) \
		modules_install
	@$(DEPMOD) -b "$(or $(DESTDIR),/)" $(KREL) 2>build/depmod.err; rc=$$?; \
		grep -v 'could not open modules\.' build/depmod.err >&2; exit $$rc
	install -D -m 0644 Module.symvers \
		$(DESTDIR)$(LIBDIR)/ibpost/$(KREL)/Module.symvers

# The in-kernel API for consumer drivers (include/ibpost.h includes
# <uapi/ibpost.h>: -I INCLUDEDIR/ibpost finds both); the package
# ibpost-dev's files (debian/rules).
install-headers:
	install -D -m 0644 include/ibpost.h $(DESTDIR)$(INCLUDEDIR)/ibpost/ibpost.h
	install -D -m 0644 include/uapi/ibpost.h \
		$(DESTDIR)$(INCLUDEDIR)/ibpost/uapi/ibpost.h

# What the package 'ibpost' holds (debian/rules): no module, no header.
install-tool: tool
	install -D -m 0755 tools/ibpost/ibpost $(DESTDIR)$(SBINDIR)/ibpost
	install -d $(DESTDIR)$(MANDIR)/man8
	sed 's/@VERSION@/$(IBPOST_VERSION)/' Documentation/ibpost.8 \
		>$(DESTDIR)$(MANDIR)/man8/ibpost.8
	chmod 0644 $(DESTDIR)$(MANDIR)/man8/ibpost.8
	install -D -m 0644 tools/ibpost/ibpost.bash $(DESTDIR)$(BASHCOMPDIR)/ibpost
	install -D -m 0644 tools/udev/60-ibpost.rules \
		$(DESTDIR)$(UDEVRULESDIR)/60-ibpost.rules
	install -D -m 0644 tools/udev/sysusers.conf \
		$(DESTDIR)$(SYSUSERSDIR)/ibpost.conf
	install -d $(DESTDIR)$(SYSTEMDUNITDIR) $(DESTDIR)$(DOCDIR)/examples
	install -m 0644 $(DOCS) $(DESTDIR)$(DOCDIR)/
	@if [ -z "$(DESTDIR)" ] && command -v systemd-sysusers >/dev/null; then \
		echo systemd-sysusers $(SYSUSERSDIR)/ibpost.conf; \
		systemd-sysusers $(SYSUSERSDIR)/ibpost.conf; fi
	for u in $(UNITS); do \
		sed 's|@SBINDIR@|$(SBINDIR)|g' tools/systemd/$$u.in \
			>$(DESTDIR)$(SYSTEMDUNITDIR)/$$u && \
		chmod 0644 $(DESTDIR)$(SYSTEMDUNITDIR)/$$u || exit 1; \
	done
	for e in $(EXAMPLES); do \
		install -m 0644 tools/systemd/$$e $(DESTDIR)$(DOCDIR)/examples/$$e || exit 1; \
	done

uninstall: kdir
	rm -f $(addprefix $(DESTDIR)/lib/modules/$(KREL)/$(INSTALL_MOD_DIR)/, \
		module/ibpost.ko module/blk/ibpost_blk.ko)
	rm -rf $(DESTDIR)/lib/modules/$(KREL)/$(INSTALL_MOD_DIR)/kunit
	-rmdir $(DESTDIR)/lib/modules/$(KREL)/$(INSTALL_MOD_DIR)/module/blk \
		$(DESTDIR)/lib/modules/$(KREL)/$(INSTALL_MOD_DIR)/module
	-$(DEPMOD) -b "$(or $(DESTDIR),/)" $(KREL)
	rm -f $(DESTDIR)$(SBINDIR)/ibpost $(DESTDIR)$(MANDIR)/man8/ibpost.8 \
		$(DESTDIR)$(BASHCOMPDIR)/ibpost \
		$(DESTDIR)$(UDEVRULESDIR)/60-ibpost.rules \
		$(DESTDIR)$(SYSUSERSDIR)/ibpost.conf \
		$(addprefix $(DESTDIR)$(SYSTEMDUNITDIR)/,$(UNITS)) \
		$(addprefix $(DESTDIR)$(DOCDIR)/,$(notdir $(DOCS))) \
		$(addprefix $(DESTDIR)$(DOCDIR)/examples/,$(EXAMPLES)) \
		$(DESTDIR)$(INCLUDEDIR)/ibpost/ibpost.h \
		$(DESTDIR)$(INCLUDEDIR)/ibpost/uapi/ibpost.h \
		$(DESTDIR)$(LIBDIR)/ibpost/$(KREL)/Module.symvers
	-rmdir $(DESTDIR)$(DOCDIR)/examples $(DESTDIR)$(DOCDIR)
	-rmdir $(DESTDIR)$(INCLUDEDIR)/ibpost/uapi $(DESTDIR)$(INCLUDEDIR)/ibpost \
		$(DESTDIR)$(LIBDIR)/ibpost/$(KREL) $(DESTDIR)$(LIBDIR)/ibpost

# The module sources as DKMS wants them (dkms.conf at the top).
dkms-src:
	rm -rf $(DESTDIR)$(DKMS_SRC)
	mkdir -p $(DESTDIR)$(DKMS_SRC)
	cp -r $(DKMS_FILES) $(DESTDIR)$(DKMS_SRC)/
	-cd $(DESTDIR)$(DKMS_SRC) && rm -f modules.order Module.symvers && \
		find . \( -name '*.o' -o -name '*.ko' -o -name '*.mod' -o \
		-name '*.mod.c' -o -name '.*.cmd' -o -name '*.d' -o -name modules.order \) -delete; \
		rm -rf module/compat/generated

dkms: dkms-src
	$(DKMS) add ibpost/$(IBPOST_VERSION)
	$(DKMS) build ibpost/$(IBPOST_VERSION) -k $(KREL)
	$(DKMS) install ibpost/$(IBPOST_VERSION) -k $(KREL)

# The Debian packages (debian/): a copy of the tree's files (git's, with
# changes not yet committed; build products left out) in
# build/deb/ibpost-VERSION, built there; the .debs land in build/deb.
DEB_DIR := build/deb
deb:
	rm -rf $(DEB_DIR)
	tools/rig/copy-tree.sh $(DEB_DIR)/ibpost-$(IBPOST_VERSION)
	cd $(DEB_DIR)/ibpost-$(IBPOST_VERSION) && \
		dpkg-buildpackage -us -uc -b >../build.log 2>&1 || \
		{ tail -n 20 ../build.log >&2; exit 1; }
	ls $(DEB_DIR)/*.deb

deps:
	tools/rig/deps.sh

testkernel: deps
	tools/rig/testkernel.sh

check:
	tools/check.sh

check-long:
	IBPOST_CHECK_LONG=1 tools/check.sh

demo:
	tools/demo.sh

checkpatch:
	tools/checkpatch.sh

sparse: kdir
	$(MAKE) -C $(KDIR) M=$(CURDIR) C=2 modules

bench:
	tools/bench.sh

# SPDX-License-Identifier: GPL-2.0
#
# ibpost top-level Makefile.
#   make                 module/ibpost.ko and tools/ibpost/ibpost (stock kernel)
#   make KDIR=...        build the module against another kbuild tree
#   make check           everything: build, KUnit, integration (both kernels)
#   make check-long      the same plus the long rows (siw: bad inputs,
#                        hardening, sessions)
#   make demo            boot a stock-kernel guest and show what ibpost sees
#
KVER ?= $(shell tools/rig/kver.sh 2>/dev/null)
KDIR ?= /lib/modules/$(KVER)/build

.PHONY: all modules tool clean check check-long demo deps testkernel checkpatch sparse bench

all: modules tool

modules:
	@test -d "$(KDIR)" || { echo "ibpost: no kbuild tree at '$(KDIR)'; run 'make deps' or set KDIR=" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

tool:
	$(MAKE) -C tools/ibpost

clean:
	-test -d "$(KDIR)" && $(MAKE) -C $(KDIR) M=$(CURDIR) clean
	$(MAKE) -C tools/ibpost clean

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

sparse:
	$(MAKE) -C $(KDIR) M=$(CURDIR) C=2 modules

bench:
	tools/bench.sh

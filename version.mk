# SPDX-License-Identifier: GPL-2.0
# The one version of ibpost (ibpost.ko, ibpost_blk.ko, the tool, DKMS):
# the first line of VERSION beside this file.  Included by the Makefile,
# the Kbuild files and tools/ibpost/Makefile.
ibpost-topdir := $(dir $(lastword $(MAKEFILE_LIST)))
IBPOST_VERSION := $(shell head -n 1 $(ibpost-topdir)VERSION 2>/dev/null)
ifeq ($(IBPOST_VERSION),)
$(error ibpost: no version in $(ibpost-topdir)VERSION)
endif

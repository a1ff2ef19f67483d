/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibpost: the kernel compatibility layer (mm, tracing, driver core).
 *
 * The code is written in the newest kernel API; what an older kernel
 * lacks is bridged here, decided by the build's probes (probe.sh writes
 * generated/compat-features.h: IBPOST_HAVE_<probe> for each probe of
 * probes/ that compiles).  No kernel version numbers: a feature is there
 * or not.  Each wrapper names the kernel change it bridges.  The block
 * layer's are in compat-blk.h.
 */
#ifndef _IBPOST_COMPAT_H
#define _IBPOST_COMPAT_H

#include <linux/device.h>
#include <linux/log2.h>
#include <linux/mmzone.h>

#include "generated/compat-features.h"

/*
 * 6.8 renamed MAX_ORDER (exclusive before 6.4, inclusive since) to
 * MAX_PAGE_ORDER (inclusive); MAX_ORDER_NR_PAGES has been the pages of
 * the largest order all along.
 */
#ifndef IBPOST_HAVE_MAX_PAGE_ORDER
#define MAX_PAGE_ORDER	ilog2(MAX_ORDER_NR_PAGES)
#endif

/*
 * 6.10: __assign_str() takes only the field (it copies the __string()
 * source); before, the source again.
 */
#ifdef IBPOST_HAVE_ASSIGN_STR_ONE_ARG
#define ibpost_compat_assign_str(dst, src)	__assign_str(dst)
#else
#define ibpost_compat_assign_str(dst, src)	__assign_str(dst, src)
#endif

/* 6.4: class_create() lost its module argument. */
static inline struct class *ibpost_compat_class_create(const char *name)
{
#ifdef IBPOST_HAVE_CLASS_CREATE_ONE_ARG
	return class_create(name);
#else
	return class_create(THIS_MODULE, name);
#endif
}

#endif /* _IBPOST_COMPAT_H */

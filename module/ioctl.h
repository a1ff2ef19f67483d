/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibpost: the /dev/ibpost ioctl front.
 */
#ifndef _IBPOST_IOCTL_H
#define _IBPOST_IOCTL_H

#include <linux/fs.h>
#include <uapi/ibpost.h>

/**
 * IBPOST_IOC_RUN_VER1_ALIAS - the IBPOST_IOC_RUN number of tools built
 * from the header of IBPOST_RUN_SIZE_VER1 before its number was fixed.
 *
 * From commit 8ff9aaf (the server's CPU time grew struct ibpost_run to
 * IBPOST_RUN_SIZE_VER1) until the fix, IBPOST_IOC_RUN was _IOWR() of the
 * struct and encoded 888 bytes (0xc378e902) instead of
 * IBPOST_RUN_SIZE_VER0 (0xc358e902).  Such tools are installed: the
 * kernel accepts this number as IBPOST_IOC_RUN, same handler, same
 * first size.  Kernel-only: no tool is to send it.
 */
#define IBPOST_IOC_RUN_VER1_ALIAS	_IOC(_IOC_READ | _IOC_WRITE,	\
					     IBPOST_IOC_MAGIC, 0x02,	\
					     IBPOST_RUN_SIZE_VER1)

long ibpost_ioctl(struct file *file, unsigned int cmd, unsigned long arg);

#endif /* _IBPOST_IOCTL_H */

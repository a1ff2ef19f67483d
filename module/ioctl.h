/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibpost: the /dev/ibpost ioctl front.
 */
#ifndef _IBPOST_IOCTL_H
#define _IBPOST_IOCTL_H

#include <linux/fs.h>

long ibpost_ioctl(struct file *file, unsigned int cmd, unsigned long arg);

#endif /* _IBPOST_IOCTL_H */

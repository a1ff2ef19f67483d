// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost_blk: module start and end.
 *
 * A RAM block device whose backing store is the local region of an ibpost
 * session: I/O is one-sided RDMA READ and WRITE (Documentation/blk.rst).
 * Devices are mapped and unmapped at run time through
 * /sys/class/ibpost-blk/ctl (ctl.c); unloading the module unmaps every
 * device (none can be open: an open device pins the module).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "blk.h"

DEFINE_MUTEX(ibpost_blk_lock);
LIST_HEAD(ibpost_blk_devs);
int ibpost_blk_major;

unsigned int ibpost_blk_io_timeout = 30;
module_param_named(io_timeout, ibpost_blk_io_timeout, uint, 0444);
MODULE_PARM_DESC(io_timeout,
		 "seconds a request may take before the device's session is failed (its I/O then ends with an error), 1 to 600 (default 30)");

static const char *const ibpost_blk_reasons[IBPOST_R_MAX] =
	IBPOST_REASON_TEXTS;

/**
 * ibpost_blk_reason() - the text of an IBPOST_R_* reason.
 * @reason: the code.
 *
 * Return: a constant string.
 */
const char *ibpost_blk_reason(u32 reason)
{
	if (reason >= IBPOST_R_MAX || !ibpost_blk_reasons[reason])
		return "unknown reason";
	return ibpost_blk_reasons[reason];
}

static int __init ibpost_blk_init(void)
{
	int ret;

	if (!ibpost_blk_io_timeout || ibpost_blk_io_timeout > 600) {
		pr_err("io_timeout=%u: 1 to 600 s\n",
		       ibpost_blk_io_timeout);
		return -EINVAL;
	}
	ibpost_blk_major = register_blkdev(0, IBPOST_BLK_NAME);
	if (ibpost_blk_major < 0)
		return ibpost_blk_major;
	ret = ibpost_blk_ctl_init();
	if (ret)
		goto err_blkdev;
	return 0;

err_blkdev:
	unregister_blkdev(ibpost_blk_major, IBPOST_BLK_NAME);
	return ret;
}

static void __exit ibpost_blk_exit(void)
{
	struct ibpost_blk_dev *d, *tmp;

	/* No new maps: the control files go first. */
	ibpost_blk_ctl_exit();
	mutex_lock(&ibpost_blk_lock);
	list_for_each_entry_safe(d, tmp, &ibpost_blk_devs, node)
		ibpost_blk_unmap_dev(d, true);
	mutex_unlock(&ibpost_blk_lock);
	unregister_blkdev(ibpost_blk_major, IBPOST_BLK_NAME);
}

module_init(ibpost_blk_init);
module_exit(ibpost_blk_exit);

MODULE_DESCRIPTION("ibpost_blk: a RAM block device over one-sided RDMA on ibpost sessions");
MODULE_LICENSE("GPL");
MODULE_VERSION(IBPOST_VERSION);

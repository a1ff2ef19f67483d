// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost_blk: module start and end.
 *
 * A RAM block device whose backing store is the local region of an ibpost
 * session: I/O is one-sided RDMA READ and WRITE (Documentation/blk.rst).
 * Devices are mapped and unmapped at run time through
 * /sys/class/ibpost-blk/ctl (ctl.c) or /dev/ibpost-blk (ctlfd.c);
 * unloading the module unmaps every device (none can be open: an open
 * device pins the module).  Calls go down: main.c -> ctlfd.c (a map
 * answered on its own file) -> ctl.c (sysfs control, the map line) ->
 * disk.c (map, unmap, the device list) -> io.c (blk-mq operations, the
 * I/O timeout, reason texts); reconnect.c (a device on a server's memory
 * after its session failed) beside disk.c and io.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "blk.h"

static int __init ibpost_blk_init(void)
{
	int ret;

	if (!ibpost_blk_io_timeout || ibpost_blk_io_timeout > 600) {
		pr_err("io_timeout=%u: 1 to 600 s\n",
		       ibpost_blk_io_timeout);
		return -EINVAL;
	}
	ret = ibpost_blk_disks_init();
	if (ret)
		return ret;
	ret = ibpost_blk_ctl_init();
	if (ret)
		goto disks;
	ret = ibpost_blk_ctlfd_init();
	if (ret)
		goto ctl;
	return 0;
ctl:
	ibpost_blk_ctl_exit();
disks:
	ibpost_blk_disks_exit();
	return ret;
}

static void __exit ibpost_blk_exit(void)
{
	/* No new maps: the control files go first. */
	ibpost_blk_ctlfd_exit();
	ibpost_blk_ctl_exit();
	ibpost_blk_disks_exit();
}

module_init(ibpost_blk_init);
module_exit(ibpost_blk_exit);

MODULE_DESCRIPTION("ibpost_blk: a RAM block device over one-sided RDMA on ibpost sessions");
MODULE_LICENSE("GPL");
MODULE_VERSION(IBPOST_VERSION);

// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: module init/exit and the /dev/ibpost misc device.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>

#include "core/device.h"
#include "core/live.h"
#include "core/pair.h"
#include "file.h"
#include "ioctl.h"
#include "session/session.h"

/*
 * Who may open is the node's mode (0600 root here; the shipped udev rule
 * makes it 0660 group rdma); what an opener may do is checked per ioctl
 * (ibpost_ioctl(): listing devices for anyone who opened the node,
 * running and serving with CAP_SYS_ADMIN), at each call, so that a
 * descriptor a privileged process hands over does not carry its
 * privilege.
 */
static int ibpost_open(struct inode *inode, struct file *file)
{
	/* misc_open() left the miscdevice here; ours is the file's state. */
	return ibpost_file_open(file);
}

static int ibpost_release(struct inode *inode, struct file *file)
{
	ibpost_file_release(file);
	return 0;
}

static const struct file_operations ibpost_fops = {
	.owner		= THIS_MODULE,
	.open		= ibpost_open,
	.release	= ibpost_release,
	.unlocked_ioctl	= ibpost_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= noop_llseek,
};

/*
 * A fixed minor, from the misc range devices.txt reserves for local use
 * (243-254; the dynamic minors are below 128 and above 255), so that the
 * devname alias below lets kmod and devtmpfs create /dev/ibpost before the
 * module is loaded ("kmod static-nodes"), and the first open loads it.
 * Another local driver on the same minor makes misc_register() fail with
 * -EBUSY: the load fails and says so.
 */
#define IBPOST_MISC_MINOR	246

static struct miscdevice ibpost_misc = {
	.minor	= IBPOST_MISC_MINOR,
	.name	= "ibpost",
	.fops	= &ibpost_fops,
	.mode	= 0600,
};

/*
 * The layers register their device listeners before the ib_client (whose
 * registration adds every present device) and drop them after it is gone
 * (its unregistration removes every device): core/cm.c first, so that a
 * device's rdma_cm waits end before its sessions do.
 */
static int __init ibpost_init(void)
{
	int ret;

	ibpost_live_init();
	ibpost_cm_init();
	ret = ibpost_sessions_init();
	if (ret)
		goto err_cm;
	ret = ibpost_devices_init();
	if (ret)
		goto err_listeners;
	ret = misc_register(&ibpost_misc);
	if (ret) {
		pr_err("cannot register /dev/ibpost (misc minor %d): %d\n",
		       IBPOST_MISC_MINOR, ret);
		goto err_devices;
	}
	return 0;

err_devices:
	ibpost_devices_exit();
err_listeners:
	ibpost_sessions_exit();
err_cm:
	ibpost_cm_exit();
	ibpost_live_exit();
	return ret;
}

static void __exit ibpost_exit(void)
{
	misc_deregister(&ibpost_misc);
	ibpost_devices_exit();
	ibpost_sessions_exit();
	ibpost_cm_exit();
	ibpost_live_exit();
}

module_init(ibpost_init);
module_exit(ibpost_exit);

MODULE_DESCRIPTION("ibpost: post RDMA work requests from the kernel, correctly and fast");
MODULE_AUTHOR("The ibpost developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(IBPOST_VERSION);
MODULE_ALIAS_MISCDEV(IBPOST_MISC_MINOR);
MODULE_ALIAS("devname:ibpost");

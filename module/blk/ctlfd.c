// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost_blk: /dev/ibpost-blk, a map whose answer comes back on the
 * writer's own open file, as nvme-fabrics' /dev/nvme-fabrics does
 * (Documentation/blk.rst).
 *
 * The sysfs control's last_result is one for all writers: a tool that
 * writes map_device and then reads last_result gets another writer's
 * answer when two map at once.  Here an open file maps once: write one
 * map_device line (ctl.c parses and maps it), then read "mapped ibpostbN"
 * or "refused: REASON"; the write's errno is the map's.  A read before
 * the write is -ENODATA, a second write -EINVAL.
 *
 * The node is root's (0600), and the opener must hold CAP_SYS_ADMIN, as
 * the sysfs writer must: checked at open, so a file passed to a less
 * privileged process maps for the one who opened it, not for the writer.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "blk.h"

/* A map_device line's bound: its options are far shorter (ctl.c). */
#define IBPOST_BLK_LINE_MAX	1024

/**
 * struct ibpost_blk_ctlfd - one open file of /dev/ibpost-blk.
 * @lock: serializes its write and reads.
 * @done: its one map was tried: @result holds the answer.
 * @result: "mapped ibpostbN" or "refused: REASON", and a newline.
 */
struct ibpost_blk_ctlfd {
	struct mutex lock;
	bool done;
	char result[IBPOST_BLK_RESULT_LEN + 1];
};

static int ibpost_blk_ctlfd_open(struct inode *inode, struct file *file)
{
	struct ibpost_blk_ctlfd *c;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	mutex_init(&c->lock);
	file->private_data = c;
	/*
	 * Not stream_open(): a stream's read gets no offset, and
	 * simple_read_from_buffer() needs one.
	 */
	return nonseekable_open(inode, file);
}

static int ibpost_blk_ctlfd_release(struct inode *inode, struct file *file)
{
	struct ibpost_blk_ctlfd *c = file->private_data;

	mutex_destroy(&c->lock);
	kfree(c);
	return 0;
}

static ssize_t ibpost_blk_ctlfd_write(struct file *file,
				      const char __user *ubuf, size_t count,
				      loff_t *ppos)
{
	struct ibpost_blk_ctlfd *c = file->private_data;
	size_t n;
	char *line;
	int ret;

	if (!count || count > IBPOST_BLK_LINE_MAX)
		return -EINVAL;
	line = memdup_user(ubuf, count);
	if (IS_ERR(line))
		return PTR_ERR(line);
	mutex_lock(&c->lock);
	if (c->done) {
		ret = -EINVAL;
	} else {
		ret = ibpost_blk_ctl_map(line, count, c->result,
					 sizeof(c->result) - 1);
		n = strlen(c->result);
		c->result[n] = '\n';
		c->result[n + 1] = '\0';
		c->done = true;
	}
	mutex_unlock(&c->lock);
	/* resume='s token: a secret. */
	kfree_sensitive(line);
	return ret ? ret : count;
}

static ssize_t ibpost_blk_ctlfd_read(struct file *file, char __user *ubuf,
				     size_t count, loff_t *ppos)
{
	struct ibpost_blk_ctlfd *c = file->private_data;
	ssize_t n = -ENODATA;

	mutex_lock(&c->lock);
	if (c->done)
		n = simple_read_from_buffer(ubuf, count, ppos, c->result,
					    strlen(c->result));
	mutex_unlock(&c->lock);
	return n;
}

static const struct file_operations ibpost_blk_ctlfd_fops = {
	.owner = THIS_MODULE,
	.open = ibpost_blk_ctlfd_open,
	.release = ibpost_blk_ctlfd_release,
	.read = ibpost_blk_ctlfd_read,
	.write = ibpost_blk_ctlfd_write,
};

static struct miscdevice ibpost_blk_ctlfd_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "ibpost-blk",
	.fops = &ibpost_blk_ctlfd_fops,
	.mode = 0600,
};

/**
 * ibpost_blk_ctlfd_init() - create /dev/ibpost-blk.
 *
 * Return: 0 or a negative errno.
 */
int ibpost_blk_ctlfd_init(void)
{
	return misc_register(&ibpost_blk_ctlfd_dev);
}

/**
 * ibpost_blk_ctlfd_exit() - remove /dev/ibpost-blk (no file is open: an
 *	open file pins the module).
 */
void ibpost_blk_ctlfd_exit(void)
{
	misc_deregister(&ibpost_blk_ctlfd_dev);
}

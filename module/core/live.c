// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: /sys/kernel/debug/ibpost/live, what the module holds right now.
 *
 * One line per resource, "name count", read by the hardening tests after
 * each injected fault: pages of buffer slots, fast-registration MRs and
 * active runs must all be back to 0 once the runs ended.  QPs, CQs and the
 * PD are visible through rdma_nl ('rdma resource'); pages and MRs of a
 * kernel ULP are not, hence this file.  Without debugfs it simply does not
 * exist.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "core/live.h"

struct ibpost_live ibpost_live;

static struct dentry *ibpost_debugfs;

static int ibpost_live_show(struct seq_file *m, void *unused)
{
	seq_printf(m, "pages %ld\n", atomic_long_read(&ibpost_live.pages));
	seq_printf(m, "mrs %ld\n", atomic_long_read(&ibpost_live.mrs));
	seq_printf(m, "jobs %ld\n", atomic_long_read(&ibpost_live.jobs));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ibpost_live);

/**
 * ibpost_live_init() - create the debugfs directory and its file.
 *
 * Failure is not an error (debugfs is optional).
 */
void ibpost_live_init(void)
{
	ibpost_debugfs = debugfs_create_dir("ibpost", NULL);
	debugfs_create_file("live", 0400, ibpost_debugfs, NULL,
			    &ibpost_live_fops);
}

/**
 * ibpost_live_dir() - ibpost's debugfs directory, where the layers above
 *	add their files (they are removed with it by ibpost_live_exit()).
 *
 * Return: the directory, or an error pointer debugfs accepts and ignores.
 */
struct dentry *ibpost_live_dir(void)
{
	return ibpost_debugfs;
}

/**
 * ibpost_live_exit() - remove what ibpost_live_init() created.
 */
void ibpost_live_exit(void)
{
	debugfs_remove_recursive(ibpost_debugfs);
}

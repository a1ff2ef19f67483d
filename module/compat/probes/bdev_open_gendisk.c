// SPDX-License-Identifier: GPL-2.0
/*
 * Probe: block_device_operations open takes the gendisk and a blk_mode_t,
 * release only the gendisk (6.5).
 */
#include <linux/blkdev.h>

static int ibpost_probe_open(struct gendisk *disk, blk_mode_t mode)
{
	return 0;
}

static void ibpost_probe_release(struct gendisk *disk)
{
}

const struct block_device_operations ibpost_probe_fops = {
	.open = ibpost_probe_open,
	.release = ibpost_probe_release,
};

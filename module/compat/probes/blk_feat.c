// SPDX-License-Identifier: GPL-2.0
/*
 * Probe: queue features (BLK_FEAT_*) are part of the queue limits, set at
 * allocation (6.11: the QUEUE_FLAG_* of them and the old
 * blk_queue_write_cache() went).
 */
#include <linux/blkdev.h>

void ibpost_probe(struct queue_limits *lim);

void ibpost_probe(struct queue_limits *lim)
{
	lim->features = BLK_FEAT_WRITE_CACHE | BLK_FEAT_ROTATIONAL |
			BLK_FEAT_ADD_RANDOM;
}

// SPDX-License-Identifier: GPL-2.0
/* Probe: blk_mq_alloc_disk() takes the queue limits (6.9). */
#include <linux/blk-mq.h>

struct gendisk *ibpost_probe(struct blk_mq_tag_set *set);

struct gendisk *ibpost_probe(struct blk_mq_tag_set *set)
{
	struct queue_limits lim = { .logical_block_size = 512 };

	return blk_mq_alloc_disk(set, &lim, NULL);
}

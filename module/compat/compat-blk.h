/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibpost: the kernel compatibility layer of the block layer (ibpost_blk).
 *
 * As compat.h: newest API in the code, the older one bridged here by the
 * build's probes, each wrapper naming the kernel change it bridges.
 */
#ifndef _IBPOST_COMPAT_BLK_H
#define _IBPOST_COMPAT_BLK_H

#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/scatterlist.h>

#include "compat.h"

#ifdef IBPOST_HAVE_BDEV_OPEN_GENDISK
#define IBPOST_COMPAT_BDEV_OPEN(open)		open
#define IBPOST_COMPAT_BDEV_RELEASE(release)	release
#define IBPOST_COMPAT_DEFINE_BDEV_OPS(open, release)
#else
/*
 * 6.5: block_device_operations' open takes the gendisk and a blk_mode_t,
 * release only the gendisk; before, open took the block_device, both an
 * fmode_t.  The old ones call the new.
 */
#define blk_mode_t fmode_t
#define IBPOST_COMPAT_BDEV_OPEN(open)		open##_compat
#define IBPOST_COMPAT_BDEV_RELEASE(release)	release##_compat
#define IBPOST_COMPAT_DEFINE_BDEV_OPS(open, release)			\
static int open##_compat(struct block_device *bdev, fmode_t mode)	\
{									\
	return open(bdev->bd_disk, mode);				\
}									\
static void release##_compat(struct gendisk *disk, fmode_t mode)	\
{									\
	release(disk);							\
}
#endif

#ifndef IBPOST_HAVE_BLK_FEAT
/*
 * 6.11: the queue's features are BLK_FEAT_* of its limits; before, queue
 * flags and blk_queue_write_cache().  The bits of those ibpost_blk uses.
 */
#define blk_features_t unsigned int
#define BLK_FEAT_WRITE_CACHE	(1u << 0)
#define BLK_FEAT_FUA		(1u << 1)
#define BLK_FEAT_ROTATIONAL	(1u << 2)
#define BLK_FEAT_ADD_RANDOM	(1u << 3)

/* Before 6.11: @features as queue flags and the write cache setting. */
static inline void ibpost_compat_set_features(struct request_queue *q,
					      blk_features_t features)
{
	blk_queue_write_cache(q, features & BLK_FEAT_WRITE_CACHE,
			      features & BLK_FEAT_FUA);
	if (features & BLK_FEAT_ROTATIONAL)
		blk_queue_flag_clear(QUEUE_FLAG_NONROT, q);
	else
		blk_queue_flag_set(QUEUE_FLAG_NONROT, q);
	if (features & BLK_FEAT_ADD_RANDOM)
		blk_queue_flag_set(QUEUE_FLAG_ADD_RANDOM, q);
	else
		blk_queue_flag_clear(QUEUE_FLAG_ADD_RANDOM, q);
}
#endif

#ifndef IBPOST_HAVE_BLK_MQ_ALLOC_DISK_LIM
/*
 * Before 6.9: the limits by their setters, after allocation.  The fields
 * ibpost_blk sets (a zero one keeps the default): logical and physical
 * block size, io_min, max_hw_sectors, max_segments, chunk_sectors,
 * virt_boundary_mask, max_segment_size.
 */
static inline void ibpost_compat_set_limits(struct request_queue *q,
					    const struct queue_limits *lim)
{
	if (lim->logical_block_size)
		blk_queue_logical_block_size(q, lim->logical_block_size);
	if (lim->physical_block_size)
		blk_queue_physical_block_size(q, lim->physical_block_size);
	if (lim->io_min)
		blk_queue_io_min(q, lim->io_min);
	if (lim->max_hw_sectors)
		blk_queue_max_hw_sectors(q, lim->max_hw_sectors);
	if (lim->max_segments)
		blk_queue_max_segments(q, lim->max_segments);
	if (lim->chunk_sectors)
		blk_queue_chunk_sectors(q, lim->chunk_sectors);
	if (lim->virt_boundary_mask)
		blk_queue_virt_boundary(q, lim->virt_boundary_mask);
	if (lim->max_segment_size)
		blk_queue_max_segment_size(q, lim->max_segment_size);
	if (lim->max_hw_discard_sectors)
		blk_queue_max_discard_sectors(q, lim->max_hw_discard_sectors);
	if (lim->discard_granularity)
		q->limits.discard_granularity = lim->discard_granularity;
	if (lim->max_write_zeroes_sectors)
		blk_queue_max_write_zeroes_sectors(q,
						   lim->max_write_zeroes_sectors);
}
#endif

/**
 * ibpost_compat_blk_mq_alloc_disk() - a disk of @set with @lim and @features.
 * @set: the tag set.
 * @lim: the queue limits (the kernel may adjust them on allocation).
 * @features: BLK_FEAT_* of the queue.
 * @queuedata: the queue's private data.
 *
 * 6.9: blk_mq_alloc_disk() takes the queue limits; 6.11: the features
 * (BLK_FEAT_*) are part of them.  Before, setters after allocation.
 *
 * Context: process context, may sleep.
 * Return: the disk or an ERR_PTR() (a limit the block layer refuses is
 * -EINVAL since 6.9).
 */
static inline struct gendisk *
ibpost_compat_blk_mq_alloc_disk(struct blk_mq_tag_set *set,
				struct queue_limits *lim,
				blk_features_t features, void *queuedata)
{
	struct gendisk *disk;

#ifdef IBPOST_HAVE_BLK_FEAT
	lim->features |= features;
#endif
#ifdef IBPOST_HAVE_BLK_MQ_ALLOC_DISK_LIM
	disk = blk_mq_alloc_disk(set, lim, queuedata);
#else
	disk = blk_mq_alloc_disk(set, queuedata);
	if (!IS_ERR(disk))
		ibpost_compat_set_limits(disk->queue, lim);
#endif
#ifndef IBPOST_HAVE_BLK_FEAT
	if (!IS_ERR(disk))
		ibpost_compat_set_features(disk->queue, features);
#endif
	return disk;
}

/**
 * ibpost_compat_clear_nowait() - the queue does not take REQ_NOWAIT
 *	(blk-mq declares it for every queue, BLOCKING ones included).
 * @q: the disk's queue, not yet added.
 *
 * Return: 0 or queue_limits_commit_update()'s negative errno.
 */
static inline int ibpost_compat_clear_nowait(struct request_queue *q)
{
#ifdef IBPOST_HAVE_BLK_FEAT
	struct queue_limits lim = queue_limits_start_update(q);

	lim.features &= ~BLK_FEAT_NOWAIT;
	return queue_limits_commit_update(q, &lim);
#else
	/* Before 6.11: a queue flag. */
	blk_queue_flag_clear(QUEUE_FLAG_NOWAIT, q);
	return 0;
#endif
}

/*
 * sg_alloc_table_chained() is lib/sg_pool.c's, built only with a driver
 * that selects CONFIG_SG_POOL (SCSI, NVMe: every distribution kernel, not
 * the rig's debug kernel).  Without it a request's whole scatterlist is
 * its pdu's: the caller sizes @first for the most entries
 * (IBPOST_COMPAT_SG_POOL 0), and nothing is allocated or freed.
 */
#if IS_ENABLED(CONFIG_SG_POOL)
#define IBPOST_COMPAT_SG_POOL	1
static inline int ibpost_compat_sg_alloc(struct sg_table *t, int n,
					 struct scatterlist *first,
					 unsigned int nfirst)
{
	return sg_alloc_table_chained(t, n, first, nfirst);
}

static inline void ibpost_compat_sg_free(struct sg_table *t,
					 unsigned int nfirst)
{
	sg_free_table_chained(t, nfirst);
}
#else
#define IBPOST_COMPAT_SG_POOL	0
static inline int ibpost_compat_sg_alloc(struct sg_table *t, int n,
					 struct scatterlist *first,
					 unsigned int nfirst)
{
	if (WARN_ON_ONCE(n > nfirst))
		return -EINVAL;
	sg_init_table(first, n);
	t->sgl = first;
	t->nents = n;
	t->orig_nents = n;
	return 0;
}

static inline void ibpost_compat_sg_free(struct sg_table *t,
					 unsigned int nfirst)
{
}
#endif

#endif /* _IBPOST_COMPAT_BLK_H */

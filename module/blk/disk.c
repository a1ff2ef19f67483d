// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost_blk: mapping and unmapping a device.
 *
 * Mapping opens a session with one queue per hardware queue and a region
 * of the device's size (the backing store: RAM, zeroed, registered in as
 * many MRs as it needs), takes the queue limits from the session's
 * limits, and adds the disk.  The block layer never builds a request that
 * crosses one of the region's MRs: the chunk size is the region's MR size.
 * Unmapping refuses a device that is open (mounted, or held by a process)
 * with -EBUSY, else fails its queues (nothing stuck on a dead path can hold
 * the unmap), deletes the disk, frees the tag set and closes the session,
 * whose region goes with it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/idr.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "blk.h"

DEFINE_MUTEX(ibpost_blk_lock);
LIST_HEAD(ibpost_blk_devs);
int ibpost_blk_major;

static DEFINE_IDA(ibpost_blk_ida);

static int ibpost_blk_open(struct gendisk *disk, blk_mode_t mode)
{
	struct ibpost_blk_dev *d = disk->private_data;
	int ret = 0;

	mutex_lock(&d->lock);
	if (d->removing)
		ret = -ENXIO;
	else
		d->openers++;
	mutex_unlock(&d->lock);
	return ret;
}

static void ibpost_blk_release(struct gendisk *disk)
{
	struct ibpost_blk_dev *d = disk->private_data;

	mutex_lock(&d->lock);
	d->openers--;
	mutex_unlock(&d->lock);
}

IBPOST_COMPAT_DEFINE_BDEV_OPS(ibpost_blk_open, ibpost_blk_release)

const struct block_device_operations ibpost_blk_fops = {
	.owner = THIS_MODULE,
	.open = IBPOST_COMPAT_BDEV_OPEN(ibpost_blk_open),
	.release = IBPOST_COMPAT_BDEV_RELEASE(ibpost_blk_release),
};

/* Refuse a map: the reason into @why. */
static __printf(4, 5) int ibpost_blk_refuse(char *why, size_t len, int err, const char *fmt,
			     ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return err;
}

/*
 * Hardware queues: those asked for, at most one per CPU and one per
 * completion vector of the device (each queue's CQ is on its own vector);
 * loopback or on a server's memory alike.
 */
static u32 ibpost_blk_nr_queues(const struct ibpost_blk_map *m,
				struct ib_device *ibdev)
{
	u32 n = min_t(u32, m->queues, nr_cpu_ids);

	/* With a server: as many connections, each joining the session. */
	return max(min_t(u32, n, ibdev->num_comp_vectors), 1U);
}

/*
 * The keep time a device on a server's memory asks for: as long as it
 * tries to reconnect (its ctrl_loss_tmo now; -1: as long as the server
 * will), each attempt asking again.  A loopback device's region is local.
 */
static u32 ibpost_blk_keep_ask(const struct ibpost_blk_dev *d)
{
	int tmo = READ_ONCE(d->map.ctrl_loss_tmo);

	if (!d->map.server[0])
		return 0;
	return tmo < 0 ? U32_MAX : tmo;
}

/**
 * ibpost_blk_keep_warn() - warn when the server keeps a device's region
 *	for less than the device tries to reconnect.
 * @d: the device, added (its disk named), its last session's grant in
 *	@d->resume.keep_s.
 *
 * A cut longer than the grant (less reconnect_delay) then loses the data:
 * the server frees the region while the device still tries.
 */
void ibpost_blk_keep_warn(const struct ibpost_blk_dev *d)
{
	u32 ask = ibpost_blk_keep_ask(d);

	if (ask && d->resume.keep_s < ask)
		pr_warn("%s: the server keeps the region %u s after a loss, less than ctrl_loss_tmo (%d): a longer cut loses the data (its serve --max-keep)\n",
			d->disk->disk_name, d->resume.keep_s,
			READ_ONCE(d->map.ctrl_loss_tmo));
}

/* An unmap gives a reconnect's open up (it waits for one rdma_cm step). */
static bool ibpost_blk_open_cancelled(void *priv)
{
	struct ibpost_blk_dev *d = priv;

	return READ_ONCE(d->state) == IBPOST_BLK_DELETING;
}

/**
 * ibpost_blk_session() - open a session for a device: its queues, its
 *	region, its depth sized so that depth requests of the most entries
 *	never wait for send-queue room.
 * @d: the device (@d->queues set).
 * @resume: NULL for a new region, else what takes the server's kept
 *	region back (a reconnect); a failed attempt may leave the server's
 *	new token in it (&ibpost_session_attr.resume).
 * @reason: out: IBPOST_R_* of a refusal (IBPOST_R_NO_DEVICE for an RDMA
 *	device of that name missing).
 *
 * Context: process context, may sleep.
 * Return: the session or an ERR_PTR().
 */
struct ibpost_session *
ibpost_blk_session(struct ibpost_blk_dev *d,
		   struct ibpost_session_resume *resume, u32 *reason)
{
	struct ibpost_session_attr attr = {
		.port = d->map.port,
		.event = ibpost_blk_event,
		.priv = d,
		.region_bytes = d->map.size,
		.peer = d->map.server[0] ? &d->map.peer : NULL,
		.nr_queues = d->queues,
		.depth = d->map.depth * IBPOST_BLK_WRS_PER_REQ,
		.reason = reason,
		.resume = resume,
		.keep_s = ibpost_blk_keep_ask(d),
		.cancel = ibpost_blk_open_cancelled,
		.owner = KBUILD_MODNAME,
	};
	struct ibpost_session *s;

	*reason = IBPOST_R_NONE;
	attr.ibdev = ib_device_get_by_name(d->map.rdma, RDMA_DRIVER_UNKNOWN);
	if (!attr.ibdev) {
		*reason = IBPOST_R_NO_DEVICE;
		return ERR_PTR(-ENODEV);
	}
	s = ibpost_session_open(&attr);
	ib_device_put(attr.ibdev);
	return s;
}

/* The device's first session, and the request size it allows. */
static int ibpost_blk_open_session(struct ibpost_blk_dev *d, char *why,
				   size_t len)
{
	struct ib_device *ibdev;
	u32 reason, per_req;
	int ret;

	ibdev = ib_device_get_by_name(d->map.rdma, RDMA_DRIVER_UNKNOWN);
	if (!ibdev)
		return ibpost_blk_refuse(why, len, -ENODEV,
					 "no RDMA device %s", d->map.rdma);
	d->queues = ibpost_blk_nr_queues(&d->map, ibdev);
	ib_device_put(ibdev);
	d->sess = ibpost_blk_session(d, d->map.has_resume ? &d->resume : NULL,
				     &reason);
	if (IS_ERR(d->sess)) {
		ret = PTR_ERR(d->sess);
		d->sess = NULL;
		if (ret == -ENODEV && reason == IBPOST_R_NO_DEVICE)
			return ibpost_blk_refuse(why, len, ret,
						 "no RDMA device %s",
						 d->map.rdma);
		/* Loud, never a new empty region in its place. */
		if (d->map.has_resume && (reason == IBPOST_R_REGION_LOST ||
					  reason == IBPOST_R_JOIN_TOKEN))
			return ibpost_blk_refuse(why, len, ret,
						 "resume= refused: %s; map without resume= for a new, empty device",
						 ibpost_blk_reason(reason));
		return ibpost_blk_refuse(why, len, ret,
					 "session on %s refused: %s",
					 d->map.rdma, ibpost_blk_reason(reason));
	}
	/* What a reconnect takes the region back with (none: local). */
	ibpost_session_get_resume(d->sess, &d->resume);
	ibpost_session_get_limits(d->sess, &d->lim);
	if (d->lim.lacks & IBPOST_DEV_WRITE_UNPLACED)
		return ibpost_blk_refuse(why, len, -EOPNOTSUPP,
					 "%s completes RDMA WRITE before its data is placed: FLUSH could not be honoured",
					 d->map.rdma);
	/* The most entries whose worst case fits a request's share. */
	for (d->segs = IBPOST_BLK_MAX_SEGS; d->segs > 1; d->segs /= 2) {
		per_req = ibpost_session_req_wrs(d->sess, d->segs);
		if (per_req && per_req <= IBPOST_BLK_WRS_PER_REQ)
			break;
	}
	/* One of rdma_rw's MRs per request where the device registers. */
	if (d->lim.max_segments)
		d->segs = min(d->segs, d->lim.max_segments);
	per_req = ibpost_session_req_wrs(d->sess, d->segs);
	if (!per_req || per_req > IBPOST_BLK_WRS_PER_REQ ||
	    d->lim.max_bytes < PAGE_SIZE)
		return ibpost_blk_refuse(why, len, -EINVAL,
					 "%s: a request of one page does not fit the session (%u WRs, %llu bytes)",
					 d->map.rdma, per_req,
					 (unsigned long long)d->lim.max_bytes);
	return 0;
}

/* The tag set: one hardware queue per session queue, blocking. */
static int ibpost_blk_tags(struct ibpost_blk_dev *d)
{
	struct blk_mq_tag_set *t = &d->tags;

	t->ops = &ibpost_blk_mq_ops;
	t->nr_hw_queues = d->queues;
	t->queue_depth = d->map.depth;
	t->numa_node = NUMA_NO_NODE;
	t->cmd_size = struct_size((struct ibpost_blk_cmd *)NULL, inline_sg,
				  ibpost_blk_inline_sg(d));
	t->flags = BLK_MQ_F_SHOULD_MERGE | BLK_MQ_F_BLOCKING;
	t->driver_data = d;
	t->timeout = d->map.io_timeout * HZ;
	return blk_mq_alloc_tag_set(t);
}

/* Queue limits from the session's. */
static void ibpost_blk_limits(struct ibpost_blk_dev *d,
			      struct queue_limits *lim)
{
	u32 sectors = min_t(u64, d->lim.max_bytes, UINT_MAX) >> SECTOR_SHIFT;

	lim->logical_block_size = SECTOR_SIZE;
	lim->physical_block_size = PAGE_SIZE;
	lim->io_min = PAGE_SIZE;
	lim->max_hw_sectors = sectors;
	lim->max_segments = d->segs;
	/* No request across one of the region's MRs. */
	lim->chunk_sectors = d->lim.region_chunk >> SECTOR_SHIFT;
	/*
	 * Where rdma_rw registers (iWARP, max_sgl_rd, force_mr), a request
	 * is one MR: no gap inside a page between its segments (as
	 * nvme-rdma and rnbd declare), max_bytes and segments within the
	 * MR's page list (ibpost_session_get_limits()).
	 */
	lim->virt_boundary_mask = d->lim.virt_boundary;
	/*
	 * WRITE ZEROES and DISCARD (io.c): zeros from the zero page, one
	 * entry a page; at most one chunk (so at most one chunk end inside)
	 * and one entry short of the table (the two halves' last entries).
	 */
	if (d->segs > 1) {
		sectors = min3((u64)(d->segs - 1) * PAGE_SIZE,
			       d->lim.max_bytes, (u64)d->lim.region_chunk) >>
			  SECTOR_SHIFT;
		lim->max_write_zeroes_sectors = sectors;
		lim->max_hw_discard_sectors = sectors;
		lim->discard_granularity = PAGE_SIZE;
	}
}

static void ibpost_blk_free(struct ibpost_blk_dev *d)
{
	if (d->disk)
		put_disk(d->disk);
	if (d->tags.ops)
		blk_mq_free_tag_set(&d->tags);
	if (d->sess)
		ibpost_session_close(d->sess);
	if (d->id >= 0)
		ida_free(&ibpost_blk_ida, d->id);
	memzero_explicit(&d->resume, sizeof(d->resume));
	mutex_destroy(&d->sess_lock);
	mutex_destroy(&d->lock);
	kfree(d);
}

/**
 * ibpost_blk_map_dev() - map a device (ibpost_blk_lock held).
 * @m: checked parameters.
 * @why: out: the reason of a refusal.
 * @len: bytes of @why.
 * @id: out: the new device's number.
 *
 * Context: process context, may sleep (the region is allocated and
 * registered here).
 * Return: 0 or a negative errno, @why saying why.
 */
int ibpost_blk_map_dev(const struct ibpost_blk_map *m, char *why,
		       size_t len, int *id)
{
	struct queue_limits lim = {};
	struct ibpost_blk_dev *d;
	int ret;

	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return ibpost_blk_refuse(why, len, -ENOMEM, "out of memory");
	mutex_init(&d->lock);
	ibpost_blk_reconnect_init(d);
	d->map = *m;
	/* The secret lives in @d->resume alone (zeroed when freed). */
	d->resume = m->resume;
	memzero_explicit(&d->map.resume, sizeof(d->map.resume));
	d->reconnect = m->server[0] && m->ctrl_loss_tmo;
	d->id = ida_alloc_max(&ibpost_blk_ida, IBPOST_BLK_MAX_DEVS - 1,
			      GFP_KERNEL);
	if (d->id < 0) {
		ret = ibpost_blk_refuse(why, len, d->id,
					"%d devices mapped already",
					IBPOST_BLK_MAX_DEVS);
		goto err;
	}
	ret = ibpost_blk_open_session(d, why, len);
	if (ret)
		goto err;
	ret = ibpost_blk_tags(d);
	if (ret) {
		ibpost_blk_refuse(why, len, ret, "tag set: %d", ret);
		goto err;
	}
	ibpost_blk_limits(d, &lim);
	/*
	 * Features: none.  No write cache (a completed WRITE is in the
	 * region's memory: io.c), not rotational, no entropy from its
	 * timings; and no REQ_NOWAIT (ibpost_submit() may sleep).
	 */
	d->disk = ibpost_compat_blk_mq_alloc_disk(&d->tags, &lim, 0, d);
	if (IS_ERR(d->disk)) {
		ret = ibpost_blk_refuse(why, len, PTR_ERR(d->disk),
					"disk: %ld", PTR_ERR(d->disk));
		d->disk = NULL;
		goto err;
	}
	ret = ibpost_compat_clear_nowait(d->disk->queue);
	if (ret) {
		ibpost_blk_refuse(why, len, ret, "queue limits: %d", ret);
		goto err;
	}
	d->disk->major = ibpost_blk_major;
	d->disk->first_minor = d->id * IBPOST_BLK_MINORS;
	d->disk->minors = IBPOST_BLK_MINORS;
	d->disk->fops = &ibpost_blk_fops;
	d->disk->private_data = d;
	snprintf(d->disk->disk_name, DISK_NAME_LEN, IBPOST_BLK_NAME "%d",
		 d->id);
	set_capacity(d->disk, m->size >> SECTOR_SHIFT);
	ret = device_add_disk(NULL, d->disk, ibpost_blk_disk_groups);
	if (ret) {
		ibpost_blk_refuse(why, len, ret, "add disk: %d", ret);
		goto err;
	}
	spin_lock_irq(&d->state_lock);
	d->added = true;
	/*
	 * The session failed while the disk was being added (its partition
	 * scan's I/O, say): the event could not start the reconnect then
	 * (ibpost_blk_event()), so it starts now rather than leave the device
	 * in error for good.
	 */
	if (d->state == IBPOST_BLK_ERROR && ibpost_blk_can_reconnect(d))
		ibpost_blk_lose(d);
	spin_unlock_irq(&d->state_lock);
	list_add_tail(&d->node, &ibpost_blk_devs);
	*id = d->id;
	pr_info("%s: %llu bytes of RAM on %s, %u queue(s) (%u asked) of depth %u, %u segments, %u KiB per request\n",
		d->disk->disk_name, (unsigned long long)m->size, m->rdma,
		d->queues, m->queues, m->depth, d->segs,
		queue_max_hw_sectors(d->disk->queue) / 2);
	if (ibpost_blk_can_reconnect(d))
		pr_info("%s: reconnects every %d s for %d s (fast_io_fail_tmo %d)\n",
			d->disk->disk_name, m->reconnect_delay,
			m->ctrl_loss_tmo, m->fast_io_fail_tmo);
	ibpost_blk_keep_warn(d);
	return 0;

err:
	ibpost_blk_free(d);
	return ret;
}

/**
 * ibpost_blk_unlist() - take a device off the list, to unmap it
 *	(ibpost_blk_lock held).
 * @d: the device.
 * @force: also when open (module unload: nothing can hold it open then,
 *	the module would be pinned).
 *
 * From now on opens are refused and no control write finds it; the caller
 * ends it with ibpost_blk_remove() after it has dropped ibpost_blk_lock.
 *
 * Return: 0, or -EBUSY when it is open (mounted, or held by a process).
 */
int ibpost_blk_unlist(struct ibpost_blk_dev *d, bool force)
{
	mutex_lock(&d->lock);
	if (d->openers && !force) {
		mutex_unlock(&d->lock);
		return -EBUSY;
	}
	d->removing = true;
	mutex_unlock(&d->lock);
	list_del(&d->node);
	return 0;
}

/*
 * Let the session's outstanding requests end (the disk is dead: nothing
 * new comes), for up to IBPOST_BLK_DRAIN_S: then the session is still
 * live and its close sends the fin, so that the server frees the region
 * at once (with --keep too: an unmap is the device's normal end).  What
 * is still outstanding then is stuck on a dead path: the session is
 * failed, which flushes it with an error (and its close sends no fin:
 * the server keeps the region for its keep time, as after any loss).
 * An unmap with keep fails the drained session on purpose, for the same
 * silence: the region stays for a later map with resume=.
 */
static void ibpost_blk_drain(struct ibpost_blk_dev *d)
{
	struct request_queue *q = d->disk->queue;

	blk_freeze_queue_start(q);
	if (!blk_mq_freeze_queue_wait_timeout(q, IBPOST_BLK_DRAIN_S * HZ) ||
	    d->keep)
		ibpost_session_fail(d->sess);
	blk_mq_unfreeze_queue(q);
}

/**
 * ibpost_blk_remove() - unmap a device ibpost_blk_unlist() took off.
 * @d: the device; freed.
 *
 * A reconnect stops first (its works cancelled, the queue unquiesced,
 * requeued requests kicked to fail).  The disk is marked dead (new I/O
 * fails at once) and the session's outstanding requests drain
 * (ibpost_blk_drain(): a request stuck on a dead path is flushed with an
 * error); only then does del_gendisk() freeze the queue, which waits for
 * every request, and the session's close ends it on the server: with its
 * fin when it is still live.
 * Without ibpost_blk_lock: other devices map and unmap meanwhile.
 *
 * Context: process context, may sleep.
 */
void ibpost_blk_remove(struct ibpost_blk_dev *d)
{
	if (d->added) {
		/*
		 * Any device on a server's memory: one that stopped
		 * reconnecting since (ctrl_loss_tmo written 0) may still have
		 * a work queued and its queue quiesced.
		 */
		if (d->map.server[0])
			ibpost_blk_reconnect_stop(d);
		else
			WRITE_ONCE(d->state, IBPOST_BLK_ERROR);
		blk_mark_disk_dead(d->disk);
		if (d->sess)
			ibpost_blk_drain(d);
		del_gendisk(d->disk);
	}
	pr_info("%s unmapped\n", d->disk->disk_name);
	ibpost_blk_free(d);
}

/**
 * ibpost_blk_find() - a mapped device by name (ibpost_blk_lock held).
 * @name: ibpostb<N>.
 *
 * Return: the device or NULL.
 */
struct ibpost_blk_dev *ibpost_blk_find(const char *name)
{
	struct ibpost_blk_dev *d;

	list_for_each_entry(d, &ibpost_blk_devs, node)
		if (d->disk && !strcmp(d->disk->disk_name, name))
			return d;
	return NULL;
}

/**
 * ibpost_blk_disks_init() - the block major every device is mapped under.
 *
 * Also the reconnect's work queue.
 *
 * Return: 0 or a negative errno.
 */
int ibpost_blk_disks_init(void)
{
	int ret = ibpost_blk_reconnect_wq_init();

	if (ret)
		return ret;
	ibpost_blk_major = register_blkdev(0, IBPOST_BLK_NAME);
	if (ibpost_blk_major < 0) {
		ibpost_blk_reconnect_wq_exit();
		return ibpost_blk_major;
	}
	return 0;
}

/**
 * ibpost_blk_disks_exit() - unmap every device (module unload: none is
 *	open) and give the major back.
 */
void ibpost_blk_disks_exit(void)
{
	struct ibpost_blk_dev *d, *tmp;
	LIST_HEAD(gone);

	mutex_lock(&ibpost_blk_lock);
	list_for_each_entry_safe(d, tmp, &ibpost_blk_devs, node) {
		ibpost_blk_unlist(d, true);
		list_add_tail(&d->node, &gone);
	}
	mutex_unlock(&ibpost_blk_lock);
	list_for_each_entry_safe(d, tmp, &gone, node)
		ibpost_blk_remove(d);
	unregister_blkdev(ibpost_blk_major, IBPOST_BLK_NAME);
	ibpost_blk_reconnect_wq_exit();
}

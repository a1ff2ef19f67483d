// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost_blk: per-device attributes, /sys/block/ibpostbN/ibpost/:
 *
 *  rdma_dev      the RDMA device the session is on
 *  server        the address of the `ibpost serve` whose memory is the
 *                backing store (port: 0 is 18520), or "local"
 *  size          bytes of the device (its region)
 *  queues        hardware queues (= session queues), and queues_asked
 *  depth         requests per hardware queue
 *  max_segments  scatterlist entries per request (from the session)
 *  chunk         bytes of each of the region's MRs (the chunk size)
 *  serial        map_device's serial=, else a random UUID made at map
 *                time (/dev/disk/by-id/ibpost-SERIAL, tools/udev)
 *  state         live, error (the session failed: I/O ends with
 *                BLK_STS_TRANSPORT), lost (the RDMA device went away; on
 *                a server's memory: failed for good, I/O ends with
 *                BLK_STS_IOERR), reconnecting (reconnect.c) or deleting
 *  reconnects    reconnects that succeeded
 *  resume        root only: SESSION:GENERATION:TOKEN, what map_device's
 *                resume= takes the kept region back with after an unmap
 *                with keep (a secret, new with each reconnect)
 *  reset         write 1 (root): the session fails now and the device
 *                reconnects as after a loss (nvme's reset_controller); a
 *                device that cannot reconnect refuses it (-EOPNOTSUPP),
 *                one not live (-EBUSY)
 *  reconnect_delay, ctrl_loss_tmo, fast_io_fail_tmo
 *                the map's (seconds; -1: forever, off)
 *  stats         the session's counters: requests completed errors
 *                inflight bytes (of the current session: a reconnect
 *                starts them again; zeros while there is none)
 *  latency       exact submit-to-completion figures of the last requests:
 *                samples min avg p50 p99 p999 max (ns)
 *
 * They read the device without ibpost_blk_lock: unmapping holds it while
 * del_gendisk() waits for these files' readers.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/device.h>
#include <linux/sysfs.h>

#include "blk.h"

static struct ibpost_blk_dev *ibpost_blk_of(struct device *dev)
{
	return dev_to_disk(dev)->private_data;
}

/* A read-only attribute: @_fmt of @_expr, of device d. */
#define IBPOST_BLK_ATTR(_name, _fmt, _expr)				\
static ssize_t _name##_show(struct device *dev,				\
			    struct device_attribute *a, char *buf)	\
{									\
	struct ibpost_blk_dev *d = ibpost_blk_of(dev);			\
									\
	return sysfs_emit(buf, _fmt "\n", _expr);			\
}									\
static DEVICE_ATTR_RO(_name)

IBPOST_BLK_ATTR(rdma_dev, "%s", d->map.rdma);
IBPOST_BLK_ATTR(size, "%llu", (unsigned long long)d->map.size);
IBPOST_BLK_ATTR(queues, "%u", d->queues);
IBPOST_BLK_ATTR(queues_asked, "%u", d->map.queues);
IBPOST_BLK_ATTR(depth, "%u", d->map.depth);
IBPOST_BLK_ATTR(max_segments, "%u", d->segs);
IBPOST_BLK_ATTR(chunk, "%u", d->lim.region_chunk);
IBPOST_BLK_ATTR(serial, "%s", d->map.serial);
IBPOST_BLK_ATTR(reconnects, "%u", READ_ONCE(d->reconnects));
/* Seconds the server keeps the region after a loss (its last grant). */
IBPOST_BLK_ATTR(keep, "%u", READ_ONCE(d->resume.keep_s));

/*
 * A reconnect timer, read and written (root): a write is checked as the
 * map's option (ibpost_blk_check_reconnect()) and applies from the next
 * loss, or the next attempt of one under way, as nvme-rdma's do; while
 * the device reconnects, fast_io_fail_tmo and a ctrl_loss_tmo of 0 (or
 * one already past) act at once (ibpost_blk_timers_changed()).
 */
#define IBPOST_BLK_TIMER_ATTR(_name)					\
static ssize_t _name##_show(struct device *dev,				\
			    struct device_attribute *a, char *buf)	\
{									\
	return sysfs_emit(buf, "%d\n",					\
			  READ_ONCE(ibpost_blk_of(dev)->map._name));	\
}									\
static ssize_t _name##_store(struct device *dev,			\
			     struct device_attribute *a,		\
			     const char *buf, size_t count)		\
{									\
	return ibpost_blk_timer_store(ibpost_blk_of(dev),		\
				      offsetof(struct ibpost_blk_map, _name), \
				      buf, count);			\
}									\
static DEVICE_ATTR_RW(_name)

/*
 * The per-device writes (the timers, reset) are privileged as the map is
 * (ctl.c): the files are root's, and the writer must also hold
 * CAP_SYS_ADMIN, so that root without it (a container with a writable
 * /sys, a hardened unit) cannot fail a remote device for good
 * (ctrl_loss_tmo=0 while reconnecting) or force its reconnects.
 */
static bool ibpost_blk_attr_allowed(struct ibpost_blk_dev *d, const char *what)
{
	if (capable(CAP_SYS_ADMIN))
		return true;
	pr_warn_ratelimited("%s: %s refused: needs CAP_SYS_ADMIN\n",
			    d->disk->disk_name, what);
	return false;
}

/* Store @buf into the timer at @off of the map, if the map stays valid. */
static ssize_t ibpost_blk_timer_store(struct ibpost_blk_dev *d, size_t off,
				      const char *buf, size_t count)
{
	struct ibpost_blk_map *m;
	char why[IBPOST_BLK_RESULT_LEN];
	int v, ret;

	if (!ibpost_blk_attr_allowed(d, "a timer's write"))
		return -EPERM;
	ret = kstrtoint(buf, 10, &v);
	if (ret)
		return ret;
	m = kmemdup(&d->map, sizeof(*m), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	*(int *)((char *)m + off) = v;
	ret = ibpost_blk_check_reconnect(m, why, sizeof(why));
	kfree(m);
	if (ret) {
		pr_warn_ratelimited("%s: %s\n", d->disk->disk_name, why);
		return ret;
	}
	WRITE_ONCE(*(int *)((char *)&d->map + off), v);
	ibpost_blk_timers_changed(d);
	return count;
}

IBPOST_BLK_TIMER_ATTR(reconnect_delay);
IBPOST_BLK_TIMER_ATTR(ctrl_loss_tmo);
IBPOST_BLK_TIMER_ATTR(fast_io_fail_tmo);

/*
 * An operator's reset, and the test of the reconnect path that needs no
 * fault: the session is failed as the I/O timeout fails it (every QP in
 * error, no fin: the server keeps the region), and the session's error
 * event starts the reconnect (reconnect.c).
 */
static ssize_t reset_store(struct device *dev, struct device_attribute *a,
			   const char *buf, size_t count)
{
	struct ibpost_blk_dev *d = ibpost_blk_of(dev);
	bool v;
	int ret;

	if (!ibpost_blk_attr_allowed(d, "reset"))
		return -EPERM;
	ret = kstrtobool(buf, &v);
	if (ret)
		return ret;
	if (!v)
		return -EINVAL;
	if (!ibpost_blk_can_reconnect(d))
		return -EOPNOTSUPP;
	/* Against the reconnect's close and swap of the session. */
	mutex_lock(&d->sess_lock);
	if (READ_ONCE(d->state) != IBPOST_BLK_LIVE || !d->sess) {
		ret = -EBUSY;
	} else {
		pr_info("%s: reset: the session fails, the device reconnects\n",
			d->disk->disk_name);
		/* Its first attempt comes at once (reconnect.c). */
		d->reset = true;
		ibpost_session_fail(d->sess);
	}
	mutex_unlock(&d->sess_lock);
	return ret ?: count;
}
static DEVICE_ATTR_WO(reset);

static ssize_t server_show(struct device *dev, struct device_attribute *a,
			   char *buf)
{
	struct ibpost_blk_dev *d = ibpost_blk_of(dev);

	if (!d->map.server[0])
		return sysfs_emit(buf, "local\n");
	return sysfs_emit(buf, "%s port %u\n", d->map.server,
			  d->map.server_port);
}
/* Root only: where the data lives is not every local user's business. */
static DEVICE_ATTR_ADMIN_RO(server);

/*
 * SESSION:GENERATION:TOKEN, what map_device's resume= takes back after an
 * unmap with keep; empty for a local device.  The token is the region's
 * credential, new with each reconnect: root with CAP_SYS_ADMIN only, as
 * the map that would use it (the file is 0400; a root without the
 * capability, in a container, reads -EPERM).
 */
static ssize_t resume_show(struct device *dev, struct device_attribute *a,
			   char *buf)
{
	struct ibpost_blk_dev *d = ibpost_blk_of(dev);
	ssize_t n = 0;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	/* Against a reconnect's new token. */
	mutex_lock(&d->sess_lock);
	if (d->map.server[0] && d->resume.generation)
		n = sysfs_emit(buf, "%u:%u:%*phN\n", d->resume.session,
			       d->resume.generation, IBPOST_SESSION_TOKEN_LEN,
			       d->resume.token);
	mutex_unlock(&d->sess_lock);
	return n;
}
static DEVICE_ATTR_ADMIN_RO(resume);

static ssize_t state_show(struct device *dev, struct device_attribute *a,
			  char *buf)
{
	static const char *const names[] = {
		[IBPOST_BLK_LIVE] = "live",
		[IBPOST_BLK_ERROR] = "error",
		[IBPOST_BLK_LOST] = "lost",
		[IBPOST_BLK_RECONNECTING] = "reconnecting",
		[IBPOST_BLK_DELETING] = "deleting",
	};

	return sysfs_emit(buf, "%s\n",
			  names[READ_ONCE(ibpost_blk_of(dev)->state)]);
}
static DEVICE_ATTR_RO(state);

static ssize_t stats_show(struct device *dev, struct device_attribute *a,
			  char *buf)
{
	struct ibpost_blk_dev *d = ibpost_blk_of(dev);
	struct ibpost_session_stats *st;
	ssize_t n;

	st = kzalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	/* Against the reconnect's close and swap. */
	mutex_lock(&d->sess_lock);
	if (d->sess)
		ibpost_session_get_stats(d->sess, st);
	mutex_unlock(&d->sess_lock);
	n = sysfs_emit(buf, "%llu %llu %llu %llu %llu\n", st->requests,
		       st->completed, st->errors, st->inflight, st->bytes);
	kfree(st);
	return n;
}
static DEVICE_ATTR_RO(stats);

static ssize_t latency_show(struct device *dev, struct device_attribute *a,
			    char *buf)
{
	struct ibpost_blk_dev *d = ibpost_blk_of(dev);
	struct ibpost_session_lat l;
	int ret = -ENOTCONN;

	mutex_lock(&d->sess_lock);
	if (d->sess)
		ret = ibpost_session_get_latency(d->sess, &l);
	mutex_unlock(&d->sess_lock);
	if (ret)
		return ret;
	return sysfs_emit(buf, "%llu %llu %llu %llu %llu %llu %llu\n",
			  l.samples, l.min_ns, l.avg_ns, l.p50_ns, l.p99_ns,
			  l.p999_ns, l.max_ns);
}
static DEVICE_ATTR_RO(latency);

static struct attribute *ibpost_blk_disk_attrs[] = {
	&dev_attr_rdma_dev.attr,
	&dev_attr_server.attr,
	&dev_attr_size.attr,
	&dev_attr_queues.attr,
	&dev_attr_queues_asked.attr,
	&dev_attr_depth.attr,
	&dev_attr_max_segments.attr,
	&dev_attr_chunk.attr,
	&dev_attr_serial.attr,
	&dev_attr_state.attr,
	&dev_attr_reconnects.attr,
	&dev_attr_keep.attr,
	&dev_attr_resume.attr,
	&dev_attr_reset.attr,
	&dev_attr_reconnect_delay.attr,
	&dev_attr_ctrl_loss_tmo.attr,
	&dev_attr_fast_io_fail_tmo.attr,
	&dev_attr_stats.attr,
	&dev_attr_latency.attr,
	NULL,
};

static const struct attribute_group ibpost_blk_disk_group = {
	.name = "ibpost",
	.attrs = ibpost_blk_disk_attrs,
};

const struct attribute_group *ibpost_blk_disk_groups[] = {
	&ibpost_blk_disk_group,
	NULL,
};

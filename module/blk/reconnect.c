// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost_blk: a device on a server's memory survives a lost session, with
 * nvme-rdma's semantics (Documentation/blk.rst, "Reconnect").
 *
 * The session's event (io.c, ibpost_blk_event(); softirq for
 * IBPOST_EV_ERROR) only moves the device to IBPOST_BLK_RECONNECTING and
 * queues @err_work.  From then on a request the dead session ends with an
 * error is requeued (io.c, ibpost_blk_complete(): blk_mq_requeue_request(),
 * not kicked) and a request that reaches ibpost_blk_queue_rq() gets
 * BLK_STS_RESOURCE: none reaches the file system as an error.  The timeout
 * handler re-arms the timer of what the dead session still holds
 * (BLK_EH_RESET_TIMER): closing it ends them.
 *
 * @err_work quiesces the queue (no queue_rq() runs after it returns: none
 * can submit to the session it closes), reads the session's resume data
 * (the close frees it) and closes it: what it held completes with an error
 * and is requeued.  Then @reconnect_work opens a session with
 * &ibpost_session_attr.resume every reconnect_delay seconds.  Its success
 * swaps the session in, unquiesces the queue and kicks the requeue list:
 * the requests go to the new session, on the same data.  An attempt that
 * fails closes its session without the fin (it is failed, or it is a
 * resume that failed in its open; one whose limits differ is failed
 * first): the server keeps the region, and @resume has the token of the
 * server's last answer (the open writes it back; else it is read from
 * the session), which the next attempt takes it back with.  A refusal with
 * IBPOST_R_REGION_LOST or IBPOST_R_JOIN_TOKEN means the data is gone, an
 * expired ctrl_loss_tmo that the server is, and the removal of this host's
 * RDMA device under the session (IBPOST_EV_LOST: @dev_gone), or its
 * absence when an attempt opens (it went between two attempts), that the
 * device is (as nvme-rdma deletes a removed device's controllers): each
 * fails the device for good (IBPOST_BLK_LOST), and every request ends
 * with BLK_STS_IOERR.
 * fast_io_fail_tmo after the loss, @failfast_work unquiesces the queue with
 * @failfast set: queued and new requests end with BLK_STS_IOERR while the
 * attempts go on.
 *
 * Works run on ibpost_blk_wq (WQ_MEM_RECLAIM: writeback to the device may
 * be what frees memory), and @err_work and @reconnect_work allocate as
 * GFP_NOIO would (memalloc_noio_save()): the device's I/O is stalled
 * meanwhile, and reclaim must not wait for it.  Unmapping sets IBPOST_BLK_DELETING under
 * @state_lock (no event queues @err_work after it) and cancels the three
 * works (synchronously: an attempt in progress sees the state between its
 * steps, &ibpost_session_attr.cancel, and gives up within one rdma_cm
 * step's timeout, or closes its new session) before it fails the queue.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/sched/mm.h>
#include <linux/string.h>

#include "blk.h"

static struct workqueue_struct *ibpost_blk_wq;

/**
 * ibpost_blk_can_reconnect() - whether a device reconnects after its
 *	session failed.
 * @d: the device.
 *
 * A device on a server's memory (connect=) with a ctrl_loss_tmo other than
 * 0 while it was last live; a local region has nothing to reconnect to
 * (its session's failure fails the device, as before).  Not the timer
 * itself: once a loss is under way, a write of 0 ends it
 * (ibpost_blk_timers_changed()); it does not turn the device into one
 * that fails its requeued I/O in place.
 *
 * Return: true if it does.
 */
bool ibpost_blk_can_reconnect(const struct ibpost_blk_dev *d)
{
	return READ_ONCE(d->reconnect);
}

/* Let the queue run again if the loss quiesced it (@sess_lock held). */
static void ibpost_blk_unquiesce(struct ibpost_blk_dev *d)
{
	lockdep_assert_held(&d->sess_lock);
	if (d->quiesced) {
		d->quiesced = false;
		blk_mq_unquiesce_queue(d->disk->queue);
	}
}

/* The queue runs again and the requeued requests reach queue_rq(). */
static void ibpost_blk_run_queue(struct ibpost_blk_dev *d)
{
	mutex_lock(&d->sess_lock);
	ibpost_blk_unquiesce(d);
	mutex_unlock(&d->sess_lock);
	blk_mq_kick_requeue_list(d->disk->queue);
}

/*
 * The device fails for good: from IBPOST_BLK_RECONNECTING to
 * IBPOST_BLK_LOST, the queue unquiesced and the requeue list kicked, so
 * that every request waiting ends with BLK_STS_IOERR (io.c).
 */
static void ibpost_blk_fail_for_good(struct ibpost_blk_dev *d,
				     const char *why)
{
	unsigned long flags;
	bool ok;

	spin_lock_irqsave(&d->state_lock, flags);
	ok = d->state == IBPOST_BLK_RECONNECTING;
	if (ok)
		WRITE_ONCE(d->state, IBPOST_BLK_LOST);
	spin_unlock_irqrestore(&d->state_lock, flags);
	if (!ok)
		return;
	pr_err("%s: %s: the device failed for good, its I/O fails: unmap it\n",
	       d->disk->disk_name, why);
	cancel_delayed_work(&d->failfast_work);
	memzero_explicit(&d->resume, sizeof(d->resume));
	ibpost_blk_run_queue(d);
}

/* Jiffies from now until @secs seconds after the loss, 0 if past. */
static unsigned long ibpost_blk_after_loss(struct ibpost_blk_dev *d, int secs)
{
	unsigned long at = d->lost_at + secs * HZ;

	return time_before(jiffies, at) ? at - jiffies : 0;
}

/*
 * Whether ctrl_loss_tmo @tmo ends the reconnect now: 0 (written while
 * reconnecting) or its time since the loss past; -1 never.  @why: the
 * reason the device then fails with.
 */
static bool ibpost_blk_loss_over(struct ibpost_blk_dev *d, int tmo,
				 const char **why)
{
	*why = tmo ? "ctrl_loss_tmo expired" : "ctrl_loss_tmo set to 0";
	return !tmo || (tmo > 0 && !ibpost_blk_after_loss(d, tmo));
}

/* A failed attempt: another in reconnect_delay, or the end (ctrl_loss_tmo). */
static void ibpost_blk_retry(struct ibpost_blk_dev *d, int err, u32 reason)
{
	unsigned long delay = READ_ONCE(d->map.reconnect_delay) * HZ;
	int tmo = READ_ONCE(d->map.ctrl_loss_tmo);
	const char *why;

	/*
	 * The attempt's session lost its RDMA device (see ibpost_blk_err()),
	 * or the attempt found none of that name: it went while no session
	 * was there to tell (between two attempts).
	 */
	if (READ_ONCE(d->dev_gone) ||
	    (err == -ENODEV && reason == IBPOST_R_NO_DEVICE)) {
		ibpost_blk_fail_for_good(d, "its RDMA device was removed");
		return;
	}
	if (ibpost_blk_loss_over(d, tmo, &why)) {
		pr_warn("%s: reconnect failed: %d: %s\n", d->disk->disk_name,
			err, ibpost_blk_reason(reason));
		ibpost_blk_fail_for_good(d, why);
		return;
	}
	if (tmo > 0)
		delay = min(delay, ibpost_blk_after_loss(d, tmo));
	pr_warn_ratelimited("%s: reconnect failed: %d: %s; next attempt in %u ms\n",
			    d->disk->disk_name, err, ibpost_blk_reason(reason),
			    jiffies_to_msecs(delay));
	queue_delayed_work(ibpost_blk_wq, &d->reconnect_work, delay);
}

/* Whether a new session can carry the device's requests as the old did. */
static bool ibpost_blk_same_limits(struct ibpost_blk_dev *d,
				   struct ibpost_session *s,
				   const struct ibpost_session_limits *lim)
{
	u32 per_req = ibpost_session_req_wrs(s, d->segs);

	return lim->region_bytes == d->lim.region_bytes &&
	       lim->region_chunk == d->lim.region_chunk &&
	       lim->max_bytes >= d->lim.max_bytes &&
	       lim->virt_boundary == d->lim.virt_boundary &&
	       (!lim->max_segments || lim->max_segments >= d->segs) &&
	       per_req && per_req <= IBPOST_BLK_WRS_PER_REQ;
}

static void ibpost_blk_reconnect(struct ibpost_blk_dev *d)
{
	struct ibpost_session_limits lim;
	struct ibpost_session *s;
	u32 reason = IBPOST_R_NONE;
	bool failed, sess_failed;
	unsigned long flags;

	spin_lock_irqsave(&d->state_lock, flags);
	failed = d->state != IBPOST_BLK_RECONNECTING;
	d->sess_failed = false;
	spin_unlock_irqrestore(&d->state_lock, flags);
	if (failed)
		return;
	s = ibpost_blk_session(d, &d->resume, &reason);
	/* An unmap gave it up (ibpost_blk_reconnect_stop()). */
	if (IS_ERR(s) && READ_ONCE(d->state) == IBPOST_BLK_DELETING)
		return;
	if (IS_ERR(s)) {
		if (reason == IBPOST_R_REGION_LOST ||
		    reason == IBPOST_R_JOIN_TOKEN) {
			pr_err("%s: region lost: %s\n", d->disk->disk_name,
			       ibpost_blk_reason(reason));
			ibpost_blk_fail_for_good(d, "region lost");
			return;
		}
		ibpost_blk_retry(d, PTR_ERR(s), reason);
		return;
	}
	ibpost_session_get_limits(s, &lim);
	if (!ibpost_blk_same_limits(d, s, &lim)) {
		/*
		 * Not the region's end: the session is failed first, so that
		 * its close sends no fin (the server keeps the region), and
		 * its token is the next attempt's.
		 */
		ibpost_session_get_resume(s, &d->resume);
		ibpost_session_fail(s);
		ibpost_session_close(s);
		pr_warn("%s: the new session's limits differ from the old one's\n",
			d->disk->disk_name);
		ibpost_blk_retry(d, -EINVAL, IBPOST_R_NONE);
		return;
	}
	mutex_lock(&d->sess_lock);
	spin_lock_irqsave(&d->state_lock, flags);
	/* Failed already (its event saw no device session), or unmapped. */
	failed = d->sess_failed || d->state != IBPOST_BLK_RECONNECTING;
	sess_failed = d->sess_failed;
	if (!failed) {
		d->sess = s;
		d->failfast = false;
		d->reconnects++;
		/*
		 * A ctrl_loss_tmo of 0 written during this attempt: the next
		 * loss fails the device, as one mapped with 0 (a write while
		 * live does the same, ibpost_blk_timers_changed()).
		 */
		WRITE_ONCE(d->reconnect, READ_ONCE(d->map.ctrl_loss_tmo) != 0);
		/* Release: @sess before @state, for ibpost_blk_queue_rq(). */
		smp_store_release(&d->state, IBPOST_BLK_LIVE);
	}
	spin_unlock_irqrestore(&d->state_lock, flags);
	if (failed) {
		mutex_unlock(&d->sess_lock);
		/*
		 * A session that failed is closed without the fin: the server
		 * keeps the region, which its token takes back.  (An unmap's
		 * close of a live one ends the region.)
		 */
		if (sess_failed)
			ibpost_session_get_resume(s, &d->resume);
		ibpost_session_close(s);
		ibpost_blk_retry(d, -ENOTCONN, IBPOST_R_NONE);
		return;
	}
	/* The token is new with each resume, and so is the grant. */
	ibpost_session_get_resume(s, &d->resume);
	ibpost_blk_keep_warn(d);
	d->reset = false;
	ibpost_blk_unquiesce(d);
	mutex_unlock(&d->sess_lock);
	cancel_delayed_work(&d->failfast_work);
	blk_mq_kick_requeue_list(d->disk->queue);
	pr_info("%s: reconnected to %s (reconnect %u, %u ms after the loss)\n",
		d->disk->disk_name, d->map.server, d->reconnects,
		jiffies_to_msecs(jiffies - d->lost_at));
}

/*
 * The works run while the device's I/O is stalled: what they allocate (a
 * session's QPs, MRs, messages; the close) must not recurse into I/O
 * reclaim, which could wait for this very device (swap or writeback on
 * it).  So they allocate as GFP_NOIO would.
 */
static void ibpost_blk_reconnect_work(struct work_struct *w)
{
	struct ibpost_blk_dev *d = container_of(to_delayed_work(w),
						struct ibpost_blk_dev,
						reconnect_work);
	unsigned int noio = memalloc_noio_save();

	ibpost_blk_reconnect(d);
	memalloc_noio_restore(noio);
}

static void ibpost_blk_failfast_work(struct work_struct *w)
{
	struct ibpost_blk_dev *d = container_of(to_delayed_work(w),
						struct ibpost_blk_dev,
						failfast_work);
	unsigned long flags;
	bool ok;

	spin_lock_irqsave(&d->state_lock, flags);
	ok = d->state == IBPOST_BLK_RECONNECTING;
	if (ok)
		WRITE_ONCE(d->failfast, true);
	spin_unlock_irqrestore(&d->state_lock, flags);
	if (!ok)
		return;
	pr_warn("%s: fast_io_fail_tmo (%d s) expired: I/O fails while reconnecting\n",
		d->disk->disk_name, READ_ONCE(d->map.fast_io_fail_tmo));
	ibpost_blk_run_queue(d);
}

static void ibpost_blk_err(struct ibpost_blk_dev *d)
{
	struct ibpost_session_resume r;
	struct ibpost_session *old;
	int fail, tmo, delay;
	unsigned long flags;
	bool reset;

	mutex_lock(&d->sess_lock);
	if (!d->quiesced) {
		/* Waits for every queue_rq() in progress (SRCU). */
		blk_mq_quiesce_queue(d->disk->queue);
		d->quiesced = true;
	}
	old = d->sess;
	/* Before the close, which frees it. */
	if (old && !ibpost_session_get_resume(old, &r))
		d->resume = r;
	memzero_explicit(&r, sizeof(r));
	spin_lock_irqsave(&d->state_lock, flags);
	d->sess = NULL;
	spin_unlock_irqrestore(&d->state_lock, flags);
	/* What it holds completes with an error: requeued (io.c). */
	if (old)
		ibpost_session_close(old);
	reset = d->reset;
	mutex_unlock(&d->sess_lock);
	/*
	 * Its RDMA device was removed: as nvme-rdma deletes the controllers
	 * of a removed device, the device fails now, not after ctrl_loss_tmo
	 * of attempts on a device that is gone.
	 */
	if (READ_ONCE(d->dev_gone)) {
		ibpost_blk_fail_for_good(d, "its RDMA device was removed");
		return;
	}
	if (!d->resume.generation) {
		ibpost_blk_fail_for_good(d, "no region to take back");
		return;
	}
	/* Timers a sysfs write may change: read once each. */
	fail = READ_ONCE(d->map.fast_io_fail_tmo);
	tmo = READ_ONCE(d->map.ctrl_loss_tmo);
	delay = READ_ONCE(d->map.reconnect_delay);
	if (fail >= 0)
		queue_delayed_work(ibpost_blk_wq, &d->failfast_work,
				   ibpost_blk_after_loss(d, fail));
	/* An operator's reset tries at once, as nvme's reset_controller. */
	if (reset)
		delay = 0;
	queue_delayed_work(ibpost_blk_wq, &d->reconnect_work,
			   ibpost_blk_after_loss(d, tmo > 0 && tmo < delay ?
						 tmo : delay));
}

/* The loss's work; GFP_NOIO as ibpost_blk_reconnect_work(). */
static void ibpost_blk_err_work(struct work_struct *w)
{
	struct ibpost_blk_dev *d = container_of(w, struct ibpost_blk_dev,
						err_work);
	unsigned int noio = memalloc_noio_save();

	ibpost_blk_err(d);
	memalloc_noio_restore(noio);
}

/**
 * ibpost_blk_lose() - the session failed: start reconnecting.
 * @d: a device that ibpost_blk_can_reconnect(), @state_lock held.
 *
 * Context: any (the event's, softirq included); never sleeps.
 */
void ibpost_blk_lose(struct ibpost_blk_dev *d)
{
	WRITE_ONCE(d->state, IBPOST_BLK_RECONNECTING);
	d->lost_at = jiffies;
	queue_work(ibpost_blk_wq, &d->err_work);
}

/**
 * ibpost_blk_timers_changed() - a sysfs write changed a reconnect timer.
 * @d: the device, added.
 *
 * As nvme-rdma's: a live device takes ctrl_loss_tmo from its next loss
 * (0: it then fails, as one mapped with 0).  While it reconnects,
 * fast_io_fail_tmo counts from the loss again (a past one fails the
 * queued I/O now), and a ctrl_loss_tmo of 0 or one already past ends the
 * reconnect: at once when no attempt is under way, else when it fails.
 * This is what ``ibpost blk unmap --force`` relies on to give a dead
 * server up while the device is still held open.
 *
 * Context: process context.
 */
void ibpost_blk_timers_changed(struct ibpost_blk_dev *d)
{
	int tmo = READ_ONCE(d->map.ctrl_loss_tmo);
	int fail = READ_ONCE(d->map.fast_io_fail_tmo);
	bool give_up = false;
	unsigned long flags;
	const char *why;

	if (!d->map.server[0])
		return;
	/* Under the lock: a loss or an unmap changes @state under it too. */
	spin_lock_irqsave(&d->state_lock, flags);
	if (d->state == IBPOST_BLK_LIVE) {
		WRITE_ONCE(d->reconnect, tmo != 0);
	} else if (d->state == IBPOST_BLK_RECONNECTING) {
		if (fail >= 0 && !d->failfast)
			mod_delayed_work(ibpost_blk_wq, &d->failfast_work,
					 ibpost_blk_after_loss(d, fail));
		else if (fail < 0)
			cancel_delayed_work(&d->failfast_work);
		/* A pending attempt taken off is ours to end. */
		if (ibpost_blk_loss_over(d, tmo, &why))
			give_up = cancel_delayed_work(&d->reconnect_work);
	}
	spin_unlock_irqrestore(&d->state_lock, flags);
	if (give_up)
		ibpost_blk_fail_for_good(d, why);
}

/**
 * ibpost_blk_reconnect_init() - a new device's reconnect state.
 * @d: the device.
 */
void ibpost_blk_reconnect_init(struct ibpost_blk_dev *d)
{
	spin_lock_init(&d->state_lock);
	mutex_init(&d->sess_lock);
	INIT_WORK(&d->err_work, ibpost_blk_err_work);
	INIT_DELAYED_WORK(&d->reconnect_work, ibpost_blk_reconnect_work);
	INIT_DELAYED_WORK(&d->failfast_work, ibpost_blk_failfast_work);
}

/**
 * ibpost_blk_reconnect_stop() - an unmap stops the reconnect: no work of
 *	the device runs after it, and the queue is not quiesced.
 * @d: the device, added.
 *
 * Context: process context, may sleep (an attempt in progress gives up
 * between its steps: at most one rdma_cm step's timeout,
 * &ibpost_session_attr.cancel).
 */
void ibpost_blk_reconnect_stop(struct ibpost_blk_dev *d)
{
	unsigned long flags;

	spin_lock_irqsave(&d->state_lock, flags);
	WRITE_ONCE(d->state, IBPOST_BLK_DELETING);
	spin_unlock_irqrestore(&d->state_lock, flags);
	/* @err_work first: it queues the other two. */
	cancel_work_sync(&d->err_work);
	cancel_delayed_work_sync(&d->reconnect_work);
	cancel_delayed_work_sync(&d->failfast_work);
	mutex_lock(&d->sess_lock);
	ibpost_blk_unquiesce(d);
	mutex_unlock(&d->sess_lock);
	/* Requeued requests reach queue_rq(), which fails them. */
	blk_mq_kick_requeue_list(d->disk->queue);
}

/**
 * ibpost_blk_reconnect_wq_init() - the work queue of every device's
 *	reconnect.
 *
 * Return: 0 or -ENOMEM.
 */
int ibpost_blk_reconnect_wq_init(void)
{
	ibpost_blk_wq = alloc_workqueue("ibpost_blk", WQ_MEM_RECLAIM, 0);
	return ibpost_blk_wq ? 0 : -ENOMEM;
}

/**
 * ibpost_blk_reconnect_wq_exit() - free it (every device unmapped).
 */
void ibpost_blk_reconnect_wq_exit(void)
{
	destroy_workqueue(ibpost_blk_wq);
}

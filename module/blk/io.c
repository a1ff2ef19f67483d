// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost_blk: the I/O path.
 *
 * Hardware queue i is session queue i: a READ becomes one RDMA READ
 * request from the region into the bio pages, a WRITE one RDMA WRITE from
 * them, both one-sided and straight between the pages blk_rq_map_sg()
 * lists and the region (no bounce buffer, no copy).  The request's
 * &struct ibpost_blk_cmd (session request and scatterlist) is the tag
 * set's pdu: allocated with the tag set, never per I/O.
 *
 * The tag set is BLK_MQ_F_BLOCKING: ibpost_submit() may sleep, in
 * rdma_rw_ctx_init()'s allocation for a list of several entries (GFP_NOIO,
 * submit.c) or waiting for send-queue room (never in practice: each
 * session queue has room for depth requests of the most entries).
 *
 * No write cache is declared: a WRITE is completed to the block layer only
 * after its RDMA WRITE's completion, which on RC (and on a device without
 * IBPOST_DEV_WRITE_UNPLACED, the only kind mapped) means the data is in
 * the region's memory, so there is nothing a FLUSH could make durable and
 * the block layer sends none.  No REQ_NOWAIT either: ibpost_submit() may
 * sleep in rdma_rw_ctx_init() (disk.c clears the flag blk-mq sets).
 *
 * WRITE ZEROES and DISCARD write zeroes into the region: one-sided RDMA
 * WRITEs whose every entry is the kernel's zero page, at most two session
 * requests per block request (the block layer does not split these at the
 * chunk size: one may cross one of the region's MRs, never two, its length
 * being at most one chunk).  Discarded sectors read back as zeros.
 *
 * Statuses (as nvme-rdma and rnbd give them): a transient shortage
 * (-ENOMEM, -EAGAIN from the session) is BLK_STS_RESOURCE, and blk-mq
 * retries the request; a failed path (error completion, lost connection,
 * session in error, device gone, the request timed out) BLK_STS_TRANSPORT,
 * which dm-multipath retries on another path; BLK_STS_IOERR only for what
 * no retry can mend (a request the session refuses as malformed).  A
 * device on a server's memory that reconnects (reconnect.c) ends no
 * request with BLK_STS_TRANSPORT: a failed path's requests wait for the
 * next session (requeued, or BLK_STS_RESOURCE from queue_rq), and end
 * with BLK_STS_IOERR once the device failed for good (its region or its
 * server gone), is being unmapped, or fast_io_fail_tmo expired.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blk-mq.h>
#include <linux/module.h>

#include "blk.h"

unsigned int ibpost_blk_io_timeout = 30;
module_param_named(io_timeout, ibpost_blk_io_timeout, uint, 0444);
MODULE_PARM_DESC(io_timeout,
		 "default seconds a request may take before the device's session is failed (its I/O then ends with an error), 1 to 600 (default 30); per device: map_device's io_timeout= or /sys/block/ibpostbN/queue/io_timeout");

static const char *const ibpost_blk_reasons[IBPOST_R_MAX] =
	IBPOST_REASON_TEXTS;

/**
 * ibpost_blk_reason() - the text of an IBPOST_R_* reason.
 * @reason: the code.
 *
 * Return: a constant string.
 */
const char *ibpost_blk_reason(u32 reason)
{
	if (reason >= IBPOST_R_MAX || !ibpost_blk_reasons[reason])
		return "unknown reason";
	return ibpost_blk_reasons[reason];
}

/* What a session's errno means to the block layer (see the top). */
static blk_status_t ibpost_blk_status(int err)
{
	switch (err) {
	case 0:
		return BLK_STS_OK;
	case -ENOMEM:
	case -EAGAIN:
		return BLK_STS_RESOURCE;
	case -EIO:
	case -ENOTCONN:
	case -ENODEV:
	case -ECANCELED:
	case -ECONNRESET:
	case -ETIMEDOUT:
		return BLK_STS_TRANSPORT;
	default:
		return BLK_STS_IOERR;
	}
}

static const char *ibpost_blk_op_name(struct request *rq)
{
	switch (req_op(rq)) {
	case REQ_OP_READ:
		return "READ";
	case REQ_OP_WRITE:
		return "WRITE";
	case REQ_OP_DISCARD:
		return "DISCARD";
	default:
		return "WRITE ZEROES";
	}
}

/*
 * A session request of the command ended (softirq, or the session's death
 * or failure work); the last of its (one or two) ends the block request.
 */
static void ibpost_blk_done(struct ibpost_req *req, int status)
{
	struct ibpost_blk_cmd *cmd = req->priv;
	struct request *rq = blk_mq_rq_from_pdu(cmd);

	if (status) {
		cmpxchg(&cmd->err, 0, status);
		pr_err_ratelimited("%s: %s of %u bytes at sector %llu failed: %d\n",
				   rq->q->disk ? rq->q->disk->disk_name : "?",
				   ibpost_blk_op_name(rq), blk_rq_bytes(rq),
				   (unsigned long long)blk_rq_pos(rq), status);
	}
	if (!atomic_dec_and_test(&cmd->pending))
		return;
	cmd->status = ibpost_blk_status(READ_ONCE(cmd->err));
	/*
	 * Seen by the timeout handler (which holds a reference on @rq, so it
	 * is not reused under it): the session is done with the request, and
	 * it was completed here, or its completion was faked lost.
	 */
	if (unlikely(blk_should_fake_timeout(rq->q))) {
		/* Release: @status before @ended, for the timeout handler. */
		smp_store_release(&cmd->ended, IBPOST_BLK_ENDED_LOST);
		return;
	}
	/* Release: @status before @ended, for the timeout handler. */
	smp_store_release(&cmd->ended, IBPOST_BLK_ENDED);
	blk_mq_complete_request(rq);
}

/* @n entries for the request's scatterlist (@cmd->sgt), chained past 2. */
static int ibpost_blk_sg_alloc(struct ibpost_blk_dev *d,
			       struct ibpost_blk_cmd *cmd, int n)
{
	cmd->sgt.sgl = cmd->inline_sg;
	if (ibpost_compat_sg_alloc(&cmd->sgt, n, cmd->inline_sg,
				   ibpost_blk_inline_sg(d))) {
		cmd->sgt.orig_nents = 0;
		return -ENOMEM;
	}
	return 0;
}

static void ibpost_blk_sg_free(struct ibpost_blk_dev *d,
			       struct ibpost_blk_cmd *cmd)
{
	if (!cmd->sgt.orig_nents)
		return;
	ibpost_compat_sg_free(&cmd->sgt, ibpost_blk_inline_sg(d));
	cmd->sgt.orig_nents = 0;
}

/*
 * A request that ended with an error is sent again, at most
 * IBPOST_BLK_MAX_RETRIES times (then BLK_STS_IOERR), when a retry can mend
 * it: a half of it refused for room (BLK_STS_RESOURCE, never an end
 * status: the caller would read a shortage as -ENOMEM; kicked after
 * IBPOST_BLK_REQUEUE_MS), and on a device that reconnects (reconnect.c) a
 * failed path (BLK_STS_TRANSPORT).  That one waits on the requeue list for
 * the next session while the device is reconnecting, unless
 * fast_io_fail_tmo expired, or while it is live (its event is on the way,
 * or none comes: kicked after IBPOST_BLK_REQUEUE_MS).  Any other status
 * ends it at once (no retry mends a request refused as malformed), and so
 * does a path error when its submitter asked for no retry (REQ_FAILFAST_*:
 * md's failfast members, dm-multipath, which then use another path), as
 * nvme's nvme_req_needs_retry() has it.  Once the device failed for good
 * or is being unmapped, it ends with BLK_STS_IOERR.
 */
static void ibpost_blk_complete(struct request *rq)
{
	struct ibpost_blk_cmd *cmd = blk_mq_rq_to_pdu(rq);
	struct ibpost_blk_dev *d = rq->q->queuedata;
	blk_status_t st = cmd->status;
	bool requeue, live, room;
	unsigned long flags;

	/* The session is done with its pages: a requeue maps them anew. */
	ibpost_blk_sg_free(d, cmd);
	if (likely(st == BLK_STS_OK)) {
		blk_mq_end_request(rq, st);
		return;
	}
	room = st == BLK_STS_RESOURCE;
	if (room)
		st = BLK_STS_TRANSPORT;
	if (blk_noretry_request(rq) ||
	    (!room && (st != BLK_STS_TRANSPORT ||
		       !ibpost_blk_can_reconnect(d)))) {
		blk_mq_end_request(rq, st);
		return;
	}
	if (cmd->retries >= IBPOST_BLK_MAX_RETRIES) {
		pr_err_ratelimited("%s: %s at sector %llu failed %u times: I/O error\n",
				   d->disk->disk_name, ibpost_blk_op_name(rq),
				   (unsigned long long)blk_rq_pos(rq),
				   cmd->retries + 1);
		blk_mq_end_request(rq, BLK_STS_IOERR);
		return;
	}
	cmd->retries++;
	if (!ibpost_blk_can_reconnect(d)) {
		blk_mq_requeue_request(rq, false);
		blk_mq_delay_kick_requeue_list(rq->q, IBPOST_BLK_REQUEUE_MS);
		return;
	}
	/*
	 * Under @state_lock: a state change that kicks the requeue list
	 * (the reconnect's end, fast_io_fail_tmo, the unmap) comes after
	 * every request this put on it.  Not kicked here then: that kick
	 * does; while live, a delayed kick (no event may come).
	 */
	spin_lock_irqsave(&d->state_lock, flags);
	live = d->state == IBPOST_BLK_LIVE;
	requeue = live ||
		  (d->state == IBPOST_BLK_RECONNECTING && !d->failfast);
	if (requeue)
		blk_mq_requeue_request(rq, false);
	spin_unlock_irqrestore(&d->state_lock, flags);
	if (!requeue)
		blk_mq_end_request(rq, BLK_STS_IOERR);
	else if (live)
		blk_mq_delay_kick_requeue_list(rq->q, IBPOST_BLK_REQUEUE_MS);
}

/*
 * A request that finds the device not live: a device that reconnects has
 * it wait (BLK_STS_RESOURCE: blk-mq dispatches it again, and the queue is
 * quiesced until the reconnect) unless fast_io_fail_tmo expired, and
 * fails it with BLK_STS_IOERR once the device failed for good; a local one
 * fails it as a lost path, BLK_STS_TRANSPORT.
 */
static blk_status_t ibpost_blk_not_live(struct ibpost_blk_dev *d,
					struct request *rq, int state)
{
	if (!ibpost_blk_can_reconnect(d))
		return BLK_STS_TRANSPORT;
	if (state == IBPOST_BLK_RECONNECTING) {
		/* Its submitter fails over rather than wait (see above). */
		if (blk_noretry_request(rq))
			return BLK_STS_TRANSPORT;
		if (!READ_ONCE(d->failfast))
			return BLK_STS_RESOURCE;
	}
	return BLK_STS_IOERR;
}

/* One session request of @cmd: @n entries of @sg at region byte @off. */
static void ibpost_blk_req_init(struct ibpost_req *req,
				struct ibpost_blk_cmd *cmd, u32 op,
				struct scatterlist *sg, int n, u64 off,
				u32 queue)
{
	memset(req, 0, sizeof(*req));
	req->op = op;
	req->flags = IBPOST_REQ_REGION;
	req->sgl = sg;
	req->nents = n;
	req->remote_offset = off;
	req->queue = queue;
	req->done = ibpost_blk_done;
	req->priv = cmd;
}

/* Entries of the zero page for @len bytes (a page each, the last shorter). */
static int ibpost_blk_zero_nents(u32 len)
{
	return DIV_ROUND_UP(len, PAGE_SIZE);
}

/*
 * @len bytes of the zero page from @sg on (entries of a page, the last
 * shorter).  Return: the entry after the last one filled (NULL at the
 * table's end).
 */
static struct scatterlist *ibpost_blk_zero_sg(struct scatterlist *sg, u32 len)
{
	for (; len; sg = sg_next(sg)) {
		u32 n = min_t(u32, len, PAGE_SIZE);

		sg_set_page(sg, ZERO_PAGE(0), n, 0);
		len -= n;
	}
	return sg;
}

/*
 * WRITE ZEROES and DISCARD: zeros from the zero page, split at the one
 * chunk end the range may cross (disk.c's limits keep it at most a chunk
 * and within d->segs - 1 pages, so both halves' entries fit).
 */
static int ibpost_blk_zero_reqs(struct ibpost_blk_dev *d,
				struct ibpost_blk_cmd *cmd, struct request *rq,
				u32 queue)
{
	u64 off = (u64)blk_rq_pos(rq) << SECTOR_SHIFT;
	u32 len = blk_rq_bytes(rq), chunk = d->lim.region_chunk, first;
	struct scatterlist *half;
	int n;

	first = min(chunk - (u32)(off & (chunk - 1)), len);
	n = ibpost_blk_zero_nents(first);
	if (ibpost_blk_sg_alloc(d, cmd, n + ibpost_blk_zero_nents(len - first)))
		return -ENOMEM;
	half = ibpost_blk_zero_sg(cmd->sgt.sgl, first);
	ibpost_blk_req_init(&cmd->req, cmd, IBPOST_OP_WRITE, cmd->sgt.sgl, n,
			    off, queue);
	if (first == len)
		return 1;
	ibpost_blk_zero_sg(half, len - first);
	ibpost_blk_req_init(&cmd->req2, cmd, IBPOST_OP_WRITE, half,
			    ibpost_blk_zero_nents(len - first), off + first,
			    queue);
	return 2;
}

/* A session refusal: its status, logged with the reason. */
static blk_status_t ibpost_blk_refused(struct ibpost_blk_dev *d,
				       struct ibpost_req *req, int ret)
{
	/* Out of room or memory for now: blk-mq tries again, silently. */
	if (ret == -EAGAIN || (ret == -ENOMEM && req->reason == IBPOST_R_NOMEM))
		return BLK_STS_RESOURCE;
	/*
	 * A failed session (-EIO: its event is on the way, or came) of a
	 * device that reconnects: the request waits for the next session.
	 */
	if (ibpost_blk_status(ret) == BLK_STS_TRANSPORT &&
	    ibpost_blk_can_reconnect(d))
		return BLK_STS_RESOURCE;
	pr_err_ratelimited("%s: request refused: %d: %s\n",
			   d->disk->disk_name, ret,
			   ibpost_blk_reason(req->reason));
	return ibpost_blk_status(ret);
}

static blk_status_t ibpost_blk_queue_rq(struct blk_mq_hw_ctx *hctx,
					const struct blk_mq_queue_data *bd)
{
	struct ibpost_blk_dev *d = hctx->queue->queuedata;
	struct request *rq = bd->rq;
	struct ibpost_blk_cmd *cmd = blk_mq_rq_to_pdu(rq);
	unsigned short nseg;
	int n, nreq = 1, ret, state;
	u32 op = IBPOST_OP_WRITE;

	switch (req_op(rq)) {
	case REQ_OP_READ:
		op = IBPOST_OP_READ;
		break;
	case REQ_OP_WRITE:
	case REQ_OP_DISCARD:
	case REQ_OP_WRITE_ZEROES:
		/*
		 * Root's BLKROSET (blockdev --setro): the block layer only
		 * warns of a write to a read-only disk, so it ends here.
		 */
		if (get_disk_ro(d->disk))
			return BLK_STS_IOERR;
		break;
	default:
		return BLK_STS_NOTSUPP;
	}
	/* Acquire: @sess of a reconnect before its live @state. */
	state = smp_load_acquire(&d->state);
	if (state != IBPOST_BLK_LIVE)
		return ibpost_blk_not_live(d, rq, state);
	/* New from the block layer, not a requeued one: no retry yet. */
	if (!(rq->rq_flags & RQF_DONTPREP)) {
		cmd->retries = 0;
		rq->rq_flags |= RQF_DONTPREP;
	}
	blk_mq_start_request(rq);
	cmd->err = 0;
	cmd->ended = 0;
	if (op == IBPOST_OP_WRITE && req_op(rq) != REQ_OP_WRITE) {
		nreq = ibpost_blk_zero_reqs(d, cmd, rq, hctx->queue_num);
		if (nreq < 0)
			return BLK_STS_RESOURCE;
	} else {
		/* Only the entries this request can fill (its segments). */
		nseg = blk_rq_nr_phys_segments(rq);
		if (WARN_ON_ONCE(!nseg || nseg > d->segs))
			return BLK_STS_IOERR;
		if (ibpost_blk_sg_alloc(d, cmd, nseg))
			return BLK_STS_RESOURCE;
		n = blk_rq_map_sg(rq->q, rq, cmd->sgt.sgl);
		if (WARN_ON_ONCE(n <= 0)) {
			ibpost_blk_sg_free(d, cmd);
			return BLK_STS_IOERR;
		}
		ibpost_blk_req_init(&cmd->req, cmd, op, cmd->sgt.sgl, n,
				    (u64)blk_rq_pos(rq) << SECTOR_SHIFT,
				    hctx->queue_num);
	}
	atomic_set(&cmd->pending, nreq);
	ret = ibpost_submit(d->sess, &cmd->req);
	if (ret) {
		ibpost_blk_sg_free(d, cmd);
		return ibpost_blk_refused(d, &cmd->req, ret);
	}
	if (nreq == 1)
		return BLK_STS_OK;
	ret = ibpost_submit(d->sess, &cmd->req2);
	if (ret) {
		/* The first half ends the request, with this error. */
		ibpost_blk_refused(d, &cmd->req2, ret);
		ibpost_blk_done(&cmd->req2, ret == -EAGAIN ? -ENOMEM : ret);
	}
	return BLK_STS_OK;
}

/*
 * A request outlived the device's timeout (/sys/block/ibpostbN/queue/
 * io_timeout).  If the session ended it already (its completion was lost,
 * as fail_io_timeout fakes), complete it now.  Else the RDMA device or the
 * peer stopped answering: fail the session, which flushes every
 * outstanding request (this one ends through its callback, with
 * BLK_STS_TRANSPORT), and re-arm the timer at once, as nvme-rdma's
 * handler does after it started its error recovery: kblockd never waits
 * for the flush.  A second expiry with the session failed already means
 * the provider never flushed its QP: logged, re-armed again.  A device
 * that reconnects fails the session the same way, and its event starts
 * the reconnect (the flushed request is requeued, io.c's complete); while
 * it reconnects the timer re-arms: the close of the dead session (or the
 * unmap) ends what it holds.  Nothing here waits for another device:
 * ibpost_session_fail() takes no global lock.
 */
static enum blk_eh_timer_return ibpost_blk_timeout(struct request *rq)
{
	struct ibpost_blk_dev *d = rq->q->queuedata;
	struct ibpost_blk_cmd *cmd = blk_mq_rq_to_pdu(rq);
	int ended;

	/* Acquire: pairs with ibpost_blk_done()'s release (@status). */
	ended = smp_load_acquire(&cmd->ended);
	if (ended == IBPOST_BLK_ENDED_LOST)
		blk_mq_complete_request(rq);
	if (ended)
		return BLK_EH_DONE;
	if (ibpost_blk_can_reconnect(d) &&
	    READ_ONCE(d->state) == IBPOST_BLK_RECONNECTING)
		return BLK_EH_RESET_TIMER;
	/*
	 * A device that does not reconnect and failed already (its session's
	 * event, or another request's expiry): the session's flush or close
	 * ends this request.  Not a second call into the session, nor a wait
	 * for @sess_lock, which its error work holds across the close.
	 */
	if (!ibpost_blk_can_reconnect(d) &&
	    READ_ONCE(d->state) == IBPOST_BLK_ERROR &&
	    !READ_ONCE(cmd->err))
		return BLK_EH_RESET_TIMER;
	/*
	 * Timed out again with its session failed by the first time: the
	 * provider has not flushed the QP in error in a whole io_timeout.
	 */
	if (READ_ONCE(cmd->err) == -ETIMEDOUT) {
		pr_err_ratelimited("%s: %s did not flush its QP within %u s\n",
				   d->disk->disk_name, d->map.rdma,
				   rq->timeout / HZ);
		return BLK_EH_RESET_TIMER;
	}
	pr_err_ratelimited("%s: %s at sector %llu timed out after %u s: failing the session's I/O\n",
			   d->disk->disk_name, ibpost_blk_op_name(rq),
			   (unsigned long long)blk_rq_pos(rq),
			   rq->timeout / HZ);
	/* A device that reconnects hears the event (it must be live). */
	if (!ibpost_blk_can_reconnect(d))
		WRITE_ONCE(d->state, IBPOST_BLK_ERROR);
	cmpxchg(&cmd->err, 0, -ETIMEDOUT);
	/* Against the reconnect's close and swap. */
	mutex_lock(&d->sess_lock);
	if (d->sess)
		ibpost_session_fail(d->sess);
	mutex_unlock(&d->sess_lock);
	/*
	 * The QPs' flush ends the request (ibpost_blk_done()), as nvme-rdma's
	 * error recovery does its requests: kblockd does not wait for it.
	 */
	return BLK_EH_RESET_TIMER;
}

const struct blk_mq_ops ibpost_blk_mq_ops = {
	.queue_rq = ibpost_blk_queue_rq,
	.complete = ibpost_blk_complete,
	.timeout = ibpost_blk_timeout,
};

/**
 * ibpost_blk_event() - the session's events: its QP in error, its device
 *	gone.
 * @s: the session (its priv is the device).
 * @ev: IBPOST_EV_*.
 *
 * A device that reconnects (reconnect.c) starts to, from live; the event
 * of a session being opened by the reconnect marks that attempt failed.
 * IBPOST_EV_LOST (this host's RDMA device removed) marks it @dev_gone: the
 * reconnect's work then fails it for good instead of trying again.
 * Else from now on I/O fails at once (the session refuses it as well); the
 * requests outstanding were, or are being, completed with an error by the
 * session.  Context: softirq or process context; never sleeps.
 */
void ibpost_blk_event(struct ibpost_session *s, enum ibpost_session_event ev)
{
	struct ibpost_blk_dev *d = ibpost_session_priv(s);
	unsigned long flags;
	bool done = false;

	spin_lock_irqsave(&d->state_lock, flags);
	/* Not before the disk is added: the map's failure closes it. */
	if (d->added && ibpost_blk_can_reconnect(d)) {
		done = true;
		/* Read without the lock by the works this queues, or after. */
		if (ev == IBPOST_EV_LOST)
			WRITE_ONCE(d->dev_gone, true);
		if (s != d->sess) {
			d->sess_failed = true;
		} else if (d->state == IBPOST_BLK_LIVE) {
			ibpost_blk_lose(d);
			if (ev == IBPOST_EV_LOST)
				pr_warn("%s%d: session lost its RDMA device %s: the device fails\n",
					IBPOST_BLK_NAME, d->id, d->map.rdma);
			else
				pr_warn("%s%d: session in error: reconnecting every %d s\n",
					IBPOST_BLK_NAME, d->id,
					d->map.reconnect_delay);
		}
	}
	spin_unlock_irqrestore(&d->state_lock, flags);
	if (done)
		return;

	if (ev == IBPOST_EV_LOST) {
		WRITE_ONCE(d->state, IBPOST_BLK_LOST);
		pr_warn("%s%d: RDMA device %s removed: I/O fails, unmap the device\n",
			IBPOST_BLK_NAME, d->id, d->map.rdma);
	} else if (READ_ONCE(d->state) == IBPOST_BLK_LIVE) {
		WRITE_ONCE(d->state, IBPOST_BLK_ERROR);
		pr_warn("%s%d: session in error: I/O fails, unmap the device\n",
			IBPOST_BLK_NAME, d->id);
	}
}

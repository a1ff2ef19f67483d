// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: submitting a session's requests and completing them.
 *
 * A request is one RDMA transfer of core/rw.c (the kernel's rdma_rw API
 * builds its WRs; one post; its last WR's completion ends it).  What a
 * session adds: the request's send-queue slots are counted per queue and
 * given back only at completion, which hardware that frees unsignaled
 * slots late needs.  Slots are reserved before rdma_rw is called, for the
 * most WRs the request can need; the spare ones are given back as soon as
 * rdma_rw said how many it built.  Without slots a submitter waits
 * (process context) or gets -EAGAIN (IBPOST_REQ_NOWAIT); it never
 * overruns the send queue.  Each queue of a session has its own QP and
 * slots; the request names it.  A request whose post failed part-way is
 * completed once the session's send queues drained (session.c).
 *
 * Allocation per request: none by ibpost (the caller preallocates the
 * request, the rdma_rw context is in it); rdma_rw's own allocations are
 * core/rw.c's to explain (GFP_NOIO scope; so blk-mq drivers set
 * BLK_MQ_F_BLOCKING).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>

#include "session/session.h"
#include "core/rw.h"
#include "core/testhook.h"

/* Bytes of the request (CPU view of its scatterlist). */
static u64 ibpost_req_len(struct ibpost_req *req)
{
	struct scatterlist *sg;
	u64 len = 0;
	unsigned int i;

	for_each_sg(req->sgl, sg, req->nents, i)
		len += sg->length;
	return len;
}

static int ibpost_req_refuse(struct ibpost_req *req, u32 reason, int err)
{
	req->reason = reason;
	return err;
}

/*
 * KUnit hook (test builds only, core/testhook.h): while set, a completed
 * request does not give its send-queue slots back, so the next submitter
 * finds the queue full and waits for room for as long as the test wants
 * (close_waiter).
 */
static bool ibpost_req_keeps_room(void)
{
	return ibpost_test_read(kunit_keep_room);
}

/**
 * ibpost_req_complete() - end a request: free its rdma_rw context, count
 *	it, call its callback.
 * @s: its session (the initiator QP still there).
 * @req: the request.
 * @status: 0 or a negative errno.
 */
void ibpost_req_complete(struct ibpost_session *s, struct ibpost_req *req,
			 int status)
{
	u64 ns = ktime_get_ns() - req->t_submit;
	struct ibpost_squeue *q = req->q;
	unsigned long flags;
	bool wake;

	ibpost_rw_destroy(&req->rw);
	spin_lock_irqsave(&q->lock, flags);
	if (!ibpost_req_keeps_room())
		q->sq_free += req->rw.nwr;
	q->stats.completed++;
	if (status) {
		q->stats.errors++;
	} else {
		q->stats.bytes += ibpost_req_len(req);
		ibpost_lat_ring_add(&q->lat, ns);
	}
	/* A waiter counted itself under the lock before it slept. */
	wake = q->waiting;
	spin_unlock_irqrestore(&q->lock, flags);
	if (wake)
		wake_up(&s->wq);
	req->done(req, status);
}

/*
 * A failed completion of any WR of a request: counted and traced, the
 * session failed where it must be; the errno it means for the request.
 */
static int ibpost_req_wc_error(struct ibpost_rw *rw, const struct ib_wc *wc)
{
	struct ibpost_req *req = container_of(rw, struct ibpost_req, rw);
	struct ibpost_session *s = req->sess;
	struct ibpost_squeue *q = req->q;
	unsigned long flags;

	ibpost_ep_wc_error(q->ep, wc);
	spin_lock_irqsave(&q->lock, flags);
	if (wc->status < IBPOST_WC_STATUS_MAX)
		q->stats.wc_status[wc->status]++;
	spin_unlock_irqrestore(&q->lock, flags);
	/*
	 * A flush follows the error that put the QP in error, which said so,
	 * or the peer's disconnect did (cm.c: the session is lost), on this
	 * request's queue: any lost queue fails the session.
	 */
	if (wc->status != IB_WC_WR_FLUSH_ERR || READ_ONCE(q->ep->lost))
		ibpost_session_error(s);
	if (wc->status == IB_WC_WR_FLUSH_ERR && READ_ONCE(s->kill_err))
		return READ_ONCE(s->kill_err);
	return -EIO;
}

/* The request's last WR completed: the whole request is done. */
static void ibpost_req_end(struct ibpost_rw *rw)
{
	struct ibpost_req *req = container_of(rw, struct ibpost_req, rw);

	ibpost_req_complete(req->sess, req, rw->status);
}

static const struct ibpost_rw_ops ibpost_req_rw_ops = {
	.error = ibpost_req_wc_error,
	.end = ibpost_req_end,
};

/*
 * Check what can be checked before touching the device; *@len: the
 * request's bytes.  A region request's far end is found once the session
 * is known to stay (ibpost_region_target(), after the reservation).
 */
static int ibpost_req_check(struct ibpost_session *s, struct ibpost_req *req,
			    u64 *len)
{
	bool region = req->flags & IBPOST_REQ_REGION;

	req->reason = IBPOST_R_NONE;
	if (req->flags & ~IBPOST_REQ_FLAGS)
		return ibpost_req_refuse(req, IBPOST_R_FLAGS, -EINVAL);
	if (req->op != IBPOST_OP_WRITE && req->op != IBPOST_OP_READ)
		return ibpost_req_refuse(req, IBPOST_R_OPCODE, -EOPNOTSUPP);
	if (req->queue >= s->nr_queues)
		return ibpost_req_refuse(req, IBPOST_R_QUEUE, -EINVAL);
	if (!req->done || (!region && !req->remote) || !req->sgl ||
	    !req->nents)
		return ibpost_req_refuse(req, IBPOST_R_SGE_COUNT, -EINVAL);
	*len = ibpost_req_len(req);
	if (!*len)
		return ibpost_req_refuse(req, IBPOST_R_SGE_ZERO, -EINVAL);
	req->q = &s->queues[req->queue];
	if (region)
		return 0;
	if (req->remote_offset > req->remote->length ||
	    *len > req->remote->length - req->remote_offset)
		return ibpost_req_refuse(req, IBPOST_R_SGE_RANGE, -EINVAL);
	req->rw.raddr = req->remote->addr + req->remote_offset;
	req->rw.rkey = req->remote->rkey;
	return 0;
}

/* Why a session that is not live refuses a request. */
static int ibpost_req_refuse_state(struct ibpost_req *req, int state)
{
	return ibpost_req_refuse(req, IBPOST_R_DEVICE_GONE,
				 state == IBPOST_S_ERROR ? -EIO : -ENOTCONN);
}

/*
 * Reserve the slots @req can need, *@max_wr (computed here, where the QP
 * is known to exist), count the request and join its queue's submitters,
 * whom the session's death waits for.  Waits for room unless
 * IBPOST_REQ_NOWAIT.  Only the queue's lock is taken: the session's state
 * is read under it (the death takes it after setting the state).
 */
static int ibpost_req_reserve(struct ibpost_session *s, struct ibpost_req *req,
			      u32 *max_wr)
{
	struct ibpost_squeue *q = req->q;
	unsigned long flags;
	bool counted = false;
	int state;
	u32 n = 0;

	for (;;) {
		spin_lock_irqsave(&q->lock, flags);
		state = READ_ONCE(s->state);
		if (state != IBPOST_S_LIVE) {
			spin_unlock_irqrestore(&q->lock, flags);
			return ibpost_req_refuse_state(req, state);
		}
		if (!n) {
			n = ibpost_rw_worst(q->ep, req->op == IBPOST_OP_READ,
					    req->nents);
			if (n > s->attr.depth) {
				spin_unlock_irqrestore(&q->lock, flags);
				return ibpost_req_refuse(req, IBPOST_R_DEPTH,
							 -EINVAL);
			}
		}
		if (q->sq_free >= n) {
			q->sq_free -= n;
			q->posting++;
			q->stats.requests++;
			spin_unlock_irqrestore(&q->lock, flags);
			*max_wr = n;
			return 0;
		}
		if (!counted)
			q->stats.sq_full++;
		counted = true;
		if (req->flags & IBPOST_REQ_NOWAIT) {
			spin_unlock_irqrestore(&q->lock, flags);
			return -EAGAIN;
		}
		/* Counted: completions wake us, the session's death waits. */
		q->waiting++;
		spin_unlock_irqrestore(&q->lock, flags);
		wait_event(s->wq, READ_ONCE(q->sq_free) >= n ||
			   READ_ONCE(s->state) != IBPOST_S_LIVE);
		if (READ_ONCE(s->state) != IBPOST_S_LIVE)
			ibpost_test_hold("woken waiter",
					 session_test_wake_ms);
		spin_lock_irqsave(&q->lock, flags);
		q->waiting--;
		state = READ_ONCE(s->state);
		if (state != IBPOST_S_LIVE) {
			/* Under the lock: the dying session checks @waiting. */
			wake_up_all(&s->wq);
			spin_unlock_irqrestore(&q->lock, flags);
			return ibpost_req_refuse_state(req, state);
		}
		spin_unlock_irqrestore(&q->lock, flags);
	}
}

/*
 * Leave the submitters of @q: give back @spare slots, count the @wrs the
 * provider took, and take back the request's count when it never started
 * (!@started: refused after its reservation).
 */
static void ibpost_req_unreserve(struct ibpost_session *s,
				 struct ibpost_squeue *q, u32 spare, u32 wrs,
				 bool started)
{
	unsigned long flags;

	spin_lock_irqsave(&q->lock, flags);
	q->sq_free += spare;
	q->stats.wrs += wrs;
	if (!started)
		q->stats.requests--;
	q->posting--;
	/*
	 * Under the lock: a dying session checks @posting under it (and set
	 * its state before); a waiter counted itself under it.
	 */
	if (q->waiting || READ_ONCE(s->state) != IBPOST_S_LIVE)
		wake_up_all(&s->wq);
	spin_unlock_irqrestore(&q->lock, flags);
}

/*
 * ib_post_send() took only the WRs before the bad one: the request cannot
 * end through its last WR's completion.  Put the QP in error so the taken
 * WRs flush, and complete the request when the session is drained.  The
 * QP's state changes in a work item: ib_modify_qp() may sleep, and a
 * NOWAIT submitter may be in atomic context; the session refuses further
 * submissions at once.
 */
static void ibpost_req_orphan(struct ibpost_session *s, struct ibpost_req *req,
			      int err)
{
	unsigned long flags;

	req->rw.status = err;
	spin_lock_irqsave(&s->lock, flags);
	list_add_tail(&req->node, &s->orphans);
	spin_unlock_irqrestore(&s->lock, flags);
	ibpost_session_queue_err(s);
	ibpost_session_error(s);
}

/*
 * Post the request's chain; 0 once the request is the session's.
 * *@taken: the WRs the provider took.
 */
static int ibpost_req_post(struct ibpost_session *s, struct ibpost_req *req,
			   u32 *taken)
{
	int ret;

	req->t_submit = ktime_get_ns();
	ret = ibpost_rw_post(&req->rw, taken);
	if (!ret)
		return 0;
	if (!*taken)
		return ibpost_req_refuse(req, IBPOST_R_POST, ret);
	ibpost_req_orphan(s, req, ret);
	return 0;
}

/**
 * ibpost_submit() - start a request on a session.
 * @s: the session.
 * @req: the request; owned by ibpost until its @done callback returns.
 *
 * rdma_rw_ctx_init() maps the scatterlist (and registers it where the
 * device needs an MR) and builds the WRs: split at the QP's SGE limits,
 * max_sge for WRITE and the smaller of it and max_sge_rd for READ.  The
 * mapping and any MR are released before @done is called.
 *
 * Context: process context, may sleep: waiting for send-queue room, and in
 * rdma_rw_ctx_init()'s allocations.  IBPOST_REQ_NOWAIT never waits for
 * room; a request of one entry on a device that registers nothing (no
 * iWARP READ, no force_mr) allocates nothing either and may then be
 * submitted from any context.
 * Return: 0 when accepted (@done will be called exactly once); else the
 * request was not started, @done is not called, @req->reason says why:
 * -EINVAL (bad request, no such queue: IBPOST_R_QUEUE, a region request
 * outside the region or across one of its MRs: IBPOST_R_REGION_CROSS, more
 * WRs than the session's depth, or entries an MR cannot map: IBPOST_R_FRPL), -EOPNOTSUPP (opcode), -EAGAIN (send queue
 * full with IBPOST_REQ_NOWAIT), -EIO (the session's QP is in error),
 * -ENOTCONN (closed or device gone), -ENOMEM (or another mapping error of
 * rdma_rw_ctx_init()), or the provider's error from ib_post_send().
 */
int ibpost_submit(struct ibpost_session *s, struct ibpost_req *req)
{
	struct ibpost_squeue *q;
	u32 max_wr, nwr, taken = 0;
	u64 len;
	int ret;

	ret = ibpost_req_check(s, req, &len);
	if (ret)
		return ret;
	if (!(req->flags & IBPOST_REQ_NOWAIT))
		might_sleep();
	ret = ibpost_req_reserve(s, req, &max_wr);
	if (ret)
		return ret;
	req->sess = s;
	req->rw.ops = &ibpost_req_rw_ops;
	req->rw.sgl = req->sgl;
	req->rw.nents = req->nents;
	req->rw.read = req->op == IBPOST_OP_READ;
	req->rw.signal_all = req->flags & IBPOST_REQ_SIGNAL_ALL;
	INIT_LIST_HEAD(&req->node);
	if (req->flags & IBPOST_REQ_REGION) {
		ret = ibpost_region_target(s, req, len);
		if (ret)
			goto err_unreserve;
	}
	ret = ibpost_rw_init(&req->rw, req->q->ep, &req->reason);
	if (ret < 0)
		goto err_unreserve;
	/* The reservation is the send queue's bound: never post past it. */
	if (WARN_ON_ONCE(!ret || ret > max_wr)) {
		ret = ibpost_req_refuse(req, IBPOST_R_DEPTH, -EINVAL);
		goto err_destroy;
	}
	/*
	 * Once posted, @req may complete (and be reused) at any moment, on
	 * another CPU or within the post itself.
	 */
	nwr = ret;
	q = req->q;
	ret = ibpost_req_post(s, req, &taken);
	if (ret)
		goto err_destroy;
	/* The request holds its nwr slots until it completes. */
	ibpost_req_unreserve(s, q, max_wr - nwr, taken, true);
	return 0;

err_destroy:
	ibpost_rw_destroy(&req->rw);
err_unreserve:
	ibpost_req_unreserve(s, req->q, max_wr, 0, false);
	return ret;
}
EXPORT_SYMBOL_GPL(ibpost_submit);

// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: endpoints.
 *
 * An endpoint is one RC QP and its CQ.  This file is the only place in
 * ibpost that calls ib_post_send(), ib_post_recv() and
 * ib_process_cq_direct() (rdma_rw's own posting aside): one post function
 * that tells its caller how many WRs of a chain the provider took, one
 * "poll until a condition, a stop or a deadline", and one rule for error
 * completions during teardown (a flush while draining is not an error).
 * Endpoints polled from softirq (sessions) or a workqueue (served
 * connections) take their CQ from the device's CQ pool; the others are
 * polled by their owner's thread.
 *
 * Every chain posted and every failed completion is seen here, so their
 * tracepoints fire here, and the one log line of an error completion is
 * written here (rate-limited).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/bottom_half.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/sched.h>

#include "core/ep.h"
#include "core/trace.h"

/* One spare send and receive slot for ib_drain_qp(). */
#define IBPOST_EP_DRAIN_SLOTS	1

/* Free the endpoint's PD if it is its own (every MR in it freed first). */
static void ibpost_ep_pd_put(struct ibpost_ep *ep)
{
	if (ep->pd_owned)
		ib_dealloc_pd(ep->pd);
	ep->pd_owned = false;
	ep->pd = NULL;
}

/**
 * ibpost_ep_cq() - start an endpoint: its CQ.
 * @ep: zeroed endpoint.
 * @ibdev: the device.
 * @share: the endpoint of the same trust domain whose PD this one uses
 *	(the target of a loopback pair shares its initiator's), or NULL: the
 *	endpoint allocates a PD of its own, freed by ibpost_ep_destroy().
 *	An endpoint detached from its QP (ibpost_ep_detach()) keeps its PD:
 *	pass NULL.
 * @port: port number.
 * @caps: queue sizes and polling context.
 *
 * The PD is the trust domain: an rkey of one of its MRs works only on a QP
 * of the same PD, so every served connection, session and job has its own
 * and a peer holding the rkey and address of another one's MR gets a
 * remote access error.  The CQ holds a completion for every send and
 * receive WR the QP can have outstanding, the drain slots included.
 *
 * Context: process context, may sleep.
 * Return: 0 or a negative errno (nothing allocated).
 */
int ibpost_ep_cq(struct ibpost_ep *ep, struct ib_device *ibdev,
		 struct ibpost_ep *share, u32 port,
		 const struct ibpost_ep_caps *caps)
{
	u32 n = caps->send_wr + caps->recv_wr + 2 * IBPOST_EP_DRAIN_SLOTS;
	struct ib_cq *cq;
	bool new_pd = false;
	int ret;

	ep->ibdev = ibdev;
	ep->port = port;
	ep->owner = caps->owner ?: KBUILD_MODNAME;
	if (ep->pd) {
		/* Detached (ibpost_ep_detach()): its PD and MRs stay. */
	} else if (share) {
		ep->pd = share->pd;
	} else {
		/* Its MRs take the PD's name in the resource tracking. */
		ep->pd = __ib_alloc_pd(ibdev, 0, ep->owner);
		if (IS_ERR(ep->pd)) {
			ret = PTR_ERR(ep->pd);
			ep->pd = NULL;
			return ret;
		}
		ep->pd_owned = true;
		new_pd = true;
	}
	init_waitqueue_head(&ep->wq);
	if (caps->poll == IB_POLL_DIRECT) {
		cq = __ib_alloc_cq(ibdev, NULL, n, 0, IB_POLL_DIRECT,
				   ep->owner);
		ep->bh_post = true;
	} else {
		/* The pool would allocate CQs forever for an impossible size. */
		if (n > (u32)ibdev->attrs.max_cqe) {
			ret = -EINVAL;
			goto err_pd;
		}
		/* Shared per-CPU CQs, as nvme-rdma and the rw API users do. */
		cq = ib_cq_pool_get(ibdev, n, (int)caps->cq_vector - 1,
				    caps->poll);
		ep->cq_pooled = true;
	}
	if (IS_ERR(cq)) {
		ret = PTR_ERR(cq);
		goto err_pd;
	}
	ep->cq = cq;
	ep->cq_size = n;
	return 0;

err_pd:
	ep->cq_pooled = false;
	if (new_pd || !ep->pd_owned)
		ibpost_ep_pd_put(ep);
	return ret;
}

/**
 * ibpost_ep_qp_attr() - init attributes of the endpoint's RC QP.
 * @ep: endpoint whose CQ exists.
 * @caps: queue sizes.
 * @init: filled; one send and one receive slot are added for the drain.
 */
void ibpost_ep_qp_attr(struct ibpost_ep *ep, const struct ibpost_ep_caps *caps,
		       struct ib_qp_init_attr *init)
{
	memset(init, 0, sizeof(*init));
	init->qp_type = IB_QPT_RC;
	init->send_cq = ep->cq;
	init->recv_cq = ep->cq;
	init->sq_sig_type = IB_SIGNAL_REQ_WR;
	init->cap.max_send_wr = caps->send_wr + IBPOST_EP_DRAIN_SLOTS;
	init->cap.max_send_sge = caps->send_sge;
	init->cap.max_inline_data = caps->inline_data;
	init->cap.max_recv_wr = caps->recv_wr + IBPOST_EP_DRAIN_SLOTS;
	init->cap.max_recv_sge = max_t(u32, caps->recv_sge, 1);
	/* rdma_rw sizes the send queue and the QP's MR pool from these. */
	if (caps->rdma_ctxs) {
		init->port_num = ep->port;
		init->cap.max_rdma_ctxs = caps->rdma_ctxs;
	}
}

/**
 * ibpost_ep_qp_set() - the endpoint's QP exists (ib_create_qp_kernel() or
 *	rdma_create_qp()): note what the provider granted.
 * @ep: the endpoint.
 * @qp: its QP.
 * @init: attributes after creation.
 *
 * rdma_create_qp() takes no caller name on 6.1 (and the resource
 * tracking's setter is private to ib_core): its QPs are rdma_cm's in
 * ``rdma resource``; their PD (its pdn) carries the owner's name.
 */
void ibpost_ep_qp_set(struct ibpost_ep *ep, struct ib_qp *qp,
		      const struct ib_qp_init_attr *init)
{
	ep->qp = qp;
	ep->granted = init->cap;
	ep->granted.max_send_wr -= IBPOST_EP_DRAIN_SLOTS;
	ep->granted.max_recv_wr -= IBPOST_EP_DRAIN_SLOTS;
	atomic_set(&ep->credit, ep->granted.max_send_wr);
}

/**
 * ibpost_ep_qp() - create the endpoint's QP (connected directly later).
 * @ep: endpoint whose CQ exists.
 * @caps: queue sizes.
 *
 * Context: process context, may sleep.
 * Return: 0 or the provider's negative errno.
 */
int ibpost_ep_qp(struct ibpost_ep *ep, const struct ibpost_ep_caps *caps)
{
	struct ib_qp_init_attr init;
	struct ib_qp *qp;

	ibpost_ep_qp_attr(ep, caps, &init);
	qp = ib_create_qp_kernel(ep->pd, &init, ep->owner);
	if (IS_ERR(qp))
		return PTR_ERR(qp);
	ibpost_ep_qp_set(ep, qp, &init);
	return 0;
}

/**
 * ibpost_ep_post() - post a chain of send WRs.
 * @ep: the endpoint.
 * @first: the chain.
 * @taken: out (may be NULL): WRs the provider took, also on failure (the
 *	WRs before the one it refused; they will complete).
 *
 * With @ep->bh_post, bottom halves are off around the post: work a
 * software provider defers to a tasklet is only marked pending (no
 * ksoftirqd wake-up and context switch per post) and runs right here when
 * they are turned back on.
 *
 * The ibpost_post tracepoint sees every chain: its WRs and bytes are
 * counted only while it is enabled.
 *
 * Context: any (process context for a bh_post endpoint).
 * Return: 0 or the provider's negative errno.
 */
int ibpost_ep_post(struct ibpost_ep *ep, struct ib_send_wr *first,
		   u32 *taken)
{
	const struct ib_send_wr *bad = NULL, *wr;
	bool tracing = trace_ibpost_post_enabled();
	u32 n = 0, all = 0;
	u64 bytes = 0;
	int ret, i;

	/*
	 * Counted before the post: once posted, the chain may complete and
	 * be freed (a session request's rdma_rw WRs) at any moment.
	 */
	for (wr = first; (taken || tracing) && wr; wr = wr->next) {
		all++;
		/* The bytes the SGEs describe: for the tracepoint only. */
		for (i = 0; tracing && i < wr->num_sge; i++)
			bytes += wr->sg_list[i].length;
	}
	if (ep->bh_post) {
		local_bh_disable();
		ret = ib_post_send(ep->qp, first, &bad);
		local_bh_enable();
	} else {
		ret = ib_post_send(ep->qp, first, &bad);
	}
	if (!ret) {
		n = all;
	} else if (taken || tracing) {
		/* Refused at @bad: nothing completes or frees the chain. */
		for (wr = first; wr && wr != bad; wr = wr->next)
			n++;
	}
	trace_ibpost_post(ep->qp->qp_num, all, bytes, n, ret);
	if (taken)
		*taken = n;
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_ep_post);

/**
 * ibpost_ep_post_recv() - post one receive WR (or a chain).
 * @ep: the endpoint.
 * @wr: the WR.
 *
 * Return: 0 or the provider's negative errno.
 */
int ibpost_ep_post_recv(struct ibpost_ep *ep, struct ib_recv_wr *wr)
{
	return ib_post_recv(ep->qp, wr, NULL);
}

/**
 * ibpost_ep_poll() - reap completions of a directly polled endpoint.
 * @ep: the endpoint.
 *
 * Context: the owner's thread.
 * Return: completions reaped (their handlers ran).
 */
int ibpost_ep_poll(struct ibpost_ep *ep)
{
	return ib_process_cq_direct(ep->cq, IBPOST_EP_BUDGET);
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_ep_poll);

/**
 * ibpost_ep_wc_error() - is a failed completion an error?
 * @ep: the endpoint it came from.
 * @wc: a completion whose status is not IB_WC_SUCCESS.
 *
 * A flush while the endpoint drains is the expected end of a WR, not an
 * error.  The first error is kept in @ep->wc_status.  Every failed
 * completion is traced (ibpost_wc); an error that is not a flush (a
 * flush is the consequence of an earlier error or a disconnect) is also
 * logged, rate-limited, with its status, QP and vendor error.
 * Handlers call this once per completion, before anything else sees it.
 *
 * Context: the CQ's handler (any).
 * Return: true when @wc counts as an error.
 */
bool ibpost_ep_wc_error(struct ibpost_ep *ep, const struct ib_wc *wc)
{
	bool counted = wc->status != IB_WC_WR_FLUSH_ERR ||
		       !READ_ONCE(ep->draining);

	trace_ibpost_wc(ep, wc, counted);
	if (!counted)
		return false;
	if (wc->status != IB_WC_WR_FLUSH_ERR)
		pr_err_ratelimited("%s: QP 0x%x (%s): error completion: %s (status %d, vendor error 0x%x)\n",
				   dev_name(&ep->ibdev->dev), ep->qp->qp_num,
				   ep->owner, ib_wc_status_msg(wc->status),
				   wc->status, wc->vendor_err);
	if (cmpxchg(&ep->wc_status, IB_WC_SUCCESS, wc->status) ==
	    IB_WC_SUCCESS)
		WRITE_ONCE(ep->wc_vendor, wc->vendor_err);
	return true;
}

static int ibpost_ep_round(const struct ibpost_ep_wait *w)
{
	int i, got = 0, direct = 0;

	for (i = 0; i < ARRAY_SIZE(w->ep); i++) {
		if (!w->ep[i])
			continue;
		if (w->ep[i]->cq->poll_ctx == IB_POLL_DIRECT) {
			got += ibpost_ep_poll(w->ep[i]);
			direct++;
		}
	}
	if (!direct) {
		/* Softirq or a workqueue polls the CQ; its handlers wake us. */
		wait_event_timeout(w->ep[0]->wq, w->done(w->arg) ||
				   (w->pending && w->pending(w->arg)),
				   msecs_to_jiffies(10));
		return 1;
	}
	return got;
}

/**
 * ibpost_ep_poll_until() - reap completions until a condition holds.
 * @w: endpoints, condition, stop test, work per round and deadline.
 *
 * Each round checks @w->done, then @w->stop and the deadline, does
 * @w->kick, and reaps the endpoints' CQs (an endpoint polled in softirq
 * or a workqueue is waited on instead, up to 10 ms, woken by
 * ibpost_ep_wake()).  A busy or idle round
 * ends with cond_resched(): the wait never hogs the CPU.  Once nothing
 * has completed for a scheduler tick, idle rounds also sleep briefly:
 * providers that do their work in kernel threads (siw's transmit and
 * receive threads) then get the CPU, and a waiting job costs little.
 *
 * Context: process context.
 * Return: 0 once @w->done holds, -ETIMEDOUT at the deadline, or what
 * @w->stop returned.
 */
int ibpost_ep_poll_until(const struct ibpost_ep_wait *w)
{
	unsigned long busy = jiffies;
	int ret;

	for (;;) {
		if (w->done(w->arg))
			return 0;
		ret = w->stop ? w->stop(w->arg) : 0;
		if (ret)
			return ret;
		if (w->deadline && time_after(jiffies, w->deadline))
			return -ETIMEDOUT;
		if (w->kick)
			w->kick(w->arg);
		if (ibpost_ep_round(w)) {
			busy = jiffies;
		} else if (w->idle) {
			w->idle(w->arg);
		} else {
			ibpost_softirq_flush();
			if (time_after(jiffies, busy + 1))
				usleep_range(20, 50);
		}
		cond_resched();
	}
}

/**
 * ibpost_ep_credit_take() - take @n send-queue slots.
 * @ep: the endpoint.
 * @n: slots.
 *
 * Context: any.
 * Return: true when they were free (and are now taken).
 */
bool ibpost_ep_credit_take(struct ibpost_ep *ep, u32 n)
{
	int old = atomic_read(&ep->credit);

	do {
		if (old < (int)n)
			return false;
	} while (!atomic_try_cmpxchg(&ep->credit, &old, old - n));
	return true;
}

/**
 * ibpost_ep_credit_give() - give back @n send-queue slots.
 * @ep: the endpoint.
 * @n: slots whose WRs are known complete.
 *
 * Context: any.
 */
void ibpost_ep_credit_give(struct ibpost_ep *ep, u32 n)
{
	atomic_add(n, &ep->credit);
}

/**
 * ibpost_ep_wake() - wake a waiter of an endpoint polled in softirq or a
 *	workqueue.
 * @ep: the endpoint.
 *
 * A completion was handled.
 *
 * Context: any (completion handlers).
 */
void ibpost_ep_wake(struct ibpost_ep *ep)
{
	if (ep->cq->poll_ctx != IB_POLL_DIRECT)
		wake_up_all(&ep->wq);
}

/**
 * ibpost_ep_set_error() - move the QP to the error state: every WR posted
 *	flushes.
 * @ep: the endpoint.
 *
 * Context: process context (providers may sleep in ib_modify_qp()).
 */
void ibpost_ep_set_error(struct ibpost_ep *ep)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

	/* Providers may sleep here (not rxe): say so on every provider. */
	might_sleep();
	ib_modify_qp(ep->qp, &attr, IB_QP_STATE);
}

/**
 * ibpost_ep_drain() - flush the QP: every WR posted completes.
 * @ep: the endpoint (no QP: nothing to do).
 *
 * Flush completions are not errors from now on.
 *
 * Context: process context; for a direct CQ, polls it.
 */
void ibpost_ep_drain(struct ibpost_ep *ep)
{
	WRITE_ONCE(ep->draining, true);
	if (ep->qp)
		ib_drain_qp(ep->qp);
}

/**
 * ibpost_ep_drain_sq() - wait until every send WR posted has completed.
 * @ep: the endpoint, its QP in error (no QP: nothing to do).
 *
 * ib_drain_sq(): the send queue's flushes are delivered before it returns.
 * The receive queue and later posts are left alone.
 *
 * Context: process context; for a direct CQ, polls it.
 */
void ibpost_ep_drain_sq(struct ibpost_ep *ep)
{
	if (ep->qp)
		ib_drain_sq(ep->qp);
}

/* The QP, then the CQ: the first steps of every teardown. */
static void ibpost_ep_qp_cq_free(struct ibpost_ep *ep)
{
	if (ep->qp && ep->cm_id)
		rdma_destroy_qp(ep->cm_id);
	else if (ep->qp)
		ib_destroy_qp(ep->qp);
	ep->qp = NULL;
	if (ep->cq && ep->cq_pooled)
		ib_cq_pool_put(ep->cq, ep->cq_size);
	else if (ep->cq)
		ib_free_cq(ep->cq);
	ep->cq = NULL;
	ep->cq_pooled = false;
}

/**
 * ibpost_ep_detach() - free the QP, the CQ and the rdma_cm id, keep the PD.
 * @ep: the endpoint, drained and disconnected; its PD its own.
 *
 * What a served session whose connection was lost keeps for its client:
 * the PD, and in it the MRs of its region, which stay valid (a fast-reg
 * MR lives until invalidated or deregistered, whatever happens to the QP
 * that registered it).  ibpost_ep_cq() on the same endpoint then builds a
 * QP in that PD for the connection that takes the region back, and
 * ibpost_ep_destroy() frees the PD when it is not taken back.  The
 * endpoint's state (error, loss, drain) starts afresh.
 */
void ibpost_ep_detach(struct ibpost_ep *ep)
{
	ibpost_ep_qp_cq_free(ep);
	if (ep->cm_release)
		ep->cm_release(ep);
	ep->draining = false;
	ep->lost = false;
	ep->wc_status = IB_WC_SUCCESS;
	ep->wc_vendor = 0;
}

/**
 * ibpost_ep_destroy() - free the QP, the CQ, the endpoint's own PD and its
 *	rdma_cm id: the one teardown of every endpoint, direct, client,
 *	served or joined.
 * @ep: the endpoint, drained (and disconnected, ibpost_cm_disconnect());
 *	may be partly built.  Every MR in its PD is deregistered before, and
 *	an endpoint sharing its PD is destroyed before it.
 *
 * The QP goes first, the id last, then its event context: no event can
 * reach a freed context (&ibpost_ep.cm_release, core/cm.c).  An id the
 * endpoint does not own (@cm_owned false: a served connection refused in
 * its handler) stays for rdma_cm.
 */
void ibpost_ep_destroy(struct ibpost_ep *ep)
{
	ibpost_ep_qp_cq_free(ep);
	ibpost_ep_pd_put(ep);
	if (ep->cm_release)
		ep->cm_release(ep);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: submitting a session's requests and completing them.
 *
 * A request's scatterlist is DMA-mapped, turned into SGEs (split.c) and
 * split into WRs of at most max_sge SGEs (max_sge_rd for READ); each WR
 * addresses the next bytes of the remote buffer.  The WRs go to the
 * provider as one chain and only the last is signaled (unless the caller
 * asks for every one): its completion means every WR of the request is
 * done, in order on an RC QP.  The request's send-queue slots are counted
 * by ibpost and given back only then, which is what hardware that frees
 * unsignaled slots late needs.
 *
 * Slots are reserved before anything is mapped: for the most WRs the
 * request can need (merging only lowers it); the spare ones are returned
 * after mapping.  Without slots a submitter waits (process context) or
 * gets -EAGAIN (IBPOST_REQ_NOWAIT); it never overruns the send queue.
 */
#include <linux/ktime.h>
#include <linux/slab.h>

#include "session.h"
#include "split.h"
#include "stats.h"

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

static enum dma_data_direction ibpost_req_dir(const struct ibpost_req *req)
{
	return req->op == IBPOST_OP_READ ? DMA_FROM_DEVICE : DMA_TO_DEVICE;
}

/**
 * ibpost_req_complete() - unmap a request, count it, call its callback.
 * @s: its session (device resources still there).
 * @req: the request.
 * @status: 0 or a negative errno.
 */
void ibpost_req_complete(struct ibpost_session *s, struct ibpost_req *req,
			 int status)
{
	u64 ns = ktime_get_ns() - req->t_submit;
	unsigned long flags;

	ib_dma_unmap_sg(s->ep->ibdev, req->sgl, req->nents,
			ibpost_req_dir(req));
	spin_lock_irqsave(&s->lock, flags);
	s->sq_free += req->nwr;
	s->stats.completed++;
	s->stats.inflight--;
	if (status) {
		s->stats.errors++;
	} else {
		s->stats.bytes += ibpost_req_len(req);
		s->stats.lat_hist[ibpost_hist_bucket(ns)]++;
	}
	spin_unlock_irqrestore(&s->lock, flags);
	wake_up(&s->wq);
	req->done(req, status);
}

/* The errno a completion status means for the request. */
static int ibpost_wc_errno(struct ibpost_session *s, const struct ib_wc *wc)
{
	if (wc->status == IB_WC_SUCCESS)
		return 0;
	if (wc->status == IB_WC_WR_FLUSH_ERR && READ_ONCE(s->kill_err))
		return READ_ONCE(s->kill_err);
	return -EIO;
}

static void ibpost_count_wc(struct ibpost_session *s, const struct ib_wc *wc)
{
	unsigned long flags;

	spin_lock_irqsave(&s->lock, flags);
	if (wc->status < IBPOST_WC_STATUS_MAX)
		s->stats.wc_status[wc->status]++;
	spin_unlock_irqrestore(&s->lock, flags);
	if (wc->status != IB_WC_WR_FLUSH_ERR)
		ibpost_session_error(s);
}

/* Completion of a request's last WR: the whole request is done. */
static void ibpost_req_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ibpost_req *req = container_of(wc->wr_cqe, struct ibpost_req,
					      cqe);
	struct ibpost_session *s = req->sess;
	int err = ibpost_wc_errno(s, wc);

	if (err)
		ibpost_count_wc(s, wc);
	if (err && !req->status)
		req->status = err;
	ibpost_req_complete(s, req, req->status);
}

/* Completion of another WR: only errors (or IBPOST_REQ_SIGNAL_ALL). */
static void ibpost_req_mid_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ibpost_req *req = container_of(wc->wr_cqe, struct ibpost_req,
					      cqe_mid);
	struct ibpost_session *s = req->sess;
	int err = ibpost_wc_errno(s, wc);

	if (!err)
		return;
	ibpost_count_wc(s, wc);
	if (!req->status)
		req->status = err;
}

/* Check what can be checked before touching the device. */
static int ibpost_req_check(struct ibpost_session *s, struct ibpost_req *req,
			    u32 *max_wr)
{
	u32 max_sge = req->op == IBPOST_OP_READ ? s->max_sge_rd : s->max_sge;
	u64 len;

	req->reason = IBPOST_R_NONE;
	if (req->flags & ~IBPOST_REQ_FLAGS)
		return ibpost_req_refuse(req, IBPOST_R_FLAGS, -EINVAL);
	if (req->op != IBPOST_OP_WRITE && req->op != IBPOST_OP_READ)
		return ibpost_req_refuse(req, IBPOST_R_OPCODE, -EOPNOTSUPP);
	if (!req->done || !req->remote || !req->sgl || !req->nents)
		return ibpost_req_refuse(req, IBPOST_R_SGE_COUNT, -EINVAL);
	len = ibpost_req_len(req);
	if (!len)
		return ibpost_req_refuse(req, IBPOST_R_SGE_ZERO, -EINVAL);
	if (req->remote_offset > req->remote->length ||
	    len > req->remote->length - req->remote_offset)
		return ibpost_req_refuse(req, IBPOST_R_SGE_RANGE, -EINVAL);
	*max_wr = ibpost_split_nwr(req->nents, max_sge);
	if (*max_wr > s->attr.depth)
		return ibpost_req_refuse(req, IBPOST_R_DEPTH, -EINVAL);
	return 0;
}

/*
 * Reserve @n slots and join the submitters the session's death waits
 * for.  Waits for room unless IBPOST_REQ_NOWAIT.
 */
static int ibpost_req_reserve(struct ibpost_session *s, struct ibpost_req *req,
			      u32 n)
{
	unsigned long flags;
	bool counted = false;

	for (;;) {
		spin_lock_irqsave(&s->lock, flags);
		if (s->state != IBPOST_S_LIVE) {
			spin_unlock_irqrestore(&s->lock, flags);
			return ibpost_req_refuse(req, IBPOST_R_DEVICE_GONE,
						 s->state == IBPOST_S_ERROR ?
						 -EIO : -ENOTCONN);
		}
		if (s->sq_free >= n) {
			s->sq_free -= n;
			s->posting++;
			spin_unlock_irqrestore(&s->lock, flags);
			return 0;
		}
		if (!counted)
			s->stats.sq_full++;
		counted = true;
		spin_unlock_irqrestore(&s->lock, flags);
		if (req->flags & IBPOST_REQ_NOWAIT)
			return -EAGAIN;
		wait_event(s->wq, READ_ONCE(s->sq_free) >= n ||
			   READ_ONCE(s->state) != IBPOST_S_LIVE);
	}
}

/* Leave the submitters; give back @spare slots. */
static void ibpost_req_unreserve(struct ibpost_session *s, u32 spare)
{
	unsigned long flags;

	spin_lock_irqsave(&s->lock, flags);
	s->sq_free += spare;
	s->posting--;
	spin_unlock_irqrestore(&s->lock, flags);
	wake_up_all(&s->wq);
}

/* Build the request's WR chain over @sges. */
static void ibpost_req_build(struct ibpost_session *s, struct ibpost_req *req,
			     struct ib_rdma_wr *wrs, struct ib_sge *sges,
			     u32 nsge, u32 max_sge)
{
	u64 raddr = req->remote->addr + req->remote_offset;
	u32 i, n;

	for (i = 0; i < req->nwr; i++, sges += n, nsge -= n) {
		n = min(nsge, max_sge);
		wrs[i].wr.opcode = req->op == IBPOST_OP_READ ?
				   IB_WR_RDMA_READ : IB_WR_RDMA_WRITE;
		wrs[i].wr.sg_list = sges;
		wrs[i].wr.num_sge = n;
		wrs[i].wr.wr_cqe = &req->cqe_mid;
		if (req->flags & IBPOST_REQ_SIGNAL_ALL)
			wrs[i].wr.send_flags = IB_SEND_SIGNALED;
		wrs[i].wr.next = i + 1 < req->nwr ? &wrs[i + 1].wr : NULL;
		wrs[i].remote_addr = raddr;
		wrs[i].rkey = req->remote->rkey;
		raddr += ibpost_sges_bytes(sges, n);
	}
	wrs[req->nwr - 1].wr.wr_cqe = &req->cqe;
	wrs[req->nwr - 1].wr.send_flags = IB_SEND_SIGNALED;
}

/*
 * ib_post_send() took only the WRs before @bad: the request cannot end
 * through its last WR's completion.  Put the QP in error so the taken
 * WRs flush, and complete the request when the session is drained.
 */
static void ibpost_req_orphan(struct ibpost_session *s, struct ibpost_req *req,
			      int err)
{
	unsigned long flags;

	req->status = err;
	spin_lock_irqsave(&s->lock, flags);
	list_add_tail(&req->node, &s->orphans);
	spin_unlock_irqrestore(&s->lock, flags);
	ibpost_ep_set_error(s->ep);
	ibpost_session_error(s);
}

static int ibpost_req_post(struct ibpost_session *s, struct ibpost_req *req,
			   struct ib_rdma_wr *wrs)
{
	unsigned long flags;
	u32 taken;
	int ret;

	spin_lock_irqsave(&s->lock, flags);
	s->stats.requests++;
	s->stats.inflight++;
	s->stats.wrs += req->nwr;
	spin_unlock_irqrestore(&s->lock, flags);
	req->t_submit = ktime_get_ns();
	ret = ibpost_ep_post(s->ep, &wrs[0].wr, &taken);
	if (!ret)
		return 0;
	if (!taken) {
		spin_lock_irqsave(&s->lock, flags);
		s->stats.requests--;
		s->stats.inflight--;
		s->stats.wrs -= req->nwr;
		spin_unlock_irqrestore(&s->lock, flags);
		return ibpost_req_refuse(req, IBPOST_R_POST, ret);
	}
	ibpost_req_orphan(s, req, ret);
	return 0;
}

/**
 * ibpost_submit() - start a request on a session.
 * @s: the session.
 * @req: the request; owned by ibpost until its @done callback returns.
 *
 * The scatterlist is DMA-mapped here and unmapped before @done is called;
 * a request of more SGEs than a WR carries is split into chained WRs.
 *
 * Context: process context, may sleep waiting for send-queue room; with
 * IBPOST_REQ_NOWAIT any context (never sleeps).
 * Return: 0 when accepted (@done will be called exactly once); else the
 * request was not started, @done is not called, @req->reason says why:
 * -EINVAL (bad request, or more WRs than the session's depth), -EOPNOTSUPP
 * (opcode), -EAGAIN (send queue full with IBPOST_REQ_NOWAIT), -EIO (the
 * session's QP is in error), -ENOTCONN (closed or device gone), -ENOMEM,
 * or the provider's error from ib_post_send().
 */
int ibpost_submit(struct ibpost_session *s, struct ibpost_req *req)
{
	gfp_t gfp = req->flags & IBPOST_REQ_NOWAIT ? GFP_ATOMIC : GFP_NOIO;
	u32 max_wr, nsge, max_sge, nwr;
	struct ib_rdma_wr *wrs;
	struct ib_sge *sges;
	int ret;

	ret = ibpost_req_check(s, req, &max_wr);
	if (ret)
		return ret;
	if (!(req->flags & IBPOST_REQ_NOWAIT))
		might_sleep();
	max_sge = req->op == IBPOST_OP_READ ? s->max_sge_rd : s->max_sge;
	ret = ibpost_req_reserve(s, req, max_wr);
	if (ret)
		return ret;
	req->sess = s;
	req->status = 0;
	req->cqe.done = ibpost_req_done;
	req->cqe_mid.done = ibpost_req_mid_done;
	INIT_LIST_HEAD(&req->node);
	ret = -ENOMEM;
	sges = kmalloc_array(req->nents, sizeof(*sges), gfp);
	wrs = kcalloc(max_wr, sizeof(*wrs), gfp);
	if (!sges || !wrs)
		goto err_free;
	req->mapped = ib_dma_map_sg(s->ep->ibdev, req->sgl, req->nents,
				    ibpost_req_dir(req));
	if (!req->mapped)
		goto err_free;
	nsge = ibpost_sg_to_sges(req->sgl, req->mapped,
				 s->ep->pd->local_dma_lkey, sges);
	req->nwr = ibpost_split_nwr(nsge, max_sge);
	ibpost_req_build(s, req, wrs, sges, nsge, max_sge);
	/* Once posted, @req may complete (and be reused) at any moment. */
	nwr = req->nwr;
	ret = ibpost_req_post(s, req, wrs);
	if (ret)
		goto err_unmap;
	kfree(wrs);
	kfree(sges);
	/* The provider copied the WRs; the request holds its nwr slots. */
	ibpost_req_unreserve(s, max_wr - nwr);
	return 0;

err_unmap:
	ib_dma_unmap_sg(s->ep->ibdev, req->sgl, req->nents,
			ibpost_req_dir(req));
err_free:
	kfree(wrs);
	kfree(sges);
	if (ret == -ENOMEM)
		req->reason = IBPOST_R_NOMEM;
	ibpost_req_unreserve(s, max_wr);
	return ret;
}
EXPORT_SYMBOL_GPL(ibpost_submit);

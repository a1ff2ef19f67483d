// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: one RDMA READ or WRITE against a far side's key, built by the
 * kernel's RDMA R/W API (drivers/infiniband/core/rw.c): a session's
 * request (session/submit.c) and, on a target, a transfer for a command.
 *
 * rdma_rw_ctx_init() DMA-maps the scatterlist and either splits it into
 * RDMA WRs of at most the QP's max_write_sge (max_read_sge for READ) SGEs
 * on the PD's local DMA lkey, or, where the device needs it (an iWARP
 * READ sink must be an MR with remote write access; a device's
 * max_sgl_rd; ib_core's force_mr), registers it with fast-reg MRs from
 * the QP's pool and chains LOCAL_INV, REG_MR and the RDMA WR per MR.
 * rdma_rw_ctx_wrs() gives the chain with its last WR signaled, and
 * rdma_rw_ctx_destroy() returns the MRs and unmaps once the transfer is
 * over: exactly once per successful rdma_rw_ctx_init().
 *
 * What ibpost adds: the chain goes to the provider in one post and the
 * last WR's completion ends the transfer (on an RC QP every WR before it
 * is done by then); the other WRs carry the transfer's cqe_mid, so an
 * error or flush completion of any of them is the transfer's; no address
 * of an MR rdma_rw registered leaves the host.  Send-queue slots are the
 * owner's to count (ibpost_rw_worst() before, &ibpost_rw.nwr after).
 *
 * rdma_rw_ctx_init() allocates for a scatterlist of more than one mapped
 * entry (its array of SGEs and WRs, kcalloc() GFP_KERNEL) and, where it
 * registers, takes MRs from the QP's pool (allocated at QP creation:
 * max_rdma_ctxs).  6.1 has no rdma_rw variant with caller-provided
 * arrays, and building the WRs here would be a second implementation of
 * rdma_rw: ibpost keeps rdma_rw and makes that allocation safe for a
 * block driver instead (GFP_NOIO scope; process context).  A transfer of
 * one entry on a device that does not register allocates nothing at all.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/math.h>
#include <linux/sched/mm.h>

#include "core/mr.h"
#include "core/rw.h"
#include "core/testhook.h"

/**
 * ibpost_rw_worst() - the most send-queue slots a transfer can take.
 * @ep: the endpoint it is posted on (its QP exists).
 * @read: an RDMA READ; else a WRITE.
 * @nents: entries of its scatterlist.
 *
 * rdma_rw splits the mapped entries, at most @nents, at the QP's SGE
 * limit; on a device where it may register instead it takes
 * rdma_rw_mr_factor() MRs of up to three WRs each (LOCAL_INV, REG_MR and
 * the RDMA WR: rdma_rw_max_send_wr()), and it falls back to splitting when
 * the MR pool is empty but registering was only an optimization.
 *
 * Context: any.
 * Return: slots, U32_MAX when the QP takes no SGE at all.
 */
u32 ibpost_rw_worst(const struct ibpost_ep *ep, bool read,
		    unsigned int nents)
{
	struct ib_qp *qp = ep->qp;
	u32 max_sge, mrs;
	u64 wrs;

	max_sge = read ? qp->max_read_sge : qp->max_write_sge;
	if (!max_sge)
		return U32_MAX;
	wrs = DIV_ROUND_UP_ULL(nents, max_sge);
	/* One WR per context: this device never registers. */
	if (rdma_rw_max_send_wr(qp->device, ep->port, 1, 0) > 1) {
		mrs = rdma_rw_mr_factor(qp->device, ep->port, nents);
		wrs = max_t(u64, wrs,
			    rdma_rw_max_send_wr(qp->device, ep->port, mrs, 0));
	}
	return min_t(u64, wrs, U32_MAX);
}

/**
 * ibpost_rw_mr_pages() - the pages one of rdma_rw's MRs maps on a port.
 * @dev: the device.
 * @port: the port.
 *
 * rdma_rw does not export its page list length; rdma_rw_mr_factor(N) is
 * the MRs for N pages, so the length is the largest N it calls one MR:
 * found by bisection rather than copied from rw.c (which caps the
 * device's max_fast_reg_page_list_len at a constant of its own).
 *
 * Context: any.
 * Return: pages, 0 where rdma_rw never registers (one WR per context:
 * rdma_rw_max_send_wr()).
 */
u32 ibpost_rw_mr_pages(struct ib_device *dev, u32 port)
{
	u32 lo = 1, hi = U32_MAX / 2, mid;

	if (rdma_rw_max_send_wr(dev, port, 1, 0) <= 1)
		return 0;
	while (lo < hi) {
		mid = lo + (hi - lo + 1) / 2;
		if (rdma_rw_mr_factor(dev, port, mid) == 1)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

static enum dma_data_direction ibpost_rw_dir(const struct ibpost_rw *rw)
{
	return rw->read ? DMA_FROM_DEVICE : DMA_TO_DEVICE;
}

/* A failed completion of any WR of @rw: the owner says what it means. */
static void ibpost_rw_wc(struct ibpost_rw *rw, const struct ib_wc *wc)
{
	int err;

	if (wc->status == IB_WC_SUCCESS)
		return;
	err = rw->ops->error(rw, wc);
	if (!rw->status)
		rw->status = err;
}

/* Completion of the transfer's last WR: the whole transfer is done. */
static void ibpost_rw_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ibpost_rw *rw = container_of(wc->wr_cqe, struct ibpost_rw, cqe);

	ibpost_rw_wc(rw, wc);
	rw->ops->end(rw);
}

/* Completion of another WR: only errors (or &ibpost_rw.signal_all). */
static void ibpost_rw_mid_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ibpost_rw *rw = container_of(wc->wr_cqe, struct ibpost_rw,
					    cqe_mid);

	ibpost_rw_wc(rw, wc);
}

/**
 * ibpost_rw_init() - map (and where needed register) a transfer's memory
 *	and build its WRs.
 * @rw: the transfer: @ops, @sgl, @nents, @read, @signal_all, @raddr and
 *	@rkey set by the owner.
 * @ep: the endpoint it will be posted on.
 * @reason: out: IBPOST_R_* on failure.
 *
 * The allocations are made as GFP_NOIO would make them (rdma_rw allocates
 * with GFP_KERNEL): a block driver's I/O must not recurse into I/O
 * reclaim.
 *
 * Context: process context, may sleep (unless the transfer allocates
 * nothing: one entry, a device that does not register).
 * Return: the WRs built (&ibpost_rw.nwr), or a negative errno: -EINVAL
 * (entries an MR cannot map: IBPOST_R_FRPL), -ENOMEM or another mapping
 * error (IBPOST_R_NOMEM).  Unless it failed, ibpost_rw_destroy() must
 * follow, once.
 */
int ibpost_rw_init(struct ibpost_rw *rw, struct ibpost_ep *ep, u32 *reason)
{
	unsigned int noio;
	int ret;

	rw->ep = ep;
	rw->status = 0;
	rw->nwr = 0;
	rw->cqe.done = ibpost_rw_done;
	rw->cqe_mid.done = ibpost_rw_mid_done;
	noio = memalloc_noio_save();
	ret = rdma_rw_ctx_init(&rw->ctx, ep->qp, ep->port, rw->sgl,
			       rw->nents, 0, rw->raddr, rw->rkey,
			       ibpost_rw_dir(rw));
	memalloc_noio_restore(noio);
	if (ret >= 0) {
		rw->nwr = ret;
		return ret;
	}
	/* An MR maps entries that meet at page boundaries, up to its list. */
	*reason = ret == -EINVAL ? IBPOST_R_FRPL : IBPOST_R_NOMEM;
	return ret;
}

/**
 * ibpost_rw_destroy() - undo ibpost_rw_init(): MRs back to the QP's pool,
 *	the list unmapped.
 * @rw: a transfer that is not (or no longer) on the send queue.
 *
 * Context: any (rdma_rw frees with kfree()).
 */
void ibpost_rw_destroy(struct ibpost_rw *rw)
{
	struct ibpost_ep *ep = rw->ep;

	rdma_rw_ctx_destroy(&rw->ctx, ep->qp, ep->port, rw->sgl, rw->nents,
			    ibpost_rw_dir(rw));
}

/*
 * An MR rdma_rw took from the QP's pool (iWARP READ sinks always, mlx5's
 * large READs, any provider with ib_core's force_mr) has the DMA address
 * of its first byte as its iova, a kernel virtual address on software
 * providers, and an iWARP READ request carries its sink's address to the
 * peer.  Hide it as ibpost's own MRs are (ibpost_mr_hide_iova()), between
 * rdma_rw_ctx_wrs() and the post: the REG_MR WR takes the address from the
 * MR when it is posted.  rdma_rw's RDMA WR that follows its REG_MR reads
 * the region through one SGE on the MR's lkey, at the old iova: move it by
 * the same amount.  rdma_rw maps the MR again at its next use, so the
 * pool's MRs keep no state of this.
 */
static void ibpost_rw_hide_iova(struct ib_send_wr *reg)
{
	struct ib_mr *mr = reg_wr(reg)->mr;
	u64 old = mr->iova;
	struct ib_send_wr *wr;

	ibpost_mr_hide_iova(mr);
	for (wr = reg->next; wr; wr = wr->next) {
		if (wr->num_sge && wr->sg_list[0].lkey == mr->lkey) {
			wr->sg_list[0].addr += mr->iova - old;
			return;
		}
	}
}

/*
 * The transfer's chain: every WR carries the transfer (the last its
 * completion, the others cqe_mid for their error completions); only the
 * last is signaled unless &ibpost_rw.signal_all.
 */
static struct ib_send_wr *ibpost_rw_chain(struct ibpost_rw *rw)
{
	struct ibpost_ep *ep = rw->ep;
	struct ib_send_wr *first, *wr;

	first = rdma_rw_ctx_wrs(&rw->ctx, ep->qp, ep->port, &rw->cqe, NULL);
	for (wr = first; wr->next; wr = wr->next) {
		wr->wr_cqe = &rw->cqe_mid;
		if (rw->signal_all)
			wr->send_flags |= IB_SEND_SIGNALED;
		if (wr->opcode == IB_WR_REG_MR)
			ibpost_rw_hide_iova(wr);
	}
	return first;
}

/**
 * ibpost_rw_post() - post a transfer's chain in one ib_post_send().
 * @rw: a transfer from ibpost_rw_init(); the owner holds &ibpost_rw.nwr
 *	send-queue slots for it.
 * @taken: out: the WRs the provider took.
 *
 * Once posted, the transfer may complete (and be reused) at any moment,
 * on another CPU or within the post itself.
 *
 * A test build's KUnit hook kunit_partial_post (core/testhook.h): the next
 * post of a chain of two WRs or more gives the provider only its first WR
 * and fails as if the provider had refused the second (-ENOMEM).
 *
 * Context: any.
 * Return: 0, or the provider's error: with *@taken 0 nothing was posted;
 * else the provider took part of the chain, which cannot end through its
 * last WR's completion: the owner puts the QP in error, lets the taken
 * WRs flush, and ends the transfer itself.
 */
int ibpost_rw_post(struct ibpost_rw *rw, u32 *taken)
{
	struct ib_send_wr *first = ibpost_rw_chain(rw);
	struct ib_send_wr *rest = first->next;
	int ret;

	*taken = 0;
	if (!rest || !ibpost_test_take(kunit_partial_post))
		return ibpost_ep_post(rw->ep, first, taken);
	first->next = NULL;
	ret = ibpost_ep_post(rw->ep, first, taken);
	first->next = rest;
	return ret ? ret : -ENOMEM;
}

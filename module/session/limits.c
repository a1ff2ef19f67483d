// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: what one request of a session may be.
 *
 * rdma_rw builds a request's WRs (submit.c): split at the QP's SGE limits,
 * or with fast-reg MRs where the device needs them.  A request is accepted
 * only when the most WRs it can need fit the session's depth, so the
 * limits a consumer (a block driver's queue limits) is given are computed
 * from that same worst case, never from a table.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/math.h>

#include "session/session.h"

/**
 * ibpost_req_worst() - the most send-queue slots a request can take.
 * @q: the queue it is posted on (its QP exists: the session is live or
 *	being opened).
 * @op: IBPOST_OP_READ or IBPOST_OP_WRITE.
 * @nents: entries of its scatterlist.
 *
 * rdma_rw splits the mapped entries, at most @nents, at the QP's SGE
 * limit; on a device where it may register instead it takes
 * rdma_rw_mr_factor() MRs of up to three WRs each (LOCAL_INV, REG_MR and
 * the RDMA WR: rdma_rw_max_send_wr()), and it falls back to splitting when
 * the MR pool is empty but registering was only an optimization.
 *
 * Return: slots, U32_MAX when the QP takes no SGE at all.
 */
u32 ibpost_req_worst(const struct ibpost_squeue *q, u32 op,
		     unsigned int nents)
{
	struct ib_qp *qp = q->ep->qp;
	u32 port = q->ep->port;
	u32 max_sge, mrs;
	u64 wrs;

	max_sge = op == IBPOST_OP_READ ? qp->max_read_sge : qp->max_write_sge;
	if (!max_sge)
		return U32_MAX;
	wrs = DIV_ROUND_UP_ULL(nents, max_sge);
	/* One WR per context: this device never registers. */
	if (rdma_rw_max_send_wr(qp->device, port, 1, 0) > 1) {
		mrs = rdma_rw_mr_factor(qp->device, port, nents);
		wrs = max_t(u64, wrs,
			    rdma_rw_max_send_wr(qp->device, port, mrs, 0));
	}
	return min_t(u64, wrs, U32_MAX);
}

/* Worst case of either opcode on queue 0 (every queue is alike). */
static u32 ibpost_req_wrs(struct ibpost_session *s, unsigned int nents)
{
	const struct ibpost_squeue *q = &s->queues[0];

	return max(ibpost_req_worst(q, IBPOST_OP_READ, nents),
		   ibpost_req_worst(q, IBPOST_OP_WRITE, nents));
}

/**
 * ibpost_session_req_wrs() - send-queue slots a request of @nents entries
 *	may hold, READ or WRITE.
 * @s: the session (open and not closed).
 * @nents: scatterlist entries.
 *
 * A consumer sizes its depth with it: requests of at most @nents entries,
 * N of them outstanding per queue, never wait for room in a session of
 * depth N * ibpost_session_req_wrs(s, nents).
 *
 * Context: any.
 * Return: the slots; 0 when the session is not live (its QP may be gone).
 */
u32 ibpost_session_req_wrs(struct ibpost_session *s, unsigned int nents)
{
	u32 n;

	/* Entered, the session's death waits before freeing the QPs. */
	if (!ibpost_session_enter(s))
		return 0;
	n = ibpost_req_wrs(s, nents);
	ibpost_session_leave(s);
	return n;
}
EXPORT_SYMBOL_GPL(ibpost_session_req_wrs);

/*
 * The pages one of rdma_rw's MRs maps on this port, 0 where rdma_rw never
 * registers (one WR per context: rdma_rw_max_send_wr()).  rdma_rw does
 * not export its page list length; rdma_rw_mr_factor(N) is the MRs for N
 * pages, so the length is the largest N it calls one MR: found by
 * bisection rather than copied from rw.c (which caps the device's
 * max_fast_reg_page_list_len at a constant of its own).
 */
static u32 ibpost_rw_mr_pages(struct ib_device *dev, u32 port)
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

/**
 * ibpost_session_limits_init() - compute a session's limits once.
 * @s: a session being opened: its queues exist, it is not yet published.
 */
void ibpost_session_limits_init(struct ibpost_session *s)
{
	struct ibpost_session_limits *out = &s->limits;
	const struct ib_qp *qp = s->queues[0].ep->qp;
	u32 lo = 1, hi = IBPOST_SEGMENTS_MAX, mid;

	memset(out, 0, sizeof(*out));
	out->queues = s->nr_queues;
	out->depth = s->attr.depth;
	out->vectors = qp->device->num_comp_vectors;
	out->max_sge = min(qp->max_read_sge, qp->max_write_sge);
	out->max_bytes = s->max_msg;
	out->lacks = s->dev->info.flags & (IBPOST_DEV_NO_IMM |
					   IBPOST_DEV_CM_ONLY |
					   IBPOST_DEV_WRITE_UNPLACED);
	/*
	 * Where rdma_rw may register, a request is one MR: gapless at page
	 * granularity (rdma_rw maps with PAGE_SIZE pages) and within its
	 * page list even when it starts inside a page, as nvme-rdma sizes
	 * its queues.  A device that cannot map two pages gets no byte
	 * room: consumers refuse it (max_bytes below a page).
	 */
	out->mr_pages = ibpost_rw_mr_pages(qp->device, s->queues[0].ep->port);
	if (out->mr_pages) {
		out->virt_boundary = PAGE_SIZE - 1;
		out->max_bytes = min_t(u64, out->max_bytes,
				       (u64)(out->mr_pages - 1) << PAGE_SHIFT);
	}
	if (s->region) {
		out->region_bytes = s->region->bytes;
		out->region_chunk = s->region->chunk;
		out->max_bytes = min_t(u64, out->max_bytes, s->region->chunk);
	}
	/* The largest entry count whose worst case fits the depth. */
	if (ibpost_req_wrs(s, 1) > s->attr.depth)
		return;
	while (lo < hi) {
		mid = lo + (hi - lo + 1) / 2;
		if (ibpost_req_wrs(s, mid) <= s->attr.depth)
			lo = mid;
		else
			hi = mid - 1;
	}
	out->max_segments = lo;
	if (out->mr_pages)
		out->max_segments = min(out->max_segments, out->mr_pages);
}

/**
 * ibpost_session_get_limits() - the session's I/O limits.
 * @s: the session (open and not closed; also after its device went away).
 * @out: filled (&struct ibpost_session_limits), as computed at open.
 *
 * Context: any.
 */
void ibpost_session_get_limits(struct ibpost_session *s,
			       struct ibpost_session_limits *out)
{
	*out = s->limits;
}
EXPORT_SYMBOL_GPL(ibpost_session_get_limits);

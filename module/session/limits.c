// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: what one request of a session may be.
 *
 * rdma_rw builds a request's WRs (core/rw.c): split at the QP's SGE limits,
 * or with fast-reg MRs where the device needs them.  A request is accepted
 * only when the most WRs it can need fit the session's depth, so the
 * limits a consumer (a block driver's queue limits) is given are computed
 * from that same worst case, never from a table.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "session/session.h"
#include "core/rw.h"

/* Worst case of either opcode on queue 0 (every queue is alike). */
static u32 ibpost_req_wrs(struct ibpost_session *s, unsigned int nents)
{
	const struct ibpost_squeue *q = &s->queues[0];

	return max(ibpost_rw_worst(q->ep, true, nents),
		   ibpost_rw_worst(q->ep, false, nents));
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

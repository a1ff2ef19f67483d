// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: a loopback session's local region.
 *
 * The region is the far end of a loopback session's requests: zeroed
 * pages in slots of one power-of-two size, each slot registered for
 * remote READ and WRITE in a fast-reg MR of its own (the job's mechanism,
 * ibpost_buf_alloc() and ibpost_mrs_register(), on the pair's target QP),
 * so that a region is as large as the memory given to it, not as one MR.
 * A slot maps fewer pages than the device's fast-reg page list holds: the
 * MR gets the spare entry rxe needs (mr.c), and a slot is one allocation.
 * A request reaches one MR: one crossing a slot's end is refused
 * (IBPOST_R_REGION_CROSS); a block driver sets its chunk size to the slot
 * (&ibpost_session_limits.region_chunk) and the block layer never builds
 * one.  The pages and MRs are freed when the session dies (closed or its
 * device removed): the contents live exactly as long as the session.
 */
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "session.h"

/* Bytes of each slot (and MR) of a region on @dev; 0: it has no MRs. */
static u32 ibpost_region_chunk(const struct ibpost_dev *dev)
{
	u32 frpl = dev->info.attrs.max_fast_reg_page_list_len;
	u64 pages;

	if (frpl < 2)
		return 0;
	/* One page-list entry spare (mr.c), one allocation per slot. */
	pages = min_t(u64, frpl - 1, IBPOST_SLOT_MAX >> PAGE_SHIFT);
	return (u32)(rounddown_pow_of_two(pages) << PAGE_SHIFT);
}

static int ibpost_region_refuse(u32 *reason, u32 why, int err)
{
	if (reason)
		*reason = why;
	return err;
}

/**
 * ibpost_region_create() - allocate, map and register a session's region.
 * @s: a loopback session being opened (not yet published).
 * @bytes: its size: a multiple of PAGE_SIZE, checked by the caller.
 * @reason: out, may be NULL: IBPOST_R_* on failure.
 *
 * Context: process context, may sleep; reaps the pair's target CQ.
 * Return: 0, -EINVAL (IBPOST_R_FRPL: the device has no fast-reg MRs of two
 * pages; IBPOST_R_BUF_SIZE: more slots than can be counted), -ENOMEM
 * (IBPOST_R_NOMEM), or the registration's error (IBPOST_R_WC_ERROR); on
 * failure nothing is left.
 */
int ibpost_region_create(struct ibpost_session *s, u64 bytes, u32 *reason)
{
	const int access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ |
			   IB_ACCESS_REMOTE_WRITE;
	struct ibpost_status st = {};
	struct ibpost_region *r;
	u32 chunk;
	u64 n;
	int ret;

	chunk = ibpost_region_chunk(s->dev);
	if (!chunk || !s->pair)
		return ibpost_region_refuse(reason, IBPOST_R_FRPL, -EINVAL);
	n = DIV_ROUND_UP_ULL(bytes, chunk);
	if (!n || n > U32_MAX)
		return ibpost_region_refuse(reason, IBPOST_R_BUF_SIZE, -EINVAL);
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return ibpost_region_refuse(reason, IBPOST_R_NOMEM, -ENOMEM);
	r->bytes = bytes;
	r->chunk = chunk;
	ret = ibpost_buf_alloc(&r->buf, s->dev->ibdev, (u32)n, chunk);
	if (ret) {
		ibpost_region_refuse(reason, IBPOST_R_NOMEM, ret);
		goto err_free;
	}
	/* The target QP posts the REG_MRs: the MRs are in the pair's PD. */
	ret = ibpost_mrs_register(&r->mrs, &s->pair->tgt, &r->buf, access,
				  &st);
	if (ret) {
		ibpost_region_refuse(reason, st.reason ? st.reason :
				     IBPOST_R_WC_ERROR, ret);
		goto err_mrs;
	}
	s->region = r;
	return 0;

err_mrs:
	ibpost_mrs_free(&r->mrs);
	ibpost_buf_free(&r->buf);
err_free:
	kfree(r);
	return ret;
}

/**
 * ibpost_region_release() - free the region's MRs and pages.
 * @s: a session whose QPs were drained (they no longer reach the region);
 *	its @region stays (empty) until the session is freed.
 */
void ibpost_region_release(struct ibpost_session *s)
{
	struct ibpost_region *r = s->region;

	if (!r)
		return;
	ibpost_mrs_free(&r->mrs);
	ibpost_buf_free(&r->buf);
}

/**
 * ibpost_region_target() - the region's MR address and key for a request.
 * @s: the session, live (the caller holds its send-queue reservation, so
 *	the region's MRs stay until it leaves).
 * @req: a request with IBPOST_REQ_REGION; @req->raddr and @req->rkey are
 *	set.
 * @len: its bytes.
 *
 * Return: 0, or -EINVAL with @req->reason IBPOST_R_REGION_CROSS (no region,
 * outside it, or across the end of one of its MRs).
 */
int ibpost_region_target(struct ibpost_session *s, struct ibpost_req *req,
			 u64 len)
{
	struct ibpost_region *r = s->region;
	u64 off = req->remote_offset;
	u32 rem;
	u64 i;

	req->reason = IBPOST_R_REGION_CROSS;
	if (!r || !r->mrs.n || off >= r->bytes || len > r->bytes - off)
		return -EINVAL;
	i = div_u64_rem(off, r->chunk, &rem);
	if (len > r->chunk - rem || i >= r->mrs.n)
		return -EINVAL;
	req->raddr = r->mrs.mr[i]->iova + rem;
	req->rkey = r->mrs.mr[i]->rkey;
	req->reason = IBPOST_R_NONE;
	return 0;
}

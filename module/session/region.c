// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: a session's region, the far end of its IBPOST_REQ_REGION
 * requests.
 *
 * A region is zeroed pages in chunks of one power-of-two size
 * (ibpost_target_chunk()), each chunk registered for remote READ and WRITE
 * in a fast-reg MR of its own, so that a region is as large as the memory
 * given to it, not as one MR.  A loopback session's region is local: the
 * job's mechanism, ibpost_buf_alloc() and ibpost_mrs_register(), on the
 * pair's target QP.  A session with a peer has the server's: `ibpost
 * serve` registers it the same way (serve/conn.c) and its answer gives each
 * chunk's address and rkey (session/peer.c).  Either way the session keeps one
 * table of chunk addresses and rkeys, and a request's offset finds its
 * chunk there (ibpost_region_target()): one code path for both.
 * A request reaches one MR: one crossing a chunk's end is refused
 * (IBPOST_R_REGION_CROSS); a block driver sets its chunk size to the chunk
 * (&ibpost_session_limits.region_chunk) and the block layer never builds
 * one.  A local region is freed when the session dies (closed or its
 * device removed), a server's when the server sees the session end: the
 * contents live exactly as long as the session.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "session/session.h"
#include "core/target.h"
#include "core/testhook.h"

static int ibpost_region_refuse(u32 *reason, u32 why, int err)
{
	if (reason)
		*reason = why;
	return err;
}

/* The region and its chunk table; NULL when out of memory. */
static struct ibpost_region *ibpost_region_alloc(u64 bytes, u32 chunk, u32 n)
{
	struct ibpost_region *r = kzalloc(sizeof(*r), GFP_KERNEL);

	if (!r)
		return NULL;
	r->raddr = kvcalloc(n, sizeof(*r->raddr), GFP_KERNEL);
	r->rkey = kvcalloc(n, sizeof(*r->rkey), GFP_KERNEL);
	if (!r->raddr || !r->rkey) {
		kvfree(r->rkey);
		kvfree(r->raddr);
		kfree(r);
		return NULL;
	}
	r->bytes = bytes;
	r->chunk = chunk;
	r->n = n;
	return r;
}

static void ibpost_region_free_table(struct ibpost_region *r)
{
	r->n = 0;
	kvfree(r->rkey);
	kvfree(r->raddr);
	r->rkey = NULL;
	r->raddr = NULL;
}

/**
 * ibpost_region_create() - allocate, map and register a session's region.
 * @s: a loopback session being opened (not yet published).
 * @bytes: its size: a multiple of PAGE_SIZE, checked by the caller.
 * @reason: out, may be NULL: IBPOST_R_* on failure.
 *
 * Context: process context, may sleep; reaps the pair's target CQ.
 * Return: 0, -EINVAL (IBPOST_R_FRPL: the device has no fast-reg MRs of two
 * pages; IBPOST_R_BUF_SIZE: more chunks than can be counted), -ENOMEM
 * (IBPOST_R_NOMEM), or the registration's error (IBPOST_R_WC_ERROR); on
 * failure nothing is left.
 */
int ibpost_region_create(struct ibpost_session *s, u64 bytes, u32 *reason)
{
	const int access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ |
			   IB_ACCESS_REMOTE_WRITE;
	struct ibpost_status st = {};
	struct ibpost_region *r;
	u32 chunk, i;
	u64 n;
	int ret;

	chunk = ibpost_target_chunk(s->dev->info.attrs.max_fast_reg_page_list_len,
				    bytes);
	if (!chunk || !s->pair)
		return ibpost_region_refuse(reason, IBPOST_R_FRPL, -EINVAL);
	n = DIV_ROUND_UP_ULL(bytes, chunk);
	if (!n || n > U32_MAX)
		return ibpost_region_refuse(reason, IBPOST_R_BUF_SIZE, -EINVAL);
	r = ibpost_region_alloc(bytes, chunk, (u32)n);
	if (!r)
		return ibpost_region_refuse(reason, IBPOST_R_NOMEM, -ENOMEM);
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
	for (i = 0; i < r->n; i++) {
		r->raddr[i] = r->mrs.mr[i]->iova;
		r->rkey[i] = r->mrs.mr[i]->rkey;
	}
	s->region = r;
	return 0;

err_mrs:
	ibpost_mrs_free(&r->mrs);
	ibpost_buf_free(&r->buf);
err_free:
	ibpost_region_free_table(r);
	kfree(r);
	return ret;
}

/**
 * ibpost_region_remote() - a session's region on its peer.
 * @s: a session with a peer being opened (not yet published).
 * @bytes: the region's size.
 * @chunk: bytes of each chunk, checked by the caller.
 * @n: chunks: DIV_ROUND_UP(@bytes, @chunk), checked by the caller.
 * @slot: the server's chunks, as they arrived (addr and rkey of each).
 *
 * Context: process context, may sleep.
 * Return: 0 or -ENOMEM.
 */
int ibpost_region_remote(struct ibpost_session *s, u64 bytes, u32 chunk,
			 u32 n, const struct ibpost_wire_slot *slot)
{
	struct ibpost_region *r = ibpost_region_alloc(bytes, chunk, n);
	u32 i;

	if (!r)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		r->raddr[i] = be64_to_cpu(slot[i].addr);
		r->rkey[i] = be32_to_cpu(slot[i].rkey);
	}
	s->region = r;
	return 0;
}

/**
 * ibpost_region_release() - free the region's MRs, pages and table.
 * @s: a session whose QPs were drained (they no longer reach the region);
 *	its @region stays (empty) until the session is freed.
 */
void ibpost_region_release(struct ibpost_session *s)
{
	struct ibpost_region *r = s->region;

	if (!r)
		return;
	ibpost_region_free_table(r);
	ibpost_mrs_free(&r->mrs);
	ibpost_buf_free(&r->buf);
}

/*
 * Test hook (session_test_bad_page: the 4 KiB page N - 1 of the region):
 * a request over that page carries another key, so the far side's access
 * check fails it (a remote access error) every time it is sent, on every
 * session, as a protection error would.
 */
static void ibpost_region_test_key(struct ibpost_req *req, u64 off, u64 len)
{
	u64 page = ibpost_test_read(session_test_bad_page);
	unsigned int q = ibpost_test_read(session_test_bad_queue);

	if (page && off < page * SZ_4K && off + len > (page - 1) * SZ_4K)
		req->rw.rkey ^= 0xff;
	/*
	 * session_test_bad_queue (queue N - 1): the next request on that
	 * queue alone, once: one error completion there (a consumer's
	 * session must survive it as the loss of that queue's connection).
	 */
	if (q && req->q->idx == q - 1 &&
	    ibpost_test_take_if(session_test_bad_queue, q)) {
		pr_info("test hook: session %u: a request on queue %u carries another key\n",
			req->sess->id, q - 1);
		req->rw.rkey ^= 0xff;
	}
}

/*
 * Test hook (session_test_busy_page: the 4 KiB page N - 1 of the region):
 * the next request that starts on that page is refused as if its send
 * queue had no room, once: a refusal that fails no session (ibpost_blk's
 * second half of a discard across a chunk end must not wait for ever).
 */
static bool ibpost_region_test_busy(u64 off)
{
	unsigned int page = ibpost_test_read(session_test_busy_page);

	return page && div_u64(off, SZ_4K) == page - 1 &&
	       ibpost_test_take_if(session_test_busy_page, page);
}

/**
 * ibpost_region_target() - the region's MR address and key for a request.
 * @s: the session, live (the caller holds its send-queue reservation, so
 *	the region's table stays until it leaves).
 * @req: a request with IBPOST_REQ_REGION; its transfer's far end
 *	(@req->rw.raddr, @req->rw.rkey) is set.
 * @len: its bytes.
 *
 * Return: 0, or -EINVAL with @req->reason IBPOST_R_REGION_CROSS (no region,
 * outside it, or across the end of one of its chunks); -EAGAIN only from
 * a test build's session_test_busy_page.
 */
int ibpost_region_target(struct ibpost_session *s, struct ibpost_req *req,
			 u64 len)
{
	struct ibpost_region *r = s->region;
	u64 off = req->remote_offset;
	u32 rem;
	u64 i;

	req->reason = IBPOST_R_REGION_CROSS;
	if (!r || !r->n || off >= r->bytes || len > r->bytes - off)
		return -EINVAL;
	i = div_u64_rem(off, r->chunk, &rem);
	if (len > r->chunk - rem || i >= r->n)
		return -EINVAL;
	req->rw.raddr = r->raddr[i] + rem;
	req->rw.rkey = r->rkey[i];
	ibpost_region_test_key(req, off, len);
	req->reason = IBPOST_R_NONE;
	if (ibpost_region_test_busy(off))
		return -EAGAIN;
	return 0;
}

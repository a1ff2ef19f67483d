// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: ibpost's session API on an RDMA device (rdma_rxe), through the
 * exported API only: the thin end-to-end consumer (consumer.c) with
 * several threads, rdma_rw's split at max_sge (and IBPOST_REQ_SIGNAL_ALL),
 * one SGE per entry, NOWAIT on a full send queue, callbacks exactly once
 * on success, on error and on close, an rkey dead after ibpost_unreg(),
 * refusals; several queues, a local region across MRs, the I/O limits,
 * exact latency percentiles and ibpost_session_fail().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/test.h>
#include <linux/bottom_half.h>
#include <linux/delay.h>
#include <linux/log2.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched/task.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>

#include "consumer.h"
/* submit.c's and core/rw.c's KUnit hooks (ibpost_test.kunit_*): a test build's. */
#include "core/testhook.h"

static char *dev = "rxe_lo";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "RDMA device to run on");

struct tk_io {
	struct ibpost_req req;
	atomic_t calls;
	int status;
	struct completion done;
};

static atomic_t tk_events[IBPOST_EV_LOST + 1];

static void tk_event(struct ibpost_session *s, enum ibpost_session_event ev)
{
	atomic_inc(&tk_events[ev]);
}

static void tk_done(struct ibpost_req *req, int status)
{
	struct tk_io *io = container_of(req, struct tk_io, req);

	io->status = status;
	atomic_inc(&io->calls);
	complete(&io->done);
}

static struct ibpost_session *tk_open(struct kunit *test, u32 depth,
				      u32 max_sge)
{
	struct ibpost_session_attr attr = {
		.dev_name = dev, .depth = depth, .max_sge = max_sge,
		.event = tk_event,
	};
	struct ibpost_session *s = ibpost_session_open(&attr);

	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(s), "open: %ld", PTR_ERR(s));
	return s;
}

/* 2^order contiguous pages, freed with the test. */
static struct page *tk_pages(struct kunit *test, u32 order)
{
	struct page *p = alloc_pages(GFP_KERNEL | __GFP_ZERO, order);

	KUNIT_ASSERT_NOT_NULL(test, p);
	return p;
}

static u8 tk_pat(u64 off, u32 salt)
{
	return (u8)((off * 131) ^ (off >> 9) ^ salt);
}

/* Entries over pages first, first + step, ... (step 2: never adjacent). */
static void tk_sg(struct scatterlist *sg, struct page *base, u32 n, u32 step,
		  u32 first)
{
	u32 i;

	sg_init_table(sg, n);
	for (i = 0; i < n; i++)
		sg_set_page(&sg[i], base + first + i * step, PAGE_SIZE, 0);
}

static void tk_fill(struct scatterlist *sg, u32 n, u32 salt)
{
	u32 i, b;
	u8 *va;

	for (i = 0; i < n; i++) {
		va = page_address(sg_page(&sg[i]));
		for (b = 0; b < PAGE_SIZE; b++)
			va[b] = tk_pat((u64)i * PAGE_SIZE + b, salt);
	}
}

/* Bytes of @va that are not the pattern at offsets @base.. */
static u64 tk_bad_at(const u8 *va, u64 len, u64 base, u32 salt)
{
	u64 i, bad = 0;

	for (i = 0; i < len; i++)
		bad += va[i] != tk_pat(base + i, salt);
	return bad;
}

static u64 tk_bad(const u8 *va, u64 len, u32 salt)
{
	return tk_bad_at(va, len, 0, salt);
}

static struct ibpost_session_stats *tk_stats(struct kunit *test,
					     struct ibpost_session *s)
{
	struct ibpost_session_stats *st = kunit_kzalloc(test, sizeof(*st),
							GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, st);
	ibpost_session_get_stats(s, st);
	return st;
}

static void tk_io_prep(struct tk_io *io, u32 op, struct scatterlist *sg,
		       u32 n, const struct ibpost_rdesc *rd, u64 off, u32 flags)
{
	memset(io, 0, sizeof(*io));
	init_completion(&io->done);
	io->req.op = op;
	io->req.flags = flags;
	io->req.sgl = sg;
	io->req.nents = n;
	io->req.remote = rd;
	io->req.remote_offset = off;
	io->req.done = tk_done;
}

static int tk_io_run(struct ibpost_session *s, struct tk_io *io, u32 op,
		     struct scatterlist *sg, u32 n,
		     const struct ibpost_rdesc *rd, u64 off, u32 flags)
{
	tk_io_prep(io, op, sg, n, rd, off, flags);
	return ibpost_submit(s, &io->req);
}

/* Wait for an accepted request's one callback; its status. */
static int tk_io_wait(struct kunit *test, struct tk_io *io)
{
	KUNIT_EXPECT_NE(test, wait_for_completion_timeout(&io->done, 10 * HZ),
			0UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&io->calls), 1);
	return io->status;
}

static int tk_sync(struct kunit *test, struct ibpost_session *s, u32 op,
		   struct scatterlist *sg, u32 n,
		   const struct ibpost_rdesc *rd, u64 off)
{
	struct tk_io io;
	int ret = tk_io_run(s, &io, op, sg, n, rd, off, 0);

	return ret ? ret : tk_io_wait(test, &io);
}

static struct ibpost_mreg *tk_reg(struct kunit *test, struct ibpost_session *s,
				  struct page *p, u32 pages,
				  struct scatterlist *sg,
				  struct ibpost_rdesc *rd)
{
	struct ibpost_mreg *m;

	sg_init_table(sg, 1);
	sg_set_page(sg, p, pages * PAGE_SIZE, 0);
	m = ibpost_reg(s, sg, 1, IBPOST_ACCESS_REMOTE_READ |
		       IBPOST_ACCESS_REMOTE_WRITE, rd);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(m), "reg: %ld", PTR_ERR(m));
	KUNIT_EXPECT_EQ(test, rd->length, pages * (u32)PAGE_SIZE);
	return m;
}

static void tk_consumer_test(struct kunit *test)
{
	struct ibpost_consumer_cfg cfg = {
		.dev = dev, .threads = 4, .reqs = 8, .req_pages = 32,
		.depth = 64,
	};
	struct ibpost_consumer_result *res;

	res = kunit_kzalloc(test, sizeof(*res), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, res);
	KUNIT_ASSERT_EQ(test, ibpost_consumer_run(&cfg, res), 0);
	KUNIT_EXPECT_EQ(test, res->errors, 0ULL);
	KUNIT_EXPECT_EQ(test, res->bad_bytes, 0ULL);
	KUNIT_EXPECT_EQ(test, res->requests, 4ULL * 8 * 2);
	KUNIT_EXPECT_EQ(test, res->bytes, 4ULL * 8 * 2 * 32 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, res->stats.completed, 4ULL * 8 * 2);
	KUNIT_EXPECT_EQ(test, res->stats.errors, 0ULL);
	KUNIT_EXPECT_EQ(test, res->stats.inflight, 0ULL);
	KUNIT_EXPECT_EQ(test, res->stats.bytes, res->bytes);
	KUNIT_EXPECT_GT(test, res->stats.lat_p50_ns, 0ULL);
}

/* A session, local pages and a registered remote buffer of 2^rorder pages. */
struct tk_rig {
	struct ibpost_session *s;
	struct page *loc;
	struct page *rem;
	u32 lorder;
	u32 rorder;
	struct scatterlist rsg;
	struct ibpost_rdesc rd;
	struct ibpost_mreg *m;
};

static struct tk_rig *tk_up(struct kunit *test, u32 depth, u32 max_sge,
			    u32 lorder, u32 rorder)
{
	struct tk_rig *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->s = tk_open(test, depth, max_sge);
	r->lorder = lorder;
	r->rorder = rorder;
	r->loc = tk_pages(test, lorder);
	r->rem = tk_pages(test, rorder);
	r->m = tk_reg(test, r->s, r->rem, 1U << rorder, &r->rsg, &r->rd);
	return r;
}

static void tk_down(struct tk_rig *r)
{
	if (r->m)
		ibpost_unreg(r->m);
	ibpost_session_close(r->s);
	__free_pages(r->loc, r->lorder);
	__free_pages(r->rem, r->rorder);
}

/* 10 pages that never touch: 3 WRs of at most 4 SGEs, each way. */
static void tk_split_test(struct kunit *test)
{
	struct tk_rig *r = tk_up(test, 16, 4, 5, 4);
	struct scatterlist *sg = kunit_kcalloc(test, 10, sizeof(*sg),
					       GFP_KERNEL);
	struct ibpost_session_stats *st;
	u64 wrs;

	KUNIT_ASSERT_NOT_NULL(test, sg);
	tk_sg(sg, r->loc, 10, 2, 0);
	tk_fill(sg, 10, 1);
	KUNIT_EXPECT_EQ(test, tk_sync(test, r->s, IBPOST_OP_WRITE, sg, 10,
				      &r->rd, PAGE_SIZE), 0);
	st = tk_stats(test, r->s);
	KUNIT_EXPECT_EQ(test, st->wrs, 3ULL);
	/* On the far side, in order, at the offset asked for. */
	KUNIT_EXPECT_EQ(test, tk_bad(page_address(r->rem + 1), 10 * PAGE_SIZE,
				     1), 0ULL);
	KUNIT_EXPECT_EQ(test, *(u8 *)page_address(r->rem), 0);
	wrs = st->wrs;
	tk_sg(sg, r->loc, 10, 2, 1);
	KUNIT_EXPECT_EQ(test, tk_sync(test, r->s, IBPOST_OP_READ, sg, 10,
				      &r->rd, PAGE_SIZE), 0);
	st = tk_stats(test, r->s);
	KUNIT_EXPECT_EQ(test, st->wrs - wrs, 3ULL);
	KUNIT_EXPECT_EQ(test, st->completed, 2ULL);
	KUNIT_EXPECT_EQ(test, st->bytes, 20ULL * PAGE_SIZE);
	/* Read back into the odd pages: entry k holds bytes k * PAGE_SIZE.. */
	for (wrs = 0; wrs < 10; wrs++)
		KUNIT_EXPECT_EQ(test,
				tk_bad_at(page_address(r->loc + 1 + 2 * wrs),
					  PAGE_SIZE, wrs * PAGE_SIZE, 1), 0ULL);
	tk_down(r);
}

/*
 * rdma_rw builds one SGE per mapped entry: 8 pages as one entry are one
 * WR at max_sge 1; as 8 entries (rxe maps them one to one) they are 8 WRs,
 * in order at the right remote offsets.
 */
static void tk_entries_test(struct kunit *test)
{
	struct tk_rig *r = tk_up(test, 16, 1, 3, 4);
	struct scatterlist *sg = kunit_kcalloc(test, 8, sizeof(*sg),
					       GFP_KERNEL);
	struct ibpost_session_stats *st;

	KUNIT_ASSERT_NOT_NULL(test, sg);
	tk_sg(sg, r->loc, 8, 1, 0);
	tk_fill(sg, 8, 2);
	sg_init_table(sg, 1);
	sg_set_page(sg, r->loc, 8 * PAGE_SIZE, 0);
	KUNIT_EXPECT_EQ(test, tk_sync(test, r->s, IBPOST_OP_WRITE, sg, 1,
				      &r->rd, 0), 0);
	KUNIT_EXPECT_EQ(test, tk_stats(test, r->s)->wrs, 1ULL);
	KUNIT_EXPECT_EQ(test, tk_bad(page_address(r->rem), 8 * PAGE_SIZE, 2),
			0ULL);
	tk_sg(sg, r->loc, 8, 1, 0);
	KUNIT_EXPECT_EQ(test, tk_sync(test, r->s, IBPOST_OP_WRITE, sg, 8,
				      &r->rd, 8 * PAGE_SIZE), 0);
	st = tk_stats(test, r->s);
	KUNIT_EXPECT_EQ(test, st->wrs, 1ULL + 8);
	KUNIT_EXPECT_EQ(test, st->completed, 2ULL);
	KUNIT_EXPECT_EQ(test, tk_bad(page_address(r->rem + 8), 8 * PAGE_SIZE,
				     2), 0ULL);
	tk_down(r);
}

/*
 * IBPOST_REQ_SIGNAL_ALL: every WR of a 3-WR READ completes, the callback
 * still runs once, after the last, with every byte in place.
 */
static void tk_signal_all_test(struct kunit *test)
{
	struct tk_rig *r = tk_up(test, 8, 4, 5, 4);
	struct scatterlist *sg = kunit_kcalloc(test, 10, sizeof(*sg),
					       GFP_KERNEL);
	struct tk_io *io = kunit_kzalloc(test, sizeof(*io), GFP_KERNEL);
	struct ibpost_session_stats *st;
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, sg);
	KUNIT_ASSERT_NOT_NULL(test, io);
	tk_sg(sg, r->rem, 10, 1, 0);
	tk_fill(sg, 10, 5);
	tk_sg(sg, r->loc, 10, 2, 1);
	KUNIT_ASSERT_EQ(test, tk_io_run(r->s, io, IBPOST_OP_READ, sg, 10,
					&r->rd, 0, IBPOST_REQ_SIGNAL_ALL), 0);
	KUNIT_EXPECT_NE(test, wait_for_completion_timeout(&io->done, 10 * HZ),
			0UL);
	KUNIT_EXPECT_EQ(test, io->status, 0);
	msleep(50);
	KUNIT_EXPECT_EQ(test, atomic_read(&io->calls), 1);
	st = tk_stats(test, r->s);
	KUNIT_EXPECT_EQ(test, st->wrs, 3ULL);
	KUNIT_EXPECT_EQ(test, st->completed, 1ULL);
	KUNIT_EXPECT_EQ(test, st->errors, 0ULL);
	KUNIT_EXPECT_EQ(test, st->inflight, 0ULL);
	for (i = 0; i < 10; i++)
		KUNIT_EXPECT_EQ(test,
				tk_bad_at(page_address(r->loc + 1 + 2 * i),
					  PAGE_SIZE, (u64)i * PAGE_SIZE, 5),
				0ULL);
	tk_down(r);
}

/* Depth 4, completions held off: 4 accepted, then -EAGAIN, never more. */
static void tk_nowait_test(struct kunit *test)
{
	struct tk_rig *r = tk_up(test, 4, 0, 3, 3);
	struct ibpost_session_stats *st;
	struct scatterlist *sg;
	struct tk_io *io;
	int i, ret[8], ok = 0;

	io = kunit_kcalloc(test, 8, sizeof(*io), GFP_KERNEL);
	sg = kunit_kcalloc(test, 8, sizeof(*sg), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, io);
	KUNIT_ASSERT_NOT_NULL(test, sg);
	for (i = 0; i < 8; i++)
		tk_sg(&sg[i], r->loc, 1, 1, i);
	/* rxe completes from softirq on this CPU: none can come meanwhile. */
	local_bh_disable();
	for (i = 0; i < 8; i++)
		ret[i] = tk_io_run(r->s, &io[i], IBPOST_OP_WRITE, &sg[i], 1,
				   &r->rd, i * PAGE_SIZE, IBPOST_REQ_NOWAIT);
	local_bh_enable();
	for (i = 0; i < 8; i++) {
		if (!ret[i]) {
			ok++;
			KUNIT_EXPECT_NE(test, wait_for_completion_timeout(
					&io[i].done, 10 * HZ), 0UL);
			KUNIT_EXPECT_EQ(test, io[i].status, 0);
		} else {
			KUNIT_EXPECT_EQ(test, ret[i], -EAGAIN);
		}
	}
	KUNIT_EXPECT_EQ(test, ok, 4);
	st = tk_stats(test, r->s);
	KUNIT_EXPECT_GE(test, st->sq_full, 4ULL);
	KUNIT_EXPECT_EQ(test, st->completed, 4ULL);
	msleep(50);
	for (i = 0; i < 8; i++)
		KUNIT_EXPECT_EQ(test, atomic_read(&io[i].calls), ret[i] ? 0 : 1);
	/* Room again: a blocking submission goes through. */
	KUNIT_EXPECT_EQ(test, tk_sync(test, r->s, IBPOST_OP_WRITE, &sg[0], 1,
				      &r->rd, 0), 0);
	tk_down(r);
}

/* A bad rkey: -EIO once, the session refuses more, one ERROR event. */
static void tk_error_test(struct kunit *test)
{
	struct tk_rig *r = tk_up(test, 8, 0, 0, 0);
	struct tk_io *io = kunit_kzalloc(test, sizeof(*io), GFP_KERNEL);
	int ev0 = atomic_read(&tk_events[IBPOST_EV_ERROR]);
	struct ibpost_session_stats *st;
	struct ibpost_rdesc bad = r->rd;
	struct scatterlist sg;

	KUNIT_ASSERT_NOT_NULL(test, io);
	bad.rkey ^= 0x00c0ff00;
	tk_sg(&sg, r->loc, 1, 1, 0);
	KUNIT_EXPECT_EQ(test, tk_sync(test, r->s, IBPOST_OP_WRITE, &sg, 1, &bad,
				      0), -EIO);
	st = tk_stats(test, r->s);
	KUNIT_EXPECT_EQ(test, st->errors, 1ULL);
	KUNIT_EXPECT_GE(test, st->wc_status[IB_WC_REM_ACCESS_ERR] +
			st->wc_status[IB_WC_REM_INV_REQ_ERR] +
			st->wc_status[IB_WC_REM_OP_ERR], 1U);
	KUNIT_EXPECT_EQ(test, atomic_read(&tk_events[IBPOST_EV_ERROR]) - ev0,
			1);
	KUNIT_EXPECT_EQ(test, tk_io_run(r->s, io, IBPOST_OP_WRITE, &sg, 1,
					&r->rd, 0, 0), -EIO);
	KUNIT_EXPECT_EQ(test, atomic_read(&io->calls), 0);
	tk_down(r);
}

/* After ibpost_unreg() the rkey is dead: a WRITE with it fails. */
static void tk_unreg_test(struct kunit *test)
{
	struct tk_rig *r = tk_up(test, 8, 0, 0, 0);
	struct scatterlist sg;

	tk_sg(&sg, r->loc, 1, 1, 0);
	KUNIT_EXPECT_EQ(test, tk_sync(test, r->s, IBPOST_OP_WRITE, &sg, 1,
				      &r->rd, 0), 0);
	ibpost_unreg(r->m);
	r->m = NULL;
	KUNIT_EXPECT_EQ(test, tk_sync(test, r->s, IBPOST_OP_WRITE, &sg, 1,
				      &r->rd, 0), -EIO);
	tk_down(r);
}

/* Close with 8 large requests in flight: each callback exactly once. */
static void tk_close_inflight_test(struct kunit *test)
{
	struct ibpost_session *s = tk_open(test, 16, 0);
	struct page *loc = tk_pages(test, 8), *rem = tk_pages(test, 8);
	struct scatterlist rsg, *sg;
	struct ibpost_rdesc rd;
	struct tk_io *io;
	int i, ret;

	io = kunit_kcalloc(test, 8, sizeof(*io), GFP_KERNEL);
	sg = kunit_kcalloc(test, 8, sizeof(*sg), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, io);
	KUNIT_ASSERT_NOT_NULL(test, sg);
	/* Not given back: close frees the registration. */
	tk_reg(test, s, rem, 256, &rsg, &rd);
	for (i = 0; i < 8; i++) {
		sg_init_table(&sg[i], 1);
		sg_set_page(&sg[i], loc + i * 32, 32 * PAGE_SIZE, 0);
		ret = tk_io_run(s, &io[i], IBPOST_OP_WRITE, &sg[i], 1, &rd,
				(u64)i * 32 * PAGE_SIZE, 0);
		KUNIT_EXPECT_EQ(test, ret, 0);
	}
	ibpost_session_close(s);
	for (i = 0; i < 8; i++) {
		KUNIT_EXPECT_EQ(test, atomic_read(&io[i].calls), 1);
		KUNIT_EXPECT_TRUE_MSG(test, io[i].status == 0 ||
				      io[i].status == -ECANCELED,
				      "status %d", io[i].status);
	}
	msleep(50);
	for (i = 0; i < 8; i++)
		KUNIT_EXPECT_EQ(test, atomic_read(&io[i].calls), 1);
	__free_pages(loc, 8);
	__free_pages(rem, 8);
}

static void tk_refused_test(struct kunit *test)
{
	struct ibpost_session_attr attr = { .dev_name = dev, .depth = 2,
					    .max_sge = 1 };
	struct ibpost_session *s;
	struct page *loc = tk_pages(test, 3), *rem = tk_pages(test, 2);
	struct scatterlist rsg, sg[3];
	struct ibpost_rdesc rd;
	struct ibpost_mreg *m;
	struct tk_io *io = kunit_kzalloc(test, sizeof(*io), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, io);
	attr.depth = 0;
	KUNIT_EXPECT_EQ(test, PTR_ERR(ibpost_session_open(&attr)),
			(long)-EINVAL);
	attr.depth = 2;
	attr.flags = 1;
	KUNIT_EXPECT_EQ(test, PTR_ERR(ibpost_session_open(&attr)),
			(long)-EINVAL);
	attr.flags = 0;
	attr.port = 99;
	KUNIT_EXPECT_EQ(test, PTR_ERR(ibpost_session_open(&attr)),
			(long)-EINVAL);
	attr.port = 0;
	attr.dev_name = "nosuch0";
	KUNIT_EXPECT_EQ(test, PTR_ERR(ibpost_session_open(&attr)),
			(long)-ENODEV);
	attr.dev_name = dev;
	s = ibpost_session_open(&attr);
	KUNIT_ASSERT_FALSE(test, IS_ERR(s));
	sg_init_table(&rsg, 1);
	sg_set_page(&rsg, rem, 4 * PAGE_SIZE, 0);
	KUNIT_EXPECT_EQ(test, PTR_ERR(ibpost_reg(s, &rsg, 1, 0, &rd)),
			(long)-EINVAL);
	m = tk_reg(test, s, rem, 4, &rsg, &rd);
	tk_sg(sg, loc, 3, 2, 0);
	KUNIT_EXPECT_EQ(test, tk_io_run(s, io, IBPOST_OP_SEND, sg, 1, &rd, 0,
					0), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, io->req.reason, (u32)IBPOST_R_OPCODE);
	KUNIT_EXPECT_EQ(test, tk_io_run(s, io, IBPOST_OP_WRITE, sg, 1, &rd,
					3 * PAGE_SIZE + 1, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, io->req.reason, (u32)IBPOST_R_SGE_RANGE);
	KUNIT_EXPECT_EQ(test, tk_io_run(s, io, IBPOST_OP_WRITE, sg, 1, &rd, 0,
					0x80), -EINVAL);
	KUNIT_EXPECT_EQ(test, io->req.reason, (u32)IBPOST_R_FLAGS);
	/* 3 entries at max_sge 1 may need 3 WRs: above depth 2. */
	KUNIT_EXPECT_EQ(test, tk_io_run(s, io, IBPOST_OP_WRITE, sg, 3, &rd, 0,
					0), -EINVAL);
	KUNIT_EXPECT_EQ(test, io->req.reason, (u32)IBPOST_R_DEPTH);
	KUNIT_EXPECT_EQ(test, atomic_read(&io->calls), 0);
	ibpost_unreg(m);
	ibpost_session_close(s);
	__free_pages(loc, 3);
	__free_pages(rem, 2);
}

/*
 * A NOWAIT request posted only in part: accepted, the session in error at
 * once (one ERROR event, further submissions -EIO), the QP put in error by
 * the session's work item, the request completed once, with the post's
 * error, once that QP has drained: without a close (a block device's
 * unmap waits for its requests before it closes).  (Only here, in process context: a request of two
 * entries, the least that makes two WRs, allocates in rdma_rw_ctx_init(),
 * so the API allows it only where sleeping is allowed; the single-entry
 * requests allowed in atomic context make one WR, which is never taken in
 * part on a device that does not register.)
 */
static void tk_partial_nowait_test(struct kunit *test)
{
	struct tk_rig *r = tk_up(test, 8, 1, 2, 1);
	struct tk_io *io = kunit_kzalloc(test, 2 * sizeof(*io), GFP_KERNEL);
	int ev0 = atomic_read(&tk_events[IBPOST_EV_ERROR]);
	struct scatterlist sg[2];
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, io);
	/* Two pages that never touch with one SGE per WR: two WRs. */
	tk_sg(sg, r->loc, 2, 2, 0);
	WRITE_ONCE(ibpost_test.kunit_partial_post, true);
	ret = tk_io_run(r->s, &io[0], IBPOST_OP_WRITE, sg, 2, &r->rd, 0,
			IBPOST_REQ_NOWAIT);
	WRITE_ONCE(ibpost_test.kunit_partial_post, false);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&tk_events[IBPOST_EV_ERROR]) - ev0,
			1);
	KUNIT_EXPECT_EQ(test, tk_io_run(r->s, &io[1], IBPOST_OP_WRITE, sg, 1,
					&r->rd, 0, 0), -EIO);
	KUNIT_EXPECT_EQ(test, tk_io_wait(test, &io[0]), -ENOMEM);
	tk_down(r);
	KUNIT_EXPECT_EQ(test, atomic_read(&io[0].calls), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&io[1].calls), 0);
}

/* A submitter blocked for send-queue room while the session is closed. */
struct tk_waiter {
	struct ibpost_session *s;
	struct tk_io io;
	struct scatterlist sg;
	struct ibpost_rdesc *rd;
	int ret;
	bool returned;
};

static int tk_waiter_fn(void *arg)
{
	struct tk_waiter *w = arg;

	w->ret = tk_io_run(w->s, &w->io, IBPOST_OP_WRITE, &w->sg, 1, w->rd, 0,
			   0);
	/* @ret is seen by whoever sees @returned (acquire below). */
	smp_store_release(&w->returned, true);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

/*
 * Depth 1, its one slot kept by a completed WRITE (the keep-room hook);
 * another thread waits for room; the session is closed meanwhile: the
 * waiter returns -ENOTCONN before ibpost_session_close() returns (the
 * session is not freed under it).  guest-check.sh also sets the
 * session_test_wake_ms hook: the waiter, woken by the close, holds before
 * it touches the session again, so that a close that did not wait for it
 * would return first (@returned false) and free the session under it.
 */
static void tk_close_waiter_test(struct kunit *test)
{
	struct ibpost_session *s = tk_open(test, 1, 0);
	struct page *loc = tk_pages(test, 8), *rem = tk_pages(test, 8);
	struct tk_io *io = kunit_kzalloc(test, sizeof(*io), GFP_KERNEL);
	struct tk_waiter *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	struct ibpost_session_stats *st;
	struct task_struct *t;
	struct scatterlist rsg, sg;
	struct ibpost_rdesc rd;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, io);
	KUNIT_ASSERT_NOT_NULL(test, w);
	tk_reg(test, s, rem, 256, &rsg, &rd);
	sg_init_table(&sg, 1);
	sg_set_page(&sg, loc, 256 * PAGE_SIZE, 0);
	w->s = s;
	w->rd = &rd;
	sg_init_table(&w->sg, 1);
	sg_set_page(&w->sg, loc, PAGE_SIZE, 0);
	WRITE_ONCE(ibpost_test.kunit_keep_room, true);
	KUNIT_EXPECT_EQ(test, tk_io_run(s, io, IBPOST_OP_WRITE, &sg, 1, &rd, 0,
					0), 0);
	/* Completed, and its slot still held: the queue stays full. */
	KUNIT_EXPECT_NE(test, wait_for_completion_timeout(&io->done, 10 * HZ),
			0UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&io->calls), 1);
	t = kthread_run(tk_waiter_fn, w, "tk-waiter");
	if (IS_ERR(t)) {
		WRITE_ONCE(ibpost_test.kunit_keep_room, false);
		ibpost_session_close(s);
		KUNIT_FAIL(test, "kthread_run: %ld", PTR_ERR(t));
		goto out;
	}
	get_task_struct(t);
	/* The waiter counted the full queue: it is waiting (or about to). */
	for (i = 0; i < 1000; i++) {
		st = tk_stats(test, s);
		/* pairs with the release in tk_waiter_fn() */
		if (st->sq_full || smp_load_acquire(&w->returned))
			break;
		usleep_range(100, 200);
	}
	KUNIT_EXPECT_EQ(test, st->sq_full, 1ULL);
	/* pairs with the release in tk_waiter_fn() */
	KUNIT_EXPECT_FALSE(test, smp_load_acquire(&w->returned));
	ibpost_session_close(s);
	WRITE_ONCE(ibpost_test.kunit_keep_room, false);
	/* pairs with the release in tk_waiter_fn(): @ret read below */
	KUNIT_EXPECT_TRUE(test, smp_load_acquire(&w->returned));
	KUNIT_EXPECT_EQ(test, w->ret, -ENOTCONN);
	KUNIT_EXPECT_EQ(test, atomic_read(&w->io.calls), 0);
	kthread_stop(t);
	put_task_struct(t);
out:
	__free_pages(loc, 8);
	__free_pages(rem, 8);
}

/* A region request of @n pages at @off on queue @queue, waited for. */
static int tk_region_io(struct kunit *test, struct ibpost_session *s,
			u32 op, struct scatterlist *sg, u32 n, u64 off,
			u32 queue, u32 *reason)
{
	struct tk_io *io = kunit_kzalloc(test, sizeof(*io), GFP_KERNEL);
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, io);
	tk_io_prep(io, op, sg, n, NULL, off, IBPOST_REQ_REGION);
	io->req.queue = queue;
	ret = ibpost_submit(s, &io->req);
	if (reason)
		*reason = io->req.reason;
	return ret ? ret : tk_io_wait(test, io);
}

/*
 * Four queues and a region of three MRs and a half: each queue writes the
 * last two pages of one MR (the end of an MR, where rxe steps to its next
 * page map), another queue reads them back; a page never written reads as
 * zeros; the limits say what the session is.
 */
static void tk_queues_region_test(struct kunit *test)
{
	struct ibpost_session_attr attr = {
		.dev_name = dev, .depth = 16, .nr_queues = 4,
		.event = tk_event,
	};
	struct ibpost_session_limits lim;
	struct scatterlist wsg[2], rsg[2];
	struct page *w = tk_pages(test, 1), *r = tk_pages(test, 1);
	struct ibpost_session *s;
	u32 q, chunk, reason = 0;
	u64 off;

	attr.reason = &reason;
	attr.region_bytes = 7ULL << 20;
	s = ibpost_session_open(&attr);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(s), "open: %ld reason %u",
			       PTR_ERR(s), reason);
	ibpost_session_get_limits(s, &lim);
	chunk = lim.region_chunk;
	KUNIT_EXPECT_EQ(test, lim.queues, 4U);
	KUNIT_EXPECT_EQ(test, lim.depth, 16U);
	KUNIT_EXPECT_EQ(test, lim.region_bytes, 7ULL << 20);
	KUNIT_ASSERT_GE(test, chunk, 2U * (u32)PAGE_SIZE);
	KUNIT_EXPECT_TRUE(test, is_power_of_2(chunk));
	KUNIT_EXPECT_LE(test, lim.max_bytes, (u64)chunk);
	KUNIT_EXPECT_GE(test, lim.max_segments, lim.max_sge);
	KUNIT_EXPECT_GE(test, lim.vectors, 1U);
	KUNIT_EXPECT_LE(test, ibpost_session_req_wrs(s, lim.max_segments),
			16U);
	/* Where rdma_rw registers, a request is one of its MRs. */
	if (lim.mr_pages) {
		KUNIT_EXPECT_EQ(test, lim.virt_boundary, (u64)PAGE_SIZE - 1);
		KUNIT_EXPECT_LE(test, lim.max_bytes,
				(u64)(lim.mr_pages - 1) << PAGE_SHIFT);
		KUNIT_EXPECT_LE(test, lim.max_segments, lim.mr_pages);
	} else {
		KUNIT_EXPECT_EQ(test, lim.virt_boundary, 0ULL);
	}
	kunit_info(test, "chunk %u max_sge %u max_segments %u vectors %u mr_pages %u\n",
		   chunk, lim.max_sge, lim.max_segments, lim.vectors,
		   lim.mr_pages);
	tk_sg(wsg, w, 2, 1, 0);
	tk_sg(rsg, r, 2, 1, 0);
	for (q = 0; q < 4; q++) {
		off = (u64)(q + 1) * chunk - 2 * PAGE_SIZE;
		if (off + 2 * PAGE_SIZE > lim.region_bytes)
			off = lim.region_bytes - 2 * PAGE_SIZE;
		tk_fill(wsg, 2, q + 7);
		KUNIT_EXPECT_EQ(test, tk_region_io(test, s, IBPOST_OP_WRITE,
						   wsg, 2, off, q, NULL), 0);
		memset(page_address(r), 0xee, 2 * PAGE_SIZE);
		KUNIT_EXPECT_EQ(test, tk_region_io(test, s, IBPOST_OP_READ,
						   rsg, 2, off, (q + 1) % 4,
						   NULL), 0);
		KUNIT_EXPECT_EQ(test, tk_bad(page_address(r), 2 * PAGE_SIZE,
					     q + 7), 0ULL);
	}
	/* Never written: zeros. */
	memset(page_address(r), 0xee, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, tk_region_io(test, s, IBPOST_OP_READ, rsg, 1,
					   chunk / 2, 1, NULL), 0);
	KUNIT_EXPECT_PTR_EQ(test, memchr_inv(page_address(r), 0, PAGE_SIZE),
			    NULL);
	/* Across an MR, past the end, on a queue it lacks: refused. */
	KUNIT_EXPECT_EQ(test, tk_region_io(test, s, IBPOST_OP_WRITE, wsg, 2,
					   chunk - PAGE_SIZE, 0, &reason),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, reason, (u32)IBPOST_R_REGION_CROSS);
	KUNIT_EXPECT_EQ(test, tk_region_io(test, s, IBPOST_OP_WRITE, wsg, 1,
					   lim.region_bytes, 0, &reason),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, reason, (u32)IBPOST_R_REGION_CROSS);
	KUNIT_EXPECT_EQ(test, tk_region_io(test, s, IBPOST_OP_WRITE, wsg, 1,
					   0, 4, &reason), -EINVAL);
	KUNIT_EXPECT_EQ(test, reason, (u32)IBPOST_R_QUEUE);
	ibpost_session_close(s);
	__free_pages(w, 1);
	__free_pages(r, 1);
}

/* ibpost_session_open(@attr) refuses with @err and @reason. */
static void tk_open_refused(struct kunit *test,
			    const struct ibpost_session_attr *attr, long err,
			    u32 reason)
{
	struct ibpost_session_attr a = *attr;
	u32 got = IBPOST_R_MAX;

	a.reason = &got;
	KUNIT_EXPECT_EQ(test, PTR_ERR(ibpost_session_open(&a)), err);
	KUNIT_EXPECT_EQ(test, got, reason);
}

/* Bad attributes: refused, each with its reason. */
static void tk_attr_reason_test(struct kunit *test)
{
	struct sockaddr_storage ss = { .ss_family = AF_INET };
	const struct ibpost_session_attr ok = { .dev_name = dev, .depth = 4 };
	struct ibpost_session_attr attr = ok;
	struct ibpost_session *s;
	u32 reason;

	attr.nr_queues = IBPOST_SESSION_QUEUES_MAX + 1;
	tk_open_refused(test, &attr, -EINVAL, IBPOST_R_QUEUE);
	attr = ok;
	attr.region_bytes = PAGE_SIZE + 1;
	tk_open_refused(test, &attr, -EINVAL, IBPOST_R_BUF_SIZE);
	attr.region_bytes = 1ULL << 50;
	tk_open_refused(test, &attr, -EINVAL, IBPOST_R_BUF_SIZE);
	attr = ok;
	attr.lat_samples = IBPOST_LAT_SAMPLES_MAX + 1;
	tk_open_refused(test, &attr, -EINVAL, IBPOST_R_COUNT);
	attr = ok;
	attr.depth = 0;
	tk_open_refused(test, &attr, -EINVAL, IBPOST_R_DEPTH);
	attr.depth = 1U << 30;
	tk_open_refused(test, &attr, -EINVAL, IBPOST_R_DEPTH);
	attr = ok;
	attr.flags = 1;
	tk_open_refused(test, &attr, -EINVAL, IBPOST_R_FLAGS);
	attr = ok;
	attr.port = 99;
	tk_open_refused(test, &attr, -EINVAL, IBPOST_R_PORT);
	attr = ok;
	attr.peer = &ss;
	/*
	 * A peer's region: exactly one of region_bytes and remote_bytes
	 * (several queues with a peer are no refusal of their own now).
	 */
	attr.nr_queues = 2;
	tk_open_refused(test, &attr, -EINVAL, IBPOST_R_BUF_SIZE);
	attr.nr_queues = 1;
	tk_open_refused(test, &attr, -EINVAL, IBPOST_R_BUF_SIZE);
	attr.region_bytes = 1ULL << 20;
	attr.remote_bytes = 4096;
	tk_open_refused(test, &attr, -EINVAL, IBPOST_R_BUF_SIZE);
	attr.remote_bytes = 0;
	attr.region_bytes = PAGE_SIZE + 1;
	tk_open_refused(test, &attr, -EINVAL, IBPOST_R_BUF_SIZE);
	attr = ok;
	attr.dev_name = "nosuch0";
	tk_open_refused(test, &attr, -ENODEV, IBPOST_R_NO_DEVICE);
	attr = ok;
	reason = 12345;
	attr.reason = &reason;
	s = ibpost_session_open(&attr);
	KUNIT_ASSERT_FALSE(test, IS_ERR(s));
	KUNIT_EXPECT_EQ(test, reason, 12345U);
	ibpost_session_close(s);
}

/*
 * Exact latency over a ring of 4: after 10 requests the figures are over
 * the last 4, ordered, and not zero; ibpost_session_fail() puts the
 * session in error: the next submission is refused with -EIO.
 */
static void tk_latency_fail_test(struct kunit *test)
{
	struct ibpost_session_attr attr = {
		.dev_name = dev, .depth = 4, .region_bytes = 1ULL << 20,
		.lat_samples = 4, .event = tk_event,
	};
	struct ibpost_session_lat lat;
	struct page *p = tk_pages(test, 0);
	struct ibpost_session *s;
	struct scatterlist sg;
	int i, errors;
	u32 reason;

	s = ibpost_session_open(&attr);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(s), "open: %ld", PTR_ERR(s));
	KUNIT_EXPECT_EQ(test, ibpost_session_get_latency(s, &lat), 0);
	KUNIT_EXPECT_EQ(test, lat.samples, 0ULL);
	sg_init_table(&sg, 1);
	sg_set_page(&sg, p, PAGE_SIZE, 0);
	for (i = 0; i < 10; i++)
		KUNIT_EXPECT_EQ(test, tk_region_io(test, s, i & 1 ?
						   IBPOST_OP_READ :
						   IBPOST_OP_WRITE, &sg, 1,
						   (u64)i * PAGE_SIZE, 0, NULL),
				0);
	KUNIT_EXPECT_EQ(test, ibpost_session_get_latency(s, &lat), 0);
	KUNIT_EXPECT_EQ(test, lat.samples, 4ULL);
	KUNIT_EXPECT_GT(test, lat.min_ns, 0ULL);
	KUNIT_EXPECT_LE(test, lat.min_ns, lat.p50_ns);
	KUNIT_EXPECT_LE(test, lat.p50_ns, lat.p99_ns);
	KUNIT_EXPECT_LE(test, lat.p99_ns, lat.p999_ns);
	KUNIT_EXPECT_LE(test, lat.p999_ns, lat.max_ns);
	KUNIT_EXPECT_LE(test, lat.min_ns, lat.avg_ns);
	KUNIT_EXPECT_LE(test, lat.avg_ns, lat.max_ns);
	/* Exact: the median of 4 is one of the samples, the 2nd smallest. */
	KUNIT_EXPECT_EQ(test, lat.p999_ns, lat.max_ns);
	errors = atomic_read(&tk_events[IBPOST_EV_ERROR]);
	ibpost_session_fail(s);
	KUNIT_EXPECT_EQ(test, atomic_read(&tk_events[IBPOST_EV_ERROR]),
			errors + 1);
	KUNIT_EXPECT_EQ(test, tk_region_io(test, s, IBPOST_OP_WRITE, &sg, 1,
					   0, 0, &reason), -EIO);
	KUNIT_EXPECT_EQ(test, ibpost_session_req_wrs(s, 1), 0U);
	ibpost_session_close(s);
	__free_pages(p, 0);
}

static struct kunit_case tk_cases[] = {
	KUNIT_CASE(tk_consumer_test),
	KUNIT_CASE(tk_split_test),
	KUNIT_CASE(tk_entries_test),
	KUNIT_CASE(tk_signal_all_test),
	KUNIT_CASE(tk_nowait_test),
	KUNIT_CASE(tk_error_test),
	KUNIT_CASE(tk_unreg_test),
	KUNIT_CASE(tk_close_inflight_test),
	KUNIT_CASE(tk_refused_test),
	KUNIT_CASE(tk_partial_nowait_test),
	KUNIT_CASE(tk_close_waiter_test),
	KUNIT_CASE(tk_queues_region_test),
	KUNIT_CASE(tk_attr_reason_test),
	KUNIT_CASE(tk_latency_fail_test),
	{}
};

static struct kunit_suite tk_suite = {
	.name = "ibpost_session",
	.test_cases = tk_cases,
};

kunit_test_suite(tk_suite);

MODULE_DESCRIPTION("KUnit tests of ibpost's session API on an RDMA device");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

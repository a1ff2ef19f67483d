// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: two-sided messages on a real device (rdma_rxe): a loopback pair,
 * an initiator's message queue with per-command keys, a target's that
 * serves each command with an RDMA WRITE or READ against the command's
 * key and answers it with SEND_WITH_INV of that key, as nvme-rdma's
 * target does.  Every byte is checked on the far side; every command ends
 * exactly once; a key dies with its command (an RDMA WRITE through it
 * afterwards fails); a far side that breaks the protocol fails the queue.
 * Both CQs are polled by the test's thread (IB_POLL_DIRECT).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/test.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include "lib/abi.h"
#include "core/buf.h"
#include "core/cmdkey.h"
#include "core/msgq.h"
#include "core/pair.h"

static char *dev = "rxe_lo";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "RDMA device to run on");

#define MQ_PAGES	2
#define MQ_BYTES	(MQ_PAGES * PAGE_SIZE)
#define MQ_MSG		512

/* What the target got: a command, and how far its serving went. */
struct mq_rec {
	u64 cmd;
	struct ibpost_wire_desc desc;
	u32 imm;
	bool rdma_out, rdma_done, answered;
	int rdma_status;
	struct ib_cqe cqe;
	struct ib_sge sge;
	struct ib_rdma_wr wr;
	u32 slot;
};

/* An initiator's command: its pages and key. */
struct mq_cmd {
	struct page *pages[MQ_PAGES];
	struct scatterlist sg[MQ_PAGES];
	struct ibpost_cmdkey key;
	bool busy;
	u32 n;			/* its number in the run: pattern, direction */
	int calls;
	int status;
	bool invalidated;
	struct ibpost_wire_desc desc;
};

struct mq_ctx {
	struct kunit *test;
	struct ib_device *ibdev;
	struct ibpost_pair p;
	struct ibpost_cmdkeys keys;
	struct ibpost_msgq ini, tgt;
	bool ini_open, tgt_open;
	struct ibpost_buf tbuf;		/* the target's data slots */
	u32 window;
	struct mq_cmd *cmds;		/* 2 * window */
	struct mq_rec *recs;		/* 2 * window, a ring */
	u32 rec_head, rec_tail;
	u32 ended, wrong, ini_failed, tgt_failed;
	bool answer_inv;		/* answers invalidate the key */
};

static u8 mq_pattern(u32 n, u32 j)
{
	return (u8)(n * 131 + j * 7 + 1);
}

/* Serving a command: the direction its number says. */
static bool mq_target_writes(u32 n)
{
	return n & 1;
}

/* Byte @j of @cmd's pages. */
static u8 *mq_at(struct mq_cmd *cmd, u32 j)
{
	return (u8 *)page_address(cmd->pages[j / PAGE_SIZE]) + j % PAGE_SIZE;
}

static bool mq_recv(struct ibpost_msgq *q, const struct ibpost_msgq_in *in)
{
	struct mq_ctx *c = q->arg;
	struct mq_rec *r;

	if (c->rec_head - c->rec_tail >= 2 * c->window || in->ndesc != 1 ||
	    !in->has_imm) {
		c->wrong++;
		return false;
	}
	r = &c->recs[c->rec_head++ % (2 * c->window)];
	memset(r, 0, sizeof(*r));
	r->cmd = in->cmd;
	r->desc = in->desc[0];
	r->imm = in->imm;
	return false;
}

static bool mq_done(struct ibpost_msgq *q, void *cookie, int status,
		    const struct ibpost_msgq_in *in)
{
	struct mq_ctx *c = q->arg;
	struct mq_cmd *cmd = cookie;
	u32 j;

	cmd->calls++;
	cmd->status = status;
	cmd->invalidated = in && in->invalidated;
	if (cmd->key.state != IBPOST_CMDKEY_DEAD)
		c->wrong++;
	/* Dead: its pages are the CPU's again once it is put. */
	ibpost_cmdkey_put(&c->keys, &cmd->key);
	if (!status && mq_target_writes(cmd->n)) {
		for (j = 0; j < MQ_BYTES; j++)
			if (*mq_at(cmd, j) != mq_pattern(cmd->n, j)) {
				c->wrong++;
				break;
			}
	}
	cmd->busy = false;
	c->ended++;
	return false;
}

static void mq_ini_failed(struct ibpost_msgq *q)
{
	((struct mq_ctx *)q->arg)->ini_failed++;
}

static void mq_tgt_failed(struct ibpost_msgq *q)
{
	((struct mq_ctx *)q->arg)->tgt_failed++;
}

static const struct ibpost_msgq_ops mq_ini_ops = {
	.done = mq_done,
	.failed = mq_ini_failed,
};

static const struct ibpost_msgq_ops mq_tgt_ops = {
	.recv = mq_recv,
	.failed = mq_tgt_failed,
};

static void mq_poll(struct mq_ctx *c)
{
	ibpost_ep_poll(&c->p.ini);
	ibpost_ep_poll(&c->p.tgt);
	cond_resched();
}

static void mq_teardown(struct mq_ctx *c)
{
	u32 i;

	if (c->p.ini.qp) {
		ibpost_pair_drain(&c->p);
		if (c->ini_open)
			ibpost_msgq_close(&c->ini);
		if (c->tgt_open)
			ibpost_msgq_close(&c->tgt);
		ibpost_cmdkeys_destroy(&c->keys);
		ibpost_pair_destroy(&c->p);
	}
	if (c->tbuf.pages)
		ibpost_buf_free(&c->tbuf);
	for (i = 0; c->cmds && i < 2 * c->window; i++) {
		int k;

		for (k = 0; k < MQ_PAGES; k++)
			if (c->cmds[i].pages[k])
				__free_page(c->cmds[i].pages[k]);
	}
	if (c->ibdev)
		ib_device_put(c->ibdev);
}

/* Each case's end, passed or not: everything it set up is freed. */
static void mq_exit(struct kunit *test)
{
	if (test->priv)
		mq_teardown(test->priv);
}

static struct mq_ctx *mq_setup(struct kunit *test, u32 window)
{
	struct ibpost_msgq_attr ia = {
		.msg_size = MQ_MSG, .window = window, .ops = &mq_ini_ops,
	};
	struct ibpost_msgq_attr ta = {
		.target = true, .msg_size = MQ_MSG, .window = window,
		.ops = &mq_tgt_ops,
	};
	struct ibpost_conn_caps caps = {
		.send_sge = 1, .recv_sge = 1, .inline_data = 64,
		.owner = "ibpost_msgq_kunit",
	};
	struct ibpost_status st = {};
	struct mq_ctx *c;
	u32 i, k;

	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	c->test = test;
	c->window = window;
	c->answer_inv = true;
	c->cmds = kunit_kcalloc(test, 2 * window, sizeof(*c->cmds), GFP_KERNEL);
	c->recs = kunit_kcalloc(test, 2 * window, sizeof(*c->recs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c->cmds);
	KUNIT_ASSERT_NOT_NULL(test, c->recs);
	test->priv = c;
	c->ibdev = ib_device_get_by_name(dev, RDMA_DRIVER_UNKNOWN);
	if (!c->ibdev)
		kunit_skip(test, "no RDMA device %s", dev);
	ia.arg = c;
	ta.arg = c;
	caps.send_wr = ibpost_msgq_send_wrs(&ia);
	caps.ini_recv_wr = window;
	caps.recv_wr = window;
	/* Its answers, and one RDMA READ or WRITE per command it holds. */
	caps.target_send_wr = ibpost_msgq_send_wrs(&ta) + 2 * window;
	KUNIT_ASSERT_EQ(test, ibpost_pair_create(&c->p, c->ibdev,
						 rdma_start_port(c->ibdev),
						 &caps, NULL, &st), 0);
	KUNIT_ASSERT_EQ(test, ibpost_cmdkeys_init(&c->keys, &c->p.ini,
						  2 * window, MQ_PAGES), 0);
	KUNIT_ASSERT_EQ(test, ibpost_msgq_open(&c->tgt, &c->p.tgt, &ta, &st), 0);
	c->tgt_open = true;
	KUNIT_ASSERT_EQ(test, ibpost_msgq_open(&c->ini, &c->p.ini, &ia, &st), 0);
	c->ini_open = true;
	KUNIT_ASSERT_EQ(test, ibpost_buf_alloc(&c->tbuf, c->ibdev, 2 * window,
					       MQ_BYTES), 0);
	for (i = 0; i < 2 * window; i++) {
		sg_init_table(c->cmds[i].sg, MQ_PAGES);
		for (k = 0; k < MQ_PAGES; k++) {
			c->cmds[i].pages[k] = alloc_page(GFP_KERNEL);
			KUNIT_ASSERT_NOT_NULL(test, c->cmds[i].pages[k]);
			sg_set_page(&c->cmds[i].sg[k], c->cmds[i].pages[k],
				    PAGE_SIZE, 0);
		}
	}
	return c;
}

/*
 * Send command @n from a free command slot: its pages filled with its
 * pattern when the target reads them, zeroed when it writes them.
 * Return 0, -EAGAIN (no slot, no credit: nothing held), or the error.
 */
static int mq_issue(struct mq_ctx *c, u32 n, struct mq_cmd **out)
{
	struct ibpost_status st = {};
	struct ibpost_msgq_out o = {};
	struct mq_cmd *cmd = NULL;
	u32 i, j;
	int ret;

	for (i = 0; i < 2 * c->window; i++)
		if (!c->cmds[i].busy) {
			cmd = &c->cmds[i];
			break;
		}
	if (!cmd)
		return -EAGAIN;
	for (j = 0; j < MQ_BYTES; j++)
		*mq_at(cmd, j) = mq_target_writes(n) ? 0 : mq_pattern(n, j);
	ret = ibpost_cmdkey_get(&c->keys, &cmd->key, cmd->sg, MQ_PAGES,
				mq_target_writes(n) ? DMA_FROM_DEVICE :
						      DMA_TO_DEVICE, &st);
	if (ret)
		return ret;
	cmd->desc.addr = cpu_to_be64(cmd->key.addr);
	cmd->desc.key = cpu_to_be32(cmd->key.key);
	cmd->desc.length = cpu_to_be32(cmd->key.length);
	o.desc = &cmd->desc;
	o.ndesc = 1;
	o.has_imm = true;
	o.imm = n;
	o.key = &cmd->key;
	o.cookie = cmd;
	cmd->n = n;
	cmd->calls = 0;
	ret = ibpost_msgq_send(&c->ini, &o, &st);
	if (ret) {
		/* Refused before it went: the key was never posted. */
		ibpost_cmdkey_put(&c->keys, &cmd->key);
		return ret;
	}
	cmd->busy = true;
	if (out)
		*out = cmd;
	return 0;
}

static void mq_rdma_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct mq_rec *r = container_of(wc->wr_cqe, struct mq_rec, cqe);

	r->rdma_status = wc->status;
	r->rdma_done = true;
}

/* The target's RDMA WRITE or READ of @r's command, against its key. */
static int mq_rdma(struct mq_ctx *c, struct mq_rec *r, u32 slot)
{
	u8 *va = ibpost_buf_va(&c->tbuf, slot);
	u32 j;

	r->slot = slot;
	r->cqe.done = mq_rdma_done;
	if (mq_target_writes(r->imm)) {
		for (j = 0; j < MQ_BYTES; j++)
			va[j] = mq_pattern(r->imm, j);
	} else {
		memset(va, 0, MQ_BYTES);
	}
	ibpost_buf_for_device(&c->tbuf, slot);
	r->sge.addr = c->tbuf.dma[slot];
	r->sge.length = min_t(u32, be32_to_cpu(r->desc.length), MQ_BYTES);
	r->sge.lkey = c->p.tgt.pd->local_dma_lkey;
	memset(&r->wr, 0, sizeof(r->wr));
	r->wr.wr.opcode = mq_target_writes(r->imm) ? IB_WR_RDMA_WRITE :
						      IB_WR_RDMA_READ;
	r->wr.wr.wr_cqe = &r->cqe;
	r->wr.wr.sg_list = &r->sge;
	r->wr.wr.num_sge = 1;
	r->wr.wr.send_flags = IB_SEND_SIGNALED;
	r->wr.remote_addr = be64_to_cpu(r->desc.addr);
	r->wr.rkey = be32_to_cpu(r->desc.key);
	r->rdma_out = true;
	return ibpost_ep_post(&c->p.tgt, &r->wr.wr, NULL);
}

/* The target answers a served command (a READ's bytes checked first). */
static int mq_answer(struct mq_ctx *c, struct mq_rec *r)
{
	struct ibpost_msgq_out o = { .cmd = r->cmd };
	struct ibpost_status st = {};
	u8 *va = ibpost_buf_va(&c->tbuf, r->slot);
	u32 j;
	int ret;

	if (c->answer_inv)
		o.inv_key = be32_to_cpu(r->desc.key);
	ret = ibpost_msgq_send(&c->tgt, &o, &st);
	if (ret)
		return ret;
	if (!mq_target_writes(r->imm)) {
		ibpost_buf_for_cpu(&c->tbuf, r->slot);
		for (j = 0; j < MQ_BYTES; j++)
			if (va[j] != mq_pattern(r->imm, j)) {
				c->wrong++;
				break;
			}
	}
	r->answered = true;
	return 0;
}

/* Serve what arrived, in order: each command's RDMA, then its answer. */
static void mq_serve(struct mq_ctx *c)
{
	u32 i;

	for (i = c->rec_tail; i != c->rec_head; i++) {
		struct mq_rec *r = &c->recs[i % (2 * c->window)];

		if (!r->rdma_out) {
			if (mq_rdma(c, r, i % (2 * c->window)))
				c->wrong++;
			continue;
		}
		if (!r->rdma_done || r->answered)
			continue;
		if (r->rdma_status != IB_WC_SUCCESS) {
			c->wrong++;
			r->answered = true;
			continue;
		}
		if (mq_answer(c, r) == -EAGAIN)
			break;
	}
	while (c->rec_tail != c->rec_head &&
	       c->recs[c->rec_tail % (2 * c->window)].answered)
		c->rec_tail++;
}

/*
 * @total commands, as many in flight as the window lets: each served and
 * answered, each ended once with its bytes right.
 */
static void mq_run(struct mq_ctx *c, u32 total)
{
	struct kunit *test = c->test;
	unsigned long end = jiffies + 120 * HZ;
	u32 issued = 0, eagain = 0;
	int ret;

	while (c->ended < total && time_before(jiffies, end) &&
	       !c->ini_failed && !c->tgt_failed) {
		while (issued < total) {
			ret = mq_issue(c, issued, NULL);
			if (ret == -EAGAIN) {
				eagain++;
				break;
			}
			KUNIT_ASSERT_EQ(test, ret, 0);
			issued++;
		}
		mq_poll(c);
		mq_serve(c);
	}
	KUNIT_EXPECT_EQ(test, c->ended, total);
	KUNIT_EXPECT_EQ(test, c->wrong, 0U);
	KUNIT_EXPECT_EQ(test, c->ini_failed, 0U);
	KUNIT_EXPECT_EQ(test, c->tgt_failed, 0U);
	/* More commands than the window: the credits held some back. */
	if (total > c->window)
		KUNIT_EXPECT_GT(test, eagain, 0U);
	/* Every credit back, nothing waiting, nothing held. */
	KUNIT_EXPECT_EQ(test, c->ini.cr.avail, c->window);
	KUNIT_EXPECT_EQ(test, c->ini.waiting, 0U);
	KUNIT_EXPECT_EQ(test, c->ini.kept, 0U);
	KUNIT_EXPECT_EQ(test, c->tgt.unanswered, 0U);
	KUNIT_EXPECT_EQ(test, c->tgt.kept, 0U);
	KUNIT_EXPECT_EQ(test, c->ini.posted, c->window);
	KUNIT_EXPECT_EQ(test, c->tgt.posted, c->window);
}

static const u32 mq_windows[] = { 1, 16, 64 };

static void mq_window_desc(const u32 *w, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "window %u", *w);
}

KUNIT_ARRAY_PARAM(mq_window, mq_windows, mq_window_desc);

/*
 * Three windows of commands and one more, half of them RDMA WRITEs of the
 * target into the command's pages, half RDMA READs of them; every answer
 * invalidates its command's key.
 */
static void mq_roundtrip_test(struct kunit *test)
{
	const u32 *w = test->param_value;
	struct mq_ctx *c = mq_setup(test, *w);
	u32 i, inv = 0;

	mq_run(c, 3 * *w + 1);
	for (i = 0; i < 2 * *w; i++)
		inv += c->cmds[i].calls && c->cmds[i].invalidated;
	/* The last command of each slot: invalidated by its answer. */
	KUNIT_EXPECT_GT(test, inv, 0U);
	for (i = 0; i < 2 * *w; i++) {
		if (!c->cmds[i].calls)
			continue;
		KUNIT_EXPECT_EQ(test, c->cmds[i].calls, 1);
		KUNIT_EXPECT_EQ(test, c->cmds[i].status, 0);
		KUNIT_EXPECT_TRUE(test, c->cmds[i].invalidated);
		KUNIT_EXPECT_EQ(test, (int)c->cmds[i].key.state,
				(int)IBPOST_CMDKEY_FREE);
	}
}

/*
 * A served command's key is dead once it ended: the target's RDMA WRITE
 * through it again fails (remote access error), whether the answer
 * invalidated it (@inv) or the initiator's LOCAL_INV did.
 */
static void mq_stale_key(struct kunit *test, bool inv)
{
	struct mq_ctx *c = mq_setup(test, 4);
	struct mq_rec stale;
	unsigned long end;

	c->answer_inv = inv;
	mq_run(c, 2);
	KUNIT_ASSERT_EQ(test, c->ended, 2U);
	/* Command 1: the target wrote it; both ended as the answer said. */
	KUNIT_EXPECT_EQ(test, c->cmds[1].invalidated, inv);
	KUNIT_EXPECT_EQ(test, c->cmds[0].invalidated, inv);
	stale = c->recs[1];
	KUNIT_ASSERT_TRUE(test, mq_target_writes(stale.imm));
	stale.rdma_done = false;
	KUNIT_ASSERT_EQ(test, mq_rdma(c, &stale, 3), 0);
	end = jiffies + 10 * HZ;
	while (!stale.rdma_done && time_before(jiffies, end))
		mq_poll(c);
	KUNIT_ASSERT_TRUE(test, stale.rdma_done);
	KUNIT_EXPECT_NE(test, stale.rdma_status, (int)IB_WC_SUCCESS);
}

static void mq_stale_key_remote_inv_test(struct kunit *test)
{
	mq_stale_key(test, true);
}

static void mq_stale_key_local_inv_test(struct kunit *test)
{
	mq_stale_key(test, false);
}

/* Poll until the initiator (@ini) or the target failed, up to 10 s. */
static void mq_wait_failed(struct mq_ctx *c, bool ini)
{
	unsigned long end = jiffies + 10 * HZ;

	while (!(ini ? c->ini_failed : c->tgt_failed) &&
	       time_before(jiffies, end))
		mq_poll(c);
}

/*
 * A command the target's count says was never allowed (its credits
 * spent): the target fails, PEER_PROTO.
 */
static void mq_credit_overrun_test(struct kunit *test)
{
	struct mq_ctx *c = mq_setup(test, 2);

	c->tgt.cr.far = 0;
	KUNIT_ASSERT_EQ(test, mq_issue(c, 0, NULL), 0);
	mq_wait_failed(c, false);
	KUNIT_EXPECT_EQ(test, c->tgt_failed, 1U);
	KUNIT_EXPECT_EQ(test, c->tgt.err, -EPROTO);
	KUNIT_EXPECT_EQ(test, c->tgt.st.reason, (u32)IBPOST_R_PEER_PROTO);
	KUNIT_EXPECT_EQ(test, c->rec_head, 0U);
}

/*
 * An answer naming a command never sent fails the initiator; the command
 * that was sent ends once, at the close, with the queue's error and its
 * key dead.
 */
static void mq_unknown_answer_test(struct kunit *test)
{
	struct mq_ctx *c = mq_setup(test, 2);
	struct ibpost_msgq_out o = { .cmd = 0xdead00000001ULL };
	struct ibpost_status st = {};
	struct mq_cmd *cmd;
	unsigned long end = jiffies + 10 * HZ;

	KUNIT_ASSERT_EQ(test, mq_issue(c, 0, &cmd), 0);
	while (c->rec_head == 0 && time_before(jiffies, end))
		mq_poll(c);
	KUNIT_ASSERT_EQ(test, c->rec_head, 1U);
	KUNIT_ASSERT_EQ(test, ibpost_msgq_send(&c->tgt, &o, &st), 0);
	mq_wait_failed(c, true);
	KUNIT_EXPECT_EQ(test, c->ini_failed, 1U);
	KUNIT_EXPECT_EQ(test, c->ini.err, -EPROTO);
	KUNIT_EXPECT_EQ(test, c->ini.st.reason, (u32)IBPOST_R_PEER_PROTO);
	KUNIT_EXPECT_EQ(test, c->ini.st.value, 0xdead00000001ULL);
	KUNIT_EXPECT_EQ(test, cmd->calls, 0);
	/* Refused from now on, with the failure. */
	KUNIT_EXPECT_EQ(test, mq_issue(c, 1, NULL), -EPROTO);
	ibpost_pair_drain(&c->p);
	ibpost_msgq_close(&c->ini);
	c->ini_open = false;
	KUNIT_EXPECT_EQ(test, cmd->calls, 1);
	KUNIT_EXPECT_EQ(test, cmd->status, -EPROTO);
	KUNIT_EXPECT_EQ(test, (int)cmd->key.state, (int)IBPOST_CMDKEY_FREE);
	KUNIT_EXPECT_EQ(test, c->wrong, 0U);
}

/*
 * An answer that invalidates another command's key (a live one of the
 * same initiator): the initiator fails, naming the key it got and the
 * one it expected.
 */
static void mq_foreign_inv_test(struct kunit *test)
{
	struct mq_ctx *c = mq_setup(test, 2);
	struct ibpost_msgq_out o = {};
	struct ibpost_status st = {};
	struct mq_cmd *a, *b;
	unsigned long end = jiffies + 10 * HZ;

	KUNIT_ASSERT_EQ(test, mq_issue(c, 0, &a), 0);
	KUNIT_ASSERT_EQ(test, mq_issue(c, 1, &b), 0);
	while (c->rec_head < 2 && time_before(jiffies, end))
		mq_poll(c);
	KUNIT_ASSERT_EQ(test, c->rec_head, 2U);
	o.cmd = c->recs[0].cmd;
	o.inv_key = b->key.key;
	KUNIT_ASSERT_EQ(test, ibpost_msgq_send(&c->tgt, &o, &st), 0);
	mq_wait_failed(c, true);
	KUNIT_EXPECT_EQ(test, c->ini_failed, 1U);
	KUNIT_EXPECT_EQ(test, c->ini.st.reason, (u32)IBPOST_R_PEER_PROTO);
	KUNIT_EXPECT_EQ(test, c->ini.st.value, (u64)b->key.key);
	KUNIT_EXPECT_EQ(test, c->ini.st.limit, (u64)a->key.key);
	ibpost_pair_drain(&c->p);
	ibpost_msgq_close(&c->ini);
	c->ini_open = false;
	KUNIT_EXPECT_EQ(test, a->calls, 1);
	KUNIT_EXPECT_EQ(test, b->calls, 1);
	KUNIT_EXPECT_EQ(test, a->status, -EPROTO);
	KUNIT_EXPECT_EQ(test, b->status, -EPROTO);
}

/* Commands in flight at the close end once each, -ECONNRESET. */
static void mq_close_test(struct kunit *test)
{
	struct mq_ctx *c = mq_setup(test, 4);
	struct mq_cmd *cmd[4];
	unsigned long end = jiffies + 10 * HZ;
	int i;

	for (i = 0; i < 4; i++)
		KUNIT_ASSERT_EQ(test, mq_issue(c, i, &cmd[i]), 0);
	/* The window is full: the fifth waits for a credit. */
	KUNIT_EXPECT_EQ(test, mq_issue(c, 4, NULL), -EAGAIN);
	while (c->rec_head < 4 && time_before(jiffies, end))
		mq_poll(c);
	KUNIT_ASSERT_EQ(test, c->rec_head, 4U);
	ibpost_pair_drain(&c->p);
	ibpost_msgq_close(&c->ini);
	c->ini_open = false;
	for (i = 0; i < 4; i++) {
		KUNIT_EXPECT_EQ(test, cmd[i]->calls, 1);
		KUNIT_EXPECT_EQ(test, cmd[i]->status, -ECONNRESET);
		KUNIT_EXPECT_EQ(test, (int)cmd[i]->key.state,
				(int)IBPOST_CMDKEY_FREE);
	}
	KUNIT_EXPECT_EQ(test, c->ini_failed, 0U);
	KUNIT_EXPECT_EQ(test, c->wrong, 0U);
}

/* What is refused before anything is posted, with its reason. */
static void mq_refusals_test(struct kunit *test)
{
	struct mq_ctx *c = mq_setup(test, 2);
	struct ibpost_wire_desc d[IBPOST_WIRE_MSG_MAX_DESC + 1] = {};
	static u8 big[MQ_MSG];
	struct kvec v = { .iov_base = big, .iov_len = MQ_MSG };
	struct ibpost_msgq_attr a = { .msg_size = 32, .window = 1,
				      .ops = &mq_ini_ops };
	struct ibpost_msgq_out o = {};
	struct ibpost_status st = {};
	struct ibpost_msgq *q = kunit_kzalloc(test, sizeof(*q), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, q);
	KUNIT_EXPECT_EQ(test, ibpost_msgq_open(q, &c->p.ini, &a, &st), -EINVAL);
	KUNIT_EXPECT_EQ(test, st.reason, (u32)IBPOST_R_MSG_SIZE);
	KUNIT_EXPECT_EQ(test, st.limit, (u64)IBPOST_WIRE_MSG_MIN);
	a.msg_size = MQ_MSG;
	a.window = IBPOST_WIRE_MSG_MAX_WINDOW + 1;
	KUNIT_EXPECT_EQ(test, ibpost_msgq_open(q, &c->p.ini, &a, &st), -EINVAL);
	KUNIT_EXPECT_EQ(test, st.reason, (u32)IBPOST_R_DEPTH);

	o.desc = d;
	o.ndesc = IBPOST_WIRE_MSG_MAX_DESC + 1;
	KUNIT_EXPECT_EQ(test, ibpost_msgq_send(&c->ini, &o, &st), -EINVAL);
	KUNIT_EXPECT_EQ(test, st.reason, (u32)IBPOST_R_COUNT);
	o.ndesc = 0;
	o.vec = &v;
	o.nvec = 1;
	KUNIT_EXPECT_EQ(test, ibpost_msgq_send(&c->ini, &o, &st), -EINVAL);
	KUNIT_EXPECT_EQ(test, st.reason, (u32)IBPOST_R_MSG_SIZE);
	KUNIT_EXPECT_EQ(test, st.value, (u64)MQ_MSG + sizeof(struct ibpost_wire_msg));
	o.nvec = 0;
	o.inv_key = 1;
	KUNIT_EXPECT_EQ(test, ibpost_msgq_send(&c->ini, &o, &st), -EINVAL);
	KUNIT_EXPECT_EQ(test, st.reason, (u32)IBPOST_R_OPCODE);
	/* A target's answer with no command to answer. */
	KUNIT_EXPECT_EQ(test, ibpost_msgq_send(&c->tgt, &o, &st), -EINVAL);
	KUNIT_EXPECT_EQ(test, st.reason, (u32)IBPOST_R_COUNT);
	KUNIT_EXPECT_EQ(test, c->ini_failed + c->tgt_failed, 0U);
}

static struct kunit_case ibpost_msgq_cases[] = {
	KUNIT_CASE_PARAM(mq_roundtrip_test, mq_window_gen_params),
	KUNIT_CASE(mq_stale_key_remote_inv_test),
	KUNIT_CASE(mq_stale_key_local_inv_test),
	KUNIT_CASE(mq_credit_overrun_test),
	KUNIT_CASE(mq_unknown_answer_test),
	KUNIT_CASE(mq_foreign_inv_test),
	KUNIT_CASE(mq_close_test),
	KUNIT_CASE(mq_refusals_test),
	{}
};

static struct kunit_suite ibpost_msgq_suite = {
	.name = "ibpost_msgq",
	.exit = mq_exit,
	.test_cases = ibpost_msgq_cases,
};
kunit_test_suite(ibpost_msgq_suite);

MODULE_DESCRIPTION("KUnit tests of ibpost's two-sided messages on an RDMA device");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

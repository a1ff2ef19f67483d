// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the transfer engine against a real device (rdma_rxe in the test
 * guest; built again as ibpost_siw_kunit.ko, suite ibpost_siw, for siw).
 * Loaded after ibpost.ko and after the device exists; uses only the
 * exported API (include/ibpost.h).  Every run verifies every byte.  With
 * cm= every job connects through rdma_cm to that address of the device
 * (iWARP devices connect QPs no other way).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/test.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <ibpost.h>

#include "lib/sgl.h"

/*
 * What ibpost_run() returns for SEND/WRITE with immediate on iWARP: the
 * job's limits carry the device's flags, so it is refused before anything
 * is created (IBPOST_R_CAP_IMM, EOPNOTSUPP), as the ioctl front refuses it.
 */
#define IMM_RET		-EOPNOTSUPP
#define IMM_REASON	IBPOST_R_CAP_IMM

#ifndef ENGINE_SUITE
#define ENGINE_SUITE	"ibpost_rxe"
#define ENGINE_DEV	"rxe_lo"
#define ENGINE_CM	NULL
#endif

static char *dev = ENGINE_DEV;
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "RDMA device to run on");

static char *cm = ENGINE_CM;
module_param(cm, charp, 0444);
MODULE_PARM_DESC(cm, "IPv4 address of the device: connect every job through rdma_cm to it");

static unsigned int cm_ms;
module_param(cm_ms, uint, 0444);
MODULE_PARM_DESC(cm_ms, "rdma_cm timeout of each step in ms (0: IBPOST_CM_TIMEOUT_MS)");

static bool full;
module_param(full, bool, 0444);
MODULE_PARM_DESC(full, "run every variant of the matrix (make check-long), not two per op and shape");

/* The granted inline size ibpost probes: rxe 512, siw SIW_MAX_INLINE. */
#define RXE_INLINE	512U
#define SIW_INLINE	80U

enum { SHAPE_ONE, SHAPE_MAX, SHAPE_SEED, SHAPE_CROSS, SHAPE_N };

static const char *const shape_name[SHAPE_N] = {
	"1sge", "max-sge", "seed-layout", "page-cross",
};

static const char *const op_name[IBPOST_OP_MAX] = {
	"send", "send_imm", "write", "write_imm", "read",
};

/* The seed tutorial's layout: 256 B at 0, 512 B at 1024, 128 B at 2048. */
static const struct ibpost_sge_desc seed_layout[] = {
	{ 0, 256 }, { 1024, 512 }, { 2048, 128 },
};

#define ITERS	64
#define WARMUP	4
#define DEPTH	16

struct rxe_case {
	u32 op, shape;
	bool inl, chain, sig_n;
};

static struct rxe_case cases[IBPOST_OP_MAX * SHAPE_N * 8];
static u32 n_cases;

/*
 * The variants (inline, chain, signal interval: bits 0-2) of one op and
 * shape.  make check runs two of the eight, complements of each other and
 * rotating with op and shape, so each op and shape meets both values of
 * every flag and each pair of ops or shapes a different pair of variants
 * (about a quarter of the debug guest's matrix time); full=1 runs all.
 */
static bool rxe_variant_on(u32 op, u32 shape, u32 v)
{
	u32 pick = (op + shape) % 8;

	return full || v == pick || v == (~pick & 7);
}

struct rxe_caps {
	u32 max_send_sge, max_recv_sge, max_sge_rd, max_inline;
	bool iwarp;
};

static int rxe_caps_get(struct rxe_caps *c)
{
	struct ib_device *ibdev = ib_device_get_by_name(dev, RDMA_DRIVER_UNKNOWN);

	if (!ibdev)
		return -ENODEV;
	c->max_send_sge = ibdev->attrs.max_send_sge;
	c->max_recv_sge = ibdev->attrs.max_recv_sge;
	c->max_sge_rd = ibdev->attrs.max_sge_rd;
	c->iwarp = rdma_protocol_iwarp(ibdev, rdma_start_port(ibdev));
	c->max_inline = c->iwarp ? SIW_INLINE : RXE_INLINE;
	ib_device_put(ibdev);
	return 0;
}

/* The IBPOST_DEV_* capability flags ibpost reports for such a device. */
static u32 rxe_dev_flags(const struct rxe_caps *c)
{
	return c->iwarp ? IBPOST_DEV_NO_IMM | IBPOST_DEV_CM_ONLY |
			  IBPOST_DEV_WRITE_UNPLACED : 0;
}

/*
 * An RDMA WRITE on iWARP completes before its data is placed, so a loopback
 * WRITE is verified only in ping-pong; refused so up front by the ioctl
 * front (IBPOST_R_CAP_WRITE_VERIFY) and by ibpost_run().  Here it is
 * asserted refused, then run unverified.
 */
static void rxe_write_unverified(struct kunit *test, struct ibpost_run *r)
{
	struct ibpost_status st = {};
	struct rxe_caps caps;

	KUNIT_ASSERT_EQ(test, rxe_caps_get(&caps), 0);
	if (!caps.iwarp || r->op != IBPOST_OP_WRITE ||
	    (r->flags & IBPOST_RUN_PINGPONG))
		return;
	KUNIT_EXPECT_EQ(test, ibpost_run_check_caps(r, rxe_dev_flags(&caps), &st),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, st.reason, (u32)IBPOST_R_CAP_WRITE_VERIFY);
	r->flags &= ~IBPOST_RUN_VERIFY;
}

static const void *rxe_gen(const void *prev, char *desc)
{
	const struct rxe_case *c = prev ? (const struct rxe_case *)prev + 1 :
					  cases;
	u32 i = 0, op, shape, v;

	if (!prev) {
		for (op = 0; op < IBPOST_OP_MAX; op++)
			for (shape = 0; shape < SHAPE_N; shape++)
				for (v = 0; v < 8; v++) {
					if (!rxe_variant_on(op, shape, v))
						continue;
					cases[i].op = op;
					cases[i].shape = shape;
					cases[i].inl = v & 1;
					cases[i].chain = v & 2;
					cases[i].sig_n = v & 4;
					i++;
				}
		n_cases = i;
	}
	if (c >= cases + n_cases)
		return NULL;
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s %s%s%s%s", op_name[c->op],
		 shape_name[c->shape], c->inl ? " inline" : "",
		 c->chain ? " chain8" : " single",
		 c->sig_n ? " signal/8" : " signal/1");
	return c;
}

static void rxe_base(struct ibpost_run *r, u32 op)
{
	memset(r, 0, sizeof(*r));
	r->size = sizeof(*r);
	strscpy(r->dev, dev, sizeof(r->dev));
	r->op = op;
	r->flags = IBPOST_RUN_VERIFY;
	r->iters = ITERS;
	r->warmup = WARMUP;
	r->depth = DEPTH;
	r->batch = 1;
	r->signal_every = 1;
	r->layout = IBPOST_LAYOUT_EQUAL;
	r->recv_layout = IBPOST_LAYOUT_EQUAL;
	if (op == IBPOST_OP_SEND_IMM || op == IBPOST_OP_WRITE_IMM)
		r->imm_data = 0x1234abcd;
	if (cm && in4_pton(cm, -1, r->cm_addr, -1, NULL)) {
		r->flags |= IBPOST_RUN_CM;
		r->cm_family = AF_INET;
		r->cm_timeout_ms = cm_ms;
	}
}

static void rxe_shape(struct ibpost_run *r, const struct rxe_case *c,
		      const struct rxe_caps *caps, struct ibpost_run_ext *ext)
{
	switch (c->shape) {
	case SHAPE_ONE:
		r->num_sge = 1;
		r->msg_size = 4096;
		r->recv_num_sge = 1;
		break;
	case SHAPE_MAX:
		r->num_sge = c->op == IBPOST_OP_READ ? caps->max_sge_rd :
						       caps->max_send_sge;
		r->msg_size = r->num_sge * 16;
		r->recv_num_sge = caps->max_recv_sge;
		break;
	case SHAPE_SEED:
		r->layout = IBPOST_LAYOUT_EXPLICIT;
		r->num_sge = ARRAY_SIZE(seed_layout);
		ext->sges = seed_layout;
		r->msg_size = 896;
		r->recv_num_sge = 2;	/* the receiver splits it differently */
		break;
	default:
		r->layout = IBPOST_LAYOUT_PAGE_CROSS;
		r->recv_layout = IBPOST_LAYOUT_PAGE_CROSS;
		r->num_sge = 4;
		r->msg_size = 16384;
		r->recv_num_sge = 3;
		break;
	}
	if (c->inl)
		r->flags |= IBPOST_RUN_INLINE;
	if (c->chain)
		r->batch = 8;
	if (c->sig_n)
		r->signal_every = 8;
}

/*
 * SEND and RDMA WRITE with immediate on iWARP.  The ioctl front refuses
 * them before anything is created (ibpost_run_check_caps() with the
 * device's flags: EOPNOTSUPP, IBPOST_R_CAP_IMM); ibpost_run() itself gets
 * the same check once job.c passes the device's flags in its limits.
 */
static void rxe_imm_refused(struct kunit *test, struct ibpost_run *r,
			    int ret, const struct rxe_caps *caps)
{
	struct ibpost_status st = {};

	KUNIT_EXPECT_EQ(test, ibpost_run_check_caps(r, rxe_dev_flags(caps), &st),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, st.reason, (u32)IBPOST_R_CAP_IMM);
	KUNIT_EXPECT_EQ(test, st.value, (u64)r->op);
	KUNIT_EXPECT_EQ(test, ret, IMM_RET);
	KUNIT_EXPECT_EQ(test, r->status.reason, (u32)IMM_REASON);
	KUNIT_EXPECT_EQ(test, r->status.wr, IBPOST_STATUS_NONE);
	KUNIT_EXPECT_EQ(test, r->result.posted, 0ULL);
	KUNIT_EXPECT_EQ(test, r->result.wrs, 0ULL);
}

static void rxe_matrix_test(struct kunit *test)
{
	const struct rxe_case *c = test->param_value;
	struct ibpost_run_ext ext = {};
	struct rxe_caps caps;
	struct ibpost_run *r;
	int ret;

	KUNIT_ASSERT_EQ_MSG(test, rxe_caps_get(&caps), 0, "no device %s", dev);
	r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	rxe_base(r, c->op);
	rxe_shape(r, c, &caps, &ext);
	rxe_write_unverified(test, r);
	ret = ibpost_run(r, &ext);

	if (r->num_sge > (c->op == IBPOST_OP_READ ? caps.max_sge_rd :
			  caps.max_send_sge)) {
		/* siw: one SGE per READ (max_sge_rd 1). */
		KUNIT_EXPECT_EQ(test, ret, -EINVAL);
		KUNIT_EXPECT_EQ(test, r->status.reason, (u32)IBPOST_R_NUM_SGE);
		KUNIT_EXPECT_EQ(test, r->status.limit, (u64)caps.max_sge_rd);
		KUNIT_EXPECT_EQ(test, r->result.posted, 0ULL);
		return;
	}
	if (c->inl && c->op == IBPOST_OP_READ) {
		KUNIT_EXPECT_EQ(test, ret, -EINVAL);
		KUNIT_EXPECT_EQ(test, r->status.reason, (u32)IBPOST_R_INLINE_OP);
		return;
	}
	/* What the device lacks is refused first, before any field check. */
	if (ibpost_op_has_imm(c->op) && caps.iwarp) {
		rxe_imm_refused(test, r, ret, &caps);
		return;
	}
	if (c->inl && r->msg_size > caps.max_inline) {
		/* rxe grants 512 inline bytes, siw 80: refused before anything is posted. */
		KUNIT_EXPECT_EQ(test, ret, -EINVAL);
		KUNIT_EXPECT_EQ(test, r->status.reason,
				(u32)IBPOST_R_INLINE_SIZE);
		KUNIT_EXPECT_EQ(test, r->status.limit, (u64)caps.max_inline);
		KUNIT_EXPECT_EQ(test, r->result.posted, 0ULL);
		return;
	}
	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "reason %u wr %u sge %u value %llu",
			    r->status.reason, r->status.wr, r->status.sge,
			    r->status.value);
	KUNIT_EXPECT_EQ(test, r->result.wrs, (u64)ITERS);
	KUNIT_EXPECT_EQ(test, r->result.posted, (u64)(ITERS + WARMUP));
	KUNIT_EXPECT_EQ(test, r->result.bytes, (u64)ITERS * r->msg_size);
	KUNIT_EXPECT_EQ(test, r->result.wc_errors, 0U);
	KUNIT_EXPECT_EQ(test, r->result.verify_errors, 0U);
	KUNIT_EXPECT_LE(test, r->result.sq_max_used, (u32)DEPTH);
	KUNIT_EXPECT_GE(test, r->result.lat_samples,
			(u64)(ITERS / r->signal_every));
	KUNIT_EXPECT_LE(test, r->result.lat_samples, (u64)ITERS);
	KUNIT_EXPECT_GT(test, r->result.elapsed_ns, 0ULL);
	KUNIT_EXPECT_LE(test, r->result.lat_min_ns, r->result.lat_median_ns);
	KUNIT_EXPECT_LE(test, r->result.lat_median_ns, r->result.lat_max_ns);
	if (c->chain)
		KUNIT_EXPECT_LT(test, r->result.post_calls, r->result.posted);
	else
		KUNIT_EXPECT_EQ(test, r->result.post_calls, r->result.posted);
}

struct rxe_bad {
	const char *desc;
	void (*setup)(struct ibpost_run *r, struct ibpost_run_ext *ext);
	int err;
	u32 reason;
	u32 wr;
	u32 sge;
};

static const struct ibpost_sge_desc zero_len[] = { { 0, 64 }, { 128, 0 } };
static const struct ibpost_sge_desc far_sge[] = { { 0, 64 }, { 4U << 20, 64 } };

static void bad_zero(struct ibpost_run *r, struct ibpost_run_ext *e)
{
	r->layout = IBPOST_LAYOUT_EXPLICIT;
	r->num_sge = 2;
	r->msg_size = 64;
	e->sges = zero_len;
}

static void bad_range(struct ibpost_run *r, struct ibpost_run_ext *e)
{
	r->layout = IBPOST_LAYOUT_EXPLICIT;
	r->num_sge = 2;
	r->msg_size = 128;
	e->sges = far_sge;
}

static void bad_recv_zero(struct ibpost_run *r, struct ibpost_run_ext *e)
{
	r->op = IBPOST_OP_SEND;
	r->msg_size = 64;
	r->num_sge = 1;
	r->recv_layout = IBPOST_LAYOUT_EXPLICIT;
	r->recv_num_sge = 2;
	e->recv_sges = zero_len;
}

static void bad_num_sge(struct ibpost_run *r, struct ibpost_run_ext *e)
{
	r->num_sge = 4096;
}

static void bad_inline(struct ibpost_run *r, struct ibpost_run_ext *e)
{
	r->msg_size = 1024;
	r->flags |= IBPOST_RUN_INLINE;
}

static void bad_msg(struct ibpost_run *r, struct ibpost_run_ext *e)
{
	r->msg_size = 5U << 20;
}

static void bad_signal(struct ibpost_run *r, struct ibpost_run_ext *e)
{
	r->depth = 4;
	r->signal_every = 8;
}

static void bad_overflow(struct ibpost_run *r, struct ibpost_run_ext *e)
{
	r->iters = U64_MAX / 2;
}

static void bad_dev(struct ibpost_run *r, struct ibpost_run_ext *e)
{
	strscpy(r->dev, "nosuch", sizeof(r->dev));
}

static void bad_port(struct ibpost_run *r, struct ibpost_run_ext *e)
{
	r->port = 7;
}

static void bad_depth(struct ibpost_run *r, struct ibpost_run_ext *e)
{
	r->depth = 1U << 30;
}

static void bad_frpl(struct ibpost_run *r, struct ibpost_run_ext *e)
{
	r->msg_size = 4U << 20;
	r->depth = 2;
}

static void bad_imm(struct ibpost_run *r, struct ibpost_run_ext *e)
{
	r->imm_data = 5;
}

static void bad_pingpong(struct ibpost_run *r, struct ibpost_run_ext *e)
{
	r->op = IBPOST_OP_READ;
	r->flags |= IBPOST_RUN_PINGPONG;
}

static const struct rxe_bad bad_cases[] = {
	{ "zero-length sge", bad_zero, -EINVAL, IBPOST_R_SGE_ZERO, 0, 1 },
	{ "sge outside buffer", bad_range, -EINVAL, IBPOST_R_SGE_RANGE, 0, 1 },
	{ "zero-length receive sge", bad_recv_zero, -EINVAL,
	  IBPOST_R_SGE_ZERO, IBPOST_STATUS_RECV_WR, 1 },
	{ "num_sge above max_send_sge", bad_num_sge, -EINVAL,
	  IBPOST_R_NUM_SGE, IBPOST_STATUS_NONE, IBPOST_STATUS_NONE },
	{ "inline above granted", bad_inline, -EINVAL, IBPOST_R_INLINE_SIZE,
	  IBPOST_STATUS_NONE, IBPOST_STATUS_NONE },
	{ "message above max", bad_msg, -EINVAL, IBPOST_R_MSG_SIZE,
	  IBPOST_STATUS_NONE, IBPOST_STATUS_NONE },
	{ "signal interval above depth", bad_signal, -EINVAL,
	  IBPOST_R_SIGNAL, IBPOST_STATUS_NONE, IBPOST_STATUS_NONE },
	{ "iters * size overflow", bad_overflow, -EOVERFLOW,
	  IBPOST_R_OVERFLOW, IBPOST_STATUS_NONE, IBPOST_STATUS_NONE },
	{ "unknown device", bad_dev, -ENODEV, IBPOST_R_NO_DEVICE,
	  IBPOST_STATUS_NONE, IBPOST_STATUS_NONE },
	{ "bad port", bad_port, -EINVAL, IBPOST_R_PORT, IBPOST_STATUS_NONE,
	  IBPOST_STATUS_NONE },
	{ "depth above max_qp_wr", bad_depth, -EINVAL, IBPOST_R_DEPTH,
	  IBPOST_STATUS_NONE, IBPOST_STATUS_NONE },
	{ "target above fast-reg page list", bad_frpl, -EINVAL, IBPOST_R_FRPL,
	  IBPOST_STATUS_NONE, IBPOST_STATUS_NONE },
	{ "immediate data on WRITE", bad_imm, -EINVAL, IBPOST_R_IMM_OP,
	  IBPOST_STATUS_NONE, IBPOST_STATUS_NONE },
	{ "ping-pong with READ", bad_pingpong, -EINVAL, IBPOST_R_PINGPONG,
	  IBPOST_STATUS_NONE, IBPOST_STATUS_NONE },
};

static void bad_desc(const struct rxe_bad *b, char *desc)
{
	strscpy(desc, b->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(bad, bad_cases, bad_desc);

static void rxe_refused_test(struct kunit *test)
{
	const struct rxe_bad *b = test->param_value;
	struct ibpost_run_ext ext = {};
	struct ibpost_run *r;
	int ret;

	r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	rxe_base(r, IBPOST_OP_WRITE);
	r->num_sge = 1;
	r->msg_size = 4096;
	/* siw: a verified WRITE is refused first; these cases check fields. */
	rxe_write_unverified(test, r);
	b->setup(r, &ext);
	ret = ibpost_run(r, &ext);
	KUNIT_EXPECT_EQ(test, ret, b->err);
	KUNIT_EXPECT_EQ(test, r->status.reason, b->reason);
	KUNIT_EXPECT_EQ(test, r->status.wr, b->wr);
	KUNIT_EXPECT_EQ(test, r->status.sge, b->sge);
	KUNIT_EXPECT_EQ(test, r->result.posted, 0ULL);
}

/* A fault reaches the device: the right completion status, then cleanup. */
static void rxe_fault_run(struct kunit *test, u32 op, u32 fault,
			  struct ibpost_run *r)
{
	struct ibpost_run_ext ext = { .fault = fault };
	struct rxe_caps caps;

	KUNIT_ASSERT_EQ(test, rxe_caps_get(&caps), 0);
	rxe_base(r, op);
	/* Two SGEs, one for a READ on siw (max_sge_rd 1). */
	r->num_sge = op == IBPOST_OP_READ ? min(2U, caps.max_sge_rd) : 2;
	r->msg_size = 4096;
	if (fault != IBPOST_FAULT_CORRUPT)
		rxe_write_unverified(test, r);
	KUNIT_EXPECT_EQ(test, ibpost_run(r, &ext), -EIO);
}

static void rxe_clean_run(struct kunit *test)
{
	struct ibpost_run *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, r);
	rxe_base(r, IBPOST_OP_WRITE);
	r->num_sge = 2;
	r->msg_size = 4096;
	rxe_write_unverified(test, r);
	KUNIT_EXPECT_EQ(test, ibpost_run(r, NULL), 0);
	KUNIT_EXPECT_EQ(test, r->result.wrs, (u64)ITERS);
}

static void rxe_bad_lkey_test(struct kunit *test)
{
	struct ibpost_run *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	u32 st;

	KUNIT_ASSERT_NOT_NULL(test, r);
	rxe_fault_run(test, IBPOST_OP_WRITE, IBPOST_FAULT_BAD_LKEY, r);
	st = r->result.first_err_status;
	KUNIT_EXPECT_EQ(test, r->status.reason, (u32)IBPOST_R_WC_ERROR);
	/* rxe says LOC_QP_OP_ERR, hardware LOC_PROT_ERR. */
	KUNIT_EXPECT_TRUE_MSG(test, st == IB_WC_LOC_QP_OP_ERR ||
			      st == IB_WC_LOC_PROT_ERR, "status %u", st);
	KUNIT_EXPECT_EQ(test, r->result.first_err_wr, 0U);
	KUNIT_EXPECT_GE(test, r->result.wc_errors, 1U);
	rxe_clean_run(test);
}

/*
 * The last WR's remote address past its MR: the responder's error comes
 * back as the WR's completion.  Not for a WRITE on iWARP, whose completion
 * comes before the target has looked at it (siw then reports success for
 * all 64 WRs and the target QP's TERMINATE goes unseen): a READ there,
 * which siw completes with IB_WC_WR_FLUSH_ERR at the offending WR.
 */
static void rxe_remote_range_test(struct kunit *test)
{
	struct ibpost_run *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	struct rxe_caps caps;

	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_ASSERT_EQ(test, rxe_caps_get(&caps), 0);
	rxe_fault_run(test, caps.iwarp ? IBPOST_OP_READ : IBPOST_OP_WRITE,
		      IBPOST_FAULT_REMOTE_RANGE, r);
	KUNIT_EXPECT_EQ(test, r->status.reason, (u32)IBPOST_R_WC_ERROR);
	/* siw: the target's TERMINATE puts the QP in error, the READ is flushed. */
	KUNIT_EXPECT_EQ(test, r->result.first_err_status,
			caps.iwarp ? (u32)IB_WC_WR_FLUSH_ERR :
			(u32)IB_WC_REM_ACCESS_ERR);
	KUNIT_EXPECT_EQ(test, r->result.first_err_wr, (u32)(WARMUP + ITERS - 1));
	KUNIT_EXPECT_EQ(test, r->result.wrs, (u64)ITERS - 1);
	rxe_clean_run(test);
}

static void rxe_corrupt_test(struct kunit *test)
{
	struct ibpost_run *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	struct rxe_caps caps;
	u32 op;

	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_ASSERT_EQ(test, rxe_caps_get(&caps), 0);
	for (op = 0; op < IBPOST_OP_MAX; op++) {
		/* Refused on iWARP: rxe_matrix_test. */
		if (caps.iwarp && (ibpost_op_has_imm(op) ||
				   op == IBPOST_OP_WRITE))
			continue;
		rxe_fault_run(test, op, IBPOST_FAULT_CORRUPT, r);
		KUNIT_EXPECT_EQ(test, r->status.reason, (u32)IBPOST_R_VERIFY);
		KUNIT_EXPECT_EQ(test, r->result.verify_errors, 1U);
		KUNIT_EXPECT_EQ(test, r->result.verify_wr, (u32)WARMUP);
		KUNIT_EXPECT_EQ(test, r->result.verify_sge, 0U);
		KUNIT_EXPECT_EQ(test, r->result.verify_offset, 0U);
		KUNIT_EXPECT_NE(test, r->result.verify_expected,
				r->result.verify_got);
	}
	rxe_clean_run(test);
}

static void rxe_duration_test(struct kunit *test)
{
	struct ibpost_run *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, r);
	rxe_base(r, IBPOST_OP_WRITE);
	r->iters = 0;
	r->duration_ms = 300;
	r->num_sge = 1;
	r->msg_size = 4096;
	r->signal_every = 4;
	rxe_write_unverified(test, r);
	KUNIT_EXPECT_EQ(test, ibpost_run(r, NULL), 0);
	KUNIT_EXPECT_GT(test, r->result.wrs, 0ULL);
	KUNIT_EXPECT_GE(test, r->result.elapsed_ns, 300ULL * NSEC_PER_MSEC);
	KUNIT_EXPECT_EQ(test, r->result.verify_errors, 0U);
}

/* Ping-pong: every iteration's data checked on arrival, one sample each. */
static void rxe_pingpong_test(struct kunit *test)
{
	struct ibpost_run *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	struct ibpost_run_ext ext = { .sges = seed_layout };
	u32 shape;

	KUNIT_ASSERT_NOT_NULL(test, r);
	for (shape = 0; shape < 3; shape++) {
		rxe_base(r, IBPOST_OP_WRITE);
		r->flags |= IBPOST_RUN_PINGPONG;
		if (shape == 0) {
			r->num_sge = 1;
			r->msg_size = 64;
		} else if (shape == 1) {
			r->layout = IBPOST_LAYOUT_EXPLICIT;
			r->num_sge = ARRAY_SIZE(seed_layout);
		} else {
			r->layout = IBPOST_LAYOUT_PAGE_CROSS;
			r->num_sge = 4;
			r->msg_size = 4096;
		}
		KUNIT_EXPECT_EQ_MSG(test, ibpost_run(r, shape == 1 ? &ext : NULL),
				    0, "shape %u: reason %u", shape,
				    r->status.reason);
		KUNIT_EXPECT_EQ(test, r->result.wrs, (u64)ITERS);
		KUNIT_EXPECT_EQ(test, r->result.posted, (u64)(WARMUP + ITERS));
		KUNIT_EXPECT_EQ(test, r->result.lat_samples, (u64)ITERS);
		KUNIT_EXPECT_GT(test, r->result.lat_median_ns, 0ULL);
		KUNIT_EXPECT_EQ(test, r->result.verify_errors, 0U);
		KUNIT_EXPECT_EQ(test, r->result.wc_errors, 0U);
	}
}

/* A byte the ping corrupted is caught by the target side, at its WR. */
static void rxe_pingpong_corrupt_test(struct kunit *test)
{
	struct ibpost_run *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	struct ibpost_run_ext ext = { .fault = IBPOST_FAULT_CORRUPT };

	KUNIT_ASSERT_NOT_NULL(test, r);
	rxe_base(r, IBPOST_OP_WRITE);
	r->flags |= IBPOST_RUN_PINGPONG;
	r->num_sge = 2;
	r->msg_size = 4096;
	KUNIT_EXPECT_EQ(test, ibpost_run(r, &ext), -EIO);
	KUNIT_EXPECT_EQ(test, r->status.reason, (u32)IBPOST_R_VERIFY);
	KUNIT_EXPECT_EQ(test, r->result.verify_errors, 1U);
	KUNIT_EXPECT_EQ(test, r->result.verify_wr, (u32)WARMUP);
	KUNIT_EXPECT_EQ(test, r->result.verify_sge, 0U);
	KUNIT_EXPECT_EQ(test, r->result.verify_offset, 0U);
	KUNIT_EXPECT_EQ(test, r->result.wrs, 0ULL);
	rxe_clean_run(test);
}

static struct kunit_case rxe_cases[] = {
	KUNIT_CASE_PARAM(rxe_matrix_test, rxe_gen),
	KUNIT_CASE_PARAM(rxe_refused_test, bad_gen_params),
	KUNIT_CASE(rxe_bad_lkey_test),
	KUNIT_CASE(rxe_remote_range_test),
	KUNIT_CASE(rxe_corrupt_test),
	KUNIT_CASE(rxe_duration_test),
	KUNIT_CASE(rxe_pingpong_test),
	KUNIT_CASE(rxe_pingpong_corrupt_test),
	{}
};

static struct kunit_suite rxe_suite = {
	.name = ENGINE_SUITE,
	.test_cases = rxe_cases,
};

kunit_test_suite(rxe_suite);

MODULE_DESCRIPTION("KUnit tests of the ibpost engine on an RDMA device");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: SGE layouts, their validation and the data pattern (module/lib/sgl.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/test.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/socket.h>

#include "lib/sgl.h"

/* Generate a layout, failing the test on refusal. */
static struct ibpost_sge_desc *ibpost_gen(struct kunit *test, u32 kind,
					  u32 msg, u32 n, u64 seed)
{
	struct ibpost_sge_desc *l;
	struct ibpost_status st = {};

	l = kunit_kcalloc(test, n, sizeof(*l), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, l);
	KUNIT_ASSERT_EQ(test, ibpost_layout_gen(kind, msg, n, seed, l, &st), 0);
	KUNIT_ASSERT_EQ(test, st.reason, (u32)IBPOST_R_NONE);
	return l;
}

/* ---- ibpost_layout_gen(): properties of every generated layout ---- */

struct ibpost_gen_case {
	u32 msg;
	u32 n;
	u64 seed;
};

static const struct ibpost_gen_case ibpost_gen_cases[] = {
	{ 1, 1, 1 },
	{ 2, 1, 2 },
	{ 7, 7, 3 },
	{ 100, 3, 4 },
	{ 4096, 1, 5 },
	{ 4097, 2, 6 },
	{ 8191, 5, 7 },
	{ 65536, 16, 8 },
	{ 300, 256, 9 },
	{ 1000, 256, 10 },
	{ 1 << 20, 256, 11 },
	{ 3 << 20, 17, 12 },
	{ IBPOST_MAX_MSG, 256, 0 },
	{ IBPOST_MAX_MSG, 1, 0xdeadbeefcafeULL },
};

static void ibpost_gen_case_desc(const struct ibpost_gen_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "msg %u sge %u seed %llu",
		 c->msg, c->n, c->seed);
}

KUNIT_ARRAY_PARAM(ibpost_gen, ibpost_gen_cases, ibpost_gen_case_desc);

/* Lengths >= 1 sum to msg, no u32 wrap, no two SGEs share a byte. */
static void ibpost_expect_sane(struct kunit *test,
			       const struct ibpost_sge_desc *l, u32 n, u32 msg)
{
	struct ibpost_status st = {};
	u64 sum = 0, ei, ej;
	u32 i, j;

	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_GE_MSG(test, l[i].length, 1U, "sge %u", i);
		ei = (u64)l[i].offset + l[i].length;
		KUNIT_EXPECT_LE_MSG(test, ei, (u64)U32_MAX, "sge %u", i);
		sum += l[i].length;
		for (j = 0; j < i; j++) {
			ej = (u64)l[j].offset + l[j].length;
			KUNIT_EXPECT_TRUE_MSG(test, ei <= l[j].offset ||
					      ej <= l[i].offset,
					      "sge %u [%u,+%u) overlaps sge %u [%u,+%u)",
					      i, l[i].offset, l[i].length,
					      j, l[j].offset, l[j].length);
		}
	}
	KUNIT_EXPECT_EQ(test, sum, (u64)msg);
	KUNIT_EXPECT_EQ(test, ibpost_layout_sum(l, n), (u64)msg);
	KUNIT_EXPECT_EQ(test, ibpost_layout_check(l, n, msg, U32_MAX, &st), 0);
	KUNIT_EXPECT_EQ(test, st.reason, (u32)IBPOST_R_NONE);
}

static void ibpost_expect_equal(struct kunit *test,
				const struct ibpost_sge_desc *l, u32 n, u32 msg)
{
	u32 i;

	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ_MSG(test, l[i].offset,
				    i ? l[i - 1].offset + l[i - 1].length : 0,
				    "sge %u not contiguous", i);
		if (i < n - 1)
			KUNIT_EXPECT_EQ_MSG(test, l[i].length, msg / n,
					    "sge %u", i);
	}
	KUNIT_EXPECT_EQ(test, ibpost_layout_span(l, n), msg);
}

static void ibpost_expect_page_cross(struct kunit *test,
				     const struct ibpost_sge_desc *l, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++) {
		if (l[i].length < 2)
			continue;
		KUNIT_EXPECT_NE_MSG(test, l[i].offset / PAGE_SIZE,
				    (l[i].offset + l[i].length - 1) / PAGE_SIZE,
				    "sge %u [%u,+%u) stays in one page", i,
				    l[i].offset, l[i].length);
	}
}

static void ibpost_expect_unaligned(struct kunit *test,
				    const struct ibpost_sge_desc *l, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ_MSG(test, l[i].offset & 1, 1U,
				    "sge %u offset %u even", i, l[i].offset);
		KUNIT_EXPECT_NE_MSG(test, l[i].offset % 8, 0U,
				    "sge %u offset %u aligned", i, l[i].offset);
	}
}

static void ibpost_expect_random(struct kunit *test,
				 const struct ibpost_gen_case *c,
				 const struct ibpost_sge_desc *l)
{
	size_t bytes = c->n * sizeof(*l);
	struct ibpost_sge_desc *again, *other;

	again = ibpost_gen(test, IBPOST_LAYOUT_RANDOM, c->msg, c->n, c->seed);
	KUNIT_EXPECT_EQ_MSG(test, memcmp(l, again, bytes), 0,
			    "same seed gave another layout");
	/* One SGE has only its gap to vary: 1 in 64 would be equal. */
	if (c->n < 2)
		return;
	other = ibpost_gen(test, IBPOST_LAYOUT_RANDOM, c->msg, c->n,
			   c->seed + 1);
	KUNIT_EXPECT_NE_MSG(test, memcmp(l, other, bytes), 0,
			    "seeds %llu and %llu gave the same layout",
			    c->seed, c->seed + 1);
}

static void ibpost_layout_gen_kind(struct kunit *test, u32 kind)
{
	const struct ibpost_gen_case *c = test->param_value;
	struct ibpost_sge_desc *l = ibpost_gen(test, kind, c->msg, c->n,
					       c->seed);

	ibpost_expect_sane(test, l, c->n, c->msg);
	switch (kind) {
	case IBPOST_LAYOUT_EQUAL:
		ibpost_expect_equal(test, l, c->n, c->msg);
		break;
	case IBPOST_LAYOUT_PAGE_CROSS:
		ibpost_expect_page_cross(test, l, c->n);
		break;
	case IBPOST_LAYOUT_UNALIGNED:
		ibpost_expect_unaligned(test, l, c->n);
		break;
	case IBPOST_LAYOUT_RANDOM:
		ibpost_expect_random(test, c, l);
		break;
	}
}

static void ibpost_layout_gen_equal_test(struct kunit *test)
{
	ibpost_layout_gen_kind(test, IBPOST_LAYOUT_EQUAL);
}

static void ibpost_layout_gen_page_cross_test(struct kunit *test)
{
	ibpost_layout_gen_kind(test, IBPOST_LAYOUT_PAGE_CROSS);
}

static void ibpost_layout_gen_unaligned_test(struct kunit *test)
{
	ibpost_layout_gen_kind(test, IBPOST_LAYOUT_UNALIGNED);
}

static void ibpost_layout_gen_random_test(struct kunit *test)
{
	ibpost_layout_gen_kind(test, IBPOST_LAYOUT_RANDOM);
}

/* Seed 0 is documented nowhere as special, but must still be usable. */
static void ibpost_layout_gen_seed_zero_test(struct kunit *test)
{
	struct ibpost_sge_desc *a, *b;

	a = ibpost_gen(test, IBPOST_LAYOUT_RANDOM, 5000, 32, 0);
	b = ibpost_gen(test, IBPOST_LAYOUT_RANDOM, 5000, 32, 0);
	ibpost_expect_sane(test, a, 32, 5000);
	KUNIT_EXPECT_EQ(test, memcmp(a, b, 32 * sizeof(*a)), 0);
}

/* ---- ibpost_layout_gen(): refusals ---- */

struct ibpost_gen_err_case {
	const char *desc;
	u32 kind, msg, n;
	u32 reason;
	u64 value, limit;
};

static const struct ibpost_gen_err_case ibpost_gen_err_cases[] = {
	{ "equal msg below num_sge", IBPOST_LAYOUT_EQUAL, 3, 4,
	  IBPOST_R_LAYOUT_FIT, 3, 4 },
	{ "page-cross msg below num_sge", IBPOST_LAYOUT_PAGE_CROSS, 255, 256,
	  IBPOST_R_LAYOUT_FIT, 255, 256 },
	{ "unaligned msg below num_sge", IBPOST_LAYOUT_UNALIGNED, 1, 2,
	  IBPOST_R_LAYOUT_FIT, 1, 2 },
	{ "random msg below num_sge", IBPOST_LAYOUT_RANDOM, 9, 10,
	  IBPOST_R_LAYOUT_FIT, 9, 10 },
	{ "random msg 0", IBPOST_LAYOUT_RANDOM, 0, 1,
	  IBPOST_R_LAYOUT_FIT, 0, 1 },
	{ "num_sge 0", IBPOST_LAYOUT_EQUAL, 100, 0,
	  IBPOST_R_NUM_SGE, 0, IBPOST_MAX_SGE },
	{ "num_sge above max", IBPOST_LAYOUT_RANDOM, 100000,
	  IBPOST_MAX_SGE + 1, IBPOST_R_NUM_SGE, IBPOST_MAX_SGE + 1,
	  IBPOST_MAX_SGE },
	{ "num_sge huge", IBPOST_LAYOUT_EQUAL, 100, U32_MAX,
	  IBPOST_R_NUM_SGE, U32_MAX, IBPOST_MAX_SGE },
	{ "kind explicit", IBPOST_LAYOUT_EXPLICIT, 100, 2,
	  IBPOST_R_LAYOUT, IBPOST_LAYOUT_EXPLICIT, IBPOST_LAYOUT_MAX - 1 },
	{ "kind max", IBPOST_LAYOUT_MAX, 100, 2,
	  IBPOST_R_LAYOUT, IBPOST_LAYOUT_MAX, IBPOST_LAYOUT_MAX - 1 },
	{ "kind huge", U32_MAX, 100, 2,
	  IBPOST_R_LAYOUT, U32_MAX, IBPOST_LAYOUT_MAX - 1 },
};

static void ibpost_gen_err_case_desc(const struct ibpost_gen_err_case *c,
				     char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ibpost_gen_err, ibpost_gen_err_cases,
		  ibpost_gen_err_case_desc);

static void ibpost_layout_gen_err_test(struct kunit *test)
{
	const struct ibpost_gen_err_case *c = test->param_value;
	struct ibpost_sge_desc l[4] = {};
	struct ibpost_status st = {};

	KUNIT_EXPECT_EQ(test, ibpost_layout_gen(c->kind, c->msg, c->n, 1, l,
						&st), -EINVAL);
	KUNIT_EXPECT_EQ(test, st.reason, c->reason);
	KUNIT_EXPECT_EQ(test, st.value, c->value);
	KUNIT_EXPECT_EQ(test, st.limit, c->limit);
	KUNIT_EXPECT_EQ(test, st.wr, IBPOST_STATUS_NONE);
	KUNIT_EXPECT_EQ(test, st.sge, IBPOST_STATUS_NONE);
}

/* ---- ibpost_layout_check() ---- */

/* The seed tutorial's layout: three SGEs with holes, 896 bytes. */
static const struct ibpost_sge_desc ibpost_tutorial[] = {
	{ .offset = 0, .length = 256 },
	{ .offset = 1024, .length = 512 },
	{ .offset = 2048, .length = 128 },
};

static void ibpost_layout_tutorial_test(struct kunit *test)
{
	struct ibpost_status st = {};

	KUNIT_EXPECT_EQ(test, ibpost_layout_check(ibpost_tutorial, 3, 896,
						  4096, &st), 0);
	KUNIT_EXPECT_EQ(test, st.reason, (u32)IBPOST_R_NONE);
	KUNIT_EXPECT_EQ(test, ibpost_layout_sum(ibpost_tutorial, 3), 896ULL);
	KUNIT_EXPECT_EQ(test, ibpost_layout_span(ibpost_tutorial, 3), 2176U);
}

struct ibpost_chk_case {
	const char *desc;
	struct ibpost_sge_desc sges[4];
	u32 n, msg, slot_max;
	int err;
	u32 reason, sge;
	u64 value, limit;
};

#define IBPOST_NO_SGE	IBPOST_STATUS_NONE

static const struct ibpost_chk_case ibpost_chk_cases[] = {
	{ "tutorial layout", { { 0, 256 }, { 1024, 512 }, { 2048, 128 } },
	  3, 896, 4096, 0, IBPOST_R_NONE, 0, 0, 0 },
	{ "end exactly at slot_max", { { 0, 96 }, { 4000, 96 } },
	  2, 192, 4096, 0, IBPOST_R_NONE, 0, 0, 0 },
	{ "single SGE ending at u32 max", { { U32_MAX - 10, 10 } },
	  1, 10, U32_MAX, 0, IBPOST_R_NONE, 0, 0, 0 },
	{ "zero length first", { { 0, 0 }, { 16, 16 } },
	  2, 16, 4096, -EINVAL, IBPOST_R_SGE_ZERO, 0, 0, 1 },
	{ "zero length third", { { 0, 8 }, { 8, 8 }, { 16, 0 }, { 16, 8 } },
	  4, 24, 4096, -EINVAL, IBPOST_R_SGE_ZERO, 2, 0, 1 },
	{ "offset+length wraps u32", { { U32_MAX - 10, 100 } },
	  1, 100, U32_MAX, -EINVAL, IBPOST_R_SGE_RANGE, 0,
	  (u64)U32_MAX + 90, U32_MAX },
	{ "second SGE wraps u32", { { 0, 0x80000000 }, { 0x80000000, 0x80000000 } },
	  2, 0, U32_MAX, -EINVAL, IBPOST_R_SGE_RANGE, 1, 1ULL << 32, U32_MAX },
	{ "end beyond slot_max", { { 0, 100 }, { 100, 100 }, { 4000, 200 } },
	  3, 400, 4096, -EINVAL, IBPOST_R_SGE_RANGE, 2, 4200, 4096 },
	{ "offset beyond slot_max", { { 8192, 1 } },
	  1, 1, 4096, -EINVAL, IBPOST_R_SGE_RANGE, 0, 8193, 4096 },
	{ "sum below msg", { { 0, 256 }, { 1024, 512 }, { 2048, 128 } },
	  3, 897, 4096, -EINVAL, IBPOST_R_MSG_SUM, IBPOST_NO_SGE, 896, 897 },
	{ "sum above msg", { { 0, 256 }, { 1024, 512 }, { 2048, 128 } },
	  3, 895, 4096, -EINVAL, IBPOST_R_MSG_SUM, IBPOST_NO_SGE, 896, 895 },
	{ "first bad SGE is reported", { { 8192, 8 }, { 0, 0 } },
	  2, 8, 4096, -EINVAL, IBPOST_R_SGE_RANGE, 0, 8200, 4096 },
};

static void ibpost_chk_case_desc(const struct ibpost_chk_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ibpost_chk, ibpost_chk_cases, ibpost_chk_case_desc);

static void ibpost_layout_check_test(struct kunit *test)
{
	const struct ibpost_chk_case *c = test->param_value;
	struct ibpost_status st = {};

	KUNIT_EXPECT_EQ(test, ibpost_layout_check(c->sges, c->n, c->msg,
						  c->slot_max, &st), c->err);
	KUNIT_EXPECT_EQ(test, st.reason, c->reason);
	if (!c->err)
		return;
	KUNIT_EXPECT_EQ(test, st.sge, c->sge);
	KUNIT_EXPECT_EQ(test, st.wr, IBPOST_STATUS_NONE);
	KUNIT_EXPECT_EQ(test, st.value, c->value);
	KUNIT_EXPECT_EQ(test, st.limit, c->limit);
}

/* ---- ibpost_run_check() ---- */

/* The capability flags ibpost gives an iWARP device (siw). */
#define IBPOST_IWARP	(IBPOST_DEV_NO_IMM | IBPOST_DEV_CM_ONLY | \
			 IBPOST_DEV_WRITE_UNPLACED)

/* Limits of the table: READ allows fewer SGEs than SEND. */
static const struct ibpost_limits ibpost_lim = {
	.max_send_sge = 32,
	.max_recv_sge = 32,
	.max_sge_rd = 8,
	.max_qp_wr = 1024,
	.max_inline = 256,
	.max_msg_sz = 0x80000000,
	.max_frpl = 512,
};

/* Fields a row changes from a valid SEND run (op 0 / VERIFY / 4 KiB). */
enum ibpost_rf {
	RF_END,
	RF_FLAGS,
	RF_GID_INDEX,
	RF_HIST,
	RF_CM_PORT,
	RF_CM_TIMEOUT,
	RF_CM_FAMILY,
	RF_CM_ADDR0,
	RF_OP,
	RF_MSG,
	RF_NUM_SGE,
	RF_LAYOUT,
	RF_RECV_LAYOUT,
	RF_RECV_NUM_SGE,
	RF_ITERS,
	RF_DURATION,
	RF_WARMUP,
	RF_DEPTH,
	RF_BATCH,
	RF_SIGNAL,
	RF_IMM,
	RF_LIM_MSG,
	RF_LIM_RECV_SGE,
	RF_LIM_DEV_FLAGS,
};

struct ibpost_set {
	enum ibpost_rf f;
	u64 v;
};

struct ibpost_run_case {
	const char *desc;
	struct ibpost_set set[5];
	int err;
	u32 reason;
	u64 value, limit;
	bool recv_wr;	/* the refusal names the receive WRs */
};

static const struct ibpost_run_case ibpost_run_cases[] = {
	/* valid runs */
	{ "valid SEND", {} },
	{ "valid SEND_IMM", { { RF_OP, IBPOST_OP_SEND_IMM },
			      { RF_IMM, 0xabcd } } },
	{ "valid WRITE", { { RF_OP, IBPOST_OP_WRITE } } },
	{ "valid WRITE_IMM", { { RF_OP, IBPOST_OP_WRITE_IMM },
			       { RF_IMM, 1 } } },
	{ "valid READ at max_sge_rd", { { RF_OP, IBPOST_OP_READ },
					{ RF_NUM_SGE, 8 } } },
	{ "valid SEND at max_send_sge", { { RF_NUM_SGE, 32 } } },
	{ "valid explicit layout with msg 0",
	  { { RF_LAYOUT, IBPOST_LAYOUT_EXPLICIT }, { RF_MSG, 0 } } },
	{ "valid msg at IBPOST_MAX_MSG", { { RF_MSG, IBPOST_MAX_MSG } } },
	{ "valid inline at max_inline", { { RF_FLAGS, IBPOST_RUN_FLAGS &
					    ~(IBPOST_RUN_PINGPONG |
					      IBPOST_RUN_PEER |
					      IBPOST_RUN_PEER_CPU |
					      IBPOST_RUN_GID) },
					  { RF_CM_FAMILY, AF_INET },
					  { RF_HIST, 4096 },
					  { RF_MSG, 256 } } },
	{ "valid inline WRITE", { { RF_OP, IBPOST_OP_WRITE },
				  { RF_FLAGS, IBPOST_RUN_INLINE },
				  { RF_MSG, 1 } } },
	{ "valid signal at depth-batch+1", { { RF_SIGNAL, 57 } } },
	{ "valid batch = depth, signal 1", { { RF_BATCH, 64 },
					     { RF_SIGNAL, 1 } } },
	{ "valid depth at max_qp_wr", { { RF_DEPTH, 1024 } } },
	{ "valid duration only", { { RF_ITERS, 0 }, { RF_DURATION, 1000 } } },
	{ "valid largest iters*msg", { { RF_ITERS, U64_MAX / 4096 },
				       { RF_WARMUP, 0 } } },
	{ "IBPOST_RUN_CM with AF_INET6", { { RF_FLAGS, IBPOST_RUN_CM },
					   { RF_CM_FAMILY, AF_INET6 } } },
	{ "IBPOST_RUN_PEER with port and timeout",
	  { { RF_FLAGS, IBPOST_RUN_PEER }, { RF_CM_FAMILY, AF_INET6 },
	    { RF_CM_PORT, 9999 }, { RF_CM_TIMEOUT, IBPOST_CM_TIMEOUT_MAX } } },
	{ "WRITE ignores recv_layout", { { RF_OP, IBPOST_OP_WRITE },
					 { RF_RECV_LAYOUT, 99 } } },
	{ "READ ignores recv_num_sge", { { RF_OP, IBPOST_OP_READ },
					 { RF_RECV_NUM_SGE, 99 } } },
	/* one row per rule */
	{ "unknown flag", { { RF_FLAGS, 1U << 30 } },
	  -EINVAL, IBPOST_R_FLAGS, 1U << 30, IBPOST_RUN_FLAGS },
	{ "valid ping-pong WRITE batch 1", { { RF_FLAGS, IBPOST_RUN_PINGPONG },
					     { RF_OP, IBPOST_OP_WRITE },
					     { RF_BATCH, 1 } } },
	{ "ping-pong with SEND", { { RF_FLAGS, IBPOST_RUN_PINGPONG },
				   { RF_BATCH, 1 } },
	  -EINVAL, IBPOST_R_PINGPONG, IBPOST_OP_SEND, 0 },
	{ "ping-pong with READ", { { RF_FLAGS, IBPOST_RUN_PINGPONG },
				   { RF_OP, IBPOST_OP_READ },
				   { RF_BATCH, 1 } },
	  -EINVAL, IBPOST_R_PINGPONG, IBPOST_OP_READ, 0 },
	{ "ping-pong WRITE batch 8", { { RF_FLAGS, IBPOST_RUN_PINGPONG },
				       { RF_OP, IBPOST_OP_WRITE } },
	  -EINVAL, IBPOST_R_PINGPONG, 8, 0 },
	{ "gid_index without IBPOST_RUN_GID", { { RF_GID_INDEX, 1 } },
	  -EINVAL, IBPOST_R_RESERVED, 0, 0 },
	{ "valid IBPOST_RUN_GID with index 0", { { RF_FLAGS, IBPOST_RUN_GID } } },
	{ "valid IBPOST_RUN_GID with index 5",
	  { { RF_FLAGS, IBPOST_RUN_GID }, { RF_GID_INDEX, 5 } } },
	{ "IBPOST_RUN_GID with IBPOST_RUN_CM",
	  { { RF_FLAGS, IBPOST_RUN_GID | IBPOST_RUN_CM },
	    { RF_CM_FAMILY, AF_INET }, { RF_GID_INDEX, 3 } },
	  -EINVAL, IBPOST_R_GID_CM, 3, 0 },
	{ "IBPOST_RUN_GID with IBPOST_RUN_PEER",
	  { { RF_FLAGS, IBPOST_RUN_GID | IBPOST_RUN_PEER },
	    { RF_CM_FAMILY, AF_INET6 } },
	  -EINVAL, IBPOST_R_GID_CM, 0, 0 },
	{ "hist without IBPOST_RUN_HIST", { { RF_HIST, 4096 } },
	  -EINVAL, IBPOST_R_HIST, IBPOST_RUN_VERIFY, 0 },
	{ "IBPOST_RUN_HIST without hist", { { RF_FLAGS, IBPOST_RUN_HIST } },
	  -EINVAL, IBPOST_R_HIST, IBPOST_RUN_HIST, 0 },
	{ "valid IBPOST_RUN_HIST with hist", { { RF_FLAGS, IBPOST_RUN_HIST },
					       { RF_HIST, 4096 } } },
	{ "IBPOST_RUN_PEER_CPU without IBPOST_RUN_PEER",
	  { { RF_FLAGS, IBPOST_RUN_PEER_CPU } },
	  -EINVAL, IBPOST_R_PEER_CPU, IBPOST_RUN_PEER_CPU, 0 },
	{ "valid IBPOST_RUN_PEER_CPU with IBPOST_RUN_PEER",
	  { { RF_FLAGS, IBPOST_RUN_PEER | IBPOST_RUN_PEER_CPU },
	    { RF_CM_FAMILY, AF_INET } } },
	{ "cm_port without IBPOST_RUN_PEER", { { RF_CM_PORT, 7 } },
	  -EINVAL, IBPOST_R_CM_ADDR, 7, 0 },
	{ "cm_port with IBPOST_RUN_CM", { { RF_FLAGS, IBPOST_RUN_CM },
					  { RF_CM_FAMILY, AF_INET },
					  { RF_CM_PORT, 7 } },
	  -EINVAL, IBPOST_R_CM_ADDR, 7, 0 },
	{ "cm_timeout_ms without rdma_cm", { { RF_CM_TIMEOUT, 1 } },
	  -EINVAL, IBPOST_R_CM_ADDR, 0, 0 },
	{ "cm_timeout_ms above the maximum",
	  { { RF_FLAGS, IBPOST_RUN_PEER }, { RF_CM_FAMILY, AF_INET },
	    { RF_CM_TIMEOUT, IBPOST_CM_TIMEOUT_MAX + 1 } },
	  -EINVAL, IBPOST_R_CM_ADDR, IBPOST_CM_TIMEOUT_MAX + 1,
	  IBPOST_CM_TIMEOUT_MAX },
	{ "IBPOST_RUN_PEER with IBPOST_RUN_CM",
	  { { RF_FLAGS, IBPOST_RUN_PEER | IBPOST_RUN_CM },
	    { RF_CM_FAMILY, AF_INET } },
	  -EINVAL, IBPOST_R_PEER_FLAG, IBPOST_RUN_CM, 0 },
	{ "IBPOST_RUN_PEER without a family", { { RF_FLAGS, IBPOST_RUN_PEER } },
	  -EINVAL, IBPOST_R_CM_ADDR, 0, 0 },
	{ "ping-pong against a peer",
	  { { RF_FLAGS, IBPOST_RUN_PEER | IBPOST_RUN_PINGPONG },
	    { RF_CM_FAMILY, AF_INET }, { RF_OP, IBPOST_OP_WRITE },
	    { RF_BATCH, 1 } },
	  -EINVAL, IBPOST_R_PEER_FLAG, IBPOST_RUN_PINGPONG, 0 },
	{ "33 SGEs against a peer",
	  { { RF_FLAGS, IBPOST_RUN_PEER }, { RF_CM_FAMILY, AF_INET },
	    { RF_NUM_SGE, 33 } },
	  -EINVAL, IBPOST_R_NUM_SGE, 33, 32 },
	{ "33 receive SGEs against a peer",
	  { { RF_FLAGS, IBPOST_RUN_PEER }, { RF_CM_FAMILY, AF_INET },
	    { RF_RECV_NUM_SGE, 33 } },
	  -EINVAL, IBPOST_R_NUM_SGE, 33, 32, true },
	{ "depth 4097 against a peer",
	  { { RF_FLAGS, IBPOST_RUN_PEER }, { RF_CM_FAMILY, AF_INET6 },
	    { RF_DEPTH, 4097 } },
	  -EINVAL, IBPOST_R_DEPTH, 4097, 4096 },
	{ "cm_family without IBPOST_RUN_CM", { { RF_CM_FAMILY, AF_INET } },
	  -EINVAL, IBPOST_R_CM_ADDR, AF_INET, 0 },
	{ "cm_addr without IBPOST_RUN_CM", { { RF_CM_ADDR0, 192 } },
	  -EINVAL, IBPOST_R_CM_ADDR, 0, 0 },
	{ "IBPOST_RUN_CM without a family", { { RF_FLAGS, IBPOST_RUN_CM } },
	  -EINVAL, IBPOST_R_CM_ADDR, 0, 0 },
	{ "IBPOST_RUN_CM with AF_UNIX", { { RF_FLAGS, IBPOST_RUN_CM },
					  { RF_CM_FAMILY, AF_UNIX } },
	  -EINVAL, IBPOST_R_CM_ADDR, AF_UNIX, 0 },
	{ "opcode max", { { RF_OP, IBPOST_OP_MAX } },
	  -EINVAL, IBPOST_R_OPCODE, IBPOST_OP_MAX, IBPOST_OP_MAX - 1 },
	{ "opcode huge", { { RF_OP, U32_MAX } },
	  -EINVAL, IBPOST_R_OPCODE, U32_MAX, IBPOST_OP_MAX - 1 },
	{ "layout max", { { RF_LAYOUT, IBPOST_LAYOUT_MAX } },
	  -EINVAL, IBPOST_R_LAYOUT, IBPOST_LAYOUT_MAX, IBPOST_LAYOUT_MAX - 1 },
	{ "SEND recv_layout max", { { RF_RECV_LAYOUT, IBPOST_LAYOUT_MAX } },
	  -EINVAL, IBPOST_R_LAYOUT, IBPOST_LAYOUT_MAX, IBPOST_LAYOUT_MAX - 1 },
	{ "num_sge 0", { { RF_NUM_SGE, 0 } },
	  -EINVAL, IBPOST_R_NUM_SGE, 0, 32 },
	{ "num_sge above max_send_sge", { { RF_NUM_SGE, 33 } },
	  -EINVAL, IBPOST_R_NUM_SGE, 33, 32 },
	{ "READ num_sge above max_sge_rd", { { RF_OP, IBPOST_OP_READ },
					     { RF_NUM_SGE, 9 } },
	  -EINVAL, IBPOST_R_NUM_SGE, 9, 8 },
	{ "recv_num_sge above max_recv_sge", { { RF_RECV_NUM_SGE, 33 } },
	  -EINVAL, IBPOST_R_NUM_SGE, 33, 32, true },
	{ "recv sge defaults to num_sge", { { RF_LIM_RECV_SGE, 2 } },
	  -EINVAL, IBPOST_R_NUM_SGE, 4, 2, true },
	{ "msg 0 with generated layout", { { RF_MSG, 0 } },
	  -EINVAL, IBPOST_R_MSG_SIZE, 0, IBPOST_MAX_MSG },
	{ "msg above IBPOST_MAX_MSG", { { RF_MSG, IBPOST_MAX_MSG + 1 } },
	  -EINVAL, IBPOST_R_MSG_SIZE, IBPOST_MAX_MSG + 1, IBPOST_MAX_MSG },
	{ "msg above port max_msg_sz", { { RF_LIM_MSG, 65536 },
					 { RF_MSG, 65537 } },
	  -EINVAL, IBPOST_R_MSG_SIZE, 65537, 65536 },
	{ "inline READ", { { RF_OP, IBPOST_OP_READ },
			   { RF_FLAGS, IBPOST_RUN_INLINE } },
	  -EINVAL, IBPOST_R_INLINE_OP, IBPOST_OP_READ, 0 },
	{ "inline above max_inline", { { RF_FLAGS, IBPOST_RUN_INLINE },
				       { RF_MSG, 257 } },
	  -EINVAL, IBPOST_R_INLINE_SIZE, 257, 256 },
	{ "imm_data on SEND", { { RF_IMM, 5 } },
	  -EINVAL, IBPOST_R_IMM_OP, IBPOST_OP_SEND, 0 },
	{ "imm_data on WRITE", { { RF_OP, IBPOST_OP_WRITE }, { RF_IMM, 5 } },
	  -EINVAL, IBPOST_R_IMM_OP, IBPOST_OP_WRITE, 0 },
	{ "imm_data on READ", { { RF_OP, IBPOST_OP_READ }, { RF_IMM, 5 } },
	  -EINVAL, IBPOST_R_IMM_OP, IBPOST_OP_READ, 0 },
	{ "depth 0", { { RF_DEPTH, 0 } },
	  -EINVAL, IBPOST_R_DEPTH, 0, 1024 },
	{ "depth above max_qp_wr", { { RF_DEPTH, 1025 } },
	  -EINVAL, IBPOST_R_DEPTH, 1025, 1024 },
	{ "batch 0", { { RF_BATCH, 0 } },
	  -EINVAL, IBPOST_R_BATCH, 0, 64 },
	{ "batch above depth", { { RF_BATCH, 65 } },
	  -EINVAL, IBPOST_R_BATCH, 65, 64 },
	{ "signal_every 0", { { RF_SIGNAL, 0 } },
	  -EINVAL, IBPOST_R_SIGNAL, 0, 57 },
	{ "signal_every above depth-batch+1", { { RF_SIGNAL, 58 } },
	  -EINVAL, IBPOST_R_SIGNAL, 58, 57 },
	{ "signal_every 2 with batch = depth", { { RF_BATCH, 64 },
						 { RF_SIGNAL, 2 } },
	  -EINVAL, IBPOST_R_SIGNAL, 2, 1 },
	{ "neither iters nor duration", { { RF_ITERS, 0 } },
	  -EINVAL, IBPOST_R_ITERS, 0, 0 },
	{ "iters*msg overflows", { { RF_ITERS, U64_MAX / 4096 + 1 },
				  { RF_WARMUP, 0 } },
	  -EOVERFLOW, IBPOST_R_OVERFLOW, U64_MAX / 4096 + 1, 4096 },
	{ "warmup tips iters*msg over", { { RF_ITERS, U64_MAX / 4096 },
					  { RF_WARMUP, 1 } },
	  -EOVERFLOW, IBPOST_R_OVERFLOW, U64_MAX / 4096, 4096 },
	{ "iters+warmup overflows", { { RF_ITERS, U64_MAX },
				      { RF_WARMUP, 1 }, { RF_MSG, 1 } },
	  -EOVERFLOW, IBPOST_R_OVERFLOW, U64_MAX, 1 },
	/* device capabilities (iWARP, siw: IBPOST_IWARP) */
	{ "iWARP: SEND through rdma_cm",
	  { { RF_LIM_DEV_FLAGS, IBPOST_IWARP },
	    { RF_FLAGS, IBPOST_RUN_CM | IBPOST_RUN_VERIFY },
	    { RF_CM_FAMILY, AF_INET } } },
	{ "iWARP: READ verified through rdma_cm",
	  { { RF_LIM_DEV_FLAGS, IBPOST_IWARP },
	    { RF_FLAGS, IBPOST_RUN_CM | IBPOST_RUN_VERIFY },
	    { RF_CM_FAMILY, AF_INET }, { RF_OP, IBPOST_OP_READ } } },
	{ "iWARP: WRITE unverified through rdma_cm",
	  { { RF_LIM_DEV_FLAGS, IBPOST_IWARP }, { RF_FLAGS, IBPOST_RUN_CM },
	    { RF_CM_FAMILY, AF_INET }, { RF_OP, IBPOST_OP_WRITE } } },
	{ "iWARP: WRITE verified in ping-pong",
	  { { RF_LIM_DEV_FLAGS, IBPOST_IWARP },
	    { RF_FLAGS, IBPOST_RUN_CM | IBPOST_RUN_VERIFY |
			IBPOST_RUN_PINGPONG },
	    { RF_CM_FAMILY, AF_INET }, { RF_OP, IBPOST_OP_WRITE },
	    { RF_BATCH, 1 } } },
	{ "iWARP: WRITE verified against a peer",
	  { { RF_LIM_DEV_FLAGS, IBPOST_IWARP },
	    { RF_FLAGS, IBPOST_RUN_PEER | IBPOST_RUN_VERIFY },
	    { RF_CM_FAMILY, AF_INET6 }, { RF_OP, IBPOST_OP_WRITE } } },
	{ "iWARP: WRITE verified at completion",
	  { { RF_LIM_DEV_FLAGS, IBPOST_IWARP },
	    { RF_FLAGS, IBPOST_RUN_CM | IBPOST_RUN_VERIFY },
	    { RF_CM_FAMILY, AF_INET }, { RF_OP, IBPOST_OP_WRITE } },
	  -EOPNOTSUPP, IBPOST_R_CAP_WRITE_VERIFY,
	  IBPOST_RUN_CM | IBPOST_RUN_VERIFY, 0 },
	{ "iWARP: SEND_IMM through rdma_cm",
	  { { RF_LIM_DEV_FLAGS, IBPOST_IWARP }, { RF_FLAGS, IBPOST_RUN_CM },
	    { RF_CM_FAMILY, AF_INET }, { RF_OP, IBPOST_OP_SEND_IMM } },
	  -EOPNOTSUPP, IBPOST_R_CAP_IMM, IBPOST_OP_SEND_IMM, 0 },
	{ "iWARP: WRITE_IMM through rdma_cm",
	  { { RF_LIM_DEV_FLAGS, IBPOST_IWARP }, { RF_FLAGS, IBPOST_RUN_CM },
	    { RF_CM_FAMILY, AF_INET }, { RF_OP, IBPOST_OP_WRITE_IMM } },
	  -EOPNOTSUPP, IBPOST_R_CAP_IMM, IBPOST_OP_WRITE_IMM, 0 },
	{ "no immediate: WRITE_IMM against a peer",
	  { { RF_LIM_DEV_FLAGS, IBPOST_DEV_NO_IMM },
	    { RF_FLAGS, IBPOST_RUN_PEER }, { RF_CM_FAMILY, AF_INET },
	    { RF_OP, IBPOST_OP_WRITE_IMM } },
	  -EOPNOTSUPP, IBPOST_R_CAP_IMM, IBPOST_OP_WRITE_IMM, 0 },
	{ "iWARP: WRITE_IMM without rdma_cm names the immediate",
	  { { RF_LIM_DEV_FLAGS, IBPOST_IWARP }, { RF_OP, IBPOST_OP_WRITE_IMM } },
	  -EOPNOTSUPP, IBPOST_R_CAP_IMM, IBPOST_OP_WRITE_IMM, 0 },
	{ "iWARP: loopback SEND without rdma_cm",
	  { { RF_LIM_DEV_FLAGS, IBPOST_IWARP } },
	  -EOPNOTSUPP, IBPOST_R_CAP_CM_ONLY, IBPOST_RUN_VERIFY, 0 },
	{ "cm-only: inline WRITE without rdma_cm",
	  { { RF_LIM_DEV_FLAGS, IBPOST_DEV_CM_ONLY },
	    { RF_FLAGS, IBPOST_RUN_INLINE }, { RF_OP, IBPOST_OP_WRITE },
	    { RF_MSG, 64 } },
	  -EOPNOTSUPP, IBPOST_R_CAP_CM_ONLY, IBPOST_RUN_INLINE, 0 },
	{ "cm-only device with immediate: WRITE_IMM via rdma_cm",
	  { { RF_LIM_DEV_FLAGS, IBPOST_DEV_CM_ONLY },
	    { RF_FLAGS, IBPOST_RUN_CM | IBPOST_RUN_VERIFY },
	    { RF_CM_FAMILY, AF_INET }, { RF_OP, IBPOST_OP_WRITE_IMM } } },
	{ "iWARP: unknown opcode is still an unknown opcode",
	  { { RF_LIM_DEV_FLAGS, IBPOST_IWARP }, { RF_OP, IBPOST_OP_MAX } },
	  -EINVAL, IBPOST_R_OPCODE, IBPOST_OP_MAX, IBPOST_OP_MAX - 1 },
	{ "iWARP: rdma_cm fields are checked first",
	  { { RF_LIM_DEV_FLAGS, IBPOST_IWARP }, { RF_FLAGS, IBPOST_RUN_CM },
	    { RF_OP, IBPOST_OP_WRITE_IMM } },
	  -EINVAL, IBPOST_R_CM_ADDR, 0, 0 },
	{ "iWARP: other limits still apply through rdma_cm",
	  { { RF_LIM_DEV_FLAGS, IBPOST_IWARP }, { RF_FLAGS, IBPOST_RUN_CM },
	    { RF_CM_FAMILY, AF_INET }, { RF_NUM_SGE, 33 } },
	  -EINVAL, IBPOST_R_NUM_SGE, 33, 32 },
};

static void ibpost_run_case_desc(const struct ibpost_run_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ibpost_run, ibpost_run_cases, ibpost_run_case_desc);

static void ibpost_run_apply(struct ibpost_run *r, struct ibpost_limits *lim,
			     const struct ibpost_set *s)
{
	switch (s->f) {
	case RF_END:
		break;
	case RF_FLAGS:
		r->flags = s->v;
		break;
	case RF_GID_INDEX:
		r->gid_index = s->v;
		break;
	case RF_HIST:
		r->hist = s->v;
		break;
	case RF_CM_PORT:
		r->cm_port = s->v;
		break;
	case RF_CM_TIMEOUT:
		r->cm_timeout_ms = s->v;
		break;
	case RF_CM_FAMILY:
		r->cm_family = s->v;
		break;
	case RF_CM_ADDR0:
		r->cm_addr[0] = s->v;
		break;
	case RF_OP:
		r->op = s->v;
		break;
	case RF_MSG:
		r->msg_size = s->v;
		break;
	case RF_NUM_SGE:
		r->num_sge = s->v;
		break;
	case RF_LAYOUT:
		r->layout = s->v;
		break;
	case RF_RECV_LAYOUT:
		r->recv_layout = s->v;
		break;
	case RF_RECV_NUM_SGE:
		r->recv_num_sge = s->v;
		break;
	case RF_ITERS:
		r->iters = s->v;
		break;
	case RF_DURATION:
		r->duration_ms = s->v;
		break;
	case RF_WARMUP:
		r->warmup = s->v;
		break;
	case RF_DEPTH:
		r->depth = s->v;
		break;
	case RF_BATCH:
		r->batch = s->v;
		break;
	case RF_SIGNAL:
		r->signal_every = s->v;
		break;
	case RF_IMM:
		r->imm_data = s->v;
		break;
	case RF_LIM_MSG:
		lim->max_msg_sz = s->v;
		break;
	case RF_LIM_RECV_SGE:
		lim->max_recv_sge = s->v;
		break;
	case RF_LIM_DEV_FLAGS:
		lim->dev_flags = s->v;
		break;
	}
}

static void ibpost_run_check_test(struct kunit *test)
{
	const struct ibpost_run_case *c = test->param_value;
	struct ibpost_limits lim = ibpost_lim;
	struct ibpost_status st = {};
	struct ibpost_run *r;
	u32 i;

	r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, r);
	r->size = sizeof(*r);
	r->flags = IBPOST_RUN_VERIFY;
	r->op = IBPOST_OP_SEND;
	r->msg_size = 4096;
	r->num_sge = 4;
	r->layout = IBPOST_LAYOUT_EQUAL;
	r->recv_layout = IBPOST_LAYOUT_RANDOM;
	r->iters = 1000;
	r->warmup = 10;
	r->depth = 64;
	r->batch = 8;
	r->signal_every = 16;
	for (i = 0; i < ARRAY_SIZE(c->set); i++)
		ibpost_run_apply(r, &lim, &c->set[i]);

	KUNIT_EXPECT_EQ(test, ibpost_run_check(r, &lim, &st), c->err);
	KUNIT_EXPECT_EQ(test, st.reason, c->reason);
	if (!c->err)
		return;
	KUNIT_EXPECT_EQ(test, st.value, c->value);
	KUNIT_EXPECT_EQ(test, st.limit, c->limit);
	KUNIT_EXPECT_EQ(test, st.wr, c->recv_wr ? IBPOST_STATUS_RECV_WR :
						  IBPOST_STATUS_NONE);
	KUNIT_EXPECT_EQ(test, st.sge, IBPOST_STATUS_NONE);
}

/*
 * ibpost_run_check_caps() alone, as the ioctl front calls it before the
 * engine: nothing is refused on a device that lacks nothing; on iWARP the
 * immediate opcodes, any loopback job without rdma_cm, and a verified
 * loopback WRITE outside ping-pong.
 */
static void ibpost_run_check_caps_test(struct kunit *test)
{
	struct ibpost_status st;
	struct ibpost_run *r;
	u32 op, want;

	r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, r);
	for (op = 0; op <= IBPOST_OP_MAX; op++) {
		r->op = op;
		r->flags = IBPOST_RUN_VERIFY;
		memset(&st, 0, sizeof(st));
		KUNIT_EXPECT_EQ(test, ibpost_run_check_caps(r, 0, &st), 0);
		KUNIT_EXPECT_EQ(test, st.reason, (u32)IBPOST_R_NONE);
		r->flags = IBPOST_RUN_CM;
		KUNIT_EXPECT_EQ(test, ibpost_run_check_caps(r, IBPOST_IWARP, &st),
				ibpost_op_has_imm(op) ? -EOPNOTSUPP : 0);
		r->flags = IBPOST_RUN_CM | IBPOST_RUN_VERIFY;
		want = ibpost_op_has_imm(op) ? IBPOST_R_CAP_IMM :
		       op == IBPOST_OP_WRITE ? IBPOST_R_CAP_WRITE_VERIFY :
		       IBPOST_R_NONE;
		memset(&st, 0, sizeof(st));
		KUNIT_EXPECT_EQ(test, ibpost_run_check_caps(r, IBPOST_IWARP, &st),
				want ? -EOPNOTSUPP : 0);
		KUNIT_EXPECT_EQ(test, st.reason, want);
		r->flags = IBPOST_RUN_PINGPONG;
		KUNIT_EXPECT_EQ(test, ibpost_run_check_caps(r, IBPOST_IWARP, &st),
				-EOPNOTSUPP);
		KUNIT_EXPECT_EQ(test, st.reason, ibpost_op_has_imm(op) ?
				(u32)IBPOST_R_CAP_IMM :
				(u32)IBPOST_R_CAP_CM_ONLY);
		KUNIT_EXPECT_EQ(test, st.value, ibpost_op_has_imm(op) ?
				(u64)op : (u64)IBPOST_RUN_PINGPONG);
		KUNIT_EXPECT_EQ(test, st.wr, IBPOST_STATUS_NONE);
		KUNIT_EXPECT_EQ(test, st.sge, IBPOST_STATUS_NONE);
	}
}

static void ibpost_wr_sge_limit_test(struct kunit *test)
{
	u32 op;

	for (op = 0; op < IBPOST_OP_MAX; op++)
		KUNIT_EXPECT_EQ(test, ibpost_wr_sge_limit(op, &ibpost_lim),
				op == IBPOST_OP_READ ? 8U : 32U);
}

/* ---- data pattern ---- */

/*
 * Stand-in for the wire: gather the message from @src as @sl lays it out
 * and scatter it into @dst as @dl does.
 */
static void ibpost_transfer(u8 *dst, const struct ibpost_sge_desc *dl, u32 dn,
			    const u8 *src, const struct ibpost_sge_desc *sl,
			    u32 sn)
{
	u32 si = 0, so = 0, di = 0, doff = 0;

	while (si < sn && di < dn) {
		dst[dl[di].offset + doff] = src[sl[si].offset + so];
		if (++so == sl[si].length) {
			si++;
			so = 0;
		}
		if (++doff == dl[di].length) {
			di++;
			doff = 0;
		}
	}
}

struct ibpost_pat_case {
	const char *desc;
	/* sending side; kind 0 is the tutorial layout */
	u32 skind, sn;
	/* receiving side; kind 0 is one contiguous SGE */
	u32 rkind, rn;
	u32 msg;
	u64 seed, wr;
};

static const struct ibpost_pat_case ibpost_pat_cases[] = {
	{ "tutorial into contiguous", 0, 3, 0, 1, 896, 1, 0 },
	{ "tutorial into equal x7", 0, 3, IBPOST_LAYOUT_EQUAL, 7, 896, 1, 5 },
	{ "random x16 into equal x3", IBPOST_LAYOUT_RANDOM, 16,
	  IBPOST_LAYOUT_EQUAL, 3, 10000, 42, 1234567 },
	{ "equal x1 into random x32", IBPOST_LAYOUT_EQUAL, 1,
	  IBPOST_LAYOUT_RANDOM, 32, 9000, 7, 1ULL << 40 },
	{ "page-cross x5 into unaligned x9", IBPOST_LAYOUT_PAGE_CROSS, 5,
	  IBPOST_LAYOUT_UNALIGNED, 9, 20000, 3, 99 },
	{ "unaligned x256 into contiguous", IBPOST_LAYOUT_UNALIGNED, 256,
	  0, 1, 70000, 3, 12 },
	{ "one byte per SGE", IBPOST_LAYOUT_RANDOM, 64,
	  IBPOST_LAYOUT_EQUAL, 64, 64, 5, 3 },
};

static void ibpost_pat_case_desc(const struct ibpost_pat_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ibpost_pat, ibpost_pat_cases, ibpost_pat_case_desc);

/* Position (sending SGE, offset) of message byte @k in layout @l. */
static struct ibpost_pos ibpost_pos_of(const struct ibpost_sge_desc *l, u32 k)
{
	struct ibpost_pos p = {};

	while (k >= l[p.sge].length)
		k -= l[p.sge++].length;
	p.off = k;
	return p;
}

/* Where message byte @k sits in a buffer laid out as @l. */
static u32 ibpost_buf_off_of(const struct ibpost_sge_desc *l, u32 k)
{
	struct ibpost_pos p = ibpost_pos_of(l, k);

	return l[p.sge].offset + p.off;
}

static void ibpost_pattern_roundtrip_test(struct kunit *test)
{
	const struct ibpost_pat_case *c = test->param_value;
	struct ibpost_sge_desc whole = { 0, c->msg };
	const struct ibpost_sge_desc *sl, *rl;
	struct ibpost_mismatch mm = {};
	struct ibpost_pos p;
	u32 sspan, rspan, k, n;
	u8 *sbuf, *rbuf, *cbuf;

	sl = c->skind ? ibpost_gen(test, c->skind, c->msg, c->sn, c->seed) :
			ibpost_tutorial;
	rl = c->rkind ? ibpost_gen(test, c->rkind, c->msg, c->rn, c->seed + 1) :
			&whole;
	sspan = ibpost_layout_span(sl, c->sn);
	rspan = ibpost_layout_span(rl, c->rn);
	sbuf = kunit_kzalloc(test, sspan, GFP_KERNEL);
	rbuf = kunit_kzalloc(test, rspan, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, sbuf);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, rbuf);

	/* Sender stamps, the wire moves the bytes, the receiver checks. */
	ibpost_pattern_fill(sbuf, sl, c->sn, sl, c->sn, c->wr);
	KUNIT_EXPECT_EQ(test, ibpost_pattern_check(sbuf, sl, c->sn, sl, c->sn,
						   c->wr, &mm), 0U);
	ibpost_transfer(rbuf, rl, c->rn, sbuf, sl, c->sn);
	KUNIT_EXPECT_EQ(test, ibpost_pattern_check(rbuf, rl, c->rn, sl, c->sn,
						   c->wr, &mm), 0U);
	KUNIT_EXPECT_EQ(test, mm.count, 0U);

	/* Filling the receive side directly gives the same bytes. */
	cbuf = kunit_kzalloc(test, rspan, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, cbuf);
	ibpost_pattern_fill(cbuf, rl, c->rn, sl, c->sn, c->wr);
	for (k = 0; k < c->msg; k++) {
		u32 o = ibpost_buf_off_of(rl, k);

		if (cbuf[o] != rbuf[o]) {
			KUNIT_FAIL(test, "message byte %u differs", k);
			break;
		}
	}

	/* One flipped byte: exactly one mismatch, located in send terms. */
	for (n = 0; n < 3; n++) {
		k = n == 0 ? 0 : n == 1 ? c->msg / 2 : c->msg - 1;
		p = ibpost_pos_of(sl, k);
		rbuf[ibpost_buf_off_of(rl, k)] ^= 0x40;
		memset(&mm, 0, sizeof(mm));
		KUNIT_EXPECT_EQ(test, ibpost_pattern_check(rbuf, rl, c->rn, sl,
							   c->sn, c->wr, &mm),
				1U);
		KUNIT_EXPECT_EQ(test, mm.count, 1U);
		KUNIT_EXPECT_EQ(test, mm.sge, p.sge);
		KUNIT_EXPECT_EQ(test, mm.off, p.off);
		KUNIT_EXPECT_EQ(test, mm.expected,
				ibpost_pattern(c->wr, p.sge, p.off));
		KUNIT_EXPECT_EQ(test, mm.got,
				(u8)(ibpost_pattern(c->wr, p.sge, p.off) ^ 0x40));
		rbuf[ibpost_buf_off_of(rl, k)] ^= 0x40;
	}

	/* A stale message (another WR's) is caught on most bytes. */
	memset(&mm, 0, sizeof(mm));
	n = ibpost_pattern_check(rbuf, rl, c->rn, sl, c->sn, c->wr + 1, &mm);
	KUNIT_EXPECT_GE(test, n, c->msg / 2);
	KUNIT_EXPECT_EQ(test, mm.count, n);
}

/* Mismatches accumulate in mm->count; the first one is kept. */
static void ibpost_pattern_accumulate_test(struct kunit *test)
{
	struct ibpost_sge_desc l = { 0, 64 };
	struct ibpost_mismatch mm = {};
	u8 buf[64];

	ibpost_pattern_fill(buf, &l, 1, &l, 1, 3);
	buf[10] ^= 1;
	KUNIT_EXPECT_EQ(test, ibpost_pattern_check(buf, &l, 1, &l, 1, 3, &mm),
			1U);
	buf[10] ^= 1;
	buf[20] ^= 1;
	buf[30] ^= 1;
	KUNIT_EXPECT_EQ(test, ibpost_pattern_check(buf, &l, 1, &l, 1, 3, &mm),
			2U);
	KUNIT_EXPECT_EQ(test, mm.count, 3U);
	KUNIT_EXPECT_EQ(test, mm.off, 10U);
}

/* Neighbouring bytes of an SGE differ (within a 256-byte block). */
static void ibpost_pattern_offsets_test(struct kunit *test)
{
	u32 sge, off, bad = 0;
	u64 wr;

	for (wr = 0; wr < 64; wr++)
		for (sge = 0; sge < 32; sge++)
			for (off = 0; off < 1024; off++)
				if (off % 256 != 255 &&
				    ibpost_pattern(wr, sge, off) ==
				    ibpost_pattern(wr, sge, off + 1))
					bad++;
	KUNIT_EXPECT_EQ(test, bad, 0U);
}

/* Whether SGE @sa of WR @wa carries the same 2 KiB as SGE @sb of WR @wb. */
static bool ibpost_pattern_same(u64 wa, u32 sa, u64 wb, u32 sb)
{
	u32 off;

	for (off = 0; off < 2048; off++)
		if (ibpost_pattern(wa, sa, off) != ibpost_pattern(wb, sb, off))
			return false;
	return true;
}

/* Swapped SGEs show up: neighbouring SGEs never carry the same bytes. */
static void ibpost_pattern_sges_test(struct kunit *test)
{
	u32 sge, bad = 0;
	u64 wr;

	for (wr = 0; wr < 256; wr++) {
		for (sge = 0; sge < IBPOST_MAX_SGE - 1; sge++) {
			if (!ibpost_pattern_same(wr, sge, wr, sge + 1))
				continue;
			if (!bad++)
				KUNIT_FAIL(test, "wr %llu: sge %u and %u identical",
					   wr, sge, sge + 1);
		}
	}
	KUNIT_EXPECT_EQ(test, bad, 0U);
}

/*
 * A stale WR shows up: the message of WR n + d (d = 1, or the depth after
 * which a slot is reused) is never byte for byte that of WR n.
 */
static void ibpost_pattern_wrs_test(struct kunit *test)
{
	static const u32 dist[] = { 1, 2, 64, 256, 1024 };
	u32 d, sge, bad = 0;
	u64 wr;

	for (d = 0; d < ARRAY_SIZE(dist); d++) {
		for (wr = 0; wr < 2048; wr++) {
			for (sge = 0; sge < 2; sge++) {
				if (!ibpost_pattern_same(wr, sge, wr + dist[d],
							 sge))
					continue;
				if (!bad++)
					KUNIT_FAIL(test,
						   "wr %llu and %llu: sge %u identical",
						   wr, wr + dist[d], sge);
			}
		}
	}
	KUNIT_EXPECT_EQ_MSG(test, bad, 0U,
			    "(wr, wr + d, sge) with identical 2 KiB SGEs");
}

static struct kunit_case ibpost_sgl_cases[] = {
	KUNIT_CASE_PARAM(ibpost_layout_gen_equal_test, ibpost_gen_gen_params),
	KUNIT_CASE_PARAM(ibpost_layout_gen_page_cross_test,
			 ibpost_gen_gen_params),
	KUNIT_CASE_PARAM(ibpost_layout_gen_unaligned_test,
			 ibpost_gen_gen_params),
	KUNIT_CASE_PARAM(ibpost_layout_gen_random_test, ibpost_gen_gen_params),
	KUNIT_CASE(ibpost_layout_gen_seed_zero_test),
	KUNIT_CASE_PARAM(ibpost_layout_gen_err_test, ibpost_gen_err_gen_params),
	KUNIT_CASE(ibpost_layout_tutorial_test),
	KUNIT_CASE_PARAM(ibpost_layout_check_test, ibpost_chk_gen_params),
	KUNIT_CASE_PARAM(ibpost_run_check_test, ibpost_run_gen_params),
	KUNIT_CASE(ibpost_run_check_caps_test),
	KUNIT_CASE(ibpost_wr_sge_limit_test),
	KUNIT_CASE_PARAM(ibpost_pattern_roundtrip_test, ibpost_pat_gen_params),
	KUNIT_CASE(ibpost_pattern_accumulate_test),
	KUNIT_CASE(ibpost_pattern_offsets_test),
	KUNIT_CASE(ibpost_pattern_sges_test),
	KUNIT_CASE(ibpost_pattern_wrs_test),
	{}
};

static struct kunit_suite ibpost_sgl_suite = {
	.name = "ibpost_sgl",
	.test_cases = ibpost_sgl_cases,
};

kunit_test_suite(ibpost_sgl_suite);

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: what a peer sends `ibpost serve`, checked (module/lib/wire.c), the
 * server's answer to a session as its client checks it, the chunks of a
 * region (ibpost_target_chunk()), the server's CPU time in a result, and who may connect (module/lib/allow.c).  Every malformed case the server must
 * refuse, with its reason, value and limit, and the well-formed ones it
 * must take.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/test.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/socket.h>

#include "lib/allow.h"
#include "core/ctl.h"
#include "core/target.h"

/* ---- the hello (connect private data) ---- */

/* RoCE pads private data to this (IB CM REQ less the rdma_cm header). */
#define PRIV_ROCE	56

struct hello_case {
	const char *name;
	u32 len;		/* bytes that arrived */
	u32 magic, version, flags, depth, recv_sge;
	u32 tail_off;		/* a non-zero byte here (0: none) */
	int err;
	u32 reason;
	u64 value, limit;
	u8 token;		/* a join: every byte of its token */
	u32 gen;		/* a join or resume: its generation */
};

#define JOIN	IBPOST_WIRE_HELLO_JOIN
#define RESUME	IBPOST_WIRE_HELLO_RESUME
#define JGEN	offsetof(struct ibpost_wire_join, generation)
#define JLEN	((u32)sizeof(struct ibpost_wire_join))
#define JTOK	offsetof(struct ibpost_wire_join, token)

#define MG	IBPOST_WIRE_MAGIC
#define VER	IBPOST_WIRE_VERSION

static const struct hello_case hello_cases[] = {
	{ "16 bytes, well formed", 16, MG, VER, 0, 64, 2, 0, 0, IBPOST_R_NONE },
	{ "56 bytes of RoCE, zero padding", PRIV_ROCE, MG, VER, 0, 4096, 0, 0, 0,
	  IBPOST_R_NONE },
	{ "flags 1 (a region), well formed", 16, MG, VER, 1, 64, 0, 0, 0,
	  IBPOST_R_NONE },
	{ "flags 8", 16, MG, VER, 8, 64, 0, 0, -EPROTO, IBPOST_R_FLAGS, 8,
	  IBPOST_WIRE_HELLO_FLAGS },
	{ "resume, 40 bytes, well formed", JLEN, MG, VER, RESUME, 64, 0, 0, 0,
	  IBPOST_R_NONE, 0, 0, 0xa5, 3 },
	{ "resume in RoCE padding, well formed", PRIV_ROCE, MG, VER, RESUME, 64,
	  0, 0, 0, IBPOST_R_NONE, 0, 0, 0x01, 0xffffffff },
	{ "resume without a generation", PRIV_ROCE, MG, VER, RESUME, 64, 0, 0,
	  -EPROTO, IBPOST_R_PEER_PROTO, JGEN, JLEN, 0xa5, 0 },
	{ "resume cut short (16 bytes)", 16, MG, VER, RESUME, 64, 0, 0, -EPROTO,
	  IBPOST_R_PEER_PROTO, 16, JLEN, 0xa5, 3 },
	{ "resume that also joins (flags 6)", PRIV_ROCE, MG, VER, RESUME | JOIN,
	  64, 0, 0, -EPROTO, IBPOST_R_FLAGS, RESUME | JOIN, RESUME, 0xa5, 3 },
	{ "resume that asks for a region (flags 5)", PRIV_ROCE, MG, VER,
	  RESUME | IBPOST_WIRE_HELLO_REGION, 64, 0, 0, -EPROTO, IBPOST_R_FLAGS,
	  RESUME | IBPOST_WIRE_HELLO_REGION, RESUME, 0xa5, 3 },
	{ "resume with a zero token", PRIV_ROCE, MG, VER, RESUME, 64, 0, 0,
	  -EPROTO, IBPOST_R_PEER_PROTO, JTOK, JLEN, 0, 3 },
	{ "resume with receive SGEs", PRIV_ROCE, MG, VER, RESUME, 64, 2, 0,
	  -EINVAL, IBPOST_R_NUM_SGE, 2, 0, 0xa5, 3 },
	{ "join, 40 bytes, well formed", JLEN, MG, VER, JOIN, 64, 0, 0, 0,
	  IBPOST_R_NONE, 0, 0, 0xa5 },
	{ "join in RoCE padding, well formed", PRIV_ROCE, MG, VER, JOIN, 4096, 0,
	  0, 0, IBPOST_R_NONE, 0, 0, 0x01 },
	{ "join cut in its token (32 bytes)", 32, MG, VER, JOIN, 64, 0, 0,
	  -EPROTO, IBPOST_R_PEER_PROTO, 32, JLEN, 0xa5 },
	{ "join without session or token (16 bytes)", 16, MG, VER, JOIN, 64, 0,
	  0, -EPROTO, IBPOST_R_PEER_PROTO, 16, JLEN, 0xa5 },
	{ "join with a zero token (cut, padded by RoCE)", PRIV_ROCE, MG, VER,
	  JOIN, 64, 0, 0, -EPROTO, IBPOST_R_PEER_PROTO, JTOK, JLEN, 0 },
	{ "join with a generation (offset 20)", PRIV_ROCE, MG, VER, JOIN, 64, 0,
	  0, -EPROTO, IBPOST_R_PEER_PROTO, JGEN, JLEN, 0xa5, 1 },
	{ "join, a byte past it (offset 40)", PRIV_ROCE, MG, VER, JOIN, 64, 0,
	  JLEN, -EPROTO, IBPOST_R_PEER_PROTO, JLEN, JLEN, 0xa5 },
	{ "join, the last padding byte", PRIV_ROCE, MG, VER, JOIN, 64, 0,
	  PRIV_ROCE - 1, -EPROTO, IBPOST_R_PEER_PROTO, PRIV_ROCE - 1, JLEN,
	  0xa5 },
	{ "join that also asks for a region (flags 3)", PRIV_ROCE, MG, VER,
	  JOIN | IBPOST_WIRE_HELLO_REGION, 64, 0, 0, -EPROTO, IBPOST_R_FLAGS,
	  JOIN | IBPOST_WIRE_HELLO_REGION, JOIN, 0xa5 },
	{ "join and an unknown flag (0x12)", PRIV_ROCE, MG, VER, JOIN | 0x10, 64,
	  0, 0, -EPROTO, IBPOST_R_FLAGS, JOIN | 0x10, IBPOST_WIRE_HELLO_FLAGS,
	  0xa5 },
	{ "join with receive SGEs", PRIV_ROCE, MG, VER, JOIN, 64, 1, 0, -EINVAL,
	  IBPOST_R_NUM_SGE, 1, 0, 0xa5 },
	{ "join of depth 0", PRIV_ROCE, MG, VER, JOIN, 0, 0, 0, -EINVAL,
	  IBPOST_R_DEPTH, 0, IBPOST_WIRE_MAX_DEPTH, 0xa5 },
	{ "flags 0x8000 in RoCE padding", PRIV_ROCE, MG, VER, 0x8000, 64, 0, 0,
	  -EPROTO, IBPOST_R_FLAGS, 0x8000, IBPOST_WIRE_HELLO_FLAGS },
	{ "12 bytes", 12, MG, VER, 0, 64, 0, 0, -EPROTO, IBPOST_R_PEER_PROTO, 12,
	  16 },
	{ "0 bytes", 0, MG, VER, 0, 64, 0, 0, -EPROTO, IBPOST_R_PEER_PROTO, 0,
	  16 },
	{ "a byte past the hello (offset 16)", PRIV_ROCE, MG, VER, 0, 64, 0, 16,
	  -EPROTO, IBPOST_R_PEER_PROTO, 16, 16 },
	{ "the last padding byte", PRIV_ROCE, MG, VER, 0, 64, 0, PRIV_ROCE - 1,
	  -EPROTO, IBPOST_R_PEER_PROTO, PRIV_ROCE - 1, 16 },
	{ "20 bytes, garbage tail", 20, MG, VER, 0, 64, 0, 19, -EPROTO,
	  IBPOST_R_PEER_PROTO, 19, 16 },
	{ "bad magic", 16, 0x12345678, VER, 0, 64, 0, 0,
	  -EPROTO, IBPOST_R_PEER_PROTO, 0x12345678, IBPOST_WIRE_MAGIC },
	{ "version 1 (before regions)", 16, MG, 1, 0, 64, 0, 0, -EPROTO,
	  IBPOST_R_PEER_VERSION, 1, IBPOST_WIRE_VERSION },
	{ "version 2 (before joins)", 16, MG, 2, 0, 64, 0, 0, -EPROTO,
	  IBPOST_R_PEER_VERSION, 2, IBPOST_WIRE_VERSION },
	{ "version 4", 16, MG, VER + 1, 0, 64, 0, 0, -EPROTO,
	  IBPOST_R_PEER_VERSION, VER + 1, IBPOST_WIRE_VERSION },
	{ "depth 0", 16, MG, VER, 0, 0, 0, 0, -EINVAL, IBPOST_R_DEPTH, 0,
	  IBPOST_WIRE_MAX_DEPTH },
	{ "depth 4097", 16, MG, VER, 0, IBPOST_WIRE_MAX_DEPTH + 1, 0, 0, -EINVAL,
	  IBPOST_R_DEPTH, IBPOST_WIRE_MAX_DEPTH + 1, IBPOST_WIRE_MAX_DEPTH },
	{ "recv_sge above the device's 4", 16, MG, VER, 0, 64, 5, 0, -EINVAL,
	  IBPOST_R_NUM_SGE, 5, 4 },
};

static void hello_desc(const struct hello_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(hello, hello_cases, hello_desc);

static void ibpost_wire_hello_test(struct kunit *test)
{
	const struct hello_case *c = test->param_value;
	struct ibpost_wire_join *jw, j;
	struct ibpost_wire_hello *w;
	struct ibpost_status st = {};
	u8 buf[PRIV_ROCE] = {};
	int ret;

	jw = (void *)buf;
	w = &jw->hello;
	if (c->flags & (JOIN | RESUME)) {
		jw->session = cpu_to_be32(7);
		jw->generation = cpu_to_be32(c->gen);
		memset(jw->token, c->token, sizeof(jw->token));
	}
	w->magic = cpu_to_be32(c->magic);
	w->version = cpu_to_be16(c->version);
	w->flags = cpu_to_be16(c->flags);
	w->depth = cpu_to_be32(c->depth);
	w->recv_sge = cpu_to_be32(c->recv_sge);
	if (c->tail_off)
		buf[c->tail_off] = 0xa5;
	ret = ibpost_wire_hello_check(buf, c->len, 4, &j, &st);
	KUNIT_EXPECT_EQ(test, ret, c->err);
	KUNIT_EXPECT_EQ(test, st.reason, c->reason);
	if (c->err) {
		KUNIT_EXPECT_EQ(test, st.value, c->value);
		KUNIT_EXPECT_EQ(test, st.limit, c->limit);
		return;
	}
	KUNIT_EXPECT_EQ(test, be32_to_cpu(j.hello.depth), c->depth);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(j.hello.recv_sge), c->recv_sge);
	/*
	 * A join's and a resume's session and token come out as sent; a
	 * hello's are 0.
	 */
	KUNIT_EXPECT_EQ(test, be32_to_cpu(j.session),
			c->flags & (JOIN | RESUME) ? 7U : 0U);
	KUNIT_EXPECT_EQ(test, j.token[0],
			c->flags & (JOIN | RESUME) ? c->token : 0);
	KUNIT_EXPECT_EQ(test, j.token[IBPOST_WIRE_TOKEN_LEN - 1],
			c->flags & (JOIN | RESUME) ? c->token : 0);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(j.generation),
			c->flags & RESUME ? c->gen : 0U);
}

static void ibpost_wire_hello_null_test(struct kunit *test)
{
	struct ibpost_wire_join j;
	struct ibpost_status st = {};

	KUNIT_EXPECT_EQ(test, ibpost_wire_hello_check(NULL, 56, 4, &j, &st),
			-EPROTO);
	KUNIT_EXPECT_EQ(test, st.reason, (u32)IBPOST_R_PEER_PROTO);
	KUNIT_EXPECT_EQ(test, st.value, 0ULL);
}

/* ---- the job message's envelope ---- */

struct job_case {
	const char *name;
	u32 arrived;		/* bytes that arrived */
	u32 hdr_len;		/* the header's length */
	u32 conn;
	u16 type;
	int err;
	u32 reason;
	u64 value, limit;
	u32 keep;
	u32 reserved2;
	u32 flags;
};

/* A job with one send SGE. */
#define JOB1	((u32)struct_size((struct ibpost_wire_job *)NULL, sge, 1))
#define JOB0	((u32)sizeof(struct ibpost_wire_job))
#define HDR	((u32)sizeof(struct ibpost_wire_hdr))

static const struct job_case job_cases[] = {
	{ "well formed", JOB1, JOB1, 0, IBPOST_WIRE_JOB, 0, IBPOST_R_NONE },
	{ "conn 7 from the client", JOB1, JOB1, 7, IBPOST_WIRE_JOB, -EPROTO,
	  IBPOST_R_PEER_PROTO, 7, 0 },
	{ "conn 0xffffffff", JOB1, JOB1, 0xffffffff, IBPOST_WIRE_JOB, -EPROTO,
	  IBPOST_R_PEER_PROTO, 0xffffffff, 0 },
	{ "8 bytes more than the header says", JOB1 + 8, JOB1, 0,
	  IBPOST_WIRE_JOB, -EPROTO, IBPOST_R_PEER_PROTO, JOB1, JOB1 + 8 },
	{ "header says 8 bytes more", JOB1, JOB1 + 8, 0, IBPOST_WIRE_JOB,
	  -EPROTO, IBPOST_R_PEER_PROTO, JOB1 + 8, JOB1 },
	{ "header length 0", JOB1, 0, 0, IBPOST_WIRE_JOB, -EPROTO,
	  IBPOST_R_PEER_PROTO, 0, JOB1 },
	{ "only a header", HDR, HDR, 0, IBPOST_WIRE_JOB, -EPROTO,
	  IBPOST_R_PEER_PROTO, HDR, JOB0 },
	{ "shorter than a header", HDR - 1, HDR - 1, 0, IBPOST_WIRE_JOB,
	  -EPROTO, IBPOST_R_PEER_PROTO, HDR - 1, HDR },
	{ "a result instead", JOB1, JOB1, 0, IBPOST_WIRE_RESULT, -EPROTO,
	  IBPOST_R_PEER_PROTO, IBPOST_WIRE_RESULT, IBPOST_WIRE_JOB },
	{ "keep time 0x80000000, not a session", JOB1, JOB1, 0,
	  IBPOST_WIRE_JOB, -EPROTO, IBPOST_R_RESERVED, 0x80000000, 0,
	  0x80000000 },
	{ "keep time 0xffffffff, a session", JOB1, JOB1, 0, IBPOST_WIRE_JOB,
	  0, IBPOST_R_NONE, 0, 0, 0xffffffff, 0, IBPOST_WIRE_SESSION },
	{ "bytes 52-55 1", JOB1, JOB1, 0, IBPOST_WIRE_JOB, -EPROTO,
	  IBPOST_R_RESERVED, 1, 0, 0, 1 },
};

static void job_desc(const struct job_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(job, job_cases, job_desc);

static void ibpost_wire_job_test(struct kunit *test)
{
	const struct job_case *c = test->param_value;
	struct ibpost_status st = {};
	struct ibpost_wire_job *m;

	m = kunit_kzalloc(test, JOB1 + 64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, m);
	ibpost_wire_hdr_init(&m->hdr, c->type, c->hdr_len, c->conn);
	m->num_sge = cpu_to_be32(1);
	m->keep_s = cpu_to_be32(c->keep);
	m->reserved2 = cpu_to_be32(c->reserved2);
	m->flags = cpu_to_be32(c->flags);
	KUNIT_EXPECT_EQ(test, ibpost_wire_job_check(m, c->arrived, &st),
			c->err);
	KUNIT_EXPECT_EQ(test, st.reason, c->reason);
	KUNIT_EXPECT_EQ(test, st.value, c->value);
	KUNIT_EXPECT_EQ(test, st.limit, c->limit);
}

/* ---- a session's region: what the client asks, what it is answered ---- */

#define MIB	(1ULL << 20)
#define SES	IBPOST_WIRE_SESSION
#define HR	IBPOST_WIRE_HELLO_REGION

struct region_case {
	const char *name;
	u32 flags;		/* the job's */
	u16 hello_flags;
	u64 bytes;
	u32 chunk;		/* the server's */
	int err;
	u32 reason;
	u64 value, limit;
};

static const struct region_case region_cases[] = {
	{ "a job without a region", 0, 0, 0, MIB, 0, IBPOST_R_NONE },
	{ "1 GiB in 1 MiB chunks", SES, HR, 1ULL << 30, MIB, 0, IBPOST_R_NONE },
	{ "one byte", SES, HR, 1, 4096, 0, IBPOST_R_NONE },
	{ "8192 chunks (the limit)", SES, HR, 8192 * MIB, MIB, 0,
	  IBPOST_R_NONE },
	{ "a byte past 8192 chunks", SES, HR, 8192 * MIB + 1, MIB, -EINVAL,
	  IBPOST_R_BUF_SIZE, 8192 * MIB + 1, 8192 * MIB },
	{ "2^64 - 1 bytes", SES, HR, U64_MAX, MIB, -EINVAL, IBPOST_R_BUF_SIZE,
	  U64_MAX, 8192 * MIB },
	{ "0 bytes", SES, HR, 0, 4096, -EINVAL, IBPOST_R_BUF_SIZE, 0,
	  8192 * 4096ULL },
	{ "region bytes on a job", 0, HR, 4096, MIB, -EINVAL,
	  IBPOST_R_BUF_SIZE, 4096, 0 },
	{ "a session without the hello's flag", SES, 0, MIB, MIB, -EPROTO,
	  IBPOST_R_FLAGS, 0, HR },
	{ "a device without MRs of two pages", SES, HR, MIB, 0, -EINVAL,
	  IBPOST_R_FRPL, MIB, 0 },
};

static void region_desc(const struct region_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(region, region_cases, region_desc);

static void ibpost_wire_region_test(struct kunit *test)
{
	const struct region_case *c = test->param_value;
	struct ibpost_wire_job m = {};
	struct ibpost_status st = {};

	m.flags = cpu_to_be32(c->flags);
	m.region_bytes = cpu_to_be64(c->bytes);
	KUNIT_EXPECT_EQ(test, ibpost_wire_region_check(&m, c->hello_flags,
						       c->chunk, &st), c->err);
	KUNIT_EXPECT_EQ(test, st.reason, c->reason);
	KUNIT_EXPECT_EQ(test, st.value, c->value);
	KUNIT_EXPECT_EQ(test, st.limit, c->limit);
}

/* The chunk a region gets: a power of two, one MR, no more than needed. */
static void ibpost_wire_chunk_test(struct kunit *test)
{
	/* rxe: 512 page-list entries, one spare: 256 pages. */
	KUNIT_EXPECT_EQ(test, ibpost_target_chunk(512, 1ULL << 30),
			256U * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, ibpost_target_chunk(512, 0), 256U * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, ibpost_target_chunk(512, 1), (u32)PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, ibpost_target_chunk(512, 3 * PAGE_SIZE),
			4U * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, ibpost_target_chunk(512, 4 * PAGE_SIZE + 1),
			8U * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, ibpost_target_chunk(512, U64_MAX),
			256U * PAGE_SIZE);
	/* Exactly a power of two plus the spare entry. */
	KUNIT_EXPECT_EQ(test, ibpost_target_chunk(257, 1ULL << 30),
			256U * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, ibpost_target_chunk(2, 1ULL << 30),
			(u32)PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, ibpost_target_chunk(1, 1ULL << 30), 0U);
	KUNIT_EXPECT_EQ(test, ibpost_target_chunk(0, 4096), 0U);
	/* At most one allocation. */
	KUNIT_EXPECT_LE(test, (u64)ibpost_target_chunk(U32_MAX, U64_MAX),
			(u64)IBPOST_SLOT_MAX);
}

/* A ready of @n chunks of @chunk bytes (lengths @len) in @m. */
static u32 ready_build(struct ibpost_wire_ready *m, u32 n, u32 chunk,
		       u32 len)
{
	u32 i;

	m->nslots = cpu_to_be32(n);
	m->chunk = cpu_to_be32(chunk);
	for (i = 0; i < n; i++)
		m->slot[i].length = cpu_to_be32(len);
	return ibpost_wire_ready_size(n);
}

static void ibpost_wire_ready_region_test(struct kunit *test)
{
	struct ibpost_wire_ready *m;
	struct ibpost_status st = {};
	u32 len, chunk = 0, n = 0;

	m = kunit_kzalloc(test, ibpost_wire_ready_size(8), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, m);
	/* 3 MiB + 1 in 1 MiB chunks: 4 of them. */
	len = ready_build(m, 4, MIB, MIB);
	KUNIT_EXPECT_EQ(test, ibpost_wire_ready_region_check(m, len, 3 * MIB + 1,
							     &chunk, &n, &st), 0);
	KUNIT_EXPECT_EQ(test, chunk, (u32)MIB);
	KUNIT_EXPECT_EQ(test, n, 4U);
	/* One chunk fewer than the region needs. */
	KUNIT_EXPECT_EQ(test, ibpost_wire_ready_region_check(m, len, 4 * MIB + 1,
							     &chunk, &n, &st),
			-EPROTO);
	KUNIT_EXPECT_EQ(test, st.reason, (u32)IBPOST_R_PEER_PROTO);
	KUNIT_EXPECT_EQ(test, st.value, 4ULL);
	KUNIT_EXPECT_EQ(test, st.limit, 5ULL);
	/* More chunks than it needs. */
	KUNIT_EXPECT_EQ(test, ibpost_wire_ready_region_check(m, len, MIB,
							     &chunk, &n, &st),
			-EPROTO);
	KUNIT_EXPECT_EQ(test, st.value, 4ULL);
	KUNIT_EXPECT_EQ(test, st.limit, 1ULL);
	/* The length says fewer chunks than nslots. */
	KUNIT_EXPECT_EQ(test, ibpost_wire_ready_region_check(m, len - 16,
							     3 * MIB + 1, &chunk,
							     &n, &st), -EPROTO);
	KUNIT_EXPECT_EQ(test, st.value, (u64)len - 16);
	KUNIT_EXPECT_EQ(test, st.limit, (u64)len);
	/* A chunk that is not a power of two, or below 4 KiB. */
	len = ready_build(m, 4, MIB - 4096, MIB - 4096);
	KUNIT_EXPECT_EQ(test, ibpost_wire_ready_region_check(m, len, 3 * MIB,
							     &chunk, &n, &st),
			-EPROTO);
	KUNIT_EXPECT_EQ(test, st.value, MIB - 4096);
	len = ready_build(m, 1, 2048, 2048);
	KUNIT_EXPECT_EQ(test, ibpost_wire_ready_region_check(m, len, 2048,
							     &chunk, &n, &st),
			-EPROTO);
	len = ready_build(m, 1, 0, 0);
	KUNIT_EXPECT_EQ(test, ibpost_wire_ready_region_check(m, len, 2048,
							     &chunk, &n, &st),
			-EPROTO);
	/* One chunk's length lies. */
	len = ready_build(m, 2, MIB, MIB);
	m->slot[1].length = cpu_to_be32(MIB + 1);
	KUNIT_EXPECT_EQ(test, ibpost_wire_ready_region_check(m, len, 2 * MIB,
							     &chunk, &n, &st),
			-EPROTO);
	KUNIT_EXPECT_EQ(test, st.value, MIB + 1);
	KUNIT_EXPECT_EQ(test, st.limit, MIB);
	/* More chunks than the wire allows, whatever the region says. */
	m->nslots = cpu_to_be32(IBPOST_WIRE_MAX_CHUNKS + 1);
	m->chunk = cpu_to_be32(4096);
	KUNIT_EXPECT_EQ(test, ibpost_wire_ready_region_check(m, len,
		(IBPOST_WIRE_MAX_CHUNKS + 1) * 4096ULL, &chunk, &n, &st),
			-EPROTO);
	KUNIT_EXPECT_EQ(test, st.value, IBPOST_WIRE_MAX_CHUNKS + 1ULL);
	/* Nothing was taken from a refused answer. */
	KUNIT_EXPECT_EQ(test, n, 4U);
}

/* The keep time a session's ready grants: never more than asked. */
static void ibpost_wire_ready_keep_test(struct kunit *test)
{
	struct ibpost_wire_ready *m;
	struct ibpost_status st = {};
	u32 keep = 7;

	m = kunit_kzalloc(test, ibpost_wire_ready_size(1), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, m);
	m->keep_s = cpu_to_be32(600);
	KUNIT_EXPECT_EQ(test, ibpost_wire_ready_keep_check(m, 640, &keep, &st),
			0);
	KUNIT_EXPECT_EQ(test, keep, 600U);
	KUNIT_EXPECT_EQ(test, ibpost_wire_ready_keep_check(m, 600, &keep, &st),
			0);
	/* More than asked: refused, nothing taken. */
	keep = 7;
	KUNIT_EXPECT_EQ(test, ibpost_wire_ready_keep_check(m, 599, &keep, &st),
			-EPROTO);
	KUNIT_EXPECT_EQ(test, st.reason, (u32)IBPOST_R_PEER_PROTO);
	KUNIT_EXPECT_EQ(test, st.value, 600ULL);
	KUNIT_EXPECT_EQ(test, st.limit, 599ULL);
	KUNIT_EXPECT_EQ(test, keep, 7U);
	/* Nothing asked, nothing granted: a grant of 0 holds. */
	m->keep_s = 0;
	KUNIT_EXPECT_EQ(test, ibpost_wire_ready_keep_check(m, 0, &keep, &st),
			0);
	KUNIT_EXPECT_EQ(test, keep, 0U);
	/* The pad must be zero. */
	m->pad = cpu_to_be32(1);
	KUNIT_EXPECT_EQ(test, ibpost_wire_ready_keep_check(m, 0, &keep, &st),
			-EPROTO);
	KUNIT_EXPECT_EQ(test, st.value, 1ULL);
}

/* ---- the order of control messages ---- */

static void ibpost_wire_order_test(struct kunit *test)
{
	struct ibpost_wire_hdr h;
	struct ibpost_status st = {};

	/* A zero-byte message before any job is not its fin. */
	KUNIT_EXPECT_EQ(test, ibpost_wire_order_check(false, NULL, 0, &st),
			-EPROTO);
	KUNIT_EXPECT_EQ(test, st.reason, (u32)IBPOST_R_PEER_ORDER);
	KUNIT_EXPECT_EQ(test, st.value, 0ULL);
	KUNIT_EXPECT_EQ(test, st.limit, (u64)IBPOST_WIRE_JOB);
	/* A second job while one runs. */
	memset(&st, 0, sizeof(st));
	ibpost_wire_hdr_init(&h, IBPOST_WIRE_JOB, JOB1, 0);
	KUNIT_EXPECT_EQ(test, ibpost_wire_order_check(true, &h, JOB1, &st),
			-EPROTO);
	KUNIT_EXPECT_EQ(test, st.reason, (u32)IBPOST_R_PEER_ORDER);
	KUNIT_EXPECT_EQ(test, st.value, (u64)IBPOST_WIRE_JOB);
	KUNIT_EXPECT_EQ(test, st.limit, 0ULL);
	/* Three bytes while one runs: its length stands for a type. */
	memset(&st, 0, sizeof(st));
	KUNIT_EXPECT_EQ(test, ibpost_wire_order_check(true, &h, 3, &st),
			-EPROTO);
	KUNIT_EXPECT_EQ(test, st.value, 3ULL);
	/* What may come: the job first, then the fin. */
	memset(&st, 0, sizeof(st));
	KUNIT_EXPECT_EQ(test, ibpost_wire_order_check(false, &h, JOB1, &st),
			0);
	KUNIT_EXPECT_EQ(test, ibpost_wire_order_check(true, NULL, 0, &st), 0);
	KUNIT_EXPECT_EQ(test, st.reason, (u32)IBPOST_R_NONE);
}

/* ---- the server's CPU time in a result ---- */

/* Check @w; on a refusal, the value and limit it names. */
static int cpu_get(const struct ibpost_wire_cpu *w, struct ibpost_result *res,
		   u64 *value, u64 *limit)
{
	struct ibpost_status st = {};
	int ret = ibpost_wire_cpu_get(w, res, &st);

	*value = st.value;
	*limit = st.limit;
	if (ret && st.reason != IBPOST_R_PEER_PROTO)
		return -EINVAL;
	return ret;
}

static void ibpost_wire_cpu_test(struct kunit *test)
{
	struct ibpost_result res = {};
	struct ibpost_wire_cpu w;
	u64 v, l;

	/* What a server puts: clamped to what the checks accept. */
	ibpost_wire_cpu_put(&w, 1000, 2500, 400, 2);
	KUNIT_EXPECT_EQ(test, cpu_get(&w, &res, &v, &l), 0);
	KUNIT_EXPECT_EQ(test, res.peer_cpu_wall_ns, 1000ULL);
	KUNIT_EXPECT_EQ(test, res.peer_cpu_busy_ns, 2000ULL);
	KUNIT_EXPECT_EQ(test, res.peer_cpu_thread_ns, 400ULL);
	KUNIT_EXPECT_EQ(test, res.peer_cpu_ncpus, 2U);
	ibpost_wire_cpu_put(&w, 1000, 10, 1001, 0);
	KUNIT_EXPECT_EQ(test, cpu_get(&w, &res, &v, &l), 0);
	KUNIT_EXPECT_EQ(test, res.peer_cpu_thread_ns, 1000ULL);
	KUNIT_EXPECT_EQ(test, res.peer_cpu_ncpus, 1U);
	/* window * CPUs past 2^64: no wrap, any busy time fits */
	ibpost_wire_cpu_put(&w, U64_MAX, U64_MAX, 0, 8);
	KUNIT_EXPECT_EQ(test, cpu_get(&w, &res, &v, &l), 0);
	KUNIT_EXPECT_EQ(test, res.peer_cpu_busy_ns, U64_MAX);

	/* What a hostile server may send: each field past its bound. */
	memset(&res, 0, sizeof(res));
	ibpost_wire_cpu_put(&w, 1000, 0, 0, 4);
	w.ncpus = 0;
	KUNIT_EXPECT_EQ(test, cpu_get(&w, &res, &v, &l), -EPROTO);
	KUNIT_EXPECT_EQ(test, v, 0ULL);
	KUNIT_EXPECT_EQ(test, l, (u64)IBPOST_WIRE_MAX_CPUS);
	w.ncpus = cpu_to_be32(IBPOST_WIRE_MAX_CPUS + 1);
	KUNIT_EXPECT_EQ(test, cpu_get(&w, &res, &v, &l), -EPROTO);
	KUNIT_EXPECT_EQ(test, v, IBPOST_WIRE_MAX_CPUS + 1ULL);
	w.ncpus = cpu_to_be32(4);
	w.busy_ns = cpu_to_be64(4001);
	KUNIT_EXPECT_EQ(test, cpu_get(&w, &res, &v, &l), -EPROTO);
	KUNIT_EXPECT_EQ(test, v, 4001ULL);
	KUNIT_EXPECT_EQ(test, l, 4000ULL);
	w.busy_ns = cpu_to_be64(4000);
	w.thread_ns = cpu_to_be64(1001);
	KUNIT_EXPECT_EQ(test, cpu_get(&w, &res, &v, &l), -EPROTO);
	KUNIT_EXPECT_EQ(test, v, 1001ULL);
	KUNIT_EXPECT_EQ(test, l, 1000ULL);
	w.thread_ns = cpu_to_be64(1000);
	w.pad = cpu_to_be32(1);
	KUNIT_EXPECT_EQ(test, cpu_get(&w, &res, &v, &l), -EPROTO);
	KUNIT_EXPECT_EQ(test, v, 1ULL);
	/* Nothing was taken from a refused record. */
	KUNIT_EXPECT_EQ(test, res.peer_cpu_ncpus, 0U);
	KUNIT_EXPECT_EQ(test, res.peer_cpu_wall_ns, 0ULL);
	w.pad = 0;
	KUNIT_EXPECT_EQ(test, cpu_get(&w, &res, &v, &l), 0);
	KUNIT_EXPECT_EQ(test, res.peer_cpu_busy_ns, 4000ULL);
	/* The result's size follows the job's flag. */
	KUNIT_EXPECT_EQ(test, ibpost_wire_result_size(IBPOST_WIRE_VERIFY),
			sizeof(struct ibpost_wire_result));
	KUNIT_EXPECT_EQ(test, ibpost_wire_result_size(IBPOST_WIRE_CPU),
			sizeof(struct ibpost_wire_result) + 32);
}

/* ---- who may connect ---- */

/* May a client of address @a (IPv4 or IPv6 text) connect? */
static noinline bool allowed(const struct ibpost_serve_allow *al, u32 n,
			     const char *a)
{
	struct sockaddr_storage ss = {};
	struct sockaddr_in6 *in6 = (void *)&ss;
	struct sockaddr_in *in4 = (void *)&ss;

	if (strchr(a, ':')) {
		in6->sin6_family = AF_INET6;
		in6_pton(a, -1, in6->sin6_addr.s6_addr, -1, NULL);
	} else {
		in4->sin_family = AF_INET;
		in4_pton(a, -1, (u8 *)&in4->sin_addr, -1, NULL);
	}
	return ibpost_allow_match(al, n, (struct sockaddr *)&ss);
}

static void ibpost_allow_match_test(struct kunit *test)
{
	struct ibpost_serve_allow al[3] = {};

	in4_pton("192.0.2.0", -1, al[0].addr, -1, NULL);
	al[0].family = AF_INET;
	al[0].prefix = 24;
	in6_pton("fd00:192::", -1, al[1].addr, -1, NULL);
	al[1].family = AF_INET6;
	al[1].prefix = 64;
	in4_pton("198.51.100.7", -1, al[2].addr, -1, NULL);
	al[2].family = AF_INET;
	al[2].prefix = 32;

	/* No list: anyone. */
	KUNIT_EXPECT_TRUE(test, allowed(al, 0, "203.0.113.1"));
	KUNIT_EXPECT_TRUE(test, allowed(al, 3, "192.0.2.1"));
	KUNIT_EXPECT_TRUE(test, allowed(al, 3, "192.0.2.255"));
	KUNIT_EXPECT_FALSE(test, allowed(al, 3, "192.0.3.1"));
	KUNIT_EXPECT_TRUE(test, allowed(al, 3, "198.51.100.7"));
	KUNIT_EXPECT_FALSE(test, allowed(al, 3, "198.51.100.6"));
	KUNIT_EXPECT_TRUE(test, allowed(al, 3, "fd00:192::2"));
	KUNIT_EXPECT_TRUE(test, allowed(al, 3, "fd00:192::ffff:1"));
	KUNIT_EXPECT_FALSE(test, allowed(al, 3, "fd00:193::2"));
	/* An IPv4 client seen through an IPv6 listener. */
	KUNIT_EXPECT_TRUE(test, allowed(al, 3, "::ffff:192.0.2.9"));
	KUNIT_EXPECT_FALSE(test, allowed(al, 3, "::ffff:10.0.0.1"));
	/* Only the IPv6 entry: no IPv4 client. */
	KUNIT_EXPECT_FALSE(test, allowed(&al[1], 1, "192.0.2.1"));
	/* A prefix that is not a multiple of 8. */
	al[0].prefix = 23;
	KUNIT_EXPECT_TRUE(test, allowed(al, 1, "192.0.3.1"));
	KUNIT_EXPECT_FALSE(test, allowed(al, 1, "192.0.4.1"));
	/* Prefix 0: every address of the family. */
	al[0].prefix = 0;
	KUNIT_EXPECT_TRUE(test, allowed(al, 1, "203.0.113.1"));
	KUNIT_EXPECT_FALSE(test, allowed(al, 1, "fd00:193::2"));
}

static void ibpost_allow_check_test(struct kunit *test)
{
	struct ibpost_serve_allow al[2] = {};
	struct ibpost_status st = {};

	al[0].family = AF_INET;
	al[0].prefix = 32;
	al[1].family = AF_INET6;
	al[1].prefix = 128;
	KUNIT_EXPECT_EQ(test, ibpost_allow_check(al, 2, &st), 0);
	al[1].prefix = 129;
	KUNIT_EXPECT_EQ(test, ibpost_allow_check(al, 2, &st), -EINVAL);
	KUNIT_EXPECT_EQ(test, st.reason, (u32)IBPOST_R_CM_ADDR);
	KUNIT_EXPECT_EQ(test, st.value, 1ULL);
	KUNIT_EXPECT_EQ(test, st.limit, 128ULL);
	al[1].prefix = 64;
	al[0].prefix = 33;
	KUNIT_EXPECT_EQ(test, ibpost_allow_check(al, 2, &st), -EINVAL);
	KUNIT_EXPECT_EQ(test, st.value, 0ULL);
	KUNIT_EXPECT_EQ(test, st.limit, 32ULL);
	al[0].prefix = 8;
	al[0].family = AF_UNIX;
	KUNIT_EXPECT_EQ(test, ibpost_allow_check(al, 2, &st), -EINVAL);
	KUNIT_EXPECT_EQ(test, st.reason, (u32)IBPOST_R_CM_ADDR);
	al[0].family = AF_INET;
	al[1].reserved[0] = 1;
	KUNIT_EXPECT_EQ(test, ibpost_allow_check(al, 2, &st), -EINVAL);
	KUNIT_EXPECT_EQ(test, st.reason, (u32)IBPOST_R_RESERVED);
	KUNIT_EXPECT_EQ(test, st.value, 1ULL);
}

static struct kunit_case ibpost_wire_cases[] = {
	KUNIT_CASE_PARAM(ibpost_wire_hello_test, hello_gen_params),
	KUNIT_CASE(ibpost_wire_hello_null_test),
	KUNIT_CASE_PARAM(ibpost_wire_job_test, job_gen_params),
	KUNIT_CASE_PARAM(ibpost_wire_region_test, region_gen_params),
	KUNIT_CASE(ibpost_wire_chunk_test),
	KUNIT_CASE(ibpost_wire_ready_region_test),
	KUNIT_CASE(ibpost_wire_ready_keep_test),
	KUNIT_CASE(ibpost_wire_order_test),
	KUNIT_CASE(ibpost_wire_cpu_test),
	KUNIT_CASE(ibpost_allow_match_test),
	KUNIT_CASE(ibpost_allow_check_test),
	{}
};

static struct kunit_suite ibpost_wire_suite = {
	.name = "ibpost_wire",
	.test_cases = ibpost_wire_cases,
};

kunit_test_suite(ibpost_wire_suite);

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

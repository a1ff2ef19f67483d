// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: signaling cadence and send-queue accounting (module/lib/sq.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/test.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "lib/sq.h"

/* ---- cadence ---- */

struct ibpost_cad_case {
	u32 every;
	u64 last;
};

static const struct ibpost_cad_case ibpost_cad_cases[] = {
	{ 1, 99 }, { 1, 0 },
	{ 4, 99 }, { 4, 41 }, { 4, 3 }, { 4, 0 },
	{ 16, 99 }, { 16, 15 }, { 16, 16 }, { 16, 200 },
};

static void ibpost_cad_case_desc(const struct ibpost_cad_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "every %u last %llu", c->every,
		 c->last);
}

KUNIT_ARRAY_PARAM(ibpost_cad, ibpost_cad_cases, ibpost_cad_case_desc);

static void ibpost_sq_cadence_test(struct kunit *test)
{
	const struct ibpost_cad_case *c = test->param_value;
	u64 seq, since = 0, count = 0;
	struct ibpost_sq sq;
	bool sig;

	ibpost_sq_init(&sq, 1024, c->every);
	for (seq = 0; seq <= c->last; seq++) {
		sig = ibpost_sq_signaled(&sq, seq, c->last);
		KUNIT_EXPECT_EQ_MSG(test, sig,
				    (seq + 1) % c->every == 0 || seq == c->last,
				    "seq %llu", seq);
		count += sig;
		since = sig ? 0 : since + 1;
		/* Never "every" unsignaled WRs in a row. */
		KUNIT_EXPECT_LT_MSG(test, since, (u64)c->every, "seq %llu", seq);
	}
	KUNIT_EXPECT_TRUE(test, ibpost_sq_signaled(&sq, c->last, c->last));
	KUNIT_EXPECT_EQ(test, count,
			(c->last + 1) / c->every +
			((c->last + 1) % c->every ? 1 : 0));
}

/* ---- accounting ---- */

static void ibpost_sq_accounting_test(struct kunit *test)
{
	struct ibpost_sq sq;

	memset(&sq, 0xa5, sizeof(sq));
	ibpost_sq_init(&sq, 8, 4);
	KUNIT_EXPECT_EQ(test, sq.depth, 8U);
	KUNIT_EXPECT_EQ(test, sq.every, 4U);
	KUNIT_EXPECT_EQ(test, sq.posted, 0ULL);
	KUNIT_EXPECT_EQ(test, sq.retired, 0ULL);
	KUNIT_EXPECT_EQ(test, sq.max_used, 0U);
	KUNIT_EXPECT_EQ(test, ibpost_sq_used(&sq), 0U);
	KUNIT_EXPECT_EQ(test, ibpost_sq_room(&sq), 8U);

	ibpost_sq_posted(&sq, 3);
	KUNIT_EXPECT_EQ(test, ibpost_sq_used(&sq), 3U);
	KUNIT_EXPECT_EQ(test, ibpost_sq_room(&sq), 5U);
	KUNIT_EXPECT_EQ(test, sq.max_used, 3U);
	ibpost_sq_posted(&sq, 5);
	KUNIT_EXPECT_EQ(test, sq.posted, 8ULL);
	KUNIT_EXPECT_EQ(test, ibpost_sq_room(&sq), 0U);
	KUNIT_EXPECT_EQ(test, sq.max_used, 8U);

	KUNIT_EXPECT_EQ(test, ibpost_sq_retire(&sq, 3), 4U);
	KUNIT_EXPECT_EQ(test, sq.retired, 4ULL);
	KUNIT_EXPECT_EQ(test, ibpost_sq_used(&sq), 4U);
	KUNIT_EXPECT_EQ(test, ibpost_sq_room(&sq), 4U);
	/* Duplicate, stale and future completions free nothing. */
	KUNIT_EXPECT_EQ(test, ibpost_sq_retire(&sq, 3), 0U);
	KUNIT_EXPECT_EQ(test, ibpost_sq_retire(&sq, 0), 0U);
	KUNIT_EXPECT_EQ(test, ibpost_sq_retire(&sq, 8), 0U);
	KUNIT_EXPECT_EQ(test, ibpost_sq_retire(&sq, U64_MAX), 0U);
	KUNIT_EXPECT_EQ(test, sq.retired, 4ULL);
	KUNIT_EXPECT_EQ(test, ibpost_sq_used(&sq), 4U);

	/* A completion frees every WR up to it, signaled or not. */
	KUNIT_EXPECT_EQ(test, ibpost_sq_retire(&sq, 7), 4U);
	KUNIT_EXPECT_EQ(test, ibpost_sq_used(&sq), 0U);
	KUNIT_EXPECT_EQ(test, ibpost_sq_room(&sq), 8U);

	/* max_used is a high-water mark. */
	ibpost_sq_posted(&sq, 2);
	KUNIT_EXPECT_EQ(test, sq.max_used, 8U);
	KUNIT_EXPECT_EQ(test, ibpost_sq_retire(&sq, 8), 1U);
	KUNIT_EXPECT_EQ(test, ibpost_sq_retire(&sq, 9), 1U);
	ibpost_sq_posted(&sq, 0);
	KUNIT_EXPECT_EQ(test, sq.posted, 10ULL);
	KUNIT_EXPECT_EQ(test, sq.max_used, 8U);
}

/* Sequence numbers are u64: nothing wraps at 2^32. */
static void ibpost_sq_wide_seq_test(struct kunit *test)
{
	u64 base = (1ULL << 32) - 2;
	struct ibpost_sq sq;

	ibpost_sq_init(&sq, 16, 4);
	sq.posted = base;
	sq.retired = base;
	ibpost_sq_posted(&sq, 6);
	KUNIT_EXPECT_EQ(test, ibpost_sq_used(&sq), 6U);
	KUNIT_EXPECT_EQ(test, ibpost_sq_room(&sq), 10U);
	KUNIT_EXPECT_EQ(test, sq.max_used, 6U);
	KUNIT_EXPECT_EQ(test, ibpost_sq_retire(&sq, base + 2), 3U);
	KUNIT_EXPECT_EQ(test, ibpost_sq_retire(&sq, base - 1), 0U);
	KUNIT_EXPECT_EQ(test, ibpost_sq_retire(&sq, base + 6), 0U);
	KUNIT_EXPECT_EQ(test, ibpost_sq_retire(&sq, base + 5), 3U);
	KUNIT_EXPECT_EQ(test, ibpost_sq_used(&sq), 0U);
}

struct ibpost_ret_case {
	const char *desc;
	u64 retired, posted, seq;
	u32 freed;
};

static const struct ibpost_ret_case ibpost_ret_cases[] = {
	{ "oldest outstanding", 10, 20, 10, 1 },
	{ "newest outstanding", 10, 20, 19, 10 },
	{ "just retired", 10, 20, 9, 0 },
	{ "long retired", 10, 20, 0, 0 },
	{ "not yet posted", 10, 20, 20, 0 },
	{ "far future", 10, 20, U64_MAX, 0 },
	{ "nothing outstanding", 20, 20, 20, 0 },
};

static void ibpost_ret_case_desc(const struct ibpost_ret_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ibpost_ret, ibpost_ret_cases, ibpost_ret_case_desc);

static void ibpost_sq_retire_test(struct kunit *test)
{
	const struct ibpost_ret_case *c = test->param_value;
	struct ibpost_sq sq;

	ibpost_sq_init(&sq, 64, 1);
	sq.retired = c->retired;
	sq.posted = c->posted;
	KUNIT_EXPECT_EQ(test, ibpost_sq_retire(&sq, c->seq), c->freed);
	KUNIT_EXPECT_EQ(test, sq.retired,
			c->freed ? c->seq + 1 : c->retired);
	KUNIT_EXPECT_EQ(test, sq.posted, c->posted);
}

/* ---- simulation of the posting loop (post.c: ibpost_job_pump) ---- */

struct ibpost_sim_case {
	u32 depth, batch, every;
	u64 total;
	bool deadlocks;
};

static const struct ibpost_sim_case ibpost_sim_cases[] = {
	/* every <= depth - batch + 1: never stuck */
	{ 1, 1, 1, 1000, false },
	{ 2, 1, 2, 1001, false },
	{ 4, 4, 1, 999, false },
	{ 7, 3, 5, 2000, false },
	{ 10, 10, 1, 1000, false },
	{ 16, 4, 13, 5000, false },
	{ 33, 5, 29, 4999, false },
	{ 64, 8, 16, 5000, false },
	{ 64, 8, 57, 5003, false },
	{ 128, 32, 97, 6000, false },
	{ 1024, 1, 1024, 5000, false },
	{ 1024, 1000, 25, 5000, false },
	/* every > depth - batch + 1: the SQ fills with unsignaled WRs */
	{ 2, 2, 3, 1000, true },
	{ 4, 3, 4, 1000, true },
	{ 16, 4, 15, 1000, true },
	{ 1024, 1, 1025, 5000, true },
};

static void ibpost_sim_case_desc(const struct ibpost_sim_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE,
		 "depth %u batch %u signal %u (limit %u)%s", c->depth,
		 c->batch, c->every, c->depth - c->batch + 1,
		 c->deadlocks ? " deadlocks" : "");
}

KUNIT_ARRAY_PARAM(ibpost_sim, ibpost_sim_cases, ibpost_sim_case_desc);

static u64 ibpost_sim_rand(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * Post a batch whenever the SQ has room for it; signaled WRs complete in
 * order at random moments.  Returns true when the run got stuck: a batch
 * does not fit and no signaled WR is outstanding to free a slot.
 */
static bool ibpost_sim_run(struct kunit *test, const struct ibpost_sim_case *c,
			   u64 seed)
{
	u64 rnd = seed, last = c->total - 1, seq, *sig;
	u32 head = 0, tail = 0, n, used, max_used = 0;
	struct ibpost_sq sq;
	bool can_post;

	/* Signaled WRs outstanding: at most depth of them. */
	sig = kunit_kcalloc(test, c->depth, sizeof(*sig), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, sig);
	ibpost_sq_init(&sq, c->depth, c->every);
	while (sq.retired < c->total) {
		n = (u32)min_t(u64, c->batch, c->total - sq.posted);
		can_post = sq.posted < c->total && ibpost_sq_room(&sq) >= n;
		if (!can_post && head == tail)
			return true;
		if (can_post && (head == tail || ibpost_sim_rand(&rnd) & 1)) {
			for (seq = sq.posted; seq < sq.posted + n; seq++)
				if (ibpost_sq_signaled(&sq, seq, last))
					sig[tail++ % c->depth] = seq;
			ibpost_sq_posted(&sq, n);
			used = ibpost_sq_used(&sq);
			max_used = max(max_used, used);
			KUNIT_ASSERT_LE(test, used, c->depth);
			KUNIT_ASSERT_LE(test, tail - head, c->depth);
			continue;
		}
		seq = sig[head++ % c->depth];
		n = (u32)(seq + 1 - sq.retired);
		KUNIT_ASSERT_EQ(test, ibpost_sq_retire(&sq, seq), n);
		KUNIT_ASSERT_EQ(test, sq.retired, seq + 1);
	}
	KUNIT_EXPECT_EQ(test, sq.posted, c->total);
	KUNIT_EXPECT_EQ(test, ibpost_sq_used(&sq), 0U);
	KUNIT_EXPECT_EQ(test, sq.max_used, max_used);
	KUNIT_EXPECT_LE(test, sq.max_used, c->depth);
	return false;
}

static void ibpost_sq_sim_test(struct kunit *test)
{
	const struct ibpost_sim_case *c = test->param_value;
	u64 seed;

	for (seed = 1; seed <= 8; seed++)
		KUNIT_EXPECT_EQ_MSG(test, ibpost_sim_run(test, c, seed),
				    c->deadlocks, "seed %llu", seed);
}

static struct kunit_case ibpost_sq_cases[] = {
	KUNIT_CASE_PARAM(ibpost_sq_cadence_test, ibpost_cad_gen_params),
	KUNIT_CASE(ibpost_sq_accounting_test),
	KUNIT_CASE(ibpost_sq_wide_seq_test),
	KUNIT_CASE_PARAM(ibpost_sq_retire_test, ibpost_ret_gen_params),
	KUNIT_CASE_PARAM(ibpost_sq_sim_test, ibpost_sim_gen_params),
	{}
};

static struct kunit_suite ibpost_sq_suite = {
	.name = "ibpost_sq",
	.test_cases = ibpost_sq_cases,
};

kunit_test_suite(ibpost_sq_suite);

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: latency histogram and summary (module/lib/stats.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/test.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "lib/stats.h"

struct ibpost_bucket_case {
	u64 ns;
	u32 bucket;
};

static const struct ibpost_bucket_case ibpost_bucket_cases[] = {
	{ 0, 0 }, { 1, 0 }, { 2, 1 }, { 3, 1 }, { 4, 2 }, { 7, 2 },
	{ 1023, 9 }, { 1024, 10 }, { 1025, 10 },
	{ 1000000, 19 },
	{ (1ULL << (IBPOST_HIST_BUCKETS - 1)) - 1, IBPOST_HIST_BUCKETS - 2 },
	{ 1ULL << (IBPOST_HIST_BUCKETS - 1), IBPOST_HIST_BUCKETS - 1 },
	{ 1ULL << IBPOST_HIST_BUCKETS, IBPOST_HIST_BUCKETS - 1 },
	{ 1ULL << 63, IBPOST_HIST_BUCKETS - 1 },
	{ U64_MAX, IBPOST_HIST_BUCKETS - 1 },
};

static void ibpost_bucket_case_desc(const struct ibpost_bucket_case *c,
				    char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%llu ns", c->ns);
}

KUNIT_ARRAY_PARAM(ibpost_bucket, ibpost_bucket_cases, ibpost_bucket_case_desc);

static void ibpost_hist_bucket_test(struct kunit *test)
{
	const struct ibpost_bucket_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, ibpost_hist_bucket(c->ns), c->bucket);
}

static struct ibpost_result *ibpost_res(struct kunit *test)
{
	struct ibpost_result *res = kunit_kmalloc(test, sizeof(*res),
						  GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, res);
	memset(res, 0xa5, sizeof(*res));
	return res;
}

static u64 ibpost_hist_total(const struct ibpost_result *res)
{
	u64 sum = 0;
	u32 i;

	for (i = 0; i < IBPOST_HIST_BUCKETS; i++)
		sum += res->hist[i];
	return sum;
}

static void ibpost_lat_empty_test(struct kunit *test)
{
	struct ibpost_result *res = ibpost_res(test);
	u64 dummy = 77;

	ibpost_lat_summarize(&dummy, 0, res);
	KUNIT_EXPECT_EQ(test, res->lat_samples, 0ULL);
	KUNIT_EXPECT_EQ(test, res->lat_min_ns, 0ULL);
	KUNIT_EXPECT_EQ(test, res->lat_max_ns, 0ULL);
	KUNIT_EXPECT_EQ(test, res->lat_avg_ns, 0ULL);
	KUNIT_EXPECT_EQ(test, res->lat_median_ns, 0ULL);
	KUNIT_EXPECT_EQ(test, res->lat_stdev_ns, 0ULL);
	KUNIT_EXPECT_EQ(test, res->lat_p99_ns, 0ULL);
	KUNIT_EXPECT_EQ(test, res->lat_p999_ns, 0ULL);
	KUNIT_EXPECT_EQ(test, ibpost_hist_total(res), 0ULL);
	KUNIT_EXPECT_EQ(test, dummy, 77ULL);
}

static void ibpost_lat_one_test(struct kunit *test)
{
	struct ibpost_result *res = ibpost_res(test);
	u64 s = 1500;

	ibpost_lat_summarize(&s, 1, res);
	KUNIT_EXPECT_EQ(test, res->lat_samples, 1ULL);
	KUNIT_EXPECT_EQ(test, res->lat_min_ns, 1500ULL);
	KUNIT_EXPECT_EQ(test, res->lat_max_ns, 1500ULL);
	KUNIT_EXPECT_EQ(test, res->lat_avg_ns, 1500ULL);
	KUNIT_EXPECT_EQ(test, res->lat_median_ns, 1500ULL);
	KUNIT_EXPECT_EQ(test, res->lat_stdev_ns, 0ULL);
	KUNIT_EXPECT_EQ(test, res->lat_p99_ns, 1500ULL);
	KUNIT_EXPECT_EQ(test, res->lat_p999_ns, 1500ULL);
	KUNIT_EXPECT_EQ(test, res->hist[10], 1ULL);
	KUNIT_EXPECT_EQ(test, ibpost_hist_total(res), 1ULL);
}

/* 1..1000 ns in a scrambled order. */
static void ibpost_lat_known_test(struct kunit *test)
{
	struct ibpost_result *res = ibpost_res(test);
	u64 *s;
	u32 i, b;

	s = kunit_kcalloc(test, 1000, sizeof(*s), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	/* 7 is prime to 1000: i * 7 % 1000 visits every residue once. */
	for (i = 0; i < 1000; i++)
		s[i] = (u64)i * 7 % 1000 + 1;

	ibpost_lat_summarize(s, 1000, res);
	KUNIT_EXPECT_EQ(test, res->lat_samples, 1000ULL);
	KUNIT_EXPECT_EQ(test, res->lat_min_ns, 1ULL);
	KUNIT_EXPECT_EQ(test, res->lat_max_ns, 1000ULL);
	KUNIT_EXPECT_EQ(test, res->lat_median_ns, 500ULL);
	KUNIT_EXPECT_EQ(test, res->lat_p99_ns, 990ULL);
	KUNIT_EXPECT_EQ(test, res->lat_p999_ns, 999ULL);
	KUNIT_EXPECT_EQ(test, res->lat_avg_ns, 500ULL);
	/* Population stdev of 1..1000 is 288.7 (precision: small_spread). */
	KUNIT_EXPECT_GE(test, res->lat_stdev_ns, 287ULL);
	KUNIT_EXPECT_LE(test, res->lat_stdev_ns, 289ULL);
	/* Sorted in place. */
	for (i = 0; i < 1000; i++)
		KUNIT_EXPECT_EQ(test, s[i], (u64)i + 1);
	/* hist[b] counts [2^b, 2^(b+1)). */
	KUNIT_EXPECT_EQ(test, ibpost_hist_total(res), 1000ULL);
	for (b = 0; b < 9; b++)
		KUNIT_EXPECT_EQ_MSG(test, res->hist[b], 1ULL << b, "bucket %u",
				    b);
	KUNIT_EXPECT_EQ(test, res->hist[9], 1000ULL - 511);
	for (b = 10; b < IBPOST_HIST_BUCKETS; b++)
		KUNIT_EXPECT_EQ_MSG(test, res->hist[b], 0ULL, "bucket %u", b);
}

/* Nearest rank: the smallest sample with at least p of them at or below. */
struct ibpost_rank_case {
	u32 n;
	u64 median, p99, p999;
};

static const struct ibpost_rank_case ibpost_rank_cases[] = {
	{ 2, 1, 2, 2 },
	{ 3, 2, 3, 3 },
	{ 10, 5, 10, 10 },
	{ 99, 50, 99, 99 },
	{ 100, 50, 99, 100 },
	{ 101, 51, 100, 101 },
	{ 1001, 501, 991, 1000 },
	{ 10000, 5000, 9900, 9990 },
};

static void ibpost_rank_case_desc(const struct ibpost_rank_case *c,
				  char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "1..%u", c->n);
}

KUNIT_ARRAY_PARAM(ibpost_rank, ibpost_rank_cases, ibpost_rank_case_desc);

static void ibpost_lat_rank_test(struct kunit *test)
{
	const struct ibpost_rank_case *c = test->param_value;
	struct ibpost_result *res = ibpost_res(test);
	u64 *s;
	u32 i;

	s = kunit_kcalloc(test, c->n, sizeof(*s), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	for (i = 0; i < c->n; i++)
		s[i] = c->n - i;
	ibpost_lat_summarize(s, c->n, res);
	KUNIT_EXPECT_EQ(test, res->lat_min_ns, 1ULL);
	KUNIT_EXPECT_EQ(test, res->lat_max_ns, (u64)c->n);
	KUNIT_EXPECT_EQ(test, res->lat_median_ns, c->median);
	KUNIT_EXPECT_EQ(test, res->lat_p99_ns, c->p99);
	KUNIT_EXPECT_EQ(test, res->lat_p999_ns, c->p999);
	KUNIT_EXPECT_EQ(test, ibpost_hist_total(res), (u64)c->n);
}

/*
 * Many samples with a small spread: 5000 +- 31 ns, 100000 of them.  The
 * standard deviation is 31 however many samples there are.
 */
static void ibpost_lat_small_spread_test(struct kunit *test)
{
	struct ibpost_result *res = ibpost_res(test);
	const u32 n = 100000;
	u64 *s;
	u32 i;

	s = kunit_kcalloc(test, n, sizeof(*s), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	for (i = 0; i < n; i++)
		s[i] = i & 1 ? 5031 : 4969;
	ibpost_lat_summarize(s, n, res);
	KUNIT_EXPECT_EQ(test, res->lat_avg_ns, 5000ULL);
	KUNIT_EXPECT_EQ(test, res->lat_min_ns, 4969ULL);
	KUNIT_EXPECT_EQ(test, res->lat_max_ns, 5031ULL);
	KUNIT_EXPECT_EQ(test, res->lat_stdev_ns, 31ULL);
	KUNIT_EXPECT_EQ(test, res->hist[12], (u64)n);
}

/* Huge outliers neither overflow the mean nor the variance. */
static void ibpost_lat_outlier_test(struct kunit *test)
{
	struct ibpost_result *res = ibpost_res(test);
	u64 s[4] = { 1000, 1000, 1000, 1ULL << 40 };

	ibpost_lat_summarize(s, ARRAY_SIZE(s), res);
	KUNIT_EXPECT_EQ(test, res->lat_min_ns, 1000ULL);
	KUNIT_EXPECT_EQ(test, res->lat_max_ns, 1ULL << 40);
	KUNIT_EXPECT_EQ(test, res->lat_avg_ns, ((1ULL << 40) + 3000) / 4);
	KUNIT_EXPECT_EQ(test, res->lat_median_ns, 1000ULL);
	KUNIT_EXPECT_EQ(test, res->lat_p99_ns, 1ULL << 40);
	KUNIT_EXPECT_GT(test, res->lat_stdev_ns, 0ULL);
	KUNIT_EXPECT_EQ(test, res->hist[9], 3ULL);
	KUNIT_EXPECT_EQ(test, res->hist[IBPOST_HIST_BUCKETS - 1], 1ULL);
	KUNIT_EXPECT_EQ(test, ibpost_hist_total(res), 4ULL);
}

static struct kunit_case ibpost_stats_cases[] = {
	KUNIT_CASE_PARAM(ibpost_hist_bucket_test, ibpost_bucket_gen_params),
	KUNIT_CASE(ibpost_lat_empty_test),
	KUNIT_CASE(ibpost_lat_one_test),
	KUNIT_CASE(ibpost_lat_known_test),
	KUNIT_CASE_PARAM(ibpost_lat_rank_test, ibpost_rank_gen_params),
	KUNIT_CASE(ibpost_lat_small_spread_test),
	KUNIT_CASE(ibpost_lat_outlier_test),
	{}
};

static struct kunit_suite ibpost_stats_suite = {
	.name = "ibpost_stats",
	.test_cases = ibpost_stats_cases,
};

kunit_test_suite(ibpost_stats_suite);

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

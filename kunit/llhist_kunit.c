// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the log-linear latency histogram (module/lib/llhist.c): buckets
 * against a reference by division, percentiles against sorted exact
 * values, merging, the overflow bucket, a job's capped result.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/test.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include "lib/llhist.h"

/* What a bucket's lower bound must be: @ns with its digits past 2 zeroed. */
static u64 ibpost_ref_lower(u64 ns)
{
	u64 unit = 1;

	if (ns >= IBPOST_HIST_LL_OVER_NS)
		return IBPOST_HIST_LL_OVER_NS;
	while (div64_u64(ns, unit) >= 100)
		unit *= 10;
	return div64_u64(ns, unit) * unit;
}

/* One unit of the second significant digit of @ns (1 below 100). */
static u64 ibpost_unit(u64 ns)
{
	u64 unit = 1;

	while (div64_u64(ns, unit) >= 100)
		unit *= 10;
	return unit;
}

struct ibpost_ll_case {
	u64 ns;
	u64 lower;
};

static const struct ibpost_ll_case ibpost_ll_cases[] = {
	{ 0, 0 }, { 1, 1 }, { 9, 9 }, { 10, 10 }, { 11, 11 }, { 99, 99 },
	{ 100, 100 }, { 101, 100 }, { 109, 100 }, { 110, 110 },
	{ 999, 990 }, { 1000, 1000 }, { 1099, 1000 }, { 1100, 1100 },
	{ 1234, 1200 }, { 9999, 9900 }, { 10000, 10000 },
	{ 99999, 99000 }, { 1048576, 1000000 }, { 999999999, 990000000 },
	{ 1000000000, 1000000000 }, { 99999999999ULL, 99000000000ULL },
	{ 100000000000ULL, IBPOST_HIST_LL_OVER_NS },
	{ 1ULL << 40, IBPOST_HIST_LL_OVER_NS },
	{ 1ULL << 63, IBPOST_HIST_LL_OVER_NS },
	{ U64_MAX, IBPOST_HIST_LL_OVER_NS },
};

static void ibpost_ll_case_desc(const struct ibpost_ll_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%llu ns", c->ns);
}

KUNIT_ARRAY_PARAM(ibpost_ll, ibpost_ll_cases, ibpost_ll_case_desc);

/* The edge values: their bucket's bounds, and the bucket after it. */
static void ibpost_llhist_edge_test(struct kunit *test)
{
	const struct ibpost_ll_case *c = test->param_value;
	u32 i = ibpost_llhist_index(c->ns);

	KUNIT_ASSERT_LT(test, i, (u32)IBPOST_HIST_LL_BUCKETS);
	KUNIT_EXPECT_EQ(test, ibpost_llhist_lower(i), c->lower);
	if (i + 1 < IBPOST_HIST_LL_BUCKETS)
		KUNIT_EXPECT_GT(test, ibpost_llhist_lower(i + 1), c->ns);
	else
		KUNIT_EXPECT_GE(test, c->ns, IBPOST_HIST_LL_OVER_NS);
}

/* Every bucket: its lower bound maps back to it, the layout is dense. */
static void ibpost_llhist_layout_test(struct kunit *test)
{
	u64 lo, prev = 0;
	u32 i;

	KUNIT_EXPECT_EQ(test, IBPOST_HIST_LL_BUCKETS, 911);
	for (i = 0; i < IBPOST_HIST_LL_BUCKETS; i++) {
		lo = ibpost_llhist_lower(i);
		KUNIT_EXPECT_EQ_MSG(test, ibpost_llhist_index(lo), i,
				    "bucket %u lower %llu", i, lo);
		if (lo)
			KUNIT_EXPECT_EQ_MSG(test, ibpost_llhist_index(lo - 1),
					    i - 1, "below bucket %u", i);
		if (i)
			KUNIT_EXPECT_GT(test, lo, prev);
		prev = lo;
	}
}

/*
 * Against the reference by division: every value below 10^5, each power
 * of ten and of two and their neighbours, and a pseudo-random spread over
 * every decade.
 */
static void ibpost_llhist_index_ref_test(struct kunit *test)
{
	u64 v, p, x = 88172645463325252ULL;
	u32 i, e;
	int d;

	for (v = 0; v < 100000; v++)
		if (ibpost_llhist_lower(ibpost_llhist_index(v)) !=
		    ibpost_ref_lower(v))
			KUNIT_FAIL(test, "%llu: bucket %u", v,
				   ibpost_llhist_index(v));
	for (p = 1, e = 0; e < 20; e++, p *= 10)
		for (d = -2; d <= 2; d++) {
			v = p + d;
			if (d < 0 && p < 2)
				continue;
			KUNIT_EXPECT_EQ_MSG(test,
					    ibpost_llhist_lower(ibpost_llhist_index(v)),
					    ibpost_ref_lower(v), "%llu", v);
		}
	for (e = 1; e < 64; e++)
		for (d = -1; d <= 1; d++) {
			v = (1ULL << e) + d;
			KUNIT_EXPECT_EQ_MSG(test,
					    ibpost_llhist_lower(ibpost_llhist_index(v)),
					    ibpost_ref_lower(v), "%llu", v);
		}
	for (i = 0; i < 200000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		v = x >> (x % 64);
		if (ibpost_llhist_lower(ibpost_llhist_index(v)) !=
		    ibpost_ref_lower(v))
			KUNIT_FAIL(test, "%llu: bucket %u", v,
				   ibpost_llhist_index(v));
	}
}

static int ibpost_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static struct ibpost_llhist *ibpost_hist(struct kunit *test)
{
	struct ibpost_llhist *h = kunit_kmalloc(test, sizeof(*h), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, h);
	memset(h, 0xa5, sizeof(*h));
	ibpost_llhist_init(h);
	return h;
}

/* The guarantee of ibpost_llhist_percentile() for @n sorted samples @s. */
static void ibpost_check_percentiles(struct kunit *test,
				     const struct ibpost_llhist *h,
				     const u64 *s, u32 n, const char *what)
{
	static const u32 pm[] = { 1, 100, 250, 500, 750, 900, 990, 999, 1000 };
	u64 rank, x, got;
	u32 i;

	for (i = 0; i < ARRAY_SIZE(pm); i++) {
		rank = div_u64((u64)n * pm[i] + 999, 1000);
		x = s[rank ? rank - 1 : 0];
		got = ibpost_llhist_percentile(h, pm[i]);
		KUNIT_EXPECT_LE_MSG(test, got, x, "%s p%u", what, pm[i]);
		KUNIT_EXPECT_GE_MSG(test, got, s[0], "%s p%u", what, pm[i]);
		KUNIT_EXPECT_LE_MSG(test, got, s[n - 1], "%s p%u", what, pm[i]);
		if (x < IBPOST_HIST_LL_OVER_NS)
			KUNIT_EXPECT_LT_MSG(test, x - got, ibpost_unit(x),
					    "%s p%u: exact %llu", what, pm[i],
					    x);
		else
			KUNIT_EXPECT_EQ_MSG(test, got,
					    max(s[0], IBPOST_HIST_LL_OVER_NS),
					    "%s p%u", what, pm[i]);
	}
}

/* Samples of several shapes: percentiles against the sorted exact ones. */
static void ibpost_llhist_percentile_test(struct kunit *test)
{
	static const u64 edges[] = { 0, 9, 10, 99, 100, 999, 1000, 1001,
				     99999999999ULL, 100000000000ULL,
				     U64_MAX };
	struct ibpost_llhist *h = ibpost_hist(test);
	u64 x = 2463534242ULL, *s;
	const u32 n = 5000;
	u32 i, shape;

	s = kunit_kcalloc(test, n, sizeof(*s), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	KUNIT_EXPECT_EQ(test, ibpost_llhist_percentile(h, 500), 0ULL);
	for (shape = 0; shape < 4; shape++) {
		ibpost_llhist_init(h);
		for (i = 0; i < n; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			switch (shape) {
			case 0:	/* 2..4 us, what log2 put in one bucket */
				s[i] = 2000 + x % 2000;
				break;
			case 1:	/* 1 ns .. 10 s, log-uniform */
				s[i] = 1 + (x >> 20) % (1ULL << (x % 34));
				break;
			case 2:	/* a tail: 1 in 100 a thousand times longer */
				s[i] = 1500 + x % 100 + (i % 100 ? 0 : 1500000);
				break;
			default: /* the edges, over and over */
				s[i] = edges[x % ARRAY_SIZE(edges)];
				break;
			}
			ibpost_llhist_add(h, s[i]);
		}
		sort(s, n, sizeof(*s), ibpost_cmp, NULL);
		KUNIT_EXPECT_EQ(test, h->n, (u64)n);
		KUNIT_EXPECT_EQ(test, h->min, s[0]);
		KUNIT_EXPECT_EQ(test, h->max, s[n - 1]);
		ibpost_check_percentiles(test, h, s, n,
					 shape == 0 ? "2-4us" : shape == 1 ?
					 "log-uniform" : shape == 2 ? "tail" :
					 "edges");
	}
}

/* 2000..3999 ns: the median exact to 2 digits (log2 had 2048 for all). */
static void ibpost_llhist_narrow_test(struct kunit *test)
{
	struct ibpost_llhist *h = ibpost_hist(test);
	u64 v;

	for (v = 2000; v < 4000; v++)
		ibpost_llhist_add(h, v);
	KUNIT_EXPECT_EQ(test, ibpost_llhist_percentile(h, 500), 2900ULL);
	KUNIT_EXPECT_EQ(test, ibpost_llhist_percentile(h, 990), 3900ULL);
	KUNIT_EXPECT_EQ(test, ibpost_llhist_percentile(h, 1), 2000ULL);
	KUNIT_EXPECT_EQ(test, ibpost_llhist_percentile(h, 1000), 3900ULL);
	KUNIT_EXPECT_EQ(test, h->b[ibpost_llhist_index(2950)], 100ULL);
	KUNIT_EXPECT_EQ(test, h->log2[10], 48ULL);	/* 2000..2047 */
	KUNIT_EXPECT_EQ(test, h->log2[11], 1952ULL);
	KUNIT_EXPECT_EQ(test, h->sum, (2000ULL + 3999) * 2000 / 2);
}

/* Merging two histograms is the histogram of both sets of samples. */
static void ibpost_llhist_merge_test(struct kunit *test)
{
	struct ibpost_llhist *a = ibpost_hist(test), *b = ibpost_hist(test);
	struct ibpost_llhist *all = ibpost_hist(test);
	const u32 n = 3000;
	u64 *s, v;
	u32 i;

	s = kunit_kcalloc(test, 2 * n, sizeof(*s), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	for (i = 0; i < n; i++) {
		v = 1000 + (u64)i * 7 % 3000;		/* 1..4 us */
		s[i] = v;
		ibpost_llhist_add(a, v);
		ibpost_llhist_add(all, v);
		v = 50000 + (u64)i * 13 % 50000;	/* 50..100 us */
		s[n + i] = v;
		ibpost_llhist_add(b, v);
		ibpost_llhist_add(all, v);
	}
	ibpost_llhist_merge(a, b);
	KUNIT_EXPECT_EQ(test, a->n, all->n);
	KUNIT_EXPECT_EQ(test, a->min, all->min);
	KUNIT_EXPECT_EQ(test, a->max, all->max);
	KUNIT_EXPECT_EQ(test, a->sum, all->sum);
	KUNIT_EXPECT_EQ(test, memcmp(a->b, all->b, sizeof(a->b)), 0);
	KUNIT_EXPECT_EQ(test, memcmp(a->log2, all->log2, sizeof(a->log2)), 0);
	sort(s, 2 * n, sizeof(*s), ibpost_cmp, NULL);
	ibpost_check_percentiles(test, a, s, 2 * n, "merged");
	/* An empty histogram merges as nothing. */
	ibpost_llhist_init(b);
	ibpost_llhist_merge(a, b);
	KUNIT_EXPECT_EQ(test, a->min, all->min);
	KUNIT_EXPECT_EQ(test, a->n, all->n);
}

/* From 100 s: the last bucket, counted; percentiles there at most exact. */
static void ibpost_llhist_overflow_test(struct kunit *test)
{
	struct ibpost_llhist *h = ibpost_hist(test);
	u32 i;

	for (i = 0; i < 98; i++)
		ibpost_llhist_add(h, 5000);
	ibpost_llhist_add(h, 600000000000ULL);	/* past 2^39 too */
	ibpost_llhist_add(h, U64_MAX);
	KUNIT_EXPECT_EQ(test, h->b[IBPOST_HIST_LL_BUCKETS - 1], 2ULL);
	KUNIT_EXPECT_EQ(test, h->log2[IBPOST_HIST_BUCKETS - 1], 2ULL);
	KUNIT_EXPECT_EQ(test, h->max, U64_MAX);
	KUNIT_EXPECT_EQ(test, ibpost_llhist_percentile(h, 500), 5000ULL);
	KUNIT_EXPECT_EQ(test, ibpost_llhist_percentile(h, 990),
			IBPOST_HIST_LL_OVER_NS);
	KUNIT_EXPECT_EQ(test, ibpost_llhist_percentile(h, 1000),
			IBPOST_HIST_LL_OVER_NS);
	/* All past 100 s: the minimum is the better lower bound. */
	ibpost_llhist_init(h);
	ibpost_llhist_add(h, 300000000000ULL);
	ibpost_llhist_add(h, 400000000000ULL);
	KUNIT_EXPECT_EQ(test, ibpost_llhist_percentile(h, 500),
			300000000000ULL);
}

/* A job's result: untouched but for the log2 histogram unless capped. */
static void ibpost_llhist_result_test(struct kunit *test)
{
	struct ibpost_llhist *h = ibpost_hist(test);
	struct ibpost_result *res;
	u32 i;

	res = kunit_kzalloc(test, sizeof(*res), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, res);
	for (i = 1; i <= 1000; i++)
		ibpost_llhist_add(h, i * 10);
	res->lat_samples = 1000;
	res->lat_median_ns = 5000;
	res->lat_samples_capped = 7;
	ibpost_llhist_result(h, 1000, res);
	KUNIT_EXPECT_EQ(test, res->lat_samples_capped, 0ULL);
	KUNIT_EXPECT_EQ(test, res->lat_median_ns, 5000ULL);
	KUNIT_EXPECT_EQ(test, res->hist[13], 181ULL);	/* 8192..10000 */
	/* 100 kept whole of 1000: the rest from the histogram. */
	res->lat_samples = 100;
	res->lat_min_ns = 10;
	res->lat_max_ns = 1000;
	res->lat_stdev_ns = 42;
	ibpost_llhist_result(h, 100, res);
	KUNIT_EXPECT_EQ(test, res->lat_samples_capped, 100ULL);
	KUNIT_EXPECT_EQ(test, res->lat_samples, 1000ULL);
	KUNIT_EXPECT_EQ(test, res->lat_min_ns, 10ULL);
	KUNIT_EXPECT_EQ(test, res->lat_max_ns, 10000ULL);
	KUNIT_EXPECT_EQ(test, res->lat_avg_ns, 5005ULL);
	KUNIT_EXPECT_EQ(test, res->lat_median_ns, 5000ULL);
	KUNIT_EXPECT_EQ(test, res->lat_p99_ns, 9900ULL);
	KUNIT_EXPECT_EQ(test, res->lat_p999_ns, 9900ULL);
	KUNIT_EXPECT_EQ(test, res->lat_stdev_ns, 42ULL);
}

static struct kunit_case ibpost_llhist_cases[] = {
	KUNIT_CASE_PARAM(ibpost_llhist_edge_test, ibpost_ll_gen_params),
	KUNIT_CASE(ibpost_llhist_layout_test),
	KUNIT_CASE(ibpost_llhist_index_ref_test),
	KUNIT_CASE(ibpost_llhist_percentile_test),
	KUNIT_CASE(ibpost_llhist_narrow_test),
	KUNIT_CASE(ibpost_llhist_merge_test),
	KUNIT_CASE(ibpost_llhist_overflow_test),
	KUNIT_CASE(ibpost_llhist_result_test),
	{}
};

static struct kunit_suite ibpost_llhist_suite = {
	.name = "ibpost_llhist",
	.test_cases = ibpost_llhist_cases,
};

kunit_test_suite(ibpost_llhist_suite);

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: log-linear latency histogram.
 *
 * Fixed-size counts of latencies to 2 significant digits (the layout of
 * IBPOST_HIST_LL_BUCKETS in include/uapi/ibpost.h): recording one value is
 * O(1) without a division (its decade from fls64(), its two leading digits
 * by a multiplication with a reciprocal and one correction), so a job keeps
 * every sample of any length of run, and histograms of several jobs (the
 * tool's -q total) or of a session's life add up bucket by bucket.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "lib/llhist.h"
#include "lib/stats.h"

static const u64 ibpost_pow10[] = {
	1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL,
	10000000ULL, 100000000ULL, 1000000000ULL, 10000000000ULL,
	100000000000ULL, 1000000000000ULL, 10000000000000ULL,
	100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
	100000000000000000ULL, 1000000000000000000ULL,
	10000000000000000000ULL,
};

/*
 * floor(2^64 / 10^j), folded by the compiler: U64_MAX / d is the same
 * since no power of ten above 1 divides 2^64.  Index j = k - 1 of decade k.
 */
static const u64 ibpost_recip10[] = {
	0, U64_MAX / 10ULL, U64_MAX / 100ULL, U64_MAX / 1000ULL,
	U64_MAX / 10000ULL, U64_MAX / 100000ULL, U64_MAX / 1000000ULL,
	U64_MAX / 10000000ULL, U64_MAX / 100000000ULL,
	U64_MAX / 1000000000ULL,
};

/**
 * ibpost_llhist_init() - empty a histogram.
 * @h: the histogram.
 */
void ibpost_llhist_init(struct ibpost_llhist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = U64_MAX;
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_llhist_init);

/**
 * ibpost_llhist_index() - the bucket of a latency.
 * @ns: the latency in ns.
 *
 * Below 100 ns the value itself; from 100 ns its decade k (floor(log10))
 * and its two leading digits m = floor(@ns / 10^(k-1)), 10..99, give
 * bucket 100 + 90 * (k - 2) + m - 10; from IBPOST_HIST_LL_OVER_NS the
 * overflow bucket.  No division: k is fls64(@ns) * log10(2) (1233 / 4096)
 * corrected by one comparison with 10^k, and m is @ns times
 * floor(2^64 / 10^(k-1)) shifted down by 64, which is m or m - 1 (the
 * reciprocal is below the exact one by less than 1, times @ns < 2^64
 * loses less than 1), corrected by one comparison.
 *
 * Return: 0 .. IBPOST_HIST_LL_BUCKETS - 1.
 */
u32 ibpost_llhist_index(u64 ns)
{
	u32 k;
	u64 m, d;

	if (ns < IBPOST_HIST_LL_EXACT)
		return ns;
	if (ns >= IBPOST_HIST_LL_OVER_NS)
		return IBPOST_HIST_LL_BUCKETS - 1;
	k = (fls64(ns) * 1233) >> 12;
	if (ns < ibpost_pow10[k])
		k--;
	d = ibpost_pow10[k - 1];
	m = mul_u64_u64_shr(ns, ibpost_recip10[k - 1], 64);
	if (ns - m * d >= d)
		m++;
	return IBPOST_HIST_LL_EXACT + IBPOST_HIST_LL_PER_DECADE * (k - 2) +
	       (u32)m - 10;
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_llhist_index);

/**
 * ibpost_llhist_lower() - the smallest latency a bucket counts.
 * @i: a bucket, 0 .. IBPOST_HIST_LL_BUCKETS - 1 (above: the last).
 *
 * Return: @i below 100, else its two digits times 10^(k-1);
 * IBPOST_HIST_LL_OVER_NS for the overflow bucket.
 */
u64 ibpost_llhist_lower(u32 i)
{
	u32 k, m;

	if (i < IBPOST_HIST_LL_EXACT)
		return i;
	if (i >= IBPOST_HIST_LL_BUCKETS - 1)
		return IBPOST_HIST_LL_OVER_NS;
	i -= IBPOST_HIST_LL_EXACT;
	k = 2 + i / IBPOST_HIST_LL_PER_DECADE;
	m = 10 + i % IBPOST_HIST_LL_PER_DECADE;
	return m * ibpost_pow10[k - 1];
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_llhist_lower);

/**
 * ibpost_llhist_add() - record one latency.
 * @h: the histogram (its owner serializes the calls).
 * @ns: the latency in ns.
 *
 * Context: any; O(1), no division, nothing allocated.
 */
void ibpost_llhist_add(struct ibpost_llhist *h, u64 ns)
{
	h->n++;
	h->sum += ns;
	if (ns < h->min)
		h->min = ns;
	if (ns > h->max)
		h->max = ns;
	h->log2[ibpost_hist_bucket(ns)]++;
	h->b[ibpost_llhist_index(ns)]++;
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_llhist_add);

/**
 * ibpost_llhist_merge() - add one histogram into another.
 * @to: the sum.
 * @from: added to @to.
 */
void ibpost_llhist_merge(struct ibpost_llhist *to,
			 const struct ibpost_llhist *from)
{
	u32 i;

	to->n += from->n;
	to->sum += from->sum;
	to->min = min(to->min, from->min);
	to->max = max(to->max, from->max);
	for (i = 0; i < IBPOST_HIST_BUCKETS; i++)
		to->log2[i] += from->log2[i];
	for (i = 0; i < IBPOST_HIST_LL_BUCKETS; i++)
		to->b[i] += from->b[i];
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_llhist_merge);

/**
 * ibpost_llhist_percentile() - a nearest-rank percentile to 2 significant
 *	digits.
 * @h: the histogram.
 * @per_mille: which one: 500 the median, 990 p99, 999 p99.9 (1..1000).
 *
 * The sample of rank ceil(n * @per_mille / 1000) lies in some bucket; the
 * answer is that bucket's lower bound, raised to @h->min when below it.
 * Guarantee, for the exact percentile x of the recorded values: below
 * 100 ns the answer is x; from 100 ns to 100 s it is at most x and more
 * than x minus one unit of x's second significant digit (x with its digits
 * after the first two zeroed, or between that and x: 1234 -> 1200,
 * 99999 -> 99000); from 100 s (the overflow bucket) it is 100 s or @h->min,
 * whichever is larger, at most x.  The answer is always within
 * [@h->min, @h->max].
 *
 * Return: the percentile in ns, 0 for an empty histogram.
 */
u64 ibpost_llhist_percentile(const struct ibpost_llhist *h, u32 per_mille)
{
	u64 rank, seen = 0;
	u32 i;

	if (!h->n)
		return 0;
	rank = div_u64(h->n * per_mille + 999, 1000);
	if (!rank)
		rank = 1;
	for (i = 0; i < IBPOST_HIST_LL_BUCKETS; i++) {
		seen += h->b[i];
		if (seen >= rank)
			return clamp(ibpost_llhist_lower(i), h->min, h->max);
	}
	return h->max;
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_llhist_percentile);

/**
 * ibpost_llhist_result() - the latency figures of a job from its histogram.
 * @h: every latency sample of the job.
 * @kept: how many of them were kept whole (and summarized with
 *	ibpost_lat_summarize() into @res already).
 * @res: its result.
 *
 * The log2 histogram of @res counts every sample.  When samples were
 * dropped from the exact set (@h->n > @kept): @res->lat_samples_capped says
 * how many were kept, count, min, max and mean are over every sample and
 * the median, p99 and p99.9 are read off @h (ibpost_llhist_percentile());
 * the standard deviation stays that of the kept samples.
 */
void ibpost_llhist_result(const struct ibpost_llhist *h, u64 kept,
			  struct ibpost_result *res)
{
	memcpy(res->hist, h->log2, sizeof(res->hist));
	res->lat_samples_capped = 0;
	if (h->n <= kept)
		return;
	res->lat_samples_capped = kept;
	res->lat_samples = h->n;
	res->lat_min_ns = h->min;
	res->lat_max_ns = h->max;
	res->lat_avg_ns = div64_u64(h->sum, h->n);
	res->lat_median_ns = ibpost_llhist_percentile(h, 500);
	res->lat_p99_ns = ibpost_llhist_percentile(h, 990);
	res->lat_p999_ns = ibpost_llhist_percentile(h, 999);
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_llhist_result);

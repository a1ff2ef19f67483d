// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost run: the log-linear latency histogram the kernel fills
 * (IBPOST_RUN_HIST, the layout of IBPOST_HIST_LL_BUCKETS in
 * include/uapi/ibpost.h): bucket bounds, the sum of several (-q), and
 * percentiles read off it as the kernel reads them (module/lib/llhist.c,
 * ibpost_llhist_percentile()).
 */
#include "ibpost.h"

/* The smallest latency bucket @i counts, in ns. */
unsigned long long hist_lower(unsigned int i)
{
	unsigned long long p = 1;
	unsigned int k;

	if (i < IBPOST_HIST_LL_EXACT)
		return i;
	if (i >= IBPOST_HIST_LL_BUCKETS - 1)
		return IBPOST_HIST_LL_OVER_NS;
	i -= IBPOST_HIST_LL_EXACT;
	for (k = 2 + i / IBPOST_HIST_LL_PER_DECADE; k > 1; k--)
		p *= 10;
	return (10 + i % IBPOST_HIST_LL_PER_DECADE) * p;
}

/* Add the counts of @from to @to. */
void hist_add(__u64 *to, const __u64 *from)
{
	unsigned int i;

	for (i = 0; i < IBPOST_HIST_LL_BUCKETS; i++)
		to[i] += from[i];
}

/*
 * The nearest-rank percentile @per_mille (500: median) of the latencies
 * counted in @b, whose smallest is @min and largest @max: the lower bound
 * of the rank's bucket, at least @min (so 2 significant digits, at most
 * the exact value).  0 when @b is empty.
 */
unsigned long long hist_percentile(const __u64 *b, unsigned long long min,
				   unsigned long long max,
				   unsigned int per_mille)
{
	unsigned long long n = 0, rank, seen = 0, lo;
	unsigned int i;

	for (i = 0; i < IBPOST_HIST_LL_BUCKETS; i++)
		n += b[i];
	if (!n)
		return 0;
	rank = (n * per_mille + 999) / 1000;
	if (!rank)
		rank = 1;
	for (i = 0; i < IBPOST_HIST_LL_BUCKETS; i++) {
		seen += b[i];
		if (seen < rank)
			continue;
		lo = hist_lower(i);
		return lo < min ? min : lo > max ? max : lo;
	}
	return max;
}

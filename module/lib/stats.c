// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: latency statistics.
 *
 * Samples are kept whole (one u64 per signaled WR, bounded by the caller),
 * sorted once at the end: percentiles are exact, not estimated.  Past the
 * caller's bound the log-linear histogram (llhist.c) has them all.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "lib/stats.h"

/**
 * ibpost_hist_bucket() - log2 histogram bucket of a latency.
 * @ns: latency in nanoseconds.
 *
 * Return: i such that 2^i <= @ns < 2^(i+1), 0 for 0 and 1, capped at
 * IBPOST_HIST_BUCKETS - 1.
 */
u32 ibpost_hist_bucket(u64 ns)
{
	u32 b = ns ? fls64(ns) - 1 : 0;

	return min_t(u32, b, IBPOST_HIST_BUCKETS - 1);
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_hist_bucket);

static int ibpost_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of sorted samples: per_mille of 1000. */
static u64 ibpost_rank(const u64 *s, u64 n, u32 per_mille)
{
	u64 rank = div_u64(n * per_mille + 999, 1000);

	return s[rank ? rank - 1 : 0];
}

/**
 * ibpost_lat_summarize() - fill the latency fields of a result.
 * @samples: latencies in ns; sorted in place.
 * @n: number of samples.
 * @res: result whose lat_* fields and histogram are written.
 */
void ibpost_lat_summarize(u64 *samples, u64 n, struct ibpost_result *res)
{
	u64 sum = 0, mean, var = 0, d, rem, acc = 0;
	u64 i;

	memset(res->hist, 0, sizeof(res->hist));
	res->lat_samples = n;
	res->lat_min_ns = 0;
	res->lat_max_ns = 0;
	res->lat_avg_ns = 0;
	res->lat_median_ns = 0;
	res->lat_stdev_ns = 0;
	res->lat_p99_ns = 0;
	res->lat_p999_ns = 0;
	if (!n)
		return;
	sort(samples, n, sizeof(*samples), ibpost_cmp_u64, NULL);
	for (i = 0; i < n; i++) {
		sum += samples[i];
		res->hist[ibpost_hist_bucket(samples[i])]++;
	}
	mean = div64_u64(sum, n);
	/* var = floor(sum(d^2) / n), remainders carried so none is lost. */
	for (i = 0; i < n; i++) {
		d = samples[i] > mean ? samples[i] - mean : mean - samples[i];
		d = min_t(u64, d, U32_MAX);	/* d * d must not overflow */
		var += div64_u64_rem(d * d, n, &rem);
		acc += rem;
		if (acc >= n) {
			var++;
			acc -= n;
		}
	}
	res->lat_min_ns = samples[0];
	res->lat_max_ns = samples[n - 1];
	res->lat_avg_ns = mean;
	res->lat_median_ns = ibpost_rank(samples, n, 500);
	res->lat_stdev_ns = int_sqrt64(var);
	res->lat_p99_ns = ibpost_rank(samples, n, 990);
	res->lat_p999_ns = ibpost_rank(samples, n, 999);
}
EXPORT_SYMBOL_IF_KUNIT(ibpost_lat_summarize);

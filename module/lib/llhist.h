/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibpost: log-linear latency histogram (pure).
 */
#ifndef _IBPOST_LLHIST_H
#define _IBPOST_LLHIST_H

#include <linux/types.h>
#include <uapi/ibpost.h>

/**
 * struct ibpost_llhist - latencies in ns, counted to 2 significant digits.
 * @n: values recorded.
 * @min: the smallest (U64_MAX while empty).
 * @max: the largest (0 while empty).
 * @sum: their sum.
 * @log2: the same values in log2 buckets (IBPOST_HIST_BUCKETS, bucket i
 *	counts [2^i, 2^(i+1)) ns): what &struct ibpost_result.hist and
 *	&struct ibpost_session_stats.lat_hist carry.
 * @b: IBPOST_HIST_LL_BUCKETS counts, bucket ibpost_llhist_index() of each
 *	value (the layout is the one of &struct ibpost_run.hist).
 *
 * Fixed size: recording never allocates and never drops a value.
 */
struct ibpost_llhist {
	u64 n;
	u64 min;
	u64 max;
	u64 sum;
	u64 log2[IBPOST_HIST_BUCKETS];
	u64 b[IBPOST_HIST_LL_BUCKETS];
};

void ibpost_llhist_init(struct ibpost_llhist *h);
u32 ibpost_llhist_index(u64 ns);
u64 ibpost_llhist_lower(u32 i);
void ibpost_llhist_add(struct ibpost_llhist *h, u64 ns);
void ibpost_llhist_merge(struct ibpost_llhist *to,
			 const struct ibpost_llhist *from);
void ibpost_llhist_percentiles(const struct ibpost_llhist *h,
			       const u32 *per_mille, u64 *out, u32 n);
u64 ibpost_llhist_percentile(const struct ibpost_llhist *h, u32 per_mille);
void ibpost_llhist_result(const struct ibpost_llhist *h, u64 kept,
			  struct ibpost_result *res);

#endif /* _IBPOST_LLHIST_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * ibpost: latency of a session's requests.
 *
 * Each completed request's submit-to-callback time goes into a ring of
 * the session's last &ibpost_session_attr.lat_samples latencies and into
 * the session's log-linear histogram (both taken at open, nothing
 * allocated per request).  A query of the ring copies and sorts it
 * (ibpost_lat_summarize(), the jobs' own summary): percentiles exact over
 * that window.  The histogram counts the session's whole life, to 2
 * significant digits (ibpost_session_get_stats()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/slab.h>

#include "session/session.h"
#include "lib/stats.h"

/**
 * ibpost_lat_ring_init() - allocate a ring of @size latencies and the
 *	histogram.
 * @r: zeroed ring.
 * @size: capacity, at least 1.
 *
 * Context: process context, may sleep.
 * Return: 0 or -ENOMEM (nothing allocated).
 */
int ibpost_lat_ring_init(struct ibpost_lat_ring *r, u32 size)
{
	r->ns = kvcalloc(size, sizeof(*r->ns), GFP_KERNEL);
	if (!r->ns)
		return -ENOMEM;
	r->hist = kvmalloc(sizeof(*r->hist), GFP_KERNEL);
	if (!r->hist) {
		kvfree(r->ns);
		r->ns = NULL;
		return -ENOMEM;
	}
	ibpost_llhist_init(r->hist);
	r->size = size;
	r->n = 0;
	return 0;
}

/**
 * ibpost_lat_ring_add() - record one latency (over the oldest when full).
 * @r: the ring (its session's lock held); without capacity, nothing.
 * @ns: the latency.
 */
void ibpost_lat_ring_add(struct ibpost_lat_ring *r, u64 ns)
{
	u32 slot;

	if (!r->size)
		return;
	ibpost_llhist_add(r->hist, ns);
	div_u64_rem(r->n, r->size, &slot);
	r->ns[slot] = ns;
	r->n++;
}

/**
 * ibpost_lat_ring_stats() - the lifetime figures into a session's stats.
 * @r: the ring (its session's lock held); without capacity, nothing.
 * @out: its log2 histogram and percentiles are written.
 *
 * The median, p99 and p99.9 of every request so far, to 2 significant
 * digits (ibpost_llhist_percentile()).
 */
void ibpost_lat_ring_stats(const struct ibpost_lat_ring *r,
			   struct ibpost_session_stats *out)
{
	if (!r->size)
		return;
	memcpy(out->lat_hist, r->hist->log2, sizeof(out->lat_hist));
	out->lat_p50_ns = ibpost_llhist_percentile(r->hist, 500);
	out->lat_p99_ns = ibpost_llhist_percentile(r->hist, 990);
	out->lat_p999_ns = ibpost_llhist_percentile(r->hist, 999);
}

/**
 * ibpost_lat_ring_free() - free a ring.
 * @r: the ring (may be empty).
 */
void ibpost_lat_ring_free(struct ibpost_lat_ring *r)
{
	kvfree(r->hist);
	kvfree(r->ns);
	memset(r, 0, sizeof(*r));
}

/**
 * ibpost_session_get_latency() - exact latency figures of a session's last
 *	completed requests.
 * @s: the session (open; also after its device went away).
 * @out: filled; all 0 when nothing completed yet.
 *
 * Over the last &ibpost_session_attr.lat_samples requests that completed
 * without error: min, max, mean and nearest-rank percentiles of their
 * submit-to-callback time.
 *
 * Context: process context, may sleep (the copy is allocated).
 * Return: 0 or -ENOMEM.
 */
int ibpost_session_get_latency(struct ibpost_session *s,
			       struct ibpost_session_lat *out)
{
	struct ibpost_result *res;
	unsigned long flags;
	u64 *copy, n;

	memset(out, 0, sizeof(*out));
	if (!s->lat.size)
		return 0;
	copy = kvcalloc(s->lat.size, sizeof(*copy), GFP_KERNEL);
	res = kzalloc(sizeof(*res), GFP_KERNEL);
	if (!copy || !res) {
		kvfree(copy);
		kfree(res);
		return -ENOMEM;
	}
	spin_lock_irqsave(&s->lock, flags);
	n = min_t(u64, s->lat.n, s->lat.size);
	memcpy(copy, s->lat.ns, n * sizeof(*copy));
	spin_unlock_irqrestore(&s->lock, flags);
	ibpost_lat_summarize(copy, n, res);
	out->samples = n;
	out->min_ns = res->lat_min_ns;
	out->max_ns = res->lat_max_ns;
	out->avg_ns = res->lat_avg_ns;
	out->p50_ns = res->lat_median_ns;
	out->p99_ns = res->lat_p99_ns;
	out->p999_ns = res->lat_p999_ns;
	kvfree(copy);
	kfree(res);
	return 0;
}
EXPORT_SYMBOL_GPL(ibpost_session_get_latency);

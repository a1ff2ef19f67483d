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
 *
 * Readers never take the session's lock (a world-readable sysfs file of
 * ibpost_blk reads them): the completion path writes each slot and count
 * with WRITE_ONCE() under the lock, readers copy with READ_ONCE().  A
 * reader racing with completions sees a window some slots of which are a
 * few requests newer, and histogram counts a moment apart: figures of
 * the same requests give or take those, at no cost to the I/O path.
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
	WRITE_ONCE(r->ns[slot], ns);
	WRITE_ONCE(r->n, r->n + 1);
}

/**
 * ibpost_lat_ring_stats() - the lifetime figures into a session's stats.
 * @r: the ring (no lock needed: see the top of this file); without
 *	capacity, nothing.
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
	u64 *copy, n, i;

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
	n = min_t(u64, READ_ONCE(s->lat.n), s->lat.size);
	for (i = 0; i < n; i++)
		copy[i] = READ_ONCE(s->lat.ns[i]);
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
